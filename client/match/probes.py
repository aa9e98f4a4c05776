"""Bots that test the match runner rather than play well.

Name them as bots of your own: ``--bots unoplay.client.match.probes:Hoarder``.
"""

from __future__ import annotations

from collections.abc import Sequence

from unoplay.game.actions import Action, ActionKind
from unoplay.game.bots import Bot
from unoplay.game.view import PlayerView


class Hoarder(Bot):
    """Never sheds a card: on its turn it draws, keeps what it drew, accepts
    a penalty and names the first colour offered; out of turn it does
    nothing. Two of them play a round that never ends, which the table's
    cap of actions (``--max-actions``) adjudicates."""

    name = "hoarder"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    def decide(self, view: PlayerView, legal: Sequence[Action]) -> Action | None:
        if view.current != view.seat:
            return None
        for kind in (ActionKind.DRAW, ActionKind.KEEP, ActionKind.ACCEPT):
            for action in legal:
                if action.kind is kind:
                    return action
        for action in legal:  # a colour for a Wild starter, a forced play
            if action.kind not in (ActionKind.CATCH, ActionKind.CALL_UNO):
                return action
        return None
