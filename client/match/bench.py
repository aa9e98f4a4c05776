"""``uno bench --match``: the match runner's figures on this machine, in one run.

* **Speed.** The same games (greedy against three randoms, official rules to
  500: the match's deals, seating and bots' seeds; in process, action for
  action the same) played by the engine alone with the same bots
  (:func:`unoplay.game.bots.play_game`, one core: the limit), and by the
  runner one at a time on one event loop (``--workers inline``) and by
  ``concurrency`` worker processes, each both ways: the Python entrants
  playing their seats in the worker's process (the default) and over gRPC
  (``--network``); games/s of each, the in-process path's share of the
  engine's (one core against one core), and what skipping the wire gains.
  On a machine of ``concurrency`` idle cores the processes' games/s is near
  ``concurrency`` times the inline one's.
* **Interval.** The 95% interval of greedy's win rate against random over
  the same number of single-round games, plain rotation (Wilson's, games
  independent) against ``--duplicate`` (the normal interval over deal
  scores: each deal played both ways, its luck shared by its two games);
  the ratio of the widths says how much narrower the paired one is.
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import IO, Any

from unoplay.game.bots import play_game
from unoplay.game.deals import game_seed
from unoplay.game.rules import preset

from .config import MatchConfig
from .entrants import new_bot, parse_entrants
from .runner import run_match
from .schedule import make_schedule


async def run_bench(
    games: int = 40,
    concurrency: int = 2,
    interval_games: int = 400,
    seed: int = 1,
    runs: int = 3,
) -> dict[str, Any]:
    """Both figures (see the module docstring) as a dict: ``speed`` (games;
    seconds and games/s of ``engine``, ``inline``, ``inline_network``,
    ``concurrent``, ``concurrent_network``; ``share_of_engine``: inline over
    engine; ``wire_gain`` and ``wire_gain_concurrent``: in-process over
    network) and ``interval`` (``plain`` and ``duplicate``: win rate,
    interval and its width, as fractions; ``width_ratio`` duplicate/plain).
    The engine and the inline runner are timed ``runs`` times, one after the
    other (a busy machine slows both alike): theirs are the median run's
    figures, and ``share_of_engine`` the median of the runs' shares
    (``shares``: each run's). ``games`` and ``interval_games`` are numbers of
    games. Raises ValueError for counts below 1 (as :func:`.runner.run_match`)."""
    if runs < 1:
        raise ValueError("runs must be 1 or more")
    field = tuple(parse_entrants("greedy,random,random,random"))
    official = preset("official")
    speed: dict[str, Any] = {"games": games, "concurrency": concurrency, "runs": runs}
    specs = make_schedule([e.identity for e in field]).specs(games, seed)
    engine_runs, inline_runs = [], []
    for _ in range(runs):
        start = time.perf_counter()
        for spec in specs:  # the match's games: its deals, seating and bots' seeds
            bots = [
                new_bot(field[e].kind, spec.bot_seed(s), official) for s, e in enumerate(spec.seats)
            ]
            play_game(bots, official, seed=game_seed(str(spec.seed), 1))  # the table's first
        engine_runs.append(time.perf_counter() - start)
        report = await run_match(MatchConfig(field, games, seed, official, workers="inline"))
        inline_runs.append(report["elapsed"])
    for name, times in (("engine", engine_runs), ("inline", inline_runs)):
        seconds = statistics.median(times)
        speed[name] = {"seconds": seconds, "games_per_second": games / seconds}
    speed["shares"] = [e / i for e, i in zip(engine_runs, inline_runs, strict=True)]
    others: tuple[tuple[str, dict[str, Any]], ...] = (
        ("inline_network", {"workers": "inline", "network": True}),
        ("concurrent", {"concurrency": concurrency, "workers": "processes"}),
        (
            "concurrent_network",
            {"concurrency": concurrency, "workers": "processes", "network": True},
        ),
    )
    for name, options in others:
        report = await run_match(MatchConfig(field, games, seed, official, **options))
        speed[name] = {
            "seconds": report["elapsed"],
            "games_per_second": report["games_per_second"],
            "most_running": report["most_running"],
        }
    rate = {name: run["games_per_second"] for name, run in speed.items() if isinstance(run, dict)}
    speed["share_of_engine"] = statistics.median(speed["shares"])
    speed["wire_gain"] = rate["inline"] / rate["inline_network"]
    speed["wire_gain_concurrent"] = rate["concurrent"] / rate["concurrent_network"]
    pair = tuple(parse_entrants("greedy,random"))
    rounds = official.replace(target_score=0)
    interval: dict[str, Any] = {"games": interval_games, "bots": "greedy,random", "target": 0}
    for name, duplicate in (("plain", ""), ("duplicate", "rotations")):
        report = await run_match(
            MatchConfig(
                pair, interval_games, seed, rounds, concurrency=concurrency, duplicate=duplicate
            )
        )
        greedy = report["entrants"][0]
        low, high = greedy["deal_ci95"] if duplicate else greedy["ci95"]
        interval[name] = {
            "win_rate": greedy["win_rate"],
            "ci95": [low, high],
            "width": high - low,
            "games": greedy["games"],
        }
    plain_width = interval["plain"]["width"]
    interval["width_ratio"] = interval["duplicate"]["width"] / plain_width if plain_width else None
    return {"speed": speed, "interval": interval}


def print_bench(report: dict[str, Any], file: IO[str] | None = None) -> None:
    """The figures of :func:`run_bench` for people."""
    out = file or sys.stdout
    speed, interval = report["speed"], report["interval"]
    print(
        f"{speed['games']} games of greedy against three randoms (official, to 500), games/s:",
        file=out,
    )
    rows = (
        ("engine alone, one core (the limit)", "engine"),
        ("uno match, inline, in-process seats", "inline"),
        ("uno match, inline, --network", "inline_network"),
        (f"uno match, --concurrency {speed['concurrency']}, in-process", "concurrent"),
        (f"uno match, --concurrency {speed['concurrency']}, --network", "concurrent_network"),
    )
    for what, name in rows:
        run = speed[name]
        print(
            f"  {what:<42} {run['seconds']:7.1f} s  {run['games_per_second']:7.2f} games/s",
            file=out,
        )
    shares = ", ".join(f"{share:.2f}" for share in speed["shares"])
    print(
        f"  in-process share of the engine's games/s: {speed['share_of_engine']:.2f} "
        f"(median of {speed['runs']} runs: {shares}); "
        f"in-process over --network: x{speed['wire_gain']:.2f} inline, "
        f"x{speed['wire_gain_concurrent']:.2f} with --concurrency {speed['concurrency']}",
        file=out,
    )
    print(
        f"95% interval of greedy's win rate against random, {interval['games']} single rounds:",
        file=out,
    )
    for name, what in (("plain", "plain rotation (Wilson)"), ("duplicate", "--duplicate (deals)")):
        row = interval[name]
        low, high = row["ci95"]
        print(
            f"  {what:<24} {row['win_rate']:6.1%}  {low:6.1%}..{high:6.1%}  "
            f"width {row['width']:.4f}",
            file=out,
        )
    if interval["width_ratio"] is not None:
        print(f"  duplicate/plain width: {interval['width_ratio']:.2f}", file=out)
