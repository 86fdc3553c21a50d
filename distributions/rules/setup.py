"""maumau-rules: services/maumau/rules (typed, py.typed included) as a wheel of its own."""

import sys
from pathlib import Path

from setuptools import setup

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from build_support import VERSION

setup(
    version=VERSION,
    packages=["maumau.rules"],
    package_dir={"maumau.rules": "../../services/maumau/rules"},
    package_data={"maumau.rules": ["py.typed"]},
)
