"""``uno web``: the terminal client served to browsers, each tab a ``uno
play`` of its own (textual-serve; client/web.py)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import secrets
import signal

from .. import arguments
from ..address import bind_problem

log = logging.getLogger("unoplay")
HELP = "serve the terminal client to browsers: each tab its own uno play (textual-serve)"


def add_arguments(web: argparse.ArgumentParser) -> None:
    """The options of ``uno web``: where it listens, and the ``uno play``
    options it gives each tab."""
    arguments.add_server(
        web,
        "HOST[:PORT] of a game server: each tab opens its lobby "
        "(default: one embedded server, each tab a table with bots)",
    )
    web.add_argument(
        "--host",
        default="127.0.0.1",
        help="interface to listen on (default 127.0.0.1; 0.0.0.0 for the LAN)",
    )
    web.add_argument(
        "--port", type=arguments.port, default=8000, help="HTTP port (0: any free port)"
    )
    web.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name the page may be opened by beyond this machine's own names and "
        "addresses (repeatable; for a name of this machine its resolver does not know)",
    )
    web.add_argument(
        "--new-table",
        action="store_true",
        help="with --server: each tab creates a table with bots there",
    )
    arguments.add_name(web, "player", "the name each tab plays under (24 characters at most)")
    web.add_argument("--bots", type=int, default=3, help="bots at each tab's table (1..9)")
    arguments.add_rules(web, "set one rule option over the preset (repeatable)")
    web.add_argument("--turn-seconds", type=int, default=0, help="turn time limit (0: none)")
    arguments.add_target(web, "target score (default: the preset's; 0: one round)")
    web.add_argument(
        "--bot-delay",
        type=arguments.bot_delay,
        default=0.6,
        help="seconds a bot waits before it plays (0..10)",
    )
    web.add_argument("--seed", type=int, default=None, help="seed of every tab's game")


def run(args: argparse.Namespace) -> int:
    """``uno web``: serve the tabs until Ctrl-C or SIGTERM; SystemExit, one
    line, for options a tab's ``uno play`` would refuse or a port it cannot take."""
    from ..tui.app import PlayOptions
    from ..web import WebSite, announce, play_arguments, session_command

    try:  # the options every tab's `uno play` gets, checked once here
        PlayOptions.from_args(args)
    except SystemExit as err:
        raise SystemExit(str(err.code).replace("uno play:", "uno web:", 1)) from None
    if args.new_table and not args.server:
        raise SystemExit(
            "uno web: --new-table goes with --server (without it every tab gets a new table anyway)"
        )

    problem = bind_problem(args.host, args.port)  # before anything starts
    if problem:
        raise SystemExit(f"uno web: {problem}")

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        game_server = tab_key = None
        play_args = play_arguments(args)
        if args.server:  # asked once now: not a failure in every tab later
            from ..address import reach_problem

            problem = await reach_problem(args.server)
            if problem:
                raise SystemExit(f"uno web: {problem}")
            target, what = (
                args.server,
                (
                    "a table with bots in each tab"
                    if args.new_table
                    else f"the lobby of {args.server} in each tab"
                ),
            )
        else:
            from unoplay.server.service import start_server

            tab_key = secrets.token_bytes(32)
            game_server = await start_server("127.0.0.1", 0, tab_key=tab_key)
            target, what = game_server.address, "each tab a table of its own with bots"
            play_args = ["--new-table", *play_args]
            log.info("game server for the tabs on %s", target)
        site = WebSite(session_command(target, play_args), args.allow_host, tab_key)
        try:
            await site.start(args.host, args.port)
        except RuntimeError as err:
            if game_server is not None:
                await game_server.stop(None)
            raise SystemExit(f"uno web: {err}") from None
        announce(args.host, site.port, what)
        await stop.wait()
        log.info("shutting down: ending every tab's session")
        await site.stop()
        if game_server is not None:
            await game_server.stop(2.0)
        log.info("stopped")

    asyncio.run(main())
    return 0
