"""``uno serve``: a game server for the LAN (unoplay.server), with its game
store, its arena, mDNS and, with ``--web``, its lobby for browsers."""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import os
import secrets
import signal

from .. import arguments
from ..address import DEFAULT_PORT, bind_problem

log = logging.getLogger("unoplay")
HELP = "run a game server for the LAN"
#: ``--keep-games``' default: the newest games the file keeps (a game of ten
#: bots takes about 9 KB, so about 1 GB)
KEEP_GAMES = 100_000


def add_arguments(serve: argparse.ArgumentParser) -> None:
    """The options of ``uno serve``."""
    serve.add_argument("--host", default="0.0.0.0", help="interface to listen on (default: all)")
    serve.add_argument(
        "--port",
        type=arguments.port,
        default=DEFAULT_PORT,
        help=f"port (default: {DEFAULT_PORT}; 0: any free port)",
    )
    arguments.add_db(
        serve,
        "SQLite file for finished games (default: games.sqlite3 in the user's data directory)",
    )
    serve.add_argument("--no-db", action="store_true", help="do not store games")
    serve.add_argument(
        "--keep-games",
        type=arguments.number(int, 0),
        default=KEEP_GAMES,
        metavar="N",
        help=f"finished games --db's file keeps, the newest (default: {KEEP_GAMES:,}; 0: all); "
        "older ones are deleted as new ones are stored",
    )
    serve.add_argument(
        "--final",
        action="store_true",
        help="Ctrl-C/SIGTERM stops for good: games in play are stored as interrupted "
        "(default: the open tables stay in --db's file and come back when uno serve "
        "starts again on it; clients are told the server is restarting)",
    )
    serve.add_argument(
        "--advertise",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="announce the server over mDNS (default: unless bound to loopback, "
        "which nobody on the LAN can reach)",
    )
    serve.add_argument("--tls-cert", help="PEM certificate (chain) file: serve TLS only")
    serve.add_argument("--tls-key", help="PEM private key file of --tls-cert")
    serve.add_argument(
        "--max-tables",
        type=arguments.positive,
        default=1000,
        help="tables at once, finished ones included (default: 1000)",
    )
    serve.add_argument(
        "--max-waiting-per-client",
        type=arguments.positive,
        default=16,
        metavar="N",
        help="tables one client address may leave waiting for players (default: 16; "
        "raise it when many players share an address, as behind uno web)",
    )
    serve.add_argument(
        "--max-tables-per-client",
        type=arguments.positive,
        default=64,
        metavar="N",
        help="tables one client address may have waiting or playing, and 4 streams each "
        "waiting for their join; its oldest finished ones beyond N are dropped as it makes "
        "more (default: 64; raise it when many players share an address, as behind uno web)",
    )
    serve.add_argument(
        "--stand-in",
        type=arguments.bot_kind,
        default="greedy",
        help=f"bot kind that plays for an away player or a seat given up ({arguments.bot_kinds()};"
        " ismcts@80ms: a budget per decision)",
    )
    serve.add_argument(
        "--web",
        type=arguments.port,
        metavar="PORT",
        default=None,
        help="also serve this server's lobby to browsers on PORT (as uno web)",
    )
    serve.add_argument(
        "--web-host",
        default="127.0.0.1",
        help="interface of --web (default 127.0.0.1; 0.0.0.0 for the LAN)",
    )
    serve.add_argument(
        "--arena-seats", type=int, default=4, metavar="N", help="players at each arena game (2..10)"
    )
    serve.add_argument(
        "--arena-rules", default="official", help="the arena's rules preset: official or house"
    )
    serve.add_argument(
        "--arena-target",
        type=int,
        default=0,
        metavar="POINTS",
        help="the arena's target score (default 0: single rounds)",
    )
    serve.add_argument(
        "--arena-turn-seconds",
        type=int,
        default=10,
        help="the arena's turn timer (default 10; a silent bot's turn is played for it)",
    )
    serve.add_argument(
        "--arena-fill",
        type=float,
        default=None,
        metavar="SECONDS",
        help="seat whoever waited this long in the arena with server bots in the seats "
        "left (default: never; bots are not rated)",
    )
    serve.add_argument(
        "--arena-forget-days",
        type=float,
        default=30.0,
        metavar="DAYS",
        help="release an arena name nobody used for this many days (default 30; 0: never)",
    )
    serve.add_argument(
        "--web-allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="as uno web --allow-host, for --web",
    )


