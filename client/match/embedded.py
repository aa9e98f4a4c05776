"""The lobby calls of a match game, made on the server embedded in the
worker's process directly: what the gRPC service does with them, without a
round trip each.

A game of greedy against three random bots plays in about 5 ms; its six
lobby calls (create, four joins, start) over loopback gRPC cost about as
much again. :class:`EmbeddedLobby` answers them as the SDK's
:class:`~unoplay.client.sdk.Connection` does (the same values, the same
errors), from the lobby itself: the table, its settings and its seats are
those the service would have made. ``uno match --network`` keeps the gRPC
calls, as it keeps the streams.
"""

from __future__ import annotations

from unoplay.game.messages import TableInfo
from unoplay.game.rules import RuleError, RuleSet
from unoplay.protocol import LobbyError
from unoplay.server.lobby import Lobby
from unoplay.settings import DEFAULT_MAX_ROUND_ACTIONS, default_window_ms

from ..sdk import Seated, error_of

#: The owner of the tables a match makes: the per-client limits count them
#: together (its finished tables make room for new ones), as they count a
#: connection's.
OWNER = "uno match"


class EmbeddedLobby:
    """``create_table``, ``join_table``, ``start_game`` and ``leave_table`` of
    a :class:`~unoplay.client.sdk.Connection`, on ``lobby`` (the embedded
    server's) without the wire. Raises what the SDK raises for the same
    refusal (:func:`~unoplay.client.sdk.error_of`)."""

    def __init__(self, lobby: Lobby) -> None:
        self.lobby = lobby

    async def create_table(
        self,
        seats: int,
        rules: RuleSet,
        title: str,
        turn_seconds: int,
        away_grace: int | None,
        window_ms: int | None,
        seed: str | int | None,
        max_round_actions: int | None,
    ) -> TableInfo:
        """A new table, as the service's CreateTable makes it (``None``: its default)."""
        try:
            table = self.lobby.create(
                title,
                seats,
                rules,
                turn_seconds,
                away_grace=away_grace,
                window_ms=default_window_ms(rules) if window_ms is None else window_ms,
                seed=None if seed is None else str(seed),
                max_round_actions=(
                    DEFAULT_MAX_ROUND_ACTIONS if max_round_actions is None else max_round_actions
                ),
                owner=OWNER,
            )
        except RuleError as err:
            raise error_of("INVALID_ARGUMENT", str(err)) from err
        except LobbyError as err:
            raise error_of(err.status, str(err)) from err
        return table.info()

    async def join_table(self, table_id: str, name: str, seat: int | None = None) -> Seated:
        """Take a seat (``seat`` None: the first free one)."""
        try:
            table, taken = self.lobby.join(table_id, name, seat, client=OWNER)
        except LobbyError as err:
            raise error_of(err.status, str(err)) from err
        return Seated(taken.index, taken.token, table.info())

    async def start_game(self, table_id: str, seat_token: str) -> TableInfo:
        """Start the table's game (any seat's token)."""
        try:
            table = self.lobby.get(table_id)
            table.seat_for_token(seat_token)
            if self.lobby.closing:
                raise LobbyError("unavailable", "the server is shutting down")
            table.start()
        except LobbyError as err:
            raise error_of(err.status, str(err)) from err
        return table.info()

    async def leave_table(self, table_id: str, seat_token: str) -> TableInfo:
        """Give up a seat (the server's bots play it on)."""
        try:
            table = self.lobby.get(table_id)
            table.leave(seat_token)
        except LobbyError as err:
            raise error_of(err.status, str(err)) from err
        return table.info()
