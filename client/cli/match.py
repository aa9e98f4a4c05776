"""``uno match``: bot-vs-bot matches (client/match/, whose
:mod:`~unoplay.client.match.command` holds the options and the run)."""

from __future__ import annotations

import argparse

from .. import arguments

HELP = "bot-vs-bot matches: many games at once, duplicate deals, SPRT, stored results"


def add_arguments(match: argparse.ArgumentParser) -> None:
    """The options of ``uno match``."""
    from ..match.command import add_arguments as add_match_arguments

    add_match_arguments(match)


def run(args: argparse.Namespace) -> int:
    """``uno match``: the match's exit code (0 done, 1 a failure, 130 interrupted)."""
    from ..match.command import run as run_match

    return run_match(args, arguments.rule_set(args, "uno match"))
