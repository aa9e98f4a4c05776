"""Issue 47, "a first evening without a traceback": every subcommand of
``uno`` (walked from the parser itself, so a new one is walked too) refuses
a bad argument, and one that takes ``--server`` says that nothing answers
there, each with one short line on stderr, a non-zero exit and no
traceback; ``--server`` is parsed one way everywhere (client/address.py);
``uno serve`` names why it cannot listen. Commands run as processes of their
own, each under a timeout; nothing here sleeps."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import socket
import subprocess
import sys
from collections.abc import Iterator

import pytest

from unoplay.client import arguments
from unoplay.client.address import DEFAULT_PORT, AddressError, parse_server
from unoplay.client.arenarecord import ArenaRecord, place
from unoplay.client.cli import build_parser
from unoplay.client.sdk import ArenaSeat, ArenaStanding
from unoplay.game.engine import GameState
from unoplay.game.registry import BOT_KINDS
from unoplay.game.rules import RuleSet

WAIT = 60.0  # seconds: the bound of every command run here
#: the longest line a refusal may be
SHORT = 200


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator:
    """``(words, parser)`` of every leaf subcommand: ``("bot",)``, ``("arena", "reset")``..."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield path, parser
    for action in subs:
        for name, sub in action.choices.items():
            yield from _commands(sub, (*path, name))


COMMANDS = dict(_commands(build_parser()))


