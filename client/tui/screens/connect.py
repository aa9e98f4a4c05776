"""The first screens: starting a local game, and picking a server (LAN or typed)."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from ...address import server_target
from ...discovery import Browser, FoundServer
from ...sdk import ServerError
from ..words import address_problem, error_words, plural
from .host import host

log = logging.getLogger("unoplay.tui")


class StartingScreen(Screen[None]):
    """Shown while the embedded server and table are being set up."""

    BINDINGS = [Binding("q", "app.quit_now", "Quit")]

    def __init__(self, message: str = "Starting a local game with bots…") -> None:
        super().__init__()
        self.message = message

    def compose(self) -> ComposeResult:
        yield Static(Text(self.message, style="bold"), id="starting")
        yield Footer()


class ConnectScreen(Screen[None]):
    """Pick a server: ones found on the LAN over mDNS, or an address typed in.

    Its widgets are kept as attributes, never looked up: the LAN browser calls
    back from outside the screen's life (before it is composed, while it is
    taken apart), and a lookup there fails (``No nodes match '#servers'``).

    The name typed goes with what is chosen: :class:`Connected` (a server
    that answered) or :class:`PlayLocally` (F2)."""

    @dataclass
    class Connected(Message):
        """``name`` reached the server ``target``: its lobby is next."""

        target: str
        name: str

    @dataclass
    class PlayLocally(Message):
        """``name`` plays a local game with bots."""

        name: str

    BINDINGS = [
        Binding("escape", "app.quit_now", "Quit"),
        Binding("f2", "local", "Play locally with bots"),
    ]

    def __init__(self, address: str = "", name: str = "") -> None:
        """``address``: typed in already; ``name``: the player's, to change."""
        super().__init__()
        self.address = address
        self.player = name
        self.browser: Browser | None = None
        self.found: list[FoundServer] = []
        self.name_input = Input(id="name", max_length=24)
        self.servers = OptionList(id="servers")
        self.lan_status = Static("Looking for servers…", id="lan-status", classes="hint")
        self.address_input = Input(
            value=address, placeholder="host:port, e.g. 192.168.1.20:50051", id="address"
        )

    def compose(self) -> ComposeResult:
        with Vertical(id="connect"):
            yield Static(
                Text(" UNO ", style="bold #ffffff on #c62828")
                + Text("  connect to a server", style="bold"),
                classes="title",
            )
            yield Label("Your name")
            self.name_input.value = self.player
            yield self.name_input
            yield Label("Servers on the LAN (↑/↓, Enter to connect)")
            yield self.servers
            yield self.lan_status
            yield Label("Or type an address")
            yield self.address_input
            yield Static(
                "Enter connects · Tab next field · F2 plays locally against bots · Esc quits",
                classes="hint",
            )
        yield Footer()

    def on_mount(self) -> None:
        # The address field, not the list: an empty list takes no keys, and what
        # you type must land where the address goes, never in the name.
        self.address_input.focus()
        self.browse()

    @work(exclusive=True, group="browse")
    async def browse(self) -> None:
        """Look for servers on the LAN (mDNS) while the screen is shown."""
        browser = self.browser = Browser(on_change=self._servers_changed)
        try:
            await browser.start()
        except Exception as err:
            log.warning("mDNS browsing failed: %s", err)
            self.browser = None
            await browser.close()
            self.lan_status.update(
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
        view = self.servers
        was = view.highlighted
        keep = self.found[was].target if was is not None and was < len(self.found) else None
        self.found = servers
        view.clear_options()
        view.add_options(
            [
                Option(Text(f"{server.name}  ({server.target})"), id=server.target)
                for server in servers
            ]
        )
        if servers:
            targets = [server.target for server in servers]
            view.highlighted = targets.index(keep) if keep in targets else 0
            if self.focused is self.address_input and not self.address_input.value:
                view.focus()  # nothing typed yet: Enter connects to what was found
        self.lan_status.update(
            f"{plural(len(servers), 'server')} found on the LAN"
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
        self.address_input.focus()

    def _take_name(self) -> bool:
        name = self.name_input.value.strip()
        if not name:
            self.notify("Type your name first", severity="warning")
            self.name_input.focus()
            return False
        self.player = name
        return True

    def _connect(self, target: str) -> None:
        if not target:
            self.notify("Type an address such as 192.168.1.20:50051", severity="warning")
            return
        if problem := address_problem(target):
            self.notify(problem, title="Cannot connect", severity="error")
            return
        target = server_target(target)  # HOST or [IPv6] alone: the default port
        if self._take_name():
            self.connect(target)

    @work(exclusive=True, group="connect")
    async def connect(self, target: str) -> None:
        """Reach ``target`` (its list of tables), then open its lobby."""
        self.notify(f"Connecting to {target}…", timeout=2)
        try:
            await host(self).connection(target).list_tables()
        except ServerError as err:
            await host(self).drop_connection(target)
            self.notify(error_words(err, target), title="Cannot connect", severity="error")
            return
        self.post_message(self.Connected(target, self.player))

    def action_local(self) -> None:
        """F2: a local game against bots."""
        if self._take_name():
            self.post_message(self.PlayLocally(self.player))
