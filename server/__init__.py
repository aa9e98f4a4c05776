"""Server side of unoplay: the rules engine, tables and lobby, the gRPC service."""
