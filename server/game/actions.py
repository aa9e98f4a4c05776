"""Actions a player can take, as small immutable values.

An :class:`Action` is a ``NamedTuple`` so it compares and hashes by value and
costs nothing to keep in lists. The constructors return shared (interned)
instances, so producing the legal actions allocates no new actions.
"""

from __future__ import annotations

from enum import IntEnum
from functools import cache
from typing import NamedTuple

from .cards import COLOURS, DECK_SIZE, IS_WILD, Colour, card_name
from .rules import MAX_PLAYERS

#: Value of ``Action.colour`` / ``Action.target`` / ``Action.card`` when not used.
NONE = -1


class ActionKind(IntEnum):
    """What an action does (RULES.md sections 3-5)."""

    PLAY = 1  #: play ``card`` (naming ``colour`` for a wild), optionally calling UNO
    DRAW = 2  #: draw one card instead of playing
    KEEP = 3  #: keep the card just drawn; the turn passes
    CHALLENGE = 4  #: challenge the Wild Draw Four played on you
    ACCEPT = 5  #: accept the pending penalty and draw it
    CALL_UNO = 6  #: call UNO on its own, after playing down to one card
    CATCH = 7  #: catch ``target``, who holds one card and did not call UNO
    CHOOSE_COLOUR = 8  #: name the colour of a Wild starter card


class Action(NamedTuple):
    """One action. Fields not used by ``kind`` are ``NONE`` (-1) / False.

    * ``card``: card id 0..107 for PLAY.
    * ``colour``: :class:`~.cards.Colour` value 0..3 named with a wild (PLAY) or
      for CHOOSE_COLOUR; ``NONE`` otherwise (and for a wild played without a
      colour under ``unnamed_wild_keeps_colour``).
    * ``uno``: True when a PLAY also calls UNO.
    * ``target``: seat index for CATCH, and the seat to swap hands with for a
      PLAY of a 7 (``seven_zero``) or 5 (``swap_on_five``).
    * ``extra``: under ``multi_play``, the other cards laid with ``card`` in one
      play, in increasing id order; ``()`` for a single card (section 8).
    """

    kind: ActionKind
    card: int = NONE
    colour: int = NONE
    uno: bool = False
    target: int = NONE
    extra: tuple[int, ...] = ()

    def describe(self) -> str:
        """A short English description, e.g. ``"play red 7 + UNO"``."""
        k = self.kind
        if k is ActionKind.PLAY:
            text = f"play {card_name(self.card)}"
            for card in self.extra:
                text += f" + {card_name(card)}"
            if self.colour != NONE:
                text += f" as {Colour(self.colour).label}"
            if self.target != NONE:
                text += f", swap with player {self.target}"
            return text + (" + UNO" if self.uno else "")
        if k is ActionKind.CATCH:
            return f"catch player {self.target}"
        if k is ActionKind.CHOOSE_COLOUR:
            return f"choose {Colour(self.colour).label}"
        return k.name.lower().replace("_", " ")


DRAW = Action(ActionKind.DRAW)
KEEP = Action(ActionKind.KEEP)
CHALLENGE = Action(ActionKind.CHALLENGE)
ACCEPT = Action(ActionKind.ACCEPT)
CALL_UNO = Action(ActionKind.CALL_UNO)

# _PLAYS[card][colour + 1][uno]: every play, made once.
_PLAYS = [
    [
        [Action(ActionKind.PLAY, card, colour, uno) for uno in (False, True)]
        for colour in range(NONE, 4)
    ]
    for card in range(DECK_SIZE)
]
_CATCHES = tuple(Action(ActionKind.CATCH, target=seat) for seat in range(MAX_PLAYERS))
_CHOICES = tuple(Action(ActionKind.CHOOSE_COLOUR, colour=int(c)) for c in COLOURS)


def play(
    card: int,
    colour: int | None = None,
    uno: bool = False,
    target: int = NONE,
    extra: tuple[int, ...] = (),
) -> Action:
    """The action of playing ``card`` (0..107), naming ``colour`` for a wild and
    ``target``, the seat to swap hands with, for a swapping 7 or 5, and laying
    the cards ``extra`` with it under ``multi_play`` (section 8; kept in
    increasing id order).

    Out-of-range values still give an Action (the engine refuses it with a
    reason), so a malformed intent can always be represented.
    """
    c = NONE if colour is None else int(colour)
    if 0 <= card < DECK_SIZE and NONE <= c <= 3 and target == NONE and not extra:
        return _PLAYS[card][c + 1][bool(uno)]
    return Action(ActionKind.PLAY, card, c, bool(uno), target, tuple(sorted(extra)))


def catch(target: int) -> Action:
    """The action of catching seat ``target`` for not calling UNO. A seat
    (0..9) gets its one shared Action; any other value a new one, which the
    engine refuses (nothing kept grows with values a client chooses)."""
    if 0 <= target < MAX_PLAYERS:
        return _CATCHES[target]
    return Action(ActionKind.CATCH, target=target)


def choose_colour(colour: int) -> Action:
    """The action of naming ``colour`` (0..3) for a Wild starter card."""
    if 0 <= colour <= 3:
        return _CHOICES[colour]
    return Action(ActionKind.CHOOSE_COLOUR, colour=colour)


@cache
def play_table(with_uno: bool, unnamed_wild: bool) -> tuple[tuple[Action, ...], ...]:
    """``play_table(...)[card]``: :func:`play_variants` for every card, made once."""
    return tuple(tuple(play_variants(c, with_uno, unnamed_wild)) for c in range(DECK_SIZE))


def play_variants(card: int, with_uno: bool, unnamed_wild: bool) -> list[Action]:
    """Every way to play ``card``: one per named colour for a wild (plus the
    unnamed one if allowed), and each also with a UNO call when ``with_uno``.
    """
    if IS_WILD[card]:
        colours = list(range(4)) + ([NONE] if unnamed_wild else [])
    else:
        colours = [NONE]
    unos = (False, True) if with_uno else (False,)
    return [_PLAYS[card][c + 1][u] for c in colours for u in unos]
