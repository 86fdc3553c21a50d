"""The platform distribution (``maumau``): its wheel carries the generated ``maumau.v1``, and the
rules core and the rating computation compiled to C (with their pure modules beside them)."""

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
