"""The rule set: defaults are the official preset; bad options are refused by name."""

import json
import subprocess
import sys

import pytest

from unoplay.game.rules import (
    OFFICIAL,
    OPTION_NAMES,
    RuleError,
    RuleSet,
    Scoring,
    parse_option,
    preset,
)


def test_official_preset_is_the_default():
    assert preset("official") == RuleSet() == OFFICIAL
    assert OFFICIAL.scoring is Scoring.WINNER_TAKES and OFFICIAL.target_score == 500
    assert OFFICIAL.uno_penalty == 2 and OFFICIAL.challenge_success_skips_challenger


def test_round_trip_through_a_dict():
    rules = RuleSet(scoring="penalty", point_values="classic", uno_penalty=1)
    assert RuleSet.from_dict(rules.to_dict()) == rules
    assert set(rules.to_dict()) == set(OPTION_NAMES)
    assert json.loads(json.dumps(rules.to_dict()))["scoring"] == "penalty"


@pytest.mark.parametrize(
    "options, named",
    [
        ({"scoring": "most"}, "scoring"),
        ({"uno_penalty": -1}, "uno_penalty"),
        ({"uno_penalty": True}, "uno_penalty"),
        ({"target_score": "500"}, "target_score"),
        ({"uno_call_strict": 1}, "uno_call_strict"),
        ({"stacking_everything": True}, "stacking_everything"),
    ],
)
def test_bad_options_are_refused_naming_the_option(options, named):
    with pytest.raises(RuleError) as err:
        RuleSet.from_dict(options)
    assert named in str(err.value)


def test_an_unknown_option_names_the_nearest_known_one():
    with pytest.raises(RuleError, match="'target' \\(did you mean 'target_score'\\?\\)"):
        RuleSet.from_dict({"target": 100})
    with pytest.raises(RuleError) as err:
        parse_option("zzzz", "1")
    assert "did you mean" not in str(err.value) and "known: " in str(err.value)


@pytest.mark.parametrize(
    "name, text, value",
    [
        ("jump_in", "on", True),
        ("jump_in", "False", False),
        ("uno_penalty", "4", 4),
        ("stacking", "off", "off"),
        ("multi_play", "same_rank", "same_rank"),
    ],
)
def test_options_parse_from_text_by_their_type(name, text, value):
    assert parse_option(name, text) == value
    assert getattr(RuleSet.from_dict({name: parse_option(name, text)}), name) == value


@pytest.mark.parametrize(
    "name, text", [("jump_in", "maybe"), ("uno_penalty", "two"), ("no_such_rule", "1")]
)
def test_options_from_text_refuse_bad_values_by_name(name, text):
    with pytest.raises(RuleError, match=name):
        parse_option(name, text)


def test_house_preset_is_the_seeds_table_rules():
    house = preset("house")
    assert (
        house.stacking,
        house.jump_in,
        house.multi_play,
        house.false_uno_penalty,
        house.reverse_deflects_draw,
    ) == ("plus_four_over_two", True, "same_rank", 2, True)


def test_unknown_preset():
    with pytest.raises(RuleError, match="official"):
        preset("nope")


def test_uno_bench_json_runs_both_engines_briefly():
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "unoplay.client.cli",
            "bench",
            "--runs",
            "1",
            "--seconds",
            "0.2",
            "--json",
            "--tables",
            "2",
            "--network-seconds",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    report = json.loads(out.stdout)
    network = report["network"][0]
    assert network["tables"] == 2 and network["actions_per_s"] > 0 and network["errors"] == 0
    assert network["p50_ms"] > 0
    report = report["engine"]
    assert report["unoplay"]["rounds_per_s"] > 0 and report["unoplay"]["actions_per_s"] > 0
    if report.get("rlcard"):
        assert report["ratio_rounds_per_s"] > 0
