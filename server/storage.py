"""Finished games in SQLite (stdlib ``sqlite3``, one file, embedded).

A game is stored as its record (:class:`unoplay.record.GameRecord`: its seed,
rule set, players and every applied action in order, the commitment and its
salt, and every card as it was received), which :func:`unoplay.record.replay`
plays again and :mod:`unoplay.audit` checks against its seed (RULES.md,
"Fair deals").

Format 1 files (before fair deals: Mersenne Twister seeds, no commitment) are
upgraded in place when opened; their games replay with the old generator.

Each game is written in one transaction: a reader sees either the whole game
or nothing (the ``games`` row also records how many actions it has). The
:class:`Recorder` writes on one worker thread so the event loop never waits
on the disk; :meth:`Recorder.close` finishes every write it was given.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import sqlite3
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # (Windows: no flock; a file is not claimed there)
    fcntl = None  # type: ignore[assignment]

from unoplay.record import (
    GameRecord,
    action_from_json,
    action_json,
    received_rows,
    received_tuples,
)

log = logging.getLogger("unoplay.storage")

FORMAT = 2  # PRAGMA user_version of the schema below


_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id          INTEGER PRIMARY KEY,
    table_id    TEXT NOT NULL,
    title       TEXT NOT NULL,
    seed        TEXT NOT NULL,     -- the seed text (format 1: a decimal 64-bit seed)
    rules       TEXT NOT NULL,     -- JSON of RuleSet.to_dict()
    players     TEXT NOT NULL,     -- JSON list of {seat, name, bot}
    scores      TEXT NOT NULL,     -- JSON list, per seat
    winners     TEXT NOT NULL,     -- JSON list of seats
    status      TEXT NOT NULL,     -- "finished" or "interrupted" (server stopped mid-game)
    started_at  REAL NOT NULL,     -- Unix seconds
    finished_at REAL NOT NULL,     -- Unix seconds
    n_actions   INTEGER NOT NULL,
    prng        TEXT NOT NULL DEFAULT 'mt19937',  -- chance source: shake256-v1, or mt19937 (format 1)
    salt        TEXT NOT NULL DEFAULT '',         -- the commitment's salt (hex)
    commitment  TEXT NOT NULL DEFAULT '',         -- SHA-256 hex sent to the players at the start
    received    TEXT NOT NULL DEFAULT '[]'        -- JSON [[step, event kind, player, [cards]], ...]
);
CREATE INDEX IF NOT EXISTS games_by_table ON games(table_id);
CREATE TABLE IF NOT EXISTS actions (
    game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    n       INTEGER NOT NULL,      -- 0.. in the order applied
    seat    INTEGER NOT NULL,
    action  TEXT NOT NULL,         -- JSON list of the engine Action's fields
    source  TEXT NOT NULL,         -- player, bot, stand_in (away player) or timer
    t_ms    INTEGER NOT NULL,      -- milliseconds after the game started
    PRIMARY KEY (game_id, n)
) WITHOUT ROWID;
"""

