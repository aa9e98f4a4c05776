"""``uno bench --match``: the match runner's figures on this machine, in one run.

* **Speed.** The same games (greedy against three randoms, official rules to
  500) played one at a time on one event loop (``--workers inline``: the
  sequential runner ``uno match`` was before issue 16) and by
  ``concurrency`` worker processes; games/s of each and their ratio. On a
  machine of ``concurrency`` idle cores the ratio is near ``concurrency``:
  every game runs its own server and bots on one core, so nothing but the
  cores limits it (a busy machine, or the workers' start, a second or so).
* **Interval.** The 95% interval of greedy's win rate against random over
  the same number of single-round games, plain rotation (Wilson's, games
  independent) against ``--duplicate`` (the normal interval over deal
  scores: each deal played both ways, its luck shared by its two games);
  the ratio of the widths says how much narrower the paired one is.
"""

from __future__ import annotations

import sys
from typing import IO, Any

from unoplay.game.rules import preset

from .entrants import parse_entrants
from .runner import run_match


async def run_bench(
    games: int = 40, concurrency: int = 2, interval_games: int = 400, seed: int = 1
) -> dict[str, Any]:
    """Both figures (see the module docstring) as a dict: ``speed`` (games,
    seconds and games/s of ``sequential`` and ``concurrent``, their
    ``ratio``) and ``interval`` (``plain`` and ``duplicate``: win rate,
    interval and its width, as fractions; ``width_ratio`` duplicate/plain).
    ``games`` and ``interval_games`` are numbers of games. Raises
    ValueError for counts below 1 (as :func:`.runner.run_match`)."""
    field = parse_entrants("greedy,random,random,random")
    official = preset("official")
    speed: dict[str, Any] = {"games": games, "concurrency": concurrency}
    for name, options in (
        ("sequential", {"workers": "inline"}),
        ("concurrent", {"concurrency": concurrency, "workers": "processes"}),
    ):
        report = await run_match(field, games, seed, official, **options)
        speed[name] = {
            "seconds": report["elapsed"],
            "games_per_second": report["games_per_second"],
            "most_running": report["most_running"],
        }
    speed["ratio"] = (
        speed["concurrent"]["games_per_second"] / speed["sequential"]["games_per_second"]
    )
    pair = parse_entrants("greedy,random")
    rounds = official.replace(target_score=0)
    interval: dict[str, Any] = {"games": interval_games, "bots": "greedy,random", "target": 0}
    for name, duplicate in (("plain", ""), ("duplicate", "rotations")):
        report = await run_match(
            pair, interval_games, seed, rounds, concurrency=concurrency, duplicate=duplicate
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
    seq, conc = speed["sequential"], speed["concurrent"]
    print(
        f"match runner, {speed['games']} games of greedy against three randoms (official, to 500):",
        file=out,
    )
    print(
        f"  one at a time (inline)   {seq['seconds']:7.1f} s  "
        f"{seq['games_per_second']:6.2f} games/s",
        file=out,
    )
    print(
        f"  --concurrency {speed['concurrency']:<10} {conc['seconds']:7.1f} s  "
        f"{conc['games_per_second']:6.2f} games/s  (x{speed['ratio']:.2f}, "
        f"{conc['most_running']} at once)",
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
