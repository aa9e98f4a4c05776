"""The match report: a dict for machines (``--json``) and rich tables for people.

The rating is OpenSkill's Plackett-Luce ordinal, ``mu - 3 sigma``: a
conservative skill estimate (99.7% of the belief lies above it), on
OpenSkill's scale (a new player is 25 +- 8.33, so an ordinal of 0).
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Sequence
from typing import IO, Any

from unoplay.game.rules import RuleSet, Scoring, differences, preset_name

from .entrants import describe_change
from .result import STATUSES
from .sprt import Sprt, elo_of_score
from .stats import MatchStats, mean_interval, wilson_interval

#: Games listed by number under the tables, for each kind kept apart.
LISTED = 8


def build_report(
    stats: MatchStats,
    rules: RuleSet,
    *,
    seed: int,
    planned: int,
    played_now: int,
    elapsed: float,
    concurrency: int,
    workers: str,
    sprt: Sprt | None = None,
    pair: tuple[int, int] = (0, 1),
    after_decision: Sequence[int] = (),
    stopped: str = "",
    match_id: int | None = None,
    out: str | None = None,
    lost_workers: int = 0,
    most_running: int = 0,
    workers_left: Sequence[dict[str, str]] = (),
    code_changes: Sequence[dict[str, Any]] = (),
) -> dict[str, Any]:
    """The report of a match (every figure the tables show, and more).

    ``concurrency`` is the number of workers (each plays one game at a
    time), ``most_running`` the most games they held at one time;
    ``elapsed`` is in seconds, ``played_now`` the games of this run (not
    those resumed from the file). With ``sprt``, ``pair`` is its (candidate,
    baseline) and ``after_decision`` the games that finished after it
    decided (in flight then: not part of the verdict). ``workers_left``:
    the workers that could not be replaced after a loss (``worker``,
    ``why``); ``code_changes``: the resumes that played on with changed code
    (``--allow-changed``: ``at``, ``games_before``, ``entrants`` as
    :func:`.entrants.code_changes` gives them)."""
    entrants = stats.entrants
    ratings = stats.ratings()
    duplicate = bool(stats.schedule.duplicate)
    report: dict[str, Any] = {
        "games": planned,
        "played": len(stats.results),
        "played_now": played_now,
        "seed": seed,
        "rules": rules.to_dict(),
        "schedule": stats.schedule.kind,
        "schedule_text": stats.schedule.describe(),
        "table_size": stats.schedule.table_size,
        "duplicate": stats.schedule.duplicate,
        "workers": workers,
        "concurrency": concurrency,
        "most_running": most_running,
        "elapsed": elapsed,
        "games_per_second": played_now / elapsed if elapsed > 0 else 0.0,
        "stopped": stopped,
        "match_id": match_id,
        "out": out,
        "lost_workers": lost_workers,
        "workers_left": [dict(w) for w in workers_left],
        "code_changes": [dict(c) for c in code_changes],
        "counts": stats.summary(),
        "rating": "OpenSkill Plackett-Luce ordinal: mu - 3 sigma",
        "entrants": [],
    }
    for i, e in enumerate(entrants):
        t = stats.totals[i]
        low, high = wilson_interval(t.wins, t.games)
        mu, sigma, ordinal = ratings[i]
        row: dict[str, Any] = {
            "label": e.label,
            "kind": e.kind or " ".join(e.command),
            "games": t.games,
            "wins": t.wins,
            "win_rate": t.win_rate,
            "ci95": [low, high],
            "mean_score": t.mean_score,
            "rating_mu": mu,
            "rating_sigma": sigma,
            "rating": ordinal,
            "decisions": t.decisions,
            "ms_per_decision": t.ms_per_decision,
            "timeouts": t.timeouts,
            "illegal_forfeits": t.illegal_forfeits,
            "forfeits": t.forfeits,
            "refusals": t.refusals,
            "races_lost": t.races,
            "stand_in_games": t.stand_in,
            "crashes": t.crashes,
            "adjudicated": t.adjudicated,
            "void": t.void,
            "by_seat": [
                stats.by_seat[(i, s)].win_rate if (i, s) in stats.by_seat else None
                for s in range(stats.schedule.table_size)
            ],
        }
        if duplicate:
            scores = stats.deal_scores(i)
            mean, dlow, dhigh = mean_interval(scores)
            row.update(deals=len(scores), deal_score=mean, deal_ci95=[dlow, dhigh])
        report["entrants"].append(row)
    report["seats"] = [
        {
            "seat": s,
            "games": t.games,
            "wins": t.wins,
            "win_rate": t.win_rate,
            "mean_score": t.mean_score,
        }
        for s, t in enumerate(stats.seats)
    ]
    report["head_to_head"] = [
        [
            None
            if a == b or (a, b) not in stats.head
            else {
                "games": stats.head[(a, b)][0],
                "wins": stats.head[(a, b)][1],
                "losses": stats.head[(a, b)][2],
            }
            for b in range(len(entrants))
        ]
        for a in range(len(entrants))
    ]
    if duplicate:
        complete = stats.complete_deals()
        report["deals"] = {
            "complete": len(complete),
            "incomplete": len(stats.deal_results) - len(complete),
        }
    if sprt is not None:
        info = sprt.to_dict()
        info["candidate"] = entrants[pair[0]].label
        info["baseline"] = entrants[pair[1]].label
        info["spec_text"] = sprt.spec.describe()
        info["after_decision"] = sorted(after_decision)
        report["sprt"] = info
    report["apart"] = {
        status: [
            {"game": r.index, "seed": r.seed, "reason": r.reason, "crash": r.crash}
            for r in sorted(stats.results.values(), key=lambda r: r.index)
            if r.status == status
        ]
        for status in STATUSES
        if status != "finished"
    }
    return report


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.1%}"


def report_width(out: IO[str]) -> int | None:
    """The report's width: ``COLUMNS`` when set, else the terminal's (None:
    rich asks it), else wide enough that nothing is cut when piped."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    return None if out.isatty() else 1000


