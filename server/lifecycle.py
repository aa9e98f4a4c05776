"""A table's games from deal to record: dealing a game with its commitment
(RULES.md, "Fair deals"), the caps of actions (RULES.md, "Endless rounds"),
the rematch votes (RULES.md, "Rematch"), the game's record for storage and
what keeps it in the server's file as it goes (:class:`Journal`). Plain
values in, plain values out: the table (:mod:`.table`) decides when, these
say what.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from typing import Protocol, TypeVar

from unoplay.game.actions import Action
from unoplay.game.deals import DealReveal, commitment, game_seed, new_salt, new_seed
from unoplay.game.engine import GameState
from unoplay.game.events import Event
from unoplay.game.rules import RuleSet
from unoplay.protocol import LobbyError
from unoplay.record import GameRecord, game_status

from .history import History
from .seats import Seat, Seats

T_contra = TypeVar("T_contra", contravariant=True)


def deal_game(
    table_id: str,
    seats: Sequence[Seat],
    rules: RuleSet,
    table_seed: str | None,
    number: int,
    seed: str | int | None = None,
    game: GameState | None = None,
) -> tuple[GameState, list[Event], DealReveal]:
    """Game ``number`` of table ``table_id`` (every one of ``seats`` taken,
    ``rules``), with the deal's secret and the commitment every seat gets
    before the first card (RULES.md, "Fair deals": commitment of seed, salt,
    table id, seats and rules).

    It is dealt from a fresh secret seed, or at a seeded table from
    :func:`~.deals.game_seed` of its ``table_seed`` and ``number`` (one-way,
    so the seed each game reveals tells nothing of the next); ``seed``
    chooses this game's seed, at a seeded table only (no player chooses the
    deal at a table with people). ``game`` (tests and puzzles) is a position
    to start from instead, with no events (e.g. ``GameState.from_position``
    with the table's seat count and rules): it does not replay from its seed.
    Raises LobbyError: "failed_precondition" for a free seat or a seed at a
    table that is not seeded, "invalid" for a position of other seats or
    rules."""
    if not all(s.occupied for s in seats):
        raise LobbyError("failed_precondition", "every seat must be taken to start")
    if seed is not None and table_seed is None:
        raise LobbyError(
            "failed_precondition",
            "this table deals from a secret seed that nobody chooses; "
            "only a seeded table (created with a seed) takes one",
        )
    if game is None:
        if seed is None:
            seed = new_seed() if table_seed is None else game_seed(table_seed, number)
        game, events = GameState.new(len(seats), rules, seed)
    elif game.players != len(seats) or game.rules != rules:
        raise LobbyError("invalid", "the position must have the table's seats and rules")
    else:
        events = []
    salt = new_salt()
    reveal = DealReveal(
        game.seed, salt, commitment(game.seed, salt, table_id, len(seats), rules.to_dict())
    )
    return game, events, reveal


def capped(
    round_number: int, round_actions: int, round_cap: int, actions: int, game_cap: int
) -> tuple[str, int] | None:
    """What reached its cap of actions (RULES.md, "Endless rounds") and how
    many it has: round ``round_number`` with ``round_actions`` of
    ``round_cap``, or the game with ``actions`` of ``game_cap``; None while
    neither has."""
    if round_actions >= round_cap:
        return f"round {round_number}", round_actions
    if actions >= game_cap:
        return "the game", actions
    return None


class Rematch:
    """The seats that voted to play again once a game is over (RULES.md,
    "Rematch"): a new game starts when every seat held by a person has voted;
    bots agree at once. A table of one game (an arena's) has none."""

    def __init__(self, allowed: bool = True) -> None:
        """The votes of a table; ``allowed`` False: a table of one game."""
        self.allowed = allowed
        self.votes: set[int] = set()

    def vote(self, seat: int, over: bool = True) -> None:
        """``seat`` wants to play again. Raises LobbyError("failed_precondition")
        unless the game is ``over`` and the table plays more than one."""
        if not over:
            raise LobbyError("failed_precondition", "a rematch comes after the game is over")
        if not self.allowed:
            raise LobbyError(
                "failed_precondition", "this table plays one game (the arena seats you again)"
            )
        self.votes.add(seat)

    def agreed(self, seats: Iterable[Seat]) -> bool:
        """True when every seat a person holds has voted, and a person holds
        one (a table left to bots alone plays no more); never at a table of
        one game."""
        people = [s for s in seats if s.bot is None]
        return self.allowed and bool(people) and all(s.index in self.votes for s in people)

    def clear(self) -> None:
        """A new game: no votes."""
        self.votes = set()

    def seats(self) -> tuple[int, ...]:
        """The seats that voted, in order (for the table's public info)."""
        return tuple(sorted(self.votes))


class Journal(Protocol[T_contra]):
    """What keeps a table (``T_contra``: a :class:`.table.Table`) in the
    server's file as it changes (:class:`.durable.Journal`): its settings
    and game, seats, actions and rematch votes."""

    def table(self, table: T_contra) -> None: ...
    def seats(self, table: T_contra) -> None: ...
    def action(self, table: T_contra, seat: int, action: Action, source: str, ms: int) -> None: ...
    def votes(self, table: T_contra) -> None: ...


class Played(Protocol):
    """What a game's record is made of (a :class:`.table.Table`'s): its game,
    the deal's secret, every action, the seats, when it started and ended
    (Unix seconds; 0.0: not over)."""

    table_id: str
    title: str
    game: GameState | None
    deal: DealReveal | None
    history: History
    seats: Seats
    started_at: float
    finished_at: float


def game_record(table: Played) -> GameRecord:
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
        rules=game.rules.to_dict(),
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
