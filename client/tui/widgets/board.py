"""The table board: every widget of the table screen, drawn from a :class:`TableModel`.

The player's screen (:class:`~..screens.game.GameScreen`) and the spectator's
(:class:`~..screens.watch.WatchScreen`) compose the same board; what differs
(keys, a hand or none, the stream they read) stays in the screens.
"""

from __future__ import annotations

from enum import Enum

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from ..model import TableModel
from ..render import HUGE, LARGE, NORMAL, SMALL, CardSize
from .hand import HandView
from .log import GameLog, LatestLines
from .pile import PileView
from .players import PlayersPanel
from .rules import RulesLine

#: The smallest terminal the table is drawn in; below it a message says so.
MIN_WIDTH, MIN_HEIGHT = 40, 12
#: A compact terminal lower than this has no room for the bordered log: it
#: shows the log's latest lines alone, unframed (and the hand drops the row
#: under its cards).
SHORT_HEIGHT = 15


class BoardLayout(Enum):
    """How the table is laid out in a terminal of a given size."""

    TOO_SMALL = "too-small"  #: below MIN_WIDTH x MIN_HEIGHT: a message only
    COMPACT = "compact"  #: small cards, the players beside the pile, no rules line
    NORMAL = "normal"  #: 80x24: the players and pile at the left, the log at the right
    LARGE = "large"  #: big cards, a wide players panel with the hands as card backs
    HUGE = "huge"  #: as large, with bigger cards still (200x60)

    @classmethod
    def of(cls, width: int, height: int) -> BoardLayout:
        """The layout of a ``width`` x ``height`` terminal."""
        if width < MIN_WIDTH or height < MIN_HEIGHT:
            return cls.TOO_SMALL
        if width < 70 or height < 20:
            return cls.COMPACT
        if width >= 160 and height >= 48:
            return cls.HUGE
        if width >= 110 and height >= 32:
            return cls.LARGE
        return cls.NORMAL

    @property
    def card_size(self) -> CardSize:
        """The cards' size in this layout."""
        sizes = {BoardLayout.COMPACT: SMALL, BoardLayout.LARGE: LARGE, BoardLayout.HUGE: HUGE}
        return sizes.get(self, NORMAL)

    @property
    def roomy(self) -> bool:
        """True for the large layouts (card backs beside the hands)."""
        return self in (BoardLayout.LARGE, BoardLayout.HUGE)


def too_small_text(width: int, height: int) -> Text:
    """What a terminal below the minimum shows."""
    text = Text("UNO\n\n", style="bold")
    text.append(f"Make the terminal\nat least {MIN_WIDTH}x{MIN_HEIGHT}")
    text.append(f"\n(it is {width}x{height} now)", style="dim")
    return text


