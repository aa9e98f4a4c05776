"""The ``uno match`` command line: its options, its progress line, Ctrl-C,
the report and the exit code (0 done, 1 a failure, 130 interrupted)."""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
import time
from pathlib import Path
from typing import Any

from unoplay.game.rules import RuleSet

from .. import arguments
from ..address import reach_problem
from ..arguments import server as server_argument
from .adjudication import ILLEGAL_BUDGET, ILLEGAL_LIMIT
from .config import MatchConfig, check_outputs, default_concurrency
from .control import MatchControl
from .display import Display, stdout_aside
from .entrants import Entrant, parse_entrants, short_command
from .errors import MatchError
from .procs import program_problem
from .report import print_report
from .runner import run_match
from .schedule import DUPLICATES, SCHEDULES
from .sprt import SprtSpec
from .store import default_path

#: The end of ``uno match --help``: examples, what is not counted, exit codes.
EPILOG = """\
examples:
  uno match --games 200 --concurrency 2               (greedy against three randoms)
  uno match --games 400 --bots greedy,random --duplicate
  uno match --games 5000 --bots v2.py:Bot,v1.py:Bot,random,random --sprt elo0=0 elo1=20 \
            --plot sprt.svg                         (is v2 better than v1, at four seats?)
  uno match --games 50 --seat "node client/node_bot/bot.js" --move-time 2 --on-crash continue
  uno match --games 20 --bots my_bot.py:Bot,greedy --max-actions 500
  uno match --games 1000 --out runs.sqlite3 --resume  (after a Ctrl-C: the missing games)
  uno match --games 10000 --ray auto                  (on a Ray cluster)

Games not played out are reported apart: adjudicated (a round reached
--max-actions: a draw for the SPRT), void (the turn timer or the stand-in
played a seat, or a bot forfeited for illegal actions: --illegal-limit/
--illegal-budget; refused intents are counted per entrant, races lost apart),
crashed (an external bot exited early: its error output's end is shown; a bot
of the match's own raised or called sys.exit(): the end of its traceback). A
void or crashed game is a loss for the seat that forfeited it (README,
"Forfeits"); an entrant that forfeits each of its first 5 games stops the
match. With --server, an external bot's illegal actions are
not seen: only --move-time and the game's timeout stop it. Every game's moves
go to the --out file (not with --server): uno replay --match FILE N steps
through game N; --jsonl exports them. Ctrl-C starts no more games and prints
the report so far (again: abandons the games in flight). Exit codes: 0 done
(or decided by the SPRT), 1 a failure, 130 interrupted, 143 terminated."""


def external_log_dir(log_dir: str | None, out: Path | None, entrants: list[Entrant]) -> str | None:
    """Where external bots' error output goes: ``log_dir`` (--log-dir) if
    given, else a folder beside ``out`` named for the match's start time;
    None without external bots or with no ``out`` (--no-out keeps no file:
    each bot's output goes to a temporary file, still quoted if it crashes)."""
    if log_dir is not None:
        return log_dir
    if out is None or not any(e.external for e in entrants):
        return None
    return str(out.with_name(out.stem + "-logs") / time.strftime("%Y%m%d-%H%M%S"))


