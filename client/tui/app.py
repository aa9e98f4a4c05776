"""The Textual app behind ``uno play``.

* ``uno play``: starts an embedded server on loopback (same process, same
  event loop), seats you with greedy bots and opens the table.
* ``uno play --server HOST:PORT``: the lobby of a LAN server; with
  ``--new-table``, a table of its own there with bots, straight away (what
  each browser tab of ``uno web`` runs against its shared server).
* ``uno play --lan``: the connect screen (servers found over mDNS, or an address).

Logging goes to a file in the data directory, never to the terminal (gRPC's
own C-core logging is turned off by ``uno``'s ``main`` before grpc is imported).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import getpass
import logging
import os
import signal
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import App
from textual.binding import Binding
from textual.notifications import SeverityLevel
from textual.screen import ModalScreen, Screen

from unoplay.game.messages import TableInfo
from unoplay.game.rules import RuleError, RuleSet, parse_rule, preset

from ..sdk import TAB_TAG_ENV, Connection, ServerError
from .model import FinalResult
from .screens import (
    ConnectScreen,
    FinalScreen,
    GameScreen,
    LobbyScreen,
    Seating,
    StartingScreen,
    WatchScreen,
)
from .screens.host import (
    Host,
    NewGame,
    ShowConnect,
    ShowFinal,
    ShowLobby,
    ShowTable,
    ShowWatch,
)
from .screens.prompts import QuitPrompt
from .seats import MemorySeatStore, Prefs, SeatStore, data_dir
from .words import address_problem, plural

if TYPE_CHECKING:
    from unoplay.server.service import Server

log = logging.getLogger("unoplay.tui")


@dataclass
class PlayOptions:
    """What ``uno play`` was asked to do."""

    server: str = ""
    lan: bool = False
    name: str = ""
    bots: int = 3
    rules_name: str = "official"
    target: int | None = None  #: target score; None: the preset's
    rule_options: dict[str, Any] = field(default_factory=dict)  #: --rule NAME=VALUE
    turn_seconds: int = 0
    bot_delay: float = 0.6
    seed: int | None = None
    new_table: bool = False  #: with ``server``: create a table with bots there and sit

    def rule_changes(self) -> dict[str, Any]:
        """The options to ask the server for over the preset: the ``--rule``
        options and the target if given."""
        options = dict(self.rule_options)
        if self.target is not None:
            options["target_score"] = self.target
        return options

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> PlayOptions:
        """Options from the ``uno play`` arguments. Raises SystemExit on bad values."""
        given = getattr(args, "name", None)
        if given is not None and not given.strip():
            raise SystemExit("uno play: --name must not be empty")
        name = (given or _default_name()).strip()[:24]
        rules_name = getattr(args, "rules", "official") or "official"
        target = getattr(args, "target", None)
        try:
            options = dict(parse_rule(text) for text in getattr(args, "rule", None) or [])
            checked = options if target is None else {**options, "target_score": target}
            rules = RuleSet.from_dict(checked, base=preset(rules_name))
        except RuleError as err:
            raise SystemExit(f"uno play: {err}") from None
        bots = getattr(args, "bots", 3)
        if not 1 <= bots <= 9:
            raise SystemExit("uno play: --bots must be 1..9")
        new_table = bool(getattr(args, "new_table", False))
        if new_table or (not getattr(args, "server", "") and not getattr(args, "lan", False)):
            try:  # the embedded table (or --new-table's): you and the bots
                rules.check_players(bots + 1)
            except RuleError as err:
                raise SystemExit(f"uno play: {err} (--bots {bots} makes {bots + 1})") from None
        server = getattr(args, "server", "") or ""
        if address_problem(server):
            raise SystemExit(f"uno play: --server {address_problem(server)}")
        turn = getattr(args, "turn_seconds", 0) or 0
        if not 0 <= turn <= 3600:
            raise SystemExit("uno play: --turn-seconds must be 0..3600")
        return cls(
            server=server,
            lan=getattr(args, "lan", False),
            name=name or "player",
            bots=bots,
            rules_name=rules_name,
            target=target,
            rule_options=options,
            turn_seconds=turn,
            bot_delay=getattr(args, "bot_delay", 0.6),
            seed=getattr(args, "seed", None),
            new_table=new_table,
        )


def _default_name() -> str:
    try:
        return getpass.getuser()
    except Exception:
        return "player"


class UnoApp(App[None]):
    """UNO in the terminal. Its screens never import it: they reach it through
    :class:`~.screens.host.Host` and say where to go next with the messages of
    :mod:`.screens.host`, handled here."""

    CSS_PATH = "uno.tcss"
    TITLE = "UNO"
    ENABLE_COMMAND_PALETTE = False
    NOTIFICATION_TIMEOUT = 3  #: seconds a notification stays unless it says otherwise
    BINDINGS = [
        Binding("ctrl+q", "quit_now", "Quit", show=False, priority=True),
        Binding("ctrl+c", "interrupt", "Quit", show=False, priority=True),
    ]

    def __init__(
        self, options: PlayOptions, store: SeatStore | None = None, prefs: Prefs | None = None
    ) -> None:
        super().__init__()
        self.options = options
        self.store = store or SeatStore()
        # uno web's tabs (a store in memory) keep their preferences in memory too
        self.prefs = prefs or Prefs(memory=isinstance(self.store, MemorySeatStore))
        self.server: Server | None = None  # the embedded server, if any
        self.connections: dict[str, Connection] = {}
        self.embedded_table = ""

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """A notification, always as literal text: what it says may carry a
        name, a title or an address someone typed (``markup`` is ignored)."""
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    # ------------------------------------------------------------- connections

    def connection(self, target: str) -> Connection:
        """The connection to ``target``, made on first use (inside the running loop)."""
        conn = self.connections.get(target)
        if conn is None:
            # A uno web tab's session: its tag makes it a client of its own to
            # the game server beside the web server (unoplay.channel).
            tag = os.environ.get(TAB_TAG_ENV)
            conn = self.connections[target] = Connection(target, timeout=5.0, tab_tag=tag)
        return conn

    async def table_now(self, target: str, table_id: str) -> TableInfo | None:
        """The table as the lobby at ``target`` lists it now; None when it is
        gone or the server cannot be reached (a refresh that can wait)."""
        try:
            return await self.connection(target).find_table(table_id)
        except ServerError:
            return None

    async def drop_connection(self, target: str) -> None:
        """Close the connection to ``target`` (made again on next use)."""
        conn = self.connections.pop(target, None)
        if conn is not None:
            await conn.close()

    # ------------------------------------------------------------- screens

    def on_mount(self) -> None:
        loop = asyncio.get_running_loop()
        hangup = getattr(signal, "SIGHUP", signal.SIGTERM)  # (Windows has none)
        for stop in {signal.SIGTERM, hangup}:  # a kill, the terminal closed: quit as
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                # ctrl+q does (the terminal given back as it was), status 128 + the signal
                loop.add_signal_handler(
                    stop, functools.partial(self.call_later, self.quit_now, 128 + stop)
                )
        if self.options.server and not self.options.new_table:
            self.show_lobby(self.options.server)
        elif self.options.lan:
            self.show_connect("")
        else:
            self.start_embedded()

    def _show(self, screen: Screen[Any]) -> None:
        """Make ``screen`` the main screen, closing modals and the previous one."""

        async def swap() -> None:
            while len(self.screen_stack) > 2:
                await self.pop_screen()
            if len(self.screen_stack) == 2:
                await self.switch_screen(screen)
            else:
                await self.push_screen(screen)

        self.call_later(swap)

    def show_connect(self, address: str) -> None:
        """The connect screen (``address`` typed in already)."""
        self._show(ConnectScreen(address, self.options.name))

    def show_lobby(self, target: str) -> None:
        """The lobby of ``target``."""
        options = self.options
        self._show(LobbyScreen(target, options.name, options.bot_delay, self.prefs))

    def show_table(self, seating: Seating) -> None:
        """Sit at a table: the game screen of ``seating``."""
        self._show(GameScreen(seating))

    def show_watch(self, target: str, table_id: str, last_seq: int = 0) -> None:
        """Watch ``table_id`` on ``target`` as a spectator (``last_seq``: go on
        after that message of the table's stream, into its next game)."""
        self._show(WatchScreen(target, table_id, self.options.name, last_seq=last_seq))

    def show_final(
        self,
        result: FinalResult,
        embedded: bool,
        target: str = "",
        seating: Seating | None = None,
        last_seq: int = 0,
        table_id: str = "",
    ) -> None:
        """Push the final standings over the table screen (Escape goes back to
        it); with ``seating`` (a player's) they offer to play again, with
        ``table_id`` (a spectator's) they show the votes to."""

        async def push() -> None:
            while isinstance(self.screen, ModalScreen):
                await self.pop_screen()
            final = FinalScreen(result, embedded, target, seating, last_seq, table_id)
            await self.push_screen(final)

        self.call_later(push)

    # ------------------------------------------------------------- what the screens ask
    # (the messages of .screens.host, and the connect screen's own)

    def on_show_connect(self, message: ShowConnect) -> None:
        self.show_connect(message.address)

    def on_show_lobby(self, message: ShowLobby) -> None:
        self.show_lobby(message.target)

    def on_show_table(self, message: ShowTable) -> None:
        self.show_table(message.seating)

    def on_show_watch(self, message: ShowWatch) -> None:
        self.show_watch(message.target, message.table_id, message.last_seq)

    def on_show_final(self, message: ShowFinal) -> None:
        self.show_final(
            message.result,
            message.embedded,
            message.target,
            message.seating,
            message.last_seq,
            message.table_id,
        )

    def on_new_game(self, message: NewGame) -> None:
        self.start_embedded()

    def on_connect_screen_connected(self, message: ConnectScreen.Connected) -> None:
        self.options.name = message.name
        self.show_lobby(message.target)

    def on_connect_screen_play_locally(self, message: ConnectScreen.PlayLocally) -> None:
        self.options.name = message.name
        self.start_embedded()

    # ------------------------------------------------------------- embedded game

    @work(exclusive=True, group="embedded")
    async def start_embedded(self) -> None:
        """Start (once) a loopback server, create a table with bots, start it, sit.
        With ``--server`` (``--new-table``) the table is made on that server."""
        from unoplay.server.service import start_server

        options = self.options
        self._show(StartingScreen())
        try:
            if options.server:
                target = options.server
            else:
                if self.server is None:
                    self.server = await start_server("127.0.0.1", 0)
                target = self.server.address
            conn = self.connection(target)
            bots = options.bots
            table = await conn.create_table(
                seats=bots + 1,
                preset=options.rules_name,
                options=options.rule_changes(),
                title=f"{options.name} vs {plural(bots, 'bot')}",
                turn_seconds=options.turn_seconds,
                bot_delay=options.bot_delay,
                seed=options.seed,
            )
            joined = await conn.join_table(table.table_id, options.name)
            if options.server:  # a seat on another server: kept, as the lobby keeps its seats
                self.store.put(target, table.table_id, options.name, joined.seat_token, joined.seat)
            for _ in range(bots):
                await conn.add_bot(table.table_id, "greedy", seat_token=joined.seat_token)
            await conn.start_game(table.table_id, joined.seat_token)
        except (ServerError, RuntimeError, OSError) as err:
            log.exception("embedded game failed")
            detail = str(err)
            where = f"a table on {options.server}" if options.server else "a local game"
            self.call_later(self._fail, f"uno play: could not start {where}: {detail}")
            return
        self.embedded_table = table.table_id
        self.show_table(
            Seating(
                target,
                table.table_id,
                joined.seat_token,
                options.name,
                embedded=True,
                remote=bool(options.server),
            )
        )

    async def _fail(self, message: str) -> None:
        """Leave with ``message`` and exit status 1 (outside the failed worker,
        which :meth:`shutdown` would otherwise cancel mid-way)."""
        await self.shutdown()
        self.exit(return_code=1, message=message)

    # ------------------------------------------------------------- quitting

    async def action_quit(self) -> None:
        """Quit (as ctrl+q)."""
        await self.action_quit_now()

    async def action_interrupt(self) -> None:
        """Ctrl+C: quit; in the middle of a game, ask once first (a second
        Ctrl+C, on the question, quits)."""
        if not isinstance(self.screen, QuitPrompt):
            for screen in self.screen_stack:
                if isinstance(screen, GameScreen) and screen.mid_game:
                    screen.action_leave()
                    return
        await self.action_quit_now()

    async def action_quit_now(self) -> None:
        """Quit at once: the seat stays (LAN) and the embedded server stops."""
        await self.quit_now()

    async def quit_now(self, status: int = 0) -> None:
        """Quit at once, as :meth:`action_quit_now`, with exit ``status``."""
        await self.shutdown()
        self.exit(return_code=status)

    async def shutdown(self) -> None:
        """Close streams, channels and the embedded server; seats whose
        tokens live in this process only are given up first."""
        if isinstance(self.store, MemorySeatStore):
            await self._leave_held_seats()
        for screen in self.screen_stack:
            if isinstance(screen, (GameScreen, WatchScreen)) and screen.session is not None:
                await screen.session.close()
            if isinstance(screen, ConnectScreen) and screen.browser is not None:
                browser, screen.browser = screen.browser, None
                await browser.close()
        self.workers.cancel_all()
        for target in list(self.connections):
            await self.drop_connection(target)
        if self.server is not None:
            server, self.server = self.server, None
            await server.stop(None)

    async def _leave_held_seats(self) -> None:
        """``--memory-seats`` (a ``uno web`` tab): a seat this process holds
        can never be taken back once it quits, so it is given up (a stand-in
        bot plays it in a game; a waiting table frees it), and a closed tab
        leaves no table waiting for it. Two seconds at most a seat."""
        assert isinstance(self.store, MemorySeatStore)
        for server, table_id, name, token in self.store.held():
            self.store.forget(server, table_id, name)
            try:
                async with asyncio.timeout(2.0):
                    await self.connection(server).leave_table(table_id, token)
            except (ServerError, RuntimeError, OSError, TimeoutError):
                log.info("could not give up a seat at table %s", table_id)

    async def on_exit_app(self) -> None:
        """However the app is told to exit (ctrl+q, a ``uno web`` tab that
        closed, SIGTERM), seats held in memory only are given up first, a
        table being made for this app (``start_embedded``) made first, so that
        its seat is one of them (two seconds at most)."""
        if isinstance(self.store, MemorySeatStore):
            for worker in self.workers:
                if worker.group == "embedded" and not worker.is_finished:
                    with contextlib.suppress(Exception):
                        async with asyncio.timeout(2.0):
                            await worker.wait()
            await self._leave_held_seats()


#: What the screens ask of the app (their door, screens/host.py): mypy checks
#: here that UnoApp keeps it, since no screen names UnoApp.
_DOOR: type[Host] = UnoApp


def setup_logging(verbose: bool = False) -> str:
    """Send every log record to a file (never the terminal); returns its path."""
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    handler: logging.Handler
    try:
        path = str(data_dir() / "tui.log")
        handler = logging.FileHandler(path, encoding="utf-8")
    except OSError:
        path, handler = "", logging.NullHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    logging.captureWarnings(True)
    return path


def _quit_when(app: UnoApp, gone: Callable[[], bool], why: str) -> None:
    """Quit ``app`` (its seat stays, as with ctrl+q) once ``gone()``, asked
    every second on a thread of its own: for when nobody can see the app any
    more and nothing else would stop it."""
    import threading
    import time

    def watch() -> None:
        while not gone():
            time.sleep(1.0)
        log.info("%s: quitting", why)
        try:
            app.call_from_thread(lambda: app.call_later(app.action_quit_now))
        except RuntimeError:  # the app is not running (any more)
            pass

    threading.Thread(target=watch, name="quit-watch", daemon=True).start()


def run(args: argparse.Namespace) -> int:
    """Run ``uno play``; returns the process exit code."""
    options = PlayOptions.from_args(args)
    setup_logging(getattr(args, "verbose", False))
    # uno web's sessions: every browser tab is a process on the web server's
    # machine, and a shared seats.json would let one browser take another's seat.
    store = MemorySeatStore() if getattr(args, "memory_seats", False) else None
    app = UnoApp(options, store)
    if "web_driver" in os.environ.get("TEXTUAL_DRIVER", ""):
        # Served to a browser (textual-serve's driver, uno web): the driver only
        # stops reading at the end of its stdin, and the app would play on,
        # unseen, for ever once the web server is gone.
        parent = os.getppid()
        _quit_when(app, lambda: os.getppid() != parent, "the web server is gone")
    elif os.isatty(0):
        # A terminal closed under a parent that does not pass its hang-up on
        # (`make play` in a window that is closed): Textual's input thread then
        # spins on the dead terminal at most of a core, for ever.
        _quit_when(app, lambda: not os.isatty(0), "the terminal is gone")
    app.run()
    return app.return_code or 0
