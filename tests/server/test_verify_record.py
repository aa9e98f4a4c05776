"""``uno verify`` checks a game's whole record (RULES.md, "Fair deals"): a real
export, tampered in each way a cheat would try, is NOT FAIR (exit 1) naming
the first difference; a stored record whose result was edited too; and a file
that is not an export gets one line on stderr and exit 2, never a traceback."""

from __future__ import annotations

import asyncio
import copy
import json
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from unoplay.client.replay import jsonl_lines
from unoplay.client.sdk import Connection, run_bot
from unoplay.client.verify import MAX_EXPORT_BYTES, MalformedExport, record_from_jsonl
from unoplay.game.registry import make_bot
from unoplay.game.rules import RuleSet
from unoplay.server.service import start_server
from unoplay.server.storage import GameStore

Docs = list[dict]


async def _play_and_store(path: Path) -> int:
    """One game (a random bot and two greedy ones, one round) stored at ``path``."""
    server = await start_server("127.0.0.1", 0, store=str(path))
    try:
        async with Connection(server.address) as conn:
            table = await conn.create_table(seats=3, rules=RuleSet(target_score=0), window_ms=0)
            me = await conn.join_table(table.table_id, "me")
            for _ in range(2):
                await conn.add_bot(table.table_id, "greedy")
            await conn.start_game(table.table_id, me.seat_token)
            session = conn.session(table.table_id, me.seat_token)
            await asyncio.wait_for(run_bot(make_bot("random", seed=3), session), 60)
        await asyncio.wait_for(server.recorder.drain(), 60)
    finally:
        await server.stop(None)
    store = GameStore(path)
    try:
        return store.load(table.table_id).game_id
    finally:
        store.close()


@pytest.fixture(scope="module")
def stored(tmp_path_factory) -> tuple[Path, int, Docs]:
    """A real stored game: the store's path, the game's id and its export's documents."""
    path = tmp_path_factory.mktemp("verify") / "games.sqlite3"
    game_id = asyncio.run(_play_and_store(path))
    store = GameStore(path)
    record = store.load(game_id)
    store.close()
    return path, game_id, [json.loads(line) for line in jsonl_lines(record)]


