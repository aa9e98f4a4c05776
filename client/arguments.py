"""The ``uno`` command line's shared pieces: the checks of its values, made
as the arguments are parsed, before any server is asked (a server's address,
a bot kind, a player's name, a number in its bounds), and the options
several subcommands take, declared once here (``add_server``, ``add_name``,
``add_rules``...). Each check is an argparse ``type``: a bad value is one
line naming the flag (:class:`Parser`), exit status 2, never a traceback nor
a refusal from a server half a minute later.
"""

from __future__ import annotations

import argparse
import math
import os
import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING, NoReturn, TypeVar

from .address import AddressError, server_target

if TYPE_CHECKING:
    from unoplay.game.rules import RuleSet
    from unoplay.server.storage import GameStore

_N = TypeVar("_N", int, float)


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line on stderr,
    ``uno bot: --kind: unknown bot kind 'smart'; ... (see uno bot --help)``,
    not the usage text first (its subcommands' parsers are of this class too)."""

    def error(self, message: str) -> NoReturn:
        """Print ``message`` as one line naming the command, and exit 2."""
        message = message.removeprefix("argument ")
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


class CommandParser(Parser):
    """The parser of one subcommand (``uno play``, ``uno arena reset``: the
    ``parser_class`` of ``add_subparsers``): the words it does not know are
    refused by it, so the line names the subcommand, ``uno play:
    unrecognized arguments: --bogus (see uno play --help)``; argparse would
    leave them to the top parser, whose line names only ``uno``."""

    def parse_known_args(self, args=None, namespace=None):
        """Parse ``args`` as argparse does; exit 2 (:meth:`error`) on a word left over."""
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras


def server(text: str) -> str:
    """``--server HOST[:PORT]``: the canonical ``host:port`` (the default
    port when none is given; :func:`unoplay.client.address.parse_server`)."""
    try:
        return server_target(text)
    except AddressError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def bot_kind(text: str) -> str:
    """``--kind``: a kind of the bot registry, with a budget for one that
    takes it (``ismcts@80ms``); the error lists the kinds."""
    from unoplay.game.registry import parse_kind

    try:
        parse_kind(text)
    except ValueError as err:  # UnknownBotKind names the known kinds
        raise argparse.ArgumentTypeError(str(err)) from None
    return text


def bot_kinds() -> str:
    """Every kind of the bot registry, for a help text: ``greedy, ismcts, random``."""
    from unoplay.game.registry import BOT_KINDS

    return ", ".join(sorted(BOT_KINDS))


def player_name(text: str) -> str:
    """``--name``: a name a server seats (1..24 printable characters, as the
    server checks it), normalised as the server would; an empty or blank one
    is left to the command (a default, or its own refusal)."""
    if not text.strip():
        return text
    from unoplay.protocol import MAX_NAME, LobbyError, clean_text

    try:
        return clean_text("name", text, MAX_NAME)
    except LobbyError as err:
        given = len(text.strip())
        if given > MAX_NAME:
            raise argparse.ArgumentTypeError(
                f"{given} characters; a name has at most {MAX_NAME}"
            ) from None
        raise argparse.ArgumentTypeError(str(err)) from None


def number(kind: type[_N], low: _N, high: _N | None = None, unit: str = "") -> Callable[[str], _N]:
    """An argparse type: a whole number (``kind`` int) or a finite number
    (float) from ``low`` to ``high`` (None: no upper bound); ``unit`` follows
    the bounds in the error (``" seconds"``)."""
    what = "a whole number" if kind is int else "a number"
    bounds = f"{low:g}..{high:g}{unit}" if high is not None else f"{low:g}{unit} or more"

    def parse(text: str) -> _N:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if not math.isfinite(value) or value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"must be {bounds}, not {text}")
        return value

    parse.__name__ = f"{kind.__name__} in {bounds}"
    return parse


#: ``--port``: 0 (any free port) to 65535.
port = number(int, 0, 65535)


#: A count of one or more (``--runs``, ``--max-tables``...).
positive = number(int, 1)


def bot_delay(text: str) -> float:
    """``--bot-delay``: seconds a bot waits before it plays, 0 to the
    server's most (:data:`unoplay.settings.MAX_BOT_DELAY`)."""
    from unoplay.settings import MAX_BOT_DELAY

    return number(float, 0.0, MAX_BOT_DELAY, " seconds")(text)


