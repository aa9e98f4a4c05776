"""The checks of the ``uno`` command line's values, made as the arguments are
parsed, before any server is asked: a server's address, a bot kind, a
player's name, a number in its bounds. Each is an argparse ``type``: a bad
value is one line naming the flag (:class:`Parser`), exit status 2, never a
traceback nor a refusal from a server half a minute later.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import NoReturn, TypeVar

from .address import AddressError, server_target

_N = TypeVar("_N", int, float)


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line on stderr,
    ``uno bot: --kind: unknown bot kind 'smart'; ... (see uno bot --help)``,
    not the usage text first (its subcommands' parsers are of this class too)."""

    def error(self, message: str) -> NoReturn:
        """Print ``message`` as one line naming the command, and exit 2."""
        message = message.removeprefix("argument ")
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


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
    from unoplay.server.seats import MAX_NAME, LobbyError, clean_text

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
