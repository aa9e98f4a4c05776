"""A picture of an SPRT run (``uno match --plot FILE``): the LLR's path
against its two bounds, and the candidate's Elo estimate over the baseline
with its 95% interval, both against the games played.

Drawn with matplotlib (the ``plot`` extra: ``pip install 'unoplay[plot]'``),
without a display (its Agg backend); the file's suffix picks the format
(``.svg``, ``.png``, ``.pdf``).
"""

from __future__ import annotations

from pathlib import Path

from .sprt import Sprt


def plot_sprt(test: Sprt, path: str | Path, title: str = "") -> Path:
    """Draw ``test``'s path into ``path`` (two panels sharing the games
    axis) and return it. Raises ValueError when matplotlib is missing or
    the suffix is not an image format it writes."""
    try:
        import matplotlib
    except ImportError:
        raise ValueError(
            "--plot needs matplotlib, the plot extra: pip install 'unoplay[plot]'"
        ) from None
    matplotlib.use("Agg")
    from matplotlib import pyplot

    path = Path(path)
    points = test.path
    games = [0] + [p.games for p in points]
    spec = test.spec
    figure, (top, bottom) = pyplot.subplots(2, 1, sharex=True, figsize=(8, 6))
    try:
        top.plot(games, [0.0] + [p.llr for p in points], color="tab:blue", label="LLR")
        top.axhline(spec.upper, color="tab:green", linestyle="--", label=f"H1 {spec.upper:+.2f}")
        top.axhline(spec.lower, color="tab:red", linestyle="--", label=f"H0 {spec.lower:+.2f}")
        if test.decision:
            top.annotate(
                f"{test.decision} accepted",
                (games[-1], test.llr),
                textcoords="offset points",
                xytext=(-10, 10 if test.decision == "H1" else -16),
                ha="right",
            )
        top.set_ylabel("log-likelihood ratio")
        top.legend(loc="upper left", fontsize="small")
        top.grid(alpha=0.3)
        shown = [p for p in points if p.elo is not None]
        xs = [p.games for p in shown]
        bottom.plot(xs, [p.elo for p in shown], color="tab:purple", label="Elo estimate")
        bounded = [p for p in shown if p.elo_low is not None and p.elo_high is not None]
        bottom.fill_between(
            [p.games for p in bounded],
            [p.elo_low for p in bounded],
            [p.elo_high for p in bounded],
            color="tab:purple",
            alpha=0.2,
            label="95% interval",
        )
        if spec.p0 is None:
            bottom.axhline(spec.elo0, color="tab:red", linestyle=":", label=f"elo0 {spec.elo0:g}")
            bottom.axhline(spec.elo1, color="tab:green", linestyle=":", label=f"elo1 {spec.elo1:g}")
        bottom.set_xlabel("games")
        bottom.set_ylabel("Elo, candidate - baseline")
        bottom.legend(loc="upper left", fontsize="small")
        bottom.grid(alpha=0.3)
        if title:
            figure.suptitle(title)
        figure.tight_layout()
        try:
            figure.savefig(path)
        except ValueError as err:  # an unknown suffix
            raise ValueError(f"--plot {path}: {err}") from None
    finally:
        pyplot.close(figure)
    return path