#: The tables open now (waiting or playing), kept as they change by
#: :class:`.durable.Journal` so that a restarted server restores them
#: (:func:`.restore.restore`). A table's rows go when its game is stored in
#: ``games`` (finished, or interrupted by a final stop) or the table is dropped;
#: a lobby table's rows stay while it awaits a rematch. The arena's tables
#: have a row in ``live_arena`` too, and its entrants one each in
#: ``live_entrants``.
LIVE_SCHEMA = """
CREATE TABLE IF NOT EXISTS live_tables (
    table_id TEXT PRIMARY KEY,
    settings TEXT NOT NULL,            -- JSON: title, seats, rules, timers, window, seed, owner
    seats    TEXT NOT NULL,            -- JSON list of {name, bot, token_sha256, holder}
    game     TEXT NOT NULL DEFAULT '', -- JSON: number, seed, salt, commitment, started_at; '' none
    votes    TEXT NOT NULL DEFAULT '[]',  -- rematch votes (seats)
    seqs     TEXT NOT NULL DEFAULT '[]'   -- unused (was the logs' lengths): files keep it
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS live_actions (
    table_id TEXT NOT NULL,
    game     INTEGER NOT NULL,         -- the table's game number
    n        INTEGER NOT NULL,         -- 0.. in the order applied
    seat     INTEGER NOT NULL,
    action   TEXT NOT NULL,            -- as actions.action
    source   TEXT NOT NULL,
    t_ms     INTEGER NOT NULL,
    PRIMARY KEY (table_id, game, n)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS live_arena (
    table_id TEXT PRIMARY KEY,         -- an arena table among live_tables
    game     TEXT NOT NULL DEFAULT '', -- JSON: number, seated {seat: name key}, addresses
    rated    INTEGER NOT NULL DEFAULT 0  -- 1: the book rated it (in the rating's transaction)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS live_arena_started (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    games    INTEGER NOT NULL          -- arena games started on this file: the next is numbered on
);
CREATE TABLE IF NOT EXISTS live_entrants (
    key      TEXT PRIMARY KEY,         -- an arena entrant's name, case-folded
    address  TEXT NOT NULL,            -- the address it counts against
    since    REAL NOT NULL             -- Unix seconds: when it joined the queue
) WITHOUT ROWID;
"""

# Format 1 -> 2: the columns of fair deals (old games keep mt19937, no commitment).
_UPGRADE_1 = """
ALTER TABLE games ADD COLUMN prng TEXT NOT NULL DEFAULT 'mt19937';
ALTER TABLE games ADD COLUMN salt TEXT NOT NULL DEFAULT '';
ALTER TABLE games ADD COLUMN commitment TEXT NOT NULL DEFAULT '';
ALTER TABLE games ADD COLUMN received TEXT NOT NULL DEFAULT '[]';
"""


def _check_kind(db: sqlite3.Connection, path: str) -> None:
    """Raise RuntimeError, before anything is written, when ``path`` is not a
    game store nor empty: a ``uno match`` results file, another program's
    SQLite file, or no SQLite file at all."""
    try:
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError as err:
        raise RuntimeError(f"{path} is not a game store ({err})") from None
    if "matches" in tables:
        raise RuntimeError(f"{path} is a uno match results file (uno replay --match reads it)")
    if tables and "games" not in tables:
        raise RuntimeError(f"{path} is not a game store (an SQLite file of something else)")


def default_db_path() -> Path:
    """``games.sqlite3`` in the user's data directory for unoplay:
    ``$XDG_DATA_HOME/unoplay`` (default ``~/.local/share/unoplay``) on Linux,
    ``~/Library/Application Support/unoplay`` on macOS, ``%LOCALAPPDATA%\\unoplay``
    on Windows."""
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "unoplay" / "games.sqlite3"


