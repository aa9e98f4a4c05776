"""The ``uno`` command: one entry point with a subcommand per job."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import signal
import sys

log = logging.getLogger("unoplay")


def _rules(args: argparse.Namespace):
    from unoplay.game.rules import RuleError, parse_rule, preset

    try:
        rules = preset(args.rules)
        if getattr(args, "target", None) is not None:
            rules = rules.replace(target_score=args.target)
        options = dict(parse_rule(text) for text in getattr(args, "rule", None) or ())
        return rules.replace(**options) if options else rules
    except RuleError as err:
        raise SystemExit(f"uno: {err}") from None


def _bench(args: argparse.Namespace) -> int:
    from unoplay.server.bench import run

    quiet = None if args.json else False  # with --json, print one document at the end
    report = {
        "engine": run(
            runs=args.runs, seconds=args.seconds, as_json=quiet, with_rlcard=not args.no_rlcard
        )
    }
    if args.env:
        from .envbench import run as run_env

        report["env"] = run_env(runs=args.runs, seconds=args.seconds, as_json=args.json)
    if not args.no_network:
        from .netbench import run as run_network

        tables = tuple(int(k) for k in args.tables.split(","))
        report["network"] = run_network(tables, args.network_seconds, as_json=args.json)
    if args.json:
        print(json.dumps(report, indent=2))
    return 0


def _serve(args: argparse.Namespace) -> int:
    from unoplay.server.service import start_server

    async def advertise(port: int):
        """Announce the server over mDNS; None (and a warning) when that fails."""
        import os

        if os.environ.get("UNOPLAY_MDNS", "1") == "0":
            return None
        try:
            from .discovery import Advertiser

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
        try:
            with open(args.tls_cert, "rb") as cert, open(args.tls_key, "rb") as key:
                tls = (cert.read(), key.read())
        except OSError as err:
            raise SystemExit(f"uno serve: {err}") from None
    store = None
    if not args.no_db:
        path = args.db or default_db_path()
        try:  # an existing file is checked now; a new one is made with the first game
            store = GameStore(path, lazy=not os.path.exists(path))
        except Exception as err:
            raise SystemExit(f"uno serve: cannot open the game store {path}: {err}") from None
        log.info("finished games are stored in %s", path)
    from unoplay.game import BOT_KINDS

    if args.stand_in not in BOT_KINDS:
        raise SystemExit(
            f"uno serve: unknown bot kind {args.stand_in!r}; known: {', '.join(BOT_KINDS)}"
        )
    limits = Limits(max_tables=args.max_tables, stand_in=args.stand_in)

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        try:
            server = await start_server(args.host, args.port, limits=limits, store=store, tls=tls)
        except (RuntimeError, ValueError) as err:  # port taken, a bad certificate or key
            raise SystemExit(f"uno serve: {err}") from None
        log.info(
            "uno server listening on %s:%d%s (connect with: uno%s play --server HOST:%d)",
            args.host,
            server.port,
            " with TLS" if tls else "",
            f" --tls-ca {args.tls_cert}" if tls else "",
            server.port,
        )
        advertiser = await advertise(server.port)
        site = await _start_web(args, server.port) if args.web is not None else None
        await stop.wait()
        log.info("shutting down: ending streams, storing games")
        if site is not None:
            await site.stop()
        if advertiser is not None:
            await advertiser.close()
        await server.stop(2.0)
        if server.recorder is not None:
            log.info("stored %d games (%d failed)", server.recorder.saved, server.recorder.failed)
        log.info("stopped")

    asyncio.run(main())
    return 0


async def _start_web(args: argparse.Namespace, port: int):
    """``uno serve --web PORT``: this server's lobby for browsers, one ``uno play`` a tab."""
    from .web import ALL_INTERFACES, WebSite, announce, session_command

    host = "127.0.0.1" if args.host in ALL_INTERFACES else args.host
    target = f"[{host}]:{port}" if ":" in host and not host.startswith("[") else f"{host}:{port}"
    # The name a tab starts with: the web server's user name says nothing of its players.
    site = WebSite(session_command(target, ["--name", "player"], tls_ca=args.tls_cert))
    try:
        await site.start(args.web_host, args.web)
    except RuntimeError as err:
        raise SystemExit(f"uno serve --web: {err}") from None
    announce(args.web_host, site.port, "this server's lobby, each tab a player of its own")
    return site


