"""``uno verify``: a finished game's whole record checked against its
revealed seed (a stored game, or a file exported by ``uno replay --jsonl``)."""

from __future__ import annotations

import argparse
import json
import os
import sys

from .. import arguments

HELP = "check a finished game's whole record against its revealed seed"


def add_arguments(verify: argparse.ArgumentParser) -> None:
    """The options of ``uno verify`` (and its description: the exit codes)."""
    verify.description = (
        "Recompute the commitment the players got from the revealed seed and "
        "salt, replay the recorded actions from the seed, and compare with the cards the "
        "players received, the result and, for an export, every line of it. Exit 0 fair, "
        "1 not fair (it names the first difference), 2 cannot be verified (a game stored "
        "before fair deals) or not an export (one line on stderr; files over 64 MiB are "
        "refused)."
    )
    verify.add_argument(
        "game",
        help="game id, table id or 'last' of the store, or a file exported by uno replay --jsonl",
    )
    arguments.add_db(verify)
    arguments.add_json(verify)


def run(args: argparse.Namespace) -> int:
    """``uno verify``: exit 0 fair, 1 not fair, 2 unverifiable or malformed
    (one line on stderr)."""
    from unoplay.audit import verify

    from ..verify import MalformedExport, verify_export, write_verdict

    if os.path.isfile(args.game):  # an export of `uno replay --jsonl`
        try:
            record, verdict = verify_export(args.game)
        except (OSError, MalformedExport) as err:
            print(f"uno verify: {args.game}: {err}", file=sys.stderr)
            return 2
    elif os.sep in args.game or args.game.endswith((".jsonl", ".json")):  # a file, not an id
        print(f"uno verify: {args.game}: no such file", file=sys.stderr)
        return 2
    else:
        try:
            store = arguments.game_store(args, "uno verify")
        except SystemExit as err:  # no store, or no game store: 2, as any unverifiable game
            print(err.code, file=sys.stderr)
            return 2
        try:
            record = store.load(args.game)
            verdict = verify(record)
        except KeyError as err:
            print(f"uno verify: {err.args[0]}", file=sys.stderr)
            return 2
        except (ValueError, TypeError) as err:  # a stored record the engine cannot deal
            print(f"uno verify: game {args.game}: cannot be replayed: {err}", file=sys.stderr)
            return 2
        finally:
            store.close()
    if args.json:
        print(
            json.dumps(
                {
                    "status": verdict.status,
                    "problems": verdict.problems,
                    "cards": verdict.cards,
                    "rounds": verdict.rounds,
                    "actions": verdict.actions,
                }
            )
        )
    else:
        write_verdict(record, verdict, sys.stdout)
    return {"fair": 0, "unfair": 1}.get(verdict.status, 2)
