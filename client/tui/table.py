"""The table screen: one seat's game, drawn from the last view the server sent.

Every decision comes from the legal actions in the last ``PlayerUpdate``: a
card is marked playable only when the server lists a play of it, a prompt
opens only when the server offers its choices, and an intent is always an
element of that list. Network I/O (the game stream, sends, lobby calls)
runs in Textual workers on the app's event loop.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from unoplay.game.actions import Action, ActionKind
from unoplay.game.bots import seat_after
from unoplay.game.deals import DealReveal
from unoplay.game.events import Event, EventKind
from unoplay.game.messages import Refusal, SeatsChanged, TableInfo, Update, Welcome
from unoplay.game.rules import GameFormat, MultiPlay, RuleSet
from unoplay.game.view import Phase

from ..sdk import GameSession, Received, SeatGone, ServerError, SessionState, TableNotFound
from .prompts import (
    ColourPrompt,
    DrawnPrompt,
    HelpScreen,
    PenaltyPrompt,
    Prompt,
    QuitPrompt,
    RoundResult,
    RoundResultScreen,
    TargetPrompt,
)
from .render import SEEDED_NOTE, card_text, event_line, rules_label, seat_name
from .ruleinfo import differences, preset_name, short_text
from .widgets import GameLog, HandView, PileView, PlayersPanel, RulesLine

log = logging.getLogger("unoplay.tui")

PLAY, DRAW, KEEP = ActionKind.PLAY, ActionKind.DRAW, ActionKind.KEEP
CHALLENGE, ACCEPT = ActionKind.CHALLENGE, ActionKind.ACCEPT
CALL_UNO, CATCH, CHOOSE = ActionKind.CALL_UNO, ActionKind.CATCH, ActionKind.CHOOSE_COLOUR


@dataclass
class Seating:
    """Where a TableScreen plays: a server, a table and the seat's token."""

    target: str
    table_id: str
    token: str
    name: str
    embedded: bool = False


def _rules_label(table: TableInfo | None) -> str:
    return rules_label(table.rules) if table is not None else ""


