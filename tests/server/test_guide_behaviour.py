"""What the bot author's guide (proto/README.md) and the .proto comments say
a server does, read from a real loopback server (issue 37: a C++ bot written
from the guide alone found it wrong in three places):

* the "house" preset, as the server reports its rules, differs from the
  official one in exactly the options the guide's section 1 names
  (multi_play same_rank among them);
* DECK_RESHUFFLED: after STARTER_RETURNED its count is the whole draw pile
  (the discard pile is then empty); on a draw it comes *before* the DREW it
  serves, its count the discard pile less its top;
* a game interrupted by the server's stop ends with deal_revealed and no
  GAME_OVER, then UNAVAILABLE "the server is shutting down"; the SDK's bot
  loop then ends cleanly (state.interrupted), as the guide tells bots to.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import grpc
import pytest
from helpers import WAIT, until

from unoplay.client.sdk import GameSession, run_bot
from unoplay.game.bots import make_bot
from unoplay.game.events import Event, EventKind
from unoplay.game.messages import Update
from unoplay.game.rules import OFFICIAL, RuleSet, preset
from unoplay.server.service import SHUTTING_DOWN, start_server
from unoplay.v1 import game_pb2 as pb
from unoplay.v1 import game_service_pb2 as gs

ROOT = Path(__file__).resolve().parents[2]
GUIDE = (ROOT / "proto" / "README.md").read_text()
GAME_PROTO = (ROOT / "proto" / "unoplay" / "v1" / "game.proto").read_text()
SERVICE_PROTO = (ROOT / "proto" / "unoplay" / "v1" / "game_service.proto").read_text()


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


# ------------------------------------------------------------------ the house preset


async def test_the_house_preset_is_what_the_guide_says(conn):
    """Section 1 names every option in which the server's "house" tables
    differ from the official rules, with the value the server reports."""
    house = await conn.create_table(seats=2, preset="house")
    official = await conn.create_table(seats=2)
    assert house.rules == preset("house") and official.rules == OFFICIAL
    differ = {
        name: value
        for name, value in house.rules.to_dict().items()
        if value != official.rules.to_dict()[name] and name != "target_score"
    }
    assert differ["multi_play"] == "same_rank"  # 981 multi-card plays in 20 games (issue 37)
    said = re.search(r'`"house"`\s*\(([^)]*)\)', GUIDE)
    assert said, "section 1 no longer spells out the house preset"
    named = set(re.findall(r"`(\w+)=(\w+)`", said.group(1)))
    assert named == {(name, str(value).lower()) for name, value in differ.items()}


# ------------------------------------------------------------------ DECK_RESHUFFLED


SEATS = 10


class Recording(GameSession):
    """A seat's session that keeps every message it yields, in stream order."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.seen: list = []

    async def __aiter__(self):
        async for received in super().__aiter__():
            self.seen.append(received.message)
            yield received


async def _recorded_game(conn, seed: str) -> list:
    """A game to 500 at a seeded table of 10 (38 cards left to draw after the
    deal): an SDK greedy bot in seat 0 (recording its stream) and nine
    server-side greedy bots."""
    table = await conn.create_table(seats=SEATS, rules=RuleSet(), seed=seed)
    me = await conn.join_table(table.table_id, "recorder")
    for _ in range(SEATS - 1):
        await conn.add_bot(table.table_id, "greedy")
    await conn.start_game(table.table_id, me.seat_token)
    session = Recording(conn, table.table_id, me.seat_token)
    state = await asyncio.wait_for(run_bot(make_bot("greedy", seed=1), session), WAIT)
    assert state.game_over
    return session.seen


async def test_deck_reshuffled_comes_before_its_drew_and_counts_the_new_draw_pile(conn):
    """Both cases of DECK_RESHUFFLED, as a seat's stream has them."""
    after_starter = after_draw = 0
    for n in range(20):  # a WD4 starter is 4 cards in 108 a round: a few games suffice
        seen = await _recorded_game(conn, f"reshuffle-{n}")
        discard = 0  # the discard pile's size, from the latest update
        for i, message in enumerate(seen):
            if isinstance(message, Update):
                discard = message.view.discard_pile_size
            elif isinstance(message, Event) and message.kind is EventKind.PLAYED:
                discard += len(message.cards)  # a Draw Two, then its draw, in one change
            if not (isinstance(message, Event) and message.kind is EventKind.DECK_RESHUFFLED):
                continue
            before = seen[i - 1]
            after = next(m for m in seen[i + 1 :] if isinstance(m, Event))
            if isinstance(before, Event) and before.kind is EventKind.STARTER_RETURNED:
                # The starter went back into the draw pile, which is shuffled
                # whole: the count is every card not dealt, the discard pile empty.
                assert message.count == 108 - 7 * SEATS
                assert after.kind is EventKind.STARTER_FLIPPED
                after_starter += 1
            else:
                # A draw found the draw pile short: the discard pile less its
                # top became the draw pile, announced before the DREW it serves.
                assert after.kind is EventKind.DREW, (before, message, after)
                assert message.count == discard - 1 > 0
                after_draw += 1
        if after_starter and after_draw:
            break
    assert after_starter and after_draw, (after_starter, after_draw)


