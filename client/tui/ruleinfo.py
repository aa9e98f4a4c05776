"""What the TUI says about rule options: labels, one-line meanings, summaries.

Every option comes from ``unoplay.game.rules`` (``OPTION_NAMES`` and the types of
the ``RuleSet`` fields), so an option added there shows up in the create-table
form, the rules line and the help without a change here; the texts below only
make the known ones read better (an unknown option falls back to its name).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from unoplay.game.rules import (
    OPTION_NAMES,
    RuleSet,
    differences,
    option_range,
    option_type,
    preset_name,
)

#: Form labels; an int option gets its range appended, e.g. "UNO penalty (0-10)".
_LABELS = {
    "first_player": "First player",
    "reverse_starter": "Reverse starter",
    "wild_starter": "Wild starter",
    "starter_wild_redraw": "Redraw any wild starter",
    "initial_direction": "Initial direction",
    "wd4_restriction": "Wild Draw Four if no card of",
    "unnamed_wild_keeps_colour": "Unnamed wild keeps colour",
    "challenge_success_skips_challenger": "Won challenge skips challenger",
    "uno_penalty": "UNO penalty",
    "uno_call_strict": "UNO only with the play",
    "false_uno_penalty": "False UNO penalty",
    "point_values": "Point values",
    "scoring": "Scoring",
    "target_score": "Target score, 0: one round",
    "stacking": "Stacking draw cards",
    "reverse_deflects_draw": "Reverse deflects a penalty",
    "jump_in": "Jump-in",
    "multi_play": "Multi-play",
    "swap_on_five": "5 swaps hands",
    "seven_zero": "Seven-zero",
    "number_first_and_last": "Numbers first and last",
    "wrong_play_penalty": "Wrong play penalty",
}

#: Short texts for the rules line, by (option, value); ints by option, with {value}.
_SHORT: dict[Any, str] = {
    ("first_player", "dealer"): "dealer plays first",
    ("initial_direction", "counter_clockwise"): "starts ↺",
    ("wd4_restriction", "any_match"): "+4 only with no match",
    ("starter_wild_redraw", True): "wild starters redrawn",
    ("unnamed_wild_keeps_colour", True): "unnamed wild keeps colour",
    ("challenge_success_skips_challenger", False): "challenger keeps turn",
    ("uno_call_strict", True): "strict UNO",
    ("point_values", "classic"): "classic points",
    ("scoring", "penalty"): "penalty scoring",
    ("stacking", "draw_two"): "stacking +2",
    ("stacking", "plus_four_over_two"): "stacking +4/+2",
    ("stacking", "any"): "stacking any",
    ("reverse_deflects_draw", True): "reverse deflects",
    ("jump_in", True): "jump-in",
    ("multi_play", "identical"): "multi-play identical",
    ("multi_play", "same_rank"): "multi-play same rank",
    ("swap_on_five", True): "5 swaps",
    ("seven_zero", True): "7-0",
    ("number_first_and_last", True): "numbers first and last",
    "uno_penalty": "no-UNO penalty {value}",
    "false_uno_penalty": "false UNO {value}",
    "wrong_play_penalty": "wrong play {value}",
    "target_score": "to {value}",
}

#: One-line meanings for the help screen, by (option, value); ints by option.
_MEANINGS: dict[Any, str] = {
    ("first_player", "dealer"): "the dealer (the highest draw) plays first",
    ("first_player", "left_of_dealer"): "the player left of the dealer plays first",
    (
        "reverse_starter",
        "right_of_dealer_first",
    ): "a Reverse starter: counter-clockwise from the dealer's right",
    (
        "reverse_starter",
        "first_player_then_reverse",
    ): "a Reverse starter: the first player plays, then play turns",
    ("reverse_starter", "dealer_first"): "a Reverse starter: the dealer plays first, ↺",
    (
        "wild_starter",
        "first_player_names_only",
    ): "a Wild starter: the first player names its colour, the next plays",
    ("wild_starter", "dealer_names"): "a Wild starter: the dealer names its colour",
    (
        "wild_starter",
        "first_player_names_and_plays",
    ): "a Wild starter: the first player names its colour and plays",
    ("starter_wild_redraw", True): "any wild starter card goes back, another is turned up",
    ("initial_direction", "counter_clockwise"): "play starts counter-clockwise",
    ("initial_direction", "clockwise"): "play starts clockwise",
    (
        "wd4_restriction",
        "any_match",
    ): "a Wild Draw Four only with no card matching colour, number or symbol",
    ("wd4_restriction", "colour"): "a Wild Draw Four only with no card of the colour in force",
    ("unnamed_wild_keeps_colour", True): "a wild played without a colour keeps the old one",
    ("challenge_success_skips_challenger", False): "a successful challenger plays on",
    ("challenge_success_skips_challenger", True): "a successful challenger still loses the turn",
    ("uno_call_strict", True): "UNO counts only when called with the play (u first)",
    ("point_values", "classic"): "actions count 10, Wild 20, Wild Draw Four 40",
    ("point_values", "standard"): "actions count 20, wilds 50",
    ("scoring", "penalty"): "everyone scores their own hand; the lowest score wins",
    ("scoring", "winner_takes"): "the winner scores the other hands; the highest wins",
    ("stacking", "draw_two"): "a +2 answers a +2 and passes the summed penalty on",
    (
        "stacking",
        "plus_four_over_two",
    ): "+2 on +2, +4 on +2 or +4 (never +2 on +4); the sum passes on",
    ("stacking", "any"): "any draw card answers any other; the sum passes on",
    (
        "reverse_deflects_draw",
        True,
    ): "a Reverse of the colour in force sends a pending penalty back",
    ("jump_in", True): "play a card identical to the top one out of turn (marked jump!)",
    ("multi_play", "identical"): "identical cards go down together (Space marks them)",
    (
        "multi_play",
        "same_rank",
    ): "cards of one number or symbol go down together (Space marks them)",
    ("swap_on_five", True): "a 5 swaps hands with a player you choose",
    ("seven_zero", True): "a 7 swaps hands with a player you choose; a 0 passes all hands on",
    ("number_first_and_last", True): "the first card of a round and your last card must be numbers",
    "uno_penalty": "caught without UNO: draw {value}",
    "false_uno_penalty": "calling UNO when it is not due: draw {value}",
    "wrong_play_penalty": "trying a card that may not be played: draw {value}",
    "target_score": "the game ends when a score reaches {value} (0: one round)",
}


@dataclass(frozen=True)
class OptionInfo:
    """One rule option as the form shows it."""

    name: str
    kind: type  #: bool, int or the option's StrEnum
    label: str
    choices: tuple[str, ...] = ()  #: enum values
    low: int = 0  #: int range
    high: int = 0


def option_label(name: str) -> str:
    """Option ``name`` as the form's label says it, without its range or note
    ("Target score" for ``target_score``)."""
    return _LABELS.get(name, name.replace("_", " ").capitalize()).split(",")[0]


#: Any option's name, the longest first (a regular expression).
_ANY_OPTION = "|".join(sorted(OPTION_NAMES, key=len, reverse=True))


def in_form_words(message: str) -> str:
    """``message`` (a refusal naming options as the rules do: ``target_score``,
    ``format=elimination``, "set target_score=0") in the form's words: "Target
    score", "Format elimination", "set Target score to 0"."""

    def setting(match: re.Match[str]) -> str:
        said, name, value = match.groups()
        label, value = option_label(name), value.replace("_", " ")
        return f"set {label} to {value}" if said else f"{label} {value}"

    message = re.sub(rf"(\bset )?\b({_ANY_OPTION})=([\w+-]+)", setting, message)
    return re.sub(rf"\b({_ANY_OPTION})\b", lambda m: option_label(m.group(1)), message)


