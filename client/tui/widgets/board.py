"""The table board: every widget of the table screen, drawn from a :class:`TableModel`.

The player's screen (:class:`~..screens.game.GameScreen`) and the spectator's
(:class:`~..screens.watch.WatchScreen`) compose the same board; what differs
(keys, a hand or none, the stream they read) stays in the screens.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from ..model import TableModel
from .hand import HandView
from .log import GameLog
from .pile import PileView
from .players import PlayersPanel
from .rules import RulesLine


class TableBoard(Widget):
    """The top bar, the rules line, the players, the pile, the log, the status
    line and the hand. Its parts are kept as attributes (never looked up), so
    drawing on a board being taken apart cannot fail."""

    DEFAULT_CSS = """
    TableBoard { height: 1fr; layout: vertical; }
    """

    def __init__(self, *, hand: bool = True, **kwargs) -> None:
        super().__init__(**kwargs)
        self.topbar = Static(id="topbar")
        self.rules_line = RulesLine(id="rules")
        self.players_box = VerticalScroll(id="players-box")
        self.players = PlayersPanel(id="players")
        self.pile = PileView(id="pile")
        self.game_log = GameLog(id="log", wrap=True, min_width=20, max_lines=1000)
        self.status = Static(id="status")
        self.hand = HandView(id="hand")
        self.hand.display = hand

    def compose(self) -> ComposeResult:
        yield self.topbar
        yield self.rules_line
        with Horizontal(id="main"):
            with Vertical(id="side"):
                with self.players_box:
                    yield self.players
                yield self.pile
            yield self.game_log
        yield self.status
        yield self.hand

    def on_mount(self) -> None:
        self.players_box.border_title = "Players"
        self.pile.border_title = "Table"
        self.game_log.border_title = "What happened"
        self.game_log.can_focus = False

    # ------------------------------------------------------------- drawing

    def draw(self, model: TableModel, target: str = "") -> None:
        """Draw every part from ``model`` (``target``: the server, shown in the top bar)."""
        view, seats = model.view, model.seats()
        self.players.show(view, seats, model.me, model.teams)
        if view is not None:
            box = self.players_box
            row = 1 + view.current  # the header row comes first
            height = box.scrollable_content_region.height
            if height and not box.scroll_y <= row < box.scroll_y + height:
                box.scroll_to(y=max(0, row - height // 2), animate=False)
        self.pile.show(view, seats)
        if self.hand.display:
            self.hand.show(model.hand())
        self.draw_top(model, target)
        self.draw_status(model)

    def draw_top(self, model: TableModel, target: str = "") -> None:
        """The top bar and the rules line."""
        self.topbar.update(model.topbar(target))
        notes = model.rules_notes()
        self.rules_line.display = notes is not None
        if notes is not None:
            self.rules_line.show(*notes)

    def draw_status(self, model: TableModel) -> None:
        """The status line and its hint."""
        line, hint = model.status()
        self.status.update(line + Text("\n") + hint)

    def draw_hand(self, model: TableModel) -> None:
        """The hand alone (a new selection or marks)."""
        if self.hand.display:
            self.hand.show(model.hand())

    def write_log(self, model: TableModel) -> None:
        """Add the lines of the events the log does not have yet."""
        for line in model.new_log_lines():
            self.game_log.add(line)
