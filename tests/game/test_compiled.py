"""The optional compiled build (server/_build/backend.py, Cython from the same
.py files and their .pxd): when ``UNOPLAY_EXPECT_COMPILED=1`` (``make
test-compiled``), the hot modules must really be compiled and keep their import
names; in either build the game's modules keep their public behaviour (the
rest of tests/game runs on both)."""

from __future__ import annotations

import importlib
import os

import pytest

from unoplay.game import GameState, RuleSet
from unoplay.game.state import Position

HOT = ("engine", "deals", "house", "scoring", "search", "state", "playorder")
EXPECT = os.environ.get("UNOPLAY_EXPECT_COMPILED") == "1"


def _compiled(name: str) -> bool:
    module = importlib.import_module(f"unoplay.game.{name}")
    return not (module.__file__ or "").endswith(".py")


@pytest.mark.skipif(
    not EXPECT, reason="the pure-Python install (make test-compiled checks the other)"
)
def test_the_hot_modules_are_compiled_and_keep_their_names():
    assert [m for m in HOT if not _compiled(m)] == []
    assert GameState.__module__ == "unoplay.game.engine"
    assert GameState.__qualname__ == "GameState"


def test_a_state_is_the_same_value_in_either_build():
    state, _ = GameState.new(3, RuleSet(target_score=0), seed="compiled")
    clone = state.clone()
    assert clone.view(0) == state.view(0) and clone.legal_actions(1) == state.legal_actions(1)
    clone.score_sheet[0] = 7  # house.py and scoring.py read and write its attributes
    clone.current = (clone.current + 1) % 3
    assert state.scores == (0, 0, 0) and clone.scores == (7, 0, 0)
    assert clone.current != state.current


def test_a_clone_copies_every_attribute_and_shares_no_mutable_one():
    """clone() lists the attributes by hand (it is on the search bots' hot path):
    none may be forgotten when GameState gains one."""
    state, _ = GameState.new(4, RuleSet(), seed="clone")
    clone = state.clone()
    for name in Position.__slots__:
        mine, theirs = getattr(state, name), getattr(clone, name)
        if isinstance(mine, list):
            assert mine == theirs and mine is not theirs, name
        elif name == "rng":
            assert mine is not theirs and mine.getstate() == theirs.getstate()
        else:
            assert mine is theirs or mine == theirs, name
    assert all(a is not b for a, b in zip(state.hands, clone.hands, strict=True))
