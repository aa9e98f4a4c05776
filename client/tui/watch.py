"""Watching a table: the table screen in read-only mode.

:class:`WatchScreen` is a :class:`TableScreen` fed by the server's spectator
stream (``GameService.Spectate``) instead of a seat's: every public event, the
players with their hand sizes, the pile, the scores and whose turn it is. It
has no hand and no keys to act; q or Esc goes back to the lobby.
"""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.binding import Binding
from textual.widgets import Static

from unoplay.game.messages import Welcome
from unoplay.game.view import Phase

from ..sdk import Received, SpectatorSession
from .prompts import HelpScreen, rules_help
from .table import Seating, TableScreen
from .widgets import HandView

WATCH_HELP = """\
[b]Watching[/b]
 You see what every player sees: the cards played, hand sizes,
 scores and whose turn it is, never anyone's cards.
 q or Esc  back to the lobby     ?       this help
 ctrl+q    quit at once
[b]Marks[/b]
 ▶ whose turn it is. "UNO!" called, "no UNO": that player can be
 caught.\
"""


class WatchHelpScreen(HelpScreen):
    """The help of the spectator view: the table's rules, then :data:`WATCH_HELP`
    in place of the player's keys."""

    def on_mount(self) -> None:
        body: Group | Text = Text.from_markup(WATCH_HELP)
        if self.rules is not None:
            body = Group(rules_help(self.rules), body)
        self.query_one("#help-body", Static).update(body)


class WatchScreen(TableScreen, inherit_bindings=False):
    """A table watched as a spectator: the table screen without a hand, its
    game keys gone (and its actions inert), a status line saying so."""

    BINDINGS = [
        Binding("q", "leave", "Lobby"),
        Binding("escape", "leave", "Lobby", show=False),
        Binding("question_mark", "help", "Help"),
    ]

    def __init__(self, target: str, table_id: str, name: str = "") -> None:
        super().__init__(Seating(target, table_id, token="", name=name))

    def on_mount(self) -> None:
        # Runs before TableScreen.on_mount (Textual calls both), which starts the stream.
        self.query_one(HandView).display = False

    def _can_act(self) -> bool:
        return False  # a click on the pile or a card does nothing either

    GONE = "This table is gone"

    def _open_session(self) -> SpectatorSession:
        """The table's spectator stream (its status shows while it reconnects)."""
        seating = self.seating
        assert seating is not None
        session = self.app.connection(seating.target).spectate(seating.table_id)
        session.on_status = lambda status: self._draw_status(self._last_seconds)
        return session

    def _forget_seat(self) -> None:
        pass  # a spectator holds no seat

    def handle(self, received: Received) -> None:
        """Apply one message of the spectator stream (see TableScreen.handle)."""
        if isinstance(received.message, Welcome):  # no seat to announce
            if self.is_attached:
                self.table = self.state.table
                self._draw_topbar()
            return
        super().handle(received)

    def _draw_status(self, seconds: int | None) -> None:
        if not self.is_attached:
            return
        view = self.state.view
        window = self._last_window = self._window_left()
        line = Text()
        line.append(" WATCHING ", style="bold #ffffff on #1565c0")
        line.append(" ")
        if self.failed:
            line.append(self.failed, style="bold #ef5350")
        elif self.session is not None and self.session.status == "reconnecting":
            line.append("Connection lost: reconnecting…", style="italic")
        elif view is None:
            seats = self._seats()
            taken = sum(1 for s in seats if s.occupied)
            line.append(f"Waiting for the game to start: {taken}/{len(seats)} seats taken")
        elif view.phase is Phase.GAME_OVER:
            winners = " and ".join(self.name_of(w) for w in view.game_winners)
            line.append(f"Game over: {winners} won", style="bold")
        elif view.phase is Phase.ROUND_OVER:
            line.append(f"Round over: {self.name_of(view.round_winner)} went out", style="bold")
        else:
            line.append(f"{self.name_of(view.current)}'s turn", style="bold")
            if seconds is not None:
                line.append(f"  {seconds}s left", style="dim")
        if window is not None:
            line.append(f"  ⏳ {window:.1f}s", style="dim")
        hint = Text(
            "You watch: hand sizes, never cards · q or Esc back to the lobby · ? help", style="dim"
        )
        self.query_one("#status", Static).update(line + Text("\n") + hint)

    def action_help(self) -> None:
        """?: the table's rules and the spectator's keys."""
        self.app.push_screen(WatchHelpScreen(self.rules))

    def action_leave(self) -> None:
        """Back to the lobby (the stream cancelled first, see ``_to_lobby``)."""
        self._to_lobby(self.seating.target)
