"""What tests of several folders share: polling, gRPC calls, service processes, engine replicas
and their clients, Debian programs. Fixtures live in the conftest.py files; these are helpers."""
