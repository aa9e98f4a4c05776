"""The bot registry: each built-in bot kind by name, and bots made from a
kind spec (``"greedy"``, ``"ismcts@100ms"``).

The strategies live in :mod:`.bots` (random, greedy) and :mod:`.search`
(ismcts); this module only names them, so that neither has to import the
other's kinds.
"""

from __future__ import annotations

from typing import Any

from .bots import Bot, GreedyBot, RandomBot
from .rules import RuleSet
from .search import IsmctsBot

BOT_KINDS: dict[str, type[Bot]] = {"random": RandomBot, "greedy": GreedyBot, "ismcts": IsmctsBot}


class UnknownBotKind(ValueError):
    """A kind spec names no kind of :data:`BOT_KINDS`."""


#: The largest budget a kind spec may give: samples, and milliseconds.
MAX_ITERATIONS = 100_000
MAX_TIME_MS = 60_000.0


def parse_kind(kind: str) -> tuple[type[Bot], dict[str, Any]]:
    """The class of a bot kind spec and the budget it gives, as keyword
    arguments: ``"greedy"`` -> (GreedyBot, {}); a kind with ``budgeted`` set
    may add a budget per decision after ``@``, a whole number of
    milliseconds (``"ismcts@100ms"`` -> ``{"time_ms": 100.0}``) or of
    samples (``"ismcts@300"`` -> ``{"iterations": 300}``).

    Raises :class:`UnknownBotKind` (a ValueError) naming the known kinds
    when the kind is unknown, and ValueError for a budget that is malformed, not positive, above
    :data:`MAX_ITERATIONS` samples or :data:`MAX_TIME_MS`, or given to a kind
    without one.
    """
    base, at, budget = kind.partition("@")
    cls = BOT_KINDS.get(base)
    if cls is None:
        raise UnknownBotKind(
            f"unknown bot kind {base!r}; known kinds: {', '.join(sorted(BOT_KINDS))}"
        )
    if not at:
        return cls, {}
    if not cls.budgeted:
        raise ValueError(f"the bot kind {base!r} takes no budget (as in ismcts@100ms)")
    number, ms = (budget[:-2], True) if budget.endswith("ms") else (budget, False)
    digits = number.isascii() and number.isdigit() and len(number) <= 6
    value = int(number) if digits else 0
    if not 0 < value <= (MAX_TIME_MS if ms else MAX_ITERATIONS):
        raise ValueError(
            f"bad budget {budget!r} in {kind!r}: milliseconds as in {base}@100ms (at most "
            f"{MAX_TIME_MS:.0f}) or samples as in {base}@300 (at most {MAX_ITERATIONS})"
        )
    return cls, {"time_ms": float(value)} if ms else {"iterations": value}


def make_bot(
    kind: str,
    seed: int | None = None,
    rules: RuleSet | None = None,
    max_ms: float | None = None,
) -> Bot:
    """A new bot of ``kind`` (a key of :data:`BOT_KINDS`, with a budget for a
    search bot: :func:`parse_kind`) seeded with ``seed``, for a table under
    ``rules`` (default official; only kinds with ``needs_rules``, such as
    ``ismcts``, use them). ``max_ms`` caps a budgeted kind's time per
    decision, whatever its budget (a server's search bots share its interpreter).

    Raises ValueError (from :func:`parse_kind`) for an unknown kind or a bad budget.
    """
    cls, budget = parse_kind(kind)
    if cls.needs_rules:
        bot = cls(seed, rules, **budget)  # type: ignore[call-arg]  # such a kind takes (seed, rules)
    else:
        bot = cls(seed, **budget)  # type: ignore[call-arg]  # every kind takes a seed
    if max_ms is not None and cls.budgeted:
        limit = getattr(bot, "time_ms", None)
        bot.time_ms = min(limit, max_ms) if limit else max_ms  # type: ignore[attr-defined]
    return bot
