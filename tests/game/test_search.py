"""Determinisations and the ismcts bot (unoplay.game.search): a sample agrees
with everything the seat sees and places only cards the seat has not seen;
the bot answers legal actions under any rules; play_game drives bots."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest
from helpers import TrackedBot, c, cs, pos

from unoplay.game import PRESETS, GameState, RuleSet, make_bot
from unoplay.game.actions import CHALLENGE, DRAW, KEEP, ActionKind, play
from unoplay.game.bots import GreedyBot, RandomBot, play_game
from unoplay.game.cards import COLOUR, RANK, WILD, card_code
from unoplay.game.events import EventKind, visible
from unoplay.game.search import (
    DEFAULT_ITERATIONS,
    DEFAULT_TIME_MS,
    HandTracker,
    IsmctsBot,
    allows,
    calling_moves,
    determinize,
    excluding,
    move_key,
)


def _positions(rules: RuleSet, players: int, seed: int, count: int):
    """``count`` positions of a random game (each a state in a round)."""
    state, _ = GameState.new(players, rules, seed=f"search-{seed}")
    rng = random.Random(seed)
    for _ in range(count):
        if state.is_game_over:
            return
        if state.is_round_over:
            state.next_round()
        yield state
        seat = state.current
        state.apply(seat, rng.choice(state.legal_actions(seat)))


@pytest.mark.parametrize("preset", ["official", "house"])
@pytest.mark.parametrize("players", [2, 4])
def test_a_determinisation_agrees_with_the_view_and_places_only_unseen_cards(preset, players):
    rules = PRESETS[preset]
    rng = random.Random(0)
    for state in _positions(rules, players, players, 120):
        for seat in range(players):
            view = state.view(seat)
            sample = determinize(view, rules, rng)
            assert sample.view(seat) == view  # everything the seat sees, the same
            assert sorted(
                sample.draw_pile
                + sample.discard_pile
                + sum((sample.hand(s) for s in range(players)), ())
            ) == list(range(108))
            for other in range(players):
                if other != seat:  # no card the seat holds or sees elsewhere
                    assert not set(sample.hand(other)) & (set(view.hand) | {view.top_card})


def test_known_cards_go_to_their_seat_and_hidden_cards_vary():
    state, _ = GameState.new(3, RuleSet(), seed="known")
    view = state.view(0)
    known = state.hand(1)[:2]
    hands = Counter()
    for k in range(20):
        sample = determinize(view, RuleSet(), random.Random(k), known={1: known})
        assert set(known) <= set(sample.hand(1))
        hands[sample.hand(2)] += 1
    assert len(hands) > 1
    with pytest.raises(ValueError, match="seat 1"):
        determinize(view, RuleSet(), random.Random(0), known={1: state.hand(1) + state.hand(2)})
    with pytest.raises(ValueError, match="spectator"):
        determinize(state.view(-1), RuleSet(), random.Random(0))


@pytest.mark.parametrize("preset", ["official", "house"])
def test_ismcts_answers_a_legal_action_on_every_decision(preset):
    rules = PRESETS[preset].replace(target_score=0)
    bots = [IsmctsBot(seed=1, rules=rules, iterations=12), GreedyBot(2), RandomBot(3)]
    state = play_game(bots, rules, seed="ismcts-legal")  # apply() raises on an illegal one
    assert state.is_game_over and bots[0].decisions > 0


def test_make_bot_gives_ismcts_the_tables_rules_and_a_budget():
    rules = PRESETS["house"]
    bot = make_bot("ismcts", seed=1, rules=rules)
    assert isinstance(bot, IsmctsBot) and bot.rules is rules and bot.iterations
    timed = IsmctsBot(seed=1, time_ms=5)
    assert timed.iterations is None and timed.time_ms == 5
    state, _ = GameState.new(2, RuleSet(), seed="timed")
    seat = state.current
    assert timed.decide(state.view(seat), state.legal_actions(seat)) in state.legal_actions(seat)


def test_a_time_budget_counts_from_the_call_of_decide_and_bounds_the_default():
    readings = itertools.count()
    samples = []

    class Counted(IsmctsBot):
        def _sample(self, *args):
            samples.append(1)
            return super()._sample(*args)

    bot = Counted(seed=1, time_ms=20, clock=lambda: next(readings) / 1000)  # 1 ms a reading
    state = pos(["R1 R2 Y3 G4 B7", "R3 B5 Y2"], "R7", current=0)
    assert bot.decide(state.view(0), state.legal_actions(0)).kind is ActionKind.PLAY
    # Reading 0 starts the decision; the first sample is free, every later
    # one reads the clock (1..19 ms are within 20 ms, 20 is not); the end
    # is reading 21.
    assert bot.decisions == 1 and len(samples) == 20
    assert bot.longest == bot.seconds == pytest.approx(0.021)
    default = IsmctsBot()
    assert (default.iterations, default.time_ms) == (DEFAULT_ITERATIONS, DEFAULT_TIME_MS)
    assert IsmctsBot(iterations=7).time_ms is None  # samples asked for: repeatable


def test_ismcts_plays_out_no_more_the_moves_clearly_worse_than_greedys():
    """prune: after 20 samples the moves behind greedy's are dropped, so the
    later samples play out fewer moves; without it every move, every sample."""
    counts = []

    class Counted(IsmctsBot):
        def _playout(self, state, out_before, rng):
            counts[-1] += 1
            return super()._playout(state, out_before, rng)

    state = pos(["R1 R2 Y7 G7 B7 W W+4", "R3 B5 Y2 G8", "R5 G2", "B9 Y9 G9"], "R7", current=0)
    legal = state.legal_actions(0)
    moves = len({move_key(a) for a in calling_moves(legal) if a.kind is ActionKind.PLAY})
    for prune in (None, 0.0):
        counts.append(0)
        Counted(seed=3, iterations=60, prune=prune).decide(state.view(0), legal)
    assert moves >= 4 and counts[0] == 60 * moves
    assert 20 * moves < counts[1] < 60 * moves


def test_play_game_ends_every_game_and_caps_endless_rounds():
    state = play_game([GreedyBot(1), RandomBot(2)], RuleSet(), seed="play")
    assert state.outcome() is not None and state.outcome().winners
    capped = play_game([RandomBot(1), RandomBot(2)], RuleSet(), seed="cap", max_round_actions=3)
    assert capped.outcome().winners == () and capped.returns() == (0.0, 0.0)


def test_the_module_examples_run():
    import doctest

    import unoplay.game.search

    result = doctest.testmod(unoplay.game.search)
    assert result.attempted >= 5 and result.failed == 0


# ------------------------------------------------------------------ what the events tell


def _fits(card: int, top: int) -> bool:
    return COLOUR[card] in (COLOUR[top], WILD) or RANK[card] == RANK[top]


def test_a_seat_that_drew_is_dealt_nothing_that_fitted_in_the_samples():
    """Seat 1 draws at the start of its turn and the drawn card does not fit
    either: the tracker of seat 0 deals it no green card, no 7 and no wild in
    any sample (HandTracker), where uniform samples often do."""
    hands = ["R1 B2 Y3 R4 B6 Y8 R9", "R3 B5 Y2 R8 B1"]
    placed = set(cs(" ".join(hands))) | {c("G7")}
    pile = [x for x in range(108) if x not in placed and x != c("Y4")] + [c("Y4")]
    state = pos(hands, "G7", current=1, draw_pile=pile)
    tracker = HandTracker()
    tracker.sync(state.view(0))
    events = visible(state.apply(1, DRAW), 0)
    assert [e.kind for e in events] == [EventKind.DREW, EventKind.TURN]
    tracker.observe(events)
    view = state.view(0)
    known, constraints = tracker.beliefs(view)
    assert known == {} and len(constraints[1]) == 6  # the five held and the one drawn
    for k in range(30):
        sample = determinize(view, RuleSet(), random.Random(k), known, constraints)
        assert not any(_fits(x, c("G7")) for x in sample.hand(1))
    assert any(
        any(_fits(x, c("G7")) for x in determinize(view, RuleSet(), random.Random(k)).hand(1))
        for k in range(30)
    )


def test_a_drawn_card_that_fits_is_not_constrained_and_a_wild_shows_no_coloured_fit():
    """A drawn card that fits (kept, or played) tells nothing of itself; a
    Wild played shows its player held no card of the colour in force nor of
    the top card's rank (wilds allowed), and one card of the colour it named."""
    state = pos(["R1 B2", "W R3 B5"], "G7", current=1)
    tracker = HandTracker()
    tracker.sync(state.view(0))
    tracker.observe(visible(state.apply(1, play(c("W"), 3)), 0))  # names blue
    _, constraints = tracker.beliefs(state.view(0))
    no_green_no_7 = excluding(colours=[2], ranks=[7])  # a wild may remain
    blue_only = excluding(colours=[0, 1, 2, 4], ranks=[7])
    assert sorted(constraints[1]) == sorted([no_green_no_7, blue_only])
    for k in range(10):
        sample = determinize(state.view(0), RuleSet(), random.Random(k), None, constraints)
        assert COLOUR[sample.hand(1)[0]] == 3 or COLOUR[sample.hand(1)[1]] == 3
    drawn = pos(["R1 B2", "R3 B5"], "G7", current=1)  # draws the highest id left: a wild
    tracker = HandTracker()
    tracker.sync(drawn.view(0))
    tracker.observe(visible(drawn.apply(1, DRAW) + drawn.apply(1, KEEP), 0))
    _, constraints = tracker.beliefs(drawn.view(0))
    assert len(constraints[1]) == 2 and len(drawn.hand(1)) == 3  # the kept one is free


