"""The arena's standings of one server (server/RULES.md, "The arena"): every
name with its games, win rate and rating, best first; refreshed by itself."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from ...sdk import ArenaStanding, ServerError
from ..words import error_words, plural
from .host import host

#: Columns of the standings: rank, name, games, won (a rate), rating, mu ± sigma, now.
COLUMNS = ("#", "Name", "Games", "Won", "Rating", "mu ± sigma", "Now")
#: Seconds between two refreshes.
REFRESH_SECONDS = 2.0


def standing_row(rank: int, row: ArenaStanding) -> tuple[Text, ...]:
    """The cells of one standing (the name shown literally, never as markup)."""
    won = f"{row.wins / row.games:.0%}" if row.games else "-"
    now = "playing" if row.playing else "waiting" if row.waiting else ""
    return (
        Text(str(rank), justify="right"),
        Text(row.name),
        Text(str(row.games), justify="right"),
        Text(won, justify="right"),
        Text(f"{row.rating:.2f}", justify="right", style="bold"),
        Text(f"{row.mu:.2f} ± {row.sigma:.2f}", justify="right", style="dim"),
        Text(now, style="bold #66bb6a" if row.playing else ""),
    )


class StandingsScreen(Screen[None]):
    """The standings of the arena of ``target`` (``rows``: shown first, before
    the server answers; tests). Esc or q goes back."""

    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back"),
        Binding("q", "app.pop_screen", "Back", show=False),
        Binding("r", "refresh", "Refresh"),
    ]

    def __init__(self, target: str, rows: Sequence[ArenaStanding] | None = None) -> None:
        super().__init__()
        self.target = target
        self.rows: list[ArenaStanding] = list(rows or ())
        self.answered = rows is not None
        self.problem = ""
        self.grid: DataTable[Text] = DataTable(
            id="standings", cursor_type="row", zebra_stripes=True
        )
        self.status = Static(id="standings-status", classes="hint")

    def compose(self) -> ComposeResult:
        top = Text(" UNO ", style="bold")
        top.append(f" arena of {self.target}", style="bold")
        top.append(" · rated by OpenSkill: mu - 3 sigma")
        yield Static(top, id="topbar")
        yield self.grid
        yield self.status
        yield Footer()

    def on_mount(self) -> None:
        for column in COLUMNS:
            self.grid.add_column(column, key=column)
        self.show(self.rows)
        self.grid.focus()
        if not self.answered:
            self.action_refresh()
        self.set_interval(REFRESH_SECONDS, self.action_refresh)

    def action_refresh(self) -> None:
        """r: ask for the standings now (they also refresh every 2 s)."""
        self.fetch()

    @work(exclusive=True, group="standings")
    async def fetch(self) -> None:
        """Ask the server for the standings and show them."""
        try:
            rows = await host(self).connection(self.target).standings()
        except ServerError as err:
            self.problem = error_words(err, self.target)
        else:
            self.problem, self.answered = "", True
            self.rows = rows
        self.show(self.rows)

    def show(self, rows: Sequence[ArenaStanding]) -> None:
        """Show ``rows``, best first, and the line under them."""
        self.grid.clear()
        for rank, row in enumerate(rows, 1):
            self.grid.add_row(*standing_row(rank, row))
        if self.problem:
            status = Text(self.problem, style="bold #ef5350")  # (a sentence, short: 80 columns)
        elif not self.answered:
            status = Text(f"Asking {self.target} for its arena…", style="italic")
        elif not rows:
            status = Text("Nobody has entered this arena yet: uno bot --arena --name N")
        else:
            playing = sum(1 for r in rows if r.playing)
            waiting = sum(1 for r in rows if r.waiting)
            status = Text(
                f"{plural(len(rows), 'name')}: {playing} playing, {waiting} waiting · Esc back"
            )
        self.status.update(status)
