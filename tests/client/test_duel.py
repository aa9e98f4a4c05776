"""python -m unoplay.client.research.duel: one kind against a field, in process,
repeatable, split between processes with the same totals."""

from __future__ import annotations

import re

from unoplay.client.research.duel import main, play


def test_a_duel_counts_wins_and_splits_between_processes_alike(capsys):
    assert main(["--bot", "greedy", "--field", "random", "--games", "8"]) == 0
    one = capsys.readouterr().out
    assert main(["--bot", "greedy", "--field", "random", "--games", "8", "--processes", "2"]) == 0
    two = capsys.readouterr().out
    assert one == two  # the same games, whatever the split
    wins = int(re.search(r"(\d+) wins of 8", one).group(1))
    assert wins == play("greedy", "random", 2, 0, 8)[0] and wins >= 5  # greedy beats random
    assert "fair share 50.0%" in one


def test_a_duel_of_ismcts_reports_its_time_a_decision(capsys):
    assert main(["--players", "3", "--games", "2", "--bot", "ismcts@20"]) == 0
    out = capsys.readouterr().out
    assert "ismcts@20 vs 2 greedy" in out
    mean, longest = map(
        float, re.search(r"([\d.]+) ms a searched .* the longest (\d+) ms", out).groups()
    )
    assert 0 < mean <= longest + 0.5
