"""The platform distribution (``maumau``): its wheel carries the generated ``maumau.v1``."""

import sys
from pathlib import Path

from setuptools import setup

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_support import VERSION, BuildPlatform

setup(version=VERSION, cmdclass={"build_py": BuildPlatform})
