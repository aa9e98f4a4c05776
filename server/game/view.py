"""What a seat sees: the phase of the round and a player's view (RULES.md).

Values only, no rules: a bot, the TUI or a wire conversion uses a view
without importing the state machine (:mod:`.engine`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, IntEnum


class Phase(IntEnum):
    """What the round is waiting for."""

    CHOOSE_COLOUR = 1  #: the current player names the colour of a Wild starter
    PLAY = 2  #: the current player plays a card or draws
    DRAWN = 3  #: the current player drew a playable card: play it or keep it
    PENALTY = 4  #: the current player faces a Wild Draw Four: challenge or accept
    ROUND_OVER = 5  #: a player went out; ``next_round()`` deals the next one
    GAME_OVER = 6  #: a score reached the target


@dataclass(frozen=True, slots=True)
class PlayerView:
    """What one seat may know (``seat == -1``: a spectator, who sees no hand).

    Card fields are ids 0..107 (-1 when absent); ``colour`` is 0..3, or -1
    (``actions.NONE``, as everywhere in the game's values) while a Wild starter
    has no colour yet; ``direction`` is 1 clockwise, -1 counter-clockwise.
    """

    seat: int
    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    top_card: int
    colour: int
    direction: int
    current: int
    phase: Phase
    pending_penalty: int  #: cards the current player draws if they accept
    drawn_card: int  #: the card this seat just drew and may play, else -1
    uno_called: tuple[bool, ...]  #: per seat: holds one card and called UNO
    catchable: int  #: seat that may be caught for not calling UNO, else -1
    draw_pile_size: int
    discard_pile_size: int
    scores: tuple[int, ...]
    dealer: int
    round_number: int
    round_winner: int  #: -1 while the round is on
    game_winners: tuple[int, ...]  #: empty until the game is over (and after a capped round)
    out_seats: tuple[int, ...] = ()  #: seats out of play, in the order they went out (section 9)


class Termination(Enum):
    """How a game ended (:attr:`Outcome.termination`)."""

    GAME_WON = "game_won"  #: a score reached the target, or one player was left (sections 7, 9)
    ROUND_CAPPED = "round_capped"  #: a round reached its cap of actions: void, no winner


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game, as python-chess's ``Board.outcome()`` gives it:
    how it ended, who won (several seats on a tie, or a team's two partners)
    and the final scores per seat, in points."""

    termination: Termination
    winners: tuple[int, ...]
    scores: tuple[int, ...]
