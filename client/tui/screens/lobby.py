"""The lobby: the tables of one server."""

from __future__ import annotations

import logging

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
from ..seats import Prefs
from ..words import error_words, plural
from .create import CreateTableScreen, NewTable
from .host import Seating, ShowConnect, ShowTable, ShowWatch, host, show_table_id
from .prompts import HelpScreen
from .standings import StandingsScreen

log = logging.getLogger("unoplay.tui")

_STATE = {
    TableState.WAITING: "waiting",
    TableState.PLAYING: "playing",
    TableState.FINISHED: "finished",
}


#: The lobby's columns; the title and the players take the width the others leave.
_COLUMNS = ("Table", "Seats", "Players", "Rules", "Turn", "State")
_TITLE, _PLAYERS = 0, 2
#: The columns a narrow lobby leaves out, in this order (rules, turn time, seats).
_DROPPED_FIRST = (3, 4, 1)

LOBBY_HELP = """\
[b]The lobby[/b]
 Every table of this server, oldest first; the list refreshes by itself.
 ↑/↓       pick a table           Enter  sit there (or take your seat back)
 n         create a table         b      a bot takes an empty seat
 w         watch the table        i      the table's id (for uno bot)
 a         the arena's standings (rated bot games)
 g         show or hide the arena's games (listed last; w watches one)
 r         refresh now            Esc    other servers
 ?         this help              q      quit
[b]Marks[/b]
 (yours): you hold a seat there (same name, this machine): Enter takes it back.
 (away): that player's program is gone; at a table that has not started, the
 seat is free again after a minute. "again 1/2": players voting to play again.\
"""


def players_text(table: TableInfo) -> str:
    """Who sits at ``table``: people by name (away ones marked), bots counted
    ("Ada, Bob (away) + 2 bots")."""
    names = ", ".join(
        s.name + ("" if s.connected else " (away)") for s in table.seats if s.occupied and not s.bot
    )
    bots = sum(1 for s in table.seats if s.occupied and s.bot)
    if not bots:
        return names
    counted = plural(bots, "bot")
    return f"{names} + {counted}" if names else counted


def state_text(table: TableInfo) -> str:
    """A table's state for the lobby: waiting, playing (game N), finished
    (with the votes to play again)."""
    state = _STATE.get(table.state, "?")
    if table.state is TableState.PLAYING and table.games > 1:
        state += f" (game {table.games})"
    if table.state is TableState.FINISHED and table.rematch_votes:
        people = sum(1 for s in table.seats if s.occupied and not s.bot)
        state += f", again {len(table.rematch_votes)}/{people}"
    return state


