"""Engine <-> wire conversions: rule sets, action ids, events and views survive the trip."""

import dataclasses
import random

import pytest
from helpers import rule_sets
from hypothesis import given, settings

from unoplay import wire
from unoplay.game import actions as A
from unoplay.game.engine import GameState
from unoplay.game.rules import OPTION_NAMES, PRESETS, RuleSet, parse_rule
from unoplay.v1 import game_pb2 as pb
from unoplay.v1 import lobby_service_pb2 as ls


def test_every_rule_option_has_a_proto_field():
    fields = set(pb.RuleSet.DESCRIPTOR.fields_by_name)
    assert set(OPTION_NAMES) <= fields, set(OPTION_NAMES) - fields


@settings(max_examples=200, deadline=None)
@given(rules=rule_sets)
def test_rule_sets_round_trip_through_the_wire(rules):
    assert wire.rules_from_pb(wire.rules_pb(rules)) == rules


def test_presets_by_name_on_the_wire():
    for name, rules in PRESETS.items():
        assert wire.rules_from_pb(pb.RuleSet(preset=name)) == rules


async def test_a_table_tells_the_preset_its_rules_are_nearest_and_the_differences(conn):
    house = PRESETS["house"]
    cases = [
        (PRESETS["official"], "official", []),
        (house, "house", []),
        (dataclasses.replace(house, jump_in=False, target_score=100), "house", ["jump_in=false"]),
        (RuleSet(seven_zero=True, uno_penalty=4), "official", ["uno_penalty=4", "seven_zero=true"]),
    ]
    for rules, preset, changed in cases:
        table = await conn.create_table(seats=2, rules=rules)
        reply = await conn.lobby.ListTables(ls.ListTablesRequest(), timeout=10)
        listed = next(t for t in reply.tables if t.table_id == table.table_id)
        assert listed.rules.preset == "official"  # the fields are what is in force
        assert (listed.rules_preset, list(listed.rule_differences)) == (preset, changed)
        options = dict(parse_rule(text) for text in listed.rule_differences)
        rebuilt = RuleSet.from_dict(options, base=PRESETS[preset])
        assert dataclasses.replace(rebuilt, target_score=rules.target_score) == rules


def every_action(players=10):
    out = [A.DRAW, A.KEEP, A.CHALLENGE, A.ACCEPT, A.CALL_UNO]
    out += [A.choose_colour(k) for k in range(4)] + [A.catch(t) for t in range(players)]
    for card in range(108):
        for colour in (None, 0, 1, 2, 3):
            for uno in (False, True):
                for target in range(-1, players):
                    out.append(A.play(card, colour, uno, target))
    return out


def test_action_ids_are_unique_and_round_trip():
    actions = every_action()
    ids = [wire.action_id(a) for a in actions]
    assert len(set(ids)) == len(ids) and min(ids) >= 1
    for action, ident in zip(actions, ids):
        assert wire.action_from_id(ident) == action
        assert wire.action_from_pb(wire.action_pb(action)) == action
    assert wire.action_from_id(0) is None and wire.action_from_id(10**7) is None


def test_events_and_views_round_trip_for_their_receiver():
    game, events = GameState.new(4, seed=3)
    rng = random.Random(3)
    while not game.is_round_over:
        seat = game.current
        events += game.apply(seat, rng.choice(game.legal_actions(seat)))
        for s in range(4):
            assert wire.view_from_pb(wire.view_pb(game.view(s))) == game.view(s)
    for e in events:
        receiver = e.audience if e.audience >= 0 else 0
        assert wire.event_from_pb(wire.event_pb(e), receiver) == e


def test_an_unknown_colour_number_is_refused_as_a_bad_colour():
    from helpers import c

    from unoplay.game.errors import IllegalAction, Reason

    game = GameState.from_position([[c("W"), c("R1")], [c("G2")]], c("R7"))
    for number in (99, 5, -5):
        action = wire.action_from_pb(
            pb.Action(kind=pb.ACTION_KIND_PLAY, card_id=c("W"), colour=number)
        )
        with pytest.raises(IllegalAction) as err:
            game.apply(0, action)
        assert err.value.reason is Reason.BAD_COLOUR


@pytest.mark.parametrize("extras", [[1] * 64_000, list(range(108)) * 10])
def test_a_play_of_more_cards_than_a_deck_keeps_a_decks_worth_and_is_refused(extras):
    """An intent may be held through an out-of-turn window: a play listing
    64,000 more cards (a 64 KB message) keeps no more than a deck's ids,
    and the engine still refuses it (no hand holds them all)."""
    from helpers import c

    from unoplay.game.cards import DECK_SIZE
    from unoplay.game.errors import IllegalAction, Reason
    from unoplay.game.rules import RuleSet

    action = wire.action_from_pb(
        pb.Action(kind=pb.ACTION_KIND_PLAY, card_id=c("R1"), extra_card_ids=extras)
    )
    assert len(action.extra) == DECK_SIZE
    game = GameState.from_position(
        [[c("R1"), c("Y1")], [c("G2")]], c("R7"), rules=RuleSet(multi_play="same_rank")
    )
    with pytest.raises(IllegalAction) as err:
        game.apply(0, action)
    assert err.value.reason in (Reason.CARDS_DO_NOT_GO_TOGETHER, Reason.CARD_NOT_IN_HAND)


