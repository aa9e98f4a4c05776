"""One bot kind against a field of another, in process, for the figures of a
search bot: ``python -m unoplay.client.research.duel`` (README, "A search bot to beat").

Every game is one round (target score 0) under the official rules, dealt
from the seed ``duel-<n>``; the bot under test sits at seat ``n % players``
and every other seat is the field's kind, all seeded from ``n``, so a run
repeats exactly (under an iteration budget). Games are played by
:func:`unoplay.game.bots.play_game` (no server: this measures the bot, not
the network path; ``uno match`` plays the same kinds over gRPC). With
``--processes`` above 1 the games are split between processes. It prints the
bot's wins, its win rate with a 95% Wilson interval beside the fair share,
and its mean and longest time per searched decision.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
from collections.abc import Sequence

from unoplay.game.bots import play_game
from unoplay.game.registry import make_bot
from unoplay.game.rules import PRESETS

from ..match.stats import wilson_interval

Result = tuple[int, float, int, float]


def play(kind: str, field: str, players: int, first: int, games: int) -> Result:
    """Games ``first .. first + games - 1``: (wins of ``kind``, seconds its
    searches took, searched decisions, the longest one in seconds; 0 for a
    bot that does not count them)."""
    rules = PRESETS["official"].replace(target_score=0)
    wins = 0
    seconds = longest = 0.0
    decisions = 0
    for n in range(first, first + games):
        seat = n % players
        bots = [make_bot(field, seed=n * 16 + s, rules=rules) for s in range(players)]
        bot = bots[seat] = make_bot(kind, seed=n, rules=rules)
        state = play_game(bots, rules, seed=f"duel-{n}")
        outcome = state.outcome()
        wins += outcome is not None and seat in outcome.winners
        seconds += getattr(bot, "seconds", 0.0)
        decisions += getattr(bot, "decisions", 0)
        longest = max(longest, getattr(bot, "longest", 0.0))
    return wins, seconds, decisions, longest


def _play(args: tuple[str, str, int, int, int]) -> Result:
    return play(*args)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m unoplay.client.research.duel", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--bot", default="ismcts", help="the kind under test (default ismcts)")
    parser.add_argument("--field", default="greedy", help="every other seat (default greedy)")
    parser.add_argument("--players", type=int, default=2, help="seats at the table (2-10)")
    parser.add_argument("--games", type=int, default=600)
    parser.add_argument("--first", type=int, default=0, help="the first game's number")
    parser.add_argument("--processes", type=int, default=1)
    args = parser.parse_args(argv)
    procs = max(1, min(args.processes, args.games))
    share, extra = divmod(args.games, procs)
    jobs = []
    first = args.first
    for i in range(procs):
        count = share + (i < extra)
        jobs.append((args.bot, args.field, args.players, first, count))
        first += count
    if procs == 1:
        results = [_play(jobs[0])]
    else:
        with multiprocessing.get_context("spawn").Pool(procs) as pool:
            results = pool.map(_play, jobs)
    wins = sum(r[0] for r in results)
    seconds = sum(r[1] for r in results)
    decisions = sum(r[2] for r in results)
    longest = max(r[3] for r in results)
    low, high = wilson_interval(wins, args.games)
    print(
        f"{args.bot} vs {args.players - 1} {args.field}: {wins} wins of {args.games}, "
        f"{100 * wins / args.games:.1f}% (95% interval {100 * low:.1f}%..{100 * high:.1f}%; "
        f"fair share {100 / args.players:.1f}%)"
    )
    if decisions:
        print(
            f"{1000 * seconds / decisions:.1f} ms a searched decision ({decisions} decisions;"
            f" the longest {1000 * longest:.0f} ms)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
