"""Results that last: every game of a match in SQLite as it finishes.

One file holds many matches (``matches``: the settings of each, as JSON,
and a fingerprint of what decides its games) and their games (``games``:
one row per game index, its record as JSON and its main facts as columns
for SQL). A game is written once, in its own transaction, the moment its
result arrives; a game index already stored is never written again, so a
replayed game (a lost worker) is not counted twice. ``--resume`` finds the
latest match of the file with the same fingerprint and plays only the game
indices it lacks.

Beside each game's result, its full record (``game_records``): the record
``uno serve --db`` stores for ``uno replay`` (server/storage.py's
:class:`~unoplay.server.storage.GameRecord`, as its ``to_dict()`` values in
JSON, zlib-compressed, in base64: :func:`pack_record`), so that ``uno replay
--match FILE N`` steps through game N. Only with the server embedded in the
match's workers (the default): a remote server's (``--server``) tables are
not in reach, and its own store (``uno serve --db``) holds their games.

Default file: ``matches.sqlite3`` in the data directory of ``uno serve``'s
games (``unoplay.server.storage.default_db_path``: ``$XDG_DATA_HOME/unoplay``).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import sqlite3
import time
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from unoplay.record import GameRecord

from .result import CRASHED, ERROR, GameResult

SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    fingerprint TEXT NOT NULL,
    settings TEXT NOT NULL,
    planned INTEGER NOT NULL,
    state TEXT NOT NULL DEFAULT 'running'
);
CREATE INDEX IF NOT EXISTS matches_fingerprint ON matches (fingerprint, id);
CREATE TABLE IF NOT EXISTS games (
    match_id INTEGER NOT NULL REFERENCES matches (id),
    idx INTEGER NOT NULL,
    deal INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    seats TEXT NOT NULL,
    entrants TEXT NOT NULL,
    status TEXT NOT NULL,
    winners TEXT NOT NULL,
    scores TEXT NOT NULL,
    actions INTEGER NOT NULL,
    duration REAL NOT NULL,
    finished REAL NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (match_id, idx)
);
CREATE TABLE IF NOT EXISTS game_records (
    match_id INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    record TEXT NOT NULL,  -- pack_record(): base64 of zlib-compressed JSON
    PRIMARY KEY (match_id, idx),
    FOREIGN KEY (match_id, idx) REFERENCES games (match_id, idx)
);
"""


def pack_record(record: GameRecord) -> str:
    """A game's full record as text: ``record.to_dict()`` in JSON, zlib-compressed,
    in base64 (a worker packs it, the file keeps it as it is)."""
    data = json.dumps(record.to_dict(), separators=(",", ":")).encode()
    return base64.b64encode(zlib.compress(data)).decode("ascii")


def unpack_record(text: str) -> GameRecord:
    """The record of :func:`pack_record`'s text. Raises ValueError for text that is not one."""
    try:
        return GameRecord.from_dict(json.loads(zlib.decompress(base64.b64decode(text))))
    except (KeyError, TypeError, zlib.error) as err:
        raise ValueError(f"not a packed game record: {err!r}") from None


def default_path() -> Path:
    """``matches.sqlite3`` beside the server's default game store."""
    from unoplay.server.storage import default_db_path

    return default_db_path().with_name("matches.sqlite3")


def fingerprint(settings: dict[str, Any]) -> str:
    """SHA-256 of the settings that decide the games (JSON, sorted keys)."""
    return hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()


@dataclass(frozen=True)
class StoredMatch:
    """A match of the file: its id, creation (Unix time), settings, planned games, state and games
    stored."""

    id: int
    created: float
    settings: dict[str, Any]
    planned: int
    state: str
    games: int


