"""The ``uno`` command: one entry point with a subcommand per job."""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import logging
import os
import secrets
import signal
import sys
from typing import Any

from . import arguments
from .address import DEFAULT_PORT, error_words, timed_out

log = logging.getLogger("unoplay")
#: What a missing game store means (replay, verify).
NO_STORE_YET = " (uno serve --db makes it when its first game is stored)"


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
    if args.soak is not None:
        from .bench.soak import run as run_soak

        result = run_soak(args.soak, args.soak_tables, args.think_ms or 250)
        if args.json:
            print(json.dumps(result, indent=2))
        return 1 if result["errors"] else 0
    if args.think_ms:
        from .bench.netbench import run_thinking

        tables = tuple(int(k) for k in args.tables.split(","))
        figures = run_thinking(tables, args.think_ms, args.network_seconds, args.json, args.target)
        if args.json:
            print(json.dumps(figures, indent=2))
        return 0
    from unoplay.server.bench import run

    if args.match:
        from .match.bench import print_bench, run_bench

        match_figures = asyncio.run(
            run_bench(games=args.match_games, concurrency=args.concurrency, runs=args.runs)
        )
        if args.json:
            print(json.dumps({"match": match_figures}, indent=2))
        else:
            print_bench(match_figures)
        return 0
    quiet = None if args.json else False  # with --json, print one document at the end
    report: dict[str, object] = {
        "engine": run(
            runs=args.runs, seconds=args.seconds, as_json=quiet, with_rlcard=not args.no_rlcard
        )
    }
    if args.env:
        from .research.envbench import run as run_env
        from .research.envbench import run_vector

        report["env"] = run_env(runs=args.runs, seconds=args.seconds, as_json=args.json)
        report["vector_env"] = run_vector(runs=args.runs, seconds=args.seconds, as_json=args.json)
    if not args.no_network:
        from .bench.netbench import run as run_network

        tables = tuple(int(k) for k in args.tables.split(","))
        report["network"] = run_network(
            tables,
            args.network_seconds,
            args.json,
            args.target,
            raw_client=not args.sdk_client,
            pairs=args.network_runs,
        )
    if args.json:
        print(json.dumps(report, indent=2))
    return 0


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


def _bind_problem(host: str, port: int) -> str | None:
    """Why ``uno serve`` cannot listen on ``host:port``, found by binding a
    plain socket as grpc binds (SO_REUSEADDR on, so a closed server's
    lingering connections do not count): the name does not resolve, it is
    not an address of this machine, the port is in use, or it needs
    privileges. None when it can. grpc refuses too, but says only that it
    could not bind (and writes a C-level log line)."""
    import errno
    import socket

    name = host.strip("[]")
    try:
        infos = socket.getaddrinfo(
            name or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
    except OSError as err:  # socket.gaierror: no such name
        return f"--host {host}: the name does not resolve ({err.strerror or err})"
    for family, kind, proto, _, address in infos:
        try:
            probe = socket.socket(family, kind, proto)
        except OSError:  # a family this machine lacks (IPv6 off): grpc skips it too
            continue
        with probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(address)
            except OSError as err:
                if err.errno == errno.EADDRINUSE:
                    return f"port {port} is in use (is another server there?)"
                if err.errno == errno.EADDRNOTAVAIL:
                    return f"--host {host} is not an address of this machine"
                if err.errno in (errno.EACCES, errno.EPERM):
                    return (
                        f"no permission to listen on port {port} (ports below 1024 need "
                        f"privileges: use --port {DEFAULT_PORT})"
                    )
                return f"cannot listen on {host}:{port}: {err.strerror or err}"
    return None


def _serve(args: argparse.Namespace) -> int:
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
        new = not os.path.exists(path)
        try:  # an existing file is checked now; a new one is made with the first game
            store = GameStore(path, lazy=new)
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
        problem = _bind_problem(args.host, args.port)
        if problem:
            raise SystemExit(f"uno serve: {problem}")
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
            "uno server listening on %s:%d%s (connect with: uno%s play --server HOST:%d)",
            args.host,
            server.port,
            " with TLS" if tls else "",
            f" --tls-ca {args.tls_cert}" if tls else "",
            server.port,
        )
        advertiser = await advertise(server.port)
        site = await _start_web(args, server.port, tab_key) if tab_key is not None else None
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
        log.info("shutting down: ending streams, storing games")
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
    from .web import ALL_INTERFACES, WebSite, announce, session_command

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
        game_server = tab_key = None
        play_args = play_arguments(args)
        if args.server:  # asked once now: not a failure in every tab later
            from .address import reach_problem

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


