"""Watching one game: what happened at its table, read from the table
itself when the server is embedded in this process (:class:`TableWatch`:
the server's own record of every action and who made it: "player", "bot",
"stand_in" or "timer", and its count of every seat's refused intents), or
from a spectator stream of it otherwise (:class:`SpectatorWatch`:
EVENT_KIND_TIMED_OUT, EVENT_KIND_ROUND_CAPPED, SeatsChanged with a stand-in:
``bot`` and not ``connected``). Either gives the game's :class:`~.adjudication.Outcome`."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from unoplay.game.events import Event, EventKind
from unoplay.game.messages import SeatsChanged, TableState, Update
from unoplay.game.view import Phase
from unoplay.protocol import ActionSource
from unoplay.settings import MAX_GAME_ACTIONS

from ..sdk import Connection, ServerError
from .adjudication import IllegalLimits, Outcome
from .store import pack_record

log = logging.getLogger("unoplay.match")


class TableWatch:
    """Watches a table of the server embedded in this process, through the
    table itself (no stream, no cost): its record of every action, and its
    count of every seat's refused intents (a bot of any kind, external too,
    forfeits past the match's ``limits``: :meth:`.adjudication.IllegalLimits.forfeit`)."""

    def __init__(self, table: Any, limits: IllegalLimits) -> None:
        self.table = table
        self.limits = limits

    async def open(self) -> None:
        """Nothing to open: the table is in this process."""
        return None

    async def _until(self, condition: Any) -> None:
        # Checked and waited for in one step of this task: no change can slip between.
        while not condition():
            await self.table.wait_for_change()

    async def connected(self) -> None:
        """Wait until every seat is taken and its stream open."""
        await self._until(lambda: all(s.occupied and s.connected for s in self.table.seats))

    def is_over(self) -> bool:
        """True once the game is over (or the table closing)."""
        return self.table.state is TableState.FINISHED or self.table.closing

    async def over(self) -> None:
        """Wait until :meth:`is_over`, a seat forfeits (:meth:`forfeit`), or
        the timer or a stand-in played a seat (:meth:`void`)."""
        await self._until(lambda: self.is_over() or self.forfeit() is not None or self.void())

    def void(self) -> bool:
        """True once the timer or a stand-in made an action: the game can no
        longer count (:func:`.adjudication.adjudicate`), so it need not be played out."""
        return self.table.history.server_made()

    def forfeit(self) -> tuple[int, str] | None:
        """(seat, why) of the first seat whose refused intents went beyond the
        match's limits (the table counts them), or None."""
        for seat in self.table.seats:
            why = self.limits.forfeit(seat.refusals, seat.refused_in_row)
            if why is not None:
                return seat.index, f"{why}; the last: {seat.last_refusal}"
        return None

    def refusals(self) -> list[int | None]:
        """Per seat: its intents refused in this game (the table's count)."""
        return [seat.refusals for seat in self.table.seats]

    def races(self) -> list[int | None]:
        """Per seat: its races lost in this game (the table's count)."""
        return [seat.races for seat in self.table.seats]

    def record(self) -> str | None:
        """The game's full record as the table keeps it, packed
        (:func:`.store.pack_record`); None before the start."""
        if self.table.game is None:
            return None
        return pack_record(self.table.record())

    def outcome(self) -> Outcome:
        """The game as the table recorded it: who made every action (player, timer, stand-in),
        scores, winners."""
        table = self.table
        game = table.game
        n = len(table.seats)
        out = Outcome(timeouts=[0] * n, stand_in=[0] * n)
        if game is None:
            return out
        decisions = [0] * n
        think = [0.0] * n
        previous = 0
        for (seat, _action), source, ms in zip(
            table.history, table.history.sources, table.history.times_ms
        ):
            if source == ActionSource.TIMER:
                out.timeouts[seat] += 1
            elif source == ActionSource.STAND_IN:
                out.stand_in[seat] += 1
            elif source == ActionSource.PLAYER:
                decisions[seat] += 1
                think[seat] += max(0, ms - previous)
            previous = ms
        outcome = game.outcome()
        out.over = outcome is not None
        out.capped = outcome is not None and not outcome.winners
        game_capped = len(table.history) >= MAX_GAME_ACTIONS
        out.cap = MAX_GAME_ACTIONS if game_capped else table.max_round_actions
        out.scores = list(game.scores)
        out.winners = list(outcome.winners) if outcome is not None else []
        out.actions = len(table.history)
        out.rounds = game.round_number
        out.decisions = decisions
        out.think_ms = think
        return out

    async def close(self) -> None:
        """Nothing to close."""
        return None


