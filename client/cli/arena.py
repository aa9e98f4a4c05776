"""``uno arena reset|forget NAME``: the server operator's arena tools, on
the game store's file."""

from __future__ import annotations

import argparse
import os

from .. import arguments

HELP = "the server operator's arena tools"


def add_arguments(arena: argparse.ArgumentParser) -> None:
    """The tools of ``uno arena``, a subcommand each."""
    arena_sub = arena.add_subparsers(dest="arena_command", metavar="{reset,forget}", required=True)
    for command, what in (
        ("reset", "give NAME a new secret and print it, for its owner (rating kept)"),
        ("forget", "remove NAME from the arena (its rating too): anyone may register it"),
    ):
        tool = arena_sub.add_parser(command, help=what)
        tool.add_argument("name")
        arguments.add_db(tool, "the server's SQLite file (default: the one uno serve uses)")


def run(args: argparse.Namespace) -> int:
    """``uno arena reset NAME``: the operator gives a name a new secret and
    prints it, to hand to the name's owner; ``uno arena forget NAME``: the
    operator removes a name (anyone may register it again). Both work on
    the store's file, a running server's too (it ends the name's entry)."""
    from unoplay.server.ratings import forget_name, reset_secret
    from unoplay.server.storage import default_db_path

    path = str(args.db or default_db_path())
    if not os.path.exists(path):
        raise SystemExit(f"uno arena: no game store at {path}")
    if args.arena_command == "forget":
        if not forget_name(path, args.name):
            raise SystemExit(f"uno arena: {args.name!r} is not registered in {path}")
        print(f"uno arena: {args.name} is removed: anyone may register it again")
        return 0
    secret = reset_secret(path, args.name)
    if secret is None:
        raise SystemExit(f"uno arena: {args.name!r} is not registered in {path}")
    print(
        f"uno arena: {args.name}'s new secret is {secret}\n"
        "Hand it to the name's owner only (uno bot --arena --name NAME --secret SECRET): "
        "the old secret no longer enters, and nobody else can take the name."
    )
    return 0