def add_arguments(match: argparse.ArgumentParser) -> None:
    """The options of ``uno match`` (and its description and examples)."""
    match.description = (
        "Bot-vs-bot games over the real gRPC path, many at once (a worker process "
        "each, with its own embedded server), every game stored as it finishes."
    )
    match.epilog = EPILOG
    match.formatter_class = argparse.RawDescriptionHelpFormatter
    match.add_argument("--games", type=int, default=100, help="number of games (1 or more)")
    match.add_argument(
        "--bots",
        default="greedy,random,random,random",
        help="comma-separated bots, one entrant each: built-in kinds (random, greedy, "
        "ismcts; ismcts@80ms or ismcts@300: its budget per decision in ms or samples) "
        "or bots of your own as module:attr or file.py:attr",
    )
    match.add_argument(
        "--seat",
        action="append",
        default=[],
        help="an external bot command for one more entrant (repeatable); it gets "
        "UNO_SERVER, UNO_TABLE, UNO_TOKEN and UNO_SEAT in its environment",
    )
    match.add_argument(
        "--seed",
        type=int,
        default=1,
        help="seed of the first deal: game (or deal) d is dealt from SEED + d, so runs whose "
        "seeds are closer than their games share deals (--seed 1 and --seed 2: the same "
        "deals, one apart); space them (1, 100001, ...) for independent runs",
    )
    arguments.add_rules(
        match,
        "change one rule option over the preset, e.g. --rule format=teams "
        "(repeatable; options in server/RULES.md)",
        "rules preset",
    )
    arguments.add_target(match, "target score (default: the preset's; 0 for single rounds)")
    match.add_argument(
        "--server",
        type=server_argument,
        help="HOST[:PORT] (port 50051 by default; default: a server embedded in each worker)",
    )
    match.add_argument(
        "--network",
        action="store_true",
        help="Python entrants play over gRPC even at the embedded server (to test the "
        "server itself; default: they play their seats in the worker's process, "
        "without the wire: the engine's own games, repeatable, many times faster; "
        "over the wire out-of-turn races go to the first intent to arrive)",
    )
    match.add_argument(
        "--window-ms",
        type=int,
        default=0,
        help="each table's out-of-turn window in ms, 0..5000 (default 0: none)",
    )
    match.add_argument("--json", action="store_true", help="print the report as JSON")
    match.add_argument(
        "--concurrency",
        type=int,
        default=None,
        metavar="N",
        help="games at once, each in a worker process of its own "
        "(default: this machine's cores; with --ray, the cluster's CPUs)",
    )
    match.add_argument(
        "--workers",
        choices=("processes", "inline"),
        default=None,
        help="where games run: worker processes (default), or inline on this "
        "process's event loop, --concurrency of them at once (with --concurrency 1: "
        "one at a time, your bots' prints in this terminal)",
    )
    match.add_argument(
        "--duplicate",
        nargs="?",
        const="rotations",
        default="",
        choices=DUPLICATES,
        help="duplicate deals: play every deal once for every rotation of the seats "
        "(every entrant holds every hand from every seat; the default), or every distinct "
        "permutation; --games is rounded up to whole deals, and the report adds each "
        "entrant's mean deal score with its 95%% interval over deals (the paired one)",
    )
    match.add_argument(
        "--sprt",
        nargs="*",
        default=None,
        metavar="KEY=VALUE",
        help="stop once a sequential test decides whether the candidate (the first "
        "entrant) is better than the baseline (the second, or --baseline): elo0=0 elo1=10 "
        "alpha=0.05 beta=0.05 (the defaults), or p0= p1= mean scores. Every deal is played "
        "twice, the two swapping seats against the same field; a game scores 1 if the "
        "candidate wins, 0 if the baseline does, 1/2 otherwise, and Elo is logistic on that "
        "score. The test is fishtest's GSPRT on each deal's mean score (pentanomial at two "
        "games a deal); its LLR and bounds show as it goes",
    )
    match.add_argument(
        "--baseline",
        metavar="NAME",
        help="the entrant the SPRT compares the candidate with, by its label "
        "(default: the second entrant)",
    )
    match.add_argument(
        "--plot",
        metavar="FILE",
        help="draw the SPRT's LLR path and Elo estimate into FILE (.svg or .png; "
        "needs matplotlib, the plot extra)",
    )
    match.add_argument(
        "--max-actions",
        type=int,
        default=None,
        metavar="N",
        help="adjudicate a round at N actions (100..100000; the table's max_round_actions, "
        "default 2000): the game ends with no winner and is reported apart",
    )
    match.add_argument(
        "--move-time",
        type=int,
        default=0,
        metavar="SECONDS",
        help="time per decision (the turn timer, 1..3600; default none): a bot that "
        "runs out forfeits the decision to the server's default action, which voids the game",
    )
    match.add_argument(
        "--away-grace",
        type=int,
        default=None,
        metavar="SECONDS",
        help="seconds before the server's stand-in plays a seat whose bot left "
        "(default: the server's, 30); such a game is void",
    )
    match.add_argument(
        "--illegal-limit",
        type=int,
        default=ILLEGAL_LIMIT,
        metavar="N",
        help=f"a bot whose intents are refused more than N times in one decision (no action "
        f"applied at the table between them) forfeits its game, which is void "
        f"(default {ILLEGAL_LIMIT})",
    )
    match.add_argument(
        "--illegal-budget",
        type=int,
        default=ILLEGAL_BUDGET,
        metavar="N",
        help=f"a bot whose intents are refused more than N times in one game forfeits it, "
        f"which is void (default {ILLEGAL_BUDGET})",
    )
    match.add_argument(
        "--on-crash",
        choices=("stop", "continue"),
        default="stop",
        help="when a bot crashes (an external bot exits early, a bot of the match's own "
        "raises): stop the match (default), or count the game apart and go on",
    )
    match.add_argument(
        "--out",
        default=None,
        metavar="FILE",
        help=f"SQLite file of every game's record (default {_home(default_path())})",
    )
    match.add_argument("--no-out", action="store_true", help="keep no file of the games")
    match.add_argument(
        "--resume",
        action="store_true",
        help="continue the latest match of --out with the same settings: play only "
        "the games it lacks (refused when an entrant's code changed; a match the SPRT "
        "decided is reported, not reopened)",
    )
    match.add_argument(
        "--allow-changed",
        action="store_true",
        help="with --resume: play on even though an entrant's code changed since",
    )
    match.add_argument(
        "--jsonl",
        metavar="FILE",
        help="write every game's record to FILE, one JSON a line (its moves come "
        "from the results file: none with --no-out)",
    )
    match.add_argument(
        "--log-dir",
        metavar="DIR",
        help="where external bots' error output goes, a file per entrant and worker "
        "(default: beside --out; with --no-out, temporary files: a crash still quotes it)",
    )
    match.add_argument(
        "--schedule",
        choices=SCHEDULES,
        default="rotation",
        help="rotation (seats rotate; a round-robin when --table-size is below the "
        "entrants), round-robin, or partner-rotation (4 or 8 entrants, teams format)",
    )
    match.add_argument(
        "--table-size",
        type=int,
        default=None,
        metavar="K",
        help="seats at each table: with more entrants, every set of K plays in turn",
    )
    match.add_argument(
        "--ray",
        metavar="auto|local|ADDRESS",
        help="play the games on a Ray cluster (the cluster extra): local starts one "
        "here, auto joins this machine's, or a cluster address",
    )