def _checked(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The options of ``parser`` whose values are checked as parsed (a type or choices)."""
    return [
        a
        for a in parser._actions
        if a.option_strings and a.nargs != 0 and (a.type not in (None, str) or a.choices)
    ]


def _bad_value(action: argparse.Action) -> str:
    """A value the check of ``action`` refuses."""
    if action.type is arguments.server:
        return "127.0.0.1:70000"
    if action.type is arguments.player_name:
        return "x" * 200
    return "junk"


@pytest.fixture
def env(tmp_path) -> dict[str, str]:
    """The environment of a command: its data directory a temporary one, no mDNS."""
    return {
        **os.environ,
        "UNOPLAY_DATA_DIR": str(tmp_path / "data"),
        "XDG_DATA_HOME": str(tmp_path / "xdg"),
        "UNOPLAY_MDNS": "0",
    }


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A loopback port held (bound, never listening) for the test: nothing answers there."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        yield held.getsockname()[1]


def _refusal(env: dict[str, str], *argv: str) -> tuple[int, str]:
    """Run ``uno ARGV``; its exit status and the one line it said, after
    checking what every refusal must be: non-zero, one short line on stderr,
    nothing on stdout, no traceback."""
    run = subprocess.run(
        [sys.executable, "-m", "unoplay.client.cli", *argv],
        capture_output=True,
        text=True,
        timeout=WAIT,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    said = run.stderr.strip().splitlines()
    assert run.returncode != 0, run
    assert "Traceback" not in run.stderr + run.stdout, run.stderr
    assert len(said) == 1 and len(said[0]) <= SHORT, run.stderr
    assert said[0].startswith("uno"), said
    assert not run.stdout.strip(), run.stdout
    return run.returncode, said[0]


@pytest.mark.parametrize("words", list(COMMANDS), ids=" ".join)
def test_a_bad_argument_is_one_line_naming_its_flag(words, env):
    """Each subcommand: its first checked option with a bad value (or, with
    none, an option it does not have) is refused at once: exit 2, one line
    naming the flag."""
    parser = COMMANDS[words]
    checked = _checked(parser)
    if checked:
        argv = [checked[0].option_strings[0], _bad_value(checked[0])]
    else:  # its positionals given, so that the unknown option is what is wrong
        argv = ["--no-such", *("x" for a in parser._actions if not a.option_strings and a.required)]
    status, line = _refusal(env, *words, *argv)
    assert status == 2 and argv[0] in line, line


def test_every_checked_option_refuses_a_bad_value_in_one_line_naming_it(capsys):
    """In-process (the parser alone): every option of every subcommand whose
    value is checked refuses a bad one with one line naming the flag."""
    walked = 0
    for words, parser in COMMANDS.items():
        for action in _checked(parser):
            flag = action.option_strings[0]
            with pytest.raises(SystemExit) as stop:
                build_parser().parse_args([*words, flag, _bad_value(action)])
            said = capsys.readouterr().err.strip().splitlines()
            assert stop.value.code == 2 and len(said) == 1 and flag in said[0], (words, said)
            walked += 1
    assert walked >= 40  # the walk reached the options (the parser has ~60 checked ones)


@pytest.mark.parametrize(
    "argv, says",
    [
        (["play", "--bogus"], "uno play: unrecognized arguments: --bogus (see uno play --help)"),
        (["bot", "--server", "h", "x", "y"], "uno bot: unrecognized arguments: x y"),
        (["arena", "reset", "ann", "more"], "uno arena reset: unrecognized arguments: more"),
        (["--bogus", "play"], "uno: unrecognized arguments: --bogus (see uno --help)"),
    ],
)
def test_a_word_no_option_takes_is_refused_naming_its_subcommand(argv, says, capsys):
    """Words left over are refused by the subcommand they follow, which the
    line names; those before any subcommand, by ``uno`` itself."""
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(argv)
    said = capsys.readouterr().err.strip().splitlines()
    assert stop.value.code == 2 and len(said) == 1 and said[0].startswith(says), said


#: The subcommands that take --server: what else each needs to run, one
#: argument list per case.
ASKS_THE_SERVER = {
    "standings": [[]],
    "bot": [["--table", "t1"], ["--arena"]],
    "match": [["--games", "1", "--no-out"]],
    "web": [["--port", "0"]],
}
#: ... and those that do not ask it at once, with why.
DOES_NOT_ASK = {"play": "the TUI: its lobby says it (test_tui.py, the lobby's wrong port)"}


def test_every_command_with_a_server_option_is_walked():
    taking = {
        words[0]
        for words, parser in COMMANDS.items()
        if any("--server" in a.option_strings for a in parser._actions)
    }
    assert taking == set(ASKS_THE_SERVER) | set(DOES_NOT_ASK)


@pytest.mark.parametrize(
    "argv",
    [[command, *more] for command, cases in ASKS_THE_SERVER.items() for more in cases],
    ids=" ".join,
)
def test_nothing_at_the_server_is_one_line_in_the_same_words(argv, env, silent_port):
    target = f"127.0.0.1:{silent_port}"
    status, line = _refusal(env, argv[0], "--server", target, *argv[1:])
    assert status == 1
    assert line == f"uno {argv[0]}: nothing answers at {target}: is uno serve running there?"


def test_uno_bot_help_lists_every_kind_and_refuses_another_at_once(env):
    shown = subprocess.run(
        [sys.executable, "-m", "unoplay.client.cli", "bot", "--help"],
        capture_output=True,
        text=True,
        timeout=WAIT,
        env=env,
        check=True,
    ).stdout
    assert all(kind in shown for kind in BOT_KINDS)
    # refused before any server is asked: the server named is not even a real one
    status, line = _refusal(env, "bot", "--arena", "--kind", "smart", "--server", "192.0.2.1")
    assert status == 2 and "--kind" in line and all(kind in line for kind in BOT_KINDS)


@pytest.mark.parametrize("command", ["bot", "play"])
def test_a_name_over_the_limit_is_refused_not_cut(command, env):
    status, line = _refusal(env, command, "--server", "192.0.2.1", "--name", "n" * 200)
    assert status == 2 and "--name" in line and "at most 24" in line


def test_the_bot_delay_is_said_with_its_flag(env):
    status, line = _refusal(env, "play", "--bot-delay", "99")
    assert status == 2 and "--bot-delay" in line and "0..10" in line and "_" not in line


# ------------------------------------------------------------------ the address


@pytest.mark.parametrize(
    "text, host, port",
    [
        ("10.0.0.7", "10.0.0.7", DEFAULT_PORT),
        ("10.0.0.7:7000", "10.0.0.7", 7000),
        (" uno.local:1 ", "uno.local", 1),
        ("localhost:65535", "localhost", 65535),
        ("[::1]", "::1", DEFAULT_PORT),
        ("[fe80::1]:9000", "fe80::1", 9000),
    ],
)
def test_an_address_names_its_host_and_port(text, host, port):
    address = parse_server(text)
    assert (address.host, address.port) == (host, port)
    assert parse_server(str(address)) == address  # the canonical text parses to itself


@pytest.mark.parametrize(
    "text, said",
    [
        ("127.0.0.1:70000", "invalid port '70000' in 127.0.0.1:70000: a port is a number from 1"),
        ("127.0.0.1:0", "invalid port '0'"),
        ("127.0.0.1:", "no port after ':'"),
        ("127.0.0.1:http", "invalid port 'http'"),
        ("", "no address"),
        ("   ", "no address"),
        (":50051", "no host before the port"),
        ("::1", "an IPv6 address goes in brackets"),
        ("[::1", "ends with ']'"),
        ("[nope]:1", "'nope' is not an IPv6 address"),
        ("[::1]x", "only ':PORT' may follow"),
        ("http://10.0.0.7:50051", "without a scheme"),
        ("two words", "'two words' is not a host name"),
        ("300.1.1.1", "'300.1.1.1' is not an IPv4 address"),
    ],
)
def test_a_bad_address_is_refused_with_its_reason(text, said):
    with pytest.raises(AddressError) as refused:
        parse_server(text)
    assert said in str(refused.value) and "\n" not in str(refused.value)


# ------------------------------------------------------------------ uno serve


@pytest.fixture
def busy_port() -> Iterator[int]:
    """A loopback port another socket listens on for the test."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        yield taken.getsockname()[1]


def test_uno_serve_names_why_it_cannot_listen(env, busy_port):
    port = busy_port
    _, line = _refusal(env, "serve", "--no-db", "--host", "127.0.0.1", "--port", str(port))
    assert line == f"uno serve: port {port} is in use (is another server there?)"
    # 192.0.2.1: TEST-NET-1 (RFC 5737), documentation only, no machine's address
    _, line = _refusal(env, "serve", "--no-db", "--host", "192.0.2.1")
    assert line == "uno serve: --host 192.0.2.1 is not an address of this machine"
    _, line = _refusal(env, "serve", "--no-db", "--host", "no-such-host.invalid")
    assert line.startswith("uno serve: --host no-such-host.invalid: the name does not resolve")


def test_uno_serve_with_its_web_page_on_a_port_in_use_says_so_in_one_line(env, busy_port):
    """Checked before anything starts (it used to start, announce itself, then
    end on a traceback of the gRPC server it left behind)."""
    _, line = _refusal(env, "serve", "--no-db", "--port", "0", "--web", str(busy_port))
    assert line == f"uno serve --web: port {busy_port} is in use (is another server there?)"
    # uno web too, before its game server starts (it used to start and log it first)
    run = subprocess.run(
        [sys.executable, "-m", "unoplay.client.cli", "web", "--port", str(busy_port)],
        capture_output=True,
        text=True,
        timeout=WAIT,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert run.returncode == 1 and not run.stdout
    assert run.stderr == f"uno web: port {busy_port} is in use (is another server there?)\n"


# ------------------------------------------------------------------ a file for another command


def test_a_game_store_and_a_match_file_are_refused_by_each_others_commands_unchanged(env, tmp_path):
    """uno match --out on a server's --db file, uno replay/verify --db on a
    match file or on no SQLite file: one line each (verify's exit 2: not
    verified), and neither file is changed (match --out on a server's file
    used to add its tables there, and the server's writes failed after)."""
    from unoplay.client.match.store import MatchStore
    from unoplay.server.storage import GameStore

    served, results, text = tmp_path / "games.sqlite3", tmp_path / "runs.sqlite3", tmp_path / "x"
    GameStore(served).close()
    MatchStore(results).close()
    text.write_text("not a database\n")
    before = {p: p.read_bytes() for p in (served, results, text)}
    status, line = _refusal(
        env, "match", "--games", "1", "--bots", "greedy,random", "--out", str(served)
    )
    assert line == f"uno match: {served} is a uno serve game store, not a match results file"
    for command in (["replay", "--text"], ["verify", "last"]):
        status, line = _refusal(env, *command, "--db", str(results))
        assert line.endswith(f"{results} is a uno match results file (uno replay --match reads it)")
        status, line = _refusal(env, *command, "--db", str(text))
        assert line.startswith(f"uno {command[0]}: {text} is not a game store")
        assert status == (2 if command[0] == "verify" else 1)
    assert {p: p.read_bytes() for p in before} == before


@pytest.mark.parametrize(
    "argv, says",
    [
        (["bot", "--server", "127.0.0.1:1", "--arena", "--table", "t1"], "no --table or --token"),
        (["bot", "--server", "127.0.0.1:1", "--games", "3", "--table", "t1"], "--games goes with"),
        (["replay", "2", "--jsonl", "--text"], "--jsonl or --text, not both"),
        (["play", "--lan", "--server", "127.0.0.1:1"], "--lan or --server, not both"),
        (["serve", "--no-db", "--db", "x.sqlite3"], "--db or --no-db, not both"),
        (["serve", "--db", "/no-such-dir/games.sqlite3"], "no directory /no-such-dir"),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else "",
)
def test_options_that_contradict_each_other_are_refused_not_one_ignored(env, argv, says):
    """Two options of which one would be ignored, or a --db in a directory
    that is not there: one line, before anything is done (each used to be
    accepted without a word: one option dropped, the directories made)."""
    _, line = _refusal(env, *argv)
    assert line.startswith(f"uno {argv[0]}: ") and says in line, line


def test_a_seat_command_that_cannot_run_is_refused_before_any_game(env, tmp_path):
    """uno match --seat CMD whose program is not there (or not executable):
    one line before the first game, where every game used to be played and
    lost by a crash, the report printed, and the reason said at the end."""
    not_executable = tmp_path / "bot.sh"
    not_executable.write_text("#!/bin/sh\n")
    for command, why in (
        ("no-such-bot --fast", "no such program: 'no-such-bot'"),
        (str(not_executable), f"not an executable program: '{not_executable}'"),
    ):
        _, line = _refusal(
            env, "match", "--games", "2", "--bots", "greedy", "--seat", command, "--no-out"
        )
        assert line.startswith("uno match: --seat ") and line.endswith(why), line


# ------------------------------------------------------------------ uno bot --arena's lines


def _over(scores: tuple[int, ...], winners: tuple[int, ...]):
    """A finished game's view of seat 0 with these scores and winners."""
    game, _ = GameState.new(len(scores), RuleSet(target_score=0), "1" * 64)
    return dataclasses.replace(game.view(0), scores=scores, game_winners=winners)


def test_places_put_the_winner_first_then_points_and_share_ties():
    view = _over((0, 120, 30, 30), (1,))
    assert [place(view, s) for s in range(4)] == [4, 1, 2, 2]
    single_round = _over((0, 57, 0), (1,))
    assert [place(single_round, s) for s in range(3)] == [2, 1, 2]


def test_the_record_counts_rated_games_and_follows_the_rating():
    record = ArenaRecord("ann")
    record.entered(ArenaStanding("ann", 0, 0, 25.0, 8.0, 1.0))
    seat = ArenaSeat("t1", "token", 1, 7)
    won = record.game(seat, _over((0, 57), (1,)), True, ArenaStanding("ann", 1, 1, 27, 7, 6.0))
    assert won == "arena game 7: seat 2 of 2, place 1 (won), 57 points; rating 6.00 (+5.00)"
    void = record.game(seat, _over((0, 0), ()), True, None)
    assert void == "arena game 7: seat 2 of 2: void (a round reached its cap of actions); not rated"
    stopped = record.game(seat, None, False, None)
    assert stopped.endswith("not finished (the server stopped it); not rated")
    assert record.summary() == "1 arena game (1 won), rating 6.00 (from 1.00)"
    # a finished game the server did not rate (the name's games did not move)
    unrated = record.game(seat, _over((40, 0), (1,)), True, ArenaStanding("ann", 1, 1, 27, 7, 6.0))
    assert unrated.endswith(
        "; not rated (two seats of one address, or a seat its player left "
        "to the server: RULES.md, The arena); rating 6.00"
    )


# ------------------------------------------------------------------ uno match's workers


async def test_match_workers_that_find_no_server_say_so_not_their_traceback(silent_port):
    """The runner's own path (past uno match's first question to the
    server): worker processes that cannot reach --server end the match with
    the same sentence, not the end of a worker's traceback."""
    from unoplay.client.match import MatchError
    from unoplay.client.match.config import MatchConfig
    from unoplay.client.match.entrants import parse_entrants
    from unoplay.client.match.runner import run_match

    target = f"127.0.0.1:{silent_port}"
    with pytest.raises(MatchError) as failed:
        await asyncio.wait_for(
            run_match(
                MatchConfig(
                    parse_entrants("greedy,random", []),
                    1,
                    1,
                    RuleSet(target_score=0),
                    target,
                    workers="processes",
                    concurrency=1,
                )
            ),
            4 * WAIT,
        )
    assert str(failed.value) == f"nothing answers at {target}: is uno serve running there?"


def test_files_named_on_the_command_line_are_checked_in_one_line_naming_them(env, tmp_path):
    """A --tls-ca that holds no certificate (grpc used to log C-level errors
    and the server be blamed), TLS files that are not there (said with their
    flag), an export to verify that is not there (not taken for a game id)."""
    not_pem = tmp_path / "ca.pem"
    not_pem.write_text("not a certificate\n")
    _, line = _refusal(env, "--tls-ca", str(not_pem), "standings", "--server", "127.0.0.1:1")
    assert line == f"uno: --tls-ca {not_pem}: no PEM certificate in it"
    missing = tmp_path / "missing.pem"
    _, line = _refusal(env, "serve", "--tls-cert", str(missing), "--tls-key", str(missing))
    assert line == f"uno serve: --tls-cert {missing}: No such file or directory"
    # (a certificate and a key that are not PEM: grpc said "could not listen")
    _, line = _refusal(
        env, "serve", "--no-db", "--tls-cert", str(not_pem), "--tls-key", str(not_pem)
    )
    assert line == f"uno serve: --tls-cert {not_pem}: no PEM certificate in it"
    cert = tmp_path / "cert.pem"  # (only its kind is checked before the key's)
    cert.write_text("-----BEGIN CERTIFICATE-----\nMII=\n-----END CERTIFICATE-----\n")
    _, line = _refusal(env, "serve", "--no-db", "--tls-cert", str(cert), "--tls-key", str(not_pem))
    assert line == f"uno serve: --tls-key {not_pem}: no PEM private key in it"
    status, line = _refusal(env, "verify", "./12.jsonl")
    assert status == 2 and line == "uno verify: ./12.jsonl: no such file"


def test_uno_version_says_the_installed_version(env):
    from importlib.metadata import version

    run = subprocess.run(
        [sys.executable, "-m", "unoplay.client.cli", "--version"],
        capture_output=True,
        text=True,
        timeout=WAIT,
        env=env,
    )
    assert run.returncode == 0 and run.stdout.strip() == f"uno (unoplay) {version('unoplay')}"
