"""The match runner: many bot-vs-bot games over the real gRPC path, with
statistics (win rate and its 95% Wilson interval, mean score) and ratings.

Seats are filled by built-in bots (driven through the client SDK, exactly as an
external bot would be) or by external commands (``--seat "node bot.js"``),
which get the server address, table id and seat token in their environment:
``UNO_SERVER``, ``UNO_TABLE``, ``UNO_TOKEN`` (and ``UNO_SEAT``).
"""

from __future__ import annotations

import asyncio
import math
import os
import shlex
import sys
from dataclasses import dataclass, field

from unoplay.game.bots import BOT_KINDS, make_bot
from unoplay.game.rules import RuleSet

from .sdk import Connection, run_bot

GAME_TIMEOUT = 600.0  # seconds one game may take before the match gives up on it


@dataclass
class Entrant:
    """One seat's player across the match: a bot kind or an external command."""

    label: str
    kind: str = ""  # built-in bot kind, or "" for an external command
    command: list[str] = field(default_factory=list)
    games: int = 0
    wins: float = 0.0  # a tie for first place shares the win
    total_score: int = 0
    decisions: int = 0  # searches made by a search bot (ismcts), and their time
    seconds: float = 0.0

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def mean_score(self) -> float:
        return self.total_score / self.games if self.games else 0.0


