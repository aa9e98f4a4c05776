"""Events: what happened, each tagged with who may see it.

One flat event type keeps the engine fast and maps one-to-one onto the wire.
The meaning of the optional fields depends on ``kind`` (see :class:`EventKind`).
"""

from __future__ import annotations

from enum import IntEnum
from functools import partial
from typing import NamedTuple

#: ``Event.audience`` for an event everyone may see.
EVERYONE = -1


class EventKind(IntEnum):
    """Kinds of event. Fields used: ``player`` always; others as listed."""

    DEALER_DRAW = 1  #: ``player`` drew ``cards[0]`` to choose the dealer
    DEALER_CHOSEN = 2  #: ``player`` deals this game's first round
    ROUND_STARTED = 3  #: dealer ``player``; ``value`` round number (1..); ``count`` cards each
    HAND_DEALT = 4  #: private: ``player`` was dealt ``cards``
    STARTER_FLIPPED = 5  #: ``cards[0]`` was turned up as the starter card
    STARTER_RETURNED = 6  #: the starter ``cards[0]`` went back into the draw pile
    PLAYED = 7  #: ``player`` played ``cards`` (several: multi_play, top last); ``colour`` in force; ``value`` 1 jump-in
    DREW = 8  #: ``player`` drew ``count`` cards (public)
    DREW_CARDS = 9  #: private: ``player`` drew ``cards``
    KEPT = 10  #: ``player`` kept the card just drawn
    SKIPPED = 11  #: ``player`` loses their turn
    DIRECTION_CHANGED = 12  #: ``value`` is the new direction: 1 clockwise, -1 counter-clockwise
    COLOUR_CHOSEN = 13  #: ``player`` named ``colour`` (Wild starter)
    UNO_CALLED = 14  #: ``player`` called UNO
    UNO_CAUGHT = 15  #: ``player`` caught ``target`` not calling UNO
    CHALLENGED = 16  #: ``player`` challenged ``target``'s Wild Draw Four; ``value`` 1 guilty, 0 not
    HAND_SHOWN = 17  #: private to the challenger (``audience``): ``player``'s hand was ``cards``
    PENALTY_ACCEPTED = 18  #: ``player`` accepted a pending penalty of ``count`` cards
    DECK_RESHUFFLED = 19  #: a new draw pile of ``count`` cards (before its DREW)
    TURN = 20  #: it is ``player``'s turn
    HAND_SCORED = 21  #: ``player``'s hand is worth ``value`` points at the round's end
    ROUND_OVER = 22  #: ``player`` won the round and scored ``value`` points
    GAME_OVER = 23  #: ``player`` won the game (one event per winner on a tie)
    UNO_FALSE_CALL = 24  #: ``player`` called UNO when it was not due and draws ``count``
    HANDS_SWAPPED = 25  #: ``player`` swapped hands with ``target`` (a 7 or a 5)
    HANDS_ROTATED = 26  #: every hand passed one seat in direction ``value`` (a 0)
    HAND_RECEIVED = 27  #: private: after a swap, ``player`` (you) now holds ``cards``
    WRONG_PLAY = 28  #: ``player`` tried a card that may not be played and draws ``count``
    LAST_CARD_NOT_NUMBER = 29  #: ``player`` went out on an action or wild card: draws one instead
    PLAYER_OUT = 30  #: ``player`` is out of play; ``value`` their place (section 9)
    TIMED_OUT = 31  #: the table's turn timer ran out for ``player``: its default action follows (server only)
    ROUND_CAPPED = (
        32  #: the round (or game) reached its cap of ``count`` actions: the game ends, no winner
    )


class Event(NamedTuple):
    """Something that happened. ``audience`` is EVERYONE (-1) or one seat."""

    kind: EventKind
    player: int = -1
    audience: int = EVERYONE
    cards: tuple[int, ...] = ()
    count: int = 0  # type: ignore[assignment]  # shadows tuple.count: the wire's name
    colour: int = -1
    target: int = -1
    value: int = 0

    def visible_to(self, seat: int) -> bool:
        """True if the player at ``seat`` may see this event (-1: a spectator)."""
        return self.audience == EVERYONE or self.audience == seat


#: ``new_event((kind, player, audience, cards, count, colour, target, value))``:
#: builds an Event from all eight fields without keyword handling (the engine's hot path).
new_event = partial(tuple.__new__, Event)


def visible(events: list[Event], seat: int) -> list[Event]:
    """The events the player at ``seat`` may see, in order (-1: a spectator)."""
    return [e for e in events if e.audience == EVERYONE or e.audience == seat]
