"""The observation vector of one seat's view, shared by the PettingZoo
environment (:mod:`.env`) and the OpenSpiel game (:mod:`.openspiel`). NumPy
only. The layout is in :mod:`.env`'s docstring ("Observations")."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from unoplay.game import PlayerView
from unoplay.game.cards import DECK_SIZE
from unoplay.game.search import KIND

#: How many kinds of card there are: 4 colours x 13 ranks, Wild, Wild Draw Four.
CARD_KINDS = 54

#: Copies of each card kind in the deck (float32, ``(54,)``): 1 for a zero,
#: 2 for every other coloured card, 4 for Wild and for Wild Draw Four.
COPIES = np.bincount(np.asarray(KIND), minlength=CARD_KINDS).astype(np.float32)

#: The length of the played-cards memory (:func:`observation_size` with
#: ``memory``): cards of each kind played this round, then this game.
MEMORY_SIZE = 2 * CARD_KINDS


def observation_size(players: int, memory: bool = False) -> int:
    """The length D of the observation vector for ``players`` seats (with
    ``memory``: the played-cards planes too, :data:`MEMORY_SIZE` more)."""
    return 3 * CARD_KINDS + 4 + 6 * players + 4 + 6 + (MEMORY_SIZE if memory else 0)


@lru_cache(maxsize=64)
def _scale(players: int, score_scale: float, memory: bool) -> np.ndarray:
    """What :func:`encode` multiplies a raw vector by under ``normalize``."""
    scale = np.ones(observation_size(players, memory), np.float32)
    scale[:CARD_KINDS] = 1.0 / COPIES
    at = 3 * CARD_KINDS + 4
    for _ in range(players):
        scale[at] = 1.0 / DECK_SIZE  # hand size
        scale[at + 5] = 1.0 / score_scale
        at += 6
    scale[at + 1 : at + 4] = 1.0 / DECK_SIZE  # pending penalty, draw and discard piles
    if memory:
        scale[at + 10 : at + 10 + CARD_KINDS] = 1.0 / COPIES
    scale.flags.writeable = False
    return scale


def encode(
    view: PlayerView,
    out: np.ndarray | None = None,
    normalize: bool = False,
    score_scale: float = 500.0,
    played: np.ndarray | None = None,
) -> np.ndarray:
    """The observation vector (float32, shape ``(observation_size(n, memory),)``)
    of ``view``, laid out as :mod:`.env`'s docstring says, written into ``out``
    (a row of a batch, say) or a new array, and returned. Only the view is
    read, and ``played`` when given: the memory planes (``(2, 54)`` counts,
    this round's then this game's), appended after the view.

    ``normalize`` puts every feature in [0, 1]: card counts divided by the
    copies of that kind in the deck (:data:`COPIES`), sizes and the pending
    penalty by the deck's 108 cards, scores by ``score_scale``, everything
    capped at 1; this game's played counts ``c`` as ``c / (c + copies)``."""
    n = len(view.hand_sizes)
    memory = played is not None
    if out is None:
        out = np.zeros(observation_size(n, memory), dtype=np.float32)
    else:
        out.fill(0.0)
    for card in view.hand:
        out[KIND[card]] += 1
    at = CARD_KINDS
    out[at + KIND[view.top_card]] = 1
    at += CARD_KINDS
    if view.colour >= 0:
        out[at + view.colour] = 1
    at += 4
    if view.drawn_card >= 0:
        out[at + KIND[view.drawn_card]] = 1
    at += CARD_KINDS
    for r in range(n):
        s = (view.seat + r) % n
        out[at : at + 6] = (
            view.hand_sizes[s],
            view.uno_called[s],
            view.catchable == s,
            view.current == s,
            s in view.out_seats,
            view.scores[s],
        )
        at += 6
    out[at : at + 4] = (
        view.direction == 1,
        view.pending_penalty,
        view.draw_pile_size,
        view.discard_pile_size,
    )
    at += 4
    out[at + int(view.phase) - 1] = 1
    at += 6
    if played is not None:
        out[at : at + MEMORY_SIZE] = played.reshape(-1)
    if normalize:
        out *= _scale(n, score_scale, memory)
        np.minimum(out, 1.0, out=out)
        if played is not None:
            game = played[1]
            np.divide(game, game + COPIES, out=out[at + CARD_KINDS : at + MEMORY_SIZE])
    return out
