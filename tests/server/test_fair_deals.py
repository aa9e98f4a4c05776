"""Fair deals over the wire: the seed is sent to nobody during play, only a
commitment; at the end it is revealed and every card each receiver saw
replays from it; nobody chooses a deal at an ordinary table; stored and
exported games verify, and altered ones do not; old stores are upgraded and
still replay."""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import subprocess
import sys

import grpc
import pytest
from helpers import bots_on_their_turns, until

from unoplay import wire
from unoplay.audit import verify
from unoplay.client.match import MatchConfig, parse_entrants, run_match
from unoplay.client.replay import jsonl_lines
from unoplay.client.sdk import Connection, Refused, run_bot
from unoplay.client.verify import record_from_jsonl
from unoplay.game.deals import (
    DealCheck,
    DealReveal,
    check_deals,
    game_seed,
)
from unoplay.game.engine import GameState
from unoplay.game.events import Event, EventKind
from unoplay.game.messages import TableState, Welcome
from unoplay.game.registry import make_bot
from unoplay.game.rules import PRESETS, RuleSet
from unoplay.record import LegacyRandom, final_state
from unoplay.server.limits import Limits
from unoplay.server.lobby import Lobby
from unoplay.server.service import start_server
from unoplay.server.storage import GameStore
from unoplay.v1 import game_service_pb2 as gs
from unoplay.v1 import lobby_service_pb2 as ls

WAIT = 60


# ------------------------------------------------------------------ over the wire


async def _raw_seat(
    conn: Connection, table_id: str, token: str, kind: str, received: list[bytes]
) -> None:
    """A seat played over a raw Play stream, keeping every byte it receives
    (after a cut, such as a write racing the game's end, it resumes by seq)."""
    bot = make_bot(kind, seed=1)
    last_seq = 0
    over = False
    cuts = 0
    while True:
        call = conn.games.Play()
        await call.write(
            gs.PlayRequest(join=gs.JoinGame(table_id=table_id, seat_token=token, last_seq=last_seq))
        )
        try:
            while (response := await asyncio.wait_for(call.read(), WAIT)) is not grpc.aio.EOF:
                received.append(response.SerializeToString())
                messages = [m for m in response.messages if m.seq > last_seq]
                if messages:
                    last_seq = messages[-1].seq
                over = over or any(m.event.kind == EventKind.GAME_OVER for m in messages)
                updates = [m for m in messages if m.WhichOneof("body") == "update"]
                if over or not updates or not updates[-1].update.legal_actions:
                    continue
                update = updates[-1].update
                legal = [wire.action_from_pb(a.action) for a in update.legal_actions]
                action = bot.decide(wire.view_from_pb(update.view), legal)
                if action is not None:
                    try:
                        await call.write(
                            gs.PlayRequest(intent=gs.Intent(action_id=wire.action_id(action)))
                        )
                    except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
                        pass  # the stream ended meanwhile: the next read says how
            return
        except grpc.aio.AioRpcError as err:
            # A write that raced the end of the stream fails the call locally
            # (INTERNAL), unread messages with it: resume after the last seq.
            if err.code() is not grpc.StatusCode.INTERNAL or cuts >= 5:
                raise
            cuts += 1


def _parse(raw: list[bytes], response_type) -> list[gs.TableMessage]:
    return [m for b in raw for m in response_type.FromString(b).messages]


