"""The lobby: every table of one server, within the server's limits.

Creates tables with fresh ids, finds them, seats people by name within the
seats-per-name limit, sweeps idle and finished tables, and stops them all
when the server stops. Runs on the server's event loop, like the tables.

Nothing here walks every table on a hot path: a server holds thousands of
finished tables (each kept ``finished_ttl`` for resumes and rematches), so
the lobby keeps the waiting tables apart (and counts them by owner), looks
at them at most once a second, counts the seats each name holds at open
tables (waiting or playing) as seats change, and keeps the finished ones in
a heap by when to look at each again.
"""

from __future__ import annotations

import dataclasses
import heapq
import itertools
import logging
import secrets
import time
from collections import Counter, deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from unoplay.game.messages import TableState
from unoplay.game.rules import RuleSet
from unoplay.protocol import LobbyError
from unoplay.settings import DEFAULT_AWAY_GRACE, DEFAULT_MAX_ROUND_ACTIONS
from unoplay.throttle import uncount

from .limits import Limits
from .seats import Seat, clean_name
from .table import Table

if TYPE_CHECKING:
    from .durable import Journal

log = logging.getLogger("unoplay.lobby")

#: Seconds between two looks at the waiting tables (their limits are in
#: seconds to minutes; a look at every table made would cost a start storm
#: of N tables N**2/2 looks).
WAITING_SWEEP_EVERY = 1.0


def holder_of(name: str, scope: str = "") -> str:
    """Whom the seats-per-name limit counts a seat of ``name`` against: the
    name (ignoring case), or with ``scope`` the name within it (a ``uno web``
    tab's "tab:<id>", the arena's seats): counted apart from the name's."""
    key = name.casefold()
    return f"{key}\n{scope}" if scope else key


def _scope(client: str) -> str:
    """The scope of ``client``'s seats (:func:`holder_of`): a ``uno web``
    tab's own, else none (an address shares its names' count)."""
    return client if client.startswith("tab:") else ""


