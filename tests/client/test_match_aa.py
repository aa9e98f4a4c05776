"""The A/A test's statistics (client/match/aa.py): the one-sided binomial
test and the Clopper-Pearson interval, against values from SciPy
(``binom.sf(k - 1, n, p)``, ``beta.ppf``). The A/A run itself is not a
test: ``python -m unoplay.client.match.aa`` (README, "The SPRT's model")."""

from __future__ import annotations

import pytest

from unoplay.client.match.aa import binomial_tail, clopper_pearson, false_positives


@pytest.mark.parametrize(
    ("accepted", "runs", "low", "high", "p_value"),
    [
        (0, 100, 0.0, 0.03621669264517641, 1.0),
        (5, 100, 0.016431879182052155, 0.11283491110546275, 0.5640186993142899),
        (9, 200, 0.020780422227004353, 0.08370268807585404, 0.6729755365865497),
        (15, 100, 0.08645438564164859, 0.23530750014895488, 0.00013585423899229154),
        (100, 100, 0.9637833073548235, 1.0, 7.888609052210162e-131),
    ],
)
def test_false_positives_against_scipy(accepted, runs, low, high, p_value):
    verdict = false_positives(accepted, runs, 0.05)
    assert verdict["rate"] == accepted / runs
    assert verdict["ci95"] == pytest.approx([low, high], abs=1e-12)
    assert verdict["p_value"] == pytest.approx(p_value, rel=1e-9)


def test_the_tail_and_the_interval_at_their_edges():
    assert binomial_tail(0, 10, 0.3) == 1.0 and binomial_tail(11, 10, 0.3) == 0.0
    assert binomial_tail(3, 10, 0.0) == 0.0 and binomial_tail(3, 10, 1.0) == 1.0
    assert binomial_tail(10, 10, 0.5) == pytest.approx(0.5**10)
    assert clopper_pearson(0, 1) == (0.0, pytest.approx(0.975))
    with pytest.raises(ValueError):
        clopper_pearson(3, 2)
    with pytest.raises(ValueError):
        binomial_tail(1, 2, 1.5)
