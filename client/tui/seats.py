"""Seat tokens kept on this machine, so a player who quits can take the seat back.

The file is ``seats.json`` in the user's data directory (for example
``~/.local/share/unoplay/seats.json``; ``$UNOPLAY_DATA_DIR`` overrides the
directory), keyed by server, table and name. Tokens are secrets: the file is
written with mode 0600, and entries older than :data:`MAX_AGE` are dropped.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path

MAX_AGE = 7 * 24 * 3600  # seconds


def data_dir() -> Path:
    """The unoplay data directory (created if missing)."""
    override = os.environ.get("UNOPLAY_DATA_DIR")
    if override:
        path = Path(override)
    else:
        try:
            from platformdirs import user_data_dir

            path = Path(user_data_dir("unoplay", appauthor=False))
        except ImportError:  # pragma: no cover - textual depends on platformdirs
            base = os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share")
            path = Path(base) / "unoplay"
    path.mkdir(parents=True, exist_ok=True)
    return path


class SeatStore:
    """Seat tokens by (server, table, name). Failures to read or write are ignored:
    losing a token only means the seat cannot be taken back."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path

    def _file(self) -> Path:
        return self.path or data_dir() / "seats.json"

    @staticmethod
    def key(server: str, table_id: str, name: str) -> str:
        return f"{server.strip().lower()}|{table_id}|{name.strip()}"

    def _load(self) -> dict[str, dict]:
        try:
            data = json.loads(self._file().read_text(encoding="utf-8"))
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}

    def _save(self, data: dict[str, dict]) -> None:
        try:
            target = self._file()
            fd, tmp = tempfile.mkstemp(prefix=".seats-", dir=target.parent)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(data, out, indent=1, sort_keys=True)
            os.chmod(tmp, 0o600)
            os.replace(tmp, target)
        except OSError:
            pass

    def get(self, server: str, table_id: str, name: str) -> str | None:
        """The stored token for this seat, or None."""
        entry = self._load().get(self.key(server, table_id, name))
        return entry.get("token") if isinstance(entry, dict) else None

    def put(self, server: str, table_id: str, name: str, token: str, seat: int) -> None:
        """Remember a seat token."""
        now = time.time()
        data = {
            k: v
            for k, v in self._load().items()
            if isinstance(v, dict) and now - v.get("saved", 0) < MAX_AGE
        }
        data[self.key(server, table_id, name)] = {"token": token, "seat": seat, "saved": now}
        self._save(data)

    def forget(self, server: str, table_id: str, name: str) -> None:
        """Drop a token (the game is over, or the server no longer knows it)."""
        data = self._load()
        if data.pop(self.key(server, table_id, name), None) is not None:
            self._save(data)


class MemorySeatStore(SeatStore):
    """Seat tokens kept in this process only, never written anywhere.

    For ``uno play --memory-seats``, which every browser tab of ``uno web``
    runs: those processes share the web server's user and data directory, and
    a shared ``seats.json`` would hand one browser's seat to another that sat
    down with the same name. The price: a tab closed or reloaded cannot take
    its seat back (the turn timer, then a stand-in bot, plays it on).
    """

    def __init__(self) -> None:
        super().__init__()
        self._data: dict[str, dict] = {}

    def _load(self) -> dict[str, dict]:
        return dict(self._data)

    def _save(self, data: dict[str, dict]) -> None:
        self._data = dict(data)
