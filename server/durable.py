"""Tables that outlive ``uno serve``: every open table kept in the server's
SQLite file as it changes (issue 48; RULES.md, "Server restarts"), by the
:class:`Journal`; :mod:`.restore` brings them back when the server starts
again on the file.

What is kept (:data:`.storage.LIVE_SCHEMA`): each open table's settings, its
seats (names, bots, and each seat token's SHA-256, never the token), its
game's secret seed, salt and commitment, every action applied (seat, action,
source, ms) and the rematch votes; for the
arena's tables, who holds each seat and whether the game was rated; the
arena's entrants (its queue) and how many games it has started (a game
after a restart is numbered on from them, never again 1). The engine is deterministic, so settings +
seed + actions are the whole game: restoring deals again and replays them.
The logs' sequence numbers are not kept: a restored log is numbered on from
the last seq its first stream saw (:meth:`.streamlog.StreamLog.anchor`), so
they needed no write a change (until issue 51's third round each change
rewrote every table's counters, most of the file's writes at a hundred tables).

When a change is on disk: the event loop never writes. It appends each change
to the :class:`Journal`'s list (a few microseconds) and a writer thread takes
everything appended since its last write and commits it in one transaction
(WAL, ``synchronous = FULL``: a commit is on disk when it returns). While the
thread writes, new changes gather for the next commit, and a commit begins
at most every :data:`COMMIT_GAP` (10 ms), so under load the changes of those
10 ms share one transaction and one sync of the file (at 3,500 actions a
second this cut the server's CPU per action by a tenth); when idle a change
is committed within about a millisecond, at most 10 ms. A crash of the
process (SIGKILL) or a power cut loses at most the changes not yet
committed, the last 10-20 milliseconds of actions, and never half of one: a
transaction is all or nothing, and the rows of one change are in the same one.

A table's game is stored in ``games`` in the same transaction as its end is
kept: an arena table's rows go then; a lobby table's stay (its game marked
finished, ``finished_at``) until the lobby drops the table, so that a table
awaiting its rematch comes back too, votes and all. A table dropped, or
closed by its owner, has its rows go. An arena game is rated in the book's
own transaction, which marks it rated here (:meth:`Journal.rated_note`): a
game over before a crash is never rated twice.

Whoever can read the server's file (mode 0600) or its memory can read the
hidden cards of the games in play: the seed deals them.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from typing import Any, Protocol

from unoplay.game.actions import Action
from unoplay.game.deals import DealReveal
from unoplay.game.engine import GameState
from unoplay.game.messages import TableState
from unoplay.game.rules import RuleSet
from unoplay.record import GameRecord, action_json

from .history import History
from .seats import Seats
from .storage import GameStore, Recorder
from .streamlog import StreamLog

log = logging.getLogger("unoplay.durable")

#: The writer thread's name, in Python and in the OS (``top -H``, ``/proc``:
#: ``uno bench`` reads its CPU apart from the event loop's).
WRITER_THREAD = "unoplay-journal"

#: Seconds between the starts of two commits at least: under load the changes
#: of that long go in one transaction (one sync of the file); an idle
#: server's change is committed at once.
COMMIT_GAP = 0.01


class Votes(Protocol):
    """A table's rematch votes, as the journal reads them."""

    allowed: bool  #: the table plays more than one game

    def seats(self) -> tuple[int, ...]: ...


class KeptTable(Protocol):
    """What the journal reads of a table (:class:`.table.Table` has it)."""

    table_id: str
    title: str
    seats: Seats
    rules: RuleSet
    turn_seconds: int
    bot_delay: float
    round_pause: float
    away_grace: float
    window_ms: int
    seed: str | None
    max_round_actions: int
    owner: str
    strict: bool
    durable: bool
    closing: bool
    state: TableState
    game: GameState | None
    deal: DealReveal | None
    games_started: int
    started_at: float
    finished_at: float
    history: History

    @property
    def rematch(self) -> Votes: ...

    @property
    def spectator_log(self) -> StreamLog: ...


