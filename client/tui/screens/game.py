"""The game screen: one seat's game, drawn from the last view the server sent.

Every decision comes from the legal actions in the last update: a card is
marked playable only when the server lists a play of it, a prompt opens only
when the server offers its choices, and an intent is always an element of
that list (:class:`~..model.TableModel` decides which). Network I/O (the game
stream, sends, lobby calls) runs in Textual workers on the app's event loop.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from rich.text import Text
from textual import events, on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer

from unoplay.game.actions import Action, ActionKind
from unoplay.game.deals import DealReveal
from unoplay.game.events import Event
from unoplay.game.messages import Refusal, SeatsChanged, TableInfo, Update, Welcome
from unoplay.game.view import Phase

from ...sdk import GameSession, Received, SeatGone, ServerError, SessionState, TableNotFound
from ..model import (
    HAND_ORDERS,
    AskColour,
    AskTarget,
    Notice,
    PlayRequest,
    PromptKind,
    Refuse,
    Reopen,
    Resolution,
    Send,
    TableModel,
)
from ..widgets import HandView, PileView, TableBoard
from .host import Seating, ShowFinal, ShowLobby, host, show_table_id
from .prompts import (
    ColourPrompt,
    DrawnChoice,
    DrawnPrompt,
    HelpScreen,
    PenaltyChoice,
    PenaltyPrompt,
    Prompt,
    QuitChoice,
    QuitPrompt,
    RoundResultScreen,
    TargetPrompt,
)

log = logging.getLogger("unoplay.tui")

#: The key of the hand's order in the app's Prefs.
HAND_ORDER = "hand_order"
#: The narrowest terminal (columns) whose footer keeps its padding.
WIDE_FOOTER = 60

PLAY, DRAW, KEEP = ActionKind.PLAY, ActionKind.DRAW, ActionKind.KEEP
CHALLENGE, ACCEPT = ActionKind.CHALLENGE, ActionKind.ACCEPT


def log_deal_check(board: TableBoard, state: SessionState, notify: Callable[..., None]) -> None:
    """The seed is revealed: say in the log whether every card seen was the seed's."""
    check = state.deal_check()
    if check is None:
        board.game_log.add(
            Text("The deal's seed is revealed (uno verify checks a stored game).", style="dim")
        )
    elif check.fair:
        board.game_log.add(
            Text(
                f"✓ Deals verified: the {check.checked} cards you saw are exactly "
                "those of the seed committed to at the start.",
                style="#66bb6a",
            )
        )
    else:
        board.game_log.add(
            Text(f"✗ The deals do not match the seed: {check.problems[0]}", style="bold #ef5350")
        )
        notify(check.problems[0], title="Unfair deal", severity="error", timeout=30)


def push_round_result(app: App[Any], model: TableModel, shown: int, moves: bool = False) -> int:
    """At a round's end, push its results (once: ``shown`` is the round whose
    results were pushed last); once the next round is under way, move them
    aside (at once when it wants a move: ``moves``), and then hold the keys
    that closed them for a moment. Returns the round shown now."""
    view = model.view
    if view is None:
        return shown
    if view.phase is not Phase.ROUND_OVER:
        if view.round_number > shown and isinstance(app.screen, RoundResultScreen):
            app.screen.step_aside(at_once=moves)
        return shown
    if shown == view.round_number:
        return shown
    if isinstance(app.screen, RoundResultScreen):
        app.screen.answer()  # an older round's results, still open

    def closed(stepped_aside: bool | None) -> None:
        if stepped_aside:  # an Enter on its way to the box must not play a card
            model.hold_keys(RoundResultScreen.KEY_HOLD_SECONDS)

    app.push_screen(RoundResultScreen(model.round_result()), closed)
    return view.round_number


