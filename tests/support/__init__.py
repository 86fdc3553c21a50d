"""What tests of several folders share: polling, gRPC calls, service processes, engine replicas
and their clients. Fixtures live in the conftest.py files; these are plain helpers."""
