"""``uno bench``: the engine's figures (beside RLCard's), the server's over
loopback, the match runner's, a soak."""

from __future__ import annotations

import argparse
import asyncio
import json

from .. import arguments

HELP = "benchmark the engine (vs RLCard) and the server"

#: The most tables one network run plays at once.
MAX_TABLES = 10_000

_count = arguments.number(int, 1, MAX_TABLES)
#: A run's length: a positive number of seconds (or minutes, ``--soak``).
_length = arguments.number(float, 0.01)


def table_counts(text: str) -> tuple[int, ...]:
    """``--tables``: comma-separated counts of tables, each 1..MAX_TABLES
    (an argparse type: ArgumentTypeError names the bad one)."""
    return tuple(_count(part.strip()) for part in text.split(","))


def add_arguments(bench: argparse.ArgumentParser) -> None:
    """The options of ``uno bench``."""
    bench.add_argument(
        "--runs", type=arguments.positive, default=5, help="timed runs; the median is shown"
    )
    bench.add_argument("--seconds", type=_length, default=1.0, help="length of one run")
    arguments.add_json(bench)
    bench.add_argument("--no-rlcard", action="store_true", help="skip the RLCard comparison")
    bench.add_argument("--no-network", action="store_true", help="skip the loopback server figures")
    bench.add_argument(
        "--env",
        action="store_true",
        help="also environment steps/s (unoplay.client.research.env) beside RLCard's UNO environment, and the vector env's beside one env's",
    )
    bench.add_argument(
        "--tables",
        type=table_counts,
        default=(1, 10, 100),
        help="concurrent tables to measure, comma-separated (default 1,10,100)",
    )
    bench.add_argument(
        "--network-seconds", type=_length, default=5.0, help="length of each network run"
    )
    bench.add_argument(
        "--target",
        type=arguments.number(int, 0),
        default=None,
        metavar="POINTS",
        help="network only, each table's games go to POINTS (default 500, the official "
        "game, beside the bare pattern; with --think-ms 0; 0: one round a game, "
        "a new game's lobby calls and streams every round)",
    )
    bench.add_argument(
        "--raw-client",
        action="store_true",
        help="network only, bots that skip the SDK (raw protobuf, random legal actions): "
        "the server's own capacity beside the bare pattern (the default)",
    )
    bench.add_argument(
        "--sdk-client",
        action="store_true",
        help="network only, greedy bots through the SDK instead of --raw-client",
    )
    bench.add_argument(
        "--network-runs",
        type=arguments.positive,
        default=1,
        metavar="N",
        help="network only, N runs of ours and the bare server's, alternated: medians",
    )
    bench.add_argument(
        "--no-db",
        action="store_true",
        help="network only, uno serve without its file (--no-db): no journal of its "
        "open tables, no games stored (the journal's cost, beside a run without this)",
    )
    bench.add_argument(
        "--think-ms",
        type=arguments.number(int, 0),
        default=0,
        metavar="MS",
        help="a run of its own (no engine figures): bots that think about MS a decision "
        "(realistic load): p99 per --tables count",
    )
    bench.add_argument(
        "--soak",
        type=_length,
        metavar="MINUTES",
        help="soak: honest tables and abusive clients for MINUTES, the server's RSS a minute",
    )
    bench.add_argument(
        "--soak-tables",
        type=arguments.positive,
        default=20,
        help="honest tables of the soak (default 20)",
    )
    bench.add_argument(
        "--match",
        action="store_true",
        help="the match runner's figures instead: games/s one game at a time and with "
        "--concurrency, and the 95%% interval of greedy's win rate plain against --duplicate",
    )
    bench.add_argument(
        "--match-games",
        type=arguments.positive,
        default=40,
        help="games of each speed run (with --match)",
    )
    bench.add_argument(
        "--concurrency",
        type=arguments.positive,
        default=2,
        help="worker processes of the concurrent run",
    )


def run(args: argparse.Namespace) -> int:
    """``uno bench``: the figures asked for, printed (one JSON document with
    ``--json``); 1 when the soak saw errors."""
    if args.soak is not None:
        from ..bench.soak import run as run_soak

        result = run_soak(args.soak, args.soak_tables, args.think_ms or 250)
        if args.json:
            print(json.dumps(result, indent=2))
        return 1 if result["errors"] else 0
    if args.think_ms:
        from ..bench.netbench import run_thinking

        figures = run_thinking(
            args.tables,
            args.think_ms,
            args.network_seconds,
            args.json,
            args.target,
            store=not args.no_db,
        )
        if args.json:
            print(json.dumps(figures, indent=2))
        return 0
    from unoplay.client.bench.engine import run as run_engine

    if args.match:
        from ..match.bench import print_bench, run_bench

        match_figures = asyncio.run(
            run_bench(games=args.match_games, concurrency=args.concurrency, runs=args.runs)
        )
        if args.json:
            print(json.dumps({"match": match_figures}, indent=2))
        else:
            print_bench(match_figures)
        return 0
    quiet = None if args.json else False  # with --json, print one document at the end
    report: dict[str, object] = {
        "engine": run_engine(
            runs=args.runs, seconds=args.seconds, as_json=quiet, with_rlcard=not args.no_rlcard
        )
    }
    if args.env:
        from ..research.envbench import run as run_env
        from ..research.envbench import run_vector

        report["env"] = run_env(runs=args.runs, seconds=args.seconds, as_json=args.json)
        report["vector_env"] = run_vector(runs=args.runs, seconds=args.seconds, as_json=args.json)
    if not args.no_network:
        from ..bench.netbench import run as run_network

        report["network"] = run_network(
            args.tables,
            args.network_seconds,
            args.json,
            args.target,
            raw_client=not args.sdk_client,
            pairs=args.network_runs,
            store=not args.no_db,
        )
    if args.json:
        print(json.dumps(report, indent=2))
    return 0
