"""The lobby: the tables of one server."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from unoplay.game.messages import TableInfo, TableState

from ...sdk import ServerError
from ..render import SEEDED_NOTE, rules_label
from .create import CreateTableScreen, NewTable
from .game import Seating

if TYPE_CHECKING:
    from ..app import UnoApp

log = logging.getLogger("unoplay.tui")

_STATE = {
    TableState.WAITING: "waiting",
    TableState.PLAYING: "playing",
    TableState.FINISHED: "finished",
}


#: The lobby's columns; the title and the players take the width the others leave.
_COLUMNS = ("Table", "Seats", "Players", "Rules", "Turn", "State")
_TITLE, _PLAYERS = 0, 2


def _players(table: TableInfo) -> str:
    """Who sits at ``table``: people by name, bots counted ("Ada, Bob + 2 bots")."""
    names = ", ".join(s.name for s in table.seats if s.occupied and not s.bot)
    bots = sum(1 for s in table.seats if s.occupied and s.bot)
    if not bots:
        return names
    counted = f"{bots} bot{'s' if bots != 1 else ''}"
    return f"{names} + {counted}" if names else counted


def _widths(rows: list[tuple[str, ...]], room: int) -> list[int]:
    """Column widths for ``rows`` in ``room`` cells: each column as wide as its
    widest cell, except that the title and the players share what the others
    leave: the title a third (at least 8 cells), the players the rest (at least
    8), the title then what the players do not need."""
    widths = [max(cell_len(cell) for cell in column) for column in zip(_COLUMNS, *rows)]
    title, players = widths[_TITLE], widths[_PLAYERS]
    left = room - sum(widths) + title + players
    widths[_TITLE] = min(title, max(8, left // 3))
    widths[_PLAYERS] = min(players, max(8, left - widths[_TITLE]))
    widths[_TITLE] = min(title, max(widths[_TITLE], left - widths[_PLAYERS]))
    return widths


def _elide(text: str, width: int) -> Text:
    """``text`` in at most ``width`` cells, ending in "…" when cut."""
    cell = Text(text)
    cell.truncate(width, overflow="ellipsis")
    return cell


def error_text(err: Exception) -> str:
    """What a failed call says to a person."""
    return str(err) or type(err).__name__


class LobbyScreen(Screen[None]):
    """The tables of one server: sit at one, create one, add bots."""

    app: UnoApp

    BINDINGS = [
        Binding("enter", "sit", "Sit / rejoin", priority=True),
        Binding("n", "new", "New table"),
        Binding("b", "add_bot", "Add bot"),
        Binding("w", "watch", "Watch"),
        Binding("i", "table_id", "Table id"),
        Binding("r", "refresh", "Refresh"),
        Binding("escape", "servers", "Servers"),
        Binding("q", "app.quit_now", "Quit"),
    ]

    def __init__(self, target: str) -> None:
        super().__init__()
        self.target = target
        self.tables: list[TableInfo] = []

    def compose(self) -> ComposeResult:
        yield Static(id="topbar")
        yield DataTable(id="tables", cursor_type="row", zebra_stripes=True)
        yield Static(id="lobby-status", classes="hint")
        yield Footer()

    def on_mount(self) -> None:
        top = Text(" UNO ", style="bold #ffffff on #c62828")
        top.append(f" lobby of {self.target}", style="bold")
        top.append(f" · you are {self.app.options.name}", style="dim")
        self.query_one("#topbar", Static).update(top)
        self.query_one(DataTable).focus()
        self.action_refresh()
        self.set_interval(2.0, self.action_refresh)

    def action_refresh(self) -> None:
        self.refresh_tables()

    @work(exclusive=True, group="list")
    async def refresh_tables(self) -> None:
        try:
            tables = await self.app.connection(self.target).list_tables()
        except ServerError as err:
            if self.is_attached:
                self.query_one("#lobby-status", Static).update(
                    Text(f"Cannot reach {self.target}: {error_text(err)}", style="bold #ef5350")
                )
            return
        self.show(tables)

    def show(self, tables: list[TableInfo]) -> None:
        self.tables = tables
        if not self.is_attached:  # a refresh that ended after the lobby was left
            return
        widget = self.query_one(DataTable)
        keep = widget.cursor_row
        rows = [self._row(t) for t in tables]
        room = self.size.width - 2 * widget.cell_padding * len(_COLUMNS) - 2  # 2: a scrollbar
        widths = _widths(rows, room)
        widget.clear(columns=True)
        for label, width in zip(_COLUMNS, widths):
            widget.add_column(label, width=width)
        for t, row in zip(tables, rows):
            widget.add_row(
                *(_elide(cell, width) for cell, width in zip(row, widths)), key=t.table_id
            )
        if tables:
            widget.move_cursor(row=min(keep, len(tables) - 1))
        waiting = sum(1 for t in tables if t.state == TableState.WAITING)
        status = Text(f"{len(tables)} table{'s' if len(tables) != 1 else ''}, {waiting} waiting. ")
        status.append("Enter sits (or rejoins) · n new table · b adds a bot", style="dim")
        self.query_one("#lobby-status", Static).update(status)

    def _row(self, table: TableInfo) -> tuple[str, ...]:
        """The cells of ``table``'s row, in full."""
        taken = sum(1 for s in table.seats if s.occupied)
        state = _STATE.get(table.state, "?")
        if self.app.store.get(self.target, table.table_id, self.app.options.name):
            state += " (yours)"
        return (
            table.title,
            f"{taken}/{len(table.seats)}",
            _players(table),
            rules_label(table.rules) + (f" · {SEEDED_NOTE}" if table.seeded else ""),
            f"{table.turn_seconds}s" if table.turn_seconds else "-",
            state,
        )

    def on_resize(self) -> None:
        self.show(self.tables)

    def _current(self) -> TableInfo | None:
        widget = self.query_one(DataTable)
        if not self.tables or widget.cursor_row is None:
            return None
        row = widget.cursor_row
        return self.tables[row] if 0 <= row < len(self.tables) else None

    def action_table_id(self) -> None:
        """i: the highlighted table's id, as ``uno bot --table`` wants it."""
        table = self._current()
        if table is None:
            self.notify("No table yet: press n to create one", severity="warning")
            return
        self.notify(
            f"uno bot --server {self.target} --table {table.table_id}",
            title=f"Table id: {table.table_id}",
            timeout=15,
        )

    def action_sit(self) -> None:
        table = self._current()
        if table is None:
            self.notify("No table yet: press n to create one", severity="warning")
            return
        self.sit(table.table_id)

    @work(exclusive=True, group="sit")
    async def sit(self, table_id: str, bots: int = 0, start: bool = False) -> None:
        conn = self.app.connection(self.target)
        name = self.app.options.name
        store = self.app.store
        token = store.get(self.target, table_id, name)
        try:
            if token is None:
                joined = await conn.join_table(table_id, name)
                token = joined.seat_token
                store.put(self.target, table_id, name, token, joined.seat)
            for _ in range(bots):
                await conn.add_bot(table_id, "greedy")
            if start:
                await conn.start_game(table_id, token)
        except ServerError as err:
            self.notify(error_text(err), title="Cannot sit there", severity="error")
            return
        self.app.show_table(Seating(self.target, table_id, token, name))

    def action_new(self) -> None:
        self.app.push_screen(
            CreateTableScreen(self.target, self.app.options.bot_delay), self._created
        )

    def _created(self, new: NewTable | None) -> None:
        """The form created a table: sit there, seat its bots, start once full."""
        if new is not None:
            full = new.bots == new.seats - 1
            self.sit(new.table.table_id, bots=new.bots, start=full)

    def action_add_bot(self) -> None:
        table = self._current()
        if table is not None:
            self.add_bot(table.table_id)

    @work(group="bot")
    async def add_bot(self, table_id: str) -> None:
        try:
            await self.app.connection(self.target).add_bot(table_id, "greedy")
        except ServerError as err:
            self.notify(error_text(err), title="Cannot add a bot", severity="error")
            return
        self.refresh_tables()

    def action_watch(self) -> None:
        """Watch the highlighted table as a spectator (while waiting or playing)."""
        table = self._current()
        if table is None:
            self.notify("No table to watch yet", severity="warning")
        elif table.state == TableState.FINISHED:
            self.notify("That game is over: nothing left to watch", severity="warning")
        else:
            self.app.show_watch(self.target, table.table_id)

    def action_servers(self) -> None:
        self.app.show_connect(self.target)
