"""Fair deals in the game package (server/RULES.md, "Fair deals";
proto/README.md section 11): the chance stream is the documented SHAKE-256
counter mode, not Mersenne Twister; the commitment is the documented text;
the published deal check replays the engine's piles exactly under any rules,
and finds an altered card or another seed."""

from __future__ import annotations

import hashlib
import random

from helpers import play_out, rule_sets
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from unoplay.game.deals import (
    DealRandom,
    DealReveal,
    check_deals,
    commitment,
    commitment_text,
    seed_key,
)
from unoplay.game.events import EventKind
from unoplay.game.rules import OFFICIAL, PRESETS, GameFormat, RuleSet

WAIT = 60


# ------------------------------------------------------------------ the PRF


def spec_words(seed: str, count: int) -> list[int]:
    """The stream as proto/README.md section 11 states it, computed here from its text."""
    key = hashlib.sha256(b"unoplay deal v1\n" + seed.encode()).digest()
    words: list[int] = []
    block = 0
    while len(words) < count:
        data = hashlib.shake_256(key + block.to_bytes(8, "little")).digest(1024)
        words += [int.from_bytes(data[i : i + 4], "little") for i in range(0, 1024, 4)]
        block += 1
    return words[:count]


def test_the_stream_is_the_documented_shake256_counter_mode():
    words = spec_words("example", 600)  # across a block boundary (256 words a block)
    r = DealRandom("example")
    assert [r.getrandbits(32) for _ in range(600)] == words
    # The guide's test vectors.
    assert (
        seed_key("example").hex()
        == "7f00c79a6d14954c0cd6219e899de955fdd592d90869a8a9e98c9559e695dcd9"
    )
    assert words[:4] == [3952049818, 1743753990, 2310317196, 2908085203]
    r = DealRandom("example")
    assert [r.below(108) for _ in range(8)] == [99, 43, 58, 73, 55, 47, 24, 45]
    assert [(w * 108) >> 32 for w in words[:8]] == [99, 43, 58, 73, 55, 47, 24, 45]


def test_same_key_same_stream_other_key_unrelated_and_every_draw_from_it():
    a, b, other = DealRandom("seed-1"), DealRandom("seed-1"), DealRandom("seed-2")
    xs = [a.getrandbits(32) for _ in range(2000)]
    assert xs == [b.getrandbits(32) for _ in range(2000)]
    ys = [other.getrandbits(32) for _ in range(2000)]
    assert sum(x == y for x, y in zip(xs, ys)) < 3  # unrelated: equal words by chance only
    # random() and getrandbits() take the same stream: random() is 53 bits of two words.
    words = spec_words("seed-1", 4)
    r = DealRandom("seed-1")
    assert r.random() == (((words[0] << 32) | words[1]) >> 11) / 2**53
    assert r.getrandbits(64) == (words[2] << 32) | words[3]
    # Random's own helpers (shuffle, choice, randrange) draw from it too.
    x, y = DealRandom("s"), DealRandom("s")
    deck = list(range(108))
    x.shuffle(deck)
    assert deck != list(range(108)) and deck == (y.shuffle(d := list(range(108))) or d)
    # An int seed stands for its decimal text; a copy goes on from the same point.
    assert DealRandom(7).getrandbits(32) == DealRandom("7").getrandbits(32)
    c = DealRandom("c")
    c.getrandbits(32 * 300)
    d = c.copy()
    assert [c.below(50) for _ in range(300)] == [d.below(50) for _ in range(300)]


def test_it_is_not_mersenne_twister():
    r = DealRandom(12345)
    assert type(r).random is not random.Random.random
    mt = random.Random(12345)
    assert [r.getrandbits(32) for _ in range(100)] != [mt.getrandbits(32) for _ in range(100)]
    # Mersenne Twister's next output is a fixed function of its 624 previous
    # ones (the tempering inverts); this stream's is not.
    outputs = [r.getrandbits(32) for _ in range(625)]
    assert outputs[-1] != _mt_predict(outputs[:624])


def _untemper(y: int) -> int:
    y ^= y >> 18
    y ^= (y << 15) & 0xEFC60000
    t = y
    for _ in range(5):
        t = y ^ ((t << 7) & 0x9D2C5680)
    y = t
    t = y
    for _ in range(3):
        t = y ^ (t >> 11)
    return t & 0xFFFFFFFF


def _mt_predict(outputs: list[int]) -> int:
    state = [_untemper(o) for o in outputs]
    mt = random.Random()
    mt.setstate((3, tuple(state + [624]), None))
    return mt.getrandbits(32)


