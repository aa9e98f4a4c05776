"""The lobby: every table of one server, within the server's limits.

Creates tables with fresh ids, finds them, seats people by name within the
seats-per-name limit, sweeps idle and finished tables, and stops them all
when the server stops. Runs on the server's event loop, like the tables.
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
import secrets
import time
from collections import deque
from collections.abc import Callable

from unoplay.game.messages import TableState
from unoplay.game.rules import RuleSet

from .limits import Limits
from .table import (
    DEFAULT_AWAY_GRACE,
    DEFAULT_MAX_ROUND_ACTIONS,
    MAX_NAME,
    LobbyError,
    Seat,
    Table,
    clean_text,
)

log = logging.getLogger("unoplay.lobby")


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
        self.on_finish = on_finish
        self.closing = False
        self._ids = itertools.count(1)
        self.finished: deque[Table] = deque(maxlen=64)

    @property
    def max_tables(self) -> int:
        return self.limits.max_tables

    def _finished(self, table: Table) -> None:
        self.finished.append(table)
        if self.on_finish is not None:
            try:
                self.on_finish(table)
            except Exception:
                log.exception("on_finish failed for table %s", table.table_id)

    def sweep(self) -> None:
        """Drop finished tables after ``finished_ttl`` and waiting tables nobody
        touched for ``waiting_ttl`` (with no stream open); free the seats of
        people gone from waiting tables for ``waiting_seat_grace``."""
        now = time.monotonic()
        limits = self.limits
        for table_id, table in list(self.tables.items()):
            table.free_absent_seats(limits.waiting_seat_grace, now)
            table.compact(now)
            idle = now - table.touched
            if table.state is TableState.FINISHED and idle > limits.finished_ttl:
                del self.tables[table_id]
            elif (
                table.state is TableState.WAITING
                and idle > limits.waiting_ttl
                and not any(s.connections for s in table.seats)
                and not table.spectators
            ):
                table.close()
                del self.tables[table_id]

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
    ) -> Table:
        """Create a table (see :class:`Table` for the settings; ``away_grace``
        None is :data:`DEFAULT_AWAY_GRACE`; ``window_ms`` here defaults to 0, no
        window: the gRPC service passes :func:`default_window_ms` when the
        request names none; ``seed`` makes a seeded table; ``owner`` is who
        asks, the client's address: one owner may leave at most
        ``Limits.max_waiting_tables_per_client`` tables waiting). Raises
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
        if owner and cap <= sum(
            1 for t in self.tables.values() if t.owner == owner and t.state is TableState.WAITING
        ):
            raise LobbyError(
                "resource_exhausted",
                f"you have {cap} tables waiting for players: start or leave one first",
            )
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
        )
        table.owner = owner
        self.tables[table_id] = table
        return table

    def get(self, table_id: str) -> Table:
        """The table with this id. Raises LobbyError("not_found")."""
        table = self.tables.get(table_id)
        if table is None:
            raise LobbyError("not_found", f"no table {table_id!r}")
        return table

    def seats_held(self, name: str) -> int:
        """Seats held by people called ``name`` (ignoring case) at open tables."""
        key = name.casefold()
        return sum(
            1
            for t in self.tables.values()
            if t.state is not TableState.FINISHED
            for s in t.seats
            if s.token and s.name.casefold() == key
        )

    def join(self, table_id: str, name: str, wanted: int | None = None) -> tuple[Table, Seat]:
        """Seat ``name`` at a table, within the seats-per-name limit."""
        if self.closing:
            raise LobbyError("unavailable", "the server is shutting down")
        table = self.get(table_id)
        name = clean_text("name", name, MAX_NAME)
        if self.seats_held(name) >= self.limits.max_seats_per_name:
            raise LobbyError(
                "resource_exhausted",
                f"{name!r} already holds {self.limits.max_seats_per_name} seats",
            )
        return table, table.join(name, wanted)

    def close(self) -> None:
        """Cancel every table's timers."""
        for table in self.tables.values():
            table.close()

    def shut_down(self) -> list[Table]:
        """Stop every table (streams end); returns the tables whose game was
        in progress, for storage as interrupted games."""
        self.closing = True
        interrupted = []
        for table in self.tables.values():
            if table.state is TableState.PLAYING:
                interrupted.append(table)
            table.shut_down()
        return interrupted
