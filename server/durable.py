"""Tables that outlive ``uno serve``: every open table kept in the server's
SQLite file as it changes, and restored from it when the server starts again
(issue 48; RULES.md, "Server restarts").

What is kept (``live_tables`` and ``live_actions``, :data:`.storage.LIVE_SCHEMA`):
each open table's settings, its seats (names, bots, and each seat token's
SHA-256, never the token), its game's secret seed, salt and commitment, every
action applied (seat, action, source, ms), the rematch votes and each log's
sequence counter. The engine is deterministic, so settings + seed + actions
are the whole game: :func:`restore` deals again and replays the actions.

When a change is on disk: the event loop never writes. It appends each change
to the :class:`Journal`'s list (a few microseconds) and a writer thread takes
everything appended since its last write and commits it in one transaction
(WAL, ``synchronous = FULL``: a commit is on disk when it returns). While the
thread writes, new changes gather for the next commit, so commits batch by
themselves under load; when idle a change is committed within about a
millisecond. A crash of the process (SIGKILL) or a power cut loses at most
the changes not yet committed, the last few milliseconds of actions, and
never half of one: a transaction is all or nothing, and the rows of one
change (an action and the seq counters after it) are in the same one.

A table's rows go when its game is stored in ``games`` (in the same
transaction), or the table is dropped. Arena tables (one game each, the
arena seats them) are not kept: a server stopped cleanly stores their games
as interrupted, as before.

Whoever can read the server's file (mode 0600) or its memory can read the
hidden cards of the games in play: the seed deals them.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from typing import TYPE_CHECKING, Any

from unoplay.game.actions import Action
from unoplay.game.deals import RECEIVED_KINDS, DealReveal, commitment
from unoplay.game.engine import GameState
from unoplay.game.messages import TableState, Welcome
from unoplay.game.registry import make_bot
from unoplay.game.rules import RuleSet

from .settings import MAX_GAME_ACTIONS
from .storage import (
    GameRecord,
    GameStore,
    Recorder,
    _action_from_json,
    _action_json,
    apply_recorded,
)
from .streamlog import StreamLog

if TYPE_CHECKING:
    from .lobby import Lobby
    from .table import Table

log = logging.getLogger("unoplay.durable")

#: What a restored seat holds instead of its token (never equal to a token:
#: tokens are URL-safe base64). Tokens are compared by their SHA-256.
RESTORED_TOKEN = "(restored)"


def _settings(table: Table) -> str:
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
        }
    )


def _seats(table: Table) -> str:
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


def _game(table: Table) -> str:
    deal = table.deal
    if table.game is None or deal is None or table.state is not TableState.PLAYING:
        return ""
    return json.dumps(
        {
            "number": table.games_started,
            "seed": str(deal.seed),
            "salt": deal.salt,
            "commitment": deal.commitment,
            "started_at": table.started_at,
        }
    )


def _seqs(table: Table) -> list[int]:
    return [len(s.log) for s in table.seats] + [len(table.spectator_log)]


class Journal:
    """The open tables' changes, written to the server's file by one thread in
    batched transactions (see the module docstring). Every method but
    :meth:`close` and :meth:`flush` is called from the event loop and
    returns at once."""

    def __init__(self, store: GameStore, recorder: Recorder | None = None) -> None:
        self.store = store
        self.recorder = recorder  # counts the games stored (saved, failed)
        if recorder is not None:
            recorder.journal = self
        self._ops: list[tuple[Any, ...]] = []
        self._seqs: dict[str, str] = {}  # table id -> its counters, the latest only
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._queued = 0  # changes appended ...
        self._written = 0  # ... and committed (or failed)
        self._closed = False
        self.failed = 0
        self._kept: set[str] = set()  # ids of the tables with rows
        self._thread = threading.Thread(target=self._run, name="unoplay-journal", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------ the loop's side

    def _put(self, op: tuple[Any, ...]) -> None:
        with self._lock:
            self._ops.append(op)
            self._queued += 1
            self._wake.notify()

    def kept(self, table: Table) -> bool:
        """Is ``table`` kept (an open table of the lobby, not an arena's)?"""
        return table.rematches and table.durable

    def table(self, table: Table) -> None:
        """``table``'s whole row: made, a game started, or seats changed."""
        if not self.kept(table):
            if table.table_id in self._kept:
                self.drop(table.table_id)
            return
        self._kept.add(table.table_id)
        self._put(
            (
                "table",
                table.table_id,
                _settings(table),
                _seats(table),
                _game(table),
                json.dumps(list(table.rematch.seats())),
                table.games_started,
            )
        )
        self.seqs(table)

    def seats(self, table: Table) -> None:
        """``table``'s seats changed (taken, freed, a bot seated, left)."""
        if table.table_id in self._kept:
            self._put(("seats", table.table_id, _seats(table)))
            self.seqs(table)

    def action(self, table: Table, seat: int, action: Action, source: str, ms: int) -> None:
        """An action applied at ``table`` (the latest of its history)."""
        if table.table_id in self._kept:
            n = len(table.history) - 1
            self._put(("action", table.table_id, table.games_started, n, seat, action, source, ms))

    def votes(self, table: Table) -> None:
        """A rematch vote at ``table``."""
        if table.table_id in self._kept:
            self._put(("votes", table.table_id, json.dumps(list(table.rematch.seats()))))

    def seqs(self, table: Table) -> None:
        """``table``'s logs grew: their counters go with the next commit."""
        if table.table_id in self._kept:
            text = json.dumps(_seqs(table))
            with self._lock:
                self._seqs[table.table_id] = text

    def finish(self, table: Table, record: GameRecord | None) -> None:
        """``table``'s game is over (or stopped for good): ``record`` is stored
        in ``games`` and the table's rows go, in one transaction."""
        self._kept.discard(table.table_id)
        self._put(("finish", table.table_id, record))

    def drop(self, table_id: str) -> None:
        """A table is gone (dropped, closed by its owner): its rows go."""
        if table_id in self._kept:
            self._kept.discard(table_id)
            self._put(("drop", table_id))

    # ------------------------------------------------------------ the writer

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._ops and not self._seqs and not self._closed:
                    self._wake.wait()
                if self._closed and not self._ops and not self._seqs:
                    return
                ops, self._ops = self._ops, []
                seqs, self._seqs = self._seqs, {}
            try:
                self._write(ops, seqs)
            except Exception:
                self.failed += 1
                if self.recorder is not None:
                    self.recorder.failed += sum(op[0] == "finish" for op in ops)
                log.exception("could not write %d changes of open tables", len(ops))
            with self._lock:
                self._written += len(ops)
                self._wake.notify_all()

    def _write(self, ops: list[tuple[Any, ...]], seqs: dict[str, str]) -> None:
        store = self.store
        saved: list[GameRecord] = []
        with store._lock:
            conn = store._conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                for op in ops:
                    kind = op[0]
                    if kind == "action":
                        _, tid, game, n, seat, action, source, ms = op
                        conn.execute(
                            "INSERT OR REPLACE INTO live_actions VALUES (?, ?, ?, ?, ?, ?, ?)",
                            (tid, game, n, seat, _action_json(action), source, ms),
                        )
                    elif kind == "seats":
                        conn.execute(
                            "UPDATE live_tables SET seats = ? WHERE table_id = ?", (op[2], op[1])
                        )
                    elif kind == "table":
                        _, tid, settings, seat_rows, game_row, votes, number = op
                        conn.execute(
                            "INSERT OR REPLACE INTO live_tables"
                            " (table_id, settings, seats, game, votes, seqs)"
                            " VALUES (?, ?, ?, ?, ?, COALESCE("
                            "(SELECT seqs FROM live_tables WHERE table_id = ?), '[]'))",
                            (tid, settings, seat_rows, game_row, votes, tid),
                        )
                        conn.execute(
                            "DELETE FROM live_actions WHERE table_id = ? AND game <> ?",
                            (tid, number),
                        )
                    elif kind == "votes":
                        conn.execute(
                            "UPDATE live_tables SET votes = ? WHERE table_id = ?", (op[2], op[1])
                        )
                    elif kind == "finish":
                        _, tid, record = op
                        if record is not None:
                            GameStore.insert(conn, record)
                            saved.append(record)
                        conn.execute("DELETE FROM live_tables WHERE table_id = ?", (tid,))
                        conn.execute("DELETE FROM live_actions WHERE table_id = ?", (tid,))
                    elif kind == "drop":
                        conn.execute("DELETE FROM live_tables WHERE table_id = ?", (op[1],))
                        conn.execute("DELETE FROM live_actions WHERE table_id = ?", (op[1],))
                conn.executemany(
                    "UPDATE live_tables SET seqs = ? WHERE table_id = ?",
                    [(text, tid) for tid, text in seqs.items()],
                )
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
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

    def flush(self, timeout: float = 30.0) -> bool:
        """Wait (blocking) until every change appended so far is committed."""
        deadline = time.monotonic() + timeout
        with self._lock:
            target = self._queued
            if self._seqs and not self._ops:
                self._wake.notify()
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


# ----------------------------------------------------------------- restoring


def restore(lobby: Lobby, store: GameStore) -> list[Table]:
    """Bring back every open table kept in ``store`` into ``lobby`` (see the
    module docstring). A table whose replay fails is closed (its rows go)
    with a log line saying why; the others come back. Returns the tables."""
    with store._lock:
        conn = store._conn
        rows = conn.execute(
            "SELECT table_id, settings, seats, game, votes, seqs FROM live_tables"
        ).fetchall()
        actions: dict[str, list[tuple[int, int, int, str, str, int]]] = {}
        for tid, game, n, seat, action, source, ms in conn.execute(
            "SELECT table_id, game, n, seat, action, source, t_ms FROM live_actions"
            " ORDER BY table_id, game, n"
        ):
            actions.setdefault(tid, []).append((game, n, seat, action, source, ms))
    tables = []
    for tid, settings, seat_rows, game_row, votes, seqs in rows:
        try:
            table = _restore_one(
                lobby,
                tid,
                json.loads(settings),
                json.loads(seat_rows),
                json.loads(game_row) if game_row else None,
                json.loads(votes),
                json.loads(seqs),
                actions.get(tid, []),
            )
        except Exception as err:
            log.error("table %s could not be restored and is closed: %s", tid, err)
            lobby.tables.pop(tid, None)
            lobby._waiting.pop(tid, None)
            if lobby.journal is not None:
                lobby.journal._kept.add(tid)
                lobby.journal.drop(tid)
            continue
        tables.append(table)
        log.info(
            "table %s restored (%s, %d actions)",
            tid,
            table.state.name.lower(),
            len(table.history),
        )
    return tables


def _restore_one(
    lobby: Lobby,
    table_id: str,
    settings: dict[str, Any],
    seat_rows: list[dict[str, Any]],
    game_row: dict[str, Any] | None,
    votes: list[int],
    seqs: list[int],
    actions: list[tuple[int, int, int, str, str, int]],
) -> Table:
    rules = RuleSet.from_dict(settings["rules"])
    table = lobby.adopt(
        table_id,
        settings["title"],
        settings["seats"],
        rules,
        turn_seconds=settings["turn_seconds"],
        bot_delay=settings["bot_delay"],
        round_pause=settings["round_pause"],
        away_grace=settings["away_grace"],
        window_ms=settings["window_ms"],
        seed=settings["seed"],
        max_round_actions=settings["max_round_actions"],
        owner=settings["owner"],
    )
    limits = table.limits
    for seat, row in zip(table.seats, seat_rows):
        if not row["name"]:
            continue
        seat.name = row["name"]
        seat.holder = row.get("holder", "")
        if row["bot"]:
            try:
                seat.bot = make_bot(row["bot"], rules=rules, max_ms=limits.bot_ms)
            except ValueError:
                seat.bot = make_bot("greedy", rules=rules, max_ms=limits.bot_ms)
        elif row["token_sha256"]:
            seat.token = RESTORED_TOKEN
            seat.token_hash = bytes.fromhex(row["token_sha256"])
        # the log goes on after the last seq kept (a seat with no token, a
        # bot's, keeps nothing but its count)
        kept = limits.log_messages if seat.token else 0
        seat.log = StreamLog(seat.index, kept, limits.log_bytes if kept else 0)
        seat.log.next_seq = seat.log.first_seq = (
            seqs[seat.index] if seat.index < len(seqs) else 0
        ) + 1
        seat.log.restored = seat.log.unanchored = True
    spectators = table.spectator_log
    spectators.next_seq = spectators.first_seq = (
        seqs[-1] if len(seqs) > len(table.seats) else 0
    ) + 1
    spectators.restored = spectators.unanchored = True
    table.fanout.show_seats(table.seats.infos())
    if game_row is None:
        for seat in table.seats:
            if seat.token:
                seat.log.append(Welcome(seat.index, table.info()))
        lobby.restored(table)
        if lobby.journal is not None:
            lobby.journal.table(table)
        return table
    seed = game_row["seed"]
    deal = DealReveal(seed, game_row["salt"], game_row["commitment"])
    if deal.commitment != commitment(seed, deal.salt, table_id, len(table.seats), rules.to_dict()):
        raise ValueError("the stored commitment does not match the seed and salt")
    number = game_row["number"]
    game, events = GameState.new(len(table.seats), rules, seed)
    table.games_started = number
    table.deal = deal
    table.started_at = game_row["started_at"]
    history = table.history
    _receive(table, events)
    round_actions = 0
    for game_no, n, seat_index, action_text, source, ms in actions:
        if game_no != number:
            continue
        if n != len(history):
            raise ValueError(f"action {len(history)} is missing")
        if game.is_game_over:
            raise ValueError(f"action {n} comes after the game's end")
        if game.is_round_over:
            round_actions = 0
            _receive(table, game.next_round())
        action = _action_from_json(action_text)
        applied = apply_recorded(game, seat_index, action)  # ValueError if refused
        history.append(seat_index, action, source, ms)
        round_actions += 1
        _receive(table, applied)
        if not game.is_round_over:
            if round_actions >= table.max_round_actions:
                game.cap_round(round_actions)
            elif len(history) >= MAX_GAME_ACTIONS:
                game.cap_round(len(history))
    table.game = game
    table._round_actions = round_actions
    for s in votes:
        table.rematch.vote(s)
    lobby.restored(table)
    table.resume()
    if lobby.journal is not None and table.state is TableState.PLAYING:
        lobby.journal.table(table)
    return table


def _receive(table: Table, events: list[Any]) -> None:
    history = table.history
    for e in events:
        if e.kind in RECEIVED_KINDS:
            history.receive(int(e.kind), e.player, e.cards)
