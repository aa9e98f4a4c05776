"""Watching a table: the table board in read-only mode.

:class:`WatchScreen` composes the same :class:`~..widgets.TableBoard` as the
player's screen, fed by the server's spectator stream (``GameService.Spectate``):
every public event, the players with their hand sizes, the pile, the scores
and whose turn it is. It has no hand and no keys to act; q or Esc goes back
to the lobby. Once the game is over it looks at the table now and then, and
follows it into its next game (a rematch).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Footer

from unoplay.game.deals import DealReveal
from unoplay.game.events import Event
from unoplay.game.messages import SeatsChanged, TableState, Update, Welcome
from unoplay.game.rules import RuleSet
from unoplay.game.view import Phase

from ...sdk import Received, SeatGone, ServerError, SpectatorSession, TableNotFound
from ..model import Role, TableModel
from ..widgets import TableBoard
from .game import BoardScreen, log_deal_check, push_round_result
from .host import ShowFinal, ShowLobby, ShowWatch, host
from .prompts import HelpScreen

log = logging.getLogger("unoplay.tui")

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

    def __init__(self, rules: RuleSet | None = None) -> None:
        super().__init__(rules, body=Text.from_markup(WATCH_HELP))


class WatchScreen(BoardScreen):
    """A table watched as a spectator: the table board without a hand, no
    game keys, a status line saying so."""

    BINDINGS = [
        Binding("q", "leave", "Lobby"),
        Binding("escape", "leave", "Lobby", show=False),
        Binding("question_mark", "help", "Help"),
    ]

    #: What the status line says when the server no longer knows the table.
    GONE = "This table is gone"
    #: Seconds between two looks at the table once its game is over (a rematch?).
    REMATCH_POLL_SECONDS = 1.5

    def __init__(
        self,
        target: str,
        table_id: str,
        name: str = "",
        clock: Callable[[], float] = time.time,
        last_seq: int = 0,
    ) -> None:
        """``last_seq``: the table's stream resumes after that message (the
        next game of a table watched to the end of one)."""
        super().__init__()
        self.target, self.table_id, self.viewer = target, table_id, name
        self.last_seq = last_seq
        self._following = False  # on the way into the table's next game
        self.model = TableModel(role=Role.SPECTATOR, clock=clock)
        self.board = TableBoard(hand=False)
        self.session: SpectatorSession | None = None
        self._final_shown = False
        self._results_round = 0
        self._last_status: tuple[int | None, float | None] = (None, None)

    def compose(self) -> ComposeResult:
        yield self.board
        yield Footer()

    def on_mount(self) -> None:
        self.redraw()
        self.set_interval(0.1, self._tick)
        self.stream()

    def redraw(self) -> None:
        """Redraw every widget from the model."""
        if self.is_attached:
            self._last_status = (self.model.seconds_left(), self.model.window_left())
            self.board.draw(self.model, self.target)

    def _tick(self) -> None:
        if not self.is_attached:
            return
        now = (self.model.seconds_left(), self.model.window_left())
        if now != self._last_status:
            self._last_status = now
            self.board.draw_status(self.model)

    @work(exclusive=True, group="stream")
    async def stream(self) -> None:
        """Read the table's spectator stream until the game is over."""
        conn = host(self).connection(self.target)
        self.session = session = conn.spectate(self.table_id, last_seq=self.last_seq)
        session.on_status = self.connection_status
        self.model.state = session.state
        try:
            async for received in session:
                self.handle(received)
        except ServerError as err:
            log.info("spectator stream ended: %s %s", err.status, err)
            gone = isinstance(err, (SeatGone, TableNotFound))
            self.stream_failed(f"{self.GONE}: {err}" if gone else f"Connection lost: {err}")
            return
        self.model.finished = True
        if self.state.interrupted:
            self.stream_failed(self.INTERRUPTED)
            return
        self.redraw()
        if self.state.game_over:
            self.set_interval(self.REMATCH_POLL_SECONDS, self._look_for_next_game)

    @work(exclusive=True, group="poll")
    async def _look_for_next_game(self) -> None:
        """The game is over: once the table has begun its next one (a rematch),
        watch that, the stream going on where this one ended."""
        table = await host(self).table_now(self.target, self.table_id)
        watched = self.model.table.games if self.model.table is not None else 0
        if (
            table is None
            or table.games <= watched
            or table.state is TableState.WAITING
            or self._following
            or not self.is_attached
        ):
            return
        self._following = True
        last_seq = self.session.last_seq if self.session is not None else 0
        self.post_message(ShowWatch(self.target, self.table_id, last_seq=last_seq))

    def handle(self, received: Received) -> None:
        """Apply one message of the spectator stream (already tracked in ``state``)."""
        if not self.is_attached:
            return
        model, board = self.model, self.board
        message = received.message
        if isinstance(message, Welcome):  # no seat to announce
            model.table = self.state.table
            board.draw_top(model, self.target)
        elif isinstance(message, Event):
            board.write_log(model)
        elif isinstance(message, SeatsChanged):
            self.redraw()
        elif isinstance(message, DealReveal):
            log_deal_check(board, self.state, self.notify)
        elif isinstance(message, Update):
            self.redraw()
            view = model.view
            if view is not None and view.phase is Phase.GAME_OVER and not self._final_shown:
                self._final_shown = True
                self.post_message(
                    ShowFinal(
                        model.final_result(),
                        embedded=False,
                        target=self.target,
                        table_id=self.table_id,
                    )
                )
            self._results_round = push_round_result(self.app, model, self._results_round)

    def action_help(self) -> None:
        """?: the table's rules and the spectator's keys."""
        self.app.push_screen(WatchHelpScreen(self.model.rules))

    def action_leave(self) -> None:
        """Back to the lobby (the stream cancelled first: it must not draw on
        this screen while Textual takes it apart)."""
        self.workers.cancel_group(self, "stream")
        self.post_message(ShowLobby(self.target))