def _settings(table: KeptTable) -> str:
    return json.dumps(
        {
            "title": table.title,
            "seats": len(table.seats),
            "rules": table.rules.to_dict(),
            "turn_seconds": table.turn_seconds,
            "bot_delay": table.bot_delay,
            "round_pause": table.round_pause,
            "away_grace": table.away_grace,
            "window_ms": table.window_ms,
            "seed": table.seed,
            "max_round_actions": table.max_round_actions,
            "owner": table.owner,
            "strict": table.strict,
            "rematches": table.rematch.allowed,
        }
    )


def _seats(table: KeptTable) -> str:
    return json.dumps(
        [
            {
                "name": s.name,
                "bot": (getattr(s.bot, "name", "greedy") or "greedy") if s.bot is not None else "",
                "token_sha256": s.token_hash.hex() if s.token else "",
                "holder": s.holder,
            }
            for s in table.seats
        ]
    )


def _game(table: KeptTable) -> str:
    deal = table.deal
    if table.game is None or deal is None or table.state is TableState.WAITING:
        return ""
    row: dict[str, Any] = {
        "number": table.games_started,
        "seed": str(deal.seed),
        "salt": deal.salt,
        "commitment": deal.commitment,
        "started_at": table.started_at,
    }
    if table.state is TableState.FINISHED:
        row["finished_at"] = table.finished_at  # stored in games: never again
    return json.dumps(row)


def _name_os_thread(name: str) -> None:
    """Give the calling thread ``name`` in the OS too (Linux; elsewhere, or
    if refused, nothing): Python does not, and every thread of the server
    would show as ``python``."""
    try:
        with open(f"/proc/self/task/{threading.get_native_id()}/comm", "w") as comm:
            comm.write(name[:15])
    except OSError:
        pass


def _awaits_rematch(table: KeptTable) -> bool:
    """A finished game whose table stays for a rematch (not an arena's, not
    stopped for good)."""
    return table.rematch.allowed and table.state is TableState.FINISHED and not table.closing


