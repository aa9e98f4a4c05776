"""The screens around the table: connect, lobby, final standings (the create-table
form is in :mod:`.create`)."""

from __future__ import annotations

import logging

from rich.cells import cell_len
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from unoplay.game.messages import TableInfo, TableState

from ..discovery import Browser, FoundServer
from ..sdk import ServerError
from .create import CreateTableScreen, NewTable
from .render import SEEDED_NOTE, rules_label
from .table import Seating

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


def _error_text(err: Exception) -> str:
    return str(err) or type(err).__name__


class StartingScreen(Screen):
    """Shown while the embedded server and table are being set up."""

    BINDINGS = [Binding("q", "app.quit_now", "Quit")]

    def __init__(self, message: str = "Starting a local game with bots…") -> None:
        super().__init__()
        self.message = message

    def compose(self) -> ComposeResult:
        yield Static(Text(self.message, style="bold"), id="starting")
        yield Footer()


class ConnectScreen(Screen):
    """Pick a server: ones found on the LAN over mDNS, or an address typed in."""

    BINDINGS = [
        Binding("escape", "app.quit_now", "Quit"),
        Binding("f2", "local", "Play locally with bots"),
    ]

    def __init__(self, address: str = "") -> None:
        super().__init__()
        self.address = address
        self.browser: Browser | None = None
        self.found: list[FoundServer] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="connect"):
            yield Static(
                Text(" UNO ", style="bold #ffffff on #c62828")
                + Text("  connect to a server", style="bold"),
                classes="title",
            )
            yield Label("Your name")
            yield Input(value=self.app.options.name, id="name", max_length=24)
            yield Label("Servers on the LAN (↑/↓, Enter to connect)")
            yield OptionList(id="servers")
            yield Static("Looking for servers…", id="lan-status", classes="hint")
            yield Label("Or type an address")
            yield Input(
                value=self.address, placeholder="host:port, e.g. 192.168.1.20:50051", id="address"
            )
            yield Static(
                "Enter connects · F2 plays locally against bots · Esc quits", classes="hint"
            )
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#address" if self.address else "#servers").focus()
        self.browse()

    @work(exclusive=True, group="browse")
    async def browse(self) -> None:
        browser = self.browser = Browser(on_change=self._servers_changed)
        try:
            await browser.start()
        except Exception as err:
            log.warning("mDNS browsing failed: %s", err)
            self.browser = None
            await browser.close()
            self.query_one("#lan-status", Static).update(
                f"LAN browsing is unavailable here ({err}); type an address below."
            )

    async def on_unmount(self) -> None:
        browser, self.browser = self.browser, None
        if browser is not None:
            await browser.close()

    def _servers_changed(self) -> None:
        if not self.is_attached:
            return
        servers = sorted(
            self.browser.servers.values() if self.browser else [], key=lambda s: s.name
        )
        view = self.query_one("#servers", OptionList)
        was = view.highlighted
        keep = self.found[was].target if was is not None and was < len(self.found) else None
        self.found = servers
        view.clear_options()
        view.add_options(
            [Option(f"{server.name}  ({server.target})", id=server.target) for server in servers]
        )
        if servers:
            targets = [server.target for server in servers]
            view.highlighted = targets.index(keep) if keep in targets else 0
        status = self.query_one("#lan-status", Static)
        status.update(
            f"{len(servers)} server{'s' if len(servers) != 1 else ''} found on the LAN"
            if servers
            else "Looking for servers…"
        )

    @on(OptionList.OptionSelected, "#servers")
    def _picked(self, event: OptionList.OptionSelected) -> None:
        if event.option.id:
            self._connect(event.option.id)  # the target, whatever the list did meanwhile

    @on(Input.Submitted, "#address")
    def _typed(self, event: Input.Submitted) -> None:
        self._connect(event.value.strip())

    @on(Input.Submitted, "#name")
    def _named(self) -> None:
        self.query_one("#address", Input).focus()

    def _take_name(self) -> bool:
        name = self.query_one("#name", Input).value.strip()
        if not name:
            self.notify("Type your name first", severity="warning")
            self.query_one("#name", Input).focus()
            return False
        self.app.options.name = name
        return True

    def _connect(self, target: str) -> None:
        if not target:
            self.notify("Type an address such as 192.168.1.20:50051", severity="warning")
            return
        if ":" not in target:
            target += ":50051"
        if self._take_name():
            self.connect(target)

    @work(exclusive=True, group="connect")
    async def connect(self, target: str) -> None:
        self.notify(f"Connecting to {target}…", timeout=2)
        try:
            await self.app.connection(target).list_tables()
        except ServerError as err:
            await self.app.drop_connection(target)
            self.notify(f"Cannot reach {target}: {_error_text(err)}", severity="error")
            return
        self.app.show_lobby(target)

    def action_local(self) -> None:
        if self._take_name():
            self.app.start_embedded()


class LobbyScreen(Screen):
    """The tables of one server: sit at one, create one, add bots."""

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
                    Text(f"Cannot reach {self.target}: {_error_text(err)}", style="bold #ef5350")
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
            self.notify(_error_text(err), title="Cannot sit there", severity="error")
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
            self.notify(_error_text(err), title="Cannot add a bot", severity="error")
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


class FinalScreen(Screen):
    """The final standings of a game."""

    BINDINGS = [
        Binding("n", "again", "New game"),
        Binding("l", "lobby", "Lobby"),
        Binding("escape", "back", "Back to the table"),
        Binding("q", "app.quit_now", "Quit"),
    ]

    def __init__(
        self,
        names: list[str],
        scores: list[int],
        winners: list[int],
        lowest_wins: bool,
        embedded: bool,
        target: str = "",
    ) -> None:
        super().__init__()
        self.names, self.scores, self.winners = names, scores, winners
        self.lowest_wins, self.embedded, self.target = lowest_wins, embedded, target

    def compose(self) -> ComposeResult:
        winners = " and ".join(self.names[w] for w in self.winners) or "nobody"
        title = Text(" GAME OVER ", style="bold #1a1a1a on #f4c20d")
        title.append(f"  {winners} won the game!", style="bold")
        with Vertical(id="final"):
            yield Static(title, classes="title")
            yield DataTable(id="standings", cursor_type="none", zebra_stripes=True)
            hint = (
                "n new game · Esc look at the table · q quit"
                if self.embedded
                else "l back to the lobby · Esc look at the table · q quit"
            )
            yield Static(hint, classes="hint")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("Place", "Player", "Score")
        order = sorted(
            range(len(self.scores)),
            key=lambda i: self.scores[i] if self.lowest_wins else -self.scores[i],
        )
        place = 0
        last = None
        for rank, i in enumerate(order, 1):
            if self.scores[i] != last:
                place, last = rank, self.scores[i]
            mark = " ★" if i in self.winners else ""
            table.add_row(str(place), self.names[i] + mark, str(self.scores[i]), key=str(i))

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "again":
            return self.embedded
        if action == "lobby":
            return not self.embedded
        return True

    def standings(self) -> dict[str, int]:
        """Player name -> score as shown (for tests)."""
        table = self.query_one(DataTable)
        shown = {}
        for row in range(table.row_count):
            _, name, score = table.get_row_at(row)
            shown[str(name).removesuffix(" ★")] = int(str(score))
        return shown

    def action_again(self) -> None:
        if self.embedded:
            self.app.start_embedded()

    def action_lobby(self) -> None:
        if not self.embedded and self.target:
            self.app.show_lobby(self.target)

    def action_back(self) -> None:
        if self.is_attached and self.app.screen is self:
            self.dismiss(None)