class MatchStore:
    """A match file. Not shared between processes while a match runs (only
    the runner writes; workers send it their results). Raises ValueError,
    writing nothing, for a file that is neither empty nor a match file (a
    ``uno serve`` game store, say)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(str(self.path), timeout=30.0)
        try:
            tables = {
                r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            }
        except sqlite3.DatabaseError as err:
            self.db.close()
            raise ValueError(f"{path} is not a uno match results file ({err})") from None
        if tables and "matches" not in tables:  # (nothing written to it)
            self.db.close()
            what = (
                "a uno serve game store"
                if "games" in tables
                else "an SQLite file of something else"
            )
            raise ValueError(f"{path} is {what}, not a match results file")
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)
        self.db.commit()

    def close(self) -> None:
        """Close the file."""
        self.db.close()

    def create(self, settings: dict[str, Any], print_: str, planned: int) -> int:
        """A new match; returns its id."""
        now = time.time()
        with self.db:
            cursor = self.db.execute(
                "INSERT INTO matches (created, updated, fingerprint, settings, planned)"
                " VALUES (?, ?, ?, ?, ?)",
                (now, now, print_, json.dumps(settings, sort_keys=True), planned),
            )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def find(self, print_: str) -> int | None:
        """The latest match with this fingerprint, or None."""
        row = self.db.execute(
            "SELECT id FROM matches WHERE fingerprint = ? ORDER BY id DESC LIMIT 1", (print_,)
        ).fetchone()
        return None if row is None else int(row[0])

    def match(self, match_id: int) -> StoredMatch:
        """The match ``match_id``. Raises KeyError when the file has none."""
        row = self.db.execute(
            "SELECT m.id, m.created, m.settings, m.planned, m.state,"
            " (SELECT COUNT(*) FROM games g WHERE g.match_id = m.id)"
            " FROM matches m WHERE m.id = ?",
            (match_id,),
        ).fetchone()
        if row is None:
            raise KeyError(f"no match {match_id} in {self.path}")
        return StoredMatch(row[0], row[1], json.loads(row[2]), row[3], row[4], row[5])

    def matches(self) -> list[StoredMatch]:
        """Every match of the file, oldest first."""
        ids = [r[0] for r in self.db.execute("SELECT id FROM matches ORDER BY id")]
        return [self.match(i) for i in ids]

    def note_code_change(
        self, match_id: int, change: dict[str, Any], code: list[dict[str, Any]]
    ) -> None:
        """The match plays on with changed code (``--resume --allow-changed``):
        ``change`` (when, the games stored before, what changed) is added to
        its settings' ``code_changes`` and ``code`` becomes the code that now
        plays (a later resume compares with it). Raises KeyError for no such match."""
        settings = self.match(match_id).settings
        settings["code"] = code
        settings["code_changes"] = [*settings.get("code_changes", []), change]
        with self.db:
            self.db.execute(
                "UPDATE matches SET settings = ?, updated = ? WHERE id = ?",
                (json.dumps(settings, sort_keys=True), time.time(), match_id),
            )

    def set_state(self, match_id: int, state: str, planned: int | None = None) -> None:
        """Set the match's state (running, stopped, done) and, when given, its planned games."""
        with self.db:
            if planned is None:
                self.db.execute(
                    "UPDATE matches SET state = ?, updated = ? WHERE id = ?",
                    (state, time.time(), match_id),
                )
            else:
                self.db.execute(
                    "UPDATE matches SET state = ?, planned = ?, updated = ? WHERE id = ?",
                    (state, planned, time.time(), match_id),
                )

    def add(
        self, match_id: int, result: GameResult, labels: list[str], record: str | None = None
    ) -> bool:
        """Store one game, in a transaction of its own, with its full record
        when there is one (``record``: :func:`pack_record`'s text). False
        (nothing written) when that game index is already stored, unless as
        crashed or an error (``--resume`` plays those again: the new result
        replaces it)."""
        with self.db:
            replaced = self.db.execute(
                "DELETE FROM games WHERE match_id = ? AND idx = ? AND status IN (?, ?)",
                (match_id, result.index, CRASHED, ERROR),
            )
            if replaced.rowcount:
                self.db.execute(
                    "DELETE FROM game_records WHERE match_id = ? AND idx = ?",
                    (match_id, result.index),
                )
            cursor = self.db.execute(
                "INSERT OR IGNORE INTO games (match_id, idx, deal, seed, seats, entrants,"
                " status, winners, scores, actions, duration, finished, record)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    match_id,
                    result.index,
                    result.deal,
                    result.seed,
                    json.dumps(result.seats),
                    json.dumps(labels),
                    result.status,
                    json.dumps(result.winners),
                    json.dumps(result.scores),
                    result.actions,
                    result.duration,
                    time.time(),
                    json.dumps({**result.to_dict(), "packed_record": None}),
                ),
            )
            if cursor.rowcount != 1:
                return False
            if record is not None:
                self.db.execute(
                    "INSERT INTO game_records (match_id, idx, record) VALUES (?, ?, ?)",
                    (match_id, result.index, record),
                )
            return True

    def latest(self) -> int | None:
        """The id of the file's latest match, or None when it has none."""
        row = self.db.execute("SELECT MAX(id) FROM matches").fetchone()
        return None if row[0] is None else int(row[0])

    def game_record(self, match_id: int, index: int) -> GameRecord | None:
        """The full record of game ``index`` of the match; None when it was
        stored without one (played on a remote server). Raises KeyError when
        the match has no such game."""
        row = self.db.execute(
            "SELECT r.record FROM games g LEFT JOIN game_records r"
            " ON r.match_id = g.match_id AND r.idx = g.idx"
            " WHERE g.match_id = ? AND g.idx = ?",
            (match_id, index),
        ).fetchone()
        if row is None:
            raise KeyError(
                f"match {match_id} of {self.path} has no game {index} (its games are numbered from 0)"
            )
        return None if row[0] is None else unpack_record(row[0])

    def game_list(self, match_id: int) -> list[dict[str, Any]]:
        """The match's games, by index, as ``uno replay`` lists stored games
        (``GameStore.games``' keys; ``id`` is the game's index in the match,
        ``title`` says when it has no record, ``players`` the entrants' labels)."""
        rows = self.db.execute(
            "SELECT g.idx, g.entrants, g.scores, g.winners, g.status, g.record, g.finished,"
            " r.idx IS NOT NULL FROM games g LEFT JOIN game_records r"
            " ON r.match_id = g.match_id AND r.idx = g.idx"
            " WHERE g.match_id = ? ORDER BY g.idx",
            (match_id,),
        )
        games = []
        for idx, labels, scores, winners, status, data, finished, recorded in rows:
            result = GameResult.from_dict(json.loads(data))
            games.append(
                {
                    "id": idx,
                    "table_id": result.table_id,
                    "title": "" if recorded else "no record (remote server)",
                    "players": [
                        {"seat": s, "name": name, "bot": ""}
                        for s, name in enumerate(json.loads(labels))
                    ],
                    "scores": json.loads(scores),
                    "winners": json.loads(winners),
                    "status": status,
                    "started_at": result.started_at,
                    "finished_at": finished,
                    "actions": result.actions,
                }
            )
        return games

    def results(self, match_id: int, arrival: bool = False) -> list[GameResult]:
        """Every stored game of the match, by index (``arrival``: in the
        order they were stored, which is the order the SPRT saw them)."""
        order = "rowid" if arrival else "idx"
        rows = self.db.execute(
            f"SELECT record FROM games WHERE match_id = ? ORDER BY {order}", (match_id,)
        )
        return [GameResult.from_dict(json.loads(r[0])) for r in rows]

    def indices(self, match_id: int) -> set[int]:
        """The game indices stored for the match."""
        return {
            r[0] for r in self.db.execute("SELECT idx FROM games WHERE match_id = ?", (match_id,))
        }


def write_jsonl(
    path: str | Path,
    results: Iterable[GameResult],
    labels: list[str],
    store: MatchStore | None = None,
    match_id: int | None = None,
) -> int:
    """Every game, one JSON object a line (its result, the entrants' labels
    in ``players``, seat by seat, and its moves: ``game_record``, the full
    record of the match's ``store``, as ``GameRecord.to_dict()`` gives it,
    null without one), for notebooks (``pandas.read_json(path, lines=True)``).
    Returns the number of lines."""
    n = 0
    with open(path, "w", encoding="utf-8") as f:
        for result in sorted(results, key=lambda r: r.index):
            record = result.to_dict()
            del record["packed_record"]  # the record itself follows, in plain values
            record["players"] = [labels[e] for e in result.seats]
            moves = None
            if store is not None and match_id is not None:
                with contextlib.suppress(KeyError):
                    moves = store.game_record(match_id, result.index)
            record["game_record"] = None if moves is None else moves.to_dict()
            f.write(json.dumps(record) + "\n")
            n += 1
    return n
