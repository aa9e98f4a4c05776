"""Replays in the TUI: the list of stored games, and a stored game stepped
through on the table board.

:class:`ReplayScreen` shows a :class:`~unoplay.client.replay.Frames` (a stored
game played again by the engine) one action at a time: ←/→ step, Home/End go
to the deal and the end, PgUp/PgDn ten steps; every hand is shown (the game is
over), or one seat's view (Tab changes whose). The log is in step.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from unoplay.game.messages import SeatInfo, TableInfo, TableState
from unoplay.protocol import ActionSource

from ...replay import GAME_COLUMNS, Frames, game_rows
from ...sdk import SessionState
from ..model import Role, TableModel
from ..render import action_words, card_text
from ..widgets import TableBoard
from .prompts import HelpScreen

REPLAY_HELP = """\
[b]A stored game, step by step[/b]
 →, ←        one action forward, back    Home, End   the deal, the end
 PgDn, PgUp  ten actions                 Tab         whose view: every hand,
 q, Esc      back (or quit)                          then each seat's
 ?           this help\
"""


def replay_table(frames: Frames) -> tuple[TableInfo, tuple[SeatInfo, ...]]:
    """The table and seats of a stored game, as a stream would describe them."""
    record = frames.record
    seats = tuple(
        SeatInfo(
            seat=p["seat"],
            name=p["name"],
            bot=bool(p.get("bot")),
            occupied=True,
            connected=True,
        )
        for p in record.players
    )
    table = TableInfo(
        table_id=record.table_id,
        title=f"replay of game {record.game_id}: {record.title}",
        seats=seats,
        rules=record.rule_set(),
        turn_seconds=0,
        state=TableState.FINISHED,
        scores=tuple(record.scores),
        away_grace=0.0,
    )
    return table, seats


class ReplayScreen(Screen[None]):
    """A stored game on the table board, stepped through by key. ``seat`` -1
    shows every hand; a seat number, that seat's view (its hand, its private
    events)."""

    BINDINGS = [
        Binding("right", "step(1)", "Next", priority=True),
        Binding("left", "step(-1)", "Prev", priority=True),
        Binding("pagedown", "step(10)", "+10", show=False, priority=True),
        Binding("pageup", "step(-10)", "-10", show=False, priority=True),
        Binding("home", "go(0)", "Deal", priority=True),
        Binding("end", "go(-1)", "End", priority=True),
        Binding("tab", "next_seat", "Whose view"),
        Binding("question_mark", "help", "Help"),
        Binding("q,escape", "back", "Close"),
    ]

    def __init__(self, frames: Frames, seat: int = -1, at: int = 0) -> None:
        super().__init__()
        self.frames = frames
        self.seat = seat
        self.at = at  #: the frame shown
        self.table, self.seats = replay_table(frames)
        # per seat, the step of its person's last own action (-1: none, a bot's
        # seat, or a record that does not say who made each action)
        self._last_own = [-1] * len(self.seats)
        for frame in frames.frames if frames.record.sources else ():
            if frame.source == ActionSource.PLAYER and 0 <= frame.seat < len(self.seats):
                self._last_own[frame.seat] = frame.step
        self.board = TableBoard(hand=seat >= 0)
        self.hands = Static(id="replay-hands")
        self.model = self._model()

    def compose(self) -> ComposeResult:
        yield self.board
        yield self.hands
        yield Footer()

    def on_mount(self) -> None:
        self.show()

    @property
    def last(self) -> int:
        """The index of the last frame (the game's end)."""
        return len(self.frames.frames) - 1

    def _model(self) -> TableModel:
        frame = self.frames.frames[self.at]
        seat = self.seat
        state = SessionState(
            seat=seat,
            table=self.table,
            view=frame.views[max(seat, 0)],
            seats=self.seats_at(frame.step),
            events=self.frames.events_for(frame, seat),
        )
        return TableModel(state, role=Role.PLAYER if seat >= 0 else Role.SPECTATOR)

    def seats_at(self, step: int) -> tuple[SeatInfo, ...]:
        """The seats after ``step`` actions: a seat the record gives a bot is
        shown as one only after its person's last own action (a person who
        left mid-game played until then; a bot's seat is one throughout)."""
        last_own = self._last_own
        return tuple(replace(s, bot=s.bot and step > last_own[s.seat]) for s in self.seats)

    def show(self) -> None:
        """Draw the frame :attr:`at`."""
        self.model = model = self._model()
        board = self.board
        board.draw(model)
        board.game_log.show_lines(model.new_log_lines())
        board.status.update(self.status_text())
        self.hands.display = self.seat < 0
        if self.seat < 0:
            self.hands.update(self.hands_text())

    def status_text(self) -> Text:
        """The status line: the move counter and what the step was, then the keys."""
        frame = self.frames.frames[self.at]
        line = Text()
        line.append(" REPLAY ", style="bold #ffffff on #6a1b9a")
        line.append(f" move {frame.step}/{self.last}", style="bold")
        if frame.action is not None:
            who = self.seats[frame.seat].name if 0 <= frame.seat < len(self.seats) else "?"
            by = (
                ""
                if frame.source == ActionSource.PLAYER
                else f" ({frame.source.replace('_', ' ')})"
            )
            names = [seat.name for seat in self.seats]
            line.append(f" · {who}{by}: {action_words(frame.action, names)}")
        else:
            line.append(" · the deal")
        whose = "every hand" if self.seat < 0 else f"{self.seats[self.seat].name}'s view"
        if self.at == self.last:
            scores = ", ".join(
                f"{s.name} {score}" for s, score in zip(self.seats, frame.views[0].scores)
            )
            line.append(f" · final scores: {scores}", style="bold")
        hint = Text(
            f"{whose} · ←/→ step · Home/End · PgUp/PgDn ten · Tab whose view · q back", style="dim"
        )
        return line + Text("\n") + hint

    def hands_text(self) -> Text:
        """Every seat's hand at this step (the game is over: nothing is secret now)."""
        frame = self.frames.frames[self.at]
        text = Text()
        for p, view in enumerate(frame.views):
            if p:
                text.append("\n")
            text.append(f"{self.seats[p].name:>12}: ", style="bold")
            for i, card in enumerate(view.hand):
                text.append_text(Text(" ") + card_text(card) if i else card_text(card))
            if not view.hand:
                text.append("(no cards)", style="dim")
        return text

    def action_step(self, by: int) -> None:
        """→/← (PgDn/PgUp): ``by`` actions forward or back."""
        self.action_go(min(max(self.at + by, 0), self.last))

    def action_go(self, at: int) -> None:
        """Home/End: frame ``at`` (-1: the end)."""
        at = self.last if at < 0 else at
        if at != self.at:
            self.at = at
            self.show()

    def action_next_seat(self) -> None:
        """Tab: every hand, then each seat's own view in turn."""
        self.seat = self.seat + 1 if self.seat + 1 < len(self.seats) else -1
        self.board.has_hand = self.seat >= 0
        self.board.hand.display = self.seat >= 0
        self.show()

    def action_help(self) -> None:
        """?: the keys."""
        self.app.push_screen(
            HelpScreen(self.table.rules, body=Text.from_markup(REPLAY_HELP), title="UNO — replay")
        )

    def action_back(self) -> None:
        """q or Esc: back to the list of games, or quit if there is none."""
        if len(self.app.screen_stack) > 2:
            self.dismiss(None)
        else:
            self.app.exit()


class GameListScreen(Screen[None]):
    """Stored games, newest first; Enter opens one in a :class:`ReplayScreen`.
    ``load(game_id)`` gives a game's :class:`Frames`."""

    BINDINGS = [
        Binding("enter", "open", "Replay", priority=True),
        Binding("q,escape", "app.quit", "Quit"),
    ]

    def __init__(self, games: list[dict[str, Any]], load: Any) -> None:
        super().__init__()
        self.games, self.load = games, load
        self.grid: DataTable[Text] = DataTable(id="games", cursor_type="row", zebra_stripes=True)

    def compose(self) -> ComposeResult:
        title = Text(" UNO ", style="bold #ffffff on #c62828")
        title.append(f"  stored games ({len(self.games)}, newest first)", style="bold")
        yield Static(title, id="topbar")
        yield self.grid
        yield Static(
            "Enter replays the game · ↑/↓ pick · q quits" if self.games else "No stored games",
            classes="hint",
        )
        yield Footer()

    def on_mount(self) -> None:
        self.grid.add_columns(*GAME_COLUMNS)
        for row in game_rows(self.games):  # Text cells: a title or a name is never markup
            self.grid.add_row(*(Text(cell) for cell in row))
        self.grid.focus()

    def action_open(self) -> None:
        """Enter: replay the highlighted game."""
        row = self.grid.cursor_row
        if self.games and row is not None and 0 <= row < len(self.games):
            try:
                frames = self.load(self.games[row]["id"])
            except (KeyError, ValueError) as err:
                self.notify(str(err), title="Cannot replay that game", severity="error")
                return
            self.app.push_screen(ReplayScreen(frames))
