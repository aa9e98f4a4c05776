"""Engine benchmark: complete rounds between random legal players (``uno bench``).

Both engines play 4-player rounds with the same kind of random player, one
that plays a uniformly random legal card when it has one (a wild once per
colour) and otherwise takes a random one of its other legal actions (draw,
keep, challenge, accept...). That is the policy RLCard's own legal-action list
gives (it offers *draw* only without a playable card), so a round is about as
long in both engines and rounds/s compare like for like. Our engine does the
complete official rules on top (starter table, drawn-card choice, Wild Draw
Four challenge, UNO calls and catches, scoring); RLCard's does not.

Each figure is the median of ``runs`` timed runs of ``seconds`` each; the
engines' runs are interleaved and the ratio is the median of back-to-back pairs.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from dataclasses import asdict, dataclass
from random import Random
from typing import Any

from unoplay.game.actions import ActionKind
from unoplay.game.engine import GameState
from unoplay.game.rules import RuleSet

_PLAY = ActionKind.PLAY


@dataclass
class Result:
    """One engine's figures: medians over the runs."""

    engine: str
    rounds_per_s: float
    actions_per_s: float
    actions_per_round: float
    runs: int


def _time_ours(seconds: float, seed: int, players: int) -> tuple[int, int, float]:
    """Play rounds for ``seconds``; returns (rounds, actions, elapsed seconds).

    The loop is as lean as RLCard's below (methods bound once per game, one
    random number per action where possible), so that the figures compare
    the engines rather than the loops that drive them."""
    rules = RuleSet(target_score=100_000)
    pick = Random(seed).random
    rounds = actions = 0
    game, _ = GameState.new(players, rules, seed=seed)
    legal_actions, apply = game.legal_actions, game.apply
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        seat = game.current
        legal = legal_actions(seat)
        while legal:  # empty once the round is over
            n = len(legal)
            if legal[0][0] is _PLAY:  # plays come first (kind is field 0), then DRAW or
                n -= 1  # KEEP, then perhaps a catch or a call: uniform over the plays
                while legal[n - 1][0] is not _PLAY:
                    n -= 1
            apply(seat, legal[int(pick() * n)])
            actions += 1
            seat = game.current
            legal = legal_actions(seat)
        rounds += 1
        if time.perf_counter() >= deadline:
            return rounds, actions, time.perf_counter() - start
        if game.is_game_over:
            seed += 1
            game, _ = GameState.new(players, rules, seed=seed)
            legal_actions, apply = game.legal_actions, game.apply
        else:
            game.next_round()


def _time_rlcard(seconds: float, seed: int, players: int) -> tuple[int, int, float]:
    """RLCard's UnoGame with the same random player; needs the ``bench`` extra."""
    import numpy as np
    from rlcard.games.uno.game import UnoGame

    game = UnoGame(num_players=players)
    game.np_random = np.random.RandomState(seed)
    pick = Random(seed).random
    init_game, is_over, legal_actions, step = (
        game.init_game,
        game.is_over,
        game.get_legal_actions,
        game.step,
    )
    rounds = actions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        init_game()
        while not is_over():
            legal = legal_actions()
            step(legal[int(pick() * len(legal))])
            actions += 1
        rounds += 1
        if time.perf_counter() >= deadline:
            return rounds, actions, time.perf_counter() - start


def _one_run(name: str, run: int, seconds: float, players: int) -> tuple[float, float, float]:
    timer = _time_ours if name == "unoplay" else _time_rlcard
    rounds, actions, elapsed = timer(seconds, 1000 * run + 1, players)
    return rounds / elapsed, actions / elapsed, actions / rounds


def measure(
    names: list[str], runs: int, seconds: float, players: int = 4
) -> list[list[tuple[float, float, float]]]:
    """Timed runs of each engine in ``names``, interleaved (A, B, A, B, ...) so
    that a machine that speeds up or slows down affects both alike. Returns,
    per engine, its runs as (rounds/s, actions/s, actions/round)."""
    results: list[list[tuple[float, float, float]]] = [[] for _ in names]
    for run in range(runs):
        for i, name in enumerate(names):
            results[i].append(_one_run(name, run, seconds, players))
    return results


def _summary(name: str, runs: list[tuple[float, float, float]]) -> Result:
    return Result(
        name,
        statistics.median(r[0] for r in runs),
        statistics.median(r[1] for r in runs),
        statistics.median(r[2] for r in runs),
        len(runs),
    )


def rlcard_available() -> bool:
    """True if the optional ``rlcard`` package can be imported."""
    try:
        import rlcard.games.uno.game  # noqa: F401
    except Exception:
        return False
    return True


def run(
    runs: int = 5, seconds: float = 1.0, as_json: bool | None = False, with_rlcard: bool = True
) -> dict[str, Any]:
    """Run the benchmark, print a report (text, JSON, or nothing for ``as_json``
    None) and return the figures."""
    names = ["unoplay"] + (["rlcard"] if with_rlcard and rlcard_available() else [])
    results = measure(names, runs, seconds)
    ours = _summary("unoplay", results[0])
    report: dict[str, Any] = {"players": 4, "rules": "official", "unoplay": asdict(ours)}
    theirs = None
    if len(names) == 2:
        theirs = _summary("rlcard", results[1])
        report["rlcard"] = asdict(theirs)
        # Median of the per-pair ratios: each pair ran back to back.
        pairs = list(zip(results[0], results[1]))
        report["ratio_rounds_per_s"] = statistics.median(a[0] / b[0] for a, b in pairs)
        report["ratio_actions_per_s"] = statistics.median(a[1] / b[1] for a, b in pairs)
    elif with_rlcard:
        report["rlcard"] = None
        report["note"] = "rlcard not installed: pip install -e '.[bench]' to compare"
    if as_json is None:
        return report
    if as_json:
        print(json.dumps(report, indent=2))
        return report
    print(
        f"engine benchmark: 4 players, official rules, median of {runs} run{'s' if runs != 1 else ''} of {seconds:g} s"
    )
    for r in (ours, theirs):
        if r is not None:
            print(
                f"  {r.engine:8s} {r.rounds_per_s:9,.0f} rounds/s {r.actions_per_s:11,.0f} "
                f"actions/s  ({r.actions_per_round:.1f} actions/round)"
            )
    if theirs is not None:
        print(
            f"  ratio    {report['ratio_rounds_per_s']:9.2f}x rounds/s "
            f"{report['ratio_actions_per_s']:10.2f}x actions/s"
        )
    elif "note" in report:
        print(f"  ({report['note']})", file=sys.stderr)
    return report
