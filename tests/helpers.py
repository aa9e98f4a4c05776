"""Shared helpers of the tests: card codes, crafted positions, stacked decks,
snapshots, a random playout, a self-signed certificate, waiting on a table."""

from __future__ import annotations

import asyncio
import copy
import random
import shutil
import subprocess
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

import pytest
from hypothesis import strategies as st

from unoplay.game.actions import ActionKind, play
from unoplay.game.cards import DECK_SIZE, parse_card
from unoplay.game.engine import GameState
from unoplay.game.errors import IllegalAction
from unoplay.game.events import Event, EventKind
from unoplay.game.rules import (
    Direction,
    FirstPlayer,
    MultiPlay,
    PointValues,
    ReverseStarter,
    RuleSet,
    Scoring,
    Stacking,
    Wd4Restriction,
    WildStarter,
)
from unoplay.game.search import IsmctsBot


def c(code: str) -> int:
    """Card id from a short code: ``c("R7")``, ``c("R7#1")`` (second copy), ``c("W+4")``."""
    return parse_card(code)


def cs(codes: str) -> list[int]:
    """Card ids from space-separated codes: ``cs("R7 B7 W")``."""
    return [c(x) for x in codes.split()]


def stacked_deck(
    hands: Sequence[Sequence[int]],
    starter: int,
    dealer: int = 0,
    direction: int = 1,
    then: Sequence[int] = (),
) -> list[int]:
    """A deck that deals ``hands`` (7 cards each) and turns up ``starter``.

    Follows RULES.md section 2: one card at a time, starting left of the
    dealer in the direction of play. ``then`` are the next cards to be drawn
    after the starter, first drawn first. Other cards fill the bottom.
    """
    n = len(hands)
    dealt = []
    for i in range(7 * n):
        seat = (dealer + direction * (1 + i % n)) % n
        dealt.append(hands[seat][i // n])
    top = dealt + [starter] + list(then)  # in drawing order
    used = set(top)
    rest = [x for x in range(DECK_SIZE) if x not in used]
    return rest + top[::-1]


def number_hands(n_players: int, avoid: Iterable[int] = ()) -> list[list[int]]:
    """Seven-card hands for ``n_players`` made only of number cards not in ``avoid``."""
    avoid = set(avoid)
    pool = [x for x in range(100) if x % 25 < 19 and x not in avoid]
    return [pool[7 * i : 7 * i + 7] for i in range(n_players)]


def snapshot(game: GameState) -> tuple:
    """Every field of ``game``, deep-copied, for 'state unchanged' checks."""
    fields = []
    for name in GameState.__slots__:
        if name in ("_plays", "_plays_uno", "_points", "rules"):
            continue  # immutable tables shared between games
        value = getattr(game, name)
        fields.append(value.getstate() if name == "_rng" else copy.deepcopy(value))
    return tuple(fields)


def all_cards(game: GameState) -> list[int]:
    """Every card in the draw pile, the discard pile and the hands."""
    cards = list(game.draw_pile) + list(game.discard_pile)
    for seat in range(game.players):
        cards += game.hand(seat)
    return cards


def assert_conserved(game: GameState) -> None:
    """All 108 cards present exactly once (RULES.md section 1)."""
    cards = all_cards(game)
    if (
        len(cards) == DECK_SIZE
        and len(set(cards)) == DECK_SIZE
        and min(cards) == 0
        and max(cards) == DECK_SIZE - 1
    ):
        return
    dupes = [x for x, k in Counter(cards).items() if k > 1]
    assert not dupes, f"duplicated cards {dupes}"
    assert sorted(cards) == list(range(DECK_SIZE)), f"{len(cards)} cards in play"


def of_kind(events: Iterable[Event], kind: EventKind) -> list[Event]:
    """The events of one kind, in order."""
    return [e for e in events if e.kind is kind]


def drew(events: Iterable[Event], seat: int) -> int:
    """How many cards ``seat`` drew in ``events`` (public DREW events)."""
    return sum(e.count for e in events if e.kind is EventKind.DREW and e.player == seat)


#: Seconds: the upper bound of any network wait in the tests.
WAIT = 60


async def greedy_bots_beside(conn, table, name: str) -> tuple[int, list[asyncio.Task]]:
    """Once the external bot called ``name`` has taken its seat at ``table``
    (a server-side Table of a three-seat game), seat two greedy SDK bots
    beside it and start the game. Returns (the external bot's seat, the
    greedy bots' tasks)."""
    from unoplay.client.sdk import run_bot
    from unoplay.game.registry import make_bot

    await until(table, lambda: any(s.name == name for s in table.seats), f"{name} to sit")
    seat = next(s.index for s in table.seats if s.name == name)
    tasks = []
    for kind in ("greedy", "greedy"):
        joined = await conn.join_table(table.table_id, kind)
        session = conn.session(table.table_id, joined.seat_token)
        tasks.append(asyncio.create_task(run_bot(make_bot(kind, seed=joined.seat), session)))
    await conn.start_game(table.table_id, joined.seat_token)
    return seat, tasks


async def until(table, condition: Callable[[], bool], what: str = "condition") -> None:
    """Wait (at most :data:`WAIT` seconds) until ``condition()`` holds, waking on
    the table's changes; fails the test naming ``what`` otherwise."""

    async def wait():
        while not condition():
            await table.wait_for_change()

    try:
        await asyncio.wait_for(wait(), WAIT)
    except TimeoutError:
        pytest.fail(f"timed out waiting for {what}")


#: Any rule set (hypothesis): every option of RULES.md sections 2-8 at random.
rule_sets = st.builds(
    RuleSet,
    first_player=st.sampled_from(FirstPlayer),
    reverse_starter=st.sampled_from(ReverseStarter),
    wild_starter=st.sampled_from(WildStarter),
    starter_wild_redraw=st.booleans(),
    initial_direction=st.sampled_from(Direction),
    wd4_restriction=st.sampled_from(Wd4Restriction),
    unnamed_wild_keeps_colour=st.booleans(),
    challenge_success_skips_challenger=st.booleans(),
    uno_penalty=st.integers(0, 4),
    uno_call_strict=st.booleans(),
    false_uno_penalty=st.integers(0, 2),
    point_values=st.sampled_from(PointValues),
    scoring=st.sampled_from(Scoring),
    target_score=st.integers(0, 120),
    stacking=st.sampled_from(Stacking),
    reverse_deflects_draw=st.booleans(),
    jump_in=st.booleans(),
    multi_play=st.sampled_from(MultiPlay),
    swap_on_five=st.booleans(),
    seven_zero=st.booleans(),
    number_first_and_last=st.booleans(),
    wrong_play_penalty=st.integers(0, 2),
)


def pos(hands, top, **kw):
    return GameState.from_position([cs(h) for h in hands], c(top), **kw)


def refused(game, seat, action, reason):
    before = snapshot(game)
    with pytest.raises(IllegalAction) as err:
        game.apply(seat, action)
    assert err.value.reason is reason
    assert snapshot(game) == before, "a refused action must leave the state unchanged"
    return err.value


def everything_else(*hands_and_top: str) -> list[int]:
    used = set()
    for text in hands_and_top:
        used |= set(cs(text))
    return [x for x in range(108) if x not in used]


def make_certificate(tmp_path, names=("localhost",), ips=("127.0.0.1",)):
    """A self-signed certificate and key made with openssl, as README shows."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    cert, key = tmp_path / "server.crt", tmp_path / "server.key"
    san = ",".join([f"DNS:{n}" for n in names] + [f"IP:{i}" for i in ips])
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=unoplay test",
            "-addext",
            f"subjectAltName={san}",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return cert, key


def play_out(
    players: int, rules: RuleSet, seed: str, rng: random.Random, max_rounds: int = 30
) -> list[Event]:
    """A whole game of random legal play (out-of-turn actions and refused
    wrong plays included); every event, private ones too."""
    game, events = GameState.new(players, rules, seed)
    for _ in range(max_rounds):
        steps = 0
        while not game.is_round_over and steps < 3000:
            seat = game.current
            if rng.random() < 0.1:  # someone out of turn: a catch, a call, a jump-in
                other = rng.randrange(players)
                legal = [
                    a
                    for a in game.legal_actions(other)
                    if a.kind is not ActionKind.CALL_UNO or game.catchable == other
                ]
                if legal:
                    seat = other
            legal = game.legal_actions(seat)
            if rules.wrong_play_penalty and rng.random() < 0.02:
                try:  # a card that may not fit: refused, at a cost (or played, if it fits)
                    events += game.apply(game.current, play(rng.choice(game.hand(game.current))))
                except IllegalAction as err:
                    events += err.events
                continue
            if not legal:
                continue
            events += game.apply(seat, rng.choice(legal))
            steps += 1
        if game.is_game_over or not game.is_round_over:
            break
        events += game.next_round()
    return events


def bots_on_their_turns(game: GameState, bots: Sequence) -> list[tuple[int, object]]:
    """Play ``game`` to its end (or its round's, for a one-round game), each
    seat's bot deciding on its own turn only; returns the (seat, action)
    pairs in the order applied, as a game record holds them."""
    actions = []
    while not game.is_round_over:
        seat = game.current
        action = bots[seat].decide(game.view(seat), game.legal_actions(seat))
        game.apply(seat, action)
        actions.append((seat, action))
    return actions


class TrackedBot(IsmctsBot):
    """ismcts counting the decisions at which the hand its tracker followed
    from the events alone (before it lines up with the view) is the view's."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.calls = self.agreed = 0

    def decide(self, view, legal):
        self.calls += 1
        self.agreed += sorted(self.tracker.mine) == sorted(view.hand)
        return super().decide(view, legal)


async def a_game_the_server_stops(launch: Callable[[str, str], asyncio.Task], name: str):
    """A game interrupted by the server's stop, as an external bot sees it: a
    server of its own, a two-seat table that ``launch(address, table_id)`` (a
    task running the bot, which joins by ``name``) sits at, the other seat
    this test's, which never plays (so the game cannot end first); once the
    game started with the bot's stream open, the server stops. Returns the
    task's result."""
    from unoplay.client.sdk import Connection
    from unoplay.server.service import start_server

    srv = await start_server("127.0.0.1", 0)
    try:
        async with Connection(srv.address) as conn:
            info = await conn.create_table(seats=2, rules=RuleSet())
            table = srv.lobby.get(info.table_id)
            running = launch(srv.address, info.table_id)
            bot = lambda: next((s for s in table.seats if s.name == name), None)  # noqa: E731
            await until(
                table, lambda: bot() is not None and bot().connections > 0, f"{name} to sit"
            )
            idle = await conn.join_table(info.table_id, "idle")
            await conn.start_game(info.table_id, idle.seat_token)
            await until(table, lambda: table.game is not None, "the game to start")
        await srv.stop(5.0)
        return await running
    finally:
        await srv.stop(None)


class AddressRelay:
    """A TCP relay on loopback whose connections reach ``127.0.0.1:port``
    from the loopback address ``source`` (127.0.0.N: all of 127/8 is this
    machine's): a client connected through it is, for the server, a client
    at ``source``. ``async with AddressRelay(port, "127.0.0.2") as address``
    gives the ``host:port`` to connect to."""

    def __init__(self, port: int, source: str) -> None:
        self.port, self.source = port, source
        self.listener: asyncio.Server | None = None
        self.pipes: set[asyncio.Task] = set()

    async def __aenter__(self) -> str:
        self.listener = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        return f"127.0.0.1:{self.listener.sockets[0].getsockname()[1]}"

    async def __aexit__(self, *exc: object) -> None:
        assert self.listener is not None
        self.listener.close()
        for task in self.pipes:
            task.cancel()
        await asyncio.gather(*self.pipes, return_exceptions=True)

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(
                "127.0.0.1", self.port, local_addr=(self.source, 0)
            )
        except OSError:
            writer.close()
            return
        for src, dst in ((reader, up_writer), (up_reader, writer)):
            task = asyncio.ensure_future(self._pipe(src, dst))
            self.pipes.add(task)
            task.add_done_callback(self.pipes.discard)

    @staticmethod
    async def _pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
        try:
            while data := await src.read(65536):
                dst.write(data)
                await dst.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            dst.close()


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie (reads ``/proc``)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