class TableScreen(Screen):
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
        Binding("b", "add_bot", "Add bot"),
        Binding("s", "start", "Start"),
        Binding("question_mark", "help", "Help"),
        Binding("q", "leave", "Leave"),
    ]

    def __init__(
        self,
        seating: Seating | None = None,
        state: SessionState | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__()
        self.seating = seating
        self.state = state or SessionState()
        self.clock = clock
        self.session: GameSession | None = None
        self.table: TableInfo | None = self.state.table
        self.uno_armed = False
        self.sending = False
        self.finished = False
        self.failed = ""
        self._sent_legal: list[Action] | None = None
        self._selected_card = -1
        self._logged = 0
        self._prompt: Prompt | None = None
        self._results_round = 0
        self._final_shown = False
        self._last_seconds: int | None = None
        self._last_window: float | None = None  # seconds left in the out-of-turn window shown
        self._was_my_turn = False
        self._declined: tuple | None = None  # the penalty decision answered "from hand"
        self._waiting_shown: str | None = None  # the key set shown: waiting, game, over
        self._marked: set[int] = set()  # cards marked (Space) to be played together
        self._marked_round = 0
        self._multi_shown = False

    # ------------------------------------------------------------- layout

    def compose(self) -> ComposeResult:
        yield Static(id="topbar")
        yield RulesLine(id="rules")
        with Horizontal(id="main"):
            with Vertical(id="side"):
                with VerticalScroll(id="players-box"):
                    yield PlayersPanel(id="players")
                yield PileView(id="pile")
            yield GameLog(id="log", wrap=True, min_width=20, max_lines=1000)
        yield Static(id="status")
        yield HandView(id="hand")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#players-box").border_title = "Players"
        self.query_one("#pile").border_title = "Table"
        log_widget = self.query_one(GameLog)
        log_widget.border_title = "What happened"
        log_widget.can_focus = False
        self._write_events()
        self.redraw()
        self.set_interval(0.1, self._tick)  # redraws only when a countdown changes
        if self.seating is not None:
            self.stream()
            if self.state.view is None:
                self.set_interval(1.5, self._poll_waiting)
                self._poll_waiting()

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        """Before the game: add bots and start; during it: the game keys."""
        view = self.state.view
        waiting = view is None and self.seating is not None
        if action in ("add_bot", "start"):
            return waiting
        if action in ("play", "draw", "uno", "catch"):
            return not waiting and (view is None or view.phase is not Phase.GAME_OVER)
        if action == "mark":
            return not waiting and (self.multi_play or bool(self._marked))
        if action == "unmark":
            return bool(self._marked)
        return True

    # ------------------------------------------------------------- state

    @property
    def me(self) -> int:
        return self.state.seat

    @property
    def my_turn(self) -> bool:
        view = self.state.view
        return view is not None and view.current == self.me and view.phase < Phase.ROUND_OVER

    @property
    def rules(self) -> RuleSet | None:
        """The table's rule set, once known (None before)."""
        return self.table.rules if self.table is not None else None

    @property
    def multi_play(self) -> bool:
        """True at a table whose rules let several cards be played together."""
        rules = self.rules
        return rules is not None and rules.multi_play is not MultiPlay.OFF

    @property
    def ready(self) -> bool:
        """True when waiting for this player's decision (for tests and the status line)."""
        return bool(self.state.legal) and self.my_turn and not self.sending

    def _seats(self):
        if self.state.seats:
            return self.state.seats
        return list(self.table.seats) if self.table is not None else []

    def name_of(self, seat: int) -> str:
        return seat_name(self._seats(), seat, self.me)

    def name_of_cap(self, seat: int) -> str:
        """Like :meth:`_name`, capitalised for the start of a sentence ("You")."""
        return "You" if seat == self.me else self.name_of(seat)

    def _seconds_left(self) -> int | None:
        deadline, view = self.state.deadline_ms, self.state.view
        if not deadline or view is None or view.phase >= Phase.ROUND_OVER:
            return None
        return max(0, int(deadline / 1000 - self.clock() + 0.999))

    def _window_left(self) -> float | None:
        """Seconds (to a tenth) until the open out-of-turn window closes, else None."""
        closes, view = self.state.window_closes_ms, self.state.view
        if not closes or view is None or view.phase >= Phase.ROUND_OVER:
            return None
        left = math.ceil((closes - self.clock() * 1000) / 100) / 10
        return left if left > 0 else None

    # ------------------------------------------------------------- drawing

    def redraw(self) -> None:
        """Redraw every widget from ``self.state``."""
        if not self.is_attached:
            return
        state, view = self.state, self.state.view
        seats = self._seats()
        seconds = self._seconds_left()
        self._last_seconds = seconds
        rules = self.rules
        teams = rules is not None and rules.format is GameFormat.TEAMS
        self.query_one(PlayersPanel).show(view, seats, self.me, teams)
        if view is not None:
            box = self.query_one("#players-box", VerticalScroll)
            row = 1 + view.current  # the header row comes first
            height = box.scrollable_content_region.height
            if height and not box.scroll_y <= row < box.scroll_y + height:
                box.scroll_to(y=max(0, row - height // 2), animate=False)
        mode = "waiting" if view is None else "over" if view.phase is Phase.GAME_OVER else "game"
        if mode != self._waiting_shown:
            self._waiting_shown = mode
            self.refresh_bindings()
        self.query_one(PileView).show(view, seats)
        hand = self.query_one(HandView)
        if view is not None:
            cards = view.hand
            if self.uno_armed and (
                len(cards) > len(hand.cards) > 0 or view.phase >= Phase.ROUND_OVER
            ):
                self.uno_armed = False  # you drew, or the round ended: the plan changed
            plays = [a for a in state.legal if a.kind is PLAY]
            playable = frozenset(a.card for a in plays)
            if view.round_number != self._marked_round:
                self._marked_round = view.round_number
                self._marked.clear()
            self._marked &= set(cards)
            my_turn = self.my_turn and view.phase in (Phase.PLAY, Phase.DRAWN)
            if my_turn and not self._was_my_turn and self._selected_card not in playable:
                first = next((c for c in cards if c in playable), None)
                if first is not None:
                    self._selected_card = first
            self._was_my_turn = my_turn
            index = (
                cards.index(self._selected_card)
                if self._selected_card in cards
                else min(hand.selected, max(len(cards) - 1, 0))
            )
            hand.cards = cards
            hand.playable = playable
            hand.partners = frozenset(c for a in plays for c in a.extra)
            hand.jump = bool(plays) and not self.my_turn
            hand.marked = frozenset(self._marked)
            hand.my_turn = my_turn
            hand.selected = index
            self._selected_card = cards[index] if cards else -1
            hand.refresh()
        self._draw_topbar()
        self._draw_status(seconds)

    def _draw_rules(self) -> None:
        """The rules line: the preset and every option that differs from
        official (as many as fit); hidden at an official table."""
        widget = self.query_one(RulesLine)
        rules = self.rules
        if self.multi_play != self._multi_shown:
            self._multi_shown = self.multi_play
            self.refresh_bindings()  # the Mark key
        changed = differences(rules) if rules is not None else []
        seeded = self.table is not None and self.table.seeded
        widget.display = bool(changed) or seeded
        if widget.display:
            notes = [SEEDED_NOTE] if seeded else []
            widget.show(
                preset_name(rules) if rules is not None else "custom",
                notes + [short_text(n, v) for n, v in changed],
            )

    def _draw_topbar(self) -> None:
        view = self.state.view
        title = self.table.title if self.table is not None else "UNO"
        text = Text(" UNO ", style="bold #ffffff on #c62828")
        text.append(f" {title}", style="bold")
        rules = _rules_label(self.table)
        if rules:
            text.append(f" · {rules}", style="dim")
        if view is not None:
            text.append(f" · round {view.round_number}")
            text.append(" · ↻" if view.direction == 1 else " · ↺")
        if self.seating is not None and not self.seating.embedded:
            text.append(f" · {self.seating.target}", style="dim")
        self.query_one("#topbar", Static).update(text)
        self._draw_rules()

    def _draw_status(self, seconds: int | None) -> None:
        state, view = self.state, self.state.view
        line = Text()
        hint = Text(style="dim")
        window = self._last_window = self._window_left()
        if self.failed:
            line.append(self.failed, style="bold #ef5350")
            hint.append("q leave")
        elif view is None:
            seats = self._seats()
            taken = sum(1 for s in seats if s.occupied)
            line.append(
                f"Waiting for the game to start: {taken}/{len(seats)} seats taken", style="bold"
            )
            hint.append("b add a bot to an empty seat · s start when every seat is taken · q leave")
        elif view.phase is Phase.GAME_OVER:
            winners = " and ".join(self.name_of(w) for w in view.game_winners)
            line.append(f"Game over: {winners} won", style="bold")
            hint.append("q final standings")
        elif view.phase is Phase.ROUND_OVER:
            line.append(
                f"Round over: {self.name_of(view.round_winner)} went out. "
                "The next round starts shortly…",
                style="bold",
            )
        elif self.my_turn:
            line.append(" YOUR TURN ", style="bold #1a1a1a on #f4c20d")
            if view.phase is Phase.PLAY:
                line.append(" play a card marked “play”, or d to draw")
            elif view.phase is Phase.DRAWN:
                line.append(" play the card you drew, or keep it")
            elif view.phase is Phase.PENALTY:
                if self._declined == self._decision_key():
                    line.append(
                        " answer with a card marked “play” (Enter on another card: "
                        "back to the choice)"
                    )
                else:
                    kinds = {a.kind for a in state.legal}
                    options = ["accept it"]
                    if CHALLENGE in kinds:
                        options.append("challenge")
                    if PLAY in kinds:
                        options.append("answer with a card")
                    said = (
                        ", ".join(options[:-1]) + " or " + options[-1]
                        if len(options) > 1
                        else options[0]
                    )
                    line.append(f" +{view.pending_penalty} on you: {said}")
            else:
                line.append(" name the colour of the starter card")
            if seconds is not None:
                line.append(f"  {seconds}s left", style="bold")
        else:
            line.append(f"{self.name_of(view.current)}'s turn")
            seats = self._seats()
            bot = 0 <= view.current < len(seats) and seats[view.current].bot
            if seconds is not None and not bot:
                line.append(f"  {seconds}s left", style="dim")
            if any(a.kind is PLAY for a in state.legal):
                line.append(
                    "  You may jump in: Enter on a card marked “jump!”", style="bold #f4c20d"
                )
        if window is not None:
            line.append(f"  ⏳ {window:.1f}s", style="dim")  # the window: see ? help
        if view is not None and view.phase < Phase.ROUND_OVER:
            catch = [a for a in state.legal if a.kind is CATCH]
            if window is not None and self.sending:
                hint = Text(
                    "Sent: your move is judged when the out-of-turn window closes", style="bold"
                )
            elif catch:
                hint = Text(
                    f"{self.name_of(catch[0].target)} did not call UNO: press c to catch!",
                    style="bold #ef5350",
                )
            elif any(a.kind is CALL_UNO for a in state.legal) and view.catchable == self.me:
                hint = Text(
                    "You have one card: press u to call UNO before you are caught!",
                    style="bold #f4c20d",
                )
            elif self._marked:
                hand = [c for c in view.hand if c in self._marked]
                hint = Text("Marked: ", style="bold")
                for i, card in enumerate(hand):
                    hint.append_text(Text(" + ") + card_text(card) if i else card_text(card))
                hint.append(" · Enter plays them · Space unmarks · Esc clears", style="dim")
            elif self.uno_armed:
                hint = Text(
                    "UNO armed: your next play calls UNO (u to disarm)", style="bold #f4c20d"
                )
            elif len(view.hand) == 2 and (self.my_turn or any(a.kind is PLAY for a in state.legal)):
                hint = Text("Two cards left: press u so your play calls UNO", style="bold #f4c20d")
            elif not hint.plain and self.multi_play:
                hint = Text(
                    "←/→ 1-9 select · Space mark · Enter play · d draw · u UNO · c catch · ? help",
                    style="dim",
                )
            elif not hint.plain:
                hint = Text(
                    "←/→ or 1-9 select · Enter play · d draw · u UNO · c catch · ? help",
                    style="dim",
                )
        status = self.query_one("#status", Static)
        status.update(line + Text("\n") + hint)

    def _write_events(self) -> None:
        log_widget = self.query_one(GameLog)
        events = self.state.events
        seats = self._seats()
        while self._logged < len(events):
            line = event_line(events[self._logged], seats, self.me)
            self._logged += 1
            if line is not None:
                log_widget.add(line)

    def _tick(self) -> None:
        if not self.is_attached:
            return
        seconds = self._seconds_left()
        window = self._window_left()
        if seconds != self._last_seconds or window != self._last_window:
            self._last_seconds = seconds
            self._draw_status(seconds)

    # ------------------------------------------------------------- the stream

    #: What the status line says when the server no longer knows the stream's seat or table.
    GONE = "This seat is gone"

    def _open_session(self) -> GameSession:
        """The stream this screen reads: the seat's game stream."""
        seating = self.seating
        assert seating is not None
        return self.app.connection(seating.target).session(seating.table_id, seating.token)

    def _forget_seat(self) -> None:
        """The seat's token is of no more use (the seat is gone or its game over)."""
        seating = self.seating
        if seating is not None and not seating.embedded:
            self.app.store.forget(seating.target, seating.table_id, seating.name)

    @work(exclusive=True, group="stream")
    async def stream(self) -> None:
        """Read the stream (:meth:`_open_session`) until the game is over."""
        self.session = session = self._open_session()
        self.state = session.state
        try:
            async for received in session:
                self.handle(received)
        except ServerError as err:
            log.info("stream ended: %s %s", err.status, err)
            if isinstance(err, (SeatGone, TableNotFound)):
                self._forget_seat()
                self.failed = f"{self.GONE}: {err}"
            else:
                self.failed = f"Connection lost: {err}"
            self.notify(self.failed, severity="error", timeout=8)
            self.redraw()
            return
        self.finished = True
        if self.state.game_over:
            self._forget_seat()
        self.redraw()

    def handle(self, received: Received) -> None:
        """Apply one message the session has already tracked in ``self.state``."""
        if not self.is_attached:
            return
        message = received.message
        if isinstance(message, Welcome):
            self.table = self.state.table
            if self.state.view is None and self._logged == 0 and not self.state.commitment:
                self.query_one(GameLog).add(
                    Text(
                        f"You sit in seat {self.me + 1} of {len(self._seats())}. The game starts "
                        "when every seat is taken and someone presses s.",
                        style="italic",
                    )
                )
            self._draw_topbar()
        elif isinstance(message, Event):
            self._write_events()
        elif isinstance(message, Refusal):
            self.sending = False
            error = self.state.errors[-1]
            text = Text(f"Refused: {error.message} ({error.reason})", style="bold #ef5350")
            self.query_one(GameLog).add(text)
            self.notify(f"{error.message}", title="Refused by the server", severity="error")
        elif isinstance(message, SeatsChanged):
            self.redraw()  # someone came, went, dropped or came back
        elif isinstance(message, DealReveal):
            self._log_deal_check()
        elif isinstance(message, Update):
            if self.sending and (self.state.legal != self._sent_legal):
                self.sending = False
            self.redraw()
            self._after_update()

    def _log_deal_check(self) -> None:
        """The seed is revealed: say whether every card seen was the seed's."""
        check = self.state.deal_check()
        log_ = self.query_one(GameLog)
        if check is None:
            log_.add(
                Text("The deal's seed is revealed (uno verify checks a stored game).", style="dim")
            )
        elif check.fair:
            log_.add(
                Text(
                    f"✓ Deals verified: the {check.checked} cards you saw are exactly "
                    "those of the seed committed to at the start.",
                    style="#66bb6a",
                )
            )
        else:
            log_.add(
                Text(
                    f"✗ The deals do not match the seed: {check.problems[0]}", style="bold #ef5350"
                )
            )
            self.notify(check.problems[0], title="Unfair deal", severity="error", timeout=30)

    def _after_update(self) -> None:
        view = self.state.view
        if view is None:
            return
        if view.phase is Phase.GAME_OVER:
            self._close_prompt()
            if not self._final_shown:
                self._final_shown = True
                self.app.show_final(self)
            return
        if view.phase is Phase.ROUND_OVER:
            self._close_prompt()
            if self._results_round != view.round_number:
                self._results_round = view.round_number
                if isinstance(self.app.screen, RoundResultScreen):
                    self.app.screen.answer()  # an older round's results, still open
                self.app.push_screen(RoundResultScreen(self.round_result()))
            return
        self._sync_prompt()

    def round_result(self) -> RoundResult:
        """The last round's results, from the events and the view."""
        view = self.state.view
        assert view is not None
        n = len(view.hand_sizes)
        hands = [0] * n
        points = 0
        for event in reversed(self.state.events):
            if event.kind is EventKind.ROUND_STARTED:
                break
            if event.kind is EventKind.HAND_SCORED and 0 <= event.player < n:
                hands[event.player] = event.value
            if event.kind is EventKind.ROUND_OVER:
                points = event.value
        names = [self.name_of_cap(i) for i in range(n)]
        target = self.table.rules.target_score if self.table is not None else 500
        return RoundResult(
            view.round_number,
            names[view.round_winner] if view.round_winner >= 0 else "?",
            points,
            names,
            list(view.hand_sizes),
            hands,
            list(view.scores),
            target,
        )

    # ------------------------------------------------------------- prompts

    def _wanted_prompt(self) -> str | None:
        view, legal = self.state.view, self.state.legal
        if view is None or view.current != self.me:
            return None
        kinds = {a.kind for a in legal}
        if view.phase is Phase.PENALTY and ACCEPT in kinds:
            return "penalty"
        if view.phase is Phase.DRAWN and KEEP in kinds:
            return "drawn"
        if view.phase is Phase.CHOOSE_COLOUR and CHOOSE in kinds:
            return "starter"
        return None

    def _decision_key(self) -> tuple:
        view = self.state.view
        return (
            view.round_number,
            view.current,
            view.phase,
            view.pending_penalty,
            view.top_card,
            view.discard_pile_size,
        )

    def _close_prompt(self) -> None:
        prompt, self._prompt = self._prompt, None
        if prompt is not None and prompt.is_attached and self.app.screen is prompt:
            prompt.dismiss(None)

    def _sync_prompt(self) -> None:
        want = self._wanted_prompt()
        prompt = self._prompt
        if prompt is not None:
            still = prompt.kind == want
            if prompt.kind in ("wild", "target"):
                still = any(a.kind is PLAY and a.card == prompt.card for a in self.state.legal)
            if still:
                return
            self._close_prompt()
        if want is None or self.sending:
            return
        view = self.state.view
        if want == "penalty":
            if self._declined == self._decision_key():
                return  # answering from the hand
            kinds = {a.kind for a in self.state.legal}
            by = None  # the round's starter card, unless a play this round put it there
            for e in reversed(self.state.events):
                if e.kind is EventKind.ROUND_STARTED:
                    break
                if e.kind is EventKind.PLAYED:
                    by = self.name_of_cap(e.player)
                    break
            else:  # no history of this round here: the player before
                by = self.name_of_cap(seat_after(view, view.current, -1))
            self._open(
                PenaltyPrompt(
                    by,
                    view.top_card,
                    view.pending_penalty,
                    view.colour,
                    CHALLENGE in kinds,
                    PLAY in kinds,
                ),
                self._answer_penalty,
            )
        elif want == "drawn":
            with_uno = any(a.kind is PLAY and a.uno for a in self.state.legal)
            self._open(DrawnPrompt(view.drawn_card, with_uno), self._answer_drawn)
        elif want == "starter":
            colours = [a.colour for a in self.state.legal if a.kind is CHOOSE]
            self._open(ColourPrompt(colours, starter=True), self._answer_starter)

    def _open(self, prompt: Prompt, callback) -> None:
        self._prompt = prompt

        def done(result) -> None:
            if self._prompt is prompt:
                self._prompt = None
            callback(result)

        self.app.push_screen(prompt, done)

    def _answer_penalty(self, choice: str | None) -> None:
        if choice == "cards":
            self._declined = self._decision_key()
            self._draw_status(self._last_seconds)
            return
        kind = {"challenge": CHALLENGE, "accept": ACCEPT}.get(choice or "")
        self._send_kind(kind)

    def _answer_drawn(self, choice: str | None) -> None:
        if choice == "keep":
            self._send_kind(KEEP)
        elif choice in ("play", "uno"):
            card = self.state.view.drawn_card if self.state.view else -1
            self._play_card(card, uno=choice == "uno" or None)

    def _answer_starter(self, colour: int | None) -> None:
        if colour is None:
            return
        for a in self.state.legal:
            if a.kind is CHOOSE and a.colour == colour:
                self._send(a)
                return

    # ------------------------------------------------------------- acting

    def _send_kind(self, kind: ActionKind | None) -> None:
        if kind is None:
            return
        for a in self.state.legal:
            if a.kind is kind:
                self._send(a)
                return
        self.notify(f"You cannot {kind.name.lower().replace('_', ' ')} now", severity="warning")

    def _send(self, action: Action) -> None:
        if self.session is None:
            self.notify(f"(not connected) {action.describe()}")
            return
        if action.kind is PLAY and action.uno:
            self.uno_armed = False
        self.sending = True
        self._sent_legal = list(self.state.legal)
        self._send_worker(action)
        self._draw_status(self._last_seconds)

    @work(group="send")
    async def _send_worker(self, action: Action) -> None:
        assert self.session is not None
        if not await self.session.send(action):
            self.sending = False
            self.notify("Not connected: reconnecting…", severity="warning")

    def _play_card(
        self,
        card: int,
        uno: bool | None = None,
        colour: int | None = None,
        target: int | None = None,
        extra: tuple[int, ...] = (),
    ) -> None:
        """Play ``card`` (with the cards ``extra`` under multi-play) with a
        variant the server listed, asking for the colour (of a wild, or the one
        left in force by cards of several colours) and, under the swap house
        rules, the player to swap with."""
        plays = [
            a for a in self.state.legal if a.kind is PLAY and a.card == card and a.extra == extra
        ]
        if not plays:
            if colour is not None or target is not None:
                self.notify("That play is no longer possible", severity="warning")
            elif self.my_turn:
                self.notify(
                    Text.assemble("The ", card_text(card), " cannot be played now").plain,
                    severity="warning",
                )
            elif self.state.view is not None and self.state.view.phase < Phase.ROUND_OVER:
                self.notify("It is not your turn", severity="warning", timeout=2)
            return
        want_uno = self.uno_armed if uno is None else uno
        if want_uno and not any(a.uno for a in plays):
            want_uno = False
        plays = [a for a in plays if a.uno == want_uno] or plays
        if colour is not None:
            plays = [a for a in plays if a.colour == colour]
        if target is not None:
            plays = [a for a in plays if a.target == target]
        if not plays:
            self.notify("That play is no longer possible", severity="warning")
            return
        colours = sorted({a.colour for a in plays})
        if len(colours) > 1:

            def chose_colour(c: int | None) -> None:
                if c is not None:
                    self._play_card(card, want_uno, c, target, extra)

            self._open(
                ColourPrompt([c for c in colours if c >= 0], card=card, extra=extra), chose_colour
            )
            return
        targets = sorted({a.target for a in plays})
        if len(targets) > 1:
            sizes = self.state.view.hand_sizes

            def chose_target(t: int | None) -> None:
                if t is not None:
                    self._play_card(card, want_uno, colours[0], t, extra)

            choices = [
                (t, self.name_of(t), sizes[t] if 0 <= t < len(sizes) else 0)
                for t in targets
                if t >= 0
            ]
            self._open(TargetPrompt(card, choices, extra=extra), chose_target)
            return
        self._send(plays[0])

    def _play_marked(self) -> None:
        """Play the marked cards together: the legal play that lays exactly them."""
        marked = frozenset(self._marked)
        plays = [
            a
            for a in self.state.legal
            if a.kind is PLAY and frozenset((a.card, *a.extra)) == marked
        ]
        if plays:
            self._play_card(plays[0].card, extra=plays[0].extra)
            return
        cards = [c for c in self.query_one(HandView).cards if c in marked]
        names = " + ".join(card_text(c).plain for c in cards)
        if not self.my_turn:
            reason = "it is not your turn"
        elif len(cards) > 1 and not self.multi_play:
            reason = "this table plays one card at a time"
        else:
            reason = "no play lays exactly these cards now"
        self.notify(
            f"Cannot play {names}: {reason}. Space unmarks, Esc clears the marks.",
            severity="warning",
        )

    def _can_act(self) -> bool:
        return self.state.view is not None and not self.sending

    def action_move(self, step: int) -> None:
        hand = self.query_one(HandView)
        if hand.cards:
            self._select((hand.selected + step) % len(hand.cards))

    def action_move_to(self, index: int) -> None:
        hand = self.query_one(HandView)
        if not hand.cards:
            return
        if index < 0:
            index = len(hand.cards) - 1
        if index < len(hand.cards):
            self._select(index)

    def _select(self, index: int) -> None:
        hand = self.query_one(HandView)
        hand.selected = index
        self._selected_card = hand.cards[index]
        hand.refresh()

    def action_play(self) -> None:
        """Enter: play the marked cards if any are marked, else the selected card."""
        if not self._can_act():
            return
        hand = self.query_one(HandView)
        if not hand.cards:
            return
        if self._marked:
            self._play_marked()
            return
        card = hand.cards[hand.selected]
        if (
            not any(a.kind is PLAY and a.card == card for a in self.state.legal)
            and self._wanted_prompt() is not None
        ):
            self._declined = None  # bring the decision back
            self._sync_prompt()
            return
        self._play_card(card)

    def action_mark(self) -> None:
        """Space: mark (or unmark) the selected card, to play several together."""
        hand = self.query_one(HandView)
        if not hand.cards or self.state.view is None:
            return
        self._marked ^= {hand.cards[hand.selected]}
        self._show_marks()

    def action_unmark(self) -> None:
        """Esc: clear every mark."""
        self._marked.clear()
        self._show_marks()

    def _show_marks(self) -> None:
        hand = self.query_one(HandView)
        hand.marked = frozenset(self._marked)
        self.refresh_bindings()
        self._draw_status(self._last_seconds)

    @on(HandView.Clicked)
    def _card_clicked(self, message: HandView.Clicked) -> None:
        hand = self.query_one(HandView)
        if message.index == hand.selected:
            self.action_play()
        else:
            self._select(message.index)

    @on(PileView.Clicked)
    def _pile_clicked(self) -> None:
        self.action_draw()

    def action_draw(self) -> None:
        if not self._can_act():
            return
        if not self.my_turn:
            self.notify("It is not your turn", severity="warning")
            return
        self._send_kind(DRAW)

    def action_uno(self) -> None:
        if not self._can_act():
            return
        view = self.state.view
        call = [a for a in self.state.legal if a.kind is CALL_UNO]
        if call and view.catchable == self.me:
            self._send(call[0])
            return
        self.uno_armed = not self.uno_armed
        self.notify(
            "UNO armed: your next play calls UNO" if self.uno_armed else "UNO disarmed", timeout=2
        )
        self._draw_status(self._last_seconds)

    def action_catch(self) -> None:
        if not self._can_act():
            return
        catch = [a for a in self.state.legal if a.kind is CATCH]
        if catch:
            self._send(catch[0])
        else:
            self.notify("Nobody can be caught now", severity="warning", timeout=2)

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(self.rules))

    def action_leave(self) -> None:
        view = self.state.view
        if view is not None and view.phase is Phase.GAME_OVER:
            self.app.show_final(self)
            return
        seating = self.seating
        embedded = seating is None or seating.embedded
        playing = self.state.view is not None and not self.finished
        self.app.push_screen(QuitPrompt(embedded, playing), self._left)

    def _left(self, choice: str | None) -> None:
        if choice is None:
            return
        if choice == "bot" or (choice in ("lobby", "quit") and self.state.view is None):
            self._leave_seat(choice)
            return
        if choice == "quit":
            self.app.call_later(self.app.action_quit_now)
        elif choice == "lobby" and self.seating is not None:
            self._to_lobby(self.seating.target)

    def _to_lobby(self, target: str) -> None:
        """Back to the lobby. The stream is cancelled first (which cancels its
        call and so detaches the seat): it must not draw on this screen while
        Textual takes it apart."""
        self.workers.cancel_group(self, "stream")
        self.app.show_lobby(target)

    @work(exclusive=True, group="lobby")
    async def _leave_seat(self, then: str) -> None:
        """LeaveTable: frees the seat before the game, hands it to a bot during it."""
        seating = self.seating
        if seating is not None and not seating.embedded and not self.finished:
            try:
                await self.app.connection(seating.target).leave_table(
                    seating.table_id, seating.token
                )
                self.app.store.forget(seating.target, seating.table_id, seating.name)
            except ServerError as err:
                self.notify(f"Could not leave: {err}", severity="error")
        if then == "quit":
            self.app.call_later(self.app.action_quit_now)
        elif seating is not None:
            self._to_lobby(seating.target)

    # ------------------------------------------------------------- waiting

    def _poll_waiting(self) -> None:
        if self.state.view is None and self.seating is not None and not self.failed:
            self._refresh_table()

    @work(exclusive=True, group="poll")
    async def _refresh_table(self) -> None:
        seating = self.seating
        try:
            tables = await self.app.connection(seating.target).list_tables()
        except ServerError:
            return
        for table in tables:
            if table.table_id == seating.table_id:
                self.table = table
        if self.state.view is None:
            self.redraw()

    def action_add_bot(self) -> None:
        if self.seating is not None and self.state.view is None:
            self._lobby_call("bot")

    def action_start(self) -> None:
        if self.seating is not None and self.state.view is None:
            self._lobby_call("start")

    @work(exclusive=True, group="lobby")
    async def _lobby_call(self, what: str) -> None:
        seating = self.seating
        conn = self.app.connection(seating.target)
        try:
            if what == "bot":
                self.table = (await conn.add_bot(seating.table_id, "greedy")).table
            else:
                self.table = await conn.start_game(seating.table_id, seating.token)
        except ServerError as err:
            self.notify(str(err), title="Refused", severity="error")
        self.redraw()
