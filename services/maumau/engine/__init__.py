"""The game-engine service: authoritative matches over gRPC, state in Redis."""
