"""``uno bot``: it shows and keeps its seat token, resumes its seat when run
again, and Ctrl-C ends it with one line (no traceback)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import sys

from helpers import AddressRelay

from unoplay.client.sdk import Connection, run_bot
from unoplay.game import RuleSet, make_bot
from unoplay.game.messages import TableState
from unoplay.server.arena import ArenaSettings
from unoplay.server.service import start_server

WAIT = 60.0  # seconds: upper bound of any single wait
#: the line `uno bot --arena` prints for each rated game
GAME_LINE = re.compile(
    r"^uno bot: arena game \d+: seat (\d+) of (\d+), place (\d+)( \(won\))?, (\d+) points?; "
    r"rating (-?\d+\.\d\d)( \([+-]\d+\.\d\d\))?$"
)


def _rated(out: str) -> list[str]:
    """The game lines of `uno bot --arena`'s output: after its welcome, every
    line but a void game's (a round that reached its cap of actions is not rated)."""
    return [line for line in out.splitlines()[1:] if ": void (" not in line]


async def _arena_bot(address: str, name: str, kind: str, data_dir, *more: str):
    """`uno bot --arena` as a process of its own (its arena.json in ``data_dir``)."""
    env = dict(os.environ, UNOPLAY_DATA_DIR=str(data_dir))
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "unoplay.client.cli",
        "bot",
        "--arena",
        "--server",
        address,
        "--name",
        name,
        "--kind",
        kind,
        *more,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )


async def _uno_bot(server: str, table_id: str, data_dir) -> asyncio.subprocess.Process:
    env = dict(os.environ, UNOPLAY_DATA_DIR=str(data_dir))
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "unoplay.client.cli",
        "bot",
        "--server",
        server,
        "--table",
        table_id,
        "--name",
        "Robo",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )


async def test_uno_bot_shows_keeps_and_resumes_its_seat_and_stops_on_ctrl_c(server, tmp_path):
    async with Connection(server.address) as conn:
        table = await conn.create_table(seats=2, rules=RuleSet(target_score=0), bot_delay=0.0)
        ada = await conn.join_table(table.table_id, "Ada")
        first = await _uno_bot(server.address, table.table_id, tmp_path)
        assert first.stdout is not None and first.stderr is not None
        line = (await asyncio.wait_for(first.stdout.readline(), WAIT)).decode()
        assert "seat 2" in line and "seat token" in line, line
        token = line.split("seat token ")[1].split()[0]
        kept = json.loads((tmp_path / "seats.json").read_text())
        assert [entry["token"] for entry in kept.values()] == [token]
        first.send_signal(signal.SIGINT)  # Ctrl-C, while it waits for the game
        _, err = await asyncio.wait_for(first.communicate(), WAIT)
        said = err.decode().strip().splitlines()
        assert first.returncode == 130
        assert len(said) == 1 and "stopped" in said[0] and "Traceback" not in err.decode()
        # The game starts; run again, it takes the same seat back and plays to the end.
        ada_plays = asyncio.ensure_future(
            run_bot(make_bot("greedy"), conn.session(table.table_id, ada.seat_token))
        )
        await conn.start_game(table.table_id, ada.seat_token)
        again = await _uno_bot(server.address, table.table_id, tmp_path)
        out, err = await asyncio.wait_for(again.communicate(), WAIT)
        assert again.returncode == 0, err.decode()
        assert "back" in out.decode() and "already started" not in err.decode()
        state = await asyncio.wait_for(ada_plays, WAIT)
        assert state.game_over
        live = server.lobby.get(table.table_id)
        assert live.seats[1].name == "Robo" and live.seats[1].bot is None
        assert json.loads((tmp_path / "seats.json").read_text()) == {}  # the game is over


async def test_ctrl_c_ends_the_process_even_when_the_cleanup_hangs():
    """The safety net of ``uno bot``: after Ctrl-C, a cleanup that never
    ends (as a grpc.aio stream read has been seen to) is cut off after the
    grace, with the stop line and exit status 130."""
    script = (
        "import asyncio\n"
        "from unoplay.client.cli.bot import _exit_if_cleanup_hangs\n"
        "async def main():\n"
        "    _exit_if_cleanup_hangs('uno bot: stopped', grace=0.5)\n"
        "    print('ready', flush=True)\n"
        "    while True:\n"
        "        try:\n"
        "            await asyncio.sleep(3600)\n"
        "        except asyncio.CancelledError:\n"
        "            pass  # a cleanup that never ends\n"
        "asyncio.run(main())\n"
    )
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        script,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None
    assert (await asyncio.wait_for(process.stdout.readline(), WAIT)) == b"ready\n"
    process.send_signal(signal.SIGINT)
    _, err = await asyncio.wait_for(process.communicate(), WAIT)
    assert process.returncode == 130 and err.decode().strip() == "uno bot: stopped", err


async def test_four_arena_bots_rank_greedy_above_random(server, tmp_path):
    """`uno bot --arena`: two greedy and two random bots, each a process of
    its own at an address of its own (a relay from 127.0.0.N: one address's
    entrants are not rated together), play the server's arena until `uno
    standings --json` ranks both greedy ones above both random ones with
    five games or more each; each keeps its name's secret (arena.json);
    Ctrl-C ends each with one line."""
    async with contextlib.AsyncExitStack() as relays:
        await _four_arena_bots(server, tmp_path, relays)


