"""The observation vector of one seat's view, shared by the PettingZoo
environment (:mod:`.env`) and the OpenSpiel game (:mod:`.openspiel`). NumPy
only. The layout is in :mod:`.env`'s docstring ("Observations")."""

from __future__ import annotations

import numpy as np

from unoplay.game import PlayerView
from unoplay.game.search import KIND

#: How many kinds of card there are: 4 colours x 13 ranks, Wild, Wild Draw Four.
CARD_KINDS = 54


def observation_size(players: int) -> int:
    """The length D of the observation vector for ``players`` seats."""
    return 3 * CARD_KINDS + 4 + 6 * players + 4 + 6


def encode(view: PlayerView, out: np.ndarray | None = None) -> np.ndarray:
    """The observation vector (float32, shape ``(observation_size(n),)``) of
    ``view``, laid out as :mod:`.env`'s docstring says, written into ``out``
    (a row of a batch, say) or a new array, and returned. Only the view is read."""
    n = len(view.hand_sizes)
    if out is None:
        out = np.zeros(observation_size(n), dtype=np.float32)
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
    return out
