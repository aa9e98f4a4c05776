"""What the TUI says in words: counted nouns, seat numbers, and a server's
failure as a sentence a person can act on (never grpc's raw text: the
command line's sentences, from :mod:`unoplay.client.address`)."""

from __future__ import annotations

# A server's address and a failed call's sentence are the command line's too.
from ..address import SHUTTING_DOWN, address_problem, error_words, unreachable

__all__ = [
    "SHUTTING_DOWN",
    "address_problem",
    "error_words",
    "plural",
    "seat_number",
    "unreachable",
]


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``"1 bot"``, ``"2 bots"`` (``many`` for an irregular plural)."""
    return f"{count} {noun if count == 1 else many or noun + 's'}"


def seat_number(seat: int) -> str:
    """A seat as people count them: seat 0 is "seat 1"."""
    return f"seat {seat + 1}"
