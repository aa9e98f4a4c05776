"""The sequential probability ratio test that stops a match once it has decided.

**The model.** Elo for more than two players, in the form of Luce's choice
axiom (R. D. Luce, *Individual Choice Behavior*, 1959), the first place of
a Plackett-Luce ranking (R. L. Plackett, "The analysis of permutations",
1975; also what OpenSkill's PlackettLuce model rates): a player of strength
``r = 10^(elo/400)`` wins a game against ``k - 1`` players of strength 1
with probability ``r / (r + k - 1)``; with ``c`` copies of it at the table,
one of them wins with probability ``c r / (c r + k - c)``. At two seats this
is the logistic Elo of chess without draws (elo 0: 50%); at four seats
against a field, elo 0 is a 25% share and elo 10 is 25.9%. The candidate is
the match's first entrant and the field everyone else: the statistic is the
candidate's share of the wins, per game, or per deal with ``--duplicate``
(the share of a deal's games it won), so a deal's correlated games count as
one observation, as fishtest's pentanomial model does for game pairs. Ties
for first share the win.

**The test.** The generalized SPRT of fishtest (M. Van den Bergh, "A
practical introduction to the GSPRT", and fishtest's ``LLRcalc.py``): the
observations are a multinomial over the scores seen; under each hypothesis
the distribution is the maximum-likelihood one with the hypothesis' mean
score (``s0`` for ``elo0``, ``s1`` for ``elo1``), and the log-likelihood
ratio is ``N * sum p_i ln(p1_i / p0_i)``. With only wins and losses this is
exactly Wald's SPRT for a Bernoulli variable (A. Wald, *Sequential Analysis*,
1947): ``W ln(s1/s0) + L ln((1-s1)/(1-s0))``. The match stops when the LLR
leaves ``(ln(beta/(1-alpha)), ln((1-beta)/alpha))``: at the upper bound H1
(the candidate is at least ``elo1`` better) is accepted, at the lower H0.

The win-rate form ``p0=0.25 p1=0.27`` gives the two mean scores directly.
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


def expected_score(elo: float, seats: int, copies: int = 1) -> float:
    """The share of wins of ``copies`` players ``elo`` stronger than the
    other ``seats - copies`` (Luce's choice model; see the module docstring)."""
    r = 10.0 ** (elo / 400.0)
    return copies * r / (copies * r + seats - copies)


def elo_of_score(score: float, seats: int, copies: int = 1) -> float:
    """The inverse of :func:`expected_score`: the Elo difference that gives
    ``score``; +-inf at 1 and 0."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return 400.0 * math.log10(score * (seats - copies) / (copies * (1.0 - score)))


@dataclass(frozen=True)
class SprtSpec:
    """The two hypotheses and the error rates: ``elo0``/``elo1`` (Elo of the
    candidate over the field, :func:`expected_score`), or the win-rate form
    ``p0``/``p1`` (mean scores themselves) when given."""

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
            raise ValueError("the win-rate form needs both p0 and p1")
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

    def scores(self, seats: int, copies: int = 1) -> tuple[float, float]:
        """(s0, s1): the mean scores under H0 and H1 at tables of ``seats``
        with ``copies`` of the candidate."""
        if self.p0 is not None and self.p1 is not None:
            return self.p0, self.p1
        return expected_score(self.elo0, seats, copies), expected_score(self.elo1, seats, copies)

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
        default) or ``p0=0.25 p1=0.27 ...``. Raises ValueError."""
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


@dataclass
class Sprt:
    """A running test: feed each observation (a score in 0..1) to :meth:`add`;
    ``decision`` becomes "H1" or "H0" when the LLR crosses a bound."""

    spec: SprtSpec
    s0: float
    s1: float
    counts: dict[float, float] = field(default_factory=dict)
    n: int = 0
    llr: float = 0.0
    decision: str = ""  #: "", "H0" (not better than elo0) or "H1" (at least elo1)

    def add(self, score: float) -> str:
        """One more observation; returns the decision so far."""
        key = round(min(1.0, max(0.0, score)), 9)
        self.counts[key] = self.counts.get(key, 0) + 1
        self.n += 1
        self.llr = llr(self.counts, self.s0, self.s1)
        if not self.decision:
            if self.llr >= self.spec.upper:
                self.decision = "H1"
            elif self.llr <= self.spec.lower:
                self.decision = "H0"
        return self.decision

    @property
    def mean(self) -> float:
        """The mean score observed."""
        return sum(k * v for k, v in self.counts.items()) / self.n if self.n else 0.0

    def status(self) -> str:
        """A line for people: the LLR, the bounds and the decision."""
        line = f"LLR {self.llr:+.2f} ({self.spec.lower:+.2f}, {self.spec.upper:+.2f})"
        if self.decision == "H1":
            line += ": H1 accepted"
        elif self.decision == "H0":
            line += ": H0 accepted"
        return line

    def to_dict(self) -> dict[str, Any]:
        """The test so far (JSON): its hypotheses, observations, mean score, LLR, bounds and
        decision."""
        return {
            "spec": self.spec.to_dict(),
            "s0": self.s0,
            "s1": self.s1,
            "observations": self.n,
            "mean_score": self.mean,
            "llr": self.llr,
            "lower": self.spec.lower,
            "upper": self.spec.upper,
            "decision": self.decision,
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