def test_a_challenge_shows_the_hand_and_a_swap_gives_away_the_viewers():
    """Cards the viewer saw (a challenged hand) or gave (its hand, by a swap
    on a 7) are known to be in that seat's hand, in every sample."""
    state = pos(["R1 B2 Y3", "W+4 G2 R5"], "G7", current=1)
    tracker = HandTracker()
    tracker.sync(state.view(0))
    tracker.observe(visible(state.apply(1, play(c("W+4"), 0)), 0))
    tracker.observe(visible(state.apply(0, CHALLENGE), 0))  # guilty: it held G2
    known, _ = tracker.beliefs(state.view(0))
    assert sorted(known[1]) == sorted(cs("G2 R5")) and len(state.hand(1)) == 6
    for k in range(10):
        sample = determinize(state.view(0), RuleSet(), random.Random(k), known)
        assert set(cs("G2 R5")) <= set(sample.hand(1))
    rules = RuleSet(seven_zero=True)
    swap = pos(["R7 B2 Y3", "G2 R5 Y9 B9"], "R3", current=0, rules=rules)
    tracker = HandTracker()
    tracker.sync(swap.view(0))
    tracker.observe(visible(swap.apply(0, play(c("R7"), target=1)), 0))
    known, _ = tracker.beliefs(swap.view(0))
    assert sorted(known[1]) == sorted(cs("B2 Y3")) == sorted(swap.hand(1))


