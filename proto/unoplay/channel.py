"""The channel options both sides of the contract use: the HTTP/2 keepalive
settings and the message sizes, so the server's ping policy and the SDK's
pings cannot drift apart (a client pinging more often than the server allows
is disconnected with ``GOAWAY too_many_pings``, grpc doc/keepalive.md).

Plain values, no gRPC objects: ``unoplay.server.service`` builds its server
with :data:`SERVER_OPTIONS`, ``unoplay.client.sdk`` its channels with
:data:`CLIENT_OPTIONS`; ``unoplay.server.limits`` holds the server's own limits.
"""

from __future__ import annotations

import hashlib
import hmac

# ------------------------------------------------------------------ keepalive
#
# The client pings every CLIENT_KEEPALIVE_MS and drops the connection when a
# ping is not answered within KEEPALIVE_TIMEOUT_MS, so a dead server is noticed
# within 8 s. The server does the same towards its clients (a laptop that went
# to sleep is marked away within 8 s). The server accepts client pings as often
# as every SERVER_MIN_PING_INTERVAL_MS, even on an idle connection, which is
# strictly more often than clients send them: no too_many_pings disconnects.

CLIENT_KEEPALIVE_MS = 5_000
SERVER_KEEPALIVE_MS = 5_000
KEEPALIVE_TIMEOUT_MS = 3_000
SERVER_MIN_PING_INTERVAL_MS = 4_000

#: Largest message the server accepts (a request, or one client message of a stream).
MAX_MESSAGE_BYTES = 64 * 1024
#: Largest message a client accepts (a batch of the server's messages).
CLIENT_MAX_RECEIVE_BYTES = 16 * 1024 * 1024

SERVER_OPTIONS: list[tuple[str, int]] = [
    ("grpc.keepalive_time_ms", SERVER_KEEPALIVE_MS),
    ("grpc.keepalive_timeout_ms", KEEPALIVE_TIMEOUT_MS),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.min_ping_interval_without_data_ms", SERVER_MIN_PING_INTERVAL_MS),
    ("grpc.http2.max_pings_without_data", 0),
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
]

CLIENT_OPTIONS: list[tuple[str, int]] = [
    ("grpc.keepalive_time_ms", CLIENT_KEEPALIVE_MS),
    ("grpc.keepalive_timeout_ms", KEEPALIVE_TIMEOUT_MS),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
    ("grpc.max_receive_message_length", CLIENT_MAX_RECEIVE_BYTES),
]


def keepalive_problems(server: list[tuple[str, int]], client: list[tuple[str, int]]) -> list[str]:
    """Why ``client``'s pings would upset ``server`` (or a dead peer would go
    unnoticed); empty when the two agree."""
    s, c = dict(server), dict(client)
    problems = []
    interval = s.get("grpc.http2.min_ping_interval_without_data_ms", 300_000)
    if c.get("grpc.keepalive_time_ms", 0) <= interval:
        problems.append(
            f"clients ping every {c.get('grpc.keepalive_time_ms')} ms but the server "
            f"accepts pings only every {interval} ms"
        )
    if c.get("grpc.keepalive_permit_without_calls") and not s.get(
        "grpc.keepalive_permit_without_calls"
    ):
        problems.append("clients ping idle connections but the server does not permit it")
    if c.get("grpc.http2.max_pings_without_data", 2) != 0:
        problems.append("clients stop pinging after a few pings without data")
    for side, opts in (("server", s), ("client", c)):
        if "grpc.keepalive_time_ms" not in opts or "grpc.keepalive_timeout_ms" not in opts:
            problems.append(f"the {side} does not send keepalive pings")
    return problems


# ------------------------------------------------------------ uno web's tabs
#
# Every tab of ``uno web`` is a player of its own, but all of them connect
# from the web server's address (usually loopback), where the server's limits
# per client address and per name would count them together. The web server
# and the game server in its process share a secret key; each tab's channel
# carries a tag made with it as the first word of its user agent
# (``grpc.primary_user_agent``), and a server that holds the key counts that
# tab's tables and seats as its own. A tag a client made up verifies not, and
# counts as its address.

#: the first word of a tagged channel's user agent: TAB_AGENT + tag
TAB_AGENT = "unoplay-tab/"
#: the environment variable that hands a tab's session its tag
TAB_TAG_ENV = "UNOPLAY_WEB_TAB"


def tab_tag(key: bytes, tab_id: str) -> str:
    """The tag of tab ``tab_id`` (letters and digits) under ``key``:
    ``"<tab_id>.<MAC>"``, the MAC being HMAC-SHA-256 in 32 hex digits."""
    mac = hmac.new(key, tab_id.encode(), hashlib.sha256).hexdigest()[:32]
    return f"{tab_id}.{mac}"


def tab_of(key: bytes, user_agent: str) -> str | None:
    """The tab id that ``user_agent`` (a request's ``user-agent`` metadata)
    carries if its tag verifies under ``key``; None otherwise."""
    first = user_agent.split(" ", 1)[0]
    if not first.startswith(TAB_AGENT):
        return None
    tab_id, _, mac = first[len(TAB_AGENT) :].partition(".")
    if not tab_id.isalnum() or len(tab_id) > 64:
        return None
    return tab_id if hmac.compare_digest(tab_tag(key, tab_id), f"{tab_id}.{mac}") else None
