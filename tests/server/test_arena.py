"""The arena (server/arena.py, arena_service.proto) on a real loopback server,
through the SDK: bots enter, are seated at rated games, come back after a
drop, keep their names; the queue's caps; the operator's tools; and the
attacks of issue 52, each from outside: sybils pumping a name, a silent bot
stalling its tables, idle entries filling the queue, names filling the book,
a reset name squatted, look-alike names. Clients at other addresses come
through :class:`AddressRelay` (127.0.0.N). Every wait has a bound; no test
asserts a time."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import subprocess
import sys
import time

import pytest
from helpers import AddressRelay

from unoplay.client.sdk import (
    ArenaSeat,
    ArenaWelcome,
    Connection,
    SeatGone,
    ServerError,
    run_bot,
)
from unoplay.game.registry import make_bot
from unoplay.server.arena import ArenaSettings
from unoplay.server.ratings import forget_name, reset_secret
from unoplay.server.service import start_server
from unoplay.server.storage import GameStore

WAIT = 60  # seconds: the bound of every wait
QUICK = ArenaSettings(seats=4, turn_seconds=5)


class ArenaBot:
    """A bot in the arena: enters under ``name``, plays every game it is
    seated at with a fresh bot of ``kind``, keeps the secret it is given."""

    def __init__(self, address: str, name: str, kind: str) -> None:
        self.address, self.name, self.kind = address, name, kind
        self.secret = ""
        self.games = 0
        self.seats: list[ArenaSeat] = []

    async def run(self, games: int | None = None) -> None:
        """Play until ``games`` games (None: until cancelled)."""
        async with Connection(self.address) as conn:
            async for message in conn.enter_arena(self.name, self.secret):
                if isinstance(message, ArenaWelcome):
                    self.secret = message.secret or self.secret
                    continue
                self.seats.append(message)
                bot = make_bot(self.kind, seed=len(self.seats))
                await run_bot(bot, conn.session(message.table_id, message.seat_token))
                self.games += 1
                if games is not None and self.games >= games:
                    return


async def _standings(address: str):
    async with Connection(address) as conn:
        return await conn.standings()


@contextlib.asynccontextmanager
async def addresses(server, count: int):
    """``count`` ways to reach ``server``, each from an address of its own:
    its address (from 127.0.0.1), then relays from 127.0.0.2, 127.0.0.3, ..."""
    async with contextlib.AsyncExitStack() as stack:
        out = [server.address]
        for i in range(2, count + 1):
            out.append(await stack.enter_async_context(AddressRelay(server.port, f"127.0.0.{i}")))
        yield out


async def _silent(address: str, name: str, seats: list[ArenaSeat], ended: list[ServerError]):
    """An entrant that sits at every game it is seated at, with its stream
    open, and never acts; the error that ended its entry goes to ``ended``."""
    async with Connection(address) as conn:
        sitting = set()

        async def sit(seat: ArenaSeat) -> None:
            with contextlib.suppress(ServerError):
                async for _ in conn.session(seat.table_id, seat.seat_token):
                    pass

        try:
            async for message in conn.enter_arena(name):
                if isinstance(message, ArenaSeat):
                    seats.append(message)
                    sitting.add(asyncio.create_task(sit(message)))
        except ServerError as err:
            ended.append(err)
        finally:
            for task in sitting:
                task.cancel()
            await asyncio.gather(*sitting, return_exceptions=True)


async def test_greedy_bots_rise_above_random_ones():
    """Two greedy and two random bots in the arena: seated together game after
    game; every game rated; the standings end with both greedy bots above
    both random ones, each with five games or more."""
    server = await start_server("127.0.0.1", 0, arena=QUICK)
    relays = addresses(server, 4)
    bots = [
        ArenaBot(address, name, kind)
        for address, (name, kind) in zip(
            await relays.__aenter__(),
            (("g1", "greedy"), ("r1", "random"), ("g2", "greedy"), ("r2", "random")),
        )
    ]
    tasks = [asyncio.create_task(bot.run()) for bot in bots]
    try:
        async with asyncio.timeout(4 * WAIT):
            while True:
                rows = await _standings(server.address)
                names = [r.name for r in rows]
                if (
                    len(rows) == 4
                    and min(r.games for r in rows) >= 5
                    and set(names[:2]) == {"g1", "g2"}
                ):
                    break
                await asyncio.sleep(0.2)
        assert all(r.games == r.wins + (r.games - r.wins) for r in rows)
        assert rows[0].rating >= rows[1].rating >= rows[2].rating >= rows[3].rating
        # each met the three others, too few for a settled rating
        assert all(r.opponents == 3 and r.provisional for r in rows)
        # every game seated all four (4 seats, 4 entrants), each at one seat
        for bot in bots:
            assert len({s.table_id for s in bot.seats}) == len(bot.seats)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await relays.__aexit__(None, None, None)
        await server.stop(None)


async def test_a_name_is_its_first_entrant_s_and_a_dropped_bot_takes_its_seat_back():
    """The first entry registers a name with a secret; another client without
    it (or with another) is refused UNAUTHENTICATED. A bot that drops
    mid-game enters again with its secret and gets its seat back; its
    standing counts the game under its name."""
    server = await start_server("127.0.0.1", 0, arena=dataclasses.replace(QUICK, seats=2))
    try:
        async with Connection(server.address) as conn, AddressRelay(server.port, "127.0.0.2") as b:
            stream = conn.enter_arena("ada")
            welcome = await anext(stream)
            assert isinstance(welcome, ArenaWelcome) and welcome.secret
            for secret in ("", "not-it"):
                with pytest.raises(SeatGone):
                    async for _ in conn.enter_arena("ADA", secret):
                        pass
            other = ArenaBot(b, "bob", "greedy")  # (one address's entrants are not rated together)
            playing = asyncio.create_task(other.run(games=1))
            seat = await asyncio.wait_for(anext(stream), WAIT)
            assert isinstance(seat, ArenaSeat)
            await stream.aclose()  # ada drops mid-game (its game goes on)
            again = conn.enter_arena("ada", welcome.secret)
            back = await asyncio.wait_for(anext(again), WAIT)
            assert isinstance(back, ArenaWelcome) and back.secret == ""
            resumed = await asyncio.wait_for(anext(again), WAIT)
            assert resumed == seat  # the same game, the same seat token
            await asyncio.wait_for(
                run_bot(make_bot("greedy"), conn.session(seat.table_id, seat.seat_token)), WAIT
            )
            await asyncio.wait_for(playing, WAIT)
            await again.aclose()
        rows = {r.name: r for r in await _standings(server.address)}
        assert rows["ada"].games == rows["bob"].games == 1
        assert rows["ada"].wins + rows["bob"].wins == 1
    finally:
        await server.stop(None)


async def test_bots_fill_the_table_of_whoever_waited_and_the_game_is_stored(tmp_path):
    """With fill_after, one entrant alone is seated with server bots; the game
    is stored like every game (players named), and rated for the entrant
    only; its rating lasts to the next run of the server."""
    db = tmp_path / "games.sqlite3"
    settings = dataclasses.replace(QUICK, fill_after=0.0)
    server = await start_server("127.0.0.1", 0, store=str(db), arena=settings)
    try:
        await asyncio.wait_for(ArenaBot(server.address, "solo", "greedy").run(games=2), WAIT)
        rows = await _standings(server.address)
        assert [(r.name, r.games) for r in rows] == [("solo", 2)]
    finally:
        await server.stop(2.0)
    store = GameStore(db)
    try:
        records = [store.load(row["id"]) for row in store.games()]
    finally:
        store.close()
    # (a third game may have begun as the bot left: it is stored interrupted)
    assert len([r for r in records if r.status == "finished"]) == 2
    for record in records:
        names = sorted(p["name"] for p in record.players)
        assert names == ["greedy-1", "greedy-2", "greedy-3", "solo"]
    server = await start_server("127.0.0.1", 0, store=str(db), arena=settings)
    try:
        rows = await _standings(server.address)
        assert [(r.name, r.games) for r in rows] == [("solo", 2)]
    finally:
        await server.stop(None)


async def test_a_reset_name_refuses_the_first_comer_and_takes_the_handed_secret(tmp_path):
    """`uno arena reset NAME` on a running server's file: it prints a new
    secret for the operator to hand over. A squatter polling with an empty
    secret is refused, before and after the reset; the old secret no longer
    enters, and its open stream ends (UNAUTHENTICATED); the handed secret
    enters, and the standing stays."""
    db = tmp_path / "games.sqlite3"
    server = await start_server("127.0.0.1", 0, store=str(db), arena=QUICK)
    try:
        async with Connection(server.address) as conn:
            stream = conn.enter_arena("eve")
            first = await anext(stream)
            assert reset_secret(str(db), "nobody") is None
            handed = reset_secret(str(db), "EVE")
            assert handed and handed != first.secret
            squatter = conn.enter_arena("squatter")  # any entry has the server read the book
            await anext(squatter)
            with pytest.raises(SeatGone):  # and the old secret's stream ends
                async with asyncio.timeout(WAIT):
                    async for _ in stream:
                        pass
            await squatter.aclose()
            for secret in ("", first.secret):
                with pytest.raises(SeatGone):
                    async for _ in conn.enter_arena("eve", secret):
                        pass
            stream = conn.enter_arena("eve", handed)
            second = await anext(stream)
            assert isinstance(second, ArenaWelcome) and second.secret == ""
            await stream.aclose()
        assert "eve" in [r.name for r in await _standings(server.address)]
    finally:
        await server.stop(None)


async def test_the_queue_is_capped(monkeypatch):
    """Entrants from one address, names one address registers:
    RESOURCE_EXHAUSTED past the caps; a bad name: INVALID_ARGUMENT."""
    settings = dataclasses.replace(QUICK, max_per_client=2, max_entrants=3, max_names_per_client=3)
    server = await start_server("127.0.0.1", 0, arena=settings)
    try:
        async with Connection(server.address) as conn:
            streams = []
            for name in ("a", "b"):
                stream = conn.enter_arena(name)
                await anext(stream)
                streams.append(stream)
            with pytest.raises(ServerError) as full:
                async for _ in conn.enter_arena("c"):
                    pass
            assert full.value.status == "RESOURCE_EXHAUSTED"
            with pytest.raises(ServerError) as bad:
                async for _ in conn.enter_arena("\x00"):
                    pass
            assert bad.value.status == "INVALID_ARGUMENT"
            for stream in streams:
                with contextlib.suppress(Exception):
                    await stream.aclose()
            streams = []
            stream = conn.enter_arena("c")  # a third name: room again, and the last one
            await anext(stream)
            await stream.aclose()
            with pytest.raises(ServerError) as many:
                async for _ in conn.enter_arena("d"):
                    pass
            assert many.value.status == "RESOURCE_EXHAUSTED" and "registered" in many.value.details
            for stream in streams:
                with contextlib.suppress(Exception):
                    await stream.aclose()
    finally:
        await server.stop(None)


async def test_seats_held_under_a_name_at_the_lobby_s_tables_do_not_keep_it_out():
    """Anyone may hold the most seats a name may hold at the lobby's tables
    under an arena entrant's name: the entrant is still seated at its arena
    game, and whoever entered last is not refused for it (nor left behind
    as a waiting entrant with no stream)."""
    server = await start_server("127.0.0.1", 0, arena=dataclasses.replace(QUICK, seats=2))
    limits = server.lobby.limits
    try:
        async with Connection(server.address) as squatter:
            held = 0
            while held < limits.max_seats_per_name:
                table = await squatter.create_table(seats=4)
                for _ in range(min(4, limits.max_seats_per_name - held)):
                    await squatter.join_table(table.table_id, "ada")
                    held += 1
            with pytest.raises(ServerError) as full:
                await squatter.join_table(table.table_id, "ADA")
            assert full.value.status == "RESOURCE_EXHAUSTED"
            async with Connection(server.address) as a, Connection(server.address) as b:
                ada, bob = a.enter_arena("ada"), b.enter_arena("bob")
                assert isinstance(await anext(ada), ArenaWelcome)
                assert isinstance(await anext(bob), ArenaWelcome)
                seat_a = await asyncio.wait_for(anext(ada), WAIT)
                seat_b = await asyncio.wait_for(anext(bob), WAIT)
                assert isinstance(seat_a, ArenaSeat) and isinstance(seat_b, ArenaSeat)
                assert seat_a.table_id == seat_b.table_id
                await ada.aclose()
                await bob.aclose()
    finally:
        await server.stop(None)


async def test_an_arena_table_plays_one_game():
    """A rematch at an arena table is refused (FAILED_PRECONDITION): its
    players are back in the arena's queue, so it would seat them twice at
    once, and keep the arena's tables open for as long as they vote."""
    settings = dataclasses.replace(QUICK, seats=2, fill_after=0.0)
    server = await start_server("127.0.0.1", 0, arena=settings)
    try:
        async with Connection(server.address) as conn:
            stream = conn.enter_arena("eve")
            await anext(stream)
            seat = await asyncio.wait_for(anext(stream), WAIT)
            await asyncio.wait_for(
                run_bot(make_bot("greedy"), conn.session(seat.table_id, seat.seat_token)), WAIT
            )
            with pytest.raises(ServerError) as refused:
                await conn.rematch(seat.table_id, seat.seat_token)
            assert refused.value.status == "FAILED_PRECONDITION"
            info = await conn.find_table(seat.table_id)
            assert info is not None and info.games == 1 and info.state.name == "FINISHED"
            again = await asyncio.wait_for(anext(stream), WAIT)  # seated anew, elsewhere
            assert isinstance(again, ArenaSeat) and again.table_id != seat.table_id
            await stream.aclose()
    finally:
        await server.stop(None)


