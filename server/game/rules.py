"""The rule set: every option of RULES.md as one validated, immutable value.

``RuleSet()`` is the ``official`` preset (RULES.md sections 1-7 with their
defaults). Each option names the RULES.md section it comes from. Options are
plain ``str`` enums or ints so they map one-to-one onto the wire and the CLI.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class FirstPlayer(StrEnum):
    """Who plays first after the deal (RULES.md section 2)."""

    LEFT_OF_DEALER = "left_of_dealer"  #: official
    DEALER = "dealer"  #: the highest draw (the dealer) plays first


class ReverseStarter(StrEnum):
    """What a Reverse starter card does (RULES.md section 2)."""

    DEALER_FIRST = "dealer_first"  #: official: counter-clockwise, dealer plays first
    RIGHT_OF_DEALER_FIRST = "right_of_dealer_first"  #: counter-clockwise from the dealer's right
    FIRST_PLAYER_THEN_REVERSE = "first_player_then_reverse"  #: first player plays, then it turns


class WildStarter(StrEnum):
    """Who names the colour of a Wild starter card (RULES.md section 2)."""

    FIRST_PLAYER_NAMES_AND_PLAYS = "first_player_names_and_plays"  #: official
    FIRST_PLAYER_NAMES_ONLY = "first_player_names_only"  #: then the next player plays
    DEALER_NAMES = "dealer_names"  #: the dealer names, the first player plays


class Direction(StrEnum):
    """Initial direction of play (RULES.md section 2)."""

    CLOCKWISE = "clockwise"
    COUNTER_CLOCKWISE = "counter_clockwise"


class Wd4Restriction(StrEnum):
    """When a Wild Draw Four is allowed, and so how a challenge is judged (section 3)."""

    COLOUR = "colour"  #: official: no card of the colour in force
    ANY_MATCH = "any_match"  #: no non-wild card matching by colour, number or symbol


class PointValues(StrEnum):
    """Card point table used for scoring (RULES.md section 7)."""

    STANDARD = "standard"  #: actions 20, wilds 50
    CLASSIC = "classic"  #: actions 10, Wild 20, Wild Draw Four 40


class Stacking(StrEnum):
    """Which draw cards may answer a pending draw penalty (RULES.md section 8)."""

    OFF = "off"  #: official: no stacking
    DRAW_TWO = "draw_two"  #: +2 on +2
    PLUS_FOUR_OVER_TWO = "plus_four_over_two"  #: +2 on +2, +4 on +2, +4 on +4; never +2 on +4
    ANY = "any"  #: also +2 (of the colour in force) on +4


class MultiPlay(StrEnum):
    """Which cards may be played together in one turn (RULES.md section 8)."""

    OFF = "off"  #: official: one card per play
    IDENTICAL = "identical"  #: copies of the same card (same colour and rank; wilds of one kind)
    SAME_RANK = "same_rank"  #: any cards of the same number or symbol


class GameFormat(StrEnum):
    """How rounds make a game (RULES.md section 9)."""

    STANDARD = "standard"  #: official: rounds scored until the target (section 7)
    ELIMINATION = "elimination"  #: one round played on until one player is left, who loses
    TEAMS = "teams"  #: partners sit opposite (4, 6 or 8 players) and score as one
    TOURNAMENT = "tournament"  #: penalty scoring; reaching the target puts a player out


class Scoring(StrEnum):
    """How a finished round is scored (RULES.md section 7)."""

    WINNER_TAKES = "winner_takes"  #: the winner scores the other hands; highest wins
    PENALTY = "penalty"  #: everyone scores their own hand; lowest wins


MIN_PLAYERS = 2
MAX_PLAYERS = 10


class RuleError(ValueError):
    """A rule set that is malformed or makes no sense; the message names the option."""


@dataclass(frozen=True, slots=True)
class RuleSet:
    """All options of one game. Construct with keywords; invalid values raise RuleError.

    The default instance is the ``official`` preset (RULES.md section 10).
    """

    # Section 2: setting up a round.
    first_player: FirstPlayer = FirstPlayer.LEFT_OF_DEALER
    reverse_starter: ReverseStarter = ReverseStarter.DEALER_FIRST
    wild_starter: WildStarter = WildStarter.FIRST_PLAYER_NAMES_AND_PLAYS
    starter_wild_redraw: bool = False  #: any wild starter is put back, not only a Wild Draw Four
    initial_direction: Direction = Direction.CLOCKWISE
    # Section 3: a turn.
    wd4_restriction: Wd4Restriction = Wd4Restriction.COLOUR
    unnamed_wild_keeps_colour: bool = False  #: a wild played with no colour keeps the old one
    # Section 4: Wild Draw Four challenge.
    challenge_success_skips_challenger: bool = True
    # Section 5: UNO.
    uno_penalty: int = 2  #: cards drawn when caught not calling UNO (0..10)
    uno_call_strict: bool = False  #: a call counts only together with the play
    false_uno_penalty: int = 0  #: cards drawn for calling UNO when not due (0..10)
    # Section 7: scoring.
    point_values: PointValues = PointValues.STANDARD
    scoring: Scoring = Scoring.WINNER_TAKES
    target_score: int = 500  #: game ends when a score reaches it; 0 = single-round game
    # Section 8: house rules, each off in ``official``.
    stacking: Stacking = Stacking.OFF
    reverse_deflects_draw: bool = False  #: a Reverse of the colour in force sends a penalty back
    jump_in: bool = False  #: play a card identical to the top card out of turn
    multi_play: MultiPlay = MultiPlay.OFF  #: several cards of one rank in one play
    swap_on_five: bool = False  #: playing a 5 swaps hands with a chosen player
    seven_zero: bool = False  #: 7 swaps hands with a chosen player; 0 passes all hands on
    number_first_and_last: bool = False  #: the first card played and a last card must be numbers
    wrong_play_penalty: int = 0  #: cards drawn for a refused play of a card (0..10)
    # Section 9: game formats.
    format: GameFormat = GameFormat.STANDARD

    @property
    def defers_draws(self) -> bool:
        """True when a Draw Two's penalty waits for the victim (stacking, deflecting
        or jumping in may answer it) instead of being drawn at once."""
        return self.stacking is not Stacking.OFF or self.reverse_deflects_draw or self.jump_in

    @property
    def plain_plays(self) -> bool:
        """True when no option changes how a card is played or refused
        (section 8: no hand swaps, number-first-and-last, deferred draws,
        jump-ins, wrong-play penalty or multi-play): the engine's fast path."""
        return not (
            self.seven_zero
            or self.swap_on_five
            or self.number_first_and_last
            or self.defers_draws
            or self.jump_in
            or self.wrong_play_penalty
            or self.multi_play is not MultiPlay.OFF
        )

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            kind = _FIELD_TYPES[f.name]
            if issubclass(kind, StrEnum):
                try:
                    object.__setattr__(self, f.name, kind(value))
                except ValueError:
                    choices = ", ".join(m.value for m in kind)
                    raise RuleError(f"{f.name}: {value!r} is not one of {choices}") from None
            elif kind is bool:
                if not isinstance(value, bool):
                    raise RuleError(f"{f.name}: expected true or false, got {value!r}")
            elif kind is int:
                if isinstance(value, bool) or not isinstance(value, int):
                    raise RuleError(f"{f.name}: expected an integer, got {value!r}")
                low, high = _INT_RANGES[f.name]
                if not low <= value <= high:
                    raise RuleError(f"{f.name}: {value} is outside {low}..{high}")
        self._check_combination()

    def _check_combination(self) -> None:
        """Refuse options that contradict each other (RULES.md section 10: an
        impossible combination is a clear error, never a crash mid-game)."""
        if self.format is GameFormat.TOURNAMENT:
            if self.scoring is not Scoring.PENALTY:
                raise RuleError(
                    "format=tournament needs scoring=penalty: a player is out "
                    "when their own hand points reach the target"
                )
            if self.target_score == 0:
                raise RuleError(
                    "format=tournament needs a target_score above 0: reaching it puts a player out"
                )
        if self.format is GameFormat.ELIMINATION and self.target_score != 0:
            raise RuleError(
                "format=elimination is one round played down to the last player: set target_score=0"
            )

    def check_players(self, players: int) -> None:
        """Raise RuleError if this rule set cannot be played by ``players`` seats
        (teams need 4, 6 or 8: partners sit opposite, section 9)."""
        if self.format is GameFormat.TEAMS and players not in (4, 6, 8):
            raise RuleError(
                f"format=teams needs 4, 6 or 8 players (partners sit opposite), not {players}"
            )

    def to_dict(self) -> dict[str, Any]:
        """Option name -> plain value (str, bool or int), every option included."""
        return {f.name: _plain(getattr(self, f.name)) for f in dataclasses.fields(self)}

    @classmethod
    def from_dict(cls, options: Mapping[str, Any], base: RuleSet | None = None) -> RuleSet:
        """Build from option name -> value over ``base`` (default: official).

        Raises RuleError naming any unknown option or bad value.
        """
        unknown = sorted(set(options) - set(OPTION_NAMES))
        if unknown:
            raise unknown_options(unknown)
        return dataclasses.replace(base or cls(), **options)

    def replace(self, **options: Any) -> RuleSet:
        """A copy with some options changed; validated like the constructor."""
        return RuleSet.from_dict(options, base=self)


