"""The platform the TypeScript tests play against, started as the Python tests start it
(tests/clients/platform.py: ``python -m maumau.run``, every service on a free port, its own
embedded Redis in a temporary folder, bots that move at once).

Run with the project's Python (``MAUMAU_PYTHON``, default ../../.venv/bin/python); the first
argument is a JSON object of further settings (environment variables). Prints one JSON line,
the address of each service by name, once every service serves; stops the platform when its
standard input closes (the test is done, or died) or on SIGTERM.
"""

from __future__ import annotations

import json
import signal
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from tests.clients.platform import FAST, start_platform  # noqa: E402


def main() -> None:
    settings = {**FAST, **(json.loads(sys.argv[1]) if len(sys.argv) > 1 else {})}
    with tempfile.TemporaryDirectory(prefix="maumau-ts-") as folder:
        platform = start_platform(Path(folder), **settings)
        try:
            addresses = {name: platform.address(name) for name in platform.ports}
            print(json.dumps(addresses), flush=True)
            done = threading.Event()
            signal.signal(signal.SIGTERM, lambda *_: done.set())
            threading.Thread(target=lambda: (sys.stdin.read(), done.set()), daemon=True).start()
            while not done.wait(0.5):  # in steps, so SIGTERM's handler runs
                pass
        finally:
            platform.stop()


if __name__ == "__main__":
    main()