def _uno(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "unoplay.client.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def _write(path: Path, docs: Docs) -> Path:
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    return path


# ------------------------------------------------------------------ tampering


def _swap_result(docs: Docs) -> None:
    result = docs[-1]
    winner = result["winners"][0]
    other = (winner + 1) % len(result["scores"])
    for key in ("scores", "stored_scores"):
        result[key][winner], result[key][other] = result[key][other], result[key][winner]
    result["winners"] = [other]


def _rewrite_cards(docs: Docs) -> None:
    for doc in docs:
        if doc["type"] == "event" and doc["cards"]:
            doc["cards"] = [(c + 1) % 108 for c in doc["cards"]]


def _fake_game_first(docs: Docs) -> None:
    fake = copy.deepcopy(docs[0])
    fake["title"], fake["id"] = "The real game", 999
    docs.insert(0, fake)


def _rename_players(docs: Docs) -> None:
    for player in docs[0]["players"]:
        player["name"] = "not " + player["name"]


def _change_seed(docs: Docs) -> None:
    """Another seed, chosen so that its first event (the first dealer draw)
    differs from the real one: the difference is then at line 3, event 1,
    whatever the real seed was (a seed of the same first card would put it
    further on)."""
    first = next(d for d in docs if d["type"] == "event")
    for digit in "0123456789abcdef":
        seed = digit * 64
        record = record_from_jsonl(json.dumps({**d, "seed": seed}) for d in docs[:1])
        _, events = record.new_game()
        if seed != docs[0]["seed"] and list(events[0].cards) != first["cards"]:
            docs[0]["seed"] = seed
            return
    raise AssertionError("16 seeds all dealt the stored game's first dealer card")


def _drop_last_action(docs: Docs) -> None:
    last = max(i for i, d in enumerate(docs) if d["type"] == "action")
    del docs[last:-1]


def _drop_last_action_and_recount(docs: Docs) -> None:
    _drop_last_action(docs)
    docs[0]["actions"] -= 1


def _line_after_the_result(docs: Docs) -> None:
    docs.append(copy.deepcopy(docs[-2]))


def _no_result_line(docs: Docs) -> None:
    del docs[-1]


TAMPERED: dict[str, tuple[Callable[[Docs], None], tuple[str, ...]]] = {
    # name: (how, what the first difference says)
    "winner and scores swapped": (_swap_result, ("the result line: scores: the file has",)),
    "every event's cards rewritten": (_rewrite_cards, ("line 3, event 1 (DEALER_DRAW", "cards")),
    "a fake game line first": (_fake_game_first, ("line 2: a second game line",)),
    "players renamed": (_rename_players, ("action 1: name: the file has",)),
    "seed changed": (_change_seed, ("commitment", "line 3, event 1 (DEALER_DRAW")),
    "last action dropped": (_drop_last_action, ("the game line: actions: the file has",)),
    "last action dropped, count fixed": (_drop_last_action_and_recount, ("status",)),
    "a line after the result": (_line_after_the_result, ("the replay has ended",)),
    "no result line": (_no_result_line, ("the replay goes on with the result line",)),
}


def test_the_untouched_export_is_fair(stored, tmp_path):
    _, _, docs = stored
    out = _uno("verify", str(_write(tmp_path / "game.jsonl", docs)))
    assert out.returncode == 0 and "FAIR:" in out.stdout and "NOT" not in out.stdout, out
    assert "every event and hand in the file and its result" in out.stdout


@pytest.mark.parametrize("name", TAMPERED)
def test_a_tampered_export_is_not_fair_and_the_first_difference_is_named(stored, tmp_path, name):
    _, _, docs = stored
    tamper, said = TAMPERED[name]
    docs = copy.deepcopy(docs)
    tamper(docs)
    out = _uno("verify", str(_write(tmp_path / "game.jsonl", docs)))
    assert out.returncode == 1 and "NOT FAIR" in out.stdout, out
    problems = out.stdout.split("NOT FAIR:\n", 1)[1]
    assert all(s in problems for s in said), problems
    assert "Traceback" not in out.stderr
    report = _uno("verify", str(tmp_path / "game.jsonl"), "--json")
    assert report.returncode == 1 and json.loads(report.stdout)["status"] == "unfair"


def test_the_difference_names_the_line_the_event_and_both_values(stored, tmp_path):
    _, _, docs = stored
    docs = copy.deepcopy(docs)
    number, event = next((i, d) for i, d in enumerate(docs) if d.get("kind") == "HAND_DEALT")
    real = event["cards"]
    event["cards"] = list(reversed(real))
    out = _uno("verify", str(_write(tmp_path / "game.jsonl", docs)), "--json")
    problem = json.loads(out.stdout)["problems"][0]
    events_before = sum(d["type"] == "event" for d in docs[:number])
    assert problem.startswith(f"line {number + 1}, event {events_before + 1} (HAND_DEALT"), problem
    assert f"the file has {list(reversed(real))}, the replay gives {real}" in problem


def test_an_edited_stored_result_is_not_fair(stored, tmp_path):
    path, game_id, _ = stored
    copy_path = tmp_path / "games.sqlite3"
    copy_path.write_bytes(path.read_bytes())
    db = sqlite3.connect(copy_path)
    scores = json.loads(
        db.execute("SELECT scores FROM games WHERE id = ?", (game_id,)).fetchone()[0]
    )
    db.execute(
        "UPDATE games SET scores = ?, winners = ? WHERE id = ?",
        (json.dumps(scores[1:] + scores[:1]), json.dumps([0]), game_id),  # rotated: one winner
    )
    db.commit()
    db.close()
    out = _uno("verify", str(game_id), "--db", str(copy_path))
    assert out.returncode == 1 and "the result: the record's scores are" in out.stdout, out


# ------------------------------------------------------------------ malformed files


def _header(docs: Docs, **fields) -> Docs:
    return [{**docs[0], **fields}, *docs[1:]]


MALFORMED: dict[str, Callable[[Docs], str | bytes]] = {
    "not JSON": lambda docs: "this is not JSON\n",
    "empty": lambda docs: "",
    "rules as a list": lambda docs: _text(_header(docs, rules=list(docs[0]["rules"].items()))),
    "players as a string": lambda docs: _text(_header(docs, players="me, greedy-1, greedy-2")),
    "an unknown rule": lambda docs: _text(_header(docs, rules={"no_such_rule": 1})),
    "a seed as a number": lambda docs: _text(_header(docs, seed=12)),
    "an event line first": lambda docs: _text(docs[2:]),
    "a line that is a list": lambda docs: _text(docs[:3]) + "[1, 2]\n",
    "deeply nested JSON": lambda docs: "[" * 100_000 + "]" * 100_000 + "\n",
    "nested just too deep": lambda docs: _text(_header(docs, extra=[[[[[[[[1]]]]]]]])),
    "a card that is not a card": lambda docs: _text([_bad_card(d) for d in docs]),
    "not UTF-8": lambda docs: b"\xff\xfe\x00garbage\n",
    "a number of 5000 digits": lambda docs: _text(docs).replace(
        '"actions": ', '"actions": 9' + "9" * 5000, 1
    ),
    "a seat that is not a seat": lambda docs: _text([_bad_seat(d) for d in docs]),
}


def _text(docs: Docs) -> str:
    return "".join(json.dumps(d) + "\n" for d in docs)


def _bad_seat(doc: dict) -> dict:
    return {**doc, "seat": 7} if doc["type"] == "action" else doc


def _bad_card(doc: dict) -> dict:
    if doc["type"] == "action":
        return {**doc, "action": {**doc["action"], "card": 5000}}
    return doc


@pytest.mark.parametrize("name", MALFORMED)
def test_a_malformed_file_gets_one_line_and_exit_2(stored, tmp_path, name):
    _, _, docs = stored
    content = MALFORMED[name](docs)
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    out = _uno("verify", str(path))
    assert out.returncode == 2, out
    assert out.stdout == "" and "Traceback" not in out.stderr
    assert len(out.stderr.splitlines()) == 1 and out.stderr.startswith(f"uno verify: {path}: ")


def test_a_file_over_the_limit_is_refused_unread(tmp_path):
    path = tmp_path / "huge.jsonl"
    with open(path, "wb") as f:
        f.truncate(MAX_EXPORT_BYTES + 1)  # sparse: no disk used
    out = _uno("verify", str(path))
    assert out.returncode == 2 and "more than 64 MiB" in out.stderr, out
    assert len(out.stderr.splitlines()) == 1


def test_the_reader_bounds_lines_it_is_given(stored):
    _, _, docs = stored
    record = record_from_jsonl(_text(docs).splitlines())
    assert len(record.actions) == docs[0]["actions"] and record.winners == tuple(
        docs[-1]["winners"]
    )
    with pytest.raises(MalformedExport, match="longer than 64 MiB"):
        record_from_jsonl(["\n"] * 2 + [" " * MAX_EXPORT_BYTES + "\n"])