def _is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address) is this machine only: a server
    bound there cannot be reached from the LAN, so it does not advertise."""
    import ipaddress

    if host.casefold() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def run(args: argparse.Namespace) -> int:
    """``uno serve``: listen until Ctrl-C or SIGTERM, then stop (storing the
    games in play); SystemExit, one line, when it cannot start."""
    from unoplay.server.service import start_server

    async def advertise(port: int):
        """Announce the server over mDNS; None (and a warning) when that fails."""
        import os

        if os.environ.get("UNOPLAY_MDNS", "1") == "0":
            return None
        if args.advertise is False:
            return None
        if args.advertise is None and _is_loopback(args.host):
            log.info("bound to loopback (%s): not advertised on the LAN", args.host)
            return None
        try:
            from ..discovery import Advertiser

            addresses = None
            if args.host not in ("0.0.0.0", "", "[::]", "::"):
                addresses = [args.host]
            advertiser = Advertiser(port, addresses=addresses)
            await advertiser.start()
        except Exception as err:
            log.warning(
                "not advertised on the LAN (mDNS failed: %s); "
                "players can still connect with --server HOST:%d",
                err,
                port,
            )
            return None
        log.info("advertised on the LAN as %r", advertiser.registered_name)
        return advertiser

    from unoplay.server.limits import Limits
    from unoplay.server.storage import GameStore, default_db_path

    tls = None
    if args.tls_cert or args.tls_key:
        if not (args.tls_cert and args.tls_key):
            raise SystemExit("uno serve: --tls-cert and --tls-key go together")
        tls = (
            arguments.read_file("uno serve", "--tls-cert", args.tls_cert, pem="certificate"),
            arguments.read_file("uno serve", "--tls-key", args.tls_key, pem="private key"),
        )
    store = None
    if args.no_db and args.db:
        raise SystemExit("uno serve: --db or --no-db, not both")
    if not args.no_db:
        path = args.db or default_db_path()
        new = not os.path.exists(path)
        folder = os.path.dirname(os.path.abspath(path))
        if args.db and not os.path.isdir(folder):  # (a typo would make directories)
            raise SystemExit(f"uno serve: --db {args.db}: no directory {folder}")
        try:  # an existing file is checked now; a new one is made with the first game
            store = GameStore(path, lazy=new, keep=args.keep_games)
        except Exception as err:
            raise SystemExit(f"uno serve: cannot open the game store {path}: {err}") from None
        made = " (made with the first one)" if new else ""
        log.info("finished games are stored in %s%s", path, made)
    limits = Limits(
        max_tables=args.max_tables,
        max_waiting_tables_per_client=args.max_waiting_per_client,
        max_tables_per_client=args.max_tables_per_client,
        stand_in=args.stand_in,
    )

    arena = _arena_settings(args)
    # --web: the tabs' sessions are clients of their own (unoplay.channel)
    tab_key = secrets.token_bytes(32) if args.web is not None else None

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        problem = bind_problem(args.host, args.port)
        if problem:
            raise SystemExit(f"uno serve: {problem}")
        if args.web:  # (0: any free port)
            problem = bind_problem(args.web_host, args.web, "--web-host")
            if problem:
                raise SystemExit(f"uno serve --web: {problem}")
        try:
            server = await start_server(
                args.host,
                args.port,
                limits=limits,
                store=store,
                tls=tls,
                tab_key=tab_key,
                arena=arena,
            )
        except (RuntimeError, ValueError) as err:  # port taken, a bad certificate or key
            raise SystemExit(f"uno serve: {err}") from None
        log.info(
            "uno server listening on %s:%d%s (connect with: uno%s play --server %s:%d)",
            args.host,
            server.port,
            " with TLS" if tls else "",
            f" --tls-ca {args.tls_cert}" if tls else "",
            "HOST" if args.host in ("0.0.0.0", "::", "[::]", "") else args.host,
            server.port,
        )
        try:  # (the web page first: a server that cannot have it is not announced)
            site = await _start_web(args, server.port, tab_key) if tab_key is not None else None
        except BaseException:
            await server.stop(None)
            raise
        advertiser = await advertise(server.port)
        # What exists now (modules, message descriptors, caches) lives as long as the
        # server: keep it out of the collector's scans, which then cost what the
        # tables hold, not the whole program. And collect the young generation
        # after 5,000 new objects, not 700: every waiting stream's futures and
        # coroutines are made anew after each change, and with 700 most of them
        # lived just long enough to be promoted and scanned again in the older
        # generations (at 300 tables of thinking bots: 1.2 s of collections in
        # 30 s, pauses up to 60 ms; with 5,000: 0.45 s and the p99 of an intent
        # under 20 ms).
        gc.freeze()
        gc.set_threshold(5_000, 10, 10)
        await stop.wait()
        if server.journal is not None and not args.final:
            log.info(
                "stopping to restart: the open tables stay in the file, back when it serves again"
            )
        elif server.recorder is not None:
            log.info("shutting down for good: ending streams, storing games in play as interrupted")
        else:
            log.info("shutting down: ending streams (no file: games in play are not kept)")
        if site is not None:
            await site.stop()
        if advertiser is not None:
            await advertiser.close()
        await server.stop(2.0, final=args.final)
        if server.recorder is not None:
            log.info("stored %d games (%d failed)", server.recorder.saved, server.recorder.failed)
        log.info("stopped")

    asyncio.run(main())
    return 0


def _arena_settings(args: argparse.Namespace):
    """The arena of ``uno serve`` from its options (SystemExit, one line, for
    settings no arena table can have: :meth:`ArenaSettings.check`)."""
    from unoplay.server.arena import ArenaSettings

    settings = ArenaSettings(
        seats=args.arena_seats,
        rules=args.arena_rules,
        target=args.arena_target,
        turn_seconds=args.arena_turn_seconds,
        fill_after=args.arena_fill,
        forget_after=args.arena_forget_days * 86400.0 if args.arena_forget_days else None,
    )
    try:
        settings.check()
    except ValueError as err:  # (RuleError too: rules its seats cannot play)
        raise SystemExit(f"uno serve: the arena's settings: {err}") from None
    return settings


async def _start_web(args: argparse.Namespace, port: int, tab_key: bytes):
    """``uno serve --web PORT``: this server's lobby for browsers, one ``uno play`` a tab."""
    from ..web import ALL_INTERFACES, WebSite, announce, session_command

    host = "127.0.0.1" if args.host in ALL_INTERFACES else args.host
    target = f"[{host}]:{port}" if ":" in host and not host.startswith("[") else f"{host}:{port}"
    # The name a tab starts with: the web server's user name says nothing of its players.
    site = WebSite(
        session_command(target, ["--name", "player"], tls_ca=args.tls_cert),
        args.web_allow_host,
        tab_key,
    )
    try:
        await site.start(args.web_host, args.web)
    except RuntimeError as err:
        raise SystemExit(f"uno serve --web: {err}") from None
    announce(args.web_host, site.port, "this server's lobby, each tab a player of its own")
    return site
