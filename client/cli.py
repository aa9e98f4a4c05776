"""The ``uno`` command: one entry point with a subcommand per job."""

from __future__ import annotations

import argparse
import sys


def _bench(args: argparse.Namespace) -> int:
    from unoplay.server.bench import run

    run(runs=args.runs, seconds=args.seconds, as_json=args.json, with_rlcard=not args.no_rlcard)
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand."""
    parser = argparse.ArgumentParser(prog="uno", description="Networked UNO over gRPC.")
    sub = parser.add_subparsers(dest="command", required=True)

    bench = sub.add_parser("bench", help="benchmark the rules engine (and RLCard if installed)")
    bench.add_argument("--runs", type=int, default=5, help="timed runs; the median is shown")
    bench.add_argument("--seconds", type=float, default=1.0, help="length of one run")
    bench.add_argument("--json", action="store_true", help="print JSON for machines")
    bench.add_argument("--no-rlcard", action="store_true", help="skip the RLCard comparison")
    bench.set_defaults(func=_bench)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the ``uno`` command line; returns the process exit code."""
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
