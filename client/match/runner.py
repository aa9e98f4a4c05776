"""The match runner: hands the schedule's games to its workers, many at
once, records each result as it arrives (SQLite, statistics, the SPRT) and
stops when the games are done, the SPRT decides, a crash says so, or it is
told to (:class:`MatchControl`: the command line's Ctrl-C). What it plays by
is one value, :class:`~.config.MatchConfig`."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import sys
import time
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..address import reach_problem
from ..sdk import ServerError
from . import givenup
from .config import MatchConfig, match_settings
from .control import MatchControl, Progress
from .entrants import Entrant, code_changes, code_fingerprints, describe_change
from .errors import MatchError
from .givenup import MAX_ATTEMPTS
from .pool import InlineWorker, ProcessWorker, Worker, WorkerLost
from .report import build_report
from .result import CRASHED, ERROR, GameResult
from .schedule import GameSpec, make_schedule
from .sprt import Sprt
from .stats import MatchStats
from .store import MatchStore, fingerprint, write_jsonl

log = logging.getLogger("unoplay.match")

#: An entrant that forfeited each of its first this many games stops the match:
#: a broken bot (always illegal, always too slow), whose match says nothing.
BROKEN_AFTER = 5


def pick_pair(entrants: Sequence[Entrant], baseline: str | None) -> tuple[int, int]:
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
    """One run of a match (see :func:`run_match`): its games' results as
    they arrive, and the loop that hands its games to the workers."""

    def __init__(
        self,
        config: MatchConfig,
        specs: list[GameSpec],
        stats: MatchStats,
        sprt: Sprt | None,
        pair: tuple[int, int],
        store: MatchStore | None,
        match_id: int | None,
        control: MatchControl,
        progress: Callable[[Progress], None] | None,
        total: int,
    ) -> None:
        self.total = total
        self.entrants = config.entrants
        self.specs = specs
        self.stats = stats
        self.sprt = sprt
        self.pair = pair
        self.after_decision: list[int] = []  #: games recorded after the SPRT decided
        self.store = store
        self.match_id = match_id
        self.control = control
        self.on_crash = config.on_crash
        self.progress = progress
        self.labels = [e.label for e in config.entrants]
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
            self.record(givenup.bot_exit(spec, culprit, self.entrants))
            return
        if err.hung is not None:  # the same game would hang again: a crash, at once
            self.record(givenup.hung(spec, err, self.entrants))
            return
        if spec.attempt + 1 >= MAX_ATTEMPTS:
            log.warning("game %d: %s; it is given up", spec.index, err)
            self.record(givenup.lost(spec, err, self.entrants))
        else:
            log.warning("game %d: %s; it is played again", spec.index, err)
            self.lost_workers += 1
            queue.appendleft(dataclasses.replace(spec, attempt=spec.attempt + 1, fault=""))


async def run_match(
    config: MatchConfig,
    progress: Callable[[Progress], None] | None = None,
    control: MatchControl | None = None,
) -> dict[str, Any]:
    """Play the match ``config`` (:class:`~.config.MatchConfig` says what it
    is) and return its report (:func:`.report.build_report`); ``progress``
    hears of every game recorded, ``control`` stops it from outside.

    With ``config.out``, ``resume`` continues the latest match of that file
    with the same settings, playing only the games it lacks; it refuses an
    entrant whose code changed since (:func:`.entrants.code_fingerprints`)
    unless ``allow_changed``, and a match the SPRT decided is reported, not
    reopened. The SPRT tests the candidate against the baseline
    (:func:`pick_pair`) on deals played in swapped pairs (:mod:`.sprt`,
    :mod:`.schedule`) and stops the match once it decides. Files it cannot
    write are refused before any game (:func:`.config.check_outputs`).
    Raises MatchError (a crash with ``on_crash="stop"``, workers that cannot
    start, nothing to resume, a changed entrant) and ValueError for settings
    that make no match.
    """
    config.check()
    entrants, rules, sprt = list(config.entrants), config.rules, config.sprt
    pair = pick_pair(entrants, config.baseline) if sprt is not None else (0, 1)
    if sprt is not None and config.teams():
        raise ValueError("--sprt compares two entrants, not teams")
    plan = make_schedule(
        [e.identity for e in entrants],
        config.schedule,
        config.table_size,
        config.duplicate,
        pair if sprt is not None else None,
    )
    if plan.kind == "partner-rotation" and not config.teams():
        raise ValueError("partner rotation is played in the teams format (--rule format=teams)")
    rules.check_players(plan.table_size)  # RuleError (a ValueError) for a format it cannot seat
    test = Sprt(sprt) if sprt is not None else None
    config = dataclasses.replace(config, sys_path=tuple(p for p in sys.path if p))
    if config.log_dir:
        try:
            Path(config.log_dir).mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise ValueError(f"--log-dir {config.log_dir}: {err.strerror}") from None
    settings = match_settings(config, plan, pair)
    print_ = fingerprint(settings)
    settings["code"] = code_fingerprints(entrants)  # kept, but not part of the fingerprint
    total = plan.total(config.games)
    out = config.out
    store = MatchStore(out) if out else None
    control = control or MatchControl()
    kind = config.worker_kind()
    started = time.monotonic()
    try:
        match_id, stored, code_history = _open_match(store, config, settings, print_, total, test)
        stats = MatchStats(entrants, plan, teams=config.teams())
        done = {r.index for r in stored}
        faulty = set(config.faults)
        specs = [
            dataclasses.replace(spec, fault="exit-worker") if spec.index in faulty else spec
            for spec in plan.specs(config.games, config.seed)
            if spec.index not in done
        ]
        run = MatchRun(config, specs, stats, test, pair, store, match_id, control, progress, total)
        for result in stored:  # in the order they arrived: the SPRT's path again
            stats.add(result)
            run.feed_sprt(result)
        if test is not None and test.decision:  # decided in an earlier run
            control.stopping = f"SPRT: {test.decision} accepted before; --resume does not reopen it"
        count = min(config.concurrency, len(specs)) if config.concurrency else 0  # 0: Ray's CPUs
        pool: list[Worker] = []
        if specs and not control.stopping:
            pool = await _start_workers(kind, config, count, len(specs))
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
            seed=config.seed,
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
        if config.plot and test is not None:
            from .plot import plot_sprt

            report["sprt"]["plot"] = str(config.plot)
            plot_sprt(test, config.plot, title=_plot_title(report))
        if config.jsonl:
            write_jsonl(config.jsonl, stats.results.values(), run.labels, store, match_id)
        _raise_stop(run, report)
        return report
    finally:
        if store is not None:
            store.close()


def _open_match(
    store: MatchStore | None,
    config: MatchConfig,
    settings: dict[str, Any],
    print_: str,
    total: int,
    test: Sprt | None,
) -> tuple[int | None, list[GameResult], list[dict[str, Any]]]:
    """The match's id in ``store`` (a new match, or with ``config.resume``
    the latest of the same fingerprint ``print_``), the results it holds
    already (those that count: not crashed, not errors, in the order they
    arrived) and its entrants' code changes so far. Raises MatchError when
    there is nothing to resume or an entrant changed (without
    ``allow_changed``)."""
    if store is None:
        if config.resume:
            raise MatchError("--resume needs the match's file (--out)")
        return None, [], []
    if not config.resume:
        return store.create(settings, print_, total), [], []
    match_id = store.find(print_)
    if match_id is None:
        raise MatchError(
            f"nothing to resume: {config.out} has no match with these settings "
            "(the same entrants, rules, seed, schedule, table options and --sprt)"
        )
    previous = store.match(match_id)
    changed = code_changes(previous.settings.get("code"), settings["code"])
    if changed and not config.allow_changed:
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
    stored = [r for r in store.results(match_id, arrival=True) if r.status not in (CRASHED, ERROR)]
    if not (test is not None and previous.state == "done"):
        store.set_state(match_id, "running", planned=total)
    return match_id, stored, code_history


def _raise_stop(run: MatchRun, report: dict[str, Any]) -> None:
    """Raise MatchError (with ``report``) when the match stopped for a
    failure: an entrant that forfeits every game, a crash (with
    ``on_crash="stop"``: the end of its error output or traceback), every
    worker lost."""
    if run.broken:
        raise MatchError(run.broken, report)
    if run.crash is not None:
        crash = run.crash.crash or {}
        tail = (crash.get("stderr") or "").rstrip()
        seat = crash.get("seat")
        external = seat is not None and run.entrants[run.crash.seats[seat]].external
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
        raise MatchError(run.control.stopping, report)


def _plot_title(report: dict[str, Any]) -> str:
    sprt = report["sprt"]
    return (
        f"SPRT {sprt['candidate']} vs {sprt['baseline']} "
        f"({sprt['spec_text']}), {report['table_size']} seats"
    )


async def _start_workers(kind: str, config: MatchConfig, count: int, pending: int) -> list[Worker]:
    """``count`` workers of ``kind`` for the match ``config`` (Ray's: at most
    ``pending``, the games to play), started. Raises MatchError if none starts."""
    if kind == "ray":
        from .cluster import ray_workers

        return await ray_workers(config, count, config.ray, limit=pending)
    if kind == "inline":
        pool: list[Worker] = [
            InlineWorker(config, f"local{i}" if count > 1 else "local") for i in range(count)
        ]
    else:
        pool = [ProcessWorker(config, f"w{i}") for i in range(count)]
    started = await asyncio.gather(*(w.start() for w in pool), return_exceptions=True)
    failures = [r for r in started if isinstance(r, BaseException)]
    if failures:
        await asyncio.gather(*(w.close(abandon=True) for w in pool), return_exceptions=True)
        first = failures[0]
        if isinstance(first, ServerError | TimeoutError):
            raise first  # the server cannot be reached: the command line says so plainly
        if config.server:  # a worker's traceback says less than the server's absence
            problem = await reach_problem(config.server)
            if problem:
                raise MatchError(problem) from first
        raise MatchError(f"the workers could not start: {first}") from first
    return pool
