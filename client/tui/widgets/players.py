"""The players panel: every seat, whose turn, cards held, UNO, score."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table
from rich.text import Text
from textual.widget import Widget

from unoplay.game.view import Phase, PlayerView

from ..render import seat_name


class PlayersPanel(Widget):
    """Every seat: whose turn, cards held, UNO state, score, bot / offline."""

    DEFAULT_CSS = """
    PlayersPanel { height: auto; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.view: PlayerView | None = None
        self.seats: Sequence = ()
        self.me = -1
        self.teams = False

    def show(
        self, view: PlayerView | None, seats: Sequence, me: int = -1, teams: bool = False
    ) -> None:
        """Draw ``view`` (None: seats only); ``teams``: mark partners (section 9)."""
        self.view, self.seats, self.me, self.teams = view, seats, me, teams
        self.refresh(layout=True)

    def render(self) -> Table:
        view, seats = self.view, self.seats
        table = Table.grid(padding=(0, 1), expand=True)
        table.add_column(width=1)
        table.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
        table.add_column(justify="right", no_wrap=True, width=5)
        table.add_column(no_wrap=True, width=6)
        table.add_column(justify="right", no_wrap=True, width=5)
        n = len(view.hand_sizes) if view else len(seats)
        me = view.seat if view else self.me
        if view is not None:
            table.add_row(
                "",
                Text("Player", style="dim"),
                Text("Cards", style="dim"),
                "",
                Text("Score", style="dim"),
            )
        for i in range(n):
            info = seats[i] if i < len(seats) else None
            name = Text(seat_name(seats, i, -1) if info and info.name else "(empty)")
            if i == me:
                name = Text(f"{name.plain} (you)", style="bold")
            elif self.teams and me >= 0 and n % 2 == 0 and i == (me + n // 2) % n:
                name.append(" partner", style="bold #43a047")  # partners sit opposite
            if info is not None and info.occupied and not info.connected:
                name.append(" away", style="italic #ef5350")
            elif info is not None and info.bot:
                name.append(" bot", style="dim")
            if view is None:
                table.add_row("", name, "", "", "")
                continue
            turn = i == view.current and view.phase < Phase.ROUND_OVER
            marker = Text("▶", style="bold #f4c20d") if turn else Text(" ")
            size = view.hand_sizes[i]
            uno = Text("")
            if i < len(view.uno_called) and view.uno_called[i] and size == 1:
                uno = Text("UNO!", style="bold #1a1a1a on #f4c20d")
            elif view.catchable == i:
                uno = Text("no UNO", style="bold #ef5350")
            if i in view.out_seats:  # out of play (elimination, tournament)
                uno = Text("out", style="dim")
            score = Text(str(view.scores[i]) if i < len(view.scores) else "0")
            if turn:
                name.stylize("bold")
            table.add_row(
                marker, name, Text(str(size), style="bold" if size <= 2 else ""), uno, score
            )
        return table