async def test_the_lobby_marks_the_arena_s_tables_not_by_their_title():
    """ListTables says which tables are the arena's (Table.arena): its game,
    and not a table a client titled as the arena titles its own."""
    settings = dataclasses.replace(QUICK, seats=2, fill_after=0.0)
    server = await start_server("127.0.0.1", 0, arena=settings)
    try:
        async with Connection(server.address) as conn:
            mimic = await conn.create_table(seats=2, title="arena game 1")
            stream = conn.enter_arena("eve")
            await anext(stream)
            seat = await asyncio.wait_for(anext(stream), WAIT)
            listed = {t.table_id: t for t in await conn.list_tables()}
            assert listed[seat.table_id].arena and listed[seat.table_id].title == "arena game 1"
            assert not listed[mimic.table_id].arena
            await stream.aclose()
    finally:
        await server.stop(None)


@pytest.mark.parametrize(
    "bad",
    [
        {"seats": 1},
        {"seats": 0},
        {"seats": 11},
        {"turn_seconds": 0},
        {"turn_seconds": 10**6},
        {"fill_after": float("nan")},
        {"fill_after": -1.0},
        {"rules": "bogus"},
    ],
)
async def test_an_arena_no_table_can_have_is_refused_at_the_start(bad):
    """Settings no arena table can have (seats outside 2..10: the arena would
    retry a table every second for ever, or never seat anyone; a NaN fill
    time: the event loop's timers stall) are refused before serving, and by
    `uno serve` with one line."""
    with pytest.raises(ValueError):
        await start_server("127.0.0.1", 0, arena=dataclasses.replace(QUICK, **bad))