class SpectatorWatch:
    """Watches a table of another server through a spectator stream."""

    def __init__(self, conn: Connection, table_id: str, seats: int) -> None:
        self.session = conn.spectate(table_id)
        self.n = seats
        self.timeouts = [0] * seats
        self.stand_in = [0] * seats
        self.capped = 0
        self.updates = 0
        self.started = False
        self.ended = False
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def open(self) -> None:
        """Open the spectator stream and start reading it."""
        self._task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        try:
            async for received in self.session:
                message = received.message
                state = self.session.state
                if state.commitment:
                    self.started = True
                if isinstance(message, Event):
                    if message.kind is EventKind.TIMED_OUT and 0 <= message.player < self.n:
                        self.timeouts[message.player] += 1
                    elif message.kind is EventKind.ROUND_CAPPED:
                        self.capped = message.count or 1
                elif isinstance(message, Update) and self.started:
                    self.updates += 1
                if self.started and isinstance(message, SeatsChanged | Update):
                    for info in state.seats:
                        if info.bot and info.occupied and not info.connected:
                            self.stand_in[info.seat] = 1
                self._changed.set()
        except ServerError as err:
            log.info("spectator stream of %s ended: %s", self.session.table_id, err)
        finally:
            self.ended = True
            self._changed.set()

    async def _until(self, condition: Any) -> None:
        while not condition():
            if self.ended:
                raise ServerError("UNAVAILABLE", "the table's spectator stream ended")
            self._changed.clear()
            await self._changed.wait()

    async def connected(self) -> None:
        """Wait until every seat is taken and connected. Raises ServerError when the stream ends
        first."""

        def ready() -> bool:
            seats = self.session.state.seats
            return len(seats) == self.n and all(s.occupied and s.connected for s in seats)

        await self._until(ready)

    def is_over(self) -> bool:
        """True once the stream showed the game's end (its reveal, or the game-over phase)."""
        view = self.session.state.view
        return self.session.state.reveal is not None or (
            view is not None and view.phase is Phase.GAME_OVER
        )

    async def over(self) -> None:
        """Wait until :meth:`is_over`. Raises ServerError when the stream ends first."""
        await self._until(self.is_over)

    def forfeit(self) -> tuple[int, str] | None:
        """None: a spectator sees no refusal (the bots' own counts do,
        :class:`.adjudication.RefusalCount`; external bots' are not seen)."""
        return None

    def refusals(self) -> list[int | None]:
        """Per seat: None, not seen by a spectator."""
        return [None] * self.n

    def races(self) -> list[int | None]:
        """Per seat: None, not seen by a spectator."""
        return [None] * self.n

    def record(self) -> str | None:
        """None: a spectator does not see the hands (the remote server's own
        store, ``uno serve --db``, may hold the game)."""
        return None

    def outcome(self) -> Outcome:
        """The game as the stream showed it (actions counted from its updates; no per-seat
        decisions)."""
        view = self.session.state.view
        out = Outcome(timeouts=list(self.timeouts), stand_in=list(self.stand_in))
        out.over = self.is_over()
        out.capped = bool(self.capped)
        out.cap = self.capped
        if view is not None:
            out.scores = list(view.scores)
            out.winners = list(view.game_winners)
            out.rounds = view.round_number
        out.actions = max(0, self.updates - out.rounds)
        return out

    async def close(self) -> None:
        """Close the stream and its reader."""
        await self.session.close()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task


Watch = TableWatch | SpectatorWatch
