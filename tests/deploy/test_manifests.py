"""deploy/k8s as an operator would apply it: rendered by the real `kubectl kustomize`, every
object valid for Kubernetes 1.30 (strict: unknown fields refused), and the rules of issue 12
checked across the rendered objects."""

from __future__ import annotations

import copy
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from maumau.run import SERVICES
from tests.deploy.kube import (
    DEPLOY,
    KUBERNETES_VERSION,
    RENDERED,
    ROOT,
    copy_with_secrets,
    kubectl,
    render,
)

Object = dict[str, Any]
CUSTOM_KINDS = {"PodMonitor", "PrometheusRule"}  # Prometheus Operator CRDs: checked below
PRE_STOP_SECONDS = 5


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Object]]:
    path = kubectl()
    copied = copy_with_secrets(tmp_path_factory.mktemp("k8s"))
    return {name: render(path, copied / folder) for name, folder in RENDERED.items()}


def of_kind(objects: list[Object], *kinds: str) -> list[Object]:
    return [o for o in objects if o["kind"] in kinds]


def workloads(objects: list[Object]) -> list[Object]:
    return of_kind(objects, "Deployment", "StatefulSet")


def containers(objects: list[Object]) -> Iterator[tuple[Object, Object]]:
    for workload in workloads(objects):
        for container in workload["spec"]["template"]["spec"]["containers"]:
            yield workload, container


def matches(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return all(labels.get(key) == value for key, value in selector.items())


def pod_labels(workload: Object) -> dict[str, str]:
    labels: dict[str, str] = workload["spec"]["template"]["metadata"]["labels"]
    return labels


def name(o: Object) -> str:
    return f"{o['kind']}/{o['metadata']['name']}"


@pytest.mark.parametrize("variant", list(RENDERED))
def test_every_object_is_valid_for_kubernetes_1_30_strictly(
    rendered: dict[str, list[Object]], variant: str
) -> None:
    objects = rendered[variant]
    assert len(workloads(objects)) >= len(SERVICES)
    for o in objects:
        if o["kind"] in CUSTOM_KINDS:
            continue
        try:
            kubernetes_validate.validate(o, KUBERNETES_VERSION, strict=True)
        except kubernetes_validate.ValidationError as error:
            where = f"{variant}: {name(o)}: {error.message} at {list(error.path)}"
            raise AssertionError(where) from None


def test_the_validator_refuses_unknown_fields(rendered: dict[str, list[Object]]) -> None:
    deployment = copy.deepcopy(workloads(rendered["dev"])[0])
    deployment["spec"]["template"]["spec"]["containers"][0]["livenesProbe"] = {}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, KUBERNETES_VERSION, strict=True)


@pytest.mark.parametrize("variant", ["dev", "prod"])
def test_selectors_match_the_pods_they_mean(
    rendered: dict[str, list[Object]], variant: str
) -> None:
    objects = rendered[variant]
    pods = {o["metadata"]["name"]: pod_labels(o) for o in workloads(objects)}
    for workload in workloads(objects):
        assert matches(workload["spec"]["selector"]["matchLabels"], pod_labels(workload))
    for o in of_kind(objects, "Service"):
        selected = [n for n, labels in pods.items() if matches(o["spec"]["selector"], labels)]
        assert selected == [o["metadata"]["name"]], f"{name(o)} selects {selected}"
    for o in of_kind(objects, "PodDisruptionBudget"):
        selector = o["spec"]["selector"]["matchLabels"]
        assert [n for n, labels in pods.items() if matches(selector, labels)] == [
            o["metadata"]["name"]
        ]
    deployments = {o["metadata"]["name"] for o in of_kind(objects, "Deployment")}
    for o in of_kind(objects, "HorizontalPodAutoscaler"):
        assert o["spec"]["scaleTargetRef"]["name"] in deployments
    assert {o["metadata"]["name"] for o in of_kind(objects, "HorizontalPodAutoscaler")} == (
        deployments
    ), "every (stateless) service scales"
    assert {o["metadata"]["name"] for o in of_kind(objects, "PodDisruptionBudget")} == deployments


