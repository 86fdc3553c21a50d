"""The platform distribution (``maumau``): its wheel carries the generated ``maumau.v1`` and the
rules core compiled to C (with its pure modules beside it)."""

import sys
from pathlib import Path

from setuptools import setup

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_support import VERSION, BuildPlatformCompiled, CompiledRulesDistribution

setup(
    version=VERSION,
    cmdclass={"build_py": BuildPlatformCompiled},
    distclass=CompiledRulesDistribution,
)
