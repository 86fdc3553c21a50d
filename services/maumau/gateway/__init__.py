"""The gateway: serves the web client and bridges browsers to the gRPC services."""
