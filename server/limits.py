"""The server's limits: one place for every number that protects the server
(message size, tables, seats per name, streams, messages per second).

No I/O and no gRPC objects here: plain values, used by ``service`` (server
options) and ``table`` (lobby limits). The keepalive settings and channel
options both sides use are in ``unoplay.channel``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Limits:
    """What one server allows. Excess is refused with RESOURCE_EXHAUSTED.

    * ``max_tables``: tables at once, finished ones too (a finished table keeps
      only the end of its logs and is dropped ``finished_ttl`` seconds after
      its last change); ``max_waiting_tables_per_client``: tables one client
      (its address) may have waiting for players, so one client cannot lock
      everyone else out; a waiting table with no stream open is dropped
      ``waiting_ttl`` seconds after its last change. ``max_tables_per_client``:
      tables one client may have open (waiting or playing; a game can wait
      long for an absent player); as it makes more, its oldest finished
      tables beyond that number are dropped, so its finished games cannot
      fill the server either.
    * ``max_seats_per_name``: seats one player name may hold at tables that are
      waiting or playing.
    * ``max_streams_per_seat`` / ``max_spectators``: open game streams of one
      seat, spectator streams of one table.
    * ``max_spectate_streams_per_client`` / ``max_spectate_streams``:
      Spectate streams one client may have open (at any tables), and the
      server in all; ``max_health_watches_per_client`` /
      ``max_health_watches`` and ``max_reflection_streams_per_client`` /
      ``max_reflection_streams``: the same for the standard health service's
      Watch (Check is not limited) and server reflection (server/standard.py).
    * ``intents_per_second`` / ``intent_burst``: messages a game stream may send:
      a token bucket of ``intent_burst`` tokens, refilled at
      ``intents_per_second`` and by ``intents_per_update`` for every
      PlayerUpdate the seat is sent, except the one after its own costly
      mistake (a false UNO call, a wrong play under ``wrong_play_penalty``):
      so a bot that answers each update with at most one intent is never
      limited, under any rules; a flood is, and so are moves that only feed
      themselves. A message with no token left ends the
      stream with RESOURCE_EXHAUSTED; the seat and the game are unharmed.
      The budget is the seat's, shared by its streams: a new stream starts
      with what the last one left.
    * ``joins_per_second`` / ``join_burst``: game streams a seat may open (a
      token bucket as above): each join appends to the table's logs, so a
      seat reconnecting in a loop is refused with RESOURCE_EXHAUSTED.
    * ``join_timeout``: seconds a new game stream has to send its join;
      ``max_joining_per_client``: game streams of one client address that
      may wait for their join at once (four for each table it may have
      open), so streams that never join cannot pile up.
    * ``waiting_seat_grace``: seconds a person seated at a table that has not
      started may show no sign of life (no open stream, no call with their
      token) before the seat is free again.
    * ``log_messages`` / ``log_bytes``: what one stream's log keeps (a seat's,
      the spectators'): the newest messages, so many and at most so many bytes
      (server/streamlog.py); ``finished_log_messages``: what it keeps once the
      game has been over for ``finished_full_seconds`` with no stream open
      (until then a stream cut at the end resumes with every message, so
      its player can still check the deal).
    * ``stand_in``: the bot kind (:data:`unoplay.game.BOT_KINDS`) that plays
      for a person who is away or gave up their seat; ``ismcts`` is stronger
      than ``greedy``; it thinks on the search thread while the event loop
      goes on (the searching bots of every table take turns), a budget may
      follow it (``ismcts@100ms``: :func:`unoplay.game.registry.parse_kind`);
      ``bot_ms``: the most any server-side bot of a kind with a budget
      (a stand-in, or one added by AddBot) thinks per decision, whatever it
      asks for.
    """

    max_tables: int = 1000
    max_waiting_tables_per_client: int = 16
    max_tables_per_client: int = 64
    max_seats_per_name: int = 16
    max_streams_per_seat: int = 4
    max_spectators: int = 64
    max_spectate_streams_per_client: int = 64
    max_spectate_streams: int = 2048
    max_health_watches_per_client: int = 16
    max_health_watches: int = 1024
    max_reflection_streams_per_client: int = 16
    max_reflection_streams: int = 256
    intents_per_second: float = 20.0
    intent_burst: float = 40.0
    intents_per_update: float = 2.0
    joins_per_second: float = 1.0
    join_burst: float = 10.0
    join_timeout: float = 10.0
    finished_ttl: float = 300.0
    waiting_ttl: float = 600.0
    waiting_seat_grace: float = 60.0
    log_messages: int = 1024
    log_bytes: int = 256 * 1024
    finished_log_messages: int = 64
    finished_full_seconds: float = 60.0
    stand_in: str = "greedy"
    bot_ms: float = 150.0

    @property
    def max_joining_per_client(self) -> int:
        """Game streams one client address may have waiting for their join."""
        return 4 * self.max_tables_per_client
