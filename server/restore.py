"""Bringing back the open tables a server kept in its file (:mod:`.durable`)
when ``uno serve`` starts again on it (issue 48; RULES.md, "Server restarts").

Each table is made again with its id and settings, its seats (a person's
seat token checked against the SHA-256 kept), and its game dealt again from
its seed and replayed action by action; each log is numbered on from the
last seq its first stream since the restart saw (:meth:`.streamlog.StreamLog.anchor`),
so no client sees a gap or a repeat. A game in play goes on (:meth:`.table.Table.resume`); a
finished game awaiting its rematch is shown over again with its votes, if
it ended within the lobby's ``finished_ttl`` (else its rows go). The arena's
games come back to the arena with who holds each seat and whether the book
rated the game; its entrants come back to its queue in their order
(:meth:`.arena.Arena.readmit`). A table whose replay fails is closed with a
log line saying why; the others come back.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from unoplay.game.deals import RECEIVED_KINDS, DealReveal, commitment
from unoplay.game.engine import GameState
from unoplay.game.messages import Welcome
from unoplay.game.registry import make_bot
from unoplay.game.rules import RuleSet
from unoplay.record import action_from_json, apply_recorded
from unoplay.settings import MAX_GAME_ACTIONS

from .arena import Arena
from .lobby import Lobby
from .storage import GameStore
from .streamlog import StreamLog
from .table import Table

log = logging.getLogger("unoplay.durable")  # (the kept tables' one logger)

#: What a restored seat holds instead of its token (never equal to a token:
#: tokens are URL-safe base64). Tokens are compared by their SHA-256.
RESTORED_TOKEN = "(restored)"

#: an action kept: (game number, n, seat, action JSON, source, ms)
Kept = tuple[int, int, int, str, str, int]


def restore(lobby: Lobby, store: GameStore, arena: Arena | None = None) -> list[Table]:
    """Bring back every open table kept in ``store`` into ``lobby``, the
    arena's games and queue into ``arena`` (see the module docstring).
    Returns the tables."""
    with store.transaction() as conn:
        rows = conn.execute(
            "SELECT table_id, settings, seats, game, votes FROM live_tables"
        ).fetchall()
        actions: dict[str, list[Kept]] = {}
        for tid, game, n, seat, action, source, ms in conn.execute(
            "SELECT table_id, game, n, seat, action, source, t_ms FROM live_actions"
            " ORDER BY table_id, game, n"
        ):
            actions.setdefault(tid, []).append((game, n, seat, action, source, ms))
        games = {
            tid: (json.loads(game) if game else None, bool(rated))
            for tid, game, rated in conn.execute("SELECT table_id, game, rated FROM live_arena")
        }
        entrants = conn.execute("SELECT key, address, since FROM live_entrants").fetchall()
        started = conn.execute("SELECT games FROM live_arena_started").fetchone()
    journal = lobby.journal
    if arena is not None:
        arena.number_from(started[0] if started else 0)
        for key, address, since in entrants:
            arena.readmit(key, address, since)
    tables = []
    for tid, settings, seat_rows, game_row, votes in rows:
        try:
            table = _restore_one(
                lobby,
                arena,
                tid,
                json.loads(settings),
                json.loads(seat_rows),
                json.loads(game_row) if game_row else None,
                json.loads(votes),
                actions.get(tid, []),
                games.get(tid),
            )
        except Exception as err:
            log.error("table %s could not be restored and is closed: %s", tid, err)
            if arena is not None:
                arena.forget_game(tid)
            if tid in lobby.tables:
                lobby.close_table(tid)
            if journal is not None:
                journal.discard(tid)
            continue
        if table is None:
            if journal is not None:
                journal.discard(tid)
            continue
        tables.append(table)
        log.info(
            "table %s restored (%s, %d actions)",
            tid,
            table.state.name.lower(),
            len(table.history),
        )
    return tables


def _restore_one(
    lobby: Lobby,
    arena: Arena | None,
    table_id: str,
    settings: dict[str, Any],
    seat_rows: list[dict[str, Any]],
    game_row: dict[str, Any] | None,
    votes: list[int],
    actions: list[Kept],
    arena_game: tuple[dict[str, Any] | None, bool] | None,
) -> Table | None:
    """One table made again (None: a finished table past ``finished_ttl``,
    not restored). Raises ValueError (or another error) if its replay fails."""
    finished_at = game_row.get("finished_at", 0.0) if game_row else 0.0
    if finished_at and time.time() - finished_at > lobby.limits.finished_ttl:
        log.info("table %s finished %.0f s ago: not restored", table_id, time.time() - finished_at)
        return None
    rules = RuleSet.from_dict(settings["rules"])
    in_arena = arena is not None and arena_game is not None and arena_game[0] is not None
    table = lobby.adopt(
        table_id,
        settings["title"],
        settings["seats"],
        rules,
        turn_seconds=settings["turn_seconds"],
        bot_delay=settings["bot_delay"],
        round_pause=settings["round_pause"],
        away_grace=settings["away_grace"],
        window_ms=settings["window_ms"],
        seed=settings["seed"],
        max_round_actions=settings["max_round_actions"],
        owner=settings["owner"],
        rematches=settings.get("rematches", True),
        on_give_up=arena.given_up if arena is not None and in_arena else None,
    )
    _restore_seats(table, rules, seat_rows)
    if game_row is None:
        for seat in table.seats:
            if seat.token:
                seat.log.append(Welcome(seat.index, table.info()))
        lobby.restored(table)
        if lobby.journal is not None:
            lobby.journal.table(table)
        return table
    game, round_actions = _replay(table, rules, game_row, actions)
    for s in votes:
        table.rematch.vote(s)
    if arena is not None and arena_game is not None and arena_game[0] is not None:
        arena.adopt_game(table.table_id, arena_game[0], rated=arena_game[1])
    table.finished_at = finished_at
    if finished_at and not game.is_game_over:
        raise ValueError("its game was stored as over, but the replay does not end it")
    journal = lobby.journal
    if journal is not None:  # (a game that ends at its last action is stored as any)
        journal.restored(table_id)
    if finished_at:  # over again first: the lobby keeps it among the finished
        table.resume(game, round_actions, finished=True)
        lobby.restored(table)
    else:  # listed first: a game that ends at its last action is finished there
        lobby.restored(table)
        table.resume(game, round_actions)
    return table


def _restore_seats(table: Table, rules: RuleSet, seat_rows: list[dict[str, Any]]) -> None:
    """The seats kept (names, bots, tokens' hashes), each with a new log
    marked restored: its first stream numbers it (:meth:`.streamlog.StreamLog.anchor`)."""
    limits = table.limits
    for seat, row in zip(table.seats, seat_rows):
        if not row["name"]:
            continue
        seat.name = row["name"]
        seat.holder = row.get("holder", "")
        if row["bot"]:
            try:
                seat.bot = make_bot(row["bot"], rules=rules, max_ms=limits.bot_ms)
            except ValueError:
                seat.bot = make_bot("greedy", rules=rules, max_ms=limits.bot_ms)
        elif row["token_sha256"]:
            seat.token = RESTORED_TOKEN
            seat.token_hash = bytes.fromhex(row["token_sha256"])
        # (a seat with no token, a bot's, keeps nothing but its count)
        kept = limits.log_messages if seat.token else 0
        seat.log = StreamLog(seat.index, kept, limits.log_bytes if kept else 0)
        seat.log.restored = seat.log.unanchored = True
    table.spectator_log.restored = table.spectator_log.unanchored = True
    table.show_seats()


def _replay(
    table: Table, rules: RuleSet, game_row: dict[str, Any], actions: list[Kept]
) -> tuple[GameState, int]:
    """Deal ``table``'s game again from the seed kept and apply every action
    kept: ``(the game, actions applied in its round)``. Raises ValueError for
    a commitment that does not match, an action missing or refused."""
    table_id = table.table_id
    seed = game_row["seed"]
    deal = DealReveal(seed, game_row["salt"], game_row["commitment"])
    if deal.commitment != commitment(seed, deal.salt, table_id, len(table.seats), rules.to_dict()):
        raise ValueError("the stored commitment does not match the seed and salt")
    number = game_row["number"]
    game, events = GameState.new(len(table.seats), rules, seed)
    table.games_started = number
    table.deal = deal
    table.started_at = game_row["started_at"]
    history = table.history
    _receive(table, events)
    round_actions = 0
    for game_no, n, seat_index, action_text, source, ms in actions:
        if game_no != number:
            continue
        if n != len(history):
            raise ValueError(f"action {len(history)} is missing")
        if game.is_game_over:
            raise ValueError(f"action {n} comes after the game's end")
        if game.is_round_over:
            round_actions = 0
            _receive(table, game.next_round())
        action = action_from_json(action_text)
        applied = apply_recorded(game, seat_index, action)  # ValueError if refused
        history.append(seat_index, action, source, ms)
        round_actions += 1
        _receive(table, applied)
        if not game.is_round_over:
            if round_actions >= table.max_round_actions:
                game.cap_round(round_actions)
            elif len(history) >= MAX_GAME_ACTIONS:
                game.cap_round(len(history))
    return game, round_actions


def _receive(table: Table, events: list[Any]) -> None:
    history = table.history
    for e in events:
        if e.kind in RECEIVED_KINDS:
            history.receive(int(e.kind), e.player, e.cards)
