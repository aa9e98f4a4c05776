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
from typing import Any

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


def write_json(target: Path, data: dict[str, Any], secret: bool = False) -> None:
    """Replace ``target`` with ``data`` at once (a temporary file renamed);
    ``secret``: readable by its owner only. A failure is ignored."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.stem}-", dir=target.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(data, out, indent=1, sort_keys=True)
        if secret:
            os.chmod(tmp, 0o600)
        os.replace(tmp, target)
    except OSError:
        pass


class SeatStore:
    """Seat tokens by (server, table, name). Failures to read or write are ignored:
    losing a token only means the seat cannot be taken back."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path

    def _file(self) -> Path:
        return self.path or data_dir() / "seats.json"

    @staticmethod
    def key(server: str, table_id: str, name: str) -> str:
        """The entry's key: server (case-blind), table and name."""
        return f"{server.strip().lower()}|{table_id}|{name.strip()}"

    def _load(self) -> dict[str, dict]:
        try:
            data = json.loads(self._file().read_text(encoding="utf-8"))
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}

    def _save(self, data: dict[str, dict]) -> None:
        write_json(self._file(), data, secret=True)

    def get(self, server: str, table_id: str, name: str) -> str | None:
        """The stored token for this seat, or None."""
        entry = self._load().get(self.key(server, table_id, name))
        return entry.get("token") if isinstance(entry, dict) else None

    def seat(self, server: str, table_id: str, name: str) -> int | None:
        """The seat number stored with the token, or None."""
        entry = self._load().get(self.key(server, table_id, name))
        seat = entry.get("seat") if isinstance(entry, dict) else None
        return seat if isinstance(seat, int) else None

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

    def held(self) -> list[tuple[str, str, str, str]]:
        """Every seat remembered: ``(server, table_id, name, token)``."""
        out = []
        for key, entry in self._data.items():
            server, table_id, name = key.split("|", 2)
            out.append((server, table_id, name, str(entry.get("token", ""))))
        return out


class Prefs:
    """What the TUI remembers between runs that is no secret: the last table
    created (the form's fields), the hand's order. ``prefs.json`` next to
    ``seats.json``; ``path`` None with ``memory`` keeps them in this process
    only (``uno web``'s tabs, tests). Failures to read or write are ignored."""

    def __init__(self, path: Path | None = None, memory: bool = False) -> None:
        self.path = path
        self.memory: dict[str, Any] | None = {} if memory else None

    def _load(self) -> dict[str, Any]:
        if self.memory is not None:
            return dict(self.memory)
        try:
            data = json.loads((self.path or data_dir() / "prefs.json").read_text("utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def get(self, key: str, default: Any = None) -> Any:
        """The value kept under ``key``, or ``default``."""
        return self._load().get(key, default)

    def put(self, key: str, value: Any) -> None:
        """Keep ``value`` (JSON) under ``key``."""
        data = self._load()
        data[key] = value
        if self.memory is not None:
            self.memory = data
            return
        write_json(self.path or data_dir() / "prefs.json", data)