def _replay(args: argparse.Namespace) -> int:
    """``uno replay``: the stored games, or one game, stepped through in the
    terminal (a text dump with ``--text`` or when the output is no terminal;
    JSON Lines with ``--jsonl``)."""
    from unoplay.server.storage import GameStore, default_db_path

    from .replay import Frames, jsonl_lines, write_game_list, write_move_list

    if args.match:
        store: Any = _MatchGames(args.match, args.match_id)
    else:
        path = args.db or default_db_path()
        if not os.path.exists(path):
            raise SystemExit(f"uno replay: no game store at {path} yet{NO_STORE_YET}")
        store = GameStore(path)
    text = args.text or args.jsonl or not sys.stdout.isatty()
    try:
        if args.game is None:
            games = store.games(args.limit)
            if text:
                write_game_list(games, sys.stdout)
                return 0
            from .tui.replay import ReplayApp

            def load(game_id: int) -> Frames:
                return Frames.of(store.load(game_id))

            return _run_app(ReplayApp(games=games, load=load))
        try:
            record = store.load(args.game)
        except KeyError as err:
            raise SystemExit(f"uno replay: {err.args[0]}") from None
        if args.jsonl:
            for line in jsonl_lines(record):
                sys.stdout.write(line + "\n")
        elif text:
            write_move_list(record, sys.stdout)
        else:
            from .tui.replay import ReplayApp

            seat = (args.as_seat or 0) - 1
            if not -1 <= seat < len(record.players):
                raise SystemExit(f"uno replay: --as takes a seat 1..{len(record.players)}")
            try:
                frames = Frames.of(record)
            except ValueError as err:
                raise SystemExit(f"uno replay: the game does not replay: {err}") from None
            return _run_app(ReplayApp(frames, seat))
    finally:
        store.close()
    return 0


def _run_app(app: Any) -> int:
    """Run a Textual app; its exit status: 0, or non-zero when it ended in an
    error (Textual has printed what went wrong)."""
    app.run()
    return app.return_code or 0


class _MatchGames:
    """The games of one match of a ``uno match`` results file, as ``uno
    replay`` reads a game store (``games``, ``load``, ``close``): game N is the
    match's game index N. Raises SystemExit when the file or the match is not there."""

    def __init__(self, path: str, match_id: int | None) -> None:
        from .match.store import MatchStore

        if not os.path.exists(path):
            raise SystemExit(f"uno replay: no match results at {path}")
        self.store = MatchStore(path)
        self.match_id = match_id if match_id is not None else self.store.latest()
        try:
            if self.match_id is None:
                raise KeyError(f"{path} holds no match")
            self.store.match(self.match_id)
        except KeyError as err:
            self.store.close()
            raise SystemExit(f"uno replay: {err.args[0]}") from None

    def games(self, limit: int) -> list[dict]:
        """The match's games by index (the first ``limit``)."""
        assert self.match_id is not None
        return self.store.game_list(self.match_id)[:limit]

    def load(self, game: int | str):
        """The full record of the match's game ``game`` (its index). Raises
        KeyError when there is no such game, or it has no record."""
        assert self.match_id is not None
        if not str(game).isdigit():
            raise KeyError(f"a match's game is its number, not {game!r}")
        record = self.store.game_record(self.match_id, int(game))
        if record is None:
            raise KeyError(
                f"game {game} of match {self.match_id} has no record: it was played on a "
                "remote server (--server), whose own store (uno serve --db) may hold it"
            )
        record.game_id = int(game)
        return record

    def close(self) -> None:
        """Close the file."""
        self.store.close()