class GameStore:
    """One SQLite file of games. Thread-safe (one connection behind a lock).

    With ``lazy``, the file (and its directory) is made only when the first
    game is stored, so a server that never finishes a game leaves no trace.
    ``keep``: how many of the newest games the file keeps (0: all); as a
    game is stored, the games numbered ``keep`` or more below it are
    deleted with their actions, so clients finishing games in a loop cannot
    fill the disk (the file's freed pages are used again; it does not
    shrink). Raises ValueError for a ``keep`` below 0.
    """

    def __init__(self, path: str | os.PathLike[str], lazy: bool = False, keep: int = 0) -> None:
        if keep < 0:
            raise ValueError(f"keep must be 0 (all) or more, not {keep}")
        self.path = Path(path)
        self.keep = keep
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._claim: int | None = None  # the descriptor holding the file (:meth:`claim`)
        if not lazy:
            with self._lock:
                self._connect()

    @property
    def _conn(self) -> sqlite3.Connection:
        return self._db if self._db is not None else self._connect()

    def _connect(self) -> sqlite3.Connection:
        """Open the file, creating it and the schema if need be (lock held)."""
        path = str(self.path)
        if path != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # 0600: the file holds the hidden cards (secret seeds) of games in play
            try:
                os.close(os.open(path, os.O_CREAT | os.O_RDWR, 0o600))
                os.chmod(path, 0o600)
            except OSError:  # another user's file, read only: sqlite says what it can do
                pass
        db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        try:
            _check_kind(db, path)
            db.execute("PRAGMA foreign_keys = ON")
            if path != ":memory:":
                db.execute("PRAGMA journal_mode = WAL")
                db.execute("PRAGMA synchronous = FULL")  # a commit is on disk when it returns
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > FORMAT:
                raise RuntimeError(f"{path}: made by a newer unoplay (format {version})")
            if version == 1:  # upgraded in one transaction: all of it or nothing
                db.executescript(
                    "BEGIN IMMEDIATE;" + _UPGRADE_1 + f"PRAGMA user_version = {FORMAT}; COMMIT;"
                )
                log.info("%s: upgraded from format 1 to %d", path, FORMAT)
            db.executescript(_SCHEMA)
            db.executescript(LIVE_SCHEMA)
            db.execute(f"PRAGMA user_version = {FORMAT}")
        except BaseException:
            db.close()
            raise
        self._db = db
        return db

    def claim(self) -> None:
        """Hold the file for this store alone among those that claim it (a
        server's: the open tables kept in it are its own) until :meth:`close`,
        making it now if it was lazy. Raises RuntimeError naming the file
        when another holds it (another ``uno serve`` on it). A file in
        memory, or a system without ``flock``, is not held."""
        if str(self.path) == ":memory:" or fcntl is None:
            return
        with self._lock:
            self._conn  # noqa: B018 (made now: there is a file to hold)
            fd = os.open(self.path, os.O_RDONLY)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise RuntimeError(
                    f"{self.path} is in use by another server: stop it first, or give this one"
                    " a file of its own (--db FILE)"
                ) from None
            self._claim = fd

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
            if self._claim is not None:
                os.close(self._claim)  # (the flock goes with it)
                self._claim = None

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """The file's connection in one write transaction, the store's lock
        held: committed when the block ends, rolled back if it raises (all
        of its changes or none)."""
        with self._lock:
            conn = self._conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise

    def save(self, record: GameRecord) -> int:
        """Store one game in one transaction; returns its id."""
        with self.transaction() as conn:
            return self.insert(conn, record)

    def insert(self, conn: sqlite3.Connection, record: GameRecord) -> int:
        """Insert ``record`` in the transaction open on ``conn``, and delete
        the games :attr:`keep` no longer keeps; returns its id (also set as
        ``record.game_id``)."""
        n = len(record.actions)
        sources = record.sources or ["player"] * n
        times = record.times_ms or [0] * n
        cursor = conn.execute(
            "INSERT INTO games (table_id, title, seed, rules, players, scores, winners,"
            " status, started_at, finished_at, n_actions, prng, salt, commitment,"
            " received) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                record.table_id,
                record.title,
                str(record.seed),
                json.dumps(record.rules),
                json.dumps(record.players),
                json.dumps(list(record.scores)),
                json.dumps(list(record.winners)),
                record.status,
                record.started_at,
                record.finished_at,
                n,
                record.prng,
                record.salt,
                record.commitment,
                json.dumps(received_rows(record.received)),
            ),
        )
        game_id = cursor.lastrowid
        assert game_id is not None  # an INSERT sets it
        conn.executemany(
            "INSERT INTO actions (game_id, n, seat, action, source, t_ms)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (
                (game_id, i, seat, action_json(action), sources[i], times[i])
                for i, (seat, action) in enumerate(record.actions)
            ),
        )
        record.game_id = game_id
        if self.keep:  # (ids only grow: the oldest are the lowest; actions go by cascade)
            conn.execute("DELETE FROM games WHERE id <= ?", (game_id - self.keep,))
        return game_id

    def games(self, limit: int = 50) -> list[dict[str, Any]]:
        """The latest ``limit`` games, newest first: id, table, title, players,
        scores, status, times and action count."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT id, table_id, title, players, scores, winners, status, started_at,"
                " finished_at, n_actions FROM games ORDER BY id DESC LIMIT ?",
                (limit,),
            ).fetchall()
        return [
            {
                "id": r[0],
                "table_id": r[1],
                "title": r[2],
                "players": json.loads(r[3]),
                "scores": json.loads(r[4]),
                "winners": json.loads(r[5]),
                "status": r[6],
                "started_at": r[7],
                "finished_at": r[8],
                "actions": r[9],
            }
            for r in rows
        ]

    def load(self, game: int | str) -> GameRecord:
        """The game with this id (or the latest game of this table id, or
        ``"last"``). Raises KeyError if there is none."""
        with self._lock:
            conn = self._conn
            columns = (
                "SELECT id, table_id, title, seed, rules, players, scores, winners, status,"
                " started_at, finished_at, n_actions, prng, salt, commitment, received"
                " FROM games"
            )
            if isinstance(game, int) or (isinstance(game, str) and game.isdigit()):
                row = conn.execute(columns + " WHERE id = ?", (int(game),)).fetchone()
            elif game == "last":
                row = conn.execute(columns + " ORDER BY id DESC LIMIT 1").fetchone()
            else:
                row = conn.execute(
                    columns + " WHERE table_id = ? ORDER BY id DESC LIMIT 1", (game,)
                ).fetchone()
            if row is None:
                raise KeyError(f"no stored game {game!r}")
            actions = conn.execute(
                "SELECT seat, action, source, t_ms FROM actions WHERE game_id = ? ORDER BY n",
                (row[0],),
            ).fetchall()
        (
            game_id,
            table_id,
            title,
            seed,
            rules,
            players,
            scores,
            winners,
            status,
            started,
            finished,
            n_actions,
            prng,
            salt,
            commitment_,
            received,
        ) = row
        if len(actions) != n_actions:  # cannot happen with transactions; say so if it does
            raise RuntimeError(f"game {game_id}: {len(actions)} of {n_actions} actions stored")
        return GameRecord(
            table_id=table_id,
            title=title,
            seed=seed,
            rules=json.loads(rules),
            players=json.loads(players),
            actions=[(seat, action_from_json(a)) for seat, a, _, _ in actions],
            sources=[s for _, _, s, _ in actions],
            times_ms=[t for _, _, _, t in actions],
            scores=tuple(json.loads(scores)),
            winners=tuple(json.loads(winners)),
            status=status,
            started_at=started,
            finished_at=finished,
            game_id=game_id,
            prng=prng,
            salt=salt,
            commitment=commitment_,
            received=received_tuples(json.loads(received)),
        )


class Recorder:
    """Writes records to a :class:`GameStore` on one worker thread.

    :meth:`submit` returns at once; :meth:`close` waits for every submitted
    write and closes the store. A failed write is logged, never raised into
    the game.
    """

    def __init__(self, store: GameStore) -> None:
        self.store = store
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="unoplay-db")
        self._pending: set[asyncio.Future[int | None]] = set()
        self.saved = 0
        self.failed = 0
        #: the server's :class:`.durable.Journal`, which stores the games that
        #: end at its tables (:meth:`drain` waits for it too), or None
        self.journal: Any = None

    def submit(self, record: GameRecord) -> asyncio.Future[int | None]:
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._executor, self._save, record)
        self._pending.add(future)
        future.add_done_callback(self._pending.discard)
        return future

    def _save(self, record: GameRecord) -> int | None:
        try:
            game_id = self.store.save(record)
        except Exception:
            self.failed += 1
            log.exception("could not store the game of table %s", record.table_id)
            return None
        self.saved += 1
        log.info(
            "stored game %d (table %s, %s, %d actions)",
            game_id,
            record.table_id,
            record.status,
            len(record.actions),
        )
        return game_id

    async def drain(self) -> None:
        """Wait until every submitted record is written (and every change
        given to the journal, if there is one)."""
        if self._pending:
            await asyncio.gather(*list(self._pending), return_exceptions=True)
        if self.journal is not None:
            await asyncio.to_thread(self.journal.flush)

    async def close(self) -> None:
        """Finish every write, stop the worker, close the store."""
        await self.drain()
        self._executor.shutdown(wait=True)
        self.store.close()
