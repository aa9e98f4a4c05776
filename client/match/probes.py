"""Bots that test the match runner rather than play well.

Name them as bots of your own: ``--bots unoplay.client.match.probes:Hoarder``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path

from unoplay.game.actions import Action, ActionKind
from unoplay.game.bots import Bot
from unoplay.game.registry import make_bot
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
        """On its turn: draw, keep, accept; else nothing."""
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


#: The directory where :class:`Rendezvous` bots mark their games, and how many must meet.
RENDEZVOUS_DIR = "UNOPLAY_RENDEZVOUS"
RENDEZVOUS_GAMES = "UNOPLAY_RENDEZVOUS_GAMES"
#: Seconds a :class:`Rendezvous` waits for the others before it gives up.
RENDEZVOUS_TIMEOUT = 60.0


class Rendezvous(Bot):
    """Plays as the random bot, but before its first decision of a game it
    marks the game in the directory ``$UNOPLAY_RENDEZVOUS`` and waits until
    ``$UNOPLAY_RENDEZVOUS_GAMES`` games (default 2) have marked it, blocking
    its worker. So a match of that many games with one Rendezvous a table
    ends only if they are played at once, in as many workers; otherwise the
    bot raises RuntimeError after :data:`RENDEZVOUS_TIMEOUT` seconds (the
    game is reported crashed)."""

    name = "rendezvous"

    def __init__(self, seed: int | None = None) -> None:
        self.inner = make_bot("random", seed)
        self.met = False

    def decide(self, view: PlayerView, legal: Sequence[Action]) -> Action | None:
        """The random bot's decision, after the rendezvous on the first one. Raises RuntimeError
        when the others do not come."""
        if not self.met:
            self._meet()
        return self.inner.decide(view, legal)

    def _meet(self) -> None:
        folder = Path(os.environ[RENDEZVOUS_DIR])
        wanted = int(os.environ.get(RENDEZVOUS_GAMES, "2"))
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{os.getpid()}-{id(self)}").touch()
        deadline = time.monotonic() + RENDEZVOUS_TIMEOUT
        while (present := len(list(folder.iterdir()))) < wanted:
            if time.monotonic() > deadline:
                raise RuntimeError(f"only {present} of {wanted} games were played at once")
            time.sleep(0.01)  # another process's file: nothing to wait on but the folder
        self.met = True