def _verify(args: argparse.Namespace) -> int:
    """``uno verify``: exit 0 fair, 1 not fair, 2 unverifiable or malformed
    (one line on stderr)."""
    from unoplay.server.audit import verify
    from unoplay.server.storage import GameStore, default_db_path

    from .verify import MalformedExport, verify_export, write_verdict

    if os.path.isfile(args.game):  # an export of `uno replay --jsonl`
        try:
            record, verdict = verify_export(args.game)
        except (OSError, MalformedExport) as err:
            print(f"uno verify: {args.game}: {err}", file=sys.stderr)
            return 2
    else:
        path = args.db or default_db_path()
        if not os.path.exists(path):
            raise SystemExit(f"uno verify: no game store at {path} yet{NO_STORE_YET}")
        store = GameStore(path)
        try:
            record = store.load(args.game)
            verdict = verify(record)
        except KeyError as err:
            raise SystemExit(f"uno verify: {err.args[0]}") from None
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


def _exit_if_cleanup_hangs(message: str, grace: float = 5.0) -> None:
    """After Ctrl-C, end the process ``grace`` seconds later whatever happens.

    ``asyncio.run`` answers Ctrl-C by cancelling the main task, which closes
    the gRPC channel; grpc.aio has been seen to hang there now and then (a
    stream read the cancellation did not reach). The first Ctrl-C still
    stops cleanly; this only makes sure it stops. Call it inside the running
    ``asyncio.run`` (whose SIGINT handler it wraps)."""
    import threading
    from types import FrameType

    cancel_main = signal.getsignal(signal.SIGINT)

    def on_sigint(signum: int, frame: FrameType | None) -> None:
        def force() -> None:
            print(message, file=sys.stderr, flush=True)
            os._exit(130)

        timer = threading.Timer(grace, force)
        timer.daemon = True
        timer.start()
        if callable(cancel_main):
            cancel_main(signum, frame)

    signal.signal(signal.SIGINT, on_sigint)


#: the most rows a StandingsRequest asks for (its uint32; the server caps it lower)
MAX_ROWS = 2**32 - 1


def _row_limit(text: str) -> int:
    """``--limit``: a whole number of rows, 0 or more (a larger one than a
    request carries asks for every row the server gives)."""
    return min(arguments.number(int, 0)(text), MAX_ROWS)


def _standings(args: argparse.Namespace) -> int:
    """``uno standings``: the arena's standings of a server, a table or JSON."""
    from .sdk import Connection

    async def main() -> list:
        async with Connection(args.server) as conn:
            return await conn.standings(args.limit)

    rows = asyncio.run(main())  # a server's failure: main() says it
    if args.json:
        fields = (
            "name",
            "games",
            "wins",
            "rating",
            "mu",
            "sigma",
            "waiting",
            "playing",
            "opponents",
            "provisional",
        )
        print(json.dumps([{f: getattr(r, f) for f in fields} for r in rows], indent=1))
        return 0
    from rich.console import Console
    from rich.table import Table as RichTable
    from rich.text import Text

    table = RichTable(title=f"Arena of {args.server}")
    for column in ("#", "name", "games", "opp.", "won", "rating", "mu ± sigma", "now"):
        table.add_column(column, justify="left" if column in ("name", "now") else "right")
    for rank, r in enumerate(rows, 1):
        win_rate = f"{r.wins / r.games:.0%}" if r.games else "-"
        now = "playing" if r.playing else "waiting" if r.waiting else ""
        table.add_row(
            str(rank),
            Text(r.name),
            str(r.games),
            str(r.opponents),
            win_rate,
            f"{r.rating:.2f}" + ("?" if r.provisional else ""),
            f"{r.mu:.2f} ± {r.sigma:.2f}",
            now,
        )
    if not rows:
        print(f"uno standings: nobody has entered the arena of {args.server} yet")
        return 0
    Console().print(table)
    print("opp.: distinct opponents in rated games; ?: a provisional rating (fewer than 5)")
    return 0


def _arena_tool(args: argparse.Namespace) -> int:
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


