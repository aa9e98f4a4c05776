"""``uno play``: the Textual client in the terminal (client/tui/)."""

from __future__ import annotations

import argparse

from .. import arguments

HELP = "play in the terminal (embedded server with bots by default)"


def add_arguments(play: argparse.ArgumentParser) -> None:
    """The options of ``uno play`` (``uno web`` forwards the table's to each tab)."""
    arguments.add_server(
        play,
        "HOST[:PORT] of a LAN server (port 50051 by default; [IPV6]:PORT; "
        "default: an embedded server, with bots)",
    )
    arguments.add_name(
        play, None, "your name at the table, 24 characters at most (default: your login)"
    )
    play.add_argument("--bots", type=int, default=3, help="bots at the embedded table (1..9)")
    arguments.add_rules(
        play,
        "set one rule option over the preset, e.g. seven_zero=true or "
        "multi_play=same_rank (repeatable; the embedded game)",
    )
    play.add_argument("--turn-seconds", type=int, default=0, help="turn time limit (0: none)")
    play.add_argument(
        "--lan",
        action="store_true",
        help="open the connect screen: servers found on the LAN, or an address",
    )
    arguments.add_target(
        play, "target score of the embedded game (default: the preset's; 0: one round)"
    )
    play.add_argument(
        "--bot-delay",
        type=arguments.bot_delay,
        default=0.6,
        help="seconds a bot waits before it plays, so you can follow (0..10)",
    )
    play.add_argument("--seed", type=int, default=None, help="seed of the embedded game")
    play.add_argument(
        "--new-table",
        action="store_true",
        help="with --server: create a table with --bots bots there and sit "
        "straight down, as without --server (what uno web's tabs run)",
    )
    play.add_argument(
        "--memory-seats",
        action="store_true",
        help="keep seat tokens in memory only, not in seats.json (uno web's "
        "tabs: one browser must not take another's seat)",
    )


def run(args: argparse.Namespace) -> int:
    """``uno play``: the TUI's exit status."""
    from ..tui.app import run as run_app

    if args.lan and args.server:
        raise SystemExit("uno play: --lan or --server, not both")
    return run_app(args)