@pytest.mark.parametrize("preset,seats,people", [("official", 2, 2), ("house", 10, 3)])
async def test_the_seed_is_in_no_byte_before_the_end_then_replays_every_card(
    preset, seats, people, caplog
):
    caplog.set_level(logging.INFO)
    rules = PRESETS[preset].replace(target_score=0)
    server = await start_server("127.0.0.1", 0)
    try:
        async with Connection(server.address) as conn:
            lobby_bytes: list[bytes] = []
            table = await conn.create_table(seats=seats, rules=rules, window_ms=0)
            lobby_bytes.append(wire.table_pb(table).SerializeToString())
            joins = [await conn.join_table(table.table_id, f"p{i}") for i in range(people)]
            for _ in range(seats - people):
                await conn.add_bot(table.table_id, "greedy")
            received: list[list[bytes]] = [[] for _ in range(people)]
            watched: list[bytes] = []
            watcher = conn.games.Spectate(gs.SpectateRequest(table_id=table.table_id))
            await asyncio.wait_for(watcher.read(), WAIT)  # the spectator is in before the start
            tasks = [
                asyncio.create_task(
                    _raw_seat(
                        conn, table.table_id, j.seat_token, "greedy" if i else "random", received[i]
                    )
                )
                for i, j in enumerate(joins)
            ]
            started = await conn.start_game(table.table_id, joins[0].seat_token)
            lobby_bytes.append(wire.table_pb(started).SerializeToString())

            async def watch() -> None:
                while (
                    response := await asyncio.wait_for(watcher.read(), WAIT)
                ) is not grpc.aio.EOF:
                    watched.append(response.SerializeToString())
                    lobby_bytes.append(
                        (
                            await conn.lobby.ListTables(ls.ListTablesRequest(), timeout=WAIT)
                        ).SerializeToString()
                    )

            await asyncio.wait_for(asyncio.gather(*tasks, watch()), WAIT)
        live = server.lobby.get(table.table_id)
        seed, salt = live.deal.seed, live.deal.salt
    finally:
        await server.stop(None)
    assert len(seed) == 64 and int(seed, 16) >= 0  # 256 bits from the CSPRNG
    secrets_ = [seed.encode(), bytes.fromhex(seed), salt.encode(), bytes.fromhex(salt)]
    streams = [(seat, raw, gs.PlayResponse) for seat, raw in enumerate(received)]
    streams.append((-1, watched, gs.SpectateResponse))
    for seat, raw, kind in streams:
        messages = _parse(raw, kind)
        bodies = [m.WhichOneof("body") for m in messages]
        at = bodies.index("deal_revealed")  # the game's last message: late refusals only after
        assert set(bodies[at + 1 :]) <= {"error"} and bodies.count("deal_revealed") == 1
        # Every byte received before the reveal holds neither seed nor salt: the
        # responses before the one that carries it, and that one's earlier messages.
        last = next(
            i
            for i, r in enumerate(raw)
            if any(m.WhichOneof("body") == "deal_revealed" for m in kind.FromString(r).messages)
        )
        head = [m for m in kind.FromString(raw[last]).messages if m.seq < messages[at].seq]
        before = b"".join(raw[:last]) + kind(messages=head).SerializeToString()
        assert not any(s in before for s in secrets_)
        revealed = messages[at].deal_revealed
        assert (revealed.seed, revealed.salt) == (seed, salt)
        welcome = next(
            m.welcome
            for m in messages
            if m.WhichOneof("body") == "welcome" and m.welcome.deal_commitment
        )
        assert welcome.table.seeded is False
        events = [
            wire.event_from_pb(m.event, seat) for m in messages if m.WhichOneof("body") == "event"
        ]
        check = check_deals(
            events,
            seat,
            DealReveal(revealed.seed, revealed.salt, revealed.commitment),
            table_id=table.table_id,
            players=seats,
            rules=rules.to_dict(),
            commitment_seen=welcome.deal_commitment,
        )
        assert check.fair, check.problems
        dealt = sum(
            len(e.cards) for e in events if e.kind in (EventKind.HAND_DEALT, EventKind.DREW_CARDS)
        )
        assert (
            dealt >= 7 if seat >= 0 else dealt == 0
        )  # its own cards, checked; none for a spectator
    assert not any(s in b for b in lobby_bytes for s in secrets_)
    assert not any(seed in r.getMessage() or salt in r.getMessage() for r in caplog.records)


async def test_the_sdk_checks_the_deals_of_the_game_it_played(server, conn):
    table = await conn.create_table(seats=3, rules=RuleSet(target_score=0))
    me = await conn.join_table(table.table_id, "me")
    for _ in range(2):
        await conn.add_bot(table.table_id, "greedy")
    await conn.start_game(table.table_id, me.seat_token)
    state = await asyncio.wait_for(
        run_bot(make_bot("greedy"), conn.session(table.table_id, me.seat_token)), WAIT
    )
    check = state.deal_check()
    assert isinstance(check, DealCheck) and check.fair and check.checked >= 7
    assert state.reveal.seed == server.lobby.get(table.table_id).deal.seed