def test_uno_serve_refuses_an_arena_no_table_can_have():
    for option in (["--arena-seats", "1"], ["--arena-fill", "nan"]):
        done = subprocess.run(
            [sys.executable, "-m", "unoplay.client.cli", "serve", "--port", "0", "--no-db"]
            + ["--host", "127.0.0.1", *option],
            capture_output=True,
            text=True,
            timeout=WAIT,
        )
        assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
        assert done.stderr.strip().splitlines()[-1].startswith("uno serve: "), done.stderr


# ------------------------------------------------------------ issue 52's attacks

STALLING = dataclasses.replace(QUICK, turn_seconds=1)


async def _until(condition, what: str) -> None:
    """Poll ``condition()`` (a coroutine function) until true, within WAIT."""
    try:
        async with asyncio.timeout(WAIT):
            while not await condition():
                await asyncio.sleep(0.05)
    except TimeoutError:
        raise AssertionError(f"waited {WAIT}s for {what}") from None


async def test_a_sybil_table_rates_nothing():
    """One address seats a greedy bot with three names that never play a card:
    the sybils are given up by the clock, the greedy bot wins, and nobody is
    rated (an address with two seats at a table: no rating). And entrants of
    one address are not seated together while another address's wait."""
    server = await start_server("127.0.0.1", 0, arena=STALLING)
    sybils: list[asyncio.Task] = []
    try:
        ended: list[ServerError] = []
        for name in ("s1", "s2", "s3"):
            sybils.append(asyncio.create_task(_silent(server.address, name, [], ended)))
        pump = ArenaBot(server.address, "pump", "greedy")
        await asyncio.wait_for(pump.run(games=1), WAIT)
        rows = {r.name: r for r in await _standings(server.address)}
        assert rows["pump"].games == 0 and rows["pump"].rating == rows["s1"].rating
        assert all(r.games == 0 for r in rows.values())
    finally:
        for task in sybils:
            task.cancel()
        await asyncio.gather(*sybils, return_exceptions=True)
        await server.stop(None)

    server = await start_server("127.0.0.1", 0, arena=dataclasses.replace(QUICK, seats=3))
    try:
        async with contextlib.AsyncExitStack() as stack:
            conns = [
                await stack.enter_async_context(Connection(address))
                for address in await stack.enter_async_context(addresses(server, 3))
            ]
            streams = {}
            for name, conn in (("b1", conns[1]), ("a1", conns[0]), ("a2", conns[0])):
                streams[name] = conn.enter_arena(name)
                assert isinstance(await anext(streams[name]), ArenaWelcome)
            # b1, a1 and a2 wait: a1 and a2 are not seated together
            assert all(e.waiting for e in server.arena.entrants.values())
            streams["c1"] = conns[2].enter_arena("c1")
            assert isinstance(await anext(streams["c1"]), ArenaWelcome)
            seated = {
                name: await asyncio.wait_for(anext(streams[name]), WAIT)
                for name in ("b1", "a1", "c1")
            }
            assert len({seat.table_id for seat in seated.values()}) == 1
            assert server.arena.entrants["a2"].waiting
            for stream in streams.values():
                await stream.aclose()
    finally:
        await server.stop(None)