def _arena_bot(args: argparse.Namespace, name: str) -> int:
    """``uno bot --arena``: enter the arena of ``--server`` under ``name``
    and play every game it seats the bot at (a dropped connection is
    entered again, and a game under way taken back), until ``--games`` are
    played or Ctrl-C; a line per game (seat, place, points, new rating) and
    a summary when it stops. The name's secret is kept (:class:`ArenaSecrets`).

    It leaves well (proto/README.md, section 13): the queue is left before
    the last game is played (closing ``Enter`` seats it at no further game,
    and the game under way goes on), so ``--games N`` plays exactly N, none
    lost to a stand-in. Ctrl-C leaves the queue at once and finishes the game
    under way (none: it stops now); a second Ctrl-C leaves that game too (a
    loss)."""
    from unoplay.game.registry import make_bot
    from unoplay.game.rules import PRESETS

    from .arenarecord import ArenaRecord
    from .sdk import ArenaStanding, ArenaWelcome, Connection, SeatGone, ServerUnavailable, run_bot
    from .tui.seats import ArenaSecrets

    secrets_ = ArenaSecrets()
    record = ArenaRecord(name)

    async def standing_now(conn: Connection) -> ArenaStanding | None:
        key = name.casefold()
        return next((r for r in await conn.standings() if r.name.casefold() == key), None)

    leaving = asyncio.Event()  # Ctrl-C: no game after the one under way
    stay: dict[str, Any] = {}  # the stream of the stay in the arena, while a game is played

    def interrupted(main_task: asyncio.Task[int]) -> None:
        """Ctrl-C: the first leaves the queue (the game under way is finished),
        the second the game too."""
        stream = stay.get("playing")
        if leaving.is_set() or stream is None:
            leaving.set()
            main_task.cancel()
            return
        leaving.set()
        print(
            f"uno bot: {name} leaves the arena after this game (Ctrl-C again: now, a loss)",
            file=sys.stderr,
            flush=True,
        )
        stay["closing"] = asyncio.ensure_future(stream.aclose())  # (suspended: it can be)

    async def once(conn: Connection) -> bool:
        """One stay in the arena; True once --games are played (or Ctrl-C)."""
        if args.secret:  # the operator's new secret (uno arena reset): kept from now on
            secrets_.put(args.server, name, args.secret)
            args.secret = ""
        secret = secrets_.get(args.server, name)
        rules = None
        stream = conn.enter_arena(name, secret)
        async for message in stream:
            if isinstance(message, ArenaWelcome):
                if message.secret:
                    secrets_.put(args.server, name, message.secret)
                s = message.standing
                record.entered(s)
                if message.rules in PRESETS:  # (a search bot plays by them)
                    rules = PRESETS[message.rules].replace(target_score=message.target_score)
                print(
                    f"uno bot: {message.name} is in the arena ({message.seats} seats, "
                    f"{message.rules}); {s.games} games, rating {s.rating:.2f}",
                    flush=True,
                )
                continue
            last = bool(args.games) and record.games + 1 >= args.games
            if last:  # leave the queue first: no game after this one
                await stream.aclose()
            bot = make_bot(args.kind, seed=secrets.randbits(32), rules=rules)
            stay["playing"] = stream
            try:
                state = await run_bot(bot, conn.session(message.table_id, message.seat_token))
            finally:
                stay.pop("playing", None)
            standing = await standing_now(conn) if state.game_over else None
            line = record.game(message, state.view, state.game_over, standing)
            print(f"uno bot: {line}", flush=True)
            if last or leaving.is_set():
                return True
        return leaving.is_set()

    async def main() -> int:
        pause = 0.5
        main_task = asyncio.current_task()
        assert main_task is not None
        asyncio.get_running_loop().add_signal_handler(signal.SIGINT, interrupted, main_task)
        async with Connection(args.server) as conn:
            while True:
                try:
                    if await once(conn):
                        if leaving.is_set():  # Ctrl-C, once its game was over
                            print(
                                f"uno bot: {name} left the arena: {record.summary()}",
                                file=sys.stderr,
                            )
                            return 130
                        print(f"uno bot: {name} stops: {record.summary()}", file=sys.stderr)
                        return 0
                except SeatGone as err:
                    raise SystemExit(f"uno bot: {err}") from None
                except ServerUnavailable as err:
                    if record.rating is None:  # never in: no server there, say so (main())
                        raise
                    said = error_words(err, args.server)
                    print(f"uno bot: {said}; entering again in {pause:.1f}s", file=sys.stderr)
                    await asyncio.sleep(pause)  # (a back-off between attempts, not a sync)
                    pause = min(pause * 2, 10.0)
                    continue
                print(
                    f"uno bot: {name} entered the arena elsewhere: this one stops after "
                    f"{record.summary()}",
                    file=sys.stderr,
                )
                return 0

    try:
        return asyncio.run(main())  # a server's failure: main() says it
    except (KeyboardInterrupt, asyncio.CancelledError):
        print(f"uno bot: {name} left the arena: {record.summary()}", file=sys.stderr)
        return 130


