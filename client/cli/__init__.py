"""The ``uno`` command: one entry point with a subcommand per job.

Each subcommand is a module of this package named for it, with its one-line
``HELP``, ``add_arguments(parser)`` (its options) and ``run(args) -> int``
(the exit code): :mod:`.play`, :mod:`.web`, :mod:`.serve`, :mod:`.replay`,
:mod:`.verify`, :mod:`.standings`, :mod:`.arena`, :mod:`.bot`, :mod:`.match`,
:mod:`.bench`. The options several of them take are declared once in
:mod:`unoplay.client.arguments`. Each module imports what its command needs
(the server, the TUI, grpc) when it runs, so that ``uno --help`` stays quick.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys

from .. import arguments
from ..address import error_words, timed_out
from . import arena, bench, bot, match, play, replay, serve, standings, verify, web

#: The subcommands, in the order ``uno --help`` lists them.
COMMANDS = (play, web, serve, replay, verify, standings, arena, bot, match, bench)


def _version() -> str:
    """The installed unoplay's version (its package metadata)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("unoplay")
    except PackageNotFoundError:  # (run from a checkout that was never installed)
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand; a subcommand's ``run`` is its ``func``."""
    parser = arguments.Parser(prog="uno", description="Networked UNO over gRPC.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log more")
    parser.add_argument("--version", action="version", version=f"uno (unoplay) {_version()}")
    parser.add_argument(
        "--tls-ca",
        metavar="FILE",
        help="connect with TLS, trusting the certificates in FILE (PEM): the "
        "server's self-signed certificate or its CA (also $UNOPLAY_TLS_CA)",
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=arguments.CommandParser)
    for command in COMMANDS:
        name = command.__name__.rpartition(".")[2]
        command_parser = sub.add_parser(name, help=command.HELP)
        command.add_arguments(command_parser)
        command_parser.set_defaults(func=command.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the ``uno`` command line; returns the process exit code."""
    words = sys.argv[1:] if argv is None else argv
    # gRPC's C core reads GRPC_VERBOSITY once, as grpc is first imported (the
    # parser's modules import it): errors only (at INFO it writes a line each
    # time a server it talks to stops), and nothing under the TUI, which
    # draws on the terminal.
    tui = words[:1] in (["play"], ["replay"])
    os.environ.setdefault("GRPC_VERBOSITY", "NONE" if tui else "ERROR")
    args = build_parser().parse_args(argv)
    if args.tls_ca:  # every Connection made by this command uses TLS (client/sdk.py)
        if not os.path.exists(args.tls_ca):
            raise SystemExit(f"uno: --tls-ca {args.tls_ca}: no such file")
        arguments.read_file("uno", "--tls-ca", args.tls_ca, pem="certificate")
        os.environ["UNOPLAY_TLS_CA"] = args.tls_ca
    if args.command != "play":  # the TUI owns the terminal
        logging.basicConfig(
            level=logging.DEBUG if args.verbose else logging.INFO,
            format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        )
    from ..match import MatchError
    from ..sdk import ServerError

    target = getattr(args, "server", None) or "the server"
    try:
        return args.func(args)
    except MatchError as err:
        print(f"uno {args.command}: {err}", file=sys.stderr)
        return 1
    except ServerError as err:  # the server's answer, not a bug: say it plainly
        print(f"uno {args.command}: {error_words(err, target)}", file=sys.stderr)
        return 1
    except TimeoutError:
        print(f"uno {args.command}: {timed_out(target)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # Ctrl-C where the command has no stop of its own
        print(f"uno {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `uno replay | head`: the reader left, nothing to say
        # Point stdout at /dev/null so that flushing it at exit fails no more
        # (the recipe of the Python docs, "Note on SIGPIPE").
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
