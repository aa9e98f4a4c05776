"""An A/A test of ``uno match --sprt``: how often does it call a bot better
than its equal? ``python -m unoplay.client.match.aa`` (not part of ``make
test``: a few minutes).

It plays ``--runs`` SPRTs (elo0=0 against ``--elo1``), each a real match
(:func:`.runner.run_match`, bots in the runner's process) between two
entrants of equal strength with independent randomness: :class:`NoisyA` and
:class:`NoisyB`, the same policy (greedy, a uniformly random legal move a
quarter of the time) drawing from streams of their own. The true Elo
difference is 0, which is elo0: every H1 accepted is a false positive, and
the SPRT promises at most ``alpha`` of them. Runs are seeded
``--seed + i * --max-games`` so no two share a deal (a match deals game or
deal ``d`` from its seed + ``d``). The report: the rate of H1, its 95%
interval (Clopper-Pearson) and the p-value of a one-sided binomial test of
"the rate is at most alpha" (:func:`false_positives`); ``--json`` for
machines.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

from unoplay.game.actions import Action
from unoplay.game.registry import make_bot
from unoplay.game.view import PlayerView

from .sprt import SprtSpec

#: The share of moves the noisy bots play at random.
NOISE = 0.25
#: The entrants of the A/A test (``module:attr``, as ``--bots`` takes them).
ENTRANTS = "unoplay.client.match.aa:NoisyA,unoplay.client.match.aa:NoisyB"


def _salted(salt: str, seed: int) -> int:
    """A 64-bit seed from ``seed`` and ``salt`` (SHA-256): streams of their own."""
    digest = hashlib.sha256(f"unoplay aa v1\n{salt}\n{seed}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


class NoisyGreedy:
    """Greedy, but a uniformly random legal move (the random bot's) with
    probability :data:`NOISE`; its three streams of chance are seeded from
    ``seed`` and its class's ``salt``, so two classes with two salts are the
    same player drawing different luck."""

    salt = ""

    def __init__(self, seed: int = 0) -> None:
        base = _salted(self.salt, seed)
        self.greedy = make_bot("greedy", seed=base)
        self.random = make_bot("random", seed=base + 1)
        self.rng = random.Random(_salted(self.salt + " noise", seed))

    def decide(self, view: PlayerView, legal: Sequence[Action]) -> Action | None:
        """The random bot's answer with probability :data:`NOISE`, else greedy's."""
        if self.rng.random() < NOISE:
            return self.random.decide(view, legal)
        return self.greedy.decide(view, legal)


class NoisyA(NoisyGreedy):
    """:class:`NoisyGreedy` with luck of its own ("A")."""

    salt = "A"


class NoisyB(NoisyGreedy):
    """:class:`NoisyGreedy` with luck of its own ("B")."""

    salt = "B"


# ------------------------------------------------------------------ statistics


def binomial_tail(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p) (exact sum, in logs). Raises
    ValueError unless 0 <= p <= 1."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p must be in [0, 1], not {p}")
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    if p in (0.0, 1.0):
        return 1.0 if p == 1.0 else 0.0
    lp, lq = math.log(p), math.log1p(-p)
    terms = [
        math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * lp + (n - i) * lq
        for i in range(k, n + 1)
    ]
    top = max(terms)
    return min(1.0, math.exp(top) * sum(math.exp(t - top) for t in terms))


def clopper_pearson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """The exact (Clopper-Pearson) ``level`` interval of a proportion ``k / n``
    (found by bisection on :func:`binomial_tail`). Raises ValueError unless
    0 <= k <= n and n >= 1."""
    if n < 1 or not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n and n >= 1, not k={k}, n={n}")
    tail = (1.0 - level) / 2

    def solve(increasing: Any, target: float) -> float:  # its p in [0, 1] reaching target
        lo, hi = 0.0, 1.0
        for _ in range(100):
            mid = (lo + hi) / 2
            if increasing(mid) < target:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2

    # low: P(X >= k) = tail; high: P(X <= k) = tail, i.e. P(X >= k + 1) = 1 - tail
    low = 0.0 if k == 0 else solve(lambda p: binomial_tail(k, n, p), tail)
    high = 1.0 if k == n else solve(lambda p: binomial_tail(k + 1, n, p), 1.0 - tail)
    return low, high


def false_positives(accepted: int, runs: int, alpha: float) -> dict[str, Any]:
    """The A/A verdict on ``accepted`` H1 of ``runs`` SPRTs whose promised
    false-positive rate is ``alpha``: ``rate``, its 95% interval ``ci95``
    (Clopper-Pearson) and ``p_value``, P(X >= accepted) for X ~
    Binomial(runs, alpha): small when the SPRT accepts H1 more often than it
    promises. Raises ValueError for counts that make no proportion."""
    low, high = clopper_pearson(accepted, runs)
    return {
        "accepted": accepted,
        "runs": runs,
        "alpha": alpha,
        "rate": accepted / runs,
        "ci95": [low, high],
        "p_value": binomial_tail(accepted, runs, alpha),
    }


# ------------------------------------------------------------------ the runs


def _one_run(seed: int, spec: dict[str, Any], max_games: int) -> dict[str, Any]:
    """One SPRT of the A/A test (in this process; a worker of the pool runs it)."""
    from unoplay.game.rules import preset

    from .config import MatchConfig
    from .entrants import parse_entrants
    from .runner import run_match

    report = asyncio.run(
        run_match(
            MatchConfig(
                tuple(parse_entrants(ENTRANTS)),
                max_games,
                seed,
                preset("official").replace(target_score=0),
                workers="inline",
                sprt=SprtSpec(**spec),
            )
        )
    )
    sprt = report["sprt"]
    return {
        "seed": seed,
        "decision": sprt["decision"],
        "deals": sprt["observations"],
        "games": report["played"],
        "llr": sprt["llr"],
    }


def run_aa(
    runs: int,
    seed: int,
    spec: SprtSpec,
    max_games: int,
    jobs: int = 1,
    progress: Any = None,
) -> dict[str, Any]:
    """Play ``runs`` SPRTs (``jobs`` at once, each in a process of its own
    when more than one) of :data:`ENTRANTS` under ``spec``, run ``i`` seeded
    ``seed + i * max_games`` and stopped undecided at ``max_games`` games;
    returns the runs, their verdict (:func:`false_positives` against
    ``spec.alpha``), H0 and undecided counts, deals per run and seconds.
    ``progress(done, run)`` is called after each run."""
    started = time.monotonic()
    seeds = [seed + i * max_games for i in range(runs)]
    done: list[dict[str, Any]] = []
    if jobs <= 1:
        for s in seeds:
            done.append(_one_run(s, spec.to_dict(), max_games))
            if progress is not None:
                progress(len(done), done[-1])
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed

        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(jobs, mp_context=context) as pool:
            futures = [pool.submit(_one_run, s, spec.to_dict(), max_games) for s in seeds]
            for future in as_completed(futures):
                done.append(future.result())
                if progress is not None:
                    progress(len(done), done[-1])
    done.sort(key=lambda r: r["seed"])
    decisions = [r["decision"] for r in done]
    deals = [r["deals"] for r in done]
    return {
        "entrants": ENTRANTS.split(","),
        "noise": NOISE,
        "spec": spec.to_dict(),
        "spec_text": spec.describe(),
        "seeds": {"first": seed, "spacing": max_games},
        "max_games": max_games,
        "h1": decisions.count("H1"),
        "h0": decisions.count("H0"),
        "undecided": decisions.count(None),
        "verdict": false_positives(decisions.count("H1"), runs, spec.alpha),
        "deals": {
            "median": statistics.median(deals),
            "mean": statistics.fmean(deals),
            "max": max(deals),
        },
        "games": sum(r["games"] for r in done),
        "seconds": time.monotonic() - started,
        "runs": done,
    }


def describe(result: dict[str, Any]) -> list[str]:
    """The A/A test's result for people."""
    v = result["verdict"]
    low, high = v["ci95"]
    return [
        f"A/A: {v['runs']} SPRTs ({result['spec_text']}) of two equal bots "
        f"(greedy, a random move {result['noise']:.0%} of the time, luck of their own), "
        f"2 seats, single rounds; seeds {result['seeds']['first']} + i * "
        f"{result['seeds']['spacing']}",
        f"H1 accepted (false positives): {v['accepted']} of {v['runs']} = {v['rate']:.1%} "
        f"(95%: {low:.1%} .. {high:.1%}); one-sided binomial test of rate <= "
        f"alpha {v['alpha']:g}: p = {v['p_value']:.3g}",
        f"H0 accepted: {result['h0']}; undecided at {result['max_games']} games: "
        f"{result['undecided']}; deals per run: median {result['deals']['median']:g}, "
        f"mean {result['deals']['mean']:.0f}, max {result['deals']['max']}; "
        f"{result['games']} games in {result['seconds']:.0f} s",
    ]


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m unoplay.client.match.aa``: returns the exit code (0; 1 when
    the binomial test rejects "at most alpha" at the 1% level)."""
    parser = argparse.ArgumentParser(
        prog="python -m unoplay.client.match.aa",
        description="A/A test of uno match --sprt: SPRTs between two bots of equal "
        "strength; the rate of H1 against the test's alpha.",
    )
    parser.add_argument("--runs", type=int, default=400, help="SPRTs to play (default 400)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first run")
    parser.add_argument("--elo1", type=float, default=50.0, help="H1's Elo (elo0 is 0)")
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--beta", type=float, default=0.05)
    parser.add_argument(
        "--max-games",
        type=int,
        default=4000,
        help="a run still undecided at this many games stops (also the seeds' spacing)",
    )
    parser.add_argument("--jobs", type=int, default=1, help="SPRTs at once (processes)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    if args.runs < 1 or args.max_games < 2 or args.jobs < 1:
        parser.error("--runs, --jobs: 1 or more; --max-games: 2 or more")
    try:
        spec = SprtSpec(elo0=0.0, elo1=args.elo1, alpha=args.alpha, beta=args.beta)
    except ValueError as err:
        parser.error(str(err))

    def progress(done: int, run: dict[str, Any]) -> None:
        print(
            f"aa: {done}/{args.runs}: seed {run['seed']}: {run['decision'] or 'undecided'} "
            f"after {run['deals']} deals",
            file=sys.stderr,
            flush=True,
        )

    result = run_aa(args.runs, args.seed, spec, args.max_games, args.jobs, progress)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print("\n".join(describe(result)))
    return 1 if result["verdict"]["p_value"] < 0.01 else 0


if __name__ == "__main__":
    sys.exit(main())
