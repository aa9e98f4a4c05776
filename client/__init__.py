"""Client side of unoplay: the SDK, bots, match runner and the terminal UI."""