@pytest.mark.parametrize("variant", ["dev", "prod"])
def test_probes_and_services_name_ports_the_containers_declare(
    rendered: dict[str, list[Object]], variant: str
) -> None:
    objects = rendered[variant]
    for workload, container in containers(objects):
        declared = {p["name"]: p["containerPort"] for p in container["ports"]}
        for kind in ("startupProbe", "readinessProbe", "livenessProbe"):
            probe = container.get(kind)
            if probe is None:
                continue
            if "grpc" in probe:  # a gRPC probe takes a number only
                assert probe["grpc"]["port"] in declared.values(), f"{name(workload)} {kind}"
            for action in ("httpGet", "tcpSocket"):
                if action in probe:
                    port = probe[action]["port"]
                    assert port in declared, f"{name(workload)} {kind} names undeclared {port}"
    by_name = {o["metadata"]["name"]: o for o in workloads(objects)}
    for service in of_kind(objects, "Service"):
        pod = by_name[service["metadata"]["name"]]["spec"]["template"]["spec"]
        declared = {p["name"] for c in pod["containers"] for p in c["ports"]}
        for port in service["spec"]["ports"]:
            assert port["targetPort"] in declared, f"{name(service)} targets {port['targetPort']}"


@pytest.mark.parametrize("variant", ["dev", "prod"])
def test_every_container_is_limited_probed_and_locked_down(
    rendered: dict[str, list[Object]], variant: str
) -> None:
    for workload, container in containers(rendered[variant]):
        where = f"{name(workload)} container {container['name']}"
        pod = workload["spec"]["template"]["spec"]
        resources = container["resources"]
        assert {"cpu", "memory"} <= set(resources["limits"]), where
        assert {"cpu", "memory"} <= set(resources["requests"]), where
        assert "readinessProbe" in container and "livenessProbe" in container, where
        security = container["securityContext"]
        assert security["allowPrivilegeEscalation"] is False, where
        assert security["readOnlyRootFilesystem"] is True, where
        assert security["capabilities"]["drop"] == ["ALL"], where
        assert security.get("runAsNonRoot", pod["securityContext"].get("runAsNonRoot")), where
        seccomp = security.get("seccompProfile") or pod["securityContext"]["seccompProfile"]
        assert seccomp["type"] == "RuntimeDefault", where
        image = container["image"]
        tag = image.rsplit("/", 1)[-1].partition(":")[2]
        assert (tag and tag != "latest") or "@sha256:" in image, f"{where}: unpinned {image}"


@pytest.mark.parametrize("variant", ["dev", "prod"])
def test_pods_have_their_own_account_without_a_token_and_drain_before_stopping(
    rendered: dict[str, list[Object]], variant: str
) -> None:
    objects = rendered[variant]
    accounts = {o["metadata"]["name"]: o for o in of_kind(objects, "ServiceAccount")}
    settings = next(o for o in of_kind(objects, "ConfigMap") if "maumau-settings" in name(o))
    for workload in workloads(objects):
        pod = workload["spec"]["template"]["spec"]
        account = pod["serviceAccountName"]
        assert account == workload["metadata"]["name"]
        assert accounts[account]["automountServiceAccountToken"] is False
        assert pod["automountServiceAccountToken"] is False
        if workload["kind"] != "Deployment":
            continue
        service = workload["metadata"]["name"]
        grace = float(settings["data"][f"MAUMAU_{service.upper()}_GRACE_SECONDS"])
        (container,) = pod["containers"]
        assert container["lifecycle"]["preStop"]["sleep"]["seconds"] == PRE_STOP_SECONDS
        assert pod["terminationGracePeriodSeconds"] > PRE_STOP_SECONDS + grace
        keys = {c["topologyKey"] for c in pod["topologySpreadConstraints"]}
        assert keys == {"kubernetes.io/hostname", "topology.kubernetes.io/zone"}


def test_the_services_and_ports_agree_with_the_code(rendered: dict[str, list[Object]]) -> None:
    """maumau.run.SERVICES is the list of services (``make run`` starts them): each has a
    Deployment with its settings' default ports, in every overlay."""
    for variant in ("base", "dev", "prod"):
        deployments = {o["metadata"]["name"]: o for o in of_kind(rendered[variant], "Deployment")}
        for service in SERVICES:
            assert service.name in deployments, f"{variant}: no Deployment for {service.name}"
            (container,) = deployments[service.name]["spec"]["template"]["spec"]["containers"]
            declared = {p["name"]: p["containerPort"] for p in container["ports"]}
            defaults = service.settings.model_fields
            assert declared["metrics"] == defaults["metrics_port"].default
            assert declared["http" if service.web else "grpc"] == defaults["port"].default
            assert container["args"] == [service.module]


