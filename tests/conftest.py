"""Shared fixtures: a server on an ephemeral loopback port and a connection to it."""

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
