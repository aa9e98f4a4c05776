"""A table's games from deal to record: dealing a game with its commitment
(RULES.md, "Fair deals"), the rematch votes (RULES.md, "Rematch") and the
game's record for storage. Plain values in, plain values out: the table
(:mod:`.table`) decides when, these say what.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import TYPE_CHECKING

from unoplay.game.deals import DealReveal, commitment, new_salt, new_seed
from unoplay.game.engine import GameState
from unoplay.game.events import Event
from unoplay.game.rules import RuleSet

from .seats import Seat
from .storage import GameRecord, game_status

if TYPE_CHECKING:
    from .table import Table


def deal_game(
    table_id: str,
    seats: int,
    rules: RuleSet,
    seed: str | int | None = None,
    game: GameState | None = None,
) -> tuple[GameState, list[Event], DealReveal]:
    """A new game for a table: dealt from ``seed`` (None: a fresh secret
    seed), or ``game`` as given (a crafted position: no events), with the
    deal's secret and the commitment every seat gets before the first card
    (RULES.md, "Fair deals": commitment of seed, salt, table id, seats and
    rules)."""
    if game is None:
        game, events = GameState.new(seats, rules, new_seed() if seed is None else seed)
    else:
        events = []
    salt = new_salt()
    reveal = DealReveal(
        game.seed, salt, commitment(game.seed, salt, table_id, seats, rules.to_dict())
    )
    return game, events, reveal


class Rematch:
    """The seats that voted to play again once a game is over (RULES.md,
    "Rematch"): a new game starts when every seat held by a person has voted;
    bots agree at once."""

    def __init__(self) -> None:
        self.votes: set[int] = set()

    def vote(self, seat: int) -> None:
        """``seat`` wants to play again."""
        self.votes.add(seat)

    def agreed(self, seats: Iterable[Seat]) -> bool:
        """True when every seat a person holds has voted, and a person holds
        one (a table left to bots alone plays no more)."""
        people = [s for s in seats if s.bot is None]
        return bool(people) and all(s.index in self.votes for s in people)

    def clear(self) -> None:
        """A new game: no votes."""
        self.votes = set()

    def seats(self) -> tuple[int, ...]:
        """The seats that voted, in order (for the table's public info)."""
        return tuple(sorted(self.votes))


def game_record(table: Table) -> GameRecord:
    """``table``'s game, for storage: ``status`` "finished", "capped" (a
    round or the game reached its cap: no winner) or "interrupted" (the
    server stopped). Raises AssertionError if no game was started."""
    game = table.game
    assert game is not None
    deal, history = table.deal, table.history
    return GameRecord(
        table_id=table.table_id,
        title=table.title,
        seed=game.seed,
        salt=deal.salt if deal else "",
        commitment=deal.commitment if deal else "",
        received=history.received,
        rules=table.rules.to_dict(),
        players=[
            {
                "seat": s.index,
                "name": s.name,
                "bot": getattr(s.bot, "name", "bot") if s.bot is not None else "",
            }
            for s in table.seats
        ],
        actions=list(history),
        sources=history.sources,
        times_ms=history.times_ms,
        scores=game.scores,
        winners=tuple(game.game_winners),
        status=game_status(game),
        started_at=table.started_at,
        finished_at=table.finished_at or time.time(),
    )