def wilson_interval(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a proportion ``wins / n`` (0..1 bounds)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def parse_entrants(bots: str, seats: list[str]) -> list[Entrant]:
    """Entrants from ``--bots greedy,random`` and ``--seat CMD`` options.

    Raises ValueError for an unknown bot kind or fewer than 2 / more than 10 seats.
    """
    entrants = []
    for i, kind in enumerate(k.strip() for k in bots.split(",") if k.strip()):
        if kind not in BOT_KINDS:
            raise ValueError(f"unknown bot kind {kind!r}; known: {', '.join(BOT_KINDS)}")
        entrants.append(Entrant(f"{kind}#{i}", kind=kind))
    for command in seats:
        entrants.append(Entrant(f"ext#{len(entrants)}", command=shlex.split(command)))
    if not 2 <= len(entrants) <= 10:
        raise ValueError("a match needs 2..10 seats (--bots and --seat together)")
    return entrants


class MatchError(RuntimeError):
    """The match cannot go on (an external bot failed); the message says why."""


async def _external(entrant: Entrant, address: str, table_id: str, seat: int, token: str) -> None:
    """Run an external bot's command for one game. Raises MatchError if it fails:
    the server's stand-in would otherwise play its seat and the report would
    credit the bot with the stand-in's results."""
    env = dict(
        os.environ, UNO_SERVER=address, UNO_TABLE=table_id, UNO_TOKEN=token, UNO_SEAT=str(seat)
    )
    process = await asyncio.create_subprocess_exec(
        *entrant.command, env=env, stdout=asyncio.subprocess.DEVNULL
    )
    try:
        code = await process.wait()
    finally:
        if process.returncode is None:
            process.kill()
    if code != 0:
        raise MatchError(
            f"the bot `{shlex.join(entrant.command)}` ({entrant.label}, seat "
            f"{seat + 1}) exited with code {code} before its game ended "
            "(its error output is above); the match stops"
        )


async def play_one(
    conn: Connection,
    address: str,
    entrants: list[Entrant],
    order: list[int],
    rules: RuleSet,
    seed: int,
    window_ms: int = 0,
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """One game; seat ``s`` is played by ``entrants[order[s]]``, at a table with
    that out-of-turn window (ms). Returns (scores per seat, winning seats)."""
    table = await conn.create_table(
        seats=len(order), rules=rules, title=f"match {seed}", window_ms=window_ms, seed=seed
    )
    joins = [await conn.join_table(table.table_id, entrants[e].label) for e in order]
    tasks = []
    bots = []
    for seat, e in enumerate(order):
        entrant = entrants[e]
        token = joins[seat].seat_token
        if entrant.kind:
            bot = make_bot(entrant.kind, seed=seed * 31 + seat, rules=rules)
            bots.append((e, bot))
            tasks.append(asyncio.create_task(run_bot(bot, conn.session(table.table_id, token))))
        else:
            tasks.append(
                asyncio.create_task(_external(entrant, address, table.table_id, seat, token))
            )
    await conn.start_game(table.table_id, joins[0].seat_token)
    await asyncio.wait_for(asyncio.gather(*tasks), GAME_TIMEOUT)
    _count_searches(entrants, bots)
    final = next(t for t in await conn.list_tables() if t.table_id == table.table_id)
    scores = tuple(final.scores)
    if rules.scoring.value == "penalty":
        best = min(scores)
    else:
        best = max(scores)
    return scores, tuple(s for s, v in enumerate(scores) if v == best)


def play_offline(
    entrants: list[Entrant], order: list[int], rules: RuleSet, seed: int
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """One game of built-in bots in this process, without a server
    (:func:`unoplay.game.bots.play_game`): the same bots, seeds and deal as
    :func:`play_one`, much faster. Returns (scores per seat, winning seats:
    none when the game was capped)."""
    from unoplay.game.bots import play_game

    if any(not entrants[e].kind for e in order):
        raise ValueError("--offline plays built-in bots only (no --seat)")
    bots = [
        make_bot(entrants[e].kind, seed=seed * 31 + s, rules=rules) for s, e in enumerate(order)
    ]
    state = play_game(bots, rules, seed)
    outcome = state.outcome()
    assert outcome is not None
    _count_searches(entrants, list(zip(order, bots, strict=True)))
    return outcome.scores, outcome.winners


def _count_searches(entrants: list[Entrant], bots: list) -> None:
    """Add the searches of a game's search bots (``(entrant, bot)`` pairs;
    a bot with ``decisions`` and ``seconds``, as ismcts) to their entrants."""
    for e, bot in bots:
        if hasattr(bot, "seconds"):
            entrants[e].decisions += bot.decisions
            entrants[e].seconds += bot.seconds


def _ratings(
    entrants: list[Entrant], results: list[tuple[list[int], tuple[int, ...], tuple[int, ...]]]
):
    """OpenSkill (Plackett-Luce) ratings from every game's ranking."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {e.label: model.rating(name=e.label) for e in entrants}
    for order, _scores, winners in results:
        teams = [[ratings[entrants[e].label]] for e in order]
        ranks = [0 if s in winners else 1 for s in range(len(order))]
        updated = model.rate(teams, ranks=ranks)
        for e, team in zip(order, updated):
            ratings[entrants[e].label] = team[0]
    return {label: (r.mu, r.sigma, r.ordinal()) for label, r in ratings.items()}


async def run_match(
    entrants: list[Entrant],
    games: int,
    seed: int,
    rules: RuleSet,
    server: str | None = None,
    progress=None,
    window_ms: int = 0,
    offline: bool = False,
) -> dict:
    """Play ``games`` games, rotating seats each game. ``offline``: in this
    process without a server (:func:`play_offline`). With no ``server``,
    starts an embedded one on loopback. ``window_ms`` is each table's
    out-of-turn window (default 0, none: bots react in milliseconds, and a
    window would only slow the games down). Returns the report as a dict."""
    embedded = None
    if offline:
        results = []
        n = len(entrants)
        for g in range(games):
            order = [(g + s) % n for s in range(n)]
            scores, winners = play_offline(entrants, order, rules, seed + g)
            _tally(entrants, order, scores, winners)
            results.append((order, scores, winners))
            if progress:
                progress(g + 1)
        return _report(entrants, results, games, seed, rules)
    if server is None:
        from unoplay.server.service import start_server

        embedded = await start_server("127.0.0.1", 0)
        server = embedded.address
    results = []
    try:
        async with Connection(server) as conn:
            await conn.wait_ready()
            n = len(entrants)
            for g in range(games):
                order = [(g + s) % n for s in range(n)]
                scores, winners = await play_one(
                    conn, server, entrants, order, rules, seed + g, window_ms
                )
                results.append((order, scores, winners))
                _tally(entrants, order, scores, winners)
                if progress:
                    progress(g + 1)
    finally:
        if embedded:
            await embedded.stop(None)
    return _report(entrants, results, games, seed, rules)


def _tally(
    entrants: list[Entrant], order: list[int], scores: tuple[int, ...], winners: tuple[int, ...]
) -> None:
    """Count one game's result for each entrant (a tie for first shares the win)."""
    for seat, e in enumerate(order):
        entrants[e].games += 1
        entrants[e].total_score += scores[seat]
        if seat in winners:
            entrants[e].wins += 1 / len(winners)


def _report(entrants: list[Entrant], results: list, games: int, seed: int, rules: RuleSet) -> dict:
    """The match report (a dict, as ``--json`` prints it)."""
    ratings = _ratings(entrants, results)
    rows: list[dict] = []
    report = {"games": games, "seed": seed, "rules": rules.to_dict(), "entrants": rows}
    for e in entrants:
        low, high = wilson_interval(e.wins, e.games)
        mu, sigma, ordinal = ratings[e.label]
        rows.append(
            {
                "label": e.label,
                "kind": e.kind or " ".join(e.command),
                "games": e.games,
                "wins": e.wins,
                "win_rate": e.win_rate,
                "ci95": [low, high],
                "mean_score": e.mean_score,
                "rating_mu": mu,
                "rating_sigma": sigma,
                "rating": ordinal,
                "ms_per_decision": 1000 * e.seconds / e.decisions if e.decisions else None,
            }
        )
    return report


def print_report(report: dict, file=sys.stdout) -> None:
    """A table of the match report for people."""
    from rich.console import Console
    from rich.table import Table

    from unoplay.game.rules import RuleSet, differences, preset_name

    rules = RuleSet.from_dict(report["rules"])
    name = preset_name(rules)
    changed = [f"{k}={v}" for k, v in differences(rules)] if name == "custom" else []
    target = f"target {rules.target_score}" if rules.target_score else "one round each"
    lowest = rules.scoring == "penalty"
    table = Table(
        title=f"{report['games']} games, seed {report['seed']}, {name} rules"
        f"{' (' + ', '.join(changed) + ')' if changed else ''}, {target}",
        caption="mean score: lower is better (penalty scoring)" if lowest else None,
    )
    for col in ("seat player", "wins", "win rate", "95% CI", "mean score", "rating", "ms/search"):
        table.add_column(col, justify="right" if col != "seat player" else "left")
    for e in report["entrants"]:
        low, high = e["ci95"]
        ms = e.get("ms_per_decision")
        table.add_row(
            e["label"],
            f"{e['wins']:g}",
            f"{e['win_rate']:.1%}",
            f"{low:.1%}..{high:.1%}",
            f"{e['mean_score']:.1f}",
            f"{e['rating']:.2f}",
            "" if ms is None else f"{ms:.1f}",
        )
    Console(file=file).print(table)
