"""Shared fixtures: a server on an ephemeral loopback port and a connection to it."""

import os

# gRPC's C core logs an INFO line whenever a test's server stops under a client
# (GOAWAY): noise in the suite's output. Set before grpc is first imported.
os.environ.setdefault("GRPC_VERBOSITY", "ERROR")

import pytest

from unoplay.client.sdk import Connection
from unoplay.server.service import start_server


@pytest.fixture
async def server():
    srv = await start_server("127.0.0.1", 0)
    yield srv
    await srv.stop(None)


@pytest.fixture
async def conn(server):
    async with Connection(server.address) as connection:
        await connection.wait_ready()
        yield connection
