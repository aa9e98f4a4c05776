"""The engine's hot-path values, made once at import: rank and phase
constants as plain values, interned events and the matching table.

Events are immutable tuples, so one shared instance per value is safe: the
engine appends these instead of building new events on the common paths.
Everything here is a plain module constant, for speed; none of it is API.
"""

from __future__ import annotations

from .actions import NONE, ActionKind
from .cards import COLOUR, DECK_SIZE, RANK, WILD, Rank
from .errors import Reason
from .events import EVERYONE, new_event
from .events import EventKind as E
from .rules import MAX_PLAYERS
from .view import Phase

HAND_SIZE = 7

SKIP = int(Rank.SKIP)
REVERSE = int(Rank.REVERSE)
DRAW_TWO = int(Rank.DRAW_TWO)
WILD_RANK = int(Rank.WILD)
WD4 = int(Rank.WILD_DRAW_FOUR)

KIND_PLAY = ActionKind.PLAY
KIND_DRAW = ActionKind.DRAW
KIND_KEEP = ActionKind.KEEP
KIND_CHALLENGE = ActionKind.CHALLENGE
KIND_ACCEPT = ActionKind.ACCEPT
KIND_CALL_UNO = ActionKind.CALL_UNO
KIND_CATCH = ActionKind.CATCH
KIND_CHOOSE_COLOUR = ActionKind.CHOOSE_COLOUR


CHOOSE_COLOUR = Phase.CHOOSE_COLOUR
PLAYING = Phase.PLAY
DRAWN = Phase.DRAWN
PENALTY = Phase.PENALTY
ROUND_OVER = Phase.ROUND_OVER

EV_PLAYED = E.PLAYED
EV_TURN = E.TURN
EV_SKIPPED = E.SKIPPED
EV_DREW = E.DREW
EV_DREW_CARDS = E.DREW_CARDS
EV_UNO_CALLED = E.UNO_CALLED
EV_HANDS_SWAPPED = E.HANDS_SWAPPED
EV_HANDS_ROTATED = E.HANDS_ROTATED
EV_HAND_RECEIVED = E.HAND_RECEIVED
EV_HAND_DEALT = E.HAND_DEALT
EV_HAND_SCORED = E.HAND_SCORED
EV_LAST_NOT_NUMBER = E.LAST_CARD_NOT_NUMBER
EV_WRONG_PLAY = E.WRONG_PLAY
EV_CHALLENGED = E.CHALLENGED
EV_HAND_SHOWN = E.HAND_SHOWN
EV_PENALTY_ACCEPTED = E.PENALTY_ACCEPTED
EV_RESHUFFLED = E.DECK_RESHUFFLED
EV_UNO_CAUGHT = E.UNO_CAUGHT
# Refusals that count as "an illegal play" for wrong_play_penalty (section 8).
WRONG_PLAYS = frozenset(
    {Reason.DOES_NOT_MATCH, Reason.ONLY_DRAWN_CARD, Reason.PENALTY_PENDING, Reason.NUMBER_FIRST}
)


# Events of the hot path, made once: events are immutable tuples, so one shared
# instance per value is safe. TURN[seat], SKIPPED[seat], UNO_CALLED[seat],
# KEPT[seat], DIRECTION_CHANGED[direction], PLAYED[seat][card][colour] (not
# for jump-ins), DREW[seat][count] (count < 9), DREW_ONE[seat][card] (private).
SEATS = range(MAX_PLAYERS)
TURN = tuple(new_event((EV_TURN, p, EVERYONE, (), 0, NONE, NONE, 0)) for p in SEATS)
SKIPPED = tuple(new_event((EV_SKIPPED, p, EVERYONE, (), 0, NONE, NONE, 0)) for p in SEATS)
UNO_CALLED = tuple(new_event((EV_UNO_CALLED, p, EVERYONE, (), 0, NONE, NONE, 0)) for p in SEATS)
DIRECTION_CHANGED = {
    d: new_event((E.DIRECTION_CHANGED, NONE, EVERYONE, (), 0, NONE, NONE, d)) for d in (1, -1)
}
KEPT = tuple(new_event((E.KEPT, p, EVERYONE, (), 0, NONE, NONE, 0)) for p in SEATS)
PLAYED = tuple(
    tuple(
        tuple(new_event((EV_PLAYED, p, EVERYONE, (c,), 0, colour, NONE, 0)) for colour in range(4))
        for c in range(DECK_SIZE)
    )
    for p in SEATS
)
DREW = tuple(
    tuple(new_event((EV_DREW, p, EVERYONE, (), k, NONE, NONE, 0)) for k in range(9)) for p in SEATS
)
STARTER_FLIPPED = tuple(
    new_event((E.STARTER_FLIPPED, NONE, EVERYONE, (c,), 0, NONE, NONE, 0)) for c in range(DECK_SIZE)
)
DREW_ONE = tuple(
    tuple(new_event((EV_DREW_CARDS, p, p, (c,), 0, NONE, NONE, 0)) for c in range(DECK_SIZE))
    for p in SEATS
)

# FITS[colour][top rank][card]: does ``card`` match the colour in force or the
# top card's number/symbol, or is it a wild (section 3)? colour 4: none named yet.
FITS = tuple(
    tuple(
        tuple(COLOUR[c] == colour or RANK[c] == rank or COLOUR[c] == WILD for c in range(DECK_SIZE))
        for rank in range(15)
    )
    for colour in range(5)
)
