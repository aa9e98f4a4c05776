"""The bot author's guide (proto/README.md) and the .proto comments quote the
server's numbers; here every quoted number is read from the server itself
(Limits, the table's defaults, the service's batch size), so the guide cannot
drift from the server again (issue 18)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from unoplay import channel, settings
from unoplay.game import house
from unoplay.game.rules import OFFICIAL, preset
from unoplay.server import limits as L
from unoplay.server import service

ROOT = Path(__file__).resolve().parents[2]
GUIDE = (ROOT / "proto" / "README.md").read_text()
GAME_PROTO = (ROOT / "proto" / "unoplay" / "v1" / "game_service.proto").read_text()
LOBBY_PROTO = (ROOT / "proto" / "unoplay" / "v1" / "lobby_service.proto").read_text()
LIMITS = L.Limits()

# (text, pattern with one number, the server's value); every match must equal it
QUOTED = [
    (GUIDE, r"join\*\*, within (\d+) seconds", LIMITS.join_timeout),
    (GUIDE, r"no join within (\d+) s\b", LIMITS.join_timeout),
    (GUIDE, r"must arrive within (\d+) s\b", LIMITS.join_timeout),
    (GUIDE, r"\*\*Join within (\d+) s\*\*", LIMITS.join_timeout),
    (GUIDE, r"\| the join \| within (\d+) s", LIMITS.join_timeout),
    (GAME_PROTO, r"its join within (\d+) s", LIMITS.join_timeout),
    (GUIDE, r"a bucket of (\d+) messages", LIMITS.intent_burst),
    (GUIDE, r"\| intents \| a bucket of (\d+)", LIMITS.intent_burst),
    (GAME_PROTO, r"a bucket of (\d+), refilled", LIMITS.intent_burst),
    (
        GUIDE,
        r"refilled by (\d+)\s+per second and by \d+ (?:for every|per) update",
        LIMITS.intents_per_second,
    ),
    (GAME_PROTO, r"refilled by\s*(?://)?\s*(\d+) per second", LIMITS.intents_per_second),
    (GUIDE, r"per second and by (\d+) (?:for every|per) update", LIMITS.intents_per_update),
    (GAME_PROTO, r"and by (\d+) per PlayerUpdate", LIMITS.intents_per_update),
    (GUIDE, r"open (\d+)\s+game streams in a row", LIMITS.join_burst),
    (GUIDE, r"\| joins \| a bucket of (\d+)", LIMITS.join_burst),
    (GUIDE, r"game streams in a row, then (\d+) a second", LIMITS.joins_per_second),
    (GUIDE, r"\| joins \| a bucket of \d+, refilled by (\d+) per second", LIMITS.joins_per_second),
    (GUIDE, r"more than (\d+) open streams for one seat", LIMITS.max_streams_per_seat),
    (GUIDE, r"open game streams of one seat \| (\d+)", LIMITS.max_streams_per_seat),
    (GAME_PROTO, r"too many for a seat \((\d+)\)", LIMITS.max_streams_per_seat),
    (GUIDE, r"spectator streams of one table: (\d+)", LIMITS.max_spectators),
    (GAME_PROTO, r"\((\d+) spectators\)", LIMITS.max_spectators),
    (GUIDE, r"any tables\) \| Spectate (\d+)", LIMITS.max_spectate_streams_per_client),
    (GUIDE, r"Spectate \d+ \((\d+) from everyone", LIMITS.max_spectate_streams),
    (GUIDE, r"health `Watch` (\d+)", LIMITS.max_health_watches_per_client),
    (GUIDE, r"health `Watch` \d+ \((\d+)\)", LIMITS.max_health_watches),
    (GUIDE, r"server reflection (\d+)", LIMITS.max_reflection_streams_per_client),
    (GUIDE, r"server reflection \d+ \((\d+)\)", LIMITS.max_reflection_streams),
    (GUIDE, r"too many seats \((\d+)\)", LIMITS.max_seats_per_name),
    (GUIDE, r"may hold at open tables \| (\d+)", LIMITS.max_seats_per_name),
    (GUIDE, r"too many tables \((\d+), finished", LIMITS.max_tables),
    (GUIDE, r"tables on one server \| (\d+)", LIMITS.max_tables),
    (GUIDE, r"waiting for players \((\d+) per client", LIMITS.max_waiting_tables_per_client),
    (GUIDE, r"leave waiting for players \| (\d+)", LIMITS.max_waiting_tables_per_client),
    (GUIDE, r"or open \((\d+) per client", LIMITS.max_tables_per_client),
    (GUIDE, r"open \(waiting or playing\) \| (\d+)", LIMITS.max_tables_per_client),
    (GUIDE, r"oldest finished tables beyond (\d+)", LIMITS.max_tables_per_client),
    (GUIDE, r"waiting to send their join \| (\d+)", LIMITS.max_joining_per_client),
    (GUIDE, r"still waiting to send their join \((\d+)\)", LIMITS.max_joining_per_client),
    (GUIDE, r"goes after (\d+)\s+minutes untouched", LIMITS.waiting_ttl / 60),
    (GUIDE, r"dropped (\d+) minutes after its last change", LIMITS.waiting_ttl / 60),
    (GUIDE, r"finished ones for (\d+) minutes after", LIMITS.finished_ttl / 60),
    (GUIDE, r"kept (\d+) minutes after its last change", LIMITS.finished_ttl / 60),
    (GUIDE, r"last 64 messages of each log, for (\d+) minutes", LIMITS.finished_ttl / 60),
    (GUIDE, r"free again after (\d+) s with no sign", LIMITS.waiting_seat_grace),
    (GUIDE, r"the newest (\d+) messages", LIMITS.log_messages),
    (GAME_PROTO, r"the newest\s*(?://)?\s*(\d+) messages", LIMITS.log_messages),
    (GUIDE, r"newest \d+ messages(?: of your seat)?, at most (\d+) KiB", LIMITS.log_bytes / 1024),
    (GUIDE, r"\(people \+ 1\) x \((\d+) KiB", LIMITS.log_bytes / 1024),
    (GAME_PROTO, r"at most (\d+) KiB\)", LIMITS.log_bytes / 1024),
    (GUIDE, r"the last (\d+) messages(?: of each log| each)", LIMITS.finished_log_messages),
    (GUIDE, r"every message for (\d+) s after", LIMITS.finished_full_seconds),
    (GUIDE, r"finished table's logs, (\d+) s after its last change", LIMITS.finished_full_seconds),
    (GUIDE, r"at most (\d+) KiB \(yours", channel.MAX_MESSAGE_BYTES / 1024),
    (GUIDE, r"a message over (\d+) KiB", channel.MAX_MESSAGE_BYTES / 1024),
    (GUIDE, r"a request over (\d+) KiB", channel.MAX_MESSAGE_BYTES / 1024),
    (GUIDE, r"a message to the server \| (\d+) KiB", channel.MAX_MESSAGE_BYTES / 1024),
    (GAME_PROTO, r"a message over\s*(?://)?\s*(\d+) KiB", channel.MAX_MESSAGE_BYTES / 1024),
    (GUIDE, r"batches hold at most (\d+) messages", service.MAX_BATCH),
    (GUIDE, r"a batch from the server \| (\d+) messages", service.MAX_BATCH),
    (GUIDE, r"cut at (\d+)\s+messages", service.MAX_BATCH),
    (GUIDE, r"(\d+) messages, about \d+ KiB", service.MAX_BATCH),
    (GUIDE, r"messages, about (\d+) KiB", service.MAX_BATCH_BYTES / 1024),
    (GUIDE, r"accept large messages \((\d+) MiB", channel.CLIENT_MAX_RECEIVE_BYTES / 2**20),
    (GUIDE, r"keepalive pings\s+every (\d+) s", channel.SERVER_KEEPALIVE_MS / 1000),
    (GAME_PROTO, r"pings every (\d+) s", channel.SERVER_KEEPALIVE_MS / 1000),
    (GUIDE, r"unanswered for (\d+) s", channel.KEEPALIVE_TIMEOUT_MS / 1000),
    (GAME_PROTO, r"(\d+) s to answer", channel.KEEPALIVE_TIMEOUT_MS / 1000),
    (GUIDE, r"as often as every (\d+) s", channel.SERVER_MIN_PING_INTERVAL_MS / 1000),
    (GUIDE, r"no more often than every (\d+) s", channel.SERVER_MIN_PING_INTERVAL_MS / 1000),
    (GUIDE, r"away_grace_seconds`, (\d+) by default", settings.DEFAULT_AWAY_GRACE),
    (LOBBY_PROTO, r"unset means (\d+)\.", settings.DEFAULT_AWAY_GRACE),
    (GUIDE, r"by default (\d+) ms when a\s+catch costs", settings.DEFAULT_WINDOW_MS),
    (GUIDE, r"`Table.window_ms` \(0\.\.(\d+) ms\)", settings.MAX_WINDOW_MS),
    (GUIDE, r"actions in one round \| (\d+)", settings.DEFAULT_MAX_ROUND_ACTIONS),
    (GUIDE, r"max_round_actions}`, (\d+)\.\.", settings.MIN_ROUND_ACTIONS),
    (GUIDE, r"max_round_actions}`, \d+\.\.(\d+)\)", settings.MAX_ROUND_ACTIONS),
    (GUIDE, r"\(at most (\d+) of them: a huge hand", house.MAX_LISTED_MULTI_PLAYS),
]


@pytest.mark.parametrize(("text", "pattern", "value"), QUOTED, ids=[q[1] for q in QUOTED])
def test_every_number_the_guide_quotes_is_the_servers(text, pattern, value):
    found = [float(m) for m in re.findall(pattern, text)]
    assert found, f"the guide no longer says {pattern!r}: update this test with the guide"
    assert set(found) == {float(value)}, (pattern, found, value)


def test_the_window_default_follows_the_rules():
    """The guide: 1500 ms by default when a catch costs cards or jump_in is on, else 0."""
    assert settings.default_window_ms(OFFICIAL) == settings.DEFAULT_WINDOW_MS  # a catch costs 2
    assert settings.default_window_ms(preset("house")) == settings.DEFAULT_WINDOW_MS
    assert settings.default_window_ms(OFFICIAL.replace(uno_penalty=0)) == 0


def test_no_stale_number_is_left_in_the_guide():
    """Numbers the server once had and no longer has."""
    for text in (GUIDE, GAME_PROTO):
        assert not re.search(r"within 30 s(econds)?\b", text)
