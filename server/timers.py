"""A table's pending timers (the turn timer, away grace, the round pause, the
out-of-turn window's close, bot turns): started on the running loop, and all
cancelled at once when the game ends or the server stops; and the turn
timer's own clock (:class:`TurnClock`)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any


class Timers:
    """Loop callbacks due later, kept so that :meth:`cancel_all` can cancel them."""

    def __init__(self) -> None:
        #: (when, handle) of every timer not known to be done
        self._pending: list[tuple[float, asyncio.TimerHandle]] = []

    def live(self) -> int:
        """How many timers kept are not cancelled (some may have run already)."""
        return sum(not h.cancelled() for _, h in self._pending)

    def later(self, delay: float, callback: Callable[..., None], *args: Any) -> asyncio.TimerHandle:
        """Call ``callback(*args)`` in ``delay`` seconds on the running loop;
        returns its handle. Timers already due or cancelled are forgotten."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        self._pending = [(w, h) for w, h in self._pending if not h.cancelled() and w > now]
        handle = loop.call_later(delay, callback, *args)
        self._pending.append((now + delay, handle))  # (a Handle may have no when(): uvloop's)
        return handle

    def cancel_all(self) -> None:
        """Cancel every pending timer."""
        for _, handle in self._pending:
            handle.cancel()
        self._pending.clear()


class TurnClock:
    """A table's turn timer: after each change of the game the player to move
    has ``seconds`` (0: no clock) until :attr:`deadline`, then ``due(version)``
    moves for them (the change's ``version``); and the moves it made for each
    seat in a row (:meth:`moved`), which an arena's table counts."""

    def __init__(
        self,
        seconds: int,
        later: Callable[..., asyncio.TimerHandle | None],
        due: Callable[[int], None],
    ) -> None:
        """A clock of ``seconds`` a turn, started with ``later`` (the table's
        :meth:`Timers.later`, None while it closes)."""
        self.seconds = seconds
        self.deadline = 0.0  #: when the player to move's time is up (Unix seconds; 0.0: never)
        self._later = later
        self._due = due
        self._handle: asyncio.TimerHandle | None = None
        self._in_row: dict[int, int] = {}  # seat -> the clock's moves for it in a row

    def changed(self, running: bool) -> None:
        """A change: the player to move's deadline is ``seconds`` from now
        while the round goes on (``running``); none otherwise."""
        self.deadline = time.time() + self.seconds if running and self.seconds else 0.0

    def start(self, version: int) -> None:
        """Start the timer of the change ``version``: one a table, the last
        change's (the one before is cancelled)."""
        if self.seconds:
            if self._handle is not None:
                self._handle.cancel()
            self._handle = self._later(self.seconds, self._due, version)

    def moved(self, seat: int, source: str) -> int:
        """An action of ``seat`` from ``source`` was applied: a move of the
        clock's (``source`` "timer") returns the clock's moves for the seat in
        a row, which its player's own action ends; any other returns 0."""
        if source == "timer":
            moves = self._in_row[seat] = self._in_row.get(seat, 0) + 1
            return moves
        if source == "player":
            self._in_row.pop(seat, None)
        return 0

    def new_game(self) -> None:
        """A new game: no moves in a row."""
        self._in_row.clear()
