"""The Textual terminal UI: connect, lobby, table and results screens."""