def test_the_guide_and_the_proto_say_so():
    guide, proto = _flat(GUIDE), _flat(GAME_PROTO)
    assert "DECK_RESHUFFLED` needs nothing more" not in guide  # the old, wrong line
    assert "comes *before* the `DREW`" in guide
    assert "after `STARTER_RETURNED`" in guide
    assert "announced before the DREW it serves" in proto
    assert "the whole draw pile, the discard pile being empty" in proto


# ------------------------------------------------------------------ a server stop


async def test_a_game_interrupted_by_the_server_stop_ends_as_the_guide_says():
    """Raw stream: deal_revealed is the last message, no GAME_OVER came, the
    status is UNAVAILABLE "the server is shutting down". The SDK's bot loop on
    another seat of the same kind of table returns with state.interrupted."""
    from unoplay.client.sdk import Connection

    srv = await start_server("127.0.0.1", 0)
    try:
        async with Connection(srv.address) as conn:
            # Seat 0: read raw. bot_delay keeps the game going while we stop it.
            raw = await conn.create_table(seats=2, bot_delay=0.2, rules=RuleSet())
            me = await conn.join_table(raw.table_id, "raw")
            await conn.add_bot(raw.table_id, "greedy")
            await conn.start_game(raw.table_id, me.seat_token)
            call = conn.games.Play()
            await call.write(
                gs.PlayRequest(
                    join=gs.JoinGame(table_id=raw.table_id, seat_token=me.seat_token, last_seq=0)
                )
            )
            # Seat 0 of a second table: the SDK's own bot loop.
            sdk = await conn.create_table(seats=2, bot_delay=0.2, rules=RuleSet())
            other = await conn.join_table(sdk.table_id, "sdk")
            await conn.add_bot(sdk.table_id, "greedy")
            await conn.start_game(sdk.table_id, other.seat_token)
            playing = asyncio.create_task(
                run_bot(make_bot("greedy", seed=2), conn.session(sdk.table_id, other.seat_token))
            )
            table = srv.lobby.get(sdk.table_id)
            # The SDK's stream is open and has played (a session still
            # connecting when the server stops finds nothing to connect to),
            # and it is the server bot's turn: an intent the SDK is writing as
            # the server ends the stream fails the call locally, before the
            # reveal is read (the SDK would then reconnect to a server gone).
            await until(
                table,
                lambda: (
                    table.seats[0].connections > 0
                    and len(table.history) >= 3
                    and table.game is not None
                    and table.game.current == 1
                    and not table.game.legal_actions(0)
                ),
                "a few moves on an open stream, then the bot's turn",
            )
            messages = []
            response = await asyncio.wait_for(call.read(), WAIT)
            messages.extend(response.messages)
            await srv.stop(5.0)
            with pytest.raises(grpc.aio.AioRpcError) as err:
                while True:
                    response = await asyncio.wait_for(call.read(), WAIT)
                    assert response is not grpc.aio.EOF, "the stream ended OK"
                    messages.extend(response.messages)
            assert err.value.code() is grpc.StatusCode.UNAVAILABLE
            assert err.value.details() == SHUTTING_DOWN
            bodies = [m.WhichOneof("body") for m in messages]
            assert bodies[-1] == "deal_revealed"
            assert not any(
                m.event.kind == pb.EVENT_KIND_GAME_OVER for m in messages if m.HasField("event")
            )
            state = await asyncio.wait_for(playing, WAIT)
            assert state.interrupted and not state.game_over
            check = state.deal_check()
            assert check is not None and check.fair, check
    finally:
        await srv.stop(None)
    guide = _flat(GUIDE)
    assert "interrupted by the server's stop" in guide
    assert "`deal_revealed` without a `GAME_OVER`" in guide
    assert "do not reconnect" in guide
    assert "game is over or was interrupted" in _flat(SERVICE_PROTO)


# ------------------------------------------------------------------ the thinner places


def test_the_thin_places_are_said_outright():
    guide = _flat(GUIDE)
    assert "one stream for the whole game" in guide  # the dealer draw and every round
    assert "ascending seat numbers" in guide  # "the seats in play in clockwise order"
    assert "EVP_shake256()" in guide and "EVP_DigestFinalXOF" in guide


def test_the_quick_start_names_files_and_targets_that_exist():
    start = GUIDE.index("## First bot in 10 minutes")
    table = GUIDE[start : GUIDE.index("| file | what is in it |")]
    paths = set(re.findall(r"`(client/[\w/.]+\.\w+)`", table))
    assert len(paths) >= 2, paths
    for path in paths:
        assert (ROOT / path).is_file(), path
    makefile = (ROOT / "Makefile").read_text()
    for target in re.findall(r"`make ([\w-]+)`", table):
        assert re.search(rf"^{target}:", makefile, re.M), target
    assert GUIDE.index("## First bot in 10 minutes") < GUIDE.index("## 1. Take a seat")
