"""Playing again at the same table (server/RULES.md, "Rematch"), and seats of
people gone from a table that has not started (they are freed)."""

from __future__ import annotations

import asyncio
import time

import pytest

from unoplay.client.sdk import Refused, SeatGone, run_bot
from unoplay.game import RuleSet, make_bot
from unoplay.game.messages import TableState
from unoplay.server.lobby import Lobby

WAIT = 60


async def test_everyone_votes_and_the_table_plays_again_with_a_new_seed(server, conn):
    table = await conn.create_table(seats=3, rules=RuleSet(target_score=0))
    ada = await conn.join_table(table.table_id, "Ada")
    bob = await conn.join_table(table.table_id, "Bob")
    await conn.add_bot(table.table_id, "greedy")
    sessions = [conn.session(table.table_id, s.seat_token) for s in (ada, bob)]
    await conn.start_game(table.table_id, ada.seat_token)
    await asyncio.wait_for(
        asyncio.gather(*(run_bot(make_bot("greedy"), s) for s in sessions)), WAIT
    )
    live = server.lobby.get(table.table_id)
    first_seed, first_commitment = live.deal.seed, live.deal.commitment
    with pytest.raises(Refused):  # a table playing, or waiting, takes no vote
        other = await conn.create_table(seats=2)
        token = (await conn.join_table(other.table_id, "x")).seat_token
        await conn.rematch(other.table_id, token)
    with pytest.raises(SeatGone):
        await conn.rematch(table.table_id, "forged")
    voted = await conn.rematch(table.table_id, ada.seat_token)
    assert voted.state is TableState.FINISHED and voted.rematch_votes == (ada.seat,)
    again = await conn.rematch(table.table_id, bob.seat_token)  # the bot agreed at once
    assert again.state is TableState.PLAYING and again.games == 2 and again.rematch_votes == ()
    assert live.deal.seed != first_seed and live.deal.commitment != first_commitment
    # The streams go on after the first game's messages, seq unbroken.
    resumed = [
        conn.session(table.table_id, s.seat_token, last_seq=old.last_seq)
        for s, old in zip((ada, bob), sessions)
    ]
    states = await asyncio.wait_for(
        asyncio.gather(*(run_bot(make_bot("greedy"), s) for s in resumed)), WAIT
    )
    for seat, (old, new) in enumerate(zip(sessions, resumed)):
        assert new.last_seq == len(live.log_for(seat)) and old.last_seq < new.last_seq
        assert old.state.commitment == first_commitment
        assert new.state.commitment == live.deal.commitment
    assert all(s.game_over for s in states) and live.state is TableState.FINISHED
    assert all(s.deal_check() is None or s.deal_check().fair for s in states)


async def test_a_player_who_leaves_a_finished_table_is_replaced_by_a_bot(server, conn):
    table = await conn.create_table(seats=2, rules=RuleSet(target_score=0))
    ada = await conn.join_table(table.table_id, "Ada")
    bob = await conn.join_table(table.table_id, "Bob")
    sessions = [conn.session(table.table_id, s.seat_token) for s in (ada, bob)]
    await conn.start_game(table.table_id, ada.seat_token)
    await asyncio.wait_for(
        asyncio.gather(*(run_bot(make_bot("random"), s) for s in sessions)), WAIT
    )
    await conn.rematch(table.table_id, ada.seat_token)
    after = await conn.leave_table(table.table_id, bob.seat_token)  # Bob has had enough
    assert after.state is TableState.PLAYING and after.seats[bob.seat].bot
    assert after.games == 2


def test_seats_of_people_gone_from_a_waiting_table_are_freed():
    lobby = Lobby()
    table = lobby.create("t", 3, RuleSet())
    gone = table.join("gone")
    here = table.join("here")
    table.attach(here)  # an open stream: a sign of life
    table.add_bot(make_bot("greedy"), "bot")
    now = time.monotonic()
    table.free_absent_seats(grace=60.0, now=now + 30)  # not long enough yet
    assert table.seats[gone.index].occupied
    table.free_absent_seats(grace=60.0, now=now + 61)
    assert not table.seats[gone.index].occupied  # free again, its token dead
    assert table.seats[here.index].occupied and table.seats[2].occupied
    table.detach(here)
    table.free_absent_seats(grace=60.0, now=time.monotonic() + 30)
    assert table.seats[here.index].occupied  # the grace counts from the stream's end


async def test_the_stand_in_bot_kind_is_the_servers_choice():
    from unoplay.game.search import IsmctsBot
    from unoplay.server.limits import Limits

    rules = RuleSet(target_score=0)
    table = Lobby(limits=Limits(stand_in="ismcts")).create("t", 2, rules)
    ada, bob = table.join("Ada"), table.join("Bob")
    table.start()
    table.leave(bob.token)
    bot = table.seats[bob.index].bot
    assert isinstance(bot, IsmctsBot) and bot.rules is rules
    table.close()
    assert ada.occupied