class BoardScreen(Screen[None]):
    """A screen drawn from a :class:`TableModel` (``self.model``): a seat's
    (:class:`GameScreen`) or a spectator's (``WatchScreen``). The model's facts
    both read are here once."""

    model: TableModel

    @property
    def state(self) -> SessionState:
        """What the server sent so far."""
        return self.model.state

    @property
    def table(self) -> TableInfo | None:
        """The table, once known."""
        return self.model.table

    @property
    def sending(self) -> bool:
        """True while an intent waits for the server's answer (never for a spectator)."""
        return self.model.sending

    @property
    def finished(self) -> bool:
        """True once the stream ended."""
        return self.model.finished

    #: What the status line says when the server stopped in the middle of the game.
    INTERRUPTED = "The server stopped: this game was interrupted"

    def redraw(self) -> None:
        """Redraw every widget from the model."""
        raise NotImplementedError

    def close_modals(self) -> None:
        """Close every box over this screen (a prompt, the round's results, the
        help): nothing in them can be answered any more."""
        app = self.app
        while (
            self.is_attached
            and app.screen is not self
            and isinstance(app.screen, ModalScreen)
            and self in app.screen_stack
        ):
            app.screen.dismiss(None)

    def connection_status(self, status: str) -> None:
        """The stream's status changed (``GameSession.on_status``): while it is
        "reconnecting" (or "restarting": the server said it restarts, and the
        same game comes back) the screen says so and offers no move."""
        self.model.reconnecting = status in ("reconnecting", "restarting")
        self.model.restarting = status == "restarting"
        self.redraw()

    def stream_failed(self, why: str) -> None:
        """The stream ended for good before the game was over (``why``): say so,
        close every box over the table and so leave its keys (q) working."""
        self.model.failed = why
        self.close_modals()
        self.notify(why, severity="error", timeout=8)
        self.redraw()


