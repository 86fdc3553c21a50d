"""maumau-rules: services/maumau/rules (typed, py.typed included) as a wheel of its own, with
the modules compiled to C beside the pure ones (see build_support.py)."""

import sys
from pathlib import Path

from setuptools import setup

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from build_support import VERSION, BuildRulesCompiled, CompiledRulesDistribution

setup(
    version=VERSION,
    packages=["maumau.rules"],
    package_dir={"maumau.rules": "../../services/maumau/rules"},
    package_data={"maumau.rules": ["py.typed"]},
    cmdclass={"build_py": BuildRulesCompiled},
    distclass=CompiledRulesDistribution,
)