@pytest.mark.parametrize("preset", ["official", "house"])
def test_the_shared_update_encoding_parses_to_each_seats_own_update(preset):
    """UpdateEncoder: the public part encoded once for every seat, then each
    seat's hand, drawn card and legal actions; the bytes parse to exactly the
    update update_pb makes, for every seat and the spectators, at every step."""
    from unoplay.game.actions import NONE
    from unoplay.game.messages import SeatInfo, Update
    from unoplay.game.rules import PRESETS
    from unoplay.v1 import game_service_pb2 as gs

    seats = tuple(SeatInfo(i, f"p{i}", i == 2, True, i != 1) for i in range(4))
    game, _ = GameState.new(4, PRESETS[preset], seed=11)
    rng = random.Random(11)
    drawn_seen = 0
    for step in range(400):
        if game.is_round_over:
            break
        deadline, closes = (1764600000.25, 1764600001.5) if step % 3 else (0.0, 0.0)
        encoder = wire.UpdateEncoder(game.view(-1), wire.seat_list_pb(seats), deadline, closes)
        for s in range(-1, 4):
            legal = tuple(game.legal_actions(s)) if s >= 0 else ()
            drawn = game.drawn_card if s == game.current else NONE
            got = gs.PlayerUpdate.FromString(
                encoder.encode(s, game.hand(s) if s >= 0 else (), drawn, legal)
            )
            want = gs.PlayerUpdate.FromString(
                wire.update_pb(Update(game.view(s), legal, deadline, seats, closes))
            )
            assert got == want
            drawn_seen += game.view(s).drawn_card != NONE
        seat = game.current
        game.apply(seat, rng.choice(game.legal_actions(seat)))
    assert drawn_seen  # a drawn card was encoded at least once


def test_an_update_decodes_its_legal_actions_by_id_or_spelled_out():
    from unoplay.game.messages import SeatInfo, Update
    from unoplay.v1 import game_service_pb2 as gs

    game, _ = GameState.new(3, seed=5)
    seat = game.current
    update = Update(
        game.view(seat),
        tuple(game.legal_actions(seat)),
        0.0,
        (SeatInfo(0, "a", False, True, True),),
        0.0,
    )
    msg = gs.PlayerUpdate.FromString(wire.update_pb(update))
    assert wire.update_from_pb(msg) == update
    # An id this version does not know (a newer server's): the action as spelled out.
    msg.legal_actions[0].id = 10**7
    assert wire.update_from_pb(msg).legal == update.legal


def test_a_received_update_reads_each_field_when_asked_and_equals_the_update():
    """message_from_pb gives a LazyUpdate: equal to (and hashed as) the Update
    sent, field by field, however few of its fields were read first; a public
    event decoded twice is the same value."""
    from unoplay.game.messages import SeatInfo, Update
    from unoplay.v1 import game_service_pb2 as gs

    game, events = GameState.new(4, seed=11)
    rng = random.Random(11)
    seats = tuple(SeatInfo(i, f"p{i}", i == 2, True, i != 3) for i in range(4))
    checked = 0
    while not game.is_round_over:
        seat = game.current
        for s in range(4):
            sent = Update(game.view(s), tuple(game.legal_actions(s)), 12.5, seats, 3.25)
            body = wire.message_body(sent)
            got = wire.message_from_pb(gs.TableMessage.FromString(body), s)
            assert isinstance(got, wire.LazyUpdate) and isinstance(got, Update)
            if checked % 3 == 0:
                assert got.legal == sent.legal  # only the legal actions read yet
            elif checked % 3 == 1:
                assert got.view == sent.view
            assert got == sent and sent == got and hash(got) == hash(sent)
            assert (got.deadline, got.window_closes, got.seats) == (12.5, 3.25, seats)
            assert dataclasses.replace(got, legal=()) == dataclasses.replace(sent, legal=())
            checked += 1
        events += game.apply(seat, rng.choice(game.legal_actions(seat)))
    public = [e for e in events if e.audience < 0]
    twice = [
        wire.message_from_pb(gs.TableMessage.FromString(wire.message_body(e)), 1)
        for e in public * 2
    ]
    assert twice == public * 2
    private = next(e for e in events if e.audience >= 0)
    got = wire.message_from_pb(gs.TableMessage.FromString(wire.message_body(private)), 3)
    assert got == private._replace(audience=3)  # as the receiver 3 got it


def test_the_shared_view_bytes_parse_to_the_view_pb_of_any_view():
    """UpdateEncoder's public view, built from bytes, parses to what view_pb
    makes, with every field set: scores, winners, seats out, negative ints."""
    import dataclasses

    from unoplay.game.messages import SeatInfo
    from unoplay.game.rules import PRESETS
    from unoplay.game.view import Phase
    from unoplay.v1 import game_service_pb2 as gs

    seats = wire.seat_list_pb(SeatInfo(i, f"p{i}", i == 0, True, True) for i in range(4))
    game, _ = GameState.new(4, PRESETS["official"], seed=5)
    base = game.view(-1)
    views = [
        base,
        dataclasses.replace(
            base,
            scores=(0, 120, -3, 2**20),
            game_winners=(1, 3),
            out_seats=(2,),
            round_winner=-1,
            catchable=3,
            dealer=2,
            round_number=7,
            pending_penalty=4,
            direction=-1,
            phase=Phase(max(int(p) for p in Phase)),
            uno_called=(True, False, False, True),
            draw_pile_size=0,
            colour=-1,
        ),
    ]
    for view in views:
        for deadline, closes in ((0.0, 0.0), (1764600000.25, 1764600001.5)):
            got = gs.PlayerUpdate.FromString(
                wire.UpdateEncoder(view, seats, deadline, closes).encode(-1, (), -1, ())
            )
            want = gs.PlayerUpdate(
                view=wire.view_pb(view, seats),
                deadline_unix_ms=round(deadline * 1000),
                window_closes_unix_ms=round(closes * 1000),
            )
            assert got == want
