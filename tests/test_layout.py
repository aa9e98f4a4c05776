"""The layers: the game package imports nothing outside itself (no grpc,
asyncio, protobuf, server or client); the server never imports the client."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_LOADED = """
import sys
import unoplay.game, unoplay.game.engine, unoplay.game.bots, unoplay.game.deals
print("\\n".join(sorted(sys.modules)))
"""


def test_the_game_package_imports_nothing_outside_itself():
    out = subprocess.run(
        [sys.executable, "-c", _LOADED], capture_output=True, text=True, check=True, timeout=60
    ).stdout.split()
    assert "unoplay.game.engine" in out
    forbidden = [
        m
        for m in out
        if m.split(".")[0] in ("grpc", "asyncio", "google", "textual")
        or m.startswith(("unoplay.server", "unoplay.client", "unoplay.v1"))
    ]
    assert forbidden == []


def test_the_server_never_imports_the_client():
    importing = re.compile(r"^\s*(from|import)\s+(unoplay\.client|\.\.client)", re.M)
    offenders = [
        str(p.relative_to(ROOT))
        for p in (ROOT / "server").rglob("*.py")
        if importing.search(p.read_text())
    ]
    assert offenders == []


def test_the_game_package_is_imported_under_one_name_only():
    out = subprocess.run(
        [sys.executable, "-c", "import unoplay.server.game"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode != 0 and "import unoplay.game, not unoplay.server.game" in out.stderr


def test_the_tui_imports_neither_grpc_nor_generated_code():
    """The SDK is the TUI's boundary: it hands out game values and its own errors."""
    importing = re.compile(
        r"^\s*(from|import)\s+(grpc|google\.protobuf|unoplay\.v1)\b"
        r"|_pb2\b|unoplay\.wire\b",
        re.M,
    )
    offenders = [
        str(p.relative_to(ROOT))
        for p in (ROOT / "client" / "tui").rglob("*.py")
        if importing.search(p.read_text())
    ]
    assert offenders == []


def test_the_sdk_imports_nothing_from_the_server():
    """The contract's codec (``unoplay.wire``) and the channel options
    (``unoplay.channel``) are shared; the SDK runs without the server's code."""
    out = subprocess.run(
        [sys.executable, "-c", "import sys, unoplay.client.sdk; print('\\n'.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.split()
    assert "unoplay.wire" in out and "unoplay.channel" in out
    assert [m for m in out if m.startswith("unoplay.server")] == []
