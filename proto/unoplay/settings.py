"""What a table may be created with: the bounds and defaults of its
settings (seats, turn timer, bot delay, away grace, out-of-turn window,
caps of actions), checked in one place for the lobby and the table."""

from __future__ import annotations

from unoplay.game.deals import check_seed_text
from unoplay.game.rules import MAX_PLAYERS, MIN_PLAYERS, RuleSet
from unoplay.protocol import LobbyError

MAX_TITLE = 40
MAX_TURN_SECONDS = 3600
MAX_BOT_DELAY = 10.0
MAX_AWAY_GRACE = 3600
#: Seconds a dropped player has to come back before a bot plays for them.
DEFAULT_AWAY_GRACE = 30.0
#: Longest out-of-turn window a table may have, in milliseconds.
MAX_WINDOW_MS = 5000
#: The out-of-turn window of a table created over the wire without one, in
#: milliseconds, when its rules have an out-of-turn action worth a window.
DEFAULT_WINDOW_MS = 1500
#: A round that reaches this many actions ends the game with no winner
#: (RULES.md, "Endless rounds"): about four times the longest round seen
#: between bots, and far beyond any round people play.
DEFAULT_MAX_ROUND_ACTIONS = 2000
#: A game that reaches this many actions ends with no winner, as a capped
#: round does (RULES.md, "Endless rounds"): about five times the longest game
#: measured (ten greedy bots to 100,000 points: 214,645 actions), so that a
#: game whose rounds score nothing cannot go on for ever.
MAX_GAME_ACTIONS = 1_000_000
MIN_ROUND_ACTIONS = 100
MAX_ROUND_ACTIONS = 100_000


def default_window_ms(rules: RuleSet) -> int:
    """The window (ms) a table with ``rules`` gets when its creator names none:
    :data:`DEFAULT_WINDOW_MS` when someone can gain from acting out of turn (a
    catch costs the caught ``uno_penalty`` > 0 cards, or ``jump_in`` is on),
    else 0 (no window)."""
    return DEFAULT_WINDOW_MS if rules.uno_penalty > 0 or rules.jump_in else 0


def check_settings(
    seats: int,
    rules: RuleSet,
    turn_seconds: int,
    bot_delay: float,
    away_grace: float,
    window_ms: int,
    max_round_actions: int,
    seed: str | None,
) -> None:
    """Raise LobbyError("invalid") for a setting out of its bounds (above) or
    a bad seed text, and RuleError for rules these seats cannot play."""
    if not MIN_PLAYERS <= seats <= MAX_PLAYERS:
        raise LobbyError("invalid", f"seats must be {MIN_PLAYERS}..{MAX_PLAYERS}")
    rules.check_players(seats)  # RuleError: a format these seats cannot play
    if not 0 <= turn_seconds <= MAX_TURN_SECONDS:
        raise LobbyError("invalid", f"turn_seconds must be 0..{MAX_TURN_SECONDS}")
    if not 0 <= bot_delay <= MAX_BOT_DELAY:
        raise LobbyError("invalid", f"bot_delay_seconds must be 0..{MAX_BOT_DELAY:g}")
    if not 0 <= away_grace <= MAX_AWAY_GRACE:
        raise LobbyError("invalid", f"away_grace_seconds must be 0..{MAX_AWAY_GRACE}")
    if not 0 <= window_ms <= MAX_WINDOW_MS:
        raise LobbyError("invalid", f"window_ms must be 0..{MAX_WINDOW_MS}")
    if not MIN_ROUND_ACTIONS <= max_round_actions <= MAX_ROUND_ACTIONS:
        raise LobbyError(
            "invalid", f"max_round_actions must be {MIN_ROUND_ACTIONS}..{MAX_ROUND_ACTIONS}"
        )
    if seed is not None:
        try:
            check_seed_text(seed)
        except ValueError as err:
            raise LobbyError("invalid", str(err)) from None
