"""The players panel: every seat, whose turn, cards held, UNO, score."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.console import Console, ConsoleOptions, RenderResult
from rich.table import Table
from rich.text import Text
from textual.widget import Widget

from unoplay.game.messages import SeatInfo
from unoplay.game.view import Phase, PlayerView

from ..render import seat_name


class _Sized:
    """A renderable made for the width it is given (Rich's, at render time)."""

    def __init__(self, make: Callable[[int], Table]) -> None:
        self.make = make

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.make(options.max_width)


#: Cells of the card backs drawn beside a hand's count (a large terminal).
BACKS = 16
#: Cells a name keeps before card backs get any (a large terminal).
NAME_ROOM = 20


class PlayersPanel(Widget):
    """Every seat: whose turn, cards held, UNO state, score, bot / offline.

    ``compact`` (a small terminal) leaves out the header row; ``backs`` (a
    large one) draws each hand as a row of card backs beside its count."""

    DEFAULT_CSS = """
    PlayersPanel { height: auto; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.view: PlayerView | None = None
        self.seats: Sequence = ()
        self.me = -1
        self.teams = False
        self.compact = False
        self.backs = False

    def show(
        self, view: PlayerView | None, seats: Sequence, me: int = -1, teams: bool = False
    ) -> None:
        """Draw ``view`` (None: seats only); ``teams``: mark partners (section 9)."""
        self.view, self.seats, self.me, self.teams = view, seats, me, teams
        self.refresh(layout=True)

    @property
    def _uno_width(self) -> int:
        return 4 if self.compact else 6

    def _columns(self, width: int) -> tuple[bool, int, int]:
        """(the score column shown, the cells left for a name, the cells of the
        card backs: 0 for none) in ``width`` cells."""
        score = not self.compact or width >= 30
        fixed = 1 + (2 if self.compact else 5) + self._uno_width + (5 if score else 0)
        room = width - fixed - (4 if score else 3)  # a cell between columns
        backs = min(BACKS, room - 1 - NAME_ROOM) if self.backs else 0
        if backs < 4:  # no room for backs worth showing
            backs = 0
        return score, max(room - (backs + 1 if backs else 0), 4), backs

    def render(self) -> _Sized:
        """The table, made at the width the panel is drawn at."""
        return _Sized(self.table_at)

    def table_at(self, width: int) -> Table:
        """The panel's table as drawn ``width`` cells wide (a header row first,
        except in the compact layout)."""
        view, seats = self.view, self.seats
        show_score, room, backs_width = self._columns(width)
        table = Table.grid(padding=(0, 1), expand=True)
        table.add_column(width=1)
        table.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
        table.add_column(justify="right", no_wrap=True, width=2 if self.compact else 5)
        if backs_width:
            table.add_column(no_wrap=True, width=backs_width)
        table.add_column(no_wrap=True, width=self._uno_width)
        if show_score:
            table.add_column(justify="right", no_wrap=True, width=5)
        n = len(view.hand_sizes) if view else len(seats)
        me = self.me  # the receiver's seat (-1: every hand, a spectator)

        def row(*cells: Text | str, backs: Text | str = "", score: Text | str = "") -> None:
            marker, name, cards, uno = cells
            table.add_row(
                marker,
                name,
                cards,
                *((backs,) if backs_width else ()),
                uno,
                *((score,) if show_score else ()),
            )

        if view is not None and not self.compact:
            row("", Text("Player", style="dim"), Text("Cards", style="dim"), "", score="Score")
        for i in range(n):
            info = seats[i] if i < len(seats) else None
            name = self._seat_label(seats, info, i, me, n, room)
            if view is None:
                row("", name, "", "")
                continue
            turn = i == view.current and view.phase < Phase.ROUND_OVER
            marker = Text("▶", style="bold #f4c20d") if turn else Text(" ")
            size = view.hand_sizes[i]
            uno = Text("")
            if i < len(view.uno_called) and view.uno_called[i] and size == 1:
                uno = Text("UNO!", style="bold #1a1a1a on #f4c20d")
            elif view.catchable == i:
                uno = Text("UNO?" if self.compact else "no UNO", style="bold #ef5350")
            if i in view.out_seats:  # out of play (elimination, tournament)
                uno = Text("out", style="dim")
            score = Text(str(view.scores[i]) if i < len(view.scores) else "0")
            if turn:
                name.stylize("bold")
            row(
                marker,
                name,
                Text(str(size), style="bold" if size <= 2 else ""),
                uno,
                backs=Text(
                    "▮" * size if size <= backs_width else "▮" * (backs_width - 1) + "…",
                    style="#e53935" if turn else "#616161",
                ),
                score=score,
            )
        return table

    def _seat_label(
        self, seats: Sequence, info: SeatInfo | None, i: int, me: int, n: int, room: int
    ) -> Text:
        """Seat ``i``'s name cut to ``room`` cells, keeping its marks whole
        ("(you)", "partner", "away", "bot")."""
        base = seat_name(seats, i, -1) if info and info.name else "(empty)"
        marks = Text()
        if i == me:
            marks.append(" (you)", style="bold")
        elif self.teams and me >= 0 and n % 2 == 0 and i == (me + n // 2) % n:
            marks.append(" partner", style="bold #43a047")  # partners sit opposite
        if info is not None and info.occupied and not info.connected:
            marks.append(" away", style="italic #ef5350")
        elif info is not None and info.bot:
            marks.append(" bot", style="dim")
        keep = max(room - len(marks), 3)
        if len(base) > keep:  # cut in the middle: "greedy-1", "greedy-2" stay apart
            base = base[: keep - 3] + "…" + base[-2:] if keep >= 5 else base[: keep - 1] + "…"
        return Text(base, style="bold" if i == me else "") + marks
