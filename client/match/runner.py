"""The match runner: hands the schedule's games to its workers, many at
once, records each result as it arrives (SQLite, statistics, the SPRT) and
stops when the games are done, the SPRT decides, a crash says so, or it is
told to (:class:`MatchControl`: the command line's Ctrl-C)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from unoplay.game.rules import RuleSet

from ..address import reach_problem
from ..sdk import ServerError
from .entrants import Entrant, code_changes, code_fingerprints, describe_change
from .errors import MatchError
from .game import ILLEGAL_BUDGET, ILLEGAL_LIMIT, Setup, teams_format
from .pool import InlineWorker, ProcessWorker, Worker, WorkerLost
from .report import build_report
from .result import CRASHED, ERROR, GameResult
from .schedule import GameSpec, Schedule, make_schedule
from .sprt import Sprt, SprtSpec
from .stats import MatchStats
from .store import MatchStore, fingerprint, write_jsonl

log = logging.getLogger("unoplay.match")

#: Times a game is handed out before it is given up (its workers kept dying).
MAX_ATTEMPTS = 3
#: An entrant that forfeited each of its first this many games stops the match:
#: a broken bot (always illegal, always too slow), whose match says nothing.
BROKEN_AFTER = 5
WORKER_KINDS = ("inline", "processes", "ray")
ON_CRASH = ("stop", "continue")


@dataclass
class MatchControl:
    """Stops a match from outside: :meth:`stop` starts no more games (those
    in flight finish and count), :meth:`abandon` also gives up the games in
    flight (not stored: ``--resume`` plays them)."""

    stopping: str = ""  #: why no more games start ("" while they do)
    abandoned: bool = False
    _abandon: asyncio.Event = field(default_factory=asyncio.Event)

    def stop(self, reason: str = "interrupted") -> None:
        """Start no more games (``reason`` goes in the report); the first reason stays."""
        if not self.stopping:
            self.stopping = reason

    def abandon(self, reason: str = "interrupted") -> None:
        """Start no more games and give up those in flight."""
        self.stop(reason)
        self.abandoned = True
        self._abandon.set()

    async def abandoned_wait(self) -> None:
        """Wait until :meth:`abandon` is called."""
        await self._abandon.wait()


@dataclass(frozen=True)
class Progress:
    """The match so far, after each game."""

    done: int  #: games recorded (resumed ones included)
    total: int
    running: int
    counts: dict[str, int]
    sprt: str
    result: GameResult | None


def pick_pair(entrants: list[Entrant], baseline: str | None) -> tuple[int, int]:
    """(candidate, baseline) entrant indices of the SPRT: the first entrant
    against the second, or against the entrant labelled ``baseline``.
    Raises ValueError for an unknown label or the candidate itself."""
    if baseline is None:
        return 0, 1
    labels = [e.label for e in entrants]
    if baseline not in labels:
        raise ValueError(f"--baseline {baseline!r}: no such entrant; they are {', '.join(labels)}")
    index = labels.index(baseline)
    if index == 0:
        raise ValueError(
            f"--baseline {baseline!r} is the candidate (the first entrant): name another"
        )
    return 0, index


class MatchRun:
    """One run of a match (see :func:`run_match`)."""

    def __init__(
        self,
        entrants: list[Entrant],
        schedule: Schedule,
        setup: Setup,
        specs: list[GameSpec],
        stats: MatchStats,
        sprt: Sprt | None,
        pair: tuple[int, int],
        store: MatchStore | None,
        match_id: int | None,
        control: MatchControl,
        on_crash: str,
        progress: Callable[[Progress], None] | None,
        total: int,
    ) -> None:
        self.total = total
        self.entrants = entrants
        self.schedule = schedule
        self.setup = setup
        self.specs = specs
        self.stats = stats
        self.sprt = sprt
        self.pair = pair
        self.after_decision: list[int] = []  #: games recorded after the SPRT decided
        self.store = store
        self.match_id = match_id
        self.control = control
        self.on_crash = on_crash
        self.progress = progress
        self.labels = [e.label for e in entrants]
        self.running = 0
        self.most_running = 0  #: the most games in the workers' hands at one time
        self.played = 0
        self.lost_workers = 0
        self.left: list[dict[str, str]] = []  #: workers that could not be replaced
        self.unplayed = 0  #: games left unplayed when every worker was lost
        self.crash: GameResult | None = None
        self.broken = ""  #: why an entrant that forfeits every game stopped the match
        self._fed_deals: set[int] = set()

    # -------------------------------------------------------- results

    def feed_sprt(self, result: GameResult) -> None:
        """The SPRT's observation for this game's deal once it is complete
        (every game of it counted). After the decision a game changes
        nothing: it is listed in :attr:`after_decision`."""
        sprt = self.sprt
        if sprt is None:
            return
        if sprt.decision:
            self.after_decision.append(result.index)
            return
        if result.deal not in self._fed_deals and self.stats.deal_complete(result.deal):
            self._fed_deals.add(result.deal)
            sprt.add(*self.stats.pair_score(result.deal, *self.pair))
        if sprt.decision and not self.control.stopping:
            self.control.stop(f"SPRT: {sprt.decision} accepted")

    def record(self, result: GameResult) -> None:
        """A game's result: stored (once), counted, tested."""
        if result.index in self.stats.results:
            return  # a game replayed after a lost worker: already counted
        record, result.packed_record = result.packed_record, None  # to the file, not kept here
        if self.store is not None and self.match_id is not None:
            self.store.add(self.match_id, result, [self.labels[e] for e in result.seats], record)
        self.stats.add(result)
        self.played += 1
        self.feed_sprt(result)
        if result.status == CRASHED and self.on_crash == "stop":
            self.crash = self.crash or result
            self.control.stop(f"game {result.index}: {result.reason}")
        self._check_broken(result)
        self._progress(result)

    def _check_broken(self, result: GameResult) -> None:
        """Stop the match when an entrant of ``result`` has forfeited each of
        the (at least :data:`BROKEN_AFTER`) games it played."""
        if self.broken:
            return
        for e in dict.fromkeys(result.seats):
            if self.stats.forfeited_all(e, BROKEN_AFTER):
                games = self.stats.totals[e].played
                self.broken = (
                    f"{self.labels[e]} forfeited each of the {games} games it played "
                    f"(the last, game {result.index}: {result.reason}): "
                    "a match of a bot that cannot play says nothing"
                )
                self.control.stop(self.broken)
                return

    def _progress(self, result: GameResult | None) -> None:
        if self.progress is not None:
            self.progress(
                Progress(
                    len(self.stats.results),
                    self.total,
                    self.running,
                    self.stats.summary(),
                    self.sprt.status() if self.sprt is not None else "",
                    result,
                )
            )

    # -------------------------------------------------------- driving

    async def drive(self, workers: list[Worker]) -> None:
        """Play every pending game on ``workers`` until done or stopped.

        A game whose worker was lost goes back to the front of the queue for
        any worker (up to :data:`MAX_ATTEMPTS` times), unless the worker saw
        a bot end it (:class:`.pool.WorkerLost`'s ``culprit``: the game is
        crashed at once). A worker that cannot be replaced leaves the match
        (:attr:`left`); when none is left with games still to play, the
        match stops (:attr:`control`'s reason: every worker was lost) and
        :attr:`unplayed` counts them."""
        queue: deque[GameSpec] = deque(self.specs)
        control = self.control
        wake = asyncio.Event()  # a game went back to the queue, or one ended

        async def slot(worker: Worker) -> None:
            while not control.stopping:
                if not queue:
                    if not self.running:
                        return  # nothing to play, nothing that may come back
                    wake.clear()
                    await wake.wait()  # a game in another's hands may come back
                    continue
                spec = queue.popleft()
                self.running += 1
                self.most_running = max(self.most_running, self.running)
                try:
                    result = await worker.play(spec)
                except WorkerLost as err:
                    if control.abandoned:
                        return
                    self.lost(spec, err, queue)
                    try:
                        await worker.restart()
                    except Exception as again:  # any reason: it leaves
                        why = str(again) or type(again).__name__
                        log.error("worker %s cannot be replaced: %s; it leaves", worker.name, why)
                        self.left.append({"worker": worker.name, "why": why})
                        return
                    continue
                finally:
                    self.running -= 1
                    wake.set()
                self.record(result)

        self._progress(None)
        tasks = [asyncio.create_task(slot(w)) for w in workers]
        slots: asyncio.Future[Any] = asyncio.gather(*tasks)
        abandon: asyncio.Future[Any] = asyncio.create_task(control.abandoned_wait())
        try:
            done, _ = await asyncio.wait([slots, abandon], return_when=asyncio.FIRST_COMPLETED)
            if slots in done:
                slots.result()  # a bug in a slot is not silent
            else:  # abandoned: give up the games in flight
                await asyncio.gather(
                    *(w.close(abandon=True) for w in workers), return_exceptions=True
                )
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
            if queue and not control.stopping:
                self.unplayed = len(queue)
                control.stop(f"every worker was lost; {len(queue)} games not played")
        finally:
            abandon.cancel()
            for task in tasks:
                task.cancel()
            if not slots.done():
                slots.cancel()
            with contextlib.suppress(BaseException):
                await slots

    def lost(self, spec: GameSpec, err: WorkerLost, queue: deque[GameSpec]) -> None:
        """Game ``spec``'s worker was lost (``err``): crashed at once when a
        bot's code ended it, else played again (to the front of ``queue``),
        and given up after :data:`MAX_ATTEMPTS` (crashed when the worker's
        process ended by itself each time: its bots are the suspects)."""
        culprit = err.culprit or {}
        if culprit.get("bot"):
            self.record(_bot_exit(spec, culprit, self.entrants))
            return
        if err.hung is not None:  # the same game would hang again: a crash, at once
            self.record(_hung(spec, err, self.entrants))
            return
        if spec.attempt + 1 >= MAX_ATTEMPTS:
            log.warning("game %d: %s; it is given up", spec.index, err)
            self.record(_lost(spec, err, self.entrants))
        else:
            log.warning("game %d: %s; it is played again", spec.index, err)
            self.lost_workers += 1
            queue.appendleft(dataclasses.replace(spec, attempt=spec.attempt + 1, fault=""))