async def test_a_silent_entrant_is_removed_after_two_clock_moves():
    """An entrant that opens its seat's stream and never acts: after the
    clock's second move for it in a row its seat is given up (a bot plays
    it, the game ends) and its entry leaves the queue (FAILED_PRECONDITION);
    the game is rated for it alone, a loss; its opponent gains nothing. The
    welcome says the turn timer."""
    server = await start_server("127.0.0.1", 0, arena=dataclasses.replace(STALLING, seats=2))
    try:
        async with AddressRelay(server.port, "127.0.0.2") as other:
            seats: list[ArenaSeat] = []
            ended: list[ServerError] = []
            silent = asyncio.create_task(_silent(server.address, "mute", seats, ended))
            honest = ArenaBot(other, "honest", "greedy")
            await asyncio.wait_for(honest.run(games=1), WAIT)
            await asyncio.wait_for(silent, WAIT)
        assert [e.status for e in ended] == ["FAILED_PRECONDITION"], ended
        assert "given up" in str(ended[0])
        table = server.lobby.tables[seats[0].table_id]
        tally = table.history.tally()
        assert tally.get((seats[0].seat, "timer")) == 2
        assert tally.get((seats[0].seat, "player"), 0) == 0
        rows = {r.name: r for r in await _standings(server.address)}
        assert (rows["mute"].games, rows["mute"].wins) == (1, 0)
        assert rows["honest"].games == 0
        assert rows["mute"].rating < rows["honest"].rating
        assert "mute" not in server.arena.entrants
        async with Connection(server.address) as conn:
            stream = conn.enter_arena("mute", "x")
            with pytest.raises(SeatGone):  # (its secret is its own: a wrong one is refused)
                await anext(stream)
    finally:
        await server.stop(None)


