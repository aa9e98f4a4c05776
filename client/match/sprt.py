"""The sequential probability ratio test that stops a match once it has
decided whether the candidate is better than the baseline.

**The question.** "Is the candidate (by default the first entrant) better
than the baseline (by default the second)?", asked at tables of any size.
The field (the other entrants) plays against both, so its strength must not
enter the answer. This is fishtest's design of game pairs (the same opening
played with colours swapped) carried to N seats: every deal is played twice
(or more: :mod:`.schedule`, ``pairs``) with the candidate and the baseline
swapped, each in the other's seat, against the same field in the same seats
with the same cards. Whatever a seat or a deal is worth, both had it.

**The observation.** A game's head-to-head score is 1 when the candidate
won it, 0 when the baseline did, and 1/2 when neither did (another seat
won, or they tied for first): ``1/2 + (credit_c - credit_b) / 2``. A deal's
observation is the mean score of its games, so its correlated games count
as one observation, as fishtest's pentanomial model counts a game pair (a
pair of two games: 0, 1/4, 1/2, 3/4 or 1). At two seats this is exactly
chess's pair of games with colours reversed, a field win being a draw.

**The Elo.** Logistic, as in chess: a score ``s`` is
``-400 log10(1/s - 1)`` Elo (0.5: 0; 0.64: +100). Games the field wins
count as draws, so at tables where the field often wins the same skill gap
shows a smaller Elo; the sign and the test's error rates are unaffected.
The estimate's 95% interval is the normal interval of the mean deal score
(the pentanomial variance), mapped to Elo.

**The test.** The generalized SPRT of fishtest (M. Van den Bergh, "A
practical introduction to the GSPRT", and fishtest's ``LLRcalc.py``): the
observations are a multinomial over the scores seen; under each hypothesis
the distribution is the maximum-likelihood one with the hypothesis' mean
score (``s0`` for ``elo0``, ``s1`` for ``elo1``), and the log-likelihood
ratio is ``N * sum p_i ln(p1_i / p0_i)``. With only wins and losses this is
exactly Wald's SPRT for a Bernoulli variable (A. Wald, *Sequential Analysis*,
1947). The match stops when the LLR leaves
``(ln(beta/(1-alpha)), ln((1-beta)/alpha))``: at the upper bound H1 (the
candidate is at least ``elo1`` better) is accepted, at the lower H0. The
verdict is the crossing itself: once decided, the test takes no more
observations (games in flight at that moment are reported apart).

The score form ``p0=0.5 p1=0.52`` gives the two mean scores directly.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

#: Pseudo-count given to the extreme scores 0 and 1 when they were not seen,
#: so that the MLE under both hypotheses exists from the first observation
#: (fishtest regularizes its counts in the same way).
REGULARIZE = 1e-3
#: The normal quantile of a two-sided 95% interval.
Z95 = 1.959963984540054


def expected_score(elo: float) -> float:
    """The head-to-head score (0..1) of a player ``elo`` stronger: logistic Elo."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_of_score(score: float) -> float:
    """The inverse of :func:`expected_score`: the Elo difference that gives
    ``score``; -inf at 0 and +inf at 1."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0  # + 0.0: never -0.0


@dataclass(frozen=True)
class SprtSpec:
    """The two hypotheses and the error rates: ``elo0``/``elo1`` (logistic
    Elo of the candidate over the baseline), or the score form ``p0``/``p1``
    (mean head-to-head scores themselves) when given. Raises ValueError for
    rates outside (0, 1) or hypotheses in the wrong order."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    p0: float | None = None
    p1: float | None = None

    def __post_init__(self) -> None:
        if not (0 < self.alpha < 1 and 0 < self.beta < 1):
            raise ValueError("alpha and beta must be between 0 and 1")
        if (self.p0 is None) != (self.p1 is None):
            raise ValueError("the score form needs both p0 and p1")
        if self.p0 is not None and self.p1 is not None:
            if not 0 < self.p0 < self.p1 < 1:
                raise ValueError("p0 and p1 need 0 < p0 < p1 < 1")
        elif not self.elo0 < self.elo1:
            raise ValueError("elo0 must be below elo1")

    @property
    def lower(self) -> float:
        """The LLR at which H0 is accepted."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """The LLR at which H1 is accepted."""
        return math.log((1 - self.beta) / self.alpha)

    def scores(self) -> tuple[float, float]:
        """(s0, s1): the mean head-to-head scores under H0 and H1."""
        if self.p0 is not None and self.p1 is not None:
            return self.p0, self.p1
        return expected_score(self.elo0), expected_score(self.elo1)

    def describe(self) -> str:
        """The hypotheses and error rates as ``--sprt`` takes them."""
        if self.p0 is not None:
            form = f"p0={self.p0:g} p1={self.p1:g}"
        else:
            form = f"elo0={self.elo0:g} elo1={self.elo1:g}"
        return f"{form} alpha={self.alpha:g} beta={self.beta:g}"

    def to_dict(self) -> dict[str, Any]:
        """Plain values (JSON)."""
        return asdict(self)

    @classmethod
    def parse(cls, tokens: Iterable[str]) -> SprtSpec:
        """From ``elo0=0 elo1=10 alpha=0.05 beta=0.05`` (any subset; the rest
        default) or ``p0=0.5 p1=0.52 ...``. Raises ValueError."""
        values: dict[str, float] = {}
        for token in tokens:
            for part in token.replace(",", " ").split():
                key, sep, text = part.partition("=")
                if not sep or key not in ("elo0", "elo1", "alpha", "beta", "p0", "p1"):
                    raise ValueError(
                        f"--sprt takes elo0=, elo1=, alpha=, beta= (or p0=, p1=), not {part!r}"
                    )
                try:
                    values[key] = float(text)
                except ValueError:
                    raise ValueError(f"--sprt {key}: not a number: {text!r}") from None
        return cls(**values)  # type: ignore[arg-type]


def _constrained(values: Sequence[float], probs: Sequence[float], mean: float) -> list[float]:
    """The distribution over ``values`` closest to ``probs`` (maximum
    likelihood) whose mean is ``mean``: ``p_i / (1 + x (a_i - mean))`` with
    ``x`` the root of ``f(x) = sum p_i (a_i - mean) / (1 + x (a_i - mean))``,
    a decreasing function on the interval where every denominator is
    positive (Newton's method, kept inside it by bisection). Needs
    ``min(values) < mean < max(values)``."""
    if len(values) == 2:  # two outcomes: the mean decides the distribution
        a, b = values
        q = (mean - a) / (b - a)
        return [1 - q, q]
    d = [a - mean for a in values]
    lo = -1.0 / max(d)
    hi = -1.0 / min(d)
    x = 0.0
    for _ in range(100):
        terms = [1 + x * di for di in d]
        f = sum(p * di / t for p, di, t in zip(probs, d, terms))
        if abs(f) < 1e-14:
            break
        if f > 0:
            lo = x
        else:
            hi = x
        slope = -sum(p * di * di / (t * t) for p, di, t in zip(probs, d, terms))
        step = x - f / slope if slope < 0 else (lo + hi) / 2
        x = step if lo < step < hi else (lo + hi) / 2
    return [p / (1 + x * di) for p, di in zip(probs, d)]


def llr(counts: dict[float, float], s0: float, s1: float) -> float:
    """The GSPRT log-likelihood ratio of observations with these ``counts``
    (score -> how many) between mean scores ``s0`` and ``s1``; 0 for none."""
    n = sum(counts.values())
    if n == 0:
        return 0.0
    regular = dict(counts)
    for extreme in (0.0, 1.0):
        regular.setdefault(extreme, REGULARIZE)
    values = sorted(regular)
    total = sum(regular.values())
    probs = [regular[v] / total for v in values]
    p0 = _constrained(values, probs, s0)
    p1 = _constrained(values, probs, s1)
    return n * sum(p * math.log(b / a) for p, a, b in zip(probs, p0, p1) if p > 0)


@dataclass(frozen=True)
class Point:
    """The test after one more observation: a point of its path (for ``--plot``)."""

    observations: int
    games: int  #: games behind those observations
    llr: float
    elo: float | None  #: the estimate (None: not finite yet)
    elo_low: float | None  #: its 95% interval (None: unbounded)
    elo_high: float | None


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


@dataclass
class Sprt:
    """A running test: feed each observation (a deal's mean head-to-head
    score, 0..1, and its number of games) to :meth:`add`; ``decision``
    becomes "H1" or "H0" when the LLR crosses a bound, and from then on the
    test is frozen (:meth:`add` raises ValueError)."""

    spec: SprtSpec
    counts: dict[float, float] = field(default_factory=dict)
    n: int = 0  #: observations (deals)
    games: int = 0  #: games behind them
    llr: float = 0.0
    decision: str = ""  #: "", "H0" (not better than elo0) or "H1" (at least elo1)
    path: list[Point] = field(default_factory=list)
    _sum: float = 0.0
    _squares: float = 0.0

    @property
    def s0(self) -> float:
        """The mean score under H0."""
        return self.spec.scores()[0]

    @property
    def s1(self) -> float:
        """The mean score under H1."""
        return self.spec.scores()[1]

    def add(self, score: float, games: int = 1) -> str:
        """One more observation (``games``: how many games it stands for);
        returns the decision so far. Raises ValueError once decided."""
        if self.decision:
            raise ValueError(f"the test has decided ({self.decision}): it takes no more")
        score = min(1.0, max(0.0, score))
        key = round(score, 9)
        self.counts[key] = self.counts.get(key, 0) + 1
        self.n += 1
        self.games += games
        self._sum += score
        self._squares += score * score
        s0, s1 = self.spec.scores()
        self.llr = llr(self.counts, s0, s1)
        if self.llr >= self.spec.upper:
            self.decision = "H1"
        elif self.llr <= self.spec.lower:
            self.decision = "H0"
        elo, low, high = self.elo_interval()
        self.path.append(Point(self.n, self.games, self.llr, elo, low, high))
        return self.decision

    @property
    def mean(self) -> float:
        """The mean score observed (0.5 before any)."""
        return self._sum / self.n if self.n else 0.5

    def score_interval(self, z: float = Z95) -> tuple[float, float, float]:
        """(mean, low, high): the normal interval of the mean observation
        (clipped to 0..1); (mean, 0, 1) with fewer than two observations."""
        n = self.n
        mean = self.mean
        if n < 2:
            return mean, 0.0, 1.0
        var = max(0.0, (self._squares - n * mean * mean) / (n - 1))
        half = z * math.sqrt(var / n)
        return mean, max(0.0, mean - half), min(1.0, mean + half)

    def elo_interval(self) -> tuple[float | None, float | None, float | None]:
        """(estimate, low, high) in Elo of the candidate over the baseline,
        95%; None where it is not finite (no observation against a bound)."""
        mean, low, high = self.score_interval()
        return _finite(elo_of_score(mean)), _finite(elo_of_score(low)), _finite(elo_of_score(high))

    def status(self) -> str:
        """A line for people: the LLR, the bounds and the decision."""
        line = f"LLR {self.llr:+.2f} ({self.spec.lower:+.2f}, {self.spec.upper:+.2f})"
        if self.decision == "H1":
            line += ": H1 accepted"
        elif self.decision == "H0":
            line += ": H0 accepted"
        return line

    def to_dict(self) -> dict[str, Any]:
        """The test (JSON): hypotheses, observations and their games, the
        counts of each deal score, mean score, LLR, bounds, decision ("H0",
        "H1" or None), the Elo estimate and its 95% interval ([low, high],
        None where unbounded), and that interval as mean scores."""
        elo, low, high = self.elo_interval()
        s0, s1 = self.spec.scores()
        _mean, score_low, score_high = self.score_interval()
        return {
            "spec": self.spec.to_dict(),
            "s0": s0,
            "s1": s1,
            "observations": self.n,
            "games": self.games,
            "counts": {f"{k:g}": v for k, v in sorted(self.counts.items())},
            "mean_score": self.mean,
            "score_interval": [score_low, score_high],
            "llr": self.llr,
            "lower": self.spec.lower,
            "upper": self.spec.upper,
            "decision": self.decision or None,
            "elo": elo,
            "elo_interval": [low, high],
        }


def wald_expected_units(spec: SprtSpec, s: float, s0: float, s1: float) -> float:
    """Wald's approximation of the expected number of Bernoulli observations
    before the test decides, when the true mean score is ``s`` (for checking
    the test; the real counts run a little higher, as the LLR overshoots)."""
    a = math.log(s1 / s0)
    b = math.log((1 - s1) / (1 - s0))
    drift = s * a + (1 - s) * b
    big_a, big_b = spec.upper, spec.lower  # ln A, ln B

    def moment(h: float) -> float:  # E[exp(h * step)] - 1
        return s * math.exp(h * a) + (1 - s) * math.exp(h * b) - 1

    if abs(drift) < 1e-12:
        return -big_a * big_b / (s * a * a + (1 - s) * b * b)
    # The non-zero root h of moment(h) = 0 has the sign opposite to the drift.
    lo, hi = (1e-9, 1.0) if drift < 0 else (-1.0, -1e-9)
    while moment(hi if drift < 0 else lo) < 0:
        if drift < 0:
            hi *= 2
        else:
            lo *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if (moment(mid) < 0) == (drift < 0):
            lo = mid
        else:
            hi = mid
    h = (lo + hi) / 2
    accept_h0 = (math.exp(h * big_a) - 1) / (math.exp(h * big_a) - math.exp(h * big_b))
    return (accept_h0 * big_b + (1 - accept_h0) * big_a) / drift