def _in_process(spec: GameSpec, entrants: list[Entrant], kind: str = "") -> str:
    """The seats of game ``spec`` played in the worker's process (every
    entrant but external commands; only those of ``kind`` when given), as
    "seat 1 (greedy), seat 2 (Bot)"."""
    return ", ".join(
        f"seat {s + 1} ({entrants[e].label})"
        for s, e in enumerate(spec.seats)
        if not entrants[e].external and (not kind or entrants[e].kind == kind)
    )


def _bot_exit(spec: GameSpec, culprit: dict[str, Any], entrants: list[Entrant]) -> GameResult:
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
        suspects = _in_process(spec, entrants, culprit.get("kind", "")) or _in_process(
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


def _hung(spec: GameSpec, err: WorkerLost, entrants: list[Entrant]) -> GameResult:
    """Game ``spec``, crashed: its worker gave no answer within its bound
    (``err.hung``: its threads' stacks, which show where a bot's code was)."""
    return _given_up(
        spec,
        CRASHED,
        f"{err}; its in-process bots: {_in_process(spec, entrants) or 'none'}",
        {"seat": None, "label": None, "code": None, "stderr": err.hung or ""},
    )


def _lost(spec: GameSpec, err: WorkerLost, entrants: list[Entrant]) -> GameResult:
    """Game ``spec``, given up after its worker was lost :data:`MAX_ATTEMPTS`
    times (``err``: the last time): crashed when the worker's process ended
    by itself (its in-process bots are named: the game is the same each
    time), an error otherwise (a lost machine: nobody's fault)."""
    if err.exited:
        status = CRASHED
        reason = (
            f"the worker process {err.exited} during game {spec.index} ({MAX_ATTEMPTS} times); "
            f"its in-process bots: {_in_process(spec, entrants) or 'none'}"
        )
        crash: dict[str, Any] | None = {"seat": None, "label": None, "code": err.code, "stderr": ""}
    else:
        status, reason, crash = ERROR, f"its worker was lost {MAX_ATTEMPTS} times: {err}", None
    return _given_up(spec, status, reason, crash)


def match_settings(
    entrants: list[Entrant],
    rules: RuleSet,
    seed: int,
    schedule: Schedule,
    setup: Setup,
    sprt: SprtSpec | None = None,
    pair: tuple[int, int] = (0, 1),
) -> dict[str, Any]:
    """What decides the games of a match (its fingerprint's input; also
    stored), and with ``sprt`` the test's hypotheses and its (candidate,
    baseline) ``pair``."""
    settings: dict[str, Any] = {
        "entrants": [e.to_dict() for e in entrants],
        "rules": rules.to_dict(),
        "seed": seed,
        "schedule": schedule.kind,
        "table_size": schedule.table_size,
        "duplicate": schedule.duplicate,
        "window_ms": setup.window_ms,
        "max_actions": setup.max_actions,
        "move_time": setup.move_time,
        "away_grace": setup.away_grace,
        "illegal_limit": setup.illegal_limit,
        "illegal_budget": setup.illegal_budget,
    }
    if sprt is not None:
        settings["sprt"] = {**sprt.to_dict(), "pair": list(pair)}
    return settings


#: The formats ``--plot`` writes, by the file's suffix (:mod:`.plot`).
PLOT_SUFFIXES = (".svg", ".png", ".pdf")


def check_outputs(
    out: str | Path | None = None,
    plot: str | Path | None = None,
    jsonl: str | Path | None = None,
    *,
    make_out_dir: bool = True,
) -> None:
    """Raise ValueError, in one line naming the option, unless the files a
    match writes at its end or as it goes can be written: ``plot`` (a suffix
    of :data:`PLOT_SUFFIXES`, matplotlib installed), ``jsonl`` and ``out``
    (a SQLite file, or none yet) in a directory that exists (``out``'s is
    made when ``make_out_dir``: then its nearest existing parent is
    checked), each tried as it would be written (nothing is created)."""
    if plot is not None:
        suffix = Path(plot).suffix.lower()
        if suffix not in PLOT_SUFFIXES:
            raise ValueError(
                f"--plot {plot}: its suffix gives the format: {', '.join(PLOT_SUFFIXES)}"
            )
        import importlib.util

        if importlib.util.find_spec("matplotlib") is None:
            raise ValueError("--plot needs matplotlib, the plot extra: pip install 'unoplay[plot]'")
    for option, path in (("--out", out), ("--plot", plot), ("--jsonl", jsonl)):
        if path is not None:
            _check_writable(option, Path(path), make_dir=make_out_dir and option == "--out")
    if out is not None and Path(out).is_file():
        with open(out, "rb") as f:
            head = f.read(16)
        if head and head != b"SQLite format 3\x00":
            raise ValueError(f"--out {out}: not a SQLite file (a match file of uno match)")


def _check_writable(option: str, path: Path, make_dir: bool) -> None:
    """Raise ValueError unless file ``path`` can be written (see :func:`check_outputs`)."""
    import tempfile

    if path.is_dir():
        raise ValueError(f"{option} {path}: a directory, not a file")
    if path.exists():
        try:
            with open(path, "ab"):  # (appends nothing: its content stays)
                pass
        except OSError as err:
            raise ValueError(f"{option} {path}: cannot write it ({err.strerror})") from None
        return
    parent = path.parent
    if not parent.is_dir():
        if not make_dir or parent.exists():
            what = "not a directory" if parent.exists() else "no such directory"
            raise ValueError(f"{option} {path}: {what}: {parent}")
        while not parent.exists():  # made when the match starts: where it would be made
            parent = parent.parent
        if not parent.is_dir():
            raise ValueError(f"{option} {path}: not a directory: {parent}")
    try:
        tempfile.TemporaryFile(dir=parent).close()
    except OSError as err:
        raise ValueError(f"{option} {path}: cannot write in {parent} ({err.strerror})") from None


def default_concurrency() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


async def run_match(
    entrants: list[Entrant],
    games: int,
    seed: int,
    rules: RuleSet,
    server: str | None = None,
    progress: Callable[[Progress], None] | None = None,
    window_ms: int = 0,
    *,
    concurrency: int = 1,
    workers: str | None = None,
    duplicate: str = "",
    schedule: str = "rotation",
    table_size: int | None = None,
    sprt: SprtSpec | None = None,
    baseline: str | None = None,
    max_actions: int | None = None,
    move_time: int = 0,
    away_grace: int | None = None,
    illegal_limit: int = ILLEGAL_LIMIT,
    illegal_budget: int = ILLEGAL_BUDGET,
    on_crash: str = "stop",
    out: str | Path | None = None,
    resume: bool = False,
    allow_changed: bool = False,
    plot: str | Path | None = None,
    jsonl: str | Path | None = None,
    log_dir: str | Path | None = None,
    ray: str | None = None,
    control: MatchControl | None = None,
    faults: Iterable[int] = (),
    network: bool = False,
) -> dict[str, Any]:
    """Play a match and return its report (:func:`.report.build_report`).

    ``games`` games (with ``duplicate``, rounded up to whole deals) of the
    ``schedule`` between ``entrants``, seeded from ``seed`` (game or deal
    ``d`` is dealt from ``seed + d``), ``concurrency`` at once on
    ``workers``: "inline" (this event loop; the default for one at a time),
    "processes" (a worker process each; the default for more) or "ray" (Ray
    actors; ``ray`` is the cluster's address, "auto", or "local"; an
    initialised Ray is used as it is). No ``server``: every worker embeds
    one on loopback, at which Python entrants play their seats in the
    worker's process, without the wire (``network`` True: over gRPC, as at
    any server). ``out``: the SQLite file of results (none: kept in
    memory); ``resume`` continues the latest match of ``out`` with the same
    settings, playing only the games it lacks; it refuses an entrant whose
    code changed since (:func:`.entrants.code_fingerprints`) unless
    ``allow_changed``, and a match the SPRT decided is reported, not
    reopened. ``sprt`` tests the candidate (the first entrant) against the
    baseline (the second, or the entrant labelled ``baseline``) on deals
    played in swapped pairs (:mod:`.sprt`, :mod:`.schedule`) and stops the
    match once it decides. A bot whose intents are refused more than
    ``illegal_limit`` times in one decision, or more than ``illegal_budget``
    times in a game, forfeits it (void). ``plot``: an SVG or PNG file of the SPRT's path
    (:mod:`.plot`). Files it cannot write are refused before any game
    (:func:`check_outputs`). ``faults`` (tests): game indices whose worker exits in
    the middle of their first attempt. Raises MatchError (a crash with
    ``on_crash="stop"``, workers that cannot start, nothing to resume, a
    changed entrant) and ValueError for settings that make no match.
    """
    if games <= 0:
        raise ValueError("a match needs at least one game (--games 1 or more)")
    check_outputs(out, plot, jsonl)
    if on_crash not in ON_CRASH:
        raise ValueError(f"on_crash is {' or '.join(ON_CRASH)}, not {on_crash!r}")
    if ray is not None:
        workers = "ray"
    if concurrency < (0 if workers == "ray" else 1):
        raise ValueError("concurrency must be 1 or more")
    kind = workers or ("inline" if concurrency == 1 else "processes")
    if kind not in WORKER_KINDS:
        raise ValueError(f"workers are {', '.join(WORKER_KINDS)}, not {kind!r}")
    identities = [e.identity for e in entrants]
    pair = pick_pair(entrants, baseline) if sprt is not None else (0, 1)
    if sprt is not None and teams_format(rules):
        raise ValueError("--sprt compares two entrants, not teams")
    plan = make_schedule(
        identities, schedule, table_size, duplicate, pair if sprt is not None else None
    )
    if plan.kind == "partner-rotation" and not teams_format(rules):
        raise ValueError("partner rotation is played in the teams format (--rule format=teams)")
    rules.check_players(plan.table_size)  # RuleError (a ValueError) for a format it cannot seat
    test = Sprt(sprt) if sprt is not None else None
    setup = Setup(
        tuple(entrants),
        rules.to_dict(),
        window_ms=window_ms,
        max_actions=max_actions,
        move_time=move_time,
        away_grace=away_grace,
        illegal_limit=illegal_limit,
        illegal_budget=illegal_budget,
        server=server,
        log_dir=str(log_dir) if log_dir else None,
        sys_path=tuple(p for p in sys.path if p),
        network=network,
        records=out is not None,
    )
    if log_dir:
        Path(log_dir).mkdir(parents=True, exist_ok=True)
    settings = match_settings(entrants, rules, seed, plan, setup, sprt, pair)
    print_ = fingerprint(settings)
    settings["code"] = code_fingerprints(entrants)  # kept, but not part of the fingerprint
    total = plan.total(games)
    store = MatchStore(out) if out else None
    control = control or MatchControl()
    started = time.monotonic()
    try:
        match_id = None
        stored: list[GameResult] = []
        code_history: list[dict[str, Any]] = []
        if store is not None:
            if resume:
                match_id = store.find(print_)
                if match_id is None:
                    raise MatchError(
                        f"nothing to resume: {out} has no match with these settings "
                        "(the same entrants, rules, seed, schedule, table options and --sprt)"
                    )
                previous = store.match(match_id)
                changed = code_changes(previous.settings.get("code"), settings["code"])
                if changed and not allow_changed:
                    raise MatchError(
                        f"match {match_id}'s entrants changed since its games were played: "
                        + "; ".join(map(describe_change, changed))
                        + ". Its results would mix two versions; start a new match (without "
                        "--resume), or --allow-changed to play on anyway"
                    )
                if changed:  # played on: said in the file and in every report of it
                    store.note_code_change(
                        match_id,
                        {"at": time.time(), "games_before": previous.games, "entrants": changed},
                        settings["code"],
                    )
                code_history = store.match(match_id).settings.get("code_changes", [])
                stored = [
                    r
                    for r in store.results(match_id, arrival=True)
                    if r.status not in (CRASHED, ERROR)
                ]
                if not (test is not None and previous.state == "done"):
                    store.set_state(match_id, "running", planned=total)
            else:
                match_id = store.create(settings, print_, total)
        elif resume:
            raise MatchError("--resume needs the match's file (--out)")
        stats = MatchStats(entrants, plan, teams=teams_format(rules))
        done = {r.index for r in stored}
        faulty = set(faults)
        specs = [
            dataclasses.replace(spec, fault="exit-worker") if spec.index in faulty else spec
            for spec in plan.specs(games, seed)
            if spec.index not in done
        ]
        run = MatchRun(
            entrants,
            plan,
            setup,
            specs,
            stats,
            test,
            pair,
            store,
            match_id,
            control,
            on_crash,
            progress,
            total,
        )
        for result in stored:  # in the order they arrived: the SPRT's path again
            stats.add(result)
            run.feed_sprt(result)
        if test is not None and test.decision:  # decided in an earlier run
            control.stopping = f"SPRT: {test.decision} accepted before; --resume does not reopen it"
        count = min(concurrency, len(specs)) if concurrency else 0  # 0: Ray's CPUs
        pool: list[Worker] = []
        if specs and not control.stopping:
            pool = await _start_workers(kind, setup, count, log_dir, ray, len(specs))
            try:
                count = len(pool)
                await run.drive(pool)
            finally:
                await asyncio.gather(
                    *(w.close(abandon=control.abandoned) for w in pool), return_exceptions=True
                )
                if kind == "ray":
                    from .cluster import shutdown

                    shutdown()
        elapsed = time.monotonic() - started
        report = build_report(
            stats,
            rules,
            seed=seed,
            planned=total,
            played_now=run.played,
            elapsed=elapsed,
            concurrency=count if specs else 0,
            workers=kind,
            sprt=test,
            pair=pair,
            after_decision=run.after_decision,
            stopped=control.stopping,
            match_id=match_id,
            out=str(out) if out else None,
            lost_workers=run.lost_workers,
            most_running=run.most_running,
            workers_left=run.left,
            code_changes=code_history,
        )
        if store is not None and match_id is not None:
            finished = len(stats.results) >= total or bool(test and test.decision)
            store.set_state(match_id, "done" if finished else "stopped")
        if plot and test is not None:
            from .plot import plot_sprt

            report["sprt"]["plot"] = str(plot)
            plot_sprt(test, plot, title=_plot_title(report))
        if jsonl:
            write_jsonl(jsonl, stats.results.values(), [e.label for e in entrants], store, match_id)
        if run.broken:
            raise MatchError(run.broken, report)
        if run.crash is not None:
            crash = run.crash.crash or {}
            tail = (crash.get("stderr") or "").rstrip()
            seat = crash.get("seat")
            external = seat is not None and entrants[run.crash.seats[seat]].external
            what = "its error output" if external else "its traceback"
            if crash.get("exit"):
                what = "its stack at os._exit"
            raise MatchError(
                f"game {run.crash.index}: {run.crash.reason}"
                + (f"\n--- {what} (end) ---\n{tail}" if tail else "")
                + "\nthe match stops (--on-crash continue plays on)",
                report,
            )
        if run.unplayed:  # the report says what was played; the exit code that it stopped
            raise MatchError(control.stopping, report)
        return report
    finally:
        if store is not None:
            store.close()


def _plot_title(report: dict[str, Any]) -> str:
    sprt = report["sprt"]
    return (
        f"SPRT {sprt['candidate']} vs {sprt['baseline']} "
        f"({sprt['spec_text']}), {report['table_size']} seats"
    )


async def _start_workers(
    kind: str,
    setup: Setup,
    count: int,
    log_dir: str | Path | None,
    ray: str | None,
    pending: int,
) -> list[Worker]:
    """``count`` workers of ``kind``, started. Raises MatchError if none starts."""
    if kind == "ray":
        from .cluster import ray_workers

        return await ray_workers(setup, count, ray, limit=pending)
    if kind == "inline":
        pool: list[Worker] = [
            InlineWorker(setup, f"local{i}" if count > 1 else "local") for i in range(count)
        ]
    else:
        pool = [
            ProcessWorker(setup, f"w{i}", str(log_dir) if log_dir else None) for i in range(count)
        ]
    started = await asyncio.gather(*(w.start() for w in pool), return_exceptions=True)
    failures = [r for r in started if isinstance(r, BaseException)]
    if failures:
        await asyncio.gather(*(w.close(abandon=True) for w in pool), return_exceptions=True)
        first = failures[0]
        if isinstance(first, ServerError | TimeoutError):
            raise first  # the server cannot be reached: the command line says so plainly
        if setup.server:  # a worker's traceback says less than the server's absence
            problem = await reach_problem(setup.server)
            if problem:
                raise MatchError(problem) from first
        raise MatchError(f"the workers could not start: {first}") from first
    return pool
