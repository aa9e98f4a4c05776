"""A match's settings, one value: :class:`MatchConfig`, built once (by the
command line, :mod:`.command`, or by a caller of :func:`.runner.run_match`)
and handed as it is to the runner and to every worker (pickled: worker
processes and Ray actors get the same value). Also what checks them before
any game (:meth:`MatchConfig.check`, :func:`check_outputs`) and what of them
decides the games (:func:`match_settings`, the fingerprint's input)."""

from __future__ import annotations

import os
from dataclasses import KW_ONLY, dataclass
from pathlib import Path
from typing import Any

from unoplay.game.rules import GameFormat, RuleSet

from .adjudication import ILLEGAL_BUDGET, ILLEGAL_LIMIT, IllegalLimits
from .entrants import Entrant
from .schedule import Schedule
from .sprt import SprtSpec

#: Seconds one game may take before the match gives up on it.
GAME_TIMEOUT = 600.0
#: Seconds every seat has to open its stream once the table is ready.
CONNECT_TIMEOUT = 60.0
WORKER_KINDS = ("inline", "processes", "ray")
ON_CRASH = ("stop", "continue")
#: The formats ``--plot`` writes, by the file's suffix (:mod:`.plot`).
PLOT_SUFFIXES = (".svg", ".png", ".pdf")


@dataclass(frozen=True)
class MatchConfig:
    """Everything a match is played by: plain values (it pickles).

    ``games`` games (with ``duplicate``, rounded up to whole deals) of the
    ``schedule`` between ``entrants``, seeded from ``seed`` (game or deal
    ``d`` is dealt from ``seed + d``), under ``rules``, ``concurrency`` at
    once on ``workers``: "inline" (the runner's event loop; the default for
    one at a time), "processes" (a worker process each; the default for
    more) or "ray" (Ray actors; ``ray`` is the cluster's address, "auto", or
    "local"; an initialised Ray is used as it is). No ``server``
    (``HOST:PORT``): every worker embeds one, at which Python entrants play
    their seats in the worker's process, without the wire (``network`` True:
    over gRPC, as at any server). ``out``: the SQLite file of results (none:
    kept in memory); ``resume`` continues the latest match of ``out`` with
    the same settings, playing only the games it lacks (an entrant whose code
    changed since is refused unless ``allow_changed``). ``sprt`` tests the
    candidate (the first entrant) against the baseline (the second, or the
    entrant labelled ``baseline``). A bot whose intents are refused more
    than ``illegal_limit`` times in one decision, or more than
    ``illegal_budget`` times in a game, forfeits it (void). ``plot``: an SVG
    or PNG file of the SPRT's path; ``jsonl``: every game's record, one JSON
    a line; ``log_dir``: where external bots' error output goes.
    ``faults`` (tests): game indices whose worker exits in the middle of
    their first attempt."""

    entrants: tuple[Entrant, ...]
    games: int
    seed: int
    rules: RuleSet
    server: str | None = None  #: HOST:PORT, or None for a server embedded in each worker
    _: KW_ONLY
    window_ms: int = 0  #: each table's out-of-turn window
    concurrency: int = 1  #: games at once (0 with Ray: one per CPU of the cluster)
    workers: str | None = None  #: a kind of :data:`WORKER_KINDS`; None: by concurrency
    duplicate: str = ""  #: "", "rotations" or "permutations" (:mod:`.schedule`)
    schedule: str = "rotation"
    table_size: int | None = None
    sprt: SprtSpec | None = None
    baseline: str | None = None  #: the SPRT's baseline by its label (None: the second)
    max_actions: int | None = None  #: a round's cap of actions; None: the server's
    move_time: int = 0  #: the turn timer, seconds per decision (0: none)
    away_grace: int | None = None  #: seconds before the stand-in plays an absent seat
    illegal_limit: int = ILLEGAL_LIMIT  #: refusals in one decision a bot may have
    illegal_budget: int = ILLEGAL_BUDGET  #: refusals in one game a bot may have
    on_crash: str = "stop"  #: "stop" the match at a crash, or "continue"
    #: Python entrants play over gRPC even at an embedded server (--network);
    #: else they play their seats in the worker's process (server/localseat.py)
    network: bool = False
    out: str | Path | None = None
    resume: bool = False
    allow_changed: bool = False
    plot: str | Path | None = None
    jsonl: str | Path | None = None
    log_dir: str | Path | None = None  #: where external bots' error output goes
    ray: str | None = None
    faults: tuple[int, ...] = ()
    game_timeout: float = GAME_TIMEOUT
    connect_timeout: float = CONNECT_TIMEOUT
    #: the runner's import path, for bots of your own in the workers (set by
    #: :func:`.runner.run_match` as the match starts)
    sys_path: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "entrants", tuple(self.entrants))
        object.__setattr__(self, "faults", tuple(self.faults))

    def check(self) -> None:
        """Raise ValueError, in one line, for settings that make no match
        (or files it cannot write: :func:`check_outputs`)."""
        if self.games <= 0:
            raise ValueError("a match needs at least one game (--games 1 or more)")
        check_outputs(self.out, self.plot, self.jsonl)
        if self.on_crash not in ON_CRASH:
            raise ValueError(f"on_crash is {' or '.join(ON_CRASH)}, not {self.on_crash!r}")
        kind = self.worker_kind()
        if self.concurrency < (0 if kind == "ray" else 1):
            raise ValueError("concurrency must be 1 or more")
        if kind not in WORKER_KINDS:
            raise ValueError(f"workers are {', '.join(WORKER_KINDS)}, not {kind!r}")

    def worker_kind(self) -> str:
        """Where the games run: "ray" with ``ray``, else ``workers``, else
        "inline" for one game at a time and "processes" for more."""
        if self.ray is not None:
            return "ray"
        return self.workers or ("inline" if self.concurrency == 1 else "processes")

    def in_process(self) -> bool:
        """True when every game is played in the worker's process: a server
        embedded there (no ``--server``), no ``--network``, no external
        entrant. The embedded server then listens on no port: its lobby serves
        the games directly."""
        return (
            self.server is None and not self.network and not any(e.external for e in self.entrants)
        )

    @property
    def records(self) -> bool:
        """True when each game's full record is packed for the results file
        (False: there is none, --no-out, and the packing is saved)."""
        return self.out is not None

    @property
    def illegal(self) -> IllegalLimits:
        """The refused intents a bot may have (``illegal_limit``, ``illegal_budget``)."""
        return IllegalLimits(self.illegal_limit, self.illegal_budget)

    def teams(self) -> bool:
        """True when the winners of a game are a team (both partners win)."""
        return self.rules.format is GameFormat.TEAMS


def match_settings(
    config: MatchConfig, schedule: Schedule, pair: tuple[int, int] = (0, 1)
) -> dict[str, Any]:
    """What decides the games of a match (its fingerprint's input; also
    stored): ``config``'s as ``schedule`` plays them, and with its SPRT the
    test's hypotheses and its (candidate, baseline) ``pair``."""
    settings: dict[str, Any] = {
        "entrants": [e.to_dict() for e in config.entrants],
        "rules": config.rules.to_dict(),
        "seed": config.seed,
        "schedule": schedule.kind,
        "table_size": schedule.table_size,
        "duplicate": schedule.duplicate,
        "window_ms": config.window_ms,
        "max_actions": config.max_actions,
        "move_time": config.move_time,
        "away_grace": config.away_grace,
        "illegal_limit": config.illegal_limit,
        "illegal_budget": config.illegal_budget,
    }
    if config.sprt is not None:
        settings["sprt"] = {**config.sprt.to_dict(), "pair": list(pair)}
    return settings


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
