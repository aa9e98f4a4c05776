"""A table's out-of-turn window (server/RULES.md, "Out-of-turn window
(server)"): after a play that opens an out-of-turn chance (a missed UNO to
catch, a card to jump in on), every intent is held for ``window_ms`` and
then judged by a fixed rule (:func:`.window.resolve`), so that the fastest
packet does not win.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from unoplay.game.actions import Action, ActionKind
from unoplay.game.cards import RANK, Rank
from unoplay.game.engine import GameState
from unoplay.game.errors import Reason
from unoplay.game.events import Event, EventKind

from .seats import Seats
from .window import JUMP_PHASES, TURN_KINDS, HeldIntent, Window, resolve

#: Takes an intent as if it arrived now: ``(seat, action, action_id, source)``,
#: True if it was applied (or held again), False if refused.
Act = Callable[[int, Action, int, str], bool]
#: Refuses an intent: ``(seat, reason, message, action_id)``.
Refuse = Callable[[int, str, str, int], None]


class OutOfTurn:
    """Opens, holds and judges a table's out-of-turn windows. It is given the
    game when a window opens, and judges through the table's ``act`` and
    ``refuse``; what it keeps is the open window and, while judging, when
    the updates of the judgement are due."""

    def __init__(
        self, window_ms: int, jump_in: bool, seats: Seats, act: Act, refuse: Refuse
    ) -> None:
        """The windows of a table with ``window_ms`` (0: none) and the rules'
        ``jump_in``; ``seats`` name the players in refusals; held intents are
        taken with ``act`` and refused with ``refuse``."""
        self.window_ms = window_ms
        self.jump_in = jump_in
        self.seats = seats
        self.act = act
        self.refuse = refuse
        self.window: Window | None = None  #: the open window
        self.judging = False  #: judging a window: updates wait for its end
        self._updates_due: float | None = None  # (the window close they will carry)

    @property
    def held(self) -> tuple[HeldIntent, ...]:
        """The intents the open window holds, in arrival order (empty: no window)."""
        return tuple(self.window.held) if self.window is not None else ()

    @property
    def closes(self) -> float:
        """When the open window closes (Unix seconds; 0.0: no window)."""
        return self.window.closes if self.window is not None else 0.0

    def opens(self, game: GameState, events: Sequence[Event]) -> float:
        """When the window the change of ``game`` that made ``events`` opens
        closes (Unix seconds, ``window_ms`` from now), or 0.0 for none. A play
        opens one when it leaves its player catchable, or, under ``jump_in``,
        any play of a card that has a twin (every card but a 0) while the
        round goes on. None ever with ``window_ms`` 0."""
        if not self.window_ms or game.is_round_over:
            return 0.0
        if not any(e.kind == EventKind.PLAYED for e in events):
            return 0.0
        jump = self.jump_in and game.phase in JUMP_PHASES and RANK[game.top_card] != Rank.ZERO
        return time.time() + self.window_ms / 1000 if game.catchable >= 0 or jump else 0.0

    def open(self, game: GameState, closes: float) -> Window:
        """Open a window on ``game`` that closes at ``closes`` (Unix seconds);
        the table calls :meth:`closed` with it ``window_ms`` later."""
        self.window = Window(turn=game.current, closes=closes, catchable=game.catchable)
        return self.window

    def hold(self, intent: HeldIntent) -> bool:
        """Keep ``intent`` for the open window's close: True, or False when no
        window is open (the table takes it now)."""
        if self.window is None:
            return False
        self.window.held.append(intent)
        return True

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

    def refuse_held(self, reason: str, message: str) -> None:
        """Refuse every intent the open window holds, for ``reason`` (the
        server is stopping); it is closed when the table closes."""
        for intent in self.held:
            self.refuse(intent.seat, reason, message, intent.action_id)

    def closed(self, window: Window) -> bool:
        """The window timer of ``window`` ran: True if it was the open window
        (now closed, to be judged), False if the table closed meanwhile."""
        if window is not self.window:
            return False
        self.window = None
        return True

    def defer(self, closes: float) -> bool:
        """A change while a window is judged: True, and the updates of now
        wait for the judgement's end (after its refusals, so that no refusal
        arrives after an update that supersedes it), carrying ``closes``;
        False when no window is judged (the table writes them now)."""
        if self.judging:
            self._updates_due = closes
        return self.judging

    def judge(self, window: Window) -> float | None:
        """Judge what ``window`` holds (:func:`.window.resolve`): by the engine,
        through ``act``, in the window's order. Returns the window close the
        updates of what took effect carry (the table writes them once, at the
        end: after every refusal of the window), or None when nothing did."""
        self.judging = True
        try:
            resolve(window, self._take, self._refuse, self.name_of)
        finally:
            self.judging = False
            window.held.clear()  # (its timer's handle may outlive it a while)
            due, self._updates_due = self._updates_due, None
        return due

    def name_of(self, seat: int) -> str:
        """The name of whoever sits at ``seat``, for messages."""
        return self.seats[seat].name or f"player {seat}"

    def _take(self, intent: HeldIntent) -> bool:
        """Take a held intent as if it arrived now (held again if a new window
        opened meanwhile, refusals too, so that answers keep the order intents
        were sent in). Returns ``act``'s answer."""
        if self.window is not None:  # held again for the new window, as first sent
            self.hold(intent)
            return True
        if intent.action is None:
            self.refuse(intent.seat, *intent.refusal, intent.action_id)
            return False
        if (
            intent.action.kind in TURN_KINDS
            and intent.action.kind is not ActionKind.PLAY
            and intent.seat != intent.turn
        ):  # judged as sent: not its turn then
            self._refuse(
                intent,
                Reason.NOT_YOUR_TURN,
                f"it was {self.name_of(intent.turn)}'s turn when this arrived",
            )
            return False
        return self.act(intent.seat, intent.action, intent.action_id, intent.source)

    def _refuse(self, intent: HeldIntent, reason: str, message: str) -> None:
        self.refuse(intent.seat, str(reason), message, intent.action_id)
