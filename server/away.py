"""Players away from a game in progress: a person whose last stream closed
(or who never connected) keeps the seat, and after the table's away grace a
stand-in bot (``Limits.stand_in``) plays it until they are back; the seat's
status shows them away meanwhile (server/RULES.md, "Leaving and coming back").
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from unoplay.game.messages import TableState
from unoplay.game.registry import make_bot

from .seats import Seat

if TYPE_CHECKING:
    from .table import Table

log = logging.getLogger("unoplay.table")


class Away:
    """The streams of a table's people, and the stand-ins of those away. It
    changes the seats' connection counts and stand-ins, and tells the table
    (:meth:`.table.Table.seats_changed`); the stand-in's turn is the bots'
    (:class:`.botturns.BotTurns`)."""

    def __init__(self, table: Table) -> None:
        """The away players of ``table``."""
        self.table = table

    def back(self, seat: Seat) -> None:
        """A stream of ``seat`` opened: its person is here, a stand-in stops
        (its pending turn, if any, finds no player and does nothing)."""
        seat.connections += 1
        seat.away_epoch += 1
        seat.last_seen = time.monotonic()
        seat.stand_in = None

    def gone(self, seat: Seat) -> None:
        """A stream of ``seat`` closed: when it was its last during a game,
        the grace period starts."""
        seat.connections -= 1
        seat.last_seen = time.monotonic()
        table = self.table
        if table.seats[seat.index] is not seat:
            return  # the seat was given up before the game; the stream was stale
        if seat.connections == 0 and seat.bot is None and table.state is TableState.PLAYING:
            self.wait(seat)

    def wait(self, seat: Seat) -> None:
        """Give the person of ``seat`` the away grace to come back."""
        self.table.later(self.table.away_grace, self._timeout, seat.index, seat.away_epoch)

    def _timeout(self, index: int, epoch: int) -> None:
        """The grace is over: unless its person came back meanwhile (``epoch``),
        a stand-in plays the seat."""
        table = self.table
        seat = table.seats[index]
        if (
            epoch != seat.away_epoch
            or seat.connections
            or seat.player is not None
            or table.state is not TableState.PLAYING
            or table.closing
        ):
            return
        if table.strict:  # an arena's seat: given up, not kept for their return
            table.give_up(index, f"away past the grace of {table.away_grace:g}s")
            return
        limits = table.limits
        seat.stand_in = make_bot(limits.stand_in, rules=table.rules, max_ms=limits.bot_ms)
        log.info("table %s: seat %d is away; a bot plays for them", table.table_id, index)
        table.seats_changed()
        game = table.game
        if game is not None and game.legal_actions(index):
            table.bots.schedule_one(index)
