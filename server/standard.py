"""The standard gRPC services, with their streams bounded: health
(``grpc.health.v1.Health``) and server reflection
(``grpc.reflection.v1alpha.ServerReflection``).

grpcio's servicers keep every stream open until its client ends it (and
health a condition for every service name watched): 10,000 Watch streams took
a server from 63 to 167 MB, 5,000 reflection streams from 66 to 354 MB. Here
a client may have so many of each open, the server so many in all
(:class:`.openstreams.OpenStreams`, the numbers in :class:`.limits.Limits`),
and a watched service name is at most :data:`MAX_SERVICE_NAME` characters.
Health's Check and each reflection answer are grpcio's, unchanged.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2
from grpc_reflection.v1alpha import reflection, reflection_pb2

from .openstreams import OpenStreams

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
        self.watches = OpenStreams("health Watch", per_client, total)

    async def Watch(self, request: health_pb2.HealthCheckRequest, context: Any) -> None:
        """The standard Watch, within the bounds above."""
        if len(request.service) > MAX_SERVICE_NAME:
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"a service name is at most {MAX_SERVICE_NAME} characters",
            )
        who = self._client(context)
        refusal = self.watches.enter(who)
        if refusal is not None:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, refusal)
        try:
            await super().Watch(request, context)
        finally:
            self.watches.leave(who)


class BoundedReflection(reflection.aio.ReflectionServicer):
    """grpcio's reflection servicer for the services ``names``, whose
    streams are bounded as :class:`BoundedHealth`'s Watch streams are
    (RESOURCE_EXHAUSTED past a bound, before the first request is read)."""

    def __init__(
        self, names: Sequence[str], client: Callable[[Any], str], per_client: int, total: int
    ) -> None:
        super().__init__(names)
        self._client = client
        self.streams = OpenStreams("server reflection", per_client, total)

    async def ServerReflectionInfo(  # type: ignore[override]
        self, request_iterator: Any, context: Any
    ) -> AsyncIterator[reflection_pb2.ServerReflectionResponse]:
        """The standard reflection stream, within the bounds above."""
        who = self._client(context)
        refusal = self.streams.enter(who)
        if refusal is not None:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, refusal)
        try:
            answers: Any = super().ServerReflectionInfo(request_iterator, context)
            async for response in answers:  # (an async generator, typed as a coroutine)
                yield response
        finally:
            self.streams.leave(who)
