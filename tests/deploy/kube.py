"""Rendering deploy/k8s with the real kubectl, from a copy holding throw-away secret files."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.programs import require

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
KUBERNETES_VERSION = "1.30.0"
"""The oldest Kubernetes the manifests must be valid for (kubernetes-validate's schemas)."""

# What to render: each overlay, and the monitoring component on top of each.
RENDERED = {
    "base": "k8s/base",
    "dev": "k8s/overlays/dev",
    "prod": "k8s/overlays/prod",
    "dev+monitoring": "k8s/overlays/dev-monitoring",
}
SECRETS = {"k8s/overlays/dev": ["token-secret"], "k8s/overlays/prod": ["token-secret", "redis-url"]}


def kubectl() -> str:
    """kubectl whose kustomize knows components (kustomize v4 or newer)."""
    path = require("kubectl", "kubernetes-client")
    version = json.loads(
        subprocess.run(
            [path, "version", "--client", "-o", "json"], capture_output=True, check=True, text=True
        ).stdout
    )
    kustomize = version.get("kustomizeVersion", "")
    if not kustomize.startswith(("v4", "v5", "v6")):
        pytest.fail(f"{path} has kustomize {kustomize or 'unknown'}: install kubectl 1.21 or newer")
    return path


def copy_with_secrets(where: Path) -> Path:
    """deploy/ copied to ``where``, with placeholder secret files and a dev overlay that adds the
    monitoring component."""
    copy = where / "deploy"
    shutil.copytree(DEPLOY, copy, ignore=shutil.ignore_patterns("token-secret", "redis-url"))
    for folder, files in SECRETS.items():
        for name in files:
            value = "redis://redis.test:6379/0" if name == "redis-url" else "test-secret-" * 4
            (copy / folder / name).write_text(value)
    combined = copy / RENDERED["dev+monitoring"]
    combined.mkdir()
    (combined / "kustomization.yaml").write_text(
        yaml.safe_dump(
            {
                "apiVersion": "kustomize.config.k8s.io/v1beta1",
                "kind": "Kustomization",
                "resources": ["../dev"],
                "components": ["../../components/monitoring"],
            }
        )
    )
    return copy


def render(kubectl_path: str, folder: Path) -> list[dict[str, Any]]:
    done = subprocess.run(
        [kubectl_path, "kustomize", str(folder)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, f"kubectl kustomize {folder} failed:\n{done.stderr}"
    return [doc for doc in yaml.safe_load_all(done.stdout) if doc]