def _bot(args: argparse.Namespace) -> int:
    """``uno bot``: seat a bot (or take its stored seat back) and play to the end.

    The seat token is printed and kept like the TUI's (``seats.json`` in the
    data directory, by server, table and name), so the same command run again
    after an interruption resumes the seat. Ctrl-C stops it with one line."""
    from unoplay.game.registry import make_bot

    from .sdk import Connection, SeatGone, run_bot
    from .tui.seats import SeatStore

    name = (args.name or args.kind).strip()
    if args.arena:
        return _arena_bot(args, name)
    if not args.table:
        raise SystemExit("uno bot: --table TABLE_ID, or --arena to enter the server's arena")
    store = SeatStore()
    stopped = (
        f"uno bot: stopped; the seat stays {name}'s for a while: run the same command to resume it"
    )

    async def main() -> int:
        _exit_if_cleanup_hangs(stopped)
        async with Connection(args.server) as conn:
            token = args.token or store.get(args.server, args.table, name) or ""
            resumed = bool(token)
            if not token:
                joined = await conn.join_table(args.table, name)
                token = joined.seat_token
                store.put(args.server, args.table, name, token, joined.seat)
                print(
                    f"uno bot: {name} sits in seat {joined.seat + 1} of table {args.table}; "
                    f"seat token {token} (kept: the same command resumes the seat)",
                    flush=True,
                )
            else:
                print(f"uno bot: {name} takes its seat at table {args.table} back", flush=True)
            try:
                state = await run_bot(make_bot(args.kind), conn.session(args.table, token))
            except SeatGone:
                store.forget(args.server, args.table, name)
                if resumed and not args.token:
                    raise SystemExit(
                        f"uno bot: the seat kept for {name} at {args.table} is gone; "
                        "run the command again to sit anew"
                    ) from None
                raise
            if state.interrupted:  # the server stopped: the game ended, nothing to resume
                store.forget(args.server, args.table, name)
                print("uno bot: the game was interrupted by the server's stop", file=sys.stderr)
                return 0
            if state.game_over:
                store.forget(args.server, args.table, name)
            log.info("game over: scores %s", state.view.scores if state.view else "?")
        return 0

    try:
        return asyncio.run(main())  # a server's failure: main() says it
    except KeyboardInterrupt:
        print(stopped, file=sys.stderr)
        return 130


def _match(args: argparse.Namespace) -> int:
    from .match.command import run

    return run(args, _rules(args))