class Lobby:
    """Every table of one server, within the server's :class:`Limits`.

    ``on_finish(table)`` is called when a table's game is over (storage);
    ``finished`` keeps the latest finished tables (for tests and tools).
    """

    def __init__(
        self,
        max_tables: int | None = None,
        limits: Limits | None = None,
        on_finish: Callable[[Table], None] | None = None,
    ) -> None:
        limits = limits or Limits()
        if max_tables is not None:
            limits = dataclasses.replace(limits, max_tables=max_tables)
        self.limits = limits
        self.tables: dict[str, Table] = {}
        self._waiting: dict[str, Table] = {}  # not started yet
        self._waiting_owned: Counter[str] = Counter()  # waiting tables by owner
        self._open_owned: dict[str, set[str]] = {}  # ids of open tables (waiting, playing)
        self._finished_owned: dict[str, deque[Table]] = {}  # by owner, the oldest first
        self._waiting_swept = -WAITING_SWEEP_EVERY  # when the waiting tables were looked at
        # seats held at open tables (waiting or playing) by each name
        # (casefolded), and each open table's share of them as last counted
        # (kept by _recount)
        self._held: Counter[str] = Counter()
        self._held_at: dict[str, Counter[str]] = {}
        # finished games: (when to compact or drop the table, a tie-breaker, the
        # table's id, its game: an entry of an earlier game, before a rematch, is
        # stale). By id: a table dropped before then (its owner made more) is
        # not kept alive here until then.
        self._due: list[tuple[float, int, str, int]] = []
        self._swept_limits = limits  # the limits the due times were computed with
        self._pushes = itertools.count()
        self.on_finish = on_finish
        #: keeps the open tables in the server's file (:mod:`.durable`), or None
        self.journal: Journal | None = None
        self.closing = False
        self._ids = itertools.count(1)
        self._next_id = 1  # past the restored tables' numbers
        self.finished: deque[Table] = deque(maxlen=64)

    @property
    def max_tables(self) -> int:
        return self.limits.max_tables

    def _started(self, table: Table) -> None:
        self._unwait(table)
        self._owned(table, True)  # open again, after a rematch
        self._recount(table)

    def _owned(self, table: Table, is_open: bool) -> None:
        """Count ``table`` among its owner's open tables, or (finished or
        dropped) no more; a finished one joins its owner's finished tables."""
        owner = table.owner
        if not owner:
            return
        done = self._finished_owned.get(owner)
        if done is not None and table in done:
            done.remove(table)
            if not done:
                del self._finished_owned[owner]
        opened = self._open_owned
        if is_open:
            opened.setdefault(owner, set()).add(table.table_id)
        elif owner in opened:
            opened[owner].discard(table.table_id)
            if not opened[owner]:
                del opened[owner]
        if table.state is TableState.FINISHED and self.tables.get(table.table_id) is table:
            self._finished_owned.setdefault(owner, deque()).append(table)

    def _make_room_for(self, owner: str) -> None:
        """Before ``owner`` makes a table: refuse it beyond its cap of open
        tables, and drop its oldest finished tables beyond the same number
        (one client's finished games must not fill the server's tables)."""
        cap = self.limits.max_tables_per_client
        if len(self._open_owned.get(owner, ())) >= cap:
            raise LobbyError(
                "resource_exhausted",
                f"you have {cap} tables open (waiting or playing): finish or leave one first",
            )
        done = self._finished_owned.get(owner)
        while done and len(done) > cap:
            oldest = done[0]
            oldest.close()
            self._drop(oldest)  # takes it out of ``done``

    def _unwait(self, table: Table) -> None:
        """``table`` is no longer waiting (it started, or is dropped)."""
        if self._waiting.pop(table.table_id, None) is not None and table.owner:
            uncount(self._waiting_owned, table.owner)

    def _finished(self, table: Table) -> None:
        self._owned(table, False)
        self._recount(table)
        limits = self.limits
        self._look_again(
            table, table.touched + min(limits.finished_full_seconds, limits.finished_ttl)
        )
        self.finished.append(table)
        if self.on_finish is not None:
            try:
                self.on_finish(table)
            except Exception:
                log.exception("on_finish failed for table %s", table.table_id)

    def _look_again(self, table: Table, when: float) -> None:
        entry = (when, next(self._pushes), table.table_id, table.games_started)
        heapq.heappush(self._due, entry)

    def sweep(self) -> None:
        """Drop finished tables after ``finished_ttl`` and waiting tables nobody
        touched for ``waiting_ttl`` (with no stream open); free the seats of
        people gone from waiting tables for ``waiting_seat_grace``; compact
        finished tables (:meth:`Table.compact`). Costs the finished tables
        due, and the waiting ones once every :data:`WAITING_SWEEP_EVERY`
        seconds, not every table (every table once after the limits changed:
        the due times came from the old ones)."""
        now = time.monotonic()
        limits = self.limits
        changed = limits is not self._swept_limits
        if changed or now - self._waiting_swept >= WAITING_SWEEP_EVERY:
            self._waiting_swept = now
            for table in list(self._waiting.values()):
                table.free_absent_seats(limits.waiting_seat_grace, now)
                if (
                    now - table.touched > limits.waiting_ttl
                    and not any(s.connections for s in table.seats)
                    and not table.spectators
                ):
                    table.close()
                    self._drop(table)
        if changed:
            self._swept_limits = limits
            looking, self._due = self._due, []
        else:
            looking = []
            while self._due and self._due[0][0] <= now:
                looking.append(heapq.heappop(self._due))
        for _, _, table_id, game in looking:
            due = self.tables.get(table_id)
            if (
                due is None  # dropped already
                or due.games_started != game  # an earlier game's: the last one has its own
                or due.state is not TableState.FINISHED  # playing again
            ):
                continue
            if now - due.touched > limits.finished_ttl:
                self._drop(due)
            elif due.compact(now):
                self._look_again(due, due.touched + limits.finished_ttl)
            else:  # a stream still reads it, or it changed since
                self._look_again(due, max(now + 1.0, due.touched + limits.finished_full_seconds))

    def _drop(self, table: Table) -> None:
        if self.journal is not None:
            self.journal.drop(table.table_id)
        self.tables.pop(table.table_id, None)
        self._unwait(table)
        self._owned(table, False)
        self._recount(table)

    def _recount(self, table: Table) -> None:
        """Bring the seats held by each name up to date with ``table``: called
        whenever its seats change and as it opens or stops being open."""
        held = self._held
        old = self._held_at.pop(table.table_id, None)
        if old:
            held.subtract(old)
            for name in old:
                if held[name] <= 0:
                    del held[name]
        if table.state is not TableState.FINISHED and self.tables.get(table.table_id) is table:
            new = Counter(s.holder or s.name.casefold() for s in table.seats if s.token)
            if new:
                held.update(new)
                self._held_at[table.table_id] = new

    def create(
        self,
        title: str,
        seats: int,
        rules: RuleSet,
        turn_seconds: int = 0,
        bot_delay: float = 0.0,
        away_grace: float | None = None,
        window_ms: int = 0,
        seed: str | None = None,
        max_round_actions: int = DEFAULT_MAX_ROUND_ACTIONS,
        owner: str = "",
        rematches: bool = True,
        on_give_up: Callable[[Table, int, str], None] | None = None,
    ) -> Table:
        """Create a table (see :class:`Table` for the settings, ``rematches``
        and ``on_give_up`` an arena's; ``away_grace``
        None is :data:`DEFAULT_AWAY_GRACE`; ``window_ms`` here defaults to 0, no
        window: the gRPC service passes :func:`default_window_ms` when the
        request names none; ``seed`` makes a seeded table; ``owner`` is who
        asks, the client's address: one owner may leave at most
        ``Limits.max_waiting_tables_per_client`` tables waiting, and have at
        most ``Limits.max_tables_per_client`` open; its oldest finished tables
        beyond that number are dropped to make room). Raises
        LobbyError for bad settings or too many tables (finished tables count
        too, until they are dropped), RuleError for rules the seat count
        cannot play."""
        if self.closing:
            raise LobbyError("unavailable", "the server is shutting down")
        self.sweep()
        if len(self.tables) >= self.limits.max_tables:
            raise LobbyError(
                "resource_exhausted",
                f"this server has {self.limits.max_tables} tables, its limit",
            )
        cap = self.limits.max_waiting_tables_per_client
        if owner and cap <= self._waiting_owned[owner]:
            raise LobbyError(
                "resource_exhausted",
                f"you have {cap} tables waiting for players: start or leave one first",
            )
        if owner:
            self._make_room_for(owner)
        number = next(self._ids)
        table_id = f"t{number}-{secrets.token_hex(3)}"
        table = Table(
            table_id,
            title or f"Table {number}",
            seats,
            rules,
            turn_seconds,
            bot_delay,
            on_finish=self._finished,
            away_grace=DEFAULT_AWAY_GRACE if away_grace is None else away_grace,
            window_ms=window_ms,
            seed=seed,
            max_round_actions=max_round_actions,
            limits=self.limits,
            owner=owner,
            rematches=rematches,
            on_start=self._started,
            on_seats=self._recount,
            on_give_up=on_give_up,
        )
        self.tables[table_id] = self._waiting[table_id] = table
        if owner:
            self._waiting_owned[owner] += 1
            self._owned(table, True)
        if self.journal is not None:
            table.journal = self.journal
            self.journal.table(table)
        return table

    def adopt(
        self,
        table_id: str,
        title: str,
        seats: int,
        rules: RuleSet,
        *,
        owner: str = "",
        **settings: Any,
    ) -> Table:
        """A table restored from the server's file (:func:`.restore.restore`),
        with its id and settings: not yet listed (:meth:`restored` lists it
        once its seats and game are back)."""
        table = Table(
            table_id,
            title,
            seats,
            rules,
            on_finish=self._finished,
            limits=self.limits,
            owner=owner,
            on_start=self._started,
            on_seats=self._recount,
            **settings,
        )
        number = table_id[1:].split("-", 1)[0]
        if number.isdigit() and int(number) >= self._next_id:
            self._next_id = int(number) + 1
            self._ids = itertools.count(self._next_id)
        return table

    def restored(self, table: Table) -> None:
        """List ``table``, restored with its seats and game (:meth:`adopt`):
        waiting (no game yet), its game about to go on, or finished (kept as
        a finished table, ``finished_ttl`` from now); the journal keeps it
        again."""
        self.tables[table.table_id] = table
        if table.state is TableState.WAITING and not table.games_started:
            self._waiting[table.table_id] = table
            if table.owner:
                self._waiting_owned[table.owner] += 1
        finished = table.state is TableState.FINISHED
        self._owned(table, not finished)
        self._recount(table)
        if finished:
            limits = self.limits
            self._look_again(
                table, table.touched + min(limits.finished_full_seconds, limits.finished_ttl)
            )
            self.finished.append(table)
        if self.journal is not None:
            table.journal = self.journal

    def get(self, table_id: str) -> Table:
        """The table with this id. Raises LobbyError("not_found")."""
        table = self.tables.get(table_id)
        if table is None:
            raise LobbyError("not_found", f"no table {table_id!r}")
        return table

    def seats_held(self, name: str, client: str = "") -> int:
        """Seats held by people called ``name`` (ignoring case) at open tables;
        with ``client`` a ``uno web`` tab ("tab:<id>"), those it holds."""
        return self._held[holder_of(name, _scope(client))]

    def join(
        self, table_id: str, name: str, wanted: int | None = None, client: str = ""
    ) -> tuple[Table, Seat]:
        """Seat ``name`` at a table, within the seats-per-name limit (counted
        per tab for a ``uno web`` tab, ``client`` "tab:<id>")."""
        if self.closing:
            raise LobbyError("unavailable", "the server is shutting down")
        table = self.get(table_id)
        name = clean_name(name)
        if self.seats_held(name, client) >= self.limits.max_seats_per_name:
            raise LobbyError(
                "resource_exhausted",
                f"{name!r} already holds {self.limits.max_seats_per_name} seats",
            )
        return table, table.join(name, wanted, holder=holder_of(name, _scope(client)))

    def close_table(self, table_id: str) -> None:
        """Stop a table's game where it stands and drop the table: its creator
        gave it up (``uno match``'s abandoned game at its embedded server).
        Its streams end as at a shutdown. Raises LobbyError("not_found")."""
        table = self.get(table_id)
        table.shut_down()
        self._drop(table)

    def close(self) -> None:
        """Cancel every table's timers."""
        for table in self.tables.values():
            table.close()

    def shut_down(self, restarting: bool = False) -> list[Table]:
        """Stop every table (streams end); returns the tables whose game was
        in progress, for storage as interrupted games. ``restarting``: the
        server starts again on the same file, where its journal keeps the
        open tables (:mod:`.durable`): only the games of tables it does not
        keep (a game from a crafted position) are returned, and the others'
        deals stay secret; else the rows of the waiting and finished tables go
        from the file (no table comes back after a stop for good)."""
        self.closing = True
        journal = self.journal
        interrupted = []
        for table in self.tables.values():
            kept = restarting and journal is not None and journal.keeps(table.table_id)
            if table.state is TableState.PLAYING and not kept:
                interrupted.append(table)
            elif not restarting and journal is not None:  # stopped for good: no table
                journal.drop(table.table_id)  # comes back, waiting or awaiting its rematch
            table.shut_down(restarting=kept)
        return interrupted
