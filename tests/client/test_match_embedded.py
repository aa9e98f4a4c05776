"""``uno match`` at its embedded server without the wire: the lobby calls
made on the lobby itself answer as the SDK's do over gRPC (the same tables,
the same errors), and a worker whose entrants all play in its process starts
no gRPC server at all."""

from __future__ import annotations

import dataclasses
import sys

import pytest

from unoplay.client.match.config import MatchConfig
from unoplay.client.match.embedded import EmbeddedLobby
from unoplay.client.match.entrants import parse_entrants
from unoplay.client.match.worker import GameRunner
from unoplay.client.sdk import ServerError
from unoplay.game.rules import GameFormat, RuleSet, preset

SETTINGS = {
    "seats": 3,
    "rules": RuleSet(target_score=0),
    "title": "both ways",
    "turn_seconds": 5,
    "away_grace": 7,
    "window_ms": None,  # the server's default for the rules
    "seed": 12,
    "max_round_actions": None,
}


def _same(info):
    """A table's info without what differs between two tables (id, title)."""
    return dataclasses.replace(info, table_id="", title="")


async def test_the_embedded_lobby_makes_the_tables_the_service_makes(server, conn):
    direct = EmbeddedLobby(server.lobby)
    over_grpc = await conn.create_table(**SETTINGS)
    made = await direct.create_table(**SETTINGS)
    assert _same(made) == _same(over_grpc) and made.table_id != over_grpc.table_id
    seated = [await direct.join_table(made.table_id, f"p{i}") for i in range(3)]
    assert [s.seat for s in seated] == [0, 1, 2] and all(s.seat_token for s in seated)
    started = await direct.start_game(made.table_id, seated[1].seat_token)
    assert started.state.name == "PLAYING" and started.seeded
    left = await direct.leave_table(made.table_id, seated[2].seat_token)
    assert left.seats[2].bot  # a seat given up mid-game is played by the server's bot


async def _refusal(call) -> tuple[type, str]:
    with pytest.raises(ServerError) as err:
        await call
    return type(err.value), err.value.status


async def test_the_embedded_lobby_refuses_as_the_sdk_does(server, conn):
    direct = EmbeddedLobby(server.lobby)
    full = await conn.create_table(seats=2, rules=RuleSet(target_score=0))
    for i in range(2):
        await conn.join_table(full.table_id, f"p{i}")
    teams = RuleSet(format=GameFormat.TEAMS)
    cases = [
        lambda c: c.join_table("t999-000000", "me"),  # no such table
        lambda c: c.join_table(full.table_id, "late"),  # full
        lambda c: c.join_table(full.table_id, "\u202e"),  # not a name
        lambda c: c.start_game(full.table_id, "not-a-token"),
        lambda c: c.leave_table(full.table_id, "not-a-token"),
        lambda c: c.create_table(**{**SETTINGS, "rules": teams}),  # teams at 3 seats
        lambda c: c.create_table(**{**SETTINGS, "seats": 11}),
    ]
    for case in cases:
        assert await _refusal(case(direct)) == await _refusal(case(conn))


@pytest.mark.parametrize(
    ("network", "seat", "serves"), [(False, None, False), (True, None, True), (False, "x", True)]
)
async def test_a_worker_listens_only_when_a_game_needs_the_network(network, seat, serves):
    seats = [f"{sys.executable} -c pass"] if seat else []
    entrants = parse_entrants("greedy,random", seats)
    config = MatchConfig(entrants, 1, 1, preset("official"), network=network)
    runner = GameRunner(config)
    await runner.start()
    try:
        assert config.in_process() is not serves
        assert (runner.server is not None) is serves
        assert runner.ctx is not None and (runner.ctx.conn is not None) is serves
        assert runner.lobby is not None  # the embedded server's lobby, either way
    finally:
        await runner.close()
    assert runner.server is None and runner.lobby is None


async def test_an_abandoned_game_at_the_embedded_server_is_stopped_not_played_out(tmp_path):
    """A forfeited game's table is closed and dropped at once: the server's
    stand-ins do not play it out beside the worker's next game."""
    from unoplay.client.match.schedule import make_schedule
    from unoplay.game.rules import preset as rules_preset

    bots = tmp_path / "illegal.py"
    bots.write_text(
        "from unoplay.game.actions import Action, ActionKind\n"
        "class Illegal:\n"
        "    def __init__(self, seed=None): pass\n"
        "    def decide(self, view, legal):\n"
        "        card = next(c for c in range(108) if c not in view.hand)\n"
        "        return Action(ActionKind.PLAY, card, -1, False, -1)\n"
    )
    entrants = parse_entrants(f"greedy,{bots}:Illegal")
    config = MatchConfig(entrants, 1, 5, rules_preset("official"))
    runner = GameRunner(config)
    await runner.start()
    try:
        spec = make_schedule([e.identity for e in entrants]).spec(0, 5)
        result = await runner.play(spec)
        assert result.status == "void" and "forfeited" in result.reason
        assert runner.lobby.tables == {}  # closed and dropped, not left to the stand-ins
    finally:
        await runner.close()