async def test_a_chosen_seed_is_refused_at_an_ordinary_table_and_taken_at_a_seeded_one(
    server, conn
):
    plain = await conn.create_table(seats=2, rules=RuleSet(target_score=0))
    me = await conn.join_table(plain.table_id, "me")
    await conn.add_bot(plain.table_id, "greedy")
    with pytest.raises(Refused) as err:
        await conn.start_game(plain.table_id, me.seat_token, seed=42)
    assert err.value.status == "FAILED_PRECONDITION"
    assert "secret seed" in str(err.value)
    assert server.lobby.get(plain.table_id).game is None  # nothing was dealt
    assert not plain.seeded

    seeded = await conn.create_table(seats=2, rules=RuleSet(target_score=0), seed="match-7")
    assert seeded.seeded
    you = await conn.join_table(seeded.table_id, "you")
    other = await conn.join_table(seeded.table_id, "other")
    listed = {t.table_id: t for t in await conn.list_tables()}
    assert listed[seeded.table_id].seeded and not listed[plain.table_id].seeded
    await conn.start_game(seeded.table_id, you.seat_token, seed=42)
    table = server.lobby.get(seeded.table_id)
    assert table.game.seed == "42"  # StartGame's seed wins at a seeded table
    expected, _ = GameState.new(2, RuleSet(target_score=0), "42")
    assert table.game.hand(0) == expected.hand(0)
    # Every seat sees that the table is seeded, in its stream's welcome.
    for token in (you.seat_token, other.seat_token):
        session = conn.session(seeded.table_id, token)
        async for received in session:
            if isinstance(welcome := received.message, Welcome) and welcome.commitment:
                assert welcome.table.seeded
                break
        await session.close()
    with pytest.raises(Refused) as err:
        await conn.create_table(seats=2, seed="x" * 65)
    assert err.value.status == "INVALID_ARGUMENT"


async def test_a_seeded_tables_seed_deals_its_game():
    server = await start_server("127.0.0.1", 0)
    try:
        async with Connection(server.address) as conn:
            table = await conn.create_table(seats=2, rules=RuleSet(target_score=0), seed="abc")
            me = await conn.join_table(table.table_id, "me")
            await conn.add_bot(table.table_id, "greedy")
            await conn.start_game(table.table_id, me.seat_token)
            live = server.lobby.get(table.table_id)
            assert live.game.seed == game_seed("abc", 1)
            first = GameState.new(2, RuleSet(target_score=0), game_seed("abc", 1))[0]
            assert live.game.hand(0) == first.hand(0)
    finally:
        await server.stop(None)


async def test_a_seeded_tables_rematch_is_dealt_from_a_seed_no_reveal_gives_away():
    """The seed game 1 reveals at its end is not the table's seed, and the next
    game's seed cannot be made from it: a player or spectator who saw the
    reveal does not know the rematch's cards (an attack predicted every hand
    of game 2 when it was dealt from "SEED/2")."""
    lobby = Lobby()
    table = lobby.create("seeded", 2, RuleSet(target_score=0), seed="abc")
    seat = table.join("me")
    table.add_bot(make_bot("greedy", seed=2), "bot")
    table.start()
    me = make_bot("greedy", seed=1)
    while table.state is not TableState.FINISHED:
        game = table.game
        legal = game.legal_actions(0)
        if legal and not game.is_round_over:
            table.act(0, me.decide(game.view(0), legal))
        else:
            await asyncio.wait_for(table.wait_for_change(), WAIT)  # the bot moves
    revealed = table.deal.seed
    assert revealed == game_seed("abc", 1) and "abc" not in revealed
    table.vote_rematch(seat.token)  # the bot agrees at once
    assert table.games_started == 2 and table.state is TableState.PLAYING
    second = table.deal.seed
    assert second == game_seed("abc", 2)
    assert second not in {f"{revealed}/2", game_seed(revealed, 2), "abc/2", "abc"}
    table.close()