class Journal:
    """The open tables' changes, written to the server's file by one thread in
    batched transactions (see the module docstring). Every method but
    :meth:`close` and :meth:`flush` is called from the event loop and
    returns at once."""

    def __init__(self, store: GameStore, recorder: Recorder | None = None) -> None:
        """Keep the open tables in ``store``'s file, claimed for this server
        alone (:meth:`.storage.GameStore.claim`: RuntimeError when another
        server holds it)."""
        store.claim()
        self.store = store
        self.recorder = recorder  # counts the games stored (saved, failed)
        if recorder is not None:
            recorder.journal = self
        self._ops: list[tuple[Any, ...]] = []
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._queued = 0  # changes appended ...
        self._written = 0  # ... and committed (or failed)
        self._closed = False
        self._waiting = False  # is the writer waiting for a change (to be woken)?
        self.failed = 0
        self._kept: set[str] = set()  # ids of the tables with rows
        self._arena: dict[str, str] = {}  # an arena table's id -> its seats' entrants (JSON)
        self._thread = threading.Thread(target=self._run, name=WRITER_THREAD, daemon=True)
        self._thread.start()

    # ------------------------------------------------------------ the loop's side

    def _put(self, op: tuple[Any, ...]) -> None:
        with self._lock:
            self._ops.append(op)
            self._queued += 1
            if self._waiting:  # (else it takes this op when its commit is done)
                self._waiting = False
                self._wake.notify_all()  # (all: a flush() may wait on it too)

    def keeps(self, table_id: str) -> bool:
        """Are the table's rows in the file (its game goes on after a restart)?"""
        return table_id in self._kept

    def restored(self, table_id: str) -> None:
        """The rows of ``table_id`` are in the file (a table restored from
        them, :mod:`.restore`): its changes are kept from now on."""
        self._kept.add(table_id)

    def table(self, table: KeptTable) -> None:
        """``table``'s whole row: made, a game started, or seats changed."""
        tid = table.table_id
        if not table.durable:  # a game from a crafted position: it does not replay
            self.drop(tid)
            return
        self._kept.add(tid)
        self._put(
            (
                "table",
                tid,
                _settings(table),
                _seats(table),
                _game(table),
                json.dumps(list(table.rematch.seats())),
                table.games_started,
                self._arena.get(tid),
            )
        )

    def arena_game(
        self, table_id: str, seated: dict[int, str], addresses: dict[int, str], number: int
    ) -> None:
        """``table_id`` is an arena table: ``seated`` (seat -> the entrant's
        name key) and ``addresses`` (seat -> its address) of its game, the
        arena's game ``number``; kept with the table's next row
        (:meth:`table`, before its game starts)."""
        self._arena[table_id] = json.dumps(
            {"number": number, "seated": seated, "addresses": addresses}
        )
        self._put(("arena_started", number))

    @staticmethod
    def rated_note(table_id: str) -> tuple[str, tuple[Any, ...]]:
        """The statement (SQL, parameters) the arena's book runs in the
        transaction that rates the game of arena table ``table_id``: the
        file then says it was rated, and a restart does not rate it again."""
        return (
            "INSERT INTO live_arena (table_id, rated) VALUES (?, 1)"
            " ON CONFLICT (table_id) DO UPDATE SET rated = 1",
            (table_id,),
        )

    def entrant(self, key: str, address: str, since: float) -> None:
        """An arena entrant (name ``key``, counted against ``address``) in the
        queue since ``since`` (Unix seconds), or playing."""
        self._put(("entrant", key, address, since))

    def entrant_gone(self, key: str) -> None:
        """An arena entrant left the arena."""
        self._put(("entrant_gone", key))

    def seats(self, table: KeptTable) -> None:
        """``table``'s seats changed (taken, freed, a bot seated, left)."""
        if table.table_id in self._kept:
            self._put(("seats", table.table_id, _seats(table)))

    def action(self, table: KeptTable, seat: int, action: Action, source: str, ms: int) -> None:
        """An action applied at ``table`` (the latest of its history)."""
        if table.table_id in self._kept:
            n = len(table.history) - 1
            self._put(("action", table.table_id, table.games_started, n, seat, action, source, ms))

    def votes(self, table: KeptTable) -> None:
        """A rematch vote at ``table``."""
        if table.table_id in self._kept:
            self._put(("votes", table.table_id, json.dumps(list(table.rematch.seats()))))

    def finish(self, table: KeptTable, record: GameRecord | None) -> None:
        """``table``'s game is over (or stopped for good): ``record`` is stored
        in ``games`` in the same transaction as the table's rows go, or, for
        a table awaiting its rematch, as its game is marked finished."""
        tid = table.table_id
        if tid in self._kept and _awaits_rematch(table):
            self._put(("finish", tid, record, _game(table)))
            return
        self._kept.discard(tid)
        self._arena.pop(tid, None)
        self._put(("finish", tid, record, None))

    def drop(self, table_id: str) -> None:
        """A table is gone (dropped, closed by its owner): its rows go."""
        self._arena.pop(table_id, None)
        if table_id in self._kept:
            self.discard(table_id)

    def discard(self, table_id: str) -> None:
        """The rows of ``table_id`` go, whatever the journal knew of it (a
        table that could not be restored)."""
        self._kept.discard(table_id)
        self._put(("drop", table_id))

    # ------------------------------------------------------------ the writer

    def _run(self) -> None:
        _name_os_thread(WRITER_THREAD)
        began = -COMMIT_GAP  # (time.monotonic) when the last commit began
        while True:
            with self._lock:
                while not self._ops and not self._closed:
                    self._waiting = True
                    self._wake.wait()
                self._waiting = False
                if self._closed and not self._ops:
                    return
                closed = self._closed
            wait = began + COMMIT_GAP - time.monotonic()
            if wait > 0 and not closed:  # busy: what comes meanwhile joins this commit
                time.sleep(wait)
            with self._lock:
                ops, self._ops = self._ops, []
            began = time.monotonic()
            try:
                saved = self._write(ops)
            except Exception:
                self.failed += 1
                if self.recorder is not None:
                    self.recorder.failed += sum(
                        op[0] == "finish" and op[2] is not None for op in ops
                    )
                log.exception("could not write %d changes of open tables", len(ops))
            else:
                if self.recorder is not None:
                    self.recorder.saved += len(saved)
                for record in saved:
                    log.info(
                        "stored game %d (table %s, %s, %d actions)",
                        record.game_id,
                        record.table_id,
                        record.status,
                        len(record.actions),
                    )
            with self._lock:
                self._written += len(ops)
                self._wake.notify_all()

    def _write(self, ops: list[tuple[Any, ...]]) -> list[GameRecord]:
        """Commit ``ops`` in one transaction; returns the games stored."""
        saved: list[GameRecord] = []
        with self.store.transaction() as conn:
            for op in ops:
                kind = op[0]
                if kind == "action":
                    _, tid, game, n, seat, action, source, ms = op
                    conn.execute(
                        "INSERT OR REPLACE INTO live_actions VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (tid, game, n, seat, action_json(action), source, ms),
                    )
                elif kind == "seats":
                    conn.execute(
                        "UPDATE live_tables SET seats = ? WHERE table_id = ?", (op[2], op[1])
                    )
                elif kind == "table":
                    _, tid, settings, seat_rows, game_row, votes, number, arena = op
                    conn.execute(
                        "INSERT OR REPLACE INTO live_tables"
                        " (table_id, settings, seats, game, votes) VALUES (?, ?, ?, ?, ?)",
                        (tid, settings, seat_rows, game_row, votes),
                    )
                    conn.execute(
                        "DELETE FROM live_actions WHERE table_id = ? AND game <> ?",
                        (tid, number),
                    )
                    if arena is not None:  # (rated stays as the book set it)
                        conn.execute(
                            "INSERT INTO live_arena (table_id, game) VALUES (?, ?)"
                            " ON CONFLICT (table_id) DO UPDATE SET game = excluded.game",
                            (tid, arena),
                        )
                elif kind == "votes":
                    conn.execute(
                        "UPDATE live_tables SET votes = ? WHERE table_id = ?", (op[2], op[1])
                    )
                elif kind == "finish":
                    _, tid, record, game_row = op
                    if record is not None:
                        self.store.insert(conn, record)
                        saved.append(record)
                    if game_row is not None:  # the table awaits its rematch
                        conn.execute(
                            "UPDATE live_tables SET game = ? WHERE table_id = ?", (game_row, tid)
                        )
                    else:
                        _delete_table(conn, tid)
                elif kind == "drop":
                    _delete_table(conn, op[1])
                elif kind == "arena_started":  # (never back: a restored game's number is old)
                    conn.execute(
                        "INSERT INTO live_arena_started (id, games) VALUES (1, ?) ON CONFLICT (id)"
                        " DO UPDATE SET games = max(games, excluded.games)",
                        (op[1],),
                    )
                elif kind == "entrant":
                    conn.execute("INSERT OR REPLACE INTO live_entrants VALUES (?, ?, ?)", op[1:])
                elif kind == "entrant_gone":
                    conn.execute("DELETE FROM live_entrants WHERE key = ?", (op[1],))
        return saved

    def flush(self, timeout: float = 30.0) -> bool:
        """Wait (blocking) until every change appended so far is committed."""
        deadline = time.monotonic() + timeout
        with self._lock:
            target = self._queued
            while self._written < target:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._wake.wait(left)
        return True

    def close(self) -> None:
        """Commit every change appended, then stop the writer."""
        with self._lock:
            self._closed = True
            self._wake.notify_all()
        self._thread.join(60.0)


def _delete_table(conn: sqlite3.Connection, table_id: str) -> None:
    """The rows of ``table_id`` go (in the transaction open on ``conn``)."""
    for rows in ("live_tables", "live_actions", "live_arena"):
        conn.execute(f"DELETE FROM {rows} WHERE table_id = ?", (table_id,))
