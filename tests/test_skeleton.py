import os
import subprocess
import sys

import pytest

SERVICE_LIBRARIES = ("grpc", "redis", "google.protobuf", "aiohttp", "prometheus_client")


@pytest.mark.parametrize("pure", ["0", "1"], ids=["as installed", "MAUMAU_PURE_PYTHON=1"])
def test_rules_core_is_importable_without_services(pure: str) -> None:
    """The rules core is a plain package: importing it, in a fresh interpreter, pulls in no
    service code and none of the libraries the services talk through; compiled or pure."""
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, maumau.rules; print(' '.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "MAUMAU_PURE_PYTHON": pure},
    ).stdout.split()
    assert "maumau.rules.match" in loaded
    ours = [name for name in loaded if name.startswith("maumau.")]
    assert all(name.startswith("maumau.rules") for name in ours), ours
    foreign = [name for name in loaded if name.startswith(SERVICE_LIBRARIES)]
    assert foreign == [], foreign