class TableBoard(Widget):
    """The top bar, the rules line, the players, the pile, the log, the status
    line and the hand. Its parts are kept as attributes (never looked up), so
    drawing on a board being taken apart cannot fail.

    The layout follows the terminal (:class:`BoardLayout`, set by :meth:`lay_out`
    on every resize): small cards and the players beside the pile in a small
    one (lower than :data:`SHORT_HEIGHT`: the log's latest lines alone, ``short``),
    big cards and a wide players panel in a large one, and below
    :data:`MIN_WIDTH` x :data:`MIN_HEIGHT` a message asking for more room
    instead of panels that do not fit."""

    DEFAULT_CSS = """
    TableBoard { height: 1fr; layout: vertical; }
    """

    def __init__(self, *, hand: bool = True, **kwargs) -> None:
        super().__init__(**kwargs)
        self.arrangement: BoardLayout | None = None
        self.short = False  #: the log is cut to its latest lines (:data:`SHORT_HEIGHT`)
        self.has_hand = hand
        self.has_rules = False  #: the table's rules line has something to say
        self.too_small = Static(id="too-small")
        self.main = Horizontal(id="main")
        self.topbar = Static(id="topbar")
        self.rules_line = RulesLine(id="rules")
        self.players_box = VerticalScroll(id="players-box")
        self.players = PlayersPanel(id="players")
        self.pile = PileView(id="pile")
        self.game_log = GameLog(id="log", wrap=True, min_width=20, max_lines=1000)
        self.latest = LatestLines(id="latest")  #: the log's latest lines, in a short terminal
        self.game_log.latest = self.latest
        self.status = Static(id="status")
        self.hand = HandView(id="hand")
        self.hand.display = hand
        self.side = Vertical(id="side")

    def compose(self) -> ComposeResult:
        yield self.too_small
        yield self.topbar
        yield self.rules_line
        with self.main:
            with self.side:
                with self.players_box:
                    yield self.players
                yield self.pile
            yield self.game_log
            yield self.latest
        yield self.status
        yield self.hand

    def on_mount(self) -> None:
        self.players_box.border_title = "Players"
        self.pile.border_title = "Table"
        self.game_log.border_title = "What happened"
        self.game_log.can_focus = False
        self.lay_out(self.app.size.width, self.app.size.height)

    def on_resize(self, event: events.Resize) -> None:
        self.lay_out(self.app.size.width, self.app.size.height)

    def lay_out(self, width: int, height: int) -> None:
        """Lay the board out for a ``width`` x ``height`` terminal."""
        layout = BoardLayout.of(width, height)
        tiny = layout is BoardLayout.TOO_SMALL
        self.too_small.display = tiny
        if tiny:
            self.too_small.update(too_small_text(width, height))
        short = layout is BoardLayout.COMPACT and height < SHORT_HEIGHT
        if layout is self.arrangement and short == self.short:
            return
        self.arrangement, self.short = layout, short
        for part in (self.topbar, self.main, self.status):
            part.display = not tiny
        self.game_log.display = not short
        self.latest.display = short
        self.hand.display = self.has_hand and not tiny
        self._show_rules_line()
        for name in BoardLayout:
            self.set_class(layout is name, f"-{name.value}")
        self.hand.resize_cards(layout.card_size, under=not short)
        self.pile.resize_cards(layout.card_size)
        self.players.compact = layout is BoardLayout.COMPACT
        self.players.backs = layout.roomy
        self.set_class(layout.roomy, "-roomy")
        self.players.refresh(layout=True)

    def _show_rules_line(self) -> None:
        self.rules_line.display = self.has_rules and self.arrangement in (
            BoardLayout.NORMAL,
            BoardLayout.LARGE,
        )

    # ------------------------------------------------------------- drawing

    def draw(self, model: TableModel, target: str = "") -> None:
        """Draw every part from ``model`` (``target``: the server, shown in the top bar)."""
        view, seats = model.view, model.seats()
        self.players.show(view, seats, model.me, model.teams)
        if view is not None:
            box = self.players_box
            row = view.current + (0 if self.players.compact else 1)  # the header row first
            height = box.scrollable_content_region.height
            if height and not box.scroll_y <= row < box.scroll_y + height:
                box.scroll_to(y=max(0, row - height // 2), animate=False)
        self.pile.show(view, seats, model.me)
        if self.has_hand:
            self.hand.show(model.hand())
        self.draw_top(model, target)
        self.draw_status(model)

    def draw_top(self, model: TableModel, target: str = "") -> None:
        """The top bar and the rules line."""
        self.topbar.update(model.topbar(target))
        notes = model.rules_notes()
        self.has_rules = notes is not None
        self._show_rules_line()
        if notes is not None:
            self.rules_line.show(*notes)

    def draw_status(self, model: TableModel) -> None:
        """The status line and its hint."""
        line, hint = model.status()
        self.status.update(line + Text("\n") + hint)

    def draw_hand(self, model: TableModel) -> None:
        """The hand alone (a new selection or marks)."""
        if self.has_hand:
            self.hand.show(model.hand())

    def write_log(self, model: TableModel) -> None:
        """Add the lines of the events the log does not have yet."""
        for line in model.new_log_lines():
            self.game_log.add(line)
