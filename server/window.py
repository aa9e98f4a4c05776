"""The out-of-turn window's judge (server/RULES.md, "Out-of-turn window
(server)"): which held intent is taken first when a window closes.

Pure: :func:`resolve` orders the intents and hands each to a ``take``
callback (the table applies it with the engine and says whether it took
effect) or to ``refuse``; it keeps no state and knows no clock, so it is
tested on its own with fake callbacks (tests/test_windows.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from unoplay.game.actions import Action, ActionKind
from unoplay.game.errors import Reason
from unoplay.game.view import Phase

#: Actions that only the player to move takes: a jump-in beats them.
TURN_KINDS = frozenset(
    {
        ActionKind.PLAY,
        ActionKind.DRAW,
        ActionKind.KEEP,
        ActionKind.CHALLENGE,
        ActionKind.ACCEPT,
        ActionKind.CHOOSE_COLOUR,
    }
)
#: Phases in which the engine lets anyone jump in (RULES.md section 8).
JUMP_PHASES = (Phase.PLAY, Phase.DRAWN, Phase.PENALTY)


@dataclass(frozen=True, slots=True)
class HeldIntent:
    """An intent that arrived while an out-of-turn window was open."""

    seat: int
    action: Action | None  #: None: the service could not read it (see ``refusal``)
    action_id: int  #: the wire id it came with, or 0
    source: str  #: player, bot or stand_in
    refusal: tuple[str, str] = ("", "")  #: (reason, message) when ``action`` is None
    turn: int = -1  #: the seat to move when it first arrived


@dataclass(slots=True)
class Window:
    """An open out-of-turn window: the position it opened on and what it holds."""

    turn: int  #: the seat to move when it opened
    closes: float  #: when it closes, Unix seconds
    catchable: int  #: the seat that could be caught when it opened, or -1
    held: list[HeldIntent] = field(default_factory=list)  #: in arrival order
    timer_due: bool = False  #: the turn timer came due while it was open


def resolve(
    window: Window,
    take: Callable[[HeldIntent], bool],
    refuse: Callable[[HeldIntent, str, str], None],
    name: Callable[[int], str],
) -> None:
    """Judge the intents held by ``window``, in this order (each by the
    engine, on the game as the earlier ones left it):

    1. UNO calls by the seat that was catchable: a call protects them, so
       catches are then refused with the engine's ``already_called``;
    2. catches, earliest first: the first that the engine accepts wins,
       the rest are refused (``not_one_card``);
    3. jump-ins (plays by any seat but the one to move), earliest first:
       the first that the engine accepts wins; every later one is refused
       with ``jump_in_lost``, naming the winner;
    4. everything else in arrival order. After a jump-in, the turn actions
       of the seat that was to move are refused with ``jumped_in``.
       Otherwise they are applied; an intent that arrives after a change
       that opened a new window is held for that one.
    """

    def kind(h: HeldIntent) -> Any:
        return h.action.kind if h.action is not None else None

    held = window.held
    calls = [h for h in held if kind(h) == ActionKind.CALL_UNO and h.seat == window.catchable]
    catches = [h for h in held if kind(h) == ActionKind.CATCH]
    jumps = [h for h in held if kind(h) == ActionKind.PLAY and h.seat != window.turn]
    early = {id(h) for h in calls + catches + jumps}
    rest = [h for h in held if id(h) not in early]
    for h in calls + catches:
        take(h)
    jumper = -1
    for h in jumps:
        if jumper >= 0:
            refuse(h, Reason.JUMP_IN_LOST, f"{name(jumper)} jumped in first")
        elif take(h):
            jumper = h.seat
    for h in rest:
        if jumper >= 0 and h.seat == window.turn and kind(h) in TURN_KINDS:
            refuse(h, Reason.JUMPED_IN, f"{name(jumper)} jumped in first")
        else:
            take(h)
