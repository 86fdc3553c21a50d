"""What every service shares: configuration, embedded Redis, tokens, the gRPC bootstrap, errors."""