def _plain(value: Any) -> Any:
    return value.value if isinstance(value, StrEnum) else value


_FIELD_TYPES: dict[str, type] = {
    "first_player": FirstPlayer,
    "reverse_starter": ReverseStarter,
    "wild_starter": WildStarter,
    "starter_wild_redraw": bool,
    "initial_direction": Direction,
    "wd4_restriction": Wd4Restriction,
    "unnamed_wild_keeps_colour": bool,
    "challenge_success_skips_challenger": bool,
    "uno_penalty": int,
    "uno_call_strict": bool,
    "false_uno_penalty": int,
    "point_values": PointValues,
    "scoring": Scoring,
    "target_score": int,
    "stacking": Stacking,
    "reverse_deflects_draw": bool,
    "jump_in": bool,
    "multi_play": MultiPlay,
    "swap_on_five": bool,
    "seven_zero": bool,
    "number_first_and_last": bool,
    "wrong_play_penalty": int,
    "format": GameFormat,
}
_INT_RANGES: dict[str, tuple[int, int]] = {
    "uno_penalty": (0, 10),
    "false_uno_penalty": (0, 10),
    "target_score": (0, 100_000),
    "wrong_play_penalty": (0, 10),
}
OPTION_NAMES: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(RuleSet))


def unknown_options(names: Iterable[str]) -> RuleError:
    """The error for rule options nobody knows, naming the nearest known
    option of each when there is one (``target`` -> ``target_score``)."""
    parts = []
    for name in names:
        near = difflib.get_close_matches(name, OPTION_NAMES, n=1)
        parts.append(f"{name!r} (did you mean {near[0]!r}?)" if near else repr(name))
    return RuleError(f"unknown rule option {', '.join(parts)}; known: {', '.join(OPTION_NAMES)}")


