"""The match's referee: when a bot forfeits its game for illegal actions
(``--illegal-limit``, ``--illegal-budget``), and the status a game gets from
what its watch saw (:class:`Outcome`): finished, adjudicated at a cap of
actions (RULES.md, "Endless rounds"), void when the server played a seat
(its turn timer, its stand-in), an error when it did not end
(:mod:`.result` says what each status counts for)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from unoplay.game.messages import Refusal
from unoplay.protocol import BLAMELESS_REFUSALS
from unoplay.settings import MAX_GAME_ACTIONS

from .entrants import Entrant
from .result import ADJUDICATED, ERROR, FINISHED, VOID, GameResult

#: A bot whose intents are refused more than this many times in one decision
#: (no action applied at the table between them) forfeits its game (--illegal-limit).
ILLEGAL_LIMIT = 3
#: A bot whose intents are refused more than this many times in a game forfeits it
#: (--illegal-budget).
ILLEGAL_BUDGET = 50

# ------------------------------------------------------------------ illegal actions


@dataclass(frozen=True)
class IllegalLimits:
    """The refused intents a bot may have before it forfeits its game: more
    than ``limit`` in one decision (``--illegal-limit``) or more than
    ``budget`` in the game (``--illegal-budget``)."""

    limit: int = ILLEGAL_LIMIT
    budget: int = ILLEGAL_BUDGET

    def forfeit(self, refusals: int, in_row: int) -> str | None:
        """Why a seat forfeits its game, given its refused intents in the
        game and in a row (in one decision); None when it does not."""
        if in_row > self.limit:
            return (
                f"forfeited: {in_row} illegal actions refused in one decision "
                f"(more than --illegal-limit {self.limit})"
            )
        if refusals > self.budget:
            return (
                f"forfeited: {refusals} illegal actions refused in the game "
                f"(more than --illegal-budget {self.budget})"
            )
        return None


class IllegalActions(Exception):
    """A bot's intents were refused beyond the match's limits: it forfeits its game."""


class RefusalCount:
    """A bot's refused intents as the SDK sees them (``run_bot``'s
    ``on_refusal``), for a remote server, whose tables are not in reach; those
    no fault of the bot's (:data:`BLAMELESS_REFUSALS`) do not count, and
    races lost (the server says so: ``Refusal.race``) are counted apart."""

    def __init__(self, limits: IllegalLimits) -> None:
        self.limits = limits
        self.refusals = 0
        self.races = 0
        self.in_row = 0  #: refusals counted since the bot last decided on a new update
        self.last = ""

    def __call__(self, refusal: Refusal, in_row: int) -> None:
        """Count one refusal (``in_row``: the SDK's count since the bot last
        decided on a new update, races included). Raises IllegalActions beyond
        the limits."""
        if in_row == 1:
            self.in_row = 0
        if refusal.reason in BLAMELESS_REFUSALS:
            return
        if refusal.race:
            self.races += 1
            return
        self.refusals += 1
        self.in_row += 1
        self.last = f"{refusal.reason}: {refusal.message}"
        why = self.limits.forfeit(self.refusals, self.in_row)
        if why is not None:
            raise IllegalActions(f"{why}; the last: {self.last}")


# ------------------------------------------------------------------ a game's status


@dataclass
class Outcome:
    """What a watch saw of a finished (or abandoned) game."""

    over: bool = False
    capped: bool = False
    cap: int = 0
    scores: list[int] = field(default_factory=list)
    winners: list[int] = field(default_factory=list)
    actions: int = 0
    rounds: int = 0
    decisions: list[int] | None = None  #: per seat (the server's record), None if unknown
    think_ms: list[float] | None = None
    timeouts: list[int] = field(default_factory=list)
    stand_in: list[int] = field(default_factory=list)


def adjudicate(result: GameResult, outcome: Outcome, entrants: Sequence[Entrant]) -> None:
    """Set ``result``'s status and reason from what its watch saw
    (``outcome``): void when the server played a seat (its turn timer, its
    stand-in: each such seat named), adjudicated when a round or the game
    reached its cap of actions, finished when the game ended, else an error.
    ``entrants``: the match's, for the seats' labels."""
    labels = [entrants[e].label for e in result.seats]
    server_played = [
        f"seat {s + 1} ({labels[s]}): "
        + ", ".join(
            part
            for part in (
                f"{outcome.timeouts[s]} time forfeit{'s' if outcome.timeouts[s] != 1 else ''}"
                if outcome.timeouts[s]
                else "",
                "played by the server's stand-in" if outcome.stand_in[s] else "",
            )
            if part
        )
        for s in range(len(labels))
        if outcome.timeouts[s] or outcome.stand_in[s]
    ]
    if server_played:
        result.status, result.reason = VOID, "; ".join(server_played)
    elif outcome.capped:
        result.status = ADJUDICATED
        what = "the game" if outcome.cap >= MAX_GAME_ACTIONS else "a round"
        result.reason = f"{what} reached the cap of {outcome.cap:,} actions: no winner"
    elif outcome.over:
        result.status = FINISHED
    else:
        result.status, result.reason = ERROR, "the game did not end"