def _elo(score: float) -> str:
    """A mean score as Elo for people (+inf and -inf at the ends)."""
    value = elo_of_score(score)
    return f"{value:+.1f}" if math.isfinite(value) else ("+inf" if value > 0 else "-inf")


def _elo_interval(s: dict[str, Any]) -> str:
    """The SPRT's 95% Elo interval for people, or what stands for it: too
    few deals (under two), no variance yet (every deal scored alike), an
    end unbounded (a score interval reaching 0 or 1)."""
    low, high = s["score_interval"]
    if s["observations"] < 2:
        return f"too few deals for an interval: {s['observations']}"
    if low == high:
        return f"no variance yet: every deal scored {s['mean_score']:g}"
    ends = [_elo(x) if 0 < x < 1 else "unbounded" for x in (low, high)]
    return f"95%: {ends[0]} .. {ends[1]}"


def _deal_interval(e: dict[str, Any]) -> str:
    """An entrant's 95% interval over deals for people (as :func:`_elo_interval`)."""
    low, high = e.get("deal_ci95", (0.0, 1.0))
    if e.get("deals", 0) < 2:
        return "too few deals"
    return "no variance yet" if low == high else f"{low:.1%}..{high:.1%}"


def sprt_lines(s: dict[str, Any]) -> list[str]:
    """The SPRT's part of the report for people: the question, the verdict
    at its crossing, the Elo difference with its interval, the deal scores
    seen and the games that finished after the decision."""
    decided = s["decision"]
    games = f"{s['observations']} deals ({s['games']} games)"
    if decided:
        bound = s["upper"] if decided == "H1" else s["lower"]
        verdict = (
            f"{decided} accepted: the LLR reached {s['llr']:+.3f} (bound {bound:+.3f}) "
            f"after {games}"
        )
    else:
        verdict = f"undecided: LLR {s['llr']:+.3f} in ({s['lower']:+.3f}, {s['upper']:+.3f}) after {games}"
    lines = [
        f"SPRT: is {s['candidate']} better than {s['baseline']}? ({s['spec_text']}; "
        f"a deal is played with the two swapped, against the same field)",
        f"  {verdict}",
        f"  Elo {s['candidate']} - {s['baseline']}: "
        + f"{_elo(s['mean_score'])} ({_elo_interval(s)}), "
        f"mean score {s['mean_score']:.4f}"
        f" (H0 {s['s0']:.4f}, H1 {s['s1']:.4f})",
        "  deal scores (1: candidate won, 0: baseline won, 1/2: neither): "
        + ", ".join(f"{k}: {v:g}" for k, v in s["counts"].items()),
    ]
    after = s.get("after_decision") or []
    if after:
        listed = ", ".join(map(str, after[:LISTED])) + (", ..." if len(after) > LISTED else "")
        lines.append(
            f"  {len(after)} game{'s' if len(after) != 1 else ''} in flight at the decision "
            f"finished after it, not part of the verdict (games {listed})"
        )
    if s.get("plot"):
        lines.append(f"  plot: {s['plot']}")
    return lines


