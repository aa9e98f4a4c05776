"""Fixtures of the client's tests."""

import pytest


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    """Seat tokens, the TUI log, preferences and any server game store go to a
    temporary directory (the TUI's test modules use it for every test)."""
    monkeypatch.setenv("UNOPLAY_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    return tmp_path
