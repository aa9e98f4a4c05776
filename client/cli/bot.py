"""``uno bot``: a bot seated at a table of a server (its seat kept, so the
same command resumes it), or entered in the server's arena."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import secrets
import signal
import sys
from typing import Any

from .. import arguments
from ..address import error_words

log = logging.getLogger("unoplay")
HELP = "seat a bot at a table on a server, or in its arena"


def add_arguments(bot: argparse.ArgumentParser) -> None:
    """The options of ``uno bot``."""
    arguments.add_server(bot, required=True)
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
    arguments.add_name(bot, "", "display name, 24 characters at most (default: the kind)")
    bot.add_argument(
        "--secret",
        default="",
        help="with --arena: the name's secret the server's operator handed you (uno arena "
        "reset); kept in arena.json from then on",
    )
    bot.add_argument("--token", default="", help="seat token of a seat already taken")


def run(args: argparse.Namespace) -> int:
    """``uno bot``: seat a bot (or take its stored seat back) and play to the end.

    The seat token is printed and kept like the TUI's (``seats.json`` in the
    data directory, by server, table and name), so the same command run again
    after an interruption resumes the seat. Ctrl-C stops it with one line."""
    from unoplay.game.registry import make_bot

    from ..sdk import Connection, SeatGone, run_bot
    from ..tui.seats import SeatStore

    name = (args.name or args.kind).strip()
    if args.arena and (args.table or args.token):
        raise SystemExit("uno bot: --arena seats its bot itself: no --table or --token with it")
    if args.games and not args.arena:
        raise SystemExit("uno bot: --games goes with --arena (at a --table the bot plays its game)")
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
                print(f"uno bot: taking {name}'s seat at table {args.table} back...", flush=True)
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
            scores = " ".join(map(str, state.view.scores)) if state.view else "?"
            print(f"uno bot: game over; scores by seat: {scores}", flush=True)
        return 0

    try:
        return asyncio.run(main())  # a server's failure: main() says it
    except KeyboardInterrupt:
        print(stopped, file=sys.stderr)
        return 130


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

    from ..arenarecord import ArenaRecord
    from ..sdk import ArenaStanding, ArenaWelcome, Connection, SeatGone, ServerUnavailable, run_bot
    from ..tui.seats import ArenaSecrets

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
