"""What a seat receives and what anyone may know of a table: the values of
the protocol's messages (``unoplay.v1``), as plain game values.

The server's tables append them to each seat's log; ``unoplay.wire``
turns them into protobuf and back; the client SDK hands them to bots and
the TUI, so neither needs protobuf. No rules here.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from .actions import Action
from .deals import DealReveal
from .events import Event
from .rules import RuleSet
from .view import PlayerView


class TableState(Enum):
    """Lifecycle of a table: seats being filled, a game being played, the game over."""

    WAITING = 1
    PLAYING = 2
    FINISHED = 3


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """Public facts about a seat. A person who is away while the stand-in bot
    plays for them shows ``bot`` True and ``connected`` False."""

    seat: int
    name: str
    bot: bool
    occupied: bool
    connected: bool


@dataclass(frozen=True, slots=True)
class TableInfo:
    """Public snapshot of a table, for the lobby and Welcome messages:
    ``turn_seconds`` per decision (0: no limit), ``scores`` per seat (empty
    before the game)."""

    table_id: str
    title: str
    seats: tuple[SeatInfo, ...]
    rules: RuleSet
    turn_seconds: int
    state: TableState
    scores: tuple[int, ...]
    away_grace: float  #: seconds an away player has before a stand-in bot plays
    window_ms: int = 0  #: the out-of-turn window in milliseconds (0: none)
    seeded: bool = False  #: dealt from a seed its creator chose (RULES.md, "Fair deals")
    #: a round that reaches it ends the game (RULES.md, "Endless rounds")
    max_round_actions: int = 2000
    rematch_votes: tuple[int, ...] = ()  #: seats that voted to play again (a finished game)
    games: int = 0  #: games started at this table (a rematch starts the next)
    arena: bool = False  #: the server's arena's (its queue seats it; nobody joins it)


@dataclass(frozen=True, slots=True)
class Welcome:
    """First message of every stream: the seat (-1 spectator) and table
    snapshot; again at the game's start with the commitment to its deals
    (empty before)."""

    seat: int
    table: TableInfo
    commitment: str = ""


@dataclass(frozen=True, slots=True)
class Update:
    """The seat's view after a change, its legal actions, the turn deadline,
    every seat's status at that moment and when the out-of-turn window it
    opened closes.

    ``deadline`` and ``window_closes`` are Unix seconds (0.0: no limit, no window).
    """

    view: PlayerView
    legal: tuple[Action, ...]
    deadline: float
    seats: tuple[SeatInfo, ...] = ()
    window_closes: float = 0.0


@dataclass(frozen=True, slots=True)
class Refusal:
    """An intent the seat sent that was refused; ``action_id`` 0 if none;
    ``race``: it lost a race (chosen on a view a later change had replaced:
    RULES.md, "Refused intents"), so it is not counted against the seat."""

    reason: str
    message: str
    action_id: int
    race: bool = False


@dataclass(frozen=True, slots=True)
class SeatsChanged:
    """Some seat's status changed (joined, left, went away, came back, a bot
    took over); every seat's status now."""

    seats: tuple[SeatInfo, ...]


#: One entry of a seat's (or the spectators') stream: its ``seq`` is its position.
Message = Welcome | Event | Update | Refusal | SeatsChanged | DealReveal