# ------------------------------------------------------------------ the options several commands take
#: ``--server``'s help where nothing more needs saying.
SERVER_HELP = "HOST[:PORT] (port 50051 by default)"


def add_server(
    parser: argparse.ArgumentParser, help: str = SERVER_HELP, *, required: bool = False
) -> None:
    """``--server HOST[:PORT]``, checked as parsed (:func:`server`); None when not given."""
    parser.add_argument("--server", type=server, required=required, help=help)


def add_name(parser: argparse.ArgumentParser, default: str | None, help: str) -> None:
    """``--name``: a player's name, checked as parsed (:func:`player_name`)."""
    parser.add_argument("--name", type=player_name, default=default, help=help)


def add_rules(
    parser: argparse.ArgumentParser,
    rule_help: str,
    preset_help: str = "rules preset: official or house",
) -> None:
    """``--rules PRESET`` and ``--rule NAME=VALUE`` (repeatable): the rules of
    a game, read by :func:`rule_set` (``--target`` beside them: :func:`add_target`)."""
    parser.add_argument("--rules", default="official", help=preset_help)
    parser.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE", help=rule_help)


def add_target(parser: argparse.ArgumentParser, help: str) -> None:
    """``--target POINTS``: the game's target score over the preset's (None:
    the preset's), within the rules' bounds (checked as parsed)."""
    from unoplay.game.rules import option_range

    low, high = option_range("target_score")
    parser.add_argument("--target", type=number(int, low, high), default=None, help=help)


def rule_set(args: argparse.Namespace, command: str) -> RuleSet:
    """The rules of ``--rules``, ``--target`` and every ``--rule`` (server/RULES.md).
    Raises SystemExit, one line naming ``command`` (``uno match``), for a
    preset, option or value the rules do not know."""
    from unoplay.game.rules import RuleError, parse_rule, preset

    try:
        rules = preset(args.rules)
        if getattr(args, "target", None) is not None:
            rules = rules.replace(target_score=args.target)
        options = dict(parse_rule(text) for text in getattr(args, "rule", None) or ())
        return rules.replace(**options) if options else rules
    except RuleError as err:
        raise SystemExit(f"{command}: {err}") from None


def add_json(parser: argparse.ArgumentParser) -> None:
    """``--json``: the command prints JSON for machines."""
    parser.add_argument("--json", action="store_true", help="print JSON for machines")


def add_db(
    parser: argparse.ArgumentParser, help: str = "SQLite file (default: the one uno serve uses)"
) -> None:
    """``--db FILE``: the game store of ``uno serve`` (None: its default file)."""
    parser.add_argument("--db", help=help)


#: What each kind of PEM file read by :func:`read_file` must hold.
PEM_MARKS = {"certificate": b"-----BEGIN CERTIFICATE-----", "private key": b"PRIVATE KEY-----"}


def read_file(command: str, flag: str, path: str, pem: str = "") -> bytes:
    """The bytes of the file ``flag`` names (``--tls-cert``); with ``pem``
    (a key of :data:`PEM_MARKS`: "certificate", "private key"), one that
    must hold one in PEM (else grpc logs C-level errors and blames the wrong
    thing). Raises SystemExit, one line naming ``command`` (``uno serve``),
    the flag and why it cannot be read or is not that."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as err:
        raise SystemExit(f"{command}: {flag} {path}: {err.strerror or err}") from None
    if pem and PEM_MARKS[pem] not in data:
        raise SystemExit(f"{command}: {flag} {path}: no PEM {pem} in it")
    return data


#: What a missing game store means (replay, verify).
NO_STORE_YET = " (uno serve --db makes it when its first game is stored)"


def game_store(args: argparse.Namespace, command: str) -> GameStore:
    """The game store of ``--db`` (default: the one ``uno serve`` uses), open.
    Raises SystemExit, one line naming ``command`` (``uno replay``), when
    there is no such file yet or it is no game store."""
    from unoplay.server.storage import GameStore, default_db_path

    path = args.db or default_db_path()
    if not os.path.exists(path):
        raise SystemExit(f"{command}: no game store at {path} yet{NO_STORE_YET}")
    try:
        return GameStore(path)
    except (RuntimeError, OSError, sqlite3.Error) as err:
        raise SystemExit(f"{command}: {err}") from None