def _play(args: argparse.Namespace) -> int:
    from .tui.app import run

    return run(args)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand."""
    from unoplay.server.settings import MAX_BOT_DELAY

    parser = arguments.Parser(prog="uno", description="Networked UNO over gRPC.")
    bot_delay = arguments.number(float, 0.0, MAX_BOT_DELAY, " seconds")
    positive = arguments.number(int, 1)
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
    play.add_argument(
        "--server",
        type=arguments.server,
        help="HOST[:PORT] of a LAN server (port 50051 by default; [IPV6]:PORT; "
        "default: an embedded server, with bots)",
    )
    play.add_argument(
        "--name",
        type=arguments.player_name,
        default=None,
        help="your name at the table, 24 characters at most (default: your login)",
    )
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
        type=bot_delay,
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
        type=arguments.server,
        help="HOST[:PORT] of a game server: each tab opens its lobby "
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
    web.add_argument(
        "--name",
        type=arguments.player_name,
        default="player",
        help="the name each tab plays under (24 characters at most)",
    )
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
        "--bot-delay",
        type=bot_delay,
        default=0.6,
        help="seconds a bot waits before it plays (0..10)",
    )
    web.add_argument("--seed", type=int, default=None, help="seed of every tab's game")
    web.set_defaults(func=_web)

    serve = sub.add_parser("serve", help="run a game server for the LAN")
    serve.add_argument("--host", default="0.0.0.0", help="interface to listen on (default: all)")
    serve.add_argument(
        "--port", type=arguments.port, default=DEFAULT_PORT, help="port (0: any free port)"
    )
    serve.add_argument(
        "--db",
        help="SQLite file for finished games (default: games.sqlite3 in the user's data directory)",
    )
    serve.add_argument("--no-db", action="store_true", help="do not store games")
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
        type=positive,
        default=1000,
        help="tables at once, finished ones included (default: 1000)",
    )
    serve.add_argument(
        "--max-waiting-per-client",
        type=positive,
        default=16,
        metavar="N",
        help="tables one client address may leave waiting for players (default: 16; "
        "raise it when many players share an address, as behind uno web)",
    )
    serve.add_argument(
        "--max-tables-per-client",
        type=positive,
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
    serve.set_defaults(func=_serve)

    replay = sub.add_parser(
        "replay", help="step through a stored game (or list them), or export it"
    )
    replay.add_argument(
        "game",
        nargs="?",
        help="game id, table id or 'last' (with --match: the game's number in the match; "
        "none: list games)",
    )
    replay.add_argument("--db", help="SQLite file (default: the one uno serve uses)")
    replay.add_argument(
        "--match",
        metavar="FILE",
        help="a game of a uno match results file (its --out) instead: the latest match's",
    )
    replay.add_argument(
        "--match-id", type=int, default=None, metavar="ID", help="with --match: this match's"
    )
    replay.add_argument(
        "--jsonl",
        action="store_true",
        help="JSON Lines: the game, every action and every event, the result",
    )
    replay.add_argument("--limit", type=int, default=50, help="games to list")
    replay.add_argument(
        "--text", action="store_true", help="print the list or the move list (no screen)"
    )
    replay.add_argument(
        "--as",
        dest="as_seat",
        type=int,
        default=None,
        metavar="SEAT",
        help="step through seat SEAT's view (1..players; default: every hand)",
    )
    replay.set_defaults(func=_replay)

    verify = sub.add_parser(
        "verify",
        help="check a finished game's whole record against its revealed seed",
        description="Recompute the commitment the players got from the revealed seed and "
        "salt, replay the recorded actions from the seed, and compare with the cards the "
        "players received, the result and, for an export, every line of it. Exit 0 fair, "
        "1 not fair (it names the first difference), 2 cannot be verified (a game stored "
        "before fair deals) or not an export (one line on stderr; files over 64 MiB are "
        "refused).",
    )
    verify.add_argument(
        "game",
        help="game id, table id or 'last' of the store, or a file exported by uno replay --jsonl",
    )
    verify.add_argument("--db", help="SQLite file (default: the one uno serve uses)")
    verify.add_argument("--json", action="store_true", help="print JSON for machines")
    verify.set_defaults(func=_verify)

    standings = sub.add_parser("standings", help="a server's arena standings")
    standings.add_argument(
        "--server", type=arguments.server, required=True, help="HOST[:PORT] (port 50051 by default)"
    )
    standings.add_argument("--limit", type=_row_limit, default=0, help="rows at most (0: all)")
    standings.add_argument("--json", action="store_true", help="print JSON for machines")
    standings.set_defaults(func=_standings)

    arena = sub.add_parser("arena", help="the server operator's arena tools")
    arena_sub = arena.add_subparsers(dest="arena_command", required=True)
    for command, what in (
        ("reset", "give NAME a new secret and print it, for its owner (rating kept)"),
        ("forget", "remove NAME from the arena (its rating too): anyone may register it"),
    ):
        tool = arena_sub.add_parser(command, help=what)
        tool.add_argument("name")
        tool.add_argument("--db", help="the server's SQLite file (default: the one uno serve uses)")
        tool.set_defaults(func=_arena_tool)

    bot = sub.add_parser("bot", help="seat a bot at a table on a server, or in its arena")
    bot.add_argument(
        "--server", type=arguments.server, required=True, help="HOST[:PORT] (port 50051 by default)"
    )
    bot.add_argument("--table", default="", help="table id (or --arena)")
    bot.add_argument(
        "--arena",
        action="store_true",
        help="enter the server's arena under --name and play every game it seats the bot "
        "at, rated, until stopped (the name's secret is kept in arena.json)",
    )
    bot.add_argument(
        "--games",
        type=arguments.number(int, 0),
        default=0,
        help="with --arena: stop after this many rated games (0: never)",
    )
    bot.add_argument(
        "--kind",
        type=arguments.bot_kind,
        default="greedy",
        help=f"bot kind: {arguments.bot_kinds()} (default greedy; ismcts@80ms: a budget "
        "per decision)",
    )
    bot.add_argument(
        "--name",
        type=arguments.player_name,
        default="",
        help="display name, 24 characters at most (default: the kind)",
    )
    bot.add_argument(
        "--secret",
        default="",
        help="with --arena: the name's secret the server's operator handed you (uno arena "
        "reset); kept in arena.json from then on",
    )
    bot.add_argument("--token", default="", help="seat token of a seat already taken")
    bot.set_defaults(func=_bot)

    match = sub.add_parser(
        "match",
        help="bot-vs-bot matches: many games at once, duplicate deals, SPRT, stored results",
    )
    from .match.command import add_arguments as add_match_arguments

    add_match_arguments(match)
    match.set_defaults(func=_match)

    bench = sub.add_parser("bench", help="benchmark the engine (vs RLCard) and the server")
    bench.add_argument("--runs", type=positive, default=5, help="timed runs; the median is shown")
    bench.add_argument("--seconds", type=float, default=1.0, help="length of one run")
    bench.add_argument("--json", action="store_true", help="print JSON for machines")
    bench.add_argument("--no-rlcard", action="store_true", help="skip the RLCard comparison")
    bench.add_argument("--no-network", action="store_true", help="skip the loopback server figures")
    bench.add_argument(
        "--env",
        action="store_true",
        help="also environment steps/s (unoplay.client.research.env) beside RLCard's UNO environment, and the vector env's beside one env's",
    )
    bench.add_argument(
        "--tables",
        default="1,10,100",
        help="concurrent tables to measure, comma-separated (default 1,10,100)",
    )
    bench.add_argument(
        "--network-seconds", type=float, default=5.0, help="length of each network run"
    )
    bench.add_argument(
        "--target",
        type=int,
        default=None,
        metavar="POINTS",
        help="network only, each table's games go to POINTS (default 500, the official "
        "game, beside the bare pattern; with --think-ms 0; 0: one round a game, "
        "a new game's lobby calls and streams every round)",
    )
    bench.add_argument(
        "--raw-client",
        action="store_true",
        help="network only, bots that skip the SDK (raw protobuf, random legal actions): "
        "the server's own capacity beside the bare pattern (the default)",
    )
    bench.add_argument(
        "--sdk-client",
        action="store_true",
        help="network only, greedy bots through the SDK instead of --raw-client",
    )
    bench.add_argument(
        "--network-runs",
        type=int,
        default=1,
        metavar="N",
        help="network only, N runs of ours and the bare server's, alternated: medians",
    )
    bench.add_argument(
        "--think-ms",
        type=arguments.number(int, 0),
        default=0,
        metavar="MS",
        help="a run of its own (no engine figures): bots that think about MS a decision "
        "(realistic load): p99 per --tables count",
    )
    bench.add_argument(
        "--soak",
        type=float,
        metavar="MINUTES",
        help="soak: honest tables and abusive clients for MINUTES, the server's RSS a minute",
    )
    bench.add_argument(
        "--soak-tables", type=positive, default=20, help="honest tables of the soak (default 20)"
    )
    bench.add_argument(
        "--match",
        action="store_true",
        help="the match runner's figures instead: games/s one game at a time and with "
        "--concurrency, and the 95%% interval of greedy's win rate plain against --duplicate",
    )
    bench.add_argument(
        "--match-games", type=positive, default=40, help="games of each speed run (with --match)"
    )
    bench.add_argument(
        "--concurrency", type=positive, default=2, help="worker processes of the concurrent run"
    )
    bench.set_defaults(func=_bench)
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
        os.environ["UNOPLAY_TLS_CA"] = args.tls_ca
    if args.command != "play":  # the TUI owns the terminal
        logging.basicConfig(
            level=logging.DEBUG if args.verbose else logging.INFO,
            format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        )
    from .match import MatchError
    from .sdk import ServerError

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
    except BrokenPipeError:  # e.g. `uno replay | head`: the reader left, nothing to say
        # Point stdout at /dev/null so that flushing it at exit fails no more
        # (the recipe of the Python docs, "Note on SIGPIPE").
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