class GameScreen(BoardScreen):
    """A seat at a table. With a :class:`Seating` it streams the game; without
    one it only shows ``state`` (for snapshots and screenshots)."""

    BINDINGS = [
        Binding("left", "move(-1)", "◀", show=False),
        Binding("right", "move(1)", "▶", show=False),
        Binding("home", "move_to(0)", show=False),
        Binding("end", "move_to(-1)", show=False),
        *[Binding(str(k), f"move_to({(k - 1) % 10})", show=False) for k in range(10)],
        Binding("enter", "play", "Play"),
        Binding("space", "mark", "Mark"),
        Binding("escape", "unmark", "Clear marks", show=False),
        Binding("d", "draw", "Draw"),
        Binding("u", "uno", "UNO"),
        Binding("c", "catch", "Catch"),
        Binding("o", "sort", "Sort", show=False),
        Binding("b", "add_bot", "Add bot"),
        Binding("s", "start", "Start"),
        Binding("q", "leave", "Leave"),
        Binding("i", "table_id", "Table id", show=False),
        Binding("question_mark", "help", "Help"),  # last: the first a narrow footer cuts
    ]

    def __init__(
        self,
        seating: Seating | None = None,
        state: SessionState | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__()
        self.seating = seating
        self.model = TableModel(state or SessionState(), clock=clock)
        self.board = TableBoard()
        self.session: GameSession | None = None
        self._prompt: Prompt[Any] | None = None
        self._results_round = 0
        self._final_shown = False
        self._leaving = False  # the seat is being given up (LeaveTable): its stream ends so
        self._last_status: tuple[int | None, float | None] = (None, None)
        self._keys_shown: tuple[str, bool, bool] | None = None  # the key set shown

    # ------------------------------------------------------------- the model's facts

    @property
    def me(self) -> int:
        """This seat."""
        return self.model.me

    @property
    def my_turn(self) -> bool:
        """True when the turn is this seat's."""
        return self.model.my_turn

    @property
    def ready(self) -> bool:
        """True when waiting for this player's decision (for tests and the status line)."""
        return self.model.ready

    @property
    def uno_armed(self) -> bool:
        """True when the next play calls UNO."""
        return self.model.uno_armed

    @property
    def failed(self) -> str:
        """Why the stream failed ("" while it did not)."""
        return self.model.failed

    @property
    def target(self) -> str:
        """The server shown in the top bar ("" for the embedded one)."""
        seating = self.seating
        return seating.target if seating is not None and not seating.embedded else ""

    # ------------------------------------------------------------- layout

    def compose(self) -> ComposeResult:
        yield self.board
        yield Footer()

    def on_resize(self, event: events.Resize) -> None:
        """Below :data:`WIDE_FOOTER` columns the footer drops its padding, so
        at 40 every game key up to Leave still shows."""
        self.query_one(Footer).compact = event.size.width < WIDE_FOOTER

    def on_mount(self) -> None:
        prefs = getattr(self.app, "prefs", None)  # (a test's app may keep none)
        order = prefs.get(HAND_ORDER) if prefs is not None else None
        if order in HAND_ORDERS:
            self.model.order = order
        self.board.write_log(self.model)
        self.redraw()
        self.set_interval(0.1, self._tick)  # redraws only when a countdown changes
        if self.seating is not None:
            self.stream()
            if self.state.view is None:
                self.set_interval(1.5, self._poll_waiting)
                self._poll_waiting()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Before the game: add bots and start; during it: the game keys
        (none once it is over, nor while the connection is lost)."""
        model = self.model
        view = model.view
        waiting = view is None and self.seating is not None
        if action in ("add_bot", "start"):
            return waiting and not model.offline
        if action in ("play", "draw", "uno", "catch"):
            return not waiting and not model.offline and not model.game_over
        if action == "mark":
            return (
                not waiting
                and not model.offline
                and not model.game_over
                and (model.multi_play or bool(model.marked))
            )
        if action == "unmark":
            return bool(model.marked)
        return True

    # ------------------------------------------------------------- drawing

    def redraw(self) -> None:
        """Redraw every widget from the model."""
        if not self.is_attached:
            return
        model = self.model
        self._last_status = (model.seconds_left(), model.window_left())
        view = model.view
        mode = "waiting" if view is None else "over" if view.phase is Phase.GAME_OVER else "game"
        keys = (mode, model.multi_play, model.offline)
        if keys != self._keys_shown:
            self._keys_shown = keys
            self.refresh_bindings()
        self.board.draw(model, self.target)

    def _draw_status(self) -> None:
        if self.is_attached:
            self.board.draw_status(self.model)

    def _tick(self) -> None:
        if not self.is_attached:
            return
        now = (self.model.seconds_left(), self.model.window_left())
        if now != self._last_status:
            self._last_status = now
            self._draw_status()

    # ------------------------------------------------------------- the stream

    #: What the status line says when the server no longer knows the stream's seat or table.
    GONE = "This seat is gone"

    def _forget_seat(self) -> None:
        """The seat's token is of no more use (the seat is gone or its game over)."""
        seating = self.seating
        if seating is not None and not seating.embedded:
            host(self).store.forget(seating.target, seating.table_id, seating.name)

    @work(exclusive=True, group="stream")
    async def stream(self) -> None:
        """Read the seat's game stream until the game is over."""
        seating = self.seating
        assert seating is not None
        conn = host(self).connection(seating.target)
        self.session = session = conn.session(
            seating.table_id, seating.token, last_seq=seating.last_seq
        )
        session.on_status = self.connection_status
        self.model.state = session.state
        try:
            async for received in session:
                self.handle(received)
        except ServerError as err:
            log.info("stream ended: %s %s", err.status, err)
            if self._leaving:  # the seat was given up here: nothing to tell
                return
            gone = isinstance(err, (SeatGone, TableNotFound))
            if gone:
                self._forget_seat()
            self.stream_failed(f"{self.GONE}: {err}" if gone else f"Connection lost: {err}")
            return
        self.model.finished = True
        if self.state.interrupted:
            self.stream_failed(self.INTERRUPTED)
            return
        if self.state.game_over:
            self._forget_seat()
        self.redraw()

    def handle(self, received: Received) -> None:
        """Apply one message the session has already tracked in ``self.state``."""
        if not self.is_attached:
            return
        model, board = self.model, self.board
        message = received.message
        if isinstance(message, Welcome):
            model.table = self.state.table
            if self.state.view is None and model.logged == 0 and not self.state.commitment:
                board.game_log.add(
                    Text(
                        f"You sit in seat {model.me + 1} of {len(model.seats())}. The game "
                        "starts when every seat is taken and someone presses s.",
                        style="italic",
                    )
                )
            board.draw_top(model, self.target)
        elif isinstance(message, Event):
            board.write_log(model)
        elif isinstance(message, Refusal):
            model.sending = False
            error = self.state.errors[-1]
            text = Text(f"Refused: {error.message} ({error.reason})", style="bold #ef5350")
            board.game_log.add(text)
            self.notify(f"{error.message}", title="Refused by the server", severity="error")
        elif isinstance(message, SeatsChanged):
            self.redraw()  # someone came, went, dropped or came back
        elif isinstance(message, DealReveal):
            log_deal_check(board, self.state, self.notify)
        elif isinstance(message, Update):
            model.answered()
            self.redraw()
            self._after_update()

    def _after_update(self) -> None:
        view = self.model.view
        if view is None:
            return
        if view.phase is Phase.GAME_OVER:
            self._close_prompt()
            if not self._final_shown:
                self._final_shown = True
                self.show_final()
            return
        if view.phase is Phase.ROUND_OVER:
            self._close_prompt()
        moves = bool(self.state.legal)  # the next round wants a move: the results step aside
        self._results_round = push_round_result(self.app, self.model, self._results_round, moves)
        if view.phase is not Phase.ROUND_OVER:
            self._sync_prompt()

    # ------------------------------------------------------------- prompts

    def close_modals(self) -> None:
        """Close every box over this screen, the decision prompt with them."""
        self._prompt = None
        super().close_modals()

    def _close_prompt(self) -> None:
        prompt, self._prompt = self._prompt, None
        if prompt is not None and prompt.is_attached and self.app.screen is prompt:
            prompt.dismiss(None)

    def _sync_prompt(self) -> None:
        model = self.model
        want = model.wanted_prompt()
        prompt = self._prompt
        if prompt is not None:
            still = prompt.kind == (want.value if want is not None else None)
            if prompt.kind in ("wild", "target"):
                still = model.still_playable(prompt.card)
            if still:
                return
            self._close_prompt()
        if want is None or model.sending:
            return
        view = model.view
        assert view is not None
        if want is PromptKind.PENALTY:
            if model.answering_from_hand():
                return
            info = model.penalty_info()
            self._open(
                PenaltyPrompt(
                    info.by,
                    info.card,
                    info.penalty,
                    info.colour,
                    info.can_challenge,
                    info.can_answer,
                    info.judged,
                ),
                self._answer_penalty,
            )
        elif want is PromptKind.DRAWN:
            self._open(DrawnPrompt(view.drawn_card, model.drawn_with_uno()), self._answer_drawn)
        elif want is PromptKind.STARTER:
            self._open(ColourPrompt(model.starter_colours(), starter=True), self._answer_starter)

    def _open(self, prompt: Prompt[Any], callback: Callable[[Any], None]) -> None:
        self._prompt = prompt

        def done(result: Any) -> None:
            if self._prompt is prompt:
                self._prompt = None
            callback(result)

        self.app.push_screen(prompt, done)

    def _answer_penalty(self, choice: PenaltyChoice | None) -> None:
        if choice is PenaltyChoice.CARDS:
            self.model.declined = self.model.decision_key()
            self._draw_status()
            return
        if choice is PenaltyChoice.CHALLENGE:
            self._do(self.model.action_of(CHALLENGE))
        elif choice is PenaltyChoice.ACCEPT:
            self._do(self.model.action_of(ACCEPT))

    def _answer_drawn(self, choice: DrawnChoice | None) -> None:
        if choice is DrawnChoice.KEEP:
            self._do(self.model.action_of(KEEP))
        elif choice is not None:
            view = self.model.view
            card = view.drawn_card if view is not None else -1
            uno = True if choice is DrawnChoice.UNO else None
            self._do(self.model.resolve_play(PlayRequest(card, uno=uno)))

    def _answer_starter(self, colour: int | None) -> None:
        if colour is None:
            return
        for a in self.state.legal:
            if a.kind is ActionKind.CHOOSE_COLOUR and a.colour == colour:
                self._send(a)
                return

    # ------------------------------------------------------------- acting

    def _do(self, resolution: Resolution) -> None:
        """Carry out what the model made of a key: send, ask, or say why not."""
        if isinstance(resolution, Send):
            self._send(resolution.action)
        elif isinstance(resolution, AskColour):
            request = resolution.request

            def chose_colour(colour: int | None) -> None:
                if colour is not None:
                    self._do(self.model.resolve_play(replace(request, colour=colour)))

            self._open(
                ColourPrompt(list(resolution.colours), card=request.card, extra=request.extra),
                chose_colour,
            )
        elif isinstance(resolution, AskTarget):
            request = resolution.request

            def chose_target(seat: int | None) -> None:
                if seat is not None:
                    self._do(self.model.resolve_play(replace(request, target=seat)))

            self._open(
                TargetPrompt(request.card, list(resolution.choices), extra=request.extra),
                chose_target,
            )
        elif isinstance(resolution, Refuse):
            self.notify(
                resolution.message, severity=resolution.severity, timeout=resolution.timeout
            )
        elif isinstance(resolution, Notice):
            self.notify(resolution.message, timeout=resolution.timeout)
            self._draw_status()
        elif isinstance(resolution, Reopen):
            self._sync_prompt()

    def _send(self, action: Action) -> None:
        if self.session is None:
            self.notify(f"(not connected) {action.describe()}")
            return
        if self.model.offline:  # a click, or a prompt answered as the stream went down
            self.notify(self.model.failed or "Not connected: reconnecting…", severity="warning")
            return
        self.model.sent(action)
        self._send_worker(action)
        self._show_marks()  # spent on the move: the status says it is on its way

    @work(group="send")
    async def _send_worker(self, action: Action) -> None:
        assert self.session is not None
        if not await self.session.send(action):
            self.model.sending = False
            self.notify("Not connected: reconnecting…", severity="warning")

    def _show_hand(self) -> None:
        self.board.draw_hand(self.model)

    def action_move(self, step: int) -> None:
        """←/→: move the selection."""
        self.model.move(step)
        self._show_hand()

    def action_move_to(self, index: int) -> None:
        """A number key (Home, End): select that card."""
        self.model.move_to(index)
        self._show_hand()

    def action_play(self) -> None:
        """Enter: play the marked cards if any are marked, else the selected card."""
        self._do(self.model.resolve_enter())

    def action_mark(self) -> None:
        """Space: mark (or unmark) the selected card, to play several together."""
        self.model.toggle_mark()
        self._show_marks()

    def action_unmark(self) -> None:
        """Esc: clear every mark."""
        self.model.clear_marks()
        self._show_marks()

    def _show_marks(self) -> None:
        self._show_hand()
        self.refresh_bindings()
        self._draw_status()

    @on(HandView.Clicked)
    def _card_clicked(self, message: HandView.Clicked) -> None:
        if message.index == self.model.selected:
            self.action_play()
        else:
            self.model.select(message.index)
            self._show_hand()

    @on(PileView.Clicked)
    def _pile_clicked(self) -> None:
        self.action_draw()

    def action_draw(self) -> None:
        """d (or a click on the pile): draw."""
        self._do(self.model.resolve_draw())

    def action_uno(self) -> None:
        """u: call UNO, or arm the call that rides on the next play."""
        self._do(self.model.resolve_uno())

    def action_catch(self) -> None:
        """c: catch a player who did not call UNO."""
        self._do(self.model.resolve_catch())

    def action_sort(self) -> None:
        """o: show the hand as dealt, by colour or by rank (remembered)."""
        order = self.model.next_order()
        prefs = getattr(self.app, "prefs", None)
        if prefs is not None:
            prefs.put(HAND_ORDER, order)
        self._show_hand()
        self.notify(f"Hand: {'as dealt' if order == 'dealt' else 'by ' + order}", timeout=2)

    def action_help(self) -> None:
        """?: the keys, the marks and the rules of the table."""
        self.app.push_screen(HelpScreen(self.model.rules))

    def action_table_id(self) -> None:
        """i: this table's id, as ``uno bot --table`` (another bot) wants it."""
        if self.seating is not None:
            show_table_id(self, self.seating.target, self.seating.table_id)

    @property
    def mid_game(self) -> bool:
        """True while a game this seat plays is on (quitting would leave it)."""
        view, model = self.model.view, self.model
        return (
            view is not None
            and view.phase is not Phase.GAME_OVER
            and not model.finished
            and not model.failed
        )

    def action_leave(self) -> None:
        """q: the final standings once the game is over, else the leave dialog."""
        view = self.model.view
        if view is not None and view.phase is Phase.GAME_OVER:
            self.show_final()
            return
        seating = self.seating
        embedded = seating is None or seating.embedded
        playing = view is not None and not self.model.finished
        remote = seating is not None and seating.remote
        prompt = QuitPrompt(embedded, playing, lost=self.model.failed, remote=remote)
        self.app.push_screen(prompt, self._left)

    def _left(self, choice: QuitChoice | None) -> None:
        if choice is None:
            return
        if choice is QuitChoice.BOT or self.state.view is None:
            self._leave_seat(choice)
            return
        if choice is QuitChoice.QUIT:
            self.app.call_later(self.app.run_action, "quit_now")
        elif choice is QuitChoice.LOBBY and self.seating is not None:
            self._to_lobby(self.seating.target)

    def show_final(self) -> None:
        """The final standings, over this screen."""
        seating = self.seating
        embedded = seating is None or seating.embedded
        self.post_message(
            ShowFinal(
                self.model.final_result(),
                embedded,
                seating.target if seating is not None else "",
                seating,
                self.session.last_seq if self.session is not None else 0,
            )
        )

    def _to_lobby(self, target: str) -> None:
        """Back to the lobby. The stream is cancelled first (which cancels its
        call and so detaches the seat): it must not draw on this screen while
        Textual takes it apart."""
        self.workers.cancel_group(self, "stream")
        self.post_message(ShowLobby(target))

    @work(exclusive=True, group="lobby")
    async def _leave_seat(self, then: QuitChoice) -> None:
        """LeaveTable: frees the seat before the game, hands it to a bot during it."""
        seating = self.seating
        model = self.model
        if seating is not None and not seating.embedded and not model.finished and not model.failed:
            try:
                conn = host(self).connection(seating.target)
                self._leaving = True
                await conn.leave_table(seating.table_id, seating.token)
                host(self).store.forget(seating.target, seating.table_id, seating.name)
            except ServerError as err:
                self._leaving = False
                self.notify(f"Could not leave: {err}", severity="error")
        if then is QuitChoice.QUIT:
            self.app.call_later(self.app.run_action, "quit_now")
        elif seating is not None:
            self._to_lobby(seating.target)

    # ------------------------------------------------------------- waiting

    def _poll_waiting(self) -> None:
        if self.state.view is None and self.seating is not None and not self.model.failed:
            self._refresh_table()

    @work(exclusive=True, group="poll")
    async def _refresh_table(self) -> None:
        seating = self.seating
        assert seating is not None
        table = await host(self).table_now(seating.target, seating.table_id)
        if table is not None:
            self.model.table = table
        if self.state.view is None:
            self.redraw()

    def action_add_bot(self) -> None:
        """b (before the game): a bot takes an empty seat."""
        if self.seating is not None and self.state.view is None:
            self._lobby_call("bot")

    def action_start(self) -> None:
        """s (before the game): start once every seat is taken."""
        if self.seating is not None and self.state.view is None:
            self._lobby_call("start")

    @work(exclusive=True, group="lobby")
    async def _lobby_call(self, what: str) -> None:
        seating = self.seating
        assert seating is not None
        conn = host(self).connection(seating.target)
        try:
            if what == "bot":
                added = await conn.add_bot(seating.table_id, "greedy", seat_token=seating.token)
                self.model.table = added.table
            else:
                self.model.table = await conn.start_game(seating.table_id, seating.token)
        except ServerError as err:
            self.notify(str(err), title="Refused", severity="error")
        self.redraw()
