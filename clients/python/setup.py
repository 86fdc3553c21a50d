"""maumau-sdk: maumau_sdk with the generated maumau.v1, maumau.wire and the fairness hashes.

Its dependencies are what a client needs: grpcio, protobuf, googleapis-common-protos (the
standard error details it reads) and the rules core (maumau-rules, the same version). Built
from a clone of the project: it reads ../../protos and ../../services.
"""

import sys
from pathlib import Path

from setuptools import setup

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from build_support import VERSION, BuildPyWithProtos

setup(
    version=VERSION,
    install_requires=[
        "grpcio>=1.60",
        "protobuf>=4.25",
        "googleapis-common-protos>=1.63,<2",
        f"maumau-rules=={VERSION}",
    ],
    py_modules=["maumau.wire", "maumau.fairness"],
    package_dir={"maumau": "../../services/maumau"},
    cmdclass={"build_py": BuildPyWithProtos},
)
