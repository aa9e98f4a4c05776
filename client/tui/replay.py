"""``uno replay`` in the terminal: the stored games, and one stepped through.

A small Textual app of its own (no server, no network): the list of games
(:class:`~.screens.replay.GameListScreen`) or one game
(:class:`~.screens.replay.ReplayScreen`) straight away.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App
from textual.binding import Binding

from ..replay import Frames
from .screens.replay import GameListScreen, ReplayScreen


class ReplayApp(App[None]):
    """Replays: ``frames`` (one game, from seat ``seat``'s view, -1 every hand)
    or the list of ``games`` with ``load(game_id) -> Frames`` to open one."""

    CSS_PATH = "uno.tcss"
    TITLE = "UNO replay"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [Binding("ctrl+c,ctrl+q", "quit", "Quit", show=False, priority=True)]

    def __init__(
        self,
        frames: Frames | None = None,
        seat: int = -1,
        games: list[dict[str, Any]] | None = None,
        load: Callable[[int], Frames] | None = None,
    ) -> None:
        super().__init__()
        self.frames, self.seat, self.games, self.load = frames, seat, games or [], load

    def on_mount(self) -> None:
        if self.frames is not None:
            self.push_screen(ReplayScreen(self.frames, self.seat))
        else:
            self.push_screen(GameListScreen(self.games, self.load))