async def test_uno_match_with_a_seed_repeats_its_deals():
    rules = RuleSet(target_score=0)
    deals = []
    for _ in range(2):
        server = await start_server("127.0.0.1", 0)
        try:
            await asyncio.wait_for(
                run_match(
                    MatchConfig(
                        parse_entrants("greedy,random,random", []),
                        games=3,
                        seed=5,
                        rules=rules,
                        server=server.address,
                    )
                ),
                WAIT,
            )
            tables = sorted(server.lobby.finished, key=lambda t: t.title)
            deals.append([(t.title, t.game.seed, t.history.received[:4]) for t in tables])
        finally:
            await server.stop(None)
    assert len(deals[0]) == 3 and deals[0] == deals[1]
    assert {t[1] for t in deals[0]} == {game_seed(s, 1) for s in ("5", "6", "7")}


# ------------------------------------------------------------------ stored games


async def _stored_game(tmp_path, rules: RuleSet) -> tuple[str, int]:
    path = tmp_path / "games.sqlite3"
    server = await start_server("127.0.0.1", 0, store=str(path))
    try:
        async with Connection(server.address) as conn:
            table = await conn.create_table(seats=3, rules=rules, window_ms=0)
            me = await conn.join_table(table.table_id, "me")
            for _ in range(2):
                await conn.add_bot(table.table_id, "greedy")
            await conn.start_game(table.table_id, me.seat_token)
            await asyncio.wait_for(
                run_bot(make_bot("random", seed=3), conn.session(table.table_id, me.seat_token)),
                WAIT,
            )
        await asyncio.wait_for(server.recorder.drain(), WAIT)
    finally:
        await server.stop(None)
    store = GameStore(path)
    game_id = store.load(table.table_id).game_id
    store.close()
    return str(path), game_id