async def test_idle_entries_of_one_address_leave_room_for_a_newcomer():
    """An arena of 16 entrants: one address entering 16 names holds only its
    share (the rest refused), and a newcomer of another address enters; the
    idle entries, seated and never opening their seats, are dropped. A full
    arena makes room for an address holding fewer: the latest waiting entry
    of the address holding the most leaves (RESOURCE_EXHAUSTED)."""
    settings = dataclasses.replace(STALLING, seats=2, max_entrants=16)
    server = await start_server("127.0.0.1", 0, arena=settings)
    try:
        async with addresses(server, 2) as (a, b), Connection(a) as conn:
            idle, refused = [], 0
            for i in range(16):
                stream = conn.enter_arena(f"idle{i}")
                try:
                    assert isinstance(await anext(stream), ArenaWelcome)
                    idle.append(stream)
                except ServerError as err:
                    assert err.status == "RESOURCE_EXHAUSTED"
                    refused += 1
            assert len(idle) == 2 == settings.per_address and refused == 14
            async with Connection(b) as newcomer:
                stream = newcomer.enter_arena("newcomer")
                assert isinstance(await anext(stream), ArenaWelcome)
                await stream.aclose()
            for stream in idle:  # seated together, never sat: given up, dropped
                with pytest.raises(ServerError) as dropped:
                    async with asyncio.timeout(WAIT):
                        async for _ in stream:
                            pass
                assert dropped.value.status == "FAILED_PRECONDITION"
            assert not server.arena.entrants
    finally:
        await server.stop(None)

    settings = dataclasses.replace(QUICK, seats=3, max_entrants=4, max_per_client=4)
    server = await start_server("127.0.0.1", 0, arena=settings)
    try:
        async with addresses(server, 2) as (a, b), Connection(a) as conn:
            streams = [conn.enter_arena(f"a{i}") for i in range(4)]
            for stream in streams:
                assert isinstance(await anext(stream), ArenaWelcome)
            for stream in streams[:3]:  # a table of three; a3 waits
                assert isinstance(await asyncio.wait_for(anext(stream), WAIT), ArenaSeat)
            async with Connection(b) as newcomer:
                stream = newcomer.enter_arena("b0")
                assert isinstance(await anext(stream), ArenaWelcome)
                with pytest.raises(ServerError) as made_room:
                    async for _ in streams[3]:
                        pass
                assert made_room.value.status == "RESOURCE_EXHAUSTED"
                await stream.aclose()
            for stream in streams[:3]:
                await stream.aclose()
    finally:
        await server.stop(None)


