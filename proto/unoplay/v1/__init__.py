"""Generated protobuf and gRPC code for the unoplay.v1 wire contract (do not edit)."""
