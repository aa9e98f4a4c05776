"""The 108 UNO cards: stable ids, colours, ranks and points (RULES.md section 1).

Every physical card has an id in ``0..107`` so that two red 7s are different
cards. The layout is colour-major:

* ``colour * 25 + 0``            the colour's single 0
* ``colour * 25 + 1 .. 18``      1-9, two of each (1, 1, 2, 2, ..., 9, 9)
* ``colour * 25 + 19, 20``       Skip
* ``colour * 25 + 21, 22``       Reverse
* ``colour * 25 + 23, 24``       Draw Two
* ``100 .. 103``                 Wild
* ``104 .. 107``                 Wild Draw Four

The hot path of the engine uses the flat tuples ``COLOUR``, ``RANK`` and the
point tables, indexed by card id; the enums are for people and the wire.
"""

from __future__ import annotations

from enum import IntEnum

DECK_SIZE = 108


class Colour(IntEnum):
    """A card colour. Wild cards have no colour (``WILD`` in the tables)."""

    RED = 0
    YELLOW = 1
    GREEN = 2
    BLUE = 3

    @property
    def label(self) -> str:
        """Lower-case English name, e.g. ``"red"``."""
        return self.name.lower()


#: Colour value used in :data:`COLOUR` for the eight wild (black) cards.
WILD = 4
COLOURS: tuple[Colour, ...] = tuple(Colour)


class Rank(IntEnum):
    """What a card shows: a number 0-9, an action symbol or a wild."""

    ZERO = 0
    ONE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    SKIP = 10
    REVERSE = 11
    DRAW_TWO = 12
    WILD = 13
    WILD_DRAW_FOUR = 14

    @property
    def label(self) -> str:
        """Human name: ``"7"``, ``"Skip"``, ``"Draw Two"``, ``"Wild Draw Four"``."""
        return _RANK_LABELS[self]

    @property
    def is_number(self) -> bool:
        """True for 0-9."""
        return self <= Rank.NINE


_RANK_LABELS = {r: str(int(r)) for r in Rank if r <= Rank.NINE} | {
    Rank.SKIP: "Skip",
    Rank.REVERSE: "Reverse",
    Rank.DRAW_TWO: "Draw Two",
    Rank.WILD: "Wild",
    Rank.WILD_DRAW_FOUR: "Wild Draw Four",
}
_RANK_CODES = {r: str(int(r)) for r in Rank if r <= Rank.NINE} | {
    Rank.SKIP: "S",
    Rank.REVERSE: "R",
    Rank.DRAW_TWO: "+2",
    Rank.WILD: "W",
    Rank.WILD_DRAW_FOUR: "W+4",
}


def _build() -> tuple[tuple[int, ...], tuple[int, ...]]:
    colours: list[int] = []
    ranks: list[int] = []
    for colour in COLOURS:
        per_colour = [0] + [n for n in range(1, 10) for _ in (0, 1)]
        per_colour += [Rank.SKIP] * 2 + [Rank.REVERSE] * 2 + [Rank.DRAW_TWO] * 2
        colours += [int(colour)] * len(per_colour)
        ranks += [int(r) for r in per_colour]
    colours += [WILD] * 8
    ranks += [int(Rank.WILD)] * 4 + [int(Rank.WILD_DRAW_FOUR)] * 4
    return tuple(colours), tuple(ranks)


#: ``COLOUR[card]``: 0-3 (:class:`Colour`) or :data:`WILD` (4).
#: ``RANK[card]``: the :class:`Rank` value, as a plain int for speed.
COLOUR, RANK = _build()
assert len(COLOUR) == DECK_SIZE

#: Card points under ``point_values=standard`` (RULES.md section 7).
STANDARD_POINTS: tuple[int, ...] = tuple(
    r if r <= 9 else (20 if r <= Rank.DRAW_TWO else 50) for r in RANK
)
#: Card points under ``point_values=classic`` (RULES.md section 7).
CLASSIC_POINTS: tuple[int, ...] = tuple(
    r
    if r <= 9
    else {
        Rank.SKIP: 10,
        Rank.REVERSE: 10,
        Rank.DRAW_TWO: 10,
        Rank.WILD: 20,
        Rank.WILD_DRAW_FOUR: 40,
    }[Rank(r)]
    for r in RANK
)

IS_WILD: tuple[bool, ...] = tuple(c == WILD for c in COLOUR)
IS_NUMBER: tuple[bool, ...] = tuple(r <= 9 for r in RANK)


def colour_of(card: int) -> Colour | None:
    """The printed colour of ``card`` (0..107), or None for a wild card.

    Raises IndexError for an id outside 0..107.
    """
    c = COLOUR[card]
    return None if c == WILD else Colour(c)


def rank_of(card: int) -> Rank:
    """The :class:`Rank` of ``card`` (0..107). Raises IndexError if out of range."""
    return Rank(RANK[card])


def card_name(card: int) -> str:
    """Readable name, e.g. ``"red 7"``, ``"blue Draw Two"``, ``"Wild Draw Four"``."""
    rank = rank_of(card)
    colour = colour_of(card)
    return rank.label if colour is None else f"{colour.label} {rank.label}"


def card_code(card: int) -> str:
    """Short code, e.g. ``"R7"``, ``"B+2"``, ``"GS"``, ``"W+4"``."""
    rank = rank_of(card)
    colour = colour_of(card)
    code = _RANK_CODES[rank]
    return code if colour is None else colour.name[0] + code


def card_ids(colour: Colour | None, rank: Rank) -> tuple[int, ...]:
    """All ids of the physical cards with this colour and rank (None for wilds)."""
    want = WILD if colour is None else int(colour)
    return tuple(i for i in range(DECK_SIZE) if COLOUR[i] == want and RANK[i] == rank)


def parse_card(text: str) -> int:
    """The lowest id of the card named by a short code such as ``"R7"`` or ``"W+4"``.

    Also accepts an explicit id suffix ``"R7#1"`` for the second red 7.
    Raises ValueError for an unknown code or copy number.
    """
    code, _, copy = text.strip().upper().partition("#")
    ids = [i for i in range(DECK_SIZE) if card_code(i).upper() == code]
    if not ids:
        raise ValueError(f"unknown card code {text!r}")
    n = int(copy) if copy else 0
    if not 0 <= n < len(ids):
        raise ValueError(f"card {code} has only {len(ids)} copies")
    return ids[n]