def test_service_to_service_targets_are_headless_and_round_robin(
    rendered: dict[str, list[Object]],
) -> None:
    objects = rendered["prod"]
    services = {o["metadata"]["name"]: o for o in of_kind(objects, "Service")}
    settings = next(o for o in of_kind(objects, "ConfigMap") if "maumau-settings" in name(o))
    targets = {k: v for k, v in settings["data"].items() if k.endswith("_ADDRESS")}
    assert targets
    for key, target in targets.items():
        assert target.startswith("dns:///"), f"{key}={target}"
        host, port = target.removeprefix("dns:///").split(":")
        service = services[host]
        assert service["spec"]["clusterIP"] == "None", f"{key}: {host} is not headless"
        assert int(port) in {p["port"] for p in service["spec"]["ports"]}


def test_every_metrics_port_is_scraped_and_the_rules_are_the_tested_ones(
    rendered: dict[str, list[Object]],
) -> None:
    for variant in ("prod", "dev+monitoring"):
        objects = rendered[variant]
        monitors = of_kind(objects, "PodMonitor")
        for workload, container in containers(objects):
            if not any(p["name"] == "metrics" for p in container["ports"]):
                continue
            labels = pod_labels(workload)
            scraping = [m for m in monitors if selects(m["spec"]["selector"], labels)]
            assert len(scraping) == 1, f"{variant}: {name(workload)} scraped by {len(scraping)}"
            assert [e["port"] for e in scraping[0]["spec"]["podMetricsEndpoints"]] == ["metrics"]
        (rule,) = of_kind(objects, "PrometheusRule")
        rules = yaml.safe_load((DEPLOY / "prometheus" / "rules.yml").read_text())
        assert rule["spec"]["groups"] == rules["groups"], (
            "run: python deploy/prometheus/operator_rules.py"
        )
        dashboards = [
            o for o in of_kind(objects, "ConfigMap") if "maumau.json" in o.get("data", {})
        ]
        assert len(dashboards) == 1


def selects(selector: Object, labels: dict[str, str]) -> bool:
    if not matches(selector.get("matchLabels", {}), labels):
        return False
    for expression in selector.get("matchExpressions", []):
        value = labels.get(expression["key"])
        inside = value in expression["values"]
        if (expression["operator"] == "In") != inside:
            return False
    return True


def test_network_policies_deny_by_default_and_bots_only_take_engine_and_gateway(
    rendered: dict[str, list[Object]],
) -> None:
    policies = {o["metadata"]["name"]: o for o in of_kind(rendered["prod"], "NetworkPolicy")}
    deny = policies["default-deny"]["spec"]
    assert deny["podSelector"] == {} and set(deny["policyTypes"]) == {"Ingress", "Egress"}
    assert "ingress" not in deny and "egress" not in deny
    into_bots = [
        p
        for p in policies.values()
        if "Ingress" in p["spec"]["policyTypes"]
        and selects(
            p["spec"]["podSelector"],
            {"app.kubernetes.io/name": "bots", "app.kubernetes.io/part-of": "maumau"},
        )
    ]
    grpc_sources = [
        rule.get("from")
        for p in into_bots
        for rule in p["spec"].get("ingress", [])
        if any(port["port"] == "grpc" for port in rule["ports"])
    ]
    assert grpc_sources and all(sources for sources in grpc_sources), "bots open to anyone"


def reaches(policies: list[Object], source: str, target: str, port: int) -> bool:
    """Whether an Egress policy lets pods of ``source`` call pods of ``target`` on ``port``."""
    pods = {"app.kubernetes.io/part-of": "maumau"}
    for policy in policies:
        spec = policy["spec"]
        if "Egress" not in spec["policyTypes"]:
            continue
        if not selects(spec["podSelector"], {**pods, "app.kubernetes.io/name": source}):
            continue
        for rule in spec.get("egress", []):
            to = [peer.get("podSelector", {}) for peer in rule.get("to", [])]
            if any(selects(peer, {**pods, "app.kubernetes.io/name": target}) for peer in to) and (
                any(p["port"] == port for p in rule.get("ports", []))
            ):
                return True
    return False