def print_report(report: dict[str, Any], file: IO[str] | None = None) -> None:
    """Tables of the match report for people."""
    from rich.console import Console
    from rich.table import Table

    out = file or sys.stdout
    console = Console(file=out, width=report_width(out))
    rules = RuleSet.from_dict(report["rules"])
    name = preset_name(rules)
    changed = [f"{k}={v}" for k, v in differences(rules)] if name == "custom" else []
    target = f"target {rules.target_score}" if rules.target_score else "one round each"
    counts = report.get("counts", {})
    duplicate = bool(report.get("duplicate"))
    lowest = rules.scoring is Scoring.PENALTY
    played = report.get("played", report["games"])
    title = (
        f"{played} of {report['games']} games, seed {report['seed']}, {name} rules"
        f"{' (' + ', '.join(changed) + ')' if changed else ''}, {target}"
    )
    captions = []
    if "schedule_text" in report:
        captions.append(report["schedule_text"])
    if report.get("concurrency"):
        captions.append(
            f"{report['played_now']} played now, {report['concurrency']} "
            f"worker{'s' if report['concurrency'] != 1 else ''} "
            f"({report['workers']}), at most {report.get('most_running', 0)} games at once, "
            f"{report['elapsed']:.1f} s, {report['games_per_second']:.2f} games/s"
        )
    captions.append("rating: OpenSkill Plackett-Luce ordinal, mu - 3 sigma")
    captions.append("ms/decision: from each action to the one before it, as the server saw it")
    if lowest:
        captions.append("mean score: lower is better (penalty scoring)")
    table = Table(title=title, caption="\n".join(captions))
    rows = report["entrants"]
    columns = ["player", "games", "wins", "win rate", "95% CI"]
    if duplicate:
        columns += ["deals", "deal score", "95% CI (deals)"]
    columns += ["mean score", "rating", "ms/decision"]
    extra = [  # kept apart: shown only when something happened
        (key, col)
        for key, col in (
            ("forfeits", "forfeits (losses)"),
            ("timeouts", "time forfeits"),
            ("illegal_forfeits", "illegal forfeits"),
            ("refusals", "refusals"),
            ("races_lost", "races lost"),
            ("stand_in_games", "stand-in"),
            ("crashes", "crashes"),
        )
        if any(e.get(key) for e in rows)
    ]
    columns += [col for _, col in extra]
    for col in columns:
        table.add_column(col, justify="left" if col == "player" else "right")
    for e in rows:
        low, high = e["ci95"]
        cells = [
            e["label"],
            str(e["games"]),
            f"{e['wins']:g}",
            _pct(e["win_rate"]),
            f"{low:.1%}..{high:.1%}",
        ]
        if duplicate:
            cells += [str(e.get("deals", 0)), _pct(e.get("deal_score")), _deal_interval(e)]
        ms = e.get("ms_per_decision")
        cells += [
            f"{e['mean_score']:.1f}",
            f"{e['rating']:.2f}",
            "-" if ms is None else f"{ms:.2f}",
        ]
        cells += [str(e.get(key, 0)) for key, _ in extra]
        table.add_row(*cells)
    console.print(table)

    if report.get("seats"):
        seats = Table(title="by seat (seat 1 is the first dealt; who starts follows the deal)")
        for col in ("seat", "games", "wins", "win rate", "mean score"):
            seats.add_column(col, justify="right")
        for s in report["seats"]:
            seats.add_row(
                str(s["seat"] + 1),
                str(s["games"]),
                f"{s['wins']:g}",
                _pct(s["win_rate"]),
                f"{s['mean_score']:.1f}",
            )
        console.print(seats)

    entrants = report["entrants"]
    matrix = report.get("head_to_head")
    if matrix and len(entrants) > 2:
        h2h = Table(
            title="head to head: the row's wins - the column's wins, in the games both played"
        )
        h2h.add_column("")
        for e in entrants:
            h2h.add_column(e["label"], justify="right")
        for e, cells in zip(entrants, matrix):
            h2h.add_row(
                e["label"],
                *("·" if c is None else f"{c['wins']:g}-{c['losses']:g}" for c in cells),
            )
        console.print(h2h)

    if "sprt" in report:
        for line in sprt_lines(report["sprt"]):
            console.print(line, markup=False)

    apart = report.get("apart", {})
    words = {
        "adjudicated": "adjudicated (no winner: a round, or the game, reached its cap of "
        "actions; a draw for the SPRT, in no one's win rate)",
        "void": "void (the server played a seat: time forfeit or stand-in; or illegal "
        "actions; a loss for the seat that forfeited)",
        "crashed": "crashed (a loss for the seat that crashed)",
        "error": "not played (errors; not scored)",
    }
    for status, games in apart.items():
        if not games:
            continue
        console.print(f"{counts.get(status, len(games))} {words.get(status, status)}:")
        for g in games[:LISTED]:
            console.print(f"  game {g['game']} (seed {g['seed']}): {g['reason']}", markup=False)
        if len(games) > LISTED:
            console.print(f"  ... and {len(games) - LISTED} more (--json lists them all)")
    if report.get("lost_workers"):
        console.print(
            f"{report['lost_workers']} games were played again after their worker was lost"
        )
    for change in report.get("code_changes", []):
        console.print(
            f"resumed with changed code (--allow-changed) after {change['games_before']} games: "
            + "; ".join(map(describe_change, change["entrants"])),
            markup=False,
        )
    for left in report.get("workers_left", []):
        console.print(f"worker {left['worker']} left the match: {left['why']}", markup=False)
    if report.get("stopped"):
        console.print(f"stopped: {report['stopped']}", markup=False)
    if report.get("out"):
        console.print(f"results: {report['out']} (match {report['match_id']})", markup=False)
