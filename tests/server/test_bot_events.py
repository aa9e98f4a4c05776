"""Bots that learn from what they see (``Bot.observes``, e.g. ismcts) get
every event of their seat, in order, wherever they play: a server-side bot
or stand-in at a table, and a bot on the SDK's stream (run_bot)."""

from __future__ import annotations

import asyncio

from helpers import WAIT, TrackedBot, until

from unoplay.client.sdk import run_bot
from unoplay.game.messages import TableState
from unoplay.game.registry import make_bot
from unoplay.game.rules import RuleSet
from unoplay.server.lobby import Lobby

RULES = RuleSet(target_score=0)


async def test_a_server_side_bot_gets_every_event_of_its_seat():
    table = Lobby().create("t", 4, RULES)
    bot = TrackedBot(seed=1, rules=RULES, iterations=4)
    table.add_bot(bot, "tracked")
    for _ in range(3):
        table.add_bot(make_bot("greedy"), "greedy")
    table.start()
    await until(table, lambda: table.state is TableState.FINISHED, "the game's end")
    assert bot.calls >= 2 and bot.agreed == bot.calls


async def test_a_bot_on_the_sdk_stream_gets_every_event_of_its_seat(conn):
    table = await conn.create_table(seats=3, rules=RULES)
    me = await conn.join_table(table.table_id, "tracked")
    for _ in range(2):
        await conn.add_bot(table.table_id, "greedy")
    await conn.start_game(table.table_id, me.seat_token)
    bot = TrackedBot(seed=1, rules=RULES, iterations=4)
    state = await asyncio.wait_for(run_bot(bot, conn.session(table.table_id, me.seat_token)), WAIT)
    assert state.game_over and bot.calls >= 2 and bot.agreed == bot.calls