def _uno(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "unoplay.client.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


async def test_uno_verify_says_fair_and_finds_an_altered_deal(tmp_path):
    path, game_id = await _stored_game(tmp_path, PRESETS["house"].replace(target_score=0))
    store = GameStore(path)
    record = store.load(game_id)
    store.close()
    assert record.commitment and record.salt and record.received
    assert verify(record).fair
    out = _uno("verify", str(game_id), "--db", path)
    assert out.returncode == 0 and "FAIR" in out.stdout and "NOT" not in out.stdout, out
    # A copy whose stored cards were altered: the second player's deal gets another card.
    db = sqlite3.connect(path)
    received = json.loads(
        db.execute("SELECT received FROM games WHERE id = ?", (game_id,)).fetchone()[0]
    )
    entry = next(e for e in received if e[1] == EventKind.HAND_DEALT and e[2] == 1)
    entry[3][0] = next(c for c in range(108) if c not in entry[3])
    db.execute("UPDATE games SET received = ? WHERE id = ?", (json.dumps(received), game_id))
    db.commit()
    db.close()
    out = _uno("verify", str(game_id), "--db", path)
    assert out.returncode == 1 and "NOT FAIR" in out.stdout
    assert "round 1's deal to seat 2" in out.stdout, out.stdout


async def test_an_exported_game_verifies_and_an_edited_export_does_not(tmp_path):
    path, game_id = await _stored_game(tmp_path, RuleSet(target_score=0))
    store = GameStore(path)
    record = store.load(game_id)
    store.close()
    lines = list(jsonl_lines(record))
    header = json.loads(lines[0])
    assert header["commitment"] == record.commitment and header["received"]
    again = record_from_jsonl(lines)
    assert again.actions == record.actions and verify(again).fair
    export = tmp_path / "game.jsonl"
    export.write_text("\n".join(lines) + "\n")
    out = _uno("verify", str(export), "--json")
    assert out.returncode == 0 and json.loads(out.stdout)["status"] == "fair"
    header["salt"] = "0" * 32  # another salt: the commitment no longer opens
    export.write_text("\n".join([json.dumps(header)] + lines[1:]) + "\n")
    out = _uno("verify", str(export), "--json")
    assert out.returncode == 1 and "commitment" in json.loads(out.stdout)["problems"][0]


_FORMAT_1 = """
CREATE TABLE games (id INTEGER PRIMARY KEY, table_id TEXT NOT NULL, title TEXT NOT NULL,
    seed TEXT NOT NULL, rules TEXT NOT NULL, players TEXT NOT NULL, scores TEXT NOT NULL,
    winners TEXT NOT NULL, status TEXT NOT NULL, started_at REAL NOT NULL,
    finished_at REAL NOT NULL, n_actions INTEGER NOT NULL);
CREATE INDEX games_by_table ON games(table_id);
CREATE TABLE actions (game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    n INTEGER NOT NULL, seat INTEGER NOT NULL, action TEXT NOT NULL, source TEXT NOT NULL,
    t_ms INTEGER NOT NULL, PRIMARY KEY (game_id, n)) WITHOUT ROWID;
PRAGMA user_version = 1;
"""


def test_a_format_1_store_is_upgraded_and_its_mersenne_games_still_replay(tmp_path):
    # A game dealt as before fair deals: random.Random(seed), int(random() * n).
    rules = RuleSet(target_score=0)
    game, _ = GameState.new(3, rules, "77", rng=LegacyRandom(77))
    bots = [make_bot("greedy", seed=s) for s in range(3)]
    actions = bots_on_their_turns(game, bots)
    assert game.is_game_over  # one round: its end is the game's
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(_FORMAT_1)
    players = [{"seat": i, "name": f"p{i}", "bot": "greedy"} for i in range(3)]
    db.execute(
        "INSERT INTO games VALUES (1, 't1-old', 'Old', '77', ?, ?, ?, ?, 'finished', 1.0, 2.0, ?)",
        (
            json.dumps(rules.to_dict()),
            json.dumps(players),
            json.dumps(list(game.scores)),
            json.dumps(list(game.game_winners)),
            len(actions),
        ),
    )
    db.executemany(
        "INSERT INTO actions VALUES (1, ?, ?, ?, 'bot', 0)",
        [
            (i, seat, json.dumps([int(a.kind), a.card, a.colour, a.uno, a.target]))
            for i, (seat, a) in enumerate(actions)
        ],
    )
    db.commit()
    db.close()
    store = GameStore(path)
    record = store.load(1)
    store.close()
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == 2
    assert record.prng == "mt19937" and record.actions == actions
    assert final_state(record).scores == game.scores  # replays exactly, with the old generator
    assert verify(record).status == "unverifiable"
    out = _uno("verify", "1", "--db", str(path))
    assert out.returncode == 2 and "before fair deals" in out.stdout
    # The upgraded store takes new games beside the old one.
    store = GameStore(path)
    assert [g["id"] for g in store.games()] == [1]
    store.close()


@pytest.mark.parametrize("dropped", [False, True])
async def test_a_stream_cut_in_the_game_still_checks_the_deal_unless_the_server_dropped_some(
    dropped,
):
    """A seat's stream cut early in the game (the player away: a stand-in
    plays) resumes after the end. Within ``finished_full_seconds`` every
    message is still kept and the SDK checks the deal; once the server has
    kept only the end of the log, the seqs jump (``gap_at``) and the SDK says
    it cannot check (None), not that the deal was unfair."""
    limits = Limits(finished_full_seconds=0) if dropped else Limits()
    server = await start_server("127.0.0.1", 0, limits=limits)
    try:
        async with Connection(server.address) as conn:
            table = await conn.create_table(
                seats=4, rules=RuleSet(target_score=0), away_grace=0, seed="cut"
            )
            me = await conn.join_table(table.table_id, "me")
            for _ in range(3):
                await conn.add_bot(table.table_id, "greedy")
            live = server.lobby.get(table.table_id)
            session = conn.session(table.table_id, me.seat_token)
            await conn.start_game(table.table_id, me.seat_token)
            async for received in session:  # the game's first event: then gone
                if isinstance(received.message, Event):
                    break
            await session.close()
            cut_at = session.last_seq
            await until(live, lambda: live.state is TableState.FINISHED, "the game's end")
            server.lobby.sweep()
            async for _ in session:  # the same session resumes after ``cut_at``
                pass
            state = session.state
            assert state.reveal is not None and state.game_over and session.reconnects == 0
            check = state.deal_check()
            if dropped:
                assert live.seats[0].log.first_seq > cut_at + 1  # the server kept only the end
                assert state.gap_at > 0 and check is None
                events = state.events[state.game_events_from :]
                assert not check_deals(  # what the SDK would have said without ``gap_at``
                    events,
                    0,
                    state.reveal,
                    table_id=table.table_id,
                    players=4,
                    rules=state.table.rules.to_dict(),
                ).fair
            else:
                assert state.gap_at == -1 and check is not None and check.fair
                assert check.checked >= 7
    finally:
        await server.stop(None)
