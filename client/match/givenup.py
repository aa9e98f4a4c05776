"""The records of games a worker gave up unplayed (:mod:`.pool`'s
:class:`~.pool.WorkerLost`): crashed at once when a bot's code ended the
worker's process (``os._exit``) or hung it, else played again, and given up
after :data:`MAX_ATTEMPTS` (crashed when the worker's process ended by itself
each time, an error when its machine was lost)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .entrants import Entrant
from .pool import WorkerLost
from .result import CRASHED, ERROR, GameResult
from .schedule import GameSpec

#: Times a game is handed out before it is given up (its workers kept dying).
MAX_ATTEMPTS = 3


def in_process_seats(spec: GameSpec, entrants: Sequence[Entrant], kind: str = "") -> str:
    """The seats of game ``spec`` played in the worker's process (every
    entrant but external commands; only those of ``kind`` when given), as
    "seat 1 (greedy), seat 2 (Bot)"."""
    return ", ".join(
        f"seat {s + 1} ({entrants[e].label})"
        for s, e in enumerate(spec.seats)
        if not entrants[e].external and (not kind or entrants[e].kind == kind)
    )


def bot_exit(spec: GameSpec, culprit: dict[str, Any], entrants: Sequence[Entrant]) -> GameResult:
    """Game ``spec``, crashed: a bot's code ended the worker's process with
    ``os._exit`` (``culprit``: what the worker saw, :func:`.worker.blame`)."""
    seat = culprit.get("seat")
    what = f"os._exit({culprit.get('code')}) at {culprit.get('at', '?')}"
    label = None
    if isinstance(seat, int) and 0 <= seat < len(spec.seats):
        label = entrants[spec.seats[seat]].label
        reason = f"seat {seat + 1} ({label}) ended its worker process: {what}"
    else:
        seat = None
        suspects = in_process_seats(spec, entrants, culprit.get("kind", "")) or in_process_seats(
            spec, entrants
        )
        reason = f"a bot ended its worker process: {what}; its in-process bots: {suspects}"
    return _given_up(
        spec,
        CRASHED,
        reason,
        {
            "seat": seat,
            "label": label,
            "code": culprit.get("code"),
            "stderr": culprit.get("stack", ""),
            "exit": True,
        },
    )


def _given_up(spec: GameSpec, status: str, reason: str, crash: dict[str, Any] | None) -> GameResult:
    """The record of game ``spec``, given up unplayed by its worker."""
    return GameResult(
        spec.index,
        spec.deal,
        spec.rotation,
        spec.seed,
        list(spec.seats),
        status,
        reason=reason,
        crash=crash,
        attempt=spec.attempt,
    )


def hung(spec: GameSpec, err: WorkerLost, entrants: Sequence[Entrant]) -> GameResult:
    """Game ``spec``, crashed: its worker gave no answer within its bound
    (``err.hung``: its threads' stacks, which show where a bot's code was)."""
    return _given_up(
        spec,
        CRASHED,
        f"{err}; its in-process bots: {in_process_seats(spec, entrants) or 'none'}",
        {"seat": None, "label": None, "code": None, "stderr": err.hung or ""},
    )


def lost(spec: GameSpec, err: WorkerLost, entrants: Sequence[Entrant]) -> GameResult:
    """Game ``spec``, given up after its worker was lost :data:`MAX_ATTEMPTS`
    times (``err``: the last time): crashed when the worker's process ended
    by itself (its in-process bots are named: the game is the same each
    time), an error otherwise (a lost machine: nobody's fault)."""
    if err.exited:
        status = CRASHED
        reason = (
            f"the worker process {err.exited} during game {spec.index} ({MAX_ATTEMPTS} times); "
            f"its in-process bots: {in_process_seats(spec, entrants) or 'none'}"
        )
        crash: dict[str, Any] | None = {"seat": None, "label": None, "code": err.code, "stderr": ""}
    else:
        status, reason, crash = ERROR, f"its worker was lost {MAX_ATTEMPTS} times: {err}", None
    return _given_up(spec, status, reason, crash)