def _options() -> tuple[OptionInfo, ...]:
    found = []
    for name in OPTION_NAMES:
        kind = option_type(name)
        label = _LABELS.get(name, name.replace("_", " ").capitalize())
        if isinstance(kind, type) and issubclass(kind, StrEnum):
            found.append(OptionInfo(name, kind, label, tuple(m.value for m in kind)))
        elif kind is int:
            low, high = option_range(name)
            found.append(OptionInfo(name, int, f"{label} ({low}-{high})", low=low, high=high))
        else:
            found.append(OptionInfo(name, bool, label))
    return tuple(found)


#: Every option of the rule set, in ``OPTION_NAMES`` order.
OPTIONS: tuple[OptionInfo, ...] = _options()


def _words(value: Any) -> str:
    return str(value).replace("_", " ")


def short_text(name: str, value: Any) -> str:
    """A few words for ``name`` set to ``value``, e.g. "stacking +4/+2"."""
    value = value.value if isinstance(value, StrEnum) else value
    text = _SHORT.get((name, value)) or (
        _SHORT.get(name) if isinstance(value, int) and not isinstance(value, bool) else None
    )
    if text:
        return text.format(value=value)
    if value is True:
        return _words(name)
    if value is False:
        return f"no {_words(name)}"
    return f"{_words(name)} {_words(value)}"


def meaning(name: str, value: Any) -> str:
    """One line saying what ``name`` set to ``value`` does at the table."""
    value = value.value if isinstance(value, StrEnum) else value
    text = _MEANINGS.get((name, value)) or (
        _MEANINGS.get(name) if isinstance(value, int) and not isinstance(value, bool) else None
    )
    if text:
        return text.format(value=value)
    return f"{_words(name)}: {_words(value)}"


def rules_summary(rules: RuleSet) -> str:
    """The rules in one line: the preset and what differs from official, e.g.
    "house: false UNO 2, stacking +4/+2, reverse deflects, jump-in, multi-play same rank"."""
    changed = differences(rules)
    name = preset_name(rules)
    if not changed:
        return name
    return f"{name}: " + ", ".join(short_text(n, v) for n, v in changed)