def test_the_mersenne_predictor_works_on_mersenne_twister():
    mt = random.Random(99)
    outputs = [mt.getrandbits(32) for _ in range(625)]
    assert _mt_predict(outputs[:624]) == outputs[624]  # so the test above can fail


# ------------------------------------------------------------------ commitment


def test_the_commitment_is_the_documented_text_and_binds_rules_seats_and_table():
    salt = "00112233445566778899aabbccddeeff"
    text = commitment_text("example", salt, "t1-abc123", 4, OFFICIAL.to_dict())
    assert text.startswith(
        "unoplay deal commitment v1\ntable: t1-abc123\nseats: 4\nrules: "
        "challenge_success_skips_challenger=true,false_uno_penalty=0,"
    )
    assert text.endswith(f",wrong_play_penalty=0\nsalt: {salt}\nseed: example\n")
    value = commitment("example", salt, "t1-abc123", 4, OFFICIAL.to_dict())
    assert value == "468bc9c4c6c39c96f17da6690e08851991ca8103e8fc588c8bead20c3f1c4e51"
    assert value == hashlib.sha256(text.encode()).hexdigest()
    assert value != commitment("example", salt, "t1-abc123", 5, OFFICIAL.to_dict())
    assert value != commitment("example", salt, "t2-abc123", 4, OFFICIAL.to_dict())
    assert value != commitment("example", salt, "t1-abc123", 4, PRESETS["house"].to_dict())
    assert value != commitment("example", "0" * 32, "t1-abc123", 4, OFFICIAL.to_dict())


# ------------------------------------------------------------------ the published check


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.text(min_size=1, max_size=20),
    players=st.sampled_from([2, 3, 4, 6, 8, 10]),
    rules=rule_sets,
    fmt=st.sampled_from(GameFormat),
)
@example(  # a last Wild Draw Four that draws one (number_first_and_last), challenged
    seed="C\U000519ccBª_lm\U000b3484OÊ\x1d\U00090a4d\U000d8472\U0010f6e0",
    players=3,
    rules=RuleSet(
        initial_direction="counter_clockwise",
        unnamed_wild_keeps_colour=True,
        challenge_success_skips_challenger=False,
        uno_penalty=4,
        target_score=0,
        stacking="draw_two",
        jump_in=True,
        multi_play="same_rank",
        number_first_and_last=True,
        wrong_play_penalty=1,
    ),
    fmt=GameFormat.ELIMINATION,
)
def test_every_seat_checks_every_card_it_saw_under_any_rules(seed, players, rules, fmt):
    """The algorithm of the guide (deals.DealCheck) replays exactly the engine's
    piles, for every seat and a spectator, under every option and format."""
    if fmt is GameFormat.TEAMS and players not in (4, 6, 8):
        fmt = GameFormat.STANDARD
    change: dict = {"format": fmt}
    if fmt is GameFormat.ELIMINATION:
        change["target_score"] = 0
    elif fmt is GameFormat.TOURNAMENT:
        change.update(scoring="penalty", target_score=max(rules.target_score, 30))
    rules = rules.replace(**change)
    events = play_out(players, rules, seed, random.Random(seed))
    reveal = DealReveal(
        seed, "ab" * 16, commitment(seed, "ab" * 16, "t1", players, rules.to_dict())
    )
    for seat in range(-1, players):
        check = check_deals(
            events,
            seat,
            reveal,
            table_id="t1",
            players=players,
            rules=rules.to_dict(),
            commitment_seen=reveal.commitment,
        )
        assert check.problems == [] and check.checked > 0


def test_an_altered_card_or_a_wrong_seed_is_found():
    rules = RuleSet(target_score=0)
    events = play_out(4, rules, "honest", random.Random(1))
    reveal = DealReveal("honest", "s", commitment("honest", "s", "t", 4, rules.to_dict()))
    kw = dict(table_id="t", players=4, rules=rules.to_dict())
    assert check_deals(events, 0, reveal, **kw).fair
    # Seat 0's dealt hand with one card changed.
    i = next(i for i, e in enumerate(events) if e.kind is EventKind.HAND_DEALT and e.player == 0)
    forged = list(events)
    cards = list(forged[i].cards)
    cards[0] = next(c for c in range(108) if c not in cards)
    forged[i] = forged[i]._replace(cards=tuple(cards))
    check = check_deals(forged, 0, reveal, **kw)
    assert not check.fair and "the hand dealt to seat 0" in check.problems[0]
    # Another seed than the one committed to.
    other = DealReveal("other", "s", reveal.commitment)
    problems = check_deals(events, 0, other, **kw).problems
    assert "do not give the revealed commitment" in problems[0] and len(problems) > 1
    # A commitment other than the one sent at the start.
    assert not check_deals(events, 0, reveal, commitment_seen="0" * 64, **kw).fair
