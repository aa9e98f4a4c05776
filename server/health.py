"""The standard health service (``grpc.health.v1.Health``) with its Watch
streams bounded.

grpcio's servicer keeps every Watch stream open until its client ends it,
and a condition for every service name watched: 10,000 streams took a server
from 63 to 167 MB. Here a client (as the other per-client limits count it)
may have :attr:`.limits.Limits.max_health_watches_per_client` Watch streams
open, the server :attr:`~.limits.Limits.max_health_watches` in all, and a
watched service name is at most :data:`MAX_SERVICE_NAME` characters. Check is
grpcio's, unchanged.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2

#: characters of a service name Watch accepts (ours are under 40)
MAX_SERVICE_NAME = 200


class BoundedHealth(health.aio.HealthServicer):
    """grpcio's health servicer whose Watch streams are bounded: ``client``
    maps an rpc's context to who it counts against (an address); a client
    may have ``per_client`` streams open and everyone ``total``. Past a bound
    Watch ends with RESOURCE_EXHAUSTED, a service name over
    :data:`MAX_SERVICE_NAME` characters with INVALID_ARGUMENT; both before
    anything is kept."""

    def __init__(self, client: Callable[[Any], str], per_client: int, total: int) -> None:
        super().__init__()
        self._client = client
        self.per_client = per_client
        self.total = total
        self.watches: Counter[str] = Counter()  #: open Watch streams per client

    async def Watch(self, request: health_pb2.HealthCheckRequest, context: Any) -> None:
        """The standard Watch, within the bounds above."""
        if len(request.service) > MAX_SERVICE_NAME:
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"a service name is at most {MAX_SERVICE_NAME} characters",
            )
        who = self._client(context)
        if self.watches[who] >= self.per_client:
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"a client may have {self.per_client} health Watch streams open",
            )
        if self.watches.total() >= self.total:
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                "the server has as many health Watch streams open as it allows; try Check",
            )
        self.watches[who] += 1
        try:
            await super().Watch(request, context)
        finally:
            self.watches[who] -= 1
            if not self.watches[who]:
                del self.watches[who]
