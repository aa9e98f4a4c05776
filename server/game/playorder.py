"""Greedy's order of plays, written once: the order in which
:class:`~.bots.GreedyBot` prefers its coloured plays, and the search's model
of the other seats (:mod:`.search`: its playouts, and what it infers from a
play) reads the same order.

A play's place in the order is one number, :func:`play_key` (the higher,
the sooner played): first the attack worth of its rank (:data:`ATTACK`) when
the next seat holds 2 cards or fewer, then the cards laid with it (house
rule ``multi_play``), then the cards of its colour held besides, then its
points.
"""

from __future__ import annotations

from .cards import RANK, STANDARD_POINTS, Rank

#: How much an attack card (by rank) is worth to greedy against a next
#: player close to going out (2 cards or fewer).
ATTACK: dict[int, int] = {int(Rank.DRAW_TWO): 3, int(Rank.SKIP): 2, int(Rank.REVERSE): 1}

#: Per rank 0..14, the attack worth as it leads a :func:`play_key`: when the
#: next seat holds 2 cards or fewer (``ATTACKING``), and otherwise.
ATTACKING: tuple[int, ...] = tuple(ATTACK.get(rank, 0) << 16 for rank in range(15))
NOT_ATTACKING: tuple[int, ...] = (0,) * 15


def play_key(card: int, laid: int, held: int, attacks: tuple[int, ...]) -> int:
    """The place of a play of coloured ``card`` in greedy's order, as one
    number (the higher, the sooner played): by the attack worth of its rank
    (``attacks``: :data:`ATTACKING` or :data:`NOT_ATTACKING`), then ``laid``
    (the cards laid with it, 0..7), then ``held`` (the cards of the colour
    it leaves in force still held, 0..127), then its points."""
    return attacks[RANK[card]] + (laid << 13) + (held << 6) + STANDARD_POINTS[card]