def _widths(rows: list[tuple[str, ...]], room: int, shown: list[int]) -> list[int]:
    """Column widths for ``rows`` (the columns ``shown``, title and players
    among them) in ``room`` cells: each column as wide as its widest cell,
    except that the title and the players share what the others leave: the
    title a third (at least 8 cells), the players the rest (at least 8), the
    title then what the players do not need."""
    labels = tuple(_COLUMNS[i] for i in shown)
    widths = [max(cell_len(cell) for cell in column) for column in zip(labels, *rows)]
    at_title, at_players = shown.index(_TITLE), shown.index(_PLAYERS)
    title, players = widths[at_title], widths[at_players]
    left = room - sum(widths) + title + players
    widths[at_title] = min(title, max(8, left // 3))
    widths[at_players] = min(players, max(8, left - widths[at_title]))
    widths[at_title] = min(title, max(widths[at_title], left - widths[at_players]))
    return widths


def _elide(text: str, width: int) -> Text:
    """``text`` in at most ``width`` cells, ending in "…" when cut."""
    cell = Text(text)
    cell.truncate(width, overflow="ellipsis")
    return cell


class LobbyScreen(Screen[None]):
    """The tables of one server: sit at one, create one, add bots, watch one.
    The arena's games (``Table.arena``), which can be many and nobody can
    join, are counted under the list and shown, after the others, on ``g``.

    Its widgets are kept as attributes, never looked up: a list that arrives
    while the lobby is being taken apart (you just sat down) draws on widgets
    no longer shown, harmlessly, instead of failing to find them."""

    BINDINGS = [
        Binding("enter", "sit", "Sit", priority=True),
        Binding("n", "new", "New table"),
        Binding("w", "watch", "Watch"),
        Binding("b", "add_bot", "Bot"),
        Binding("a", "arena", "Arena"),
        Binding("g", "arena_games", "Arena games"),
        Binding("i", "table_id", "Table id", show=False),
        Binding("r", "refresh", "Refresh", show=False),
        Binding("escape", "servers", "Servers", show=False),
        Binding("question_mark", "help", "Help"),
        Binding("q", "app.quit_now", "Quit"),
    ]

    def __init__(
        self, target: str, name: str, bot_delay: float = 0.0, prefs: Prefs | None = None
    ) -> None:
        """``name``: the player's, who sits down; ``bot_delay`` (seconds) and
        ``prefs``: the create-table form's."""
        super().__init__()
        self.target, self.player = target, name
        self.bot_delay, self.prefs = bot_delay, prefs
        self.listing: list[TableInfo] = []  #: every table of the server, as it sent them
        self.tables: list[TableInfo] = []  #: the tables listed, in the order of the rows
        self.arena_games = 0  #: the arena's tables the server has
        self.arena_shown = False  #: g: the arena's tables are listed (after the others)
        self.listed = False  #: a list came from the server at least once
        self.problem = ""  #: why the last refresh failed ("" when it did not)
        self.topbar = Static(id="topbar")
        self.grid: DataTable[Text] = DataTable(id="tables", cursor_type="row", zebra_stripes=True)
        self.status = Static(id="lobby-status", classes="hint")

    def compose(self) -> ComposeResult:
        yield self.topbar
        yield self.grid
        yield self.status
        yield Footer()

    def on_mount(self) -> None:
        top = Text(" UNO ", style="bold")
        top.append(f" lobby of {self.target}", style="bold")
        top.append(f" · you are {self.player}")
        self.topbar.update(top)
        self.grid.focus()
        self.show_status()
        self.action_refresh()
        self.set_interval(2.0, self.action_refresh)

    def action_refresh(self) -> None:
        """r: ask for the tables now (the list also refreshes every 2 s)."""
        self.refresh_tables()

    @work(exclusive=True, group="list")
    async def refresh_tables(self) -> None:
        """List the server's tables and show them."""
        try:
            tables = await host(self).connection(self.target).list_tables()
        except ServerError as err:
            self.problem = error_words(err, self.target)
            self.show_status()
            return
        self.problem = ""
        self.listed = True
        self.show(tables)

    def show(self, tables: list[TableInfo]) -> None:
        """Show ``tables`` (the arena's after the others, or only counted),
        keeping the highlighted table."""
        self.listing = tables
        arena = [t for t in tables if t.arena]
        had, self.arena_games = self.arena_games, len(arena)
        if bool(had) != bool(arena):
            self.refresh_bindings()  # g: in the footer while the arena has games
        tables = [t for t in tables if not t.arena] + (arena if self.arena_shown else [])
        current = self._current()
        self.tables = tables
        widget = self.grid
        keep = widget.cursor_row
        if current is not None:  # the same table, wherever its row is now
            keep = next((i for i, t in enumerate(tables) if t.table_id == current.table_id), keep)
        full = [self._row(t) for t in tables]
        shown = list(range(len(_COLUMNS)))
        for drop in _DROPPED_FIRST:  # a narrow terminal: no sideways scrolling
            room = self.size.width - 2 * widget.cell_padding * len(shown) - 2  # 2: a scrollbar
            widths = _widths([tuple(r[i] for i in shown) for r in full], room, shown)
            if sum(widths) <= room:
                break
            shown.remove(drop)
        rows = [tuple(r[i] for i in shown) for r in full]
        room = self.size.width - 2 * widget.cell_padding * len(shown) - 2
        widths = _widths(rows, room, shown)
        widget.clear(columns=True)
        for i, width in zip(shown, widths):
            widget.add_column(_COLUMNS[i], width=width)
        for t, row in zip(tables, rows):
            widget.add_row(
                *(_elide(cell, width) for cell, width in zip(row, widths)), key=t.table_id
            )
        if tables:
            widget.move_cursor(row=min(keep, len(tables) - 1))
        self.show_status()

    def show_status(self) -> None:
        """The line under the list: what the server has, or why it is out of
        reach; never "0 tables" before the server answered."""
        if self.problem:
            status = Text(self.problem, style="bold #ef5350")  # (a sentence, short: 80 columns)
            if self.listed:
                status.append(" (the list is the last one it gave)", style="dim")
        elif not self.listed:
            status = Text(f"Asking {self.target} for its tables…", style="italic")
        else:
            tables = [t for t in self.listing if not t.arena]
            waiting = sum(1 for t in tables if t.state == TableState.WAITING)
            status = Text(f"{plural(len(tables), 'table')}, {waiting} waiting")
            if self.arena_games:
                games = plural(self.arena_games, "arena game")
                status.append(f" · {games} {'listed last' if self.arena_shown else 'hidden'} (g)")
            current = self._current()
            if current is not None:
                status.append(f" · table id {current.table_id}", style="bold")
            keys = " · Enter sits · ? help" if current is not None else " · n creates one · ? help"
            if status.cell_len + cell_len(keys) <= self.size.width - 2:  # the footer has them too
                status.append(keys, style="dim")
        self.status.update(status)

    def _row(self, table: TableInfo) -> tuple[str, ...]:
        """The cells of ``table``'s row, in full."""
        taken = sum(1 for s in table.seats if s.occupied)
        state = state_text(table)
        if host(self).store.get(self.target, table.table_id, self.player):
            state += " (yours)"
        return (
            table.title,
            f"{taken}/{len(table.seats)}",
            players_text(table),
            rules_label(table.rules) + (f" · {SEEDED_NOTE}" if table.seeded else ""),
            f"{table.turn_seconds}s" if table.turn_seconds else "-",
            state,
        )

    def on_resize(self) -> None:
        self.show(self.listing)

    def on_data_table_row_highlighted(self) -> None:
        self.show_status()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """g (the arena's games) while the server has any."""
        if action == "arena_games":
            return self.arena_games > 0
        return True

    def _current(self) -> TableInfo | None:
        row = self.grid.cursor_row
        if not self.tables or row is None:
            return None
        return self.tables[row] if 0 <= row < len(self.tables) else None

    def action_arena_games(self) -> None:
        """g: list the arena's games (after the others), or only count them."""
        self.arena_shown = not self.arena_shown
        self.show(self.listing)

    def action_arena(self) -> None:
        """a: the standings of this server's arena."""
        self.app.push_screen(StandingsScreen(self.target))

    def action_help(self) -> None:
        """?: the lobby's keys and marks."""
        self.app.push_screen(HelpScreen(body=Text.from_markup(LOBBY_HELP), title="UNO — the lobby"))

    def action_table_id(self) -> None:
        """i: the highlighted table's id, as ``uno bot --table`` wants it."""
        table = self._current()
        if table is None:
            self.notify("No table yet: press n to create one", severity="warning")
            return
        show_table_id(self, self.target, table.table_id)

    def action_sit(self) -> None:
        """Enter: sit at the highlighted table, or take your seat there back."""
        table = self._current()
        if table is None:
            self.notify("No table yet: press n to create one", severity="warning")
            return
        self.sit(table.table_id)

    @work(exclusive=True, group="sit")
    async def sit(self, table_id: str, bots: int = 0, start: bool = False) -> None:
        """Take a seat (or the stored one back), seat ``bots``, start if asked."""
        conn = host(self).connection(self.target)
        name = self.player
        store = host(self).store
        token = store.get(self.target, table_id, name)
        listed = next((t for t in self.listing if t.table_id == table_id), None)
        if token is not None and listed is not None and listed.state is TableState.WAITING:
            seat = store.seat(self.target, table_id, name)
            held = seat is not None and 0 <= seat < len(listed.seats)
            if seat is None or not held or listed.seats[seat].name != name:  # freed: sit anew
                store.forget(self.target, table_id, name)
                token = None
        try:
            if token is None:
                joined = await conn.join_table(table_id, name)
                token = joined.seat_token
                store.put(self.target, table_id, name, token, joined.seat)
            for _ in range(bots):
                await conn.add_bot(table_id, "greedy", seat_token=token)
            if start:
                await conn.start_game(table_id, token)
        except ServerError as err:
            self.notify(error_words(err, self.target), title="Cannot sit there", severity="error")
            return
        self.post_message(ShowTable(Seating(self.target, table_id, token, name)))

    def action_new(self) -> None:
        """n: the create-table form."""
        self.app.push_screen(
            CreateTableScreen(self.target, self.bot_delay, self.prefs),
            self._created,
        )

    def _created(self, new: NewTable | None) -> None:
        """The form created a table: sit there, seat its bots, start once full."""
        if new is not None:
            full = new.bots == new.seats - 1
            self.sit(new.table.table_id, bots=new.bots, start=full)

    def action_add_bot(self) -> None:
        """b: a bot takes an empty seat at the highlighted table."""
        table = self._current()
        if table is not None:
            self.add_bot(table.table_id)

    @work(group="bot")
    async def add_bot(self, table_id: str) -> None:
        """Seat a greedy bot at ``table_id`` (with your seat's token there, if
        you sit at it: another's table takes bots only from its players)."""
        token = host(self).store.get(self.target, table_id, self.player) or ""
        try:
            await host(self).connection(self.target).add_bot(table_id, "greedy", seat_token=token)
        except ServerError as err:
            self.notify(error_words(err, self.target), title="Cannot add a bot", severity="error")
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
            self.post_message(ShowWatch(self.target, table.table_id))

    def action_servers(self) -> None:
        """Esc: the connect screen (other servers)."""
        self.post_message(ShowConnect(self.target))
