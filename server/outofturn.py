"""A table's out-of-turn window (server/RULES.md, "Out-of-turn window
(server)"): after a play that opens an out-of-turn chance (a missed UNO to
catch, a card to jump in on), every intent is held for ``window_ms`` and
then judged by a fixed rule (:func:`.window.resolve`), so that the fastest
packet does not win.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from unoplay.game.actions import ActionKind
from unoplay.game.cards import RANK, Rank
from unoplay.game.errors import Reason
from unoplay.game.events import Event, EventKind
from unoplay.game.messages import TableState

from .window import JUMP_PHASES, TURN_KINDS, HeldIntent, Window, resolve

if TYPE_CHECKING:
    from .table import Table


class OutOfTurn:
    """Opens, holds and judges a table's out-of-turn windows. It reads the
    table's game and acts through :meth:`.table.Table.act` and its refusals;
    what it keeps is the open window and the updates its judgement owes."""

    def __init__(self, table: Table) -> None:
        """The windows of ``table`` (``table.window_ms`` long; 0: none)."""
        self.table = table
        self.window: Window | None = None  #: the open window
        self.judging = False  #: judging a window: updates wait for its end
        self.updates_due: float | None = None  #: (the window close they will carry)

    @property
    def held(self) -> tuple[HeldIntent, ...]:
        """The intents the open window holds, in arrival order (empty: no window)."""
        return tuple(self.window.held) if self.window is not None else ()

    @property
    def closes(self) -> float:
        """When the open window closes (Unix seconds; 0.0: no window)."""
        return self.window.closes if self.window is not None else 0.0

    def opens(self, events: Sequence[Event]) -> bool:
        """Does the change that made ``events`` open a window? Yes after a play
        that leaves its player catchable, or, under ``jump_in``, after any play
        of a card that has a twin (every card but a 0) while the round goes
        on. Never with ``window_ms`` 0."""
        table = self.table
        game = table.game
        if not table.window_ms or game is None or game.is_round_over:
            return False
        if not any(e.kind == EventKind.PLAYED for e in events):
            return False
        if game.catchable >= 0:
            return True
        return (
            table.rules.jump_in and game.phase in JUMP_PHASES and RANK[game.top_card] != Rank.ZERO
        )

    def open(self, closes: float) -> None:
        """Open a window that closes at ``closes`` (Unix seconds)."""
        game = self.table.game
        assert game is not None
        window = Window(turn=game.current, closes=closes, catchable=game.catchable)
        self.window = window
        self.table.later(self.table.window_ms / 1000, self._close, window)

    def hold(self, intent: HeldIntent) -> None:
        """Keep ``intent`` for the open window's close."""
        assert self.window is not None
        self.window.held.append(intent)
        self.table.wake()

    def timer_due(self) -> bool:
        """The turn timer came due: True if a window is open (its close plays
        the timer's move), False if the timer may act now."""
        if self.window is None:
            return False
        self.window.timer_due = True
        return True

    def cancel(self) -> None:
        """Forget the open window (the table closes)."""
        self.window = None

    def _close(self, window: Window) -> None:
        """The window timer: judge what ``window`` holds. If nothing took effect,
        the turn timer (when it came due meanwhile) or the bots act now, so the
        game never waits on a window."""
        if window is not self.window:
            return  # the table closed meanwhile
        self.window = None
        table = self.table
        if table.game is None or table.state is not TableState.PLAYING or table.closing:
            return
        version = table.version
        self._resolve(window)
        if table.version == version:
            if window.timer_due:
                table.timeout(version)
            else:
                table.bots.schedule()  # a bot whose held intent was refused decides again

    def _resolve(self, window: Window) -> None:
        """Judge what ``window`` holds (:func:`.window.resolve`): by the engine,
        through :meth:`_take`, in the window's order. The updates of what took
        effect are written once, at the end: after every refusal of the
        window, so no refusal arrives after an update that supersedes it."""
        self.judging = True
        try:
            resolve(window, self._take, self._refuse, self.table.name_of)
        finally:
            self.judging = False
            closes, self.updates_due = self.updates_due, None
            if closes is not None:
                self.table.send_updates(closes)

    def _take(self, intent: HeldIntent) -> bool:
        """Take a held intent as if it arrived now (held again if a new window
        opened meanwhile, refusals too, so that answers keep the order intents
        were sent in). Returns :meth:`.table.Table.act`'s answer."""
        table = self.table
        if self.window is not None:  # held again for the new window, as first sent
            self.hold(intent)
            return True
        if intent.action is None:
            table.refuse_intent(intent.seat, *intent.refusal, intent.action_id)
            return False
        if (
            intent.action.kind in TURN_KINDS
            and intent.action.kind is not ActionKind.PLAY
            and intent.seat != intent.turn
        ):  # judged as sent: not its turn then
            self._refuse(
                intent,
                Reason.NOT_YOUR_TURN,
                f"it was {table.name_of(intent.turn)}'s turn when this arrived",
            )
            return False
        return table.act(intent.seat, intent.action, intent.action_id, intent.source)

    def _refuse(self, intent: HeldIntent, reason: str, message: str) -> None:
        self.table.refuse(intent.seat, str(reason), message, intent.action_id)