def test_the_house_in_the_bots_pods_may_call_the_engine_and_the_matchmaker(
    rendered: dict[str, list[Object]],
) -> None:
    """The Bots pods play the house's seats on the engine and join the arena's pools on the
    matchmaker (MAUMAU_BOTS_HOUSE_LEVELS), with the Redis URL of the other services."""
    policies = of_kind(rendered["prod"], "NetworkPolicy")
    assert reaches(policies, "bots", "engine", 50051)
    assert reaches(policies, "bots", "matchmaking", 50053)
    assert not reaches(policies, "bots", "accounts", 50056), "nothing it needs there"
    (bots,) = (o for o in of_kind(rendered["prod"], "Deployment") if name(o).endswith("bots"))
    env = {e["name"]: e for e in bots["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert env["MAUMAU_BOTS_HOUSE_LEVELS"]["value"] == "random,heuristic,strong"
    redis_url = env["MAUMAU_BOTS_HOUSE_REDIS_URL"]["valueFrom"]["secretKeyRef"]
    assert redis_url == env["REDIS_URL"]["valueFrom"]["secretKeyRef"]


def test_no_secret_is_committed() -> None:
    tracked = subprocess.run(
        ["git", "ls-files", "deploy"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    secrets = ("token-secret", "redis-url", "oidc-providers")
    assert not [p for p in tracked if Path(p).name in secrets]
    for path in tracked:
        if path.endswith((".yaml", ".yml")):
            for doc in yaml.safe_load_all((ROOT / path).read_text()):
                assert not (isinstance(doc, dict) and doc.get("kind") == "Secret"), (
                    f"{path} holds a Secret"
                )


@pytest.mark.parametrize("variant", ["dev", "prod"])
def test_every_service_accepts_the_settings_the_configmap_gives_it(
    rendered: dict[str, list[Object]], variant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = next(
        o for o in of_kind(rendered[variant], "ConfigMap") if "maumau-settings" in name(o)
    )
    for key in list(os.environ):
        if key.startswith("MAUMAU_") or key == "REDIS_URL":
            monkeypatch.delenv(key)
    for key, value in settings["data"].items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("MAUMAU_TOKEN_SECRET", "a-secret-from-the-secret-object")
    for service in SERVICES:
        loaded = service.settings()  # raises, naming the variable, on a value it cannot use
        assert loaded.host == "0.0.0.0", service.name
        for field in type(loaded).model_fields:
            target = getattr(loaded, field)
            calls = field.endswith("_address") and not field.endswith("_per_address")  # not rates
            if calls and isinstance(target, str):
                assert target.startswith("dns:///"), f"{service.name} {field}={target}"


def test_dev_runs_one_of_each_on_a_kept_redis_and_prod_three_spread_on_the_operators_redis(
    rendered: dict[str, list[Object]],
) -> None:
    """The overlays: dev one replica each and a single Redis StatefulSet with a persistent volume
    and the append-only file on; prod at least three replicas of each, HPA bounds from there,
    replicas kept apart by anti-affinity, and no Redis of its own (the operator gives its URL)."""
    dev, prod = rendered["dev"], rendered["prod"]
    assert {o["spec"]["replicas"] for o in of_kind(dev, "Deployment")} == {1}
    (redis,) = of_kind(dev, "StatefulSet")
    assert redis["spec"]["replicas"] == 1 and redis["spec"]["volumeClaimTemplates"]
    args = redis["spec"]["template"]["spec"]["containers"][0]["args"]
    assert args[args.index("--appendonly") + 1] == "yes"
    assert of_kind(prod, "StatefulSet") == []
    for o in of_kind(prod, "Deployment"):
        assert o["spec"]["replicas"] >= 3, name(o)
        assert "podAntiAffinity" in o["spec"]["template"]["spec"]["affinity"], name(o)
    for o in of_kind(prod, "HorizontalPodAutoscaler"):
        assert 3 <= o["spec"]["minReplicas"] < o["spec"]["maxReplicas"], name(o)
