"""Players away from a game in progress: a person whose last stream closed
(or who never connected) keeps the seat, and after the table's away grace a
stand-in bot (``Limits.stand_in``) plays it until they are back; the seat's
status shows them away meanwhile (server/RULES.md, "Leaving and coming back").
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, Protocol

from .seats import Seat, Seats


class AwayTable(Protocol):
    """What :class:`Away` needs of its table (a :class:`.table.Table`)."""

    @property
    def playing(self) -> bool:
        """True while a game is in progress and the server is not stopping."""
        ...

    def later(
        self, delay: float, callback: Callable[..., None], *args: Any
    ) -> asyncio.TimerHandle | None:
        """Call ``callback(*args)`` in ``delay`` seconds (None: not at all)."""
        ...

    def grace_over(self, index: int) -> None:
        """The person of seat ``index`` stayed away past the grace."""
        ...


class Away:
    """The streams of a table's people and the grace of those away. It
    changes the seats' connection counts, signs of life and stand-ins (a
    person back stops theirs); when a grace runs out with its person still
    away, the table is told (:meth:`AwayTable.grace_over`). What it keeps is
    each seat's count of returns, so that a grace timer set before a return
    does nothing."""

    def __init__(self, seats: Seats, grace: float, table: AwayTable) -> None:
        """The people of ``seats``, each given ``grace`` seconds to come back."""
        self.seats = seats
        self.grace = grace
        self.table = table
        self._returns = [0] * len(seats)  # by seat: bumps when its person comes back

    def back(self, seat: Seat) -> None:
        """A stream of ``seat`` opened: its person is here, a stand-in stops
        (its pending turn, if any, finds no player and does nothing)."""
        seat.connections += 1
        self._returns[seat.index] += 1
        seat.last_seen = time.monotonic()
        seat.stand_in = None

    def gone(self, seat: Seat) -> None:
        """A stream of ``seat`` closed: when it was its last during a game,
        the grace period starts."""
        seat.connections -= 1
        seat.last_seen = time.monotonic()
        if self.seats[seat.index] is not seat:
            return  # the seat was given up before the game; the stream was stale
        if seat.connections == 0 and seat.bot is None and self.table.playing:
            self.wait(seat)

    def start(self) -> None:
        """A game starts (or goes on, restored): every person with no stream
        open is away, from now."""
        for seat in self.seats:
            if seat.bot is None and seat.connections == 0:
                self.wait(seat)

    def wait(self, seat: Seat) -> None:
        """Give the person of ``seat`` the away grace to come back."""
        index = seat.index
        self.table.later(self.grace, self._timeout, index, self._returns[index])

    def _timeout(self, index: int, returns: int) -> None:
        """The grace is over: unless its person came back meanwhile
        (``returns``), the table is told."""
        seat = self.seats[index]
        if (
            returns != self._returns[index]
            or seat.connections
            or seat.player is not None
            or not self.table.playing
        ):
            return
        self.table.grace_over(index)