def _home(path: Path) -> str:
    home = str(Path.home())
    text = str(path)
    return "~" + text[len(home) :] if text.startswith(home) else text


def match_config(args: argparse.Namespace, rules: RuleSet) -> MatchConfig:
    """The match the command line asks for, under ``rules``. Raises
    SystemExit ("uno match: ...") for options that make no match, an
    unreachable ``--server`` or a file it cannot write."""
    from unoplay.settings import (
        MAX_ROUND_ACTIONS,
        MAX_TURN_SECONDS,
        MAX_WINDOW_MS,
        MIN_ROUND_ACTIONS,
    )

    if args.games <= 0:
        raise refuse(f"--games must be 1 or more, not {args.games}")
    if not 0 <= args.window_ms <= MAX_WINDOW_MS:
        raise refuse(f"--window-ms must be 0..{MAX_WINDOW_MS}")
    if (
        args.max_actions is not None
        and not MIN_ROUND_ACTIONS <= args.max_actions <= MAX_ROUND_ACTIONS
    ):
        raise refuse(f"--max-actions must be {MIN_ROUND_ACTIONS}..{MAX_ROUND_ACTIONS}")
    if not 0 <= args.move_time <= MAX_TURN_SECONDS:
        raise refuse(f"--move-time must be 1..{MAX_TURN_SECONDS} seconds")
    if args.away_grace is not None and not 0 <= args.away_grace <= 3600:
        raise refuse("--away-grace must be 0..3600 seconds")
    if args.illegal_limit < 0 or args.illegal_budget < 0:
        raise refuse("--illegal-limit and --illegal-budget must be 0 or more")
    if args.concurrency is not None and args.concurrency < 1:
        raise refuse("--concurrency must be 1 or more")
    if args.resume and args.no_out:
        raise refuse("--resume continues a match of --out: not with --no-out")
    if args.allow_changed and not args.resume:
        raise refuse("--allow-changed goes with --resume")
    if (args.baseline or args.plot) and args.sprt is None:
        raise refuse(f"{'--baseline' if args.baseline else '--plot'} goes with --sprt")
    if args.ray and args.workers == "inline":
        raise refuse("--ray and --workers inline do not go together")
    try:
        entrants = parse_entrants(args.bots, args.seat)
        sprt = SprtSpec.parse(args.sprt) if args.sprt is not None else None
    except ValueError as err:
        raise refuse(str(err)) from None
    for entrant in entrants:  # (on a Ray cluster the command is the nodes' to find)
        if entrant.command and not args.ray:
            missing = program_problem(entrant.command)
            if missing:
                raise refuse(f"--seat {short_command(entrant.command)}: {missing}")
    if args.server:  # asked once here: a worker would say it as a traceback
        problem = asyncio.run(reach_problem(args.server))
        if problem:
            raise refuse(problem)
    out = None if args.no_out else Path(args.out) if args.out else default_path()
    try:  # before any game: a file it cannot write is said now, not at the end
        check_outputs(out, args.plot, args.jsonl, make_out_dir=args.out is None)
    except ValueError as err:
        raise refuse(str(err)) from None
    log_dir = external_log_dir(args.log_dir, out, entrants)
    if args.concurrency is not None:
        concurrency = args.concurrency
    else:
        concurrency = 0 if args.ray else default_concurrency()
    return MatchConfig(
        tuple(entrants),
        args.games,
        args.seed,
        rules,
        args.server,
        window_ms=args.window_ms,
        concurrency=concurrency,
        workers=args.workers or ("ray" if args.ray else "processes"),
        duplicate=args.duplicate or "",
        schedule=args.schedule,
        table_size=args.table_size,
        sprt=sprt,
        baseline=args.baseline,
        max_actions=args.max_actions,
        move_time=args.move_time,
        away_grace=args.away_grace,
        illegal_limit=args.illegal_limit,
        illegal_budget=args.illegal_budget,
        network=args.network,
        on_crash=args.on_crash,
        out=out,
        resume=args.resume,
        allow_changed=args.allow_changed,
        plot=args.plot,
        jsonl=args.jsonl,
        log_dir=log_dir,
        ray=args.ray,
    )