async def _four_arena_bots(server, tmp_path, relays: contextlib.AsyncExitStack) -> None:
    bots = []
    addresses = {}
    for i, (name, kind) in enumerate(
        (("g1", "greedy"), ("r1", "random"), ("g2", "greedy"), ("r2", "random"))
    ):
        relay = AddressRelay(server.port, f"127.0.0.{i + 2}")
        addresses[name] = await relays.enter_async_context(relay)
        bots.append(await _arena_bot(addresses[name], name, kind, tmp_path / name))
    try:
        async with Connection(server.address) as conn, asyncio.timeout(4 * WAIT):
            while True:
                rows = await conn.standings()
                enough = len(rows) == 4 and min(r.games for r in rows) >= 5
                if enough and {r.name for r in rows[:2]} == {"g1", "g2"}:
                    break
                await asyncio.sleep(0.2)
        standings = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "unoplay.client.cli",
            "standings",
            "--server",
            server.address,
            "--json",
            stdout=asyncio.subprocess.PIPE,
        )
        out, _ = await asyncio.wait_for(standings.communicate(), WAIT)
        table = json.loads(out)
        assert [set(row) >= {"name", "games", "rating"} for row in table] == [True] * 4
        assert {row["name"] for row in table[:2]} == {"g1", "g2"}
        for name in ("g1", "r1", "g2", "r2"):
            kept = json.loads((tmp_path / name / "arena.json").read_text())
            assert list(kept) == [f"{addresses[name]}|{name}"] and all(kept.values())
    finally:
        for bot in bots:
            if bot.returncode is None:
                bot.send_signal(signal.SIGINT)
        for bot in bots:
            out, err = await asyncio.wait_for(bot.communicate(), WAIT)
            assert bot.returncode == 130, err.decode()
            said = err.decode().strip().splitlines()
            assert said and "left the arena" in said[-1] and "Traceback" not in err.decode()
            games = [GAME_LINE.match(line) for line in _rated(out.decode())]
            assert games and all(games), out.decode()  # a line per game, after the welcome
            assert all(g and 1 <= int(g[1]) <= 4 and g[2] == "4" for g in games)
            assert re.search(
                rf"left the arena: {len(games)} arena games \(\d+ won\), rating", said[-1]
            )


async def test_an_arena_bot_says_each_game_and_stops_after_its_games(tmp_path):
    """`uno bot --arena --games 2`, two of them at a two-seat arena: each
    prints its two games (seat, place, points, rating and its change; the
    winner placed first with the points), then a summary line, and exits 0;
    the ratings it printed are the standings' at the end."""
    server = await start_server("127.0.0.1", 0, arena=ArenaSettings(seats=2, turn_seconds=5))
    relays = contextlib.AsyncExitStack()  # each at an address of its own: their games are rated
    try:
        bots = []
        for i, name in enumerate(("ann", "bob")):
            address = await relays.enter_async_context(
                AddressRelay(server.port, f"127.0.0.{i + 2}")
            )
            bots.append(await _arena_bot(address, name, "greedy", tmp_path / name, "--games", "2"))
        said = [await asyncio.wait_for(bot.communicate(), 4 * WAIT) for bot in bots]
        async with Connection(server.address) as conn:
            final = {row.name: row for row in await conn.standings()}
        # they left the queue before their last game: none was seated at a
        # third (it would be in play now, lost to the stand-ins)
        assert [t for t in server.lobby.tables.values() if t.state is not TableState.FINISHED] == []
        assert final["ann"].games == final["bob"].games == 2
    finally:
        await relays.aclose()
        await server.stop(None)
    for name, bot, (out, err) in zip(("ann", "bob"), bots, said):
        assert bot.returncode == 0, err.decode()
        welcome = out.decode().splitlines()[0]
        assert welcome.startswith(f"uno bot: {name} is in the arena (2 seats"), welcome
        games = [GAME_LINE.match(line) for line in _rated(out.decode())]
        assert len(games) == 2 and all(games), out.decode()
        for game in games:
            assert game is not None and game[2] == "2"
            assert (game[3] == "1") == bool(game[4])  # first place is the winner's
            assert game[4] or game[5] == "0"  # a round's points go to its winner only
        last = games[-1]
        assert last is not None and last[6] == f"{final[name].rating:.2f}"
        wins = sum(bool(g and g[4]) for g in games)
        first = welcome.rsplit("rating ", 1)[1]
        assert err.decode().strip().splitlines() == [
            f"uno bot: {name} stops: 2 arena games ({wins} won), rating "
            f"{final[name].rating:.2f} (from {first})"
        ]


async def test_uno_standings_limits_its_rows(server):
    """`uno standings --limit`: a negative one is a usage error (exit 2, one
    line, no traceback); one past what a request carries asks for every row
    (JSON, exit 0)."""

    async def standings(*args: str) -> tuple[int, str, str]:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "unoplay.client.cli",
            "standings",
            "--server",
            server.address,
            "--json",
            *args,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(process.communicate(), WAIT)
        assert process.returncode is not None
        return process.returncode, out.decode(), err.decode()

    async with Connection(server.address) as conn:
        stream = conn.enter_arena("ada")
        await anext(stream)
        code, out, err = await standings("--limit", "99999999999")
        assert code == 0 and [row["name"] for row in json.loads(out)] == ["ada"], err
        await stream.aclose()
    code, out, err = await standings("--limit", "-1")
    assert code == 2 and "--limit" in err and "Traceback" not in err and not out