def test_play_game_gives_an_observing_bot_every_event_of_its_seat():
    rules = RuleSet(target_score=0)
    bot = TrackedBot(seed=1, rules=rules, iterations=4)
    play_game([bot, GreedyBot(2), GreedyBot(3), GreedyBot(4)], rules, seed="observed")
    assert bot.calls >= 5 and bot.agreed == bot.calls


def test_ismcts_with_a_card_to_play_does_not_search_drawing():
    """prune_draws: with a card that fits, drawing is not among the moves
    searched; with none, drawing is the move."""
    searched = []

    class Recorded(IsmctsBot):
        def _paired(self, view, allowed, base, start):
            searched.append(set(allowed.values()))
            return super()._paired(view, allowed, base, start)

    state = pos(["R1 R2 Y3 G4", "R3 B5 Y2"], "R7", current=0)
    legal = state.legal_actions(0)
    assert DRAW in legal
    assert Recorded(seed=1, iterations=8).decide(state.view(0), legal).kind is ActionKind.PLAY
    assert Recorded(seed=1, iterations=8, prune_draws=False).decide(state.view(0), legal)
    assert DRAW not in searched[0] and DRAW in searched[1]
    stuck = pos(["B2 Y3 G4", "R3 B5 Y2"], "R7", current=0)
    assert IsmctsBot(seed=1, iterations=8).decide(stuck.view(0), stuck.legal_actions(0)) == DRAW