async def _enter(address: str, name: str, secret: str = "") -> ArenaWelcome:
    """Enter under ``name`` and leave at once: the welcome."""
    async with Connection(address) as conn:
        stream = conn.enter_arena(name, secret)
        try:
            return await anext(stream)
        finally:
            await stream.aclose()


async def test_the_name_book_cannot_be_filled_for_good(tmp_path):
    """An address registers its share of the names, counted in the file
    (a restart gives it no more); `uno arena forget NAME` on the running
    server's file frees a name; names unused for `forget_after` are
    released; a full book makes room for an address holding fewer names."""
    db = str(tmp_path / "games.sqlite3")
    settings = dataclasses.replace(QUICK, max_names=4, max_names_per_client=2, forget_after=3600)
    server = await start_server("127.0.0.1", 0, store=db, arena=settings)
    try:
        await _enter(server.address, "n1")
        await _enter(server.address, "n2")
        with pytest.raises(ServerError) as share:
            await _enter(server.address, "n3")
        assert share.value.status == "RESOURCE_EXHAUSTED"
    finally:
        await server.stop(None)
    server = await start_server("127.0.0.1", 0, store=db, arena=settings)
    try:
        with pytest.raises(ServerError) as share:
            await _enter(server.address, "n3")
        assert share.value.status == "RESOURCE_EXHAUSTED"
        assert forget_name(db, "N1") and not forget_name(db, "n1")
        await _enter(server.address, "n3")
        assert sorted(r.name for r in await _standings(server.address)) == ["n2", "n3"]
        async with addresses(server, 4) as (_, b, c, d):
            await _enter(b, "b1")
            await _enter(b, "b2")  # the book is full: n2, n3, b1, b2
            await _enter(c, "c1")  # room made: the least used name of an address with 2
            names = sorted(r.name for r in await _standings(server.address))
            assert len(names) == 4 and "c1" in names
            book = server.arena.book
            book.clock = lambda: time.time() + 2 * 3600  # two hours later: every name unused
            assert await _standings(server.address) == []
            await _enter(d, "d1")
    finally:
        await server.stop(None)