def _web(args: argparse.Namespace) -> int:
    from .tui.app import PlayOptions
    from .web import WebSite, announce, play_arguments, session_command

    try:  # the options every tab's `uno play` gets, checked once here
        PlayOptions.from_args(args)
    except SystemExit as err:
        raise SystemExit(str(err.code).replace("uno play:", "uno web:", 1)) from None
    if args.new_table and not args.server:
        raise SystemExit(
            "uno web: --new-table goes with --server (without it every tab gets a new table anyway)"
        )

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        game_server = None
        play_args = play_arguments(args)
        if args.server:
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

            game_server = await start_server("127.0.0.1", 0)
            target, what = game_server.address, "each tab a table of its own with bots"
            play_args = ["--new-table", *play_args]
            log.info("game server for the tabs on %s", target)
        site = WebSite(session_command(target, play_args))
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


def _replay(args: argparse.Namespace) -> int:
    from unoplay.server.storage import GameStore, default_db_path

    from .replay import jsonl_lines, write_game_list, write_move_list

    path = args.db or default_db_path()
    if not os.path.exists(path):
        raise SystemExit(f"uno replay: no game store at {path} (see uno serve --db)")
    store = GameStore(path)
    try:
        if args.game is None:
            write_game_list(store.games(args.limit), sys.stdout)
            return 0
        try:
            record = store.load(args.game)
        except KeyError as err:
            raise SystemExit(f"uno replay: {err.args[0]}") from None
        if args.jsonl:
            for line in jsonl_lines(record):
                sys.stdout.write(line + "\n")
        else:
            write_move_list(record, sys.stdout)
    finally:
        store.close()
    return 0


def _verify(args: argparse.Namespace) -> int:
    from unoplay.server.storage import GameStore, default_db_path, verify

    from .replay import record_from_jsonl, write_verdict

    if os.path.isfile(args.game):  # an export of `uno replay --jsonl`
        try:
            with open(args.game, encoding="utf-8") as f:
                record = record_from_jsonl(f)
        except (OSError, ValueError) as err:
            raise SystemExit(f"uno verify: {args.game}: {err}") from None
    else:
        path = args.db or default_db_path()
        if not os.path.exists(path):
            raise SystemExit(f"uno verify: no game store at {path} (see uno serve --db)")
        store = GameStore(path)
        try:
            record = store.load(args.game)
        except KeyError as err:
            raise SystemExit(f"uno verify: {err.args[0]}") from None
        finally:
            store.close()
    try:
        verdict = verify(record)
    except ValueError as err:  # an action the engine refuses: not a game of this engine
        raise SystemExit(f"uno verify: the game does not replay: {err}") from None
    if args.json:
        print(
            json.dumps(
                {
                    "status": verdict.status,
                    "problems": verdict.problems,
                    "cards": verdict.cards,
                    "rounds": verdict.rounds,
                }
            )
        )
    else:
        write_verdict(record, verdict, sys.stdout)
    return {"fair": 0, "unfair": 1}.get(verdict.status, 2)


def _bot(args: argparse.Namespace) -> int:
    from unoplay.game.bots import make_bot

    from .sdk import Connection, run_bot

    async def main() -> int:
        async with Connection(args.server) as conn:
            token = args.token
            if not token:
                joined = await conn.join_table(args.table, args.name or args.kind)
                token = joined.seat_token
                log.info("seated at %s, seat %d", args.table, joined.seat)
            state = await run_bot(make_bot(args.kind), conn.session(args.table, token))
            log.info("game over: scores %s", state.view.scores if state.view else "?")
        return 0

    return asyncio.run(main())


def _match(args: argparse.Namespace) -> int:
    from rich.progress import Progress

    from unoplay.server.table import MAX_WINDOW_MS

    from .match import parse_entrants, print_report, run_match

    try:
        entrants = parse_entrants(args.bots, args.seat)
    except ValueError as err:
        raise SystemExit(f"uno match: {err}") from None
    rules = _rules(args)
    if not 0 <= args.window_ms <= MAX_WINDOW_MS:
        raise SystemExit(f"uno match: --window-ms must be 0..{MAX_WINDOW_MS}")
    if args.offline and (args.seat or args.server):
        raise SystemExit("uno match: --offline plays built-in bots only, without a server")
    if args.json:
        report = asyncio.run(
            run_match(
                entrants,
                args.games,
                args.seed,
                rules,
                args.server,
                window_ms=args.window_ms,
                offline=args.offline,
            )
        )
        print(json.dumps(report, indent=2))
        return 0
    with Progress(transient=True) as progress:
        task = progress.add_task("games", total=args.games)
        report = asyncio.run(
            run_match(
                entrants,
                args.games,
                args.seed,
                rules,
                args.server,
                progress=lambda done: progress.update(task, completed=done),
                window_ms=args.window_ms,
                offline=args.offline,
            )
        )
    print_report(report)
    return 0