@pytest.mark.parametrize("players", [2, 4, 7])
def test_the_fast_rollout_move_is_the_listed_one_on_every_plain_turn(players):
    """rollout_move scans the hand on turns under fast-path rules; the move
    is exactly the one chosen from the listed legal actions (the general
    way), calls of UNO and colours named included."""
    from unoplay.game.search import _plain_move, listed_move

    compared = Counter()
    for seed in range(6):
        for state in _positions(RuleSet(), players, seed, 300):
            seat, phase = state.current, state.phase
            if phase.name not in ("PLAY", "DRAWN"):
                continue
            fast = _plain_move(state, seat, phase.name == "DRAWN")
            assert fast == listed_move(state, seat, random.Random(0)), (state, fast)
            compared[fast.kind, fast.uno, fast.colour >= 0] += 1
    assert compared[ActionKind.PLAY, False, False] and compared[ActionKind.DRAW, False, False]
    assert compared[ActionKind.PLAY, True, False] and compared[ActionKind.PLAY, False, True]


def test_a_wild_draw_four_is_judged_on_the_sampled_hand_of_its_player():
    """Under a pending Wild Draw Four, the sample's guilt is the engine's
    judgement of the sampled hand on what the card was played on (section
    4): guilty when the hand holds the colour in force, innocent when the
    viewer inferred it held none; with nothing inferred, either."""
    state = pos(["W+4 B3 G5 Y2", "R1 B9 G2", "Y7 Y8"], "R7", current=0)
    state.apply(0, play(c("W+4"), colour=COLOUR[c("B3")]))
    view = state.view(1)
    assert view.phase.name == "PENALTY"
    before = (COLOUR[c("R7")], c("R7"))
    red = {0: [c("R3")]}
    no_red = {0: [excluding(colours=[COLOUR[c("R7")]])] * 3}
    rng = random.Random(3)

    def guilt(**kw):
        return {determinize(view, RuleSet(), rng, **kw).wd4_guilty for _ in range(40)}

    assert guilt(known=red, wd4_before=before) == {True}
    assert guilt(constraints=no_red, wd4_before=before) == {False}
    assert guilt() == {False, True}


def test_ismcts_accepts_the_wild_draw_fours_of_greedy_which_are_always_legal():
    """GreedyBot plays a Wild Draw Four only when nothing else fits, so it is
    never guilty; the tracker infers as much, and the search accepts (a
    challenge would cost 6 cards instead of 4)."""
    rules = RuleSet(target_score=0)
    answers = []

    class Recorded(IsmctsBot):
        def decide(self, view, legal):
            action = super().decide(view, legal)
            if view.phase.name == "PENALTY" and view.current == view.seat:
                answers.append(action.kind)
            return action

    for n in range(60):
        bot = Recorded(seed=n, rules=rules)
        play_game([GreedyBot(n), bot, GreedyBot(n + 1)], rules, seed=f"wd4-{n}")
        if len(answers) >= 3:
            break
    assert len(answers) >= 3 and set(answers) == {ActionKind.ACCEPT}, answers