async def test_look_alike_and_invisible_names_are_refused():
    """A name whose UTS #39 skeleton is a registered one's (Cyrillic, Greek,
    fullwidth letters, case) is refused (UNAUTHENTICATED); a name with a
    character that prints as nothing is refused in the arena and at the
    lobby's tables (INVALID_ARGUMENT)."""
    server = await start_server("127.0.0.1", 0, arena=QUICK)
    try:
        zoe = await _enter(server.address, "zoe")
        assert zoe.secret
        for twin in ("z\u043e\u0435", "\u0396\u039f\u0395", "\uff5a\uff4f\uff45", "Z0E"):
            with pytest.raises(SeatGone, match="looks like"):
                await _enter(server.address, twin)
        async with Connection(server.address) as conn:
            table = await conn.create_table(seats=2)
            for blank in ("zoe\u3164", "zoe\u2800", "zo\u200be", "zoe\ufe0f", "zoe\u00a0x"):
                with pytest.raises(ServerError) as bad:
                    await _enter(server.address, blank)
                assert bad.value.status == "INVALID_ARGUMENT"
                with pytest.raises(ServerError) as bad:
                    await conn.join_table(table.table_id, blank)
                assert bad.value.status == "INVALID_ARGUMENT"
        assert [r.name for r in await _standings(server.address)] == ["zoe"]
    finally:
        await server.stop(None)


def test_uno_arena_reset_prints_a_new_secret_and_forget_removes_the_name(tmp_path):
    """The operator's commands on a store's file: `uno arena reset NAME`
    prints the new secret (and only it enters); `uno arena forget NAME`
    removes the name; an unknown name is one line on stderr, exit 1."""

    async def register() -> str:
        server = await start_server("127.0.0.1", 0, store=str(db), arena=QUICK)
        try:
            return (await _enter(server.address, "eve")).secret
        finally:
            await server.stop(None)

    def uno(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "unoplay.client.cli", "arena", *args, "--db", str(db)],
            capture_output=True,
            text=True,
            timeout=WAIT,
        )

    db = tmp_path / "games.sqlite3"
    first = asyncio.run(register())
    done = uno("reset", "EVE")
    assert done.returncode == 0, done.stderr
    handed = done.stdout.split("new secret is ")[1].split()[0]
    assert handed and handed != first

    async def enter_with(secret: str) -> ArenaWelcome:
        server = await start_server("127.0.0.1", 0, store=str(db), arena=QUICK)
        try:
            return await _enter(server.address, "eve", secret)
        finally:
            await server.stop(None)

    assert asyncio.run(enter_with(handed)).name == "eve"
    with pytest.raises(SeatGone):
        asyncio.run(enter_with(first))
    assert uno("forget", "eve").returncode == 0
    assert asyncio.run(enter_with("")).secret  # anyone may register it again
    gone = uno("forget", "nobody")
    assert gone.returncode == 1 and gone.stderr.strip().startswith("uno arena: ")