def _play(args: argparse.Namespace) -> int:
    from .tui.app import run

    return run(args)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand."""
    parser = argparse.ArgumentParser(prog="uno", description="Networked UNO over gRPC.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log more")
    parser.add_argument(
        "--tls-ca",
        metavar="FILE",
        help="connect with TLS, trusting the certificates in FILE (PEM): the "
        "server's self-signed certificate or its CA (also $UNOPLAY_TLS_CA)",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    play = sub.add_parser(
        "play", help="play in the terminal (embedded server with bots by default)"
    )
    play.add_argument("--server", help="HOST:PORT of a LAN server (default: embedded, with bots)")
    play.add_argument("--name", default="", help="your name at the table")
    play.add_argument("--bots", type=int, default=3, help="bots at the embedded table (1..9)")
    play.add_argument("--rules", default="official", help="rules preset: official or house")
    play.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set one rule option over the preset, e.g. seven_zero=true or "
        "multi_play=same_rank (repeatable; the embedded game)",
    )
    play.add_argument("--turn-seconds", type=int, default=0, help="turn time limit (0: none)")
    play.add_argument(
        "--lan",
        action="store_true",
        help="open the connect screen: servers found on the LAN, or an address",
    )
    play.add_argument(
        "--target",
        type=int,
        default=None,
        help="target score of the embedded game (default: the preset's; 0: one round)",
    )
    play.add_argument(
        "--bot-delay",
        type=float,
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
    play.set_defaults(func=_play)

    web = sub.add_parser(
        "web",
        help="serve the terminal client to browsers: each tab its own uno play (textual-serve)",
    )
    web.add_argument(
        "--server",
        help="HOST:PORT of a game server: each tab opens its lobby "
        "(default: one embedded server, each tab a table with bots)",
    )
    web.add_argument(
        "--host",
        default="127.0.0.1",
        help="interface to listen on (default 127.0.0.1; 0.0.0.0 for the LAN)",
    )
    web.add_argument("--port", type=int, default=8000, help="HTTP port (0: any free port)")
    web.add_argument(
        "--new-table",
        action="store_true",
        help="with --server: each tab creates a table with bots there",
    )
    web.add_argument("--name", default="player", help="the name each tab plays under")
    web.add_argument("--bots", type=int, default=3, help="bots at each tab's table (1..9)")
    web.add_argument("--rules", default="official", help="rules preset: official or house")
    web.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set one rule option over the preset (repeatable)",
    )
    web.add_argument("--turn-seconds", type=int, default=0, help="turn time limit (0: none)")
    web.add_argument(
        "--target",
        type=int,
        default=None,
        help="target score (default: the preset's; 0: one round)",
    )
    web.add_argument(
        "--bot-delay", type=float, default=0.6, help="seconds a bot waits before it plays (0..10)"
    )
    web.add_argument("--seed", type=int, default=None, help="seed of every tab's game")
    web.set_defaults(func=_web)

    serve = sub.add_parser("serve", help="run a game server for the LAN")
    serve.add_argument("--host", default="0.0.0.0", help="interface to listen on (default: all)")
    serve.add_argument("--port", type=int, default=50051, help="port (0: any free port)")
    serve.add_argument(
        "--db",
        help="SQLite file for finished games (default: games.sqlite3 in the user's data directory)",
    )
    serve.add_argument("--no-db", action="store_true", help="do not store games")
    serve.add_argument("--tls-cert", help="PEM certificate (chain) file: serve TLS only")
    serve.add_argument("--tls-key", help="PEM private key file of --tls-cert")
    serve.add_argument(
        "--max-tables", type=int, default=1000, help="tables waiting or playing at once"
    )
    serve.add_argument(
        "--stand-in",
        default="greedy",
        help="bot kind that plays for an away player or a seat given up (greedy, ismcts, random)",
    )
    serve.add_argument(
        "--web",
        type=int,
        metavar="PORT",
        default=None,
        help="also serve this server's lobby to browsers on PORT (as uno web)",
    )
    serve.add_argument(
        "--web-host",
        default="127.0.0.1",
        help="interface of --web (default 127.0.0.1; 0.0.0.0 for the LAN)",
    )
    serve.set_defaults(func=_serve)

    replay = sub.add_parser("replay", help="show a stored game move by move, or export it")
    replay.add_argument("game", nargs="?", help="game id, table id or 'last' (none: list games)")
    replay.add_argument("--db", help="SQLite file (default: the one uno serve uses)")
    replay.add_argument(
        "--jsonl",
        action="store_true",
        help="JSON Lines: the game, every action and every event, the result",
    )
    replay.add_argument("--limit", type=int, default=50, help="games to list")
    replay.set_defaults(func=_replay)

    verify = sub.add_parser(
        "verify",
        help="check a finished game's deals against its revealed seed",
        description="Recompute the commitment the players got from the revealed seed and "
        "salt, replay every deal and reshuffle from the seed, and compare with the "
        "cards the players received. Exit 0 fair, 1 not fair (it says where), "
        "2 cannot be verified (a game stored before fair deals).",
    )
    verify.add_argument(
        "game",
        help="game id, table id or 'last' of the store, or a file exported by uno replay --jsonl",
    )
    verify.add_argument("--db", help="SQLite file (default: the one uno serve uses)")
    verify.add_argument("--json", action="store_true", help="print JSON for machines")
    verify.set_defaults(func=_verify)

    bot = sub.add_parser("bot", help="seat a bot at a table on a server")
    bot.add_argument("--server", required=True, help="HOST:PORT")
    bot.add_argument("--table", required=True, help="table id")
    bot.add_argument("--kind", default="greedy", help="bot kind: random or greedy")
    bot.add_argument("--name", default="", help="display name (default: the kind)")
    bot.add_argument("--token", default="", help="seat token of a seat already taken")
    bot.set_defaults(func=_bot)

    match = sub.add_parser("match", help="bot-vs-bot games with statistics and ratings")
    match.add_argument("--games", type=int, default=100, help="number of games")
    match.add_argument(
        "--bots",
        default="greedy,random,random,random",
        help="comma-separated built-in bot kinds, one per seat",
    )
    match.add_argument(
        "--seat",
        action="append",
        default=[],
        help="an external bot command for one more seat (repeatable)",
    )
    match.add_argument("--seed", type=int, default=1, help="seed of the first game")
    match.add_argument("--rules", default="official", help="rules preset")
    match.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="change one rule option over the preset, e.g. --rule format=teams "
        "(repeatable; options in server/RULES.md)",
    )
    match.add_argument(
        "--target",
        type=int,
        default=None,
        help="target score (default: the preset's; 0 for single rounds)",
    )
    match.add_argument("--server", help="HOST:PORT (default: an embedded loopback server)")
    match.add_argument(
        "--window-ms",
        type=int,
        default=0,
        help="each table's out-of-turn window in ms, 0..5000 (default 0: none)",
    )
    match.add_argument("--json", action="store_true", help="print JSON for machines")
    match.add_argument(
        "--offline",
        action="store_true",
        help="play the built-in bots in this process, without a server (same deals, faster)",
    )
    match.set_defaults(func=_match)

    bench = sub.add_parser("bench", help="benchmark the engine (vs RLCard) and the server")
    bench.add_argument("--runs", type=int, default=5, help="timed runs; the median is shown")
    bench.add_argument("--seconds", type=float, default=1.0, help="length of one run")
    bench.add_argument("--json", action="store_true", help="print JSON for machines")
    bench.add_argument("--no-rlcard", action="store_true", help="skip the RLCard comparison")
    bench.add_argument("--no-network", action="store_true", help="skip the loopback server figures")
    bench.add_argument(
        "--env",
        action="store_true",
        help="also environment steps/s (unoplay.client.env) beside RLCard's UNO environment",
    )
    bench.add_argument("--tables", default="1,10,100", help="concurrent tables to measure")
    bench.add_argument(
        "--network-seconds", type=float, default=5.0, help="length of each network run"
    )
    bench.set_defaults(func=_bench)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the ``uno`` command line; returns the process exit code."""
    args = build_parser().parse_args(argv)
    if args.tls_ca:  # every Connection made by this command uses TLS (client/sdk.py)
        if not os.path.exists(args.tls_ca):
            raise SystemExit(f"uno: --tls-ca {args.tls_ca}: no such file")
        os.environ["UNOPLAY_TLS_CA"] = args.tls_ca
    if args.command != "play":  # the TUI owns the terminal
        logging.basicConfig(
            level=logging.DEBUG if args.verbose else logging.INFO,
            format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        )
    from .match import MatchError
    from .sdk import ServerError, ServerUnavailable

    try:
        return args.func(args)
    except MatchError as err:
        print(f"uno {args.command}: {err}", file=sys.stderr)
        return 1
    except ServerError as err:  # the server's answer, not a bug: say it plainly
        print(f"uno {args.command}: {err.status}: {err.details}", file=sys.stderr)
        if isinstance(err, ServerUnavailable):
            print(_REACH_HINT, file=sys.stderr)
        return 1
    except TimeoutError:
        print(
            f"uno {args.command}: the server did not answer in time.\n{_REACH_HINT}",
            file=sys.stderr,
        )
        return 1
    except BrokenPipeError:  # e.g. `uno replay | head`: the reader left, nothing to say
        # Point stdout at /dev/null so that flushing it at exit fails no more
        # (the recipe of the Python docs, "Note on SIGPIPE").
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


_REACH_HINT = (
    "Is `uno serve` running at that address? A server started with --tls-cert "
    "needs --tls-ca CERT here."
)


if __name__ == "__main__":
    sys.exit(main())