def test_ismcts_calls_uno_with_every_play_that_leaves_one_card():
    """The samples settle UNO calls at once, so a play with and without the
    call score alike; the bot must still send the calling one, or a real
    table catches it (section 5)."""
    plays = 0
    for seed in range(12):
        for state in _positions(RuleSet(), 3, seed, 200):
            seat = state.current
            if state.phase.name != "PLAY" or len(state.hand(seat)) != 2:
                continue
            bot = IsmctsBot(seed=seed, iterations=12, margin=0.0)
            action = bot.decide(state.view(seat), state.legal_actions(seat))
            if action.kind is ActionKind.PLAY:
                plays += 1
                assert action.uno, action
    assert plays >= 10


def test_a_coloured_play_shows_what_greedy_would_have_played_instead():
    """A seat that plays a coloured card at the start of its turn held none
    that GreedyBot ranks above it (preferred_over): with the next seat on 2
    cards, no fitting attack card (a Skip on a Skip, any card of the colour's
    Draw Two, Skip, Reverse) and no card of its colour worth more; nothing is
    inferred of other colours (which colour greedy leaves depends on its
    whole hand)."""
    hands = ["R1 G2", "B3 R5 Y2 G8 B1", "R2 Y7 G3"]
    state = pos(hands, "BS", current=1, direction=-1)  # the next seat, 0, holds 2 cards
    tracker = HandTracker()
    tracker.sync(state.view(0))
    tracker.observe(visible(state.apply(1, play(c("B3"))), 0))
    view = state.view(0)
    known, constraints = tracker.beliefs(view)
    assert known == {} and len(constraints[1]) == 4
    barred = {"BS", "RS", "YS", "GS", "BR", "B+2", "B4", "B9"}
    allowed = {"B2", "B0", "R9", "G+2", "W", "W+4", "Y5"}
    for rule in constraints[1]:
        assert all(not allows(rule, c(code)) for code in barred)
        assert all(allows(rule, c(code)) for code in allowed)
    calm = pos(hands, "BS", current=1)  # the next seat, 2, holds 3 cards
    tracker = HandTracker()
    tracker.sync(calm.view(0))
    tracker.observe(visible(calm.apply(1, play(c("B3"))), 0))
    _, calm_constraints = tracker.beliefs(calm.view(0))
    assert all(allows(r, c("RS")) and not allows(r, c("B9")) for r in calm_constraints[1])
    for k in range(20):
        sample = determinize(view, RuleSet(), random.Random(k), known, constraints)
        assert not any(card_code(x) in barred for x in sample.hand(1))


@pytest.mark.parametrize("players", [2, 4])
def test_greedy_would_play_every_card_greedy_plays_and_not_one_it_passes_over(players):
    """The tracker's model of a play (greedy_would_play) accepts every play
    GreedyBot makes at the start of a turn, from its real hand, and the
    preferred_over constraint never excludes a card of that hand; a play
    that leaves the colour it holds less of, or a wild naming a colour it
    holds less of, is refused."""
    from unoplay.game.search import greedy_would_play, preferred_over

    checked = 0
    for seed in range(8):
        for state in _positions(RuleSet(), players, seed, 250):
            seat = state.current
            if state.phase.name != "PLAY":
                continue
            view = state.view(seat)
            action = GreedyBot(seed).decide(view, state.legal_actions(seat))
            if action.kind is not ActionKind.PLAY:
                continue
            nxt = (seat + view.direction) % players
            attack = view.hand_sizes[nxt] <= 2
            hand = list(view.hand)
            assert greedy_would_play(
                hand, action.card, action.colour, view.colour, view.top_card, attack
            )
            if RANK[action.card] < 13:
                barred = preferred_over(action.card, view.colour, view.top_card, attack)
                assert all(allows(barred, x) for x in hand), (hand, action)
            checked += 1
    assert checked > 100
    red, top = COLOUR[c("R5")], c("R5")
    assert greedy_would_play(cs("R2 B5 B7 B1"), c("B5"), -1, red, top, False)
    assert not greedy_would_play(cs("R2 R8 R9 B5"), c("B5"), -1, red, top, False)
    assert greedy_would_play(cs("W R1 R2 B3"), c("W"), red, red, top, False)
    assert not greedy_would_play(cs("W R1 R2 B3"), c("W"), COLOUR[c("B3")], red, top, False)