def refuse(text: str) -> SystemExit:
    """The exit of ``uno match`` for options that make no match."""
    return SystemExit(f"uno match: {text}")


def run(args: argparse.Namespace, rules: RuleSet) -> int:
    """``uno match``: returns the exit code."""
    config = match_config(args, rules)
    control = MatchControl()
    interrupts = 0

    with Display() as display:

        def interrupted() -> None:
            nonlocal interrupts
            interrupts += 1
            if interrupts == 1:
                control.stop("interrupted (Ctrl-C)")
                display.say(
                    "uno match: stopping: no new games; the games in flight finish "
                    "(Ctrl-C again abandons them)"
                )
            else:
                control.abandon("interrupted (Ctrl-C)")
                display.say("uno match: abandoning the games in flight")

        def terminated() -> None:
            control.abandon("terminated (SIGTERM)")

        async def main() -> dict[str, Any]:
            loop = asyncio.get_running_loop()
            loop.add_signal_handler(signal.SIGINT, interrupted)
            loop.add_signal_handler(signal.SIGTERM, terminated)
            try:
                return await run_match(config, progress=display, control=control)
            finally:
                loop.remove_signal_handler(signal.SIGINT)
                loop.remove_signal_handler(signal.SIGTERM)

        try:
            with stdout_aside(args.json):
                report: dict[str, Any] | None = asyncio.run(main())
            failure = ""
        except MatchError as err:
            report, failure = err.report, str(err)
        except ValueError as err:  # settings that make no match (a RuleError too)
            raise refuse(str(err)) from None
    if report is not None:
        if args.json:
            print(json.dumps(report, indent=2))
        else:
            print_report(report)
    if failure:
        print(f"uno match: {failure}", file=sys.stderr)
        return 1
    if control.stopping.startswith("interrupted"):
        return 130
    if control.stopping.startswith("terminated"):
        return 143
    return 0