def option_type(name: str) -> type:
    """The type of option ``name``: bool, int or its StrEnum. Raises KeyError."""
    return _FIELD_TYPES[name]


def option_range(name: str) -> tuple[int, int]:
    """(lowest, highest) value of the integer option ``name``. Raises KeyError."""
    return _INT_RANGES[name]


_TRUE = {
    "true": True,
    "on": True,
    "yes": True,
    "1": True,
    "false": False,
    "off": False,
    "no": False,
    "0": False,
}


def parse_option(name: str, text: str) -> Any:
    """The value of option ``name`` written as ``text`` (a command line, a form):
    true/false (on/off, yes/no, 1/0) for a switch, digits for a number, a
    value's name for a choice. Raises RuleError naming a bad option or value."""
    kind = _FIELD_TYPES.get(name)
    if kind is None:
        raise unknown_options([name])
    text = text.strip()
    if kind is bool:
        if text.lower() not in _TRUE:
            raise RuleError(f"{name}: expected true or false, got {text!r}")
        return _TRUE[text.lower()]
    if kind is int:
        try:
            return int(text)
        except ValueError:
            raise RuleError(f"{name}: expected an integer, got {text!r}") from None
    return text


assert set(OPTION_NAMES) == set(_FIELD_TYPES)

#: The official rules (RULES.md section 10): sections 1-7 with their defaults.
OFFICIAL = RuleSet()

#: Named presets (RULES.md section 10).
PRESETS: dict[str, RuleSet] = {
    "official": OFFICIAL,
    # The common Chinese table rules of the seeds (RULES.md section 10).
    "house": RuleSet(
        stacking=Stacking.PLUS_FOUR_OVER_TWO,
        jump_in=True,
        multi_play=MultiPlay.SAME_RANK,
        false_uno_penalty=2,
        reverse_deflects_draw=True,
    ),
}


def preset(name: str) -> RuleSet:
    """The preset called ``name``. Raises RuleError listing the known presets."""
    try:
        return PRESETS[name]
    except KeyError:
        raise RuleError(f"unknown preset {name!r}; known: {', '.join(PRESETS)}") from None


def parse_rule(text: str) -> tuple[str, Any]:
    """``"NAME=VALUE"`` (``uno play/match --rule``) -> (option, value of its type,
    see :func:`parse_option`). Raises RuleError for a text without '=', an
    unknown option or a bad value."""
    name, sep, value = text.partition("=")
    if not sep:
        raise RuleError(f"--rule expected NAME=VALUE, got {text!r}")
    name = name.strip().replace("-", "_")
    return name, parse_option(name, value)


def preset_name(rules: RuleSet) -> str:
    """The preset ``rules`` matches (whatever its target score), or "custom"."""
    return next(
        (
            name
            for name, p in PRESETS.items()
            if p.replace(target_score=rules.target_score) == rules
        ),
        "custom",
    )


def differences(rules: RuleSet, base_rules: RuleSet = OFFICIAL) -> list[tuple[str, Any]]:
    """(option, value) of every option that differs from ``base_rules``
    (``official`` by default), target score excepted (it is shown on its own),
    in ``OPTION_NAMES`` order."""
    mine, base = rules.to_dict(), base_rules.to_dict()
    return [
        (name, mine[name])
        for name in OPTION_NAMES
        if name != "target_score" and mine[name] != base[name]
    ]


def nearest_preset(rules: RuleSet) -> tuple[str, list[tuple[str, Any]]]:
    """The preset ``rules`` differ from in the fewest options (target score
    aside; ``official`` on a tie) and those differences, as :func:`differences`
    gives them: what a table tells a bot of the rules it was made from."""
    best = min(PRESETS, key=lambda name: len(differences(rules, PRESETS[name])))
    return best, differences(rules, PRESETS[best])


def option_text(value: Any) -> str:
    """An option's value as ``--rule NAME=VALUE`` takes it (true/false, numbers, names)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
