"""Conversions between the game's values (``unoplay.game``) and the
``unoplay.v1`` protobuf messages, both ways.

Used by the service (game -> wire) and by the Python client SDK (wire ->
game values, so bots and the TUI see the same values as the server, and no
protobuf). No I/O here.

Action ids on the wire are stable (see :func:`action_id`): the same action
always has the same id, so a stale id can never mean a different action.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any, cast

from unoplay.game.actions import NONE, Action, ActionKind, catch, choose_colour, play
from unoplay.game.cards import COLOUR, DECK_SIZE, RANK, WILD
from unoplay.game.deals import DealReveal
from unoplay.game.events import EVERYONE, Event, EventKind
from unoplay.game.messages import (
    Message,
    Refusal,
    SeatInfo,
    SeatsChanged,
    TableInfo,
    TableState,
    Update,
    Welcome,
)
from unoplay.game.rules import (
    OPTION_NAMES,
    RuleError,
    RuleSet,
    nearest_preset,
    option_text,
    parse_option,
    preset,
    unknown_options,
)
from unoplay.game.view import Phase, PlayerView
from unoplay.v1 import game_pb2 as pb
from unoplay.v1 import game_service_pb2 as gs
from unoplay.v1 import lobby_service_pb2 as ls

# ----------------------------------------------------------------- cards


def _card_pb(card: int) -> pb.Card:
    colour = COLOUR[card]
    return pb.Card(
        id=card,
        colour=cast(pb.Colour, 0 if colour == WILD else colour + 1),
        rank=cast(pb.Rank, RANK[card] + 1),
    )


#: The 108 cards as messages, made once (copied when added to a message).
CARDS_PB: tuple[pb.Card, ...] = tuple(_card_pb(c) for c in range(DECK_SIZE))


def colour_pb(colour: int) -> pb.Colour:
    """Game colour (0..3, or -1 for none) to ``pb.Colour`` (0: unspecified)."""
    return cast(pb.Colour, colour + 1 if 0 <= colour <= 3 else 0)


def colour_from_pb(colour: int) -> int:
    """``pb.Colour`` to engine colour 0..3, or -1 (NONE) for unspecified/unknown."""
    return colour - 1 if 1 <= colour <= 4 else NONE


# ----------------------------------------------------------------- actions
#
# Stable action ids: DRAW 1, KEEP 2, CHALLENGE 3, ACCEPT 4, CALL_UNO 5,
# CHOOSE_COLOUR 10 + colour, CATCH 20 + seat,
# PLAY 100 + ((card*5 + colour+1)*2 + uno)*11 + target+1,
# a multi-card PLAY 20000 + (((card*256 + mask)*5 + colour+1)*2 + uno)*11 + target+1,
# where bit i of mask is set when the i-th card (by id) of card's rank is among
# the extra cards (a rank has at most 8 cards).

_MULTI_BASE = 20000
#: ``_RANK_CARDS[rank]``: the ids of every card of that rank, increasing.
_RANK_CARDS = tuple(tuple(c for c in range(DECK_SIZE) if RANK[c] == r) for r in range(15))

_SIMPLE_IDS = {
    ActionKind.DRAW: 1,
    ActionKind.KEEP: 2,
    ActionKind.CHALLENGE: 3,
    ActionKind.ACCEPT: 4,
    ActionKind.CALL_UNO: 5,
}
_SIMPLE_FROM_ID = {v: Action(k) for k, v in _SIMPLE_IDS.items()}


def action_id(action: Action) -> int:
    """The stable wire id of an engine action: 1..11979 for a single action,
    20000..3060000 for a multi-card play (see the table above)."""
    kind = action.kind
    if kind is ActionKind.PLAY:
        if action.extra:
            group = _RANK_CARDS[RANK[action.card]]
            mask = sum(1 << group.index(card) for card in action.extra)
            return (
                _MULTI_BASE
                + (((action.card * 256 + mask) * 5 + action.colour + 1) * 2 + int(action.uno)) * 11
                + action.target
                + 1
            )
        return (
            100
            + ((action.card * 5 + action.colour + 1) * 2 + int(action.uno)) * 11
            + action.target
            + 1
        )
    if kind is ActionKind.CHOOSE_COLOUR:
        return 10 + action.colour
    if kind is ActionKind.CATCH:
        return 20 + action.target
    return _SIMPLE_IDS[kind]


@lru_cache(maxsize=16384)
def action_from_id(ident: int) -> Action | None:
    """The engine action with wire id ``ident``, or None if no action has it
    (one shared value per id: actions are immutable)."""
    if ident >= _MULTI_BASE:
        rest, target = divmod(ident - _MULTI_BASE, 11)
        rest, uno = divmod(rest, 2)
        rest, colour = divmod(rest, 5)
        card, mask = divmod(rest, 256)
        if card >= DECK_SIZE:
            return None
        group = _RANK_CARDS[RANK[card]]
        if mask >> len(group) or mask >> group.index(card) & 1 or not mask:
            return None
        extra = tuple(c for i, c in enumerate(group) if mask >> i & 1)
        return play(card, colour - 1 if colour else None, bool(uno), target - 1, extra)
    if ident >= 100:
        rest, target = divmod(ident - 100, 11)
        rest, uno = divmod(rest, 2)
        card, colour = divmod(rest, 5)
        if card < DECK_SIZE:
            return play(card, colour - 1 if colour else None, bool(uno), target - 1)
        return None
    if 20 <= ident < 30:
        return catch(ident - 20)
    if 10 <= ident < 14:
        return choose_colour(ident - 10)
    return _SIMPLE_FROM_ID.get(ident)


def action_pb(action: Action) -> pb.Action:
    """Engine action to ``pb.Action``."""
    kind = cast(pb.ActionKind, int(action.kind))
    msg = pb.Action(kind=kind, colour=colour_pb(action.colour), uno=action.uno)
    if action.kind is ActionKind.PLAY:
        msg.card_id = action.card
    if action.target != NONE:
        msg.target = action.target
    if action.extra:
        msg.extra_card_ids.extend(action.extra)
    return msg


def action_from_pb(msg: pb.Action) -> Action:
    """``pb.Action`` to an engine action. Values the engine does not know are kept
    (an unknown kind, a card id out of range) so the engine refuses them with a reason."""
    kind = msg.kind
    # An unknown colour number stays out of range, so that the engine says bad_colour.
    colour = colour_from_pb(msg.colour) if 0 <= msg.colour <= 4 else 4 + abs(msg.colour)
    if kind == pb.ACTION_KIND_PLAY:
        card = msg.card_id if msg.HasField("card_id") else NONE
        target = msg.target if msg.HasField("target") else NONE
        # A play lays at most DECK_SIZE - 1 more cards: past that it is refused
        # whatever follows, so no more is kept (an intent may be held a while).
        extra = tuple(msg.extra_card_ids[:DECK_SIZE])
        return play(card, None if colour == NONE else colour, msg.uno, target, extra)
    if kind == pb.ACTION_KIND_CATCH:
        return catch(msg.target if msg.HasField("target") else NONE)
    if kind == pb.ACTION_KIND_CHOOSE_COLOUR:
        return choose_colour(colour)
    try:
        return Action(ActionKind(kind))
    except ValueError:
        return Action(kind)  # type: ignore[arg-type]  # refused by the engine


def legal_pb(actions: Iterable[Action]) -> list[pb.LegalAction]:
    """Legal actions as ``pb.LegalAction`` messages with ids and labels."""
    return [_legal_action_pb(a) for a in actions]


def _legal_action_pb(action: Action) -> pb.LegalAction:
    return pb.LegalAction(id=action_id(action), action=action_pb(action), label=action.describe())


# ----------------------------------------------------------------- events


def event_pb(event: Event) -> pb.Event:
    """Engine event to ``pb.Event``. Check the audience before sending it!

    Not cached: the logs keep events encoded (:func:`event_body`), and a
    cached message costs about a kilobyte where its bytes cost tens."""
    return pb.Event(
        kind=cast(pb.EventKind, int(event.kind)),
        player=event.player,
        cards=[CARDS_PB[c] for c in event.cards],
        count=event.count,
        colour=colour_pb(event.colour),
        target=event.target,
        value=event.value,
        private=event.audience != EVERYONE,
    )


#: Event kinds and phases by number: a dictionary look-up, not an enum call (a
#: client decodes every event and view of its stream).
_EVENT_KINDS: dict[int, EventKind] = {int(k): k for k in EventKind}
_PHASES: dict[int, Phase] = {int(p): p for p in Phase}


def event_from_pb(msg: pb.Event, seat: int) -> Event:
    """``pb.Event`` received by ``seat`` back to an engine event. Raises
    ValueError for a kind this version does not know."""
    kind = msg.kind
    return Event(
        _EVENT_KINDS.get(kind) or EventKind(kind),
        msg.player,
        seat if msg.private else EVERYONE,
        tuple(c.id for c in msg.cards),
        msg.count,
        colour_from_pb(msg.colour),
        msg.target,
        msg.value,
    )


# ----------------------------------------------------------------- views


def view_pb(view: PlayerView, seats: Sequence[pb.SeatInfo] = ()) -> pb.PlayerView:
    """Engine view (already restricted to one seat) to ``pb.PlayerView``."""
    msg = pb.PlayerView(
        seat=view.seat,
        hand=[CARDS_PB[c] for c in view.hand],
        hand_sizes=view.hand_sizes,
        top_card=CARDS_PB[view.top_card],
        colour=colour_pb(view.colour),
        direction=pb.DIRECTION_CLOCKWISE if view.direction == 1 else pb.DIRECTION_COUNTER_CLOCKWISE,
        current=view.current,
        phase=cast(pb.Phase, int(view.phase)),
        pending_penalty=view.pending_penalty,
        uno_called=view.uno_called,
        catchable=view.catchable,
        draw_pile_size=view.draw_pile_size,
        discard_pile_size=view.discard_pile_size,
        scores=view.scores,
        dealer=view.dealer,
        round_number=view.round_number,
        round_winner=view.round_winner,
        game_winners=view.game_winners,
        seats=seats,
        out_seats=view.out_seats,
    )
    if view.drawn_card != NONE:
        msg.drawn_card.CopyFrom(CARDS_PB[view.drawn_card])
    return msg


def view_from_pb(msg: pb.PlayerView) -> PlayerView:
    """``pb.PlayerView`` back to the engine's :class:`PlayerView`."""
    return PlayerView(
        seat=msg.seat,
        hand=tuple(c.id for c in msg.hand),
        hand_sizes=tuple(msg.hand_sizes),
        top_card=msg.top_card.id,
        colour=colour_from_pb(msg.colour),
        direction=-1 if msg.direction == pb.DIRECTION_COUNTER_CLOCKWISE else 1,
        current=msg.current,
        phase=_PHASES.get(msg.phase) or Phase(msg.phase),
        pending_penalty=msg.pending_penalty,
        drawn_card=msg.drawn_card.id if msg.HasField("drawn_card") else NONE,
        uno_called=tuple(msg.uno_called),
        catchable=msg.catchable,
        draw_pile_size=msg.draw_pile_size,
        discard_pile_size=msg.discard_pile_size,
        scores=tuple(msg.scores),
        dealer=msg.dealer,
        round_number=msg.round_number,
        round_winner=msg.round_winner,
        game_winners=tuple(msg.game_winners),
        out_seats=tuple(msg.out_seats),
    )


# ----------------------------------------------------------------- rule sets


def _enum_prefix(field: Any) -> str:  # a FieldDescriptor (upb's or the Python one)
    name: str = field.enum_type.values_by_number[0].name
    return name.removesuffix("UNSPECIFIED")


@lru_cache(maxsize=256)
def rules_pb(rules: RuleSet) -> pb.RuleSet:
    """A rule set with every field filled in. The message is shared (made once
    per rule set; every table listing holds one): copy it before changing it."""
    msg = pb.RuleSet(preset="official")
    fields = pb.RuleSet.DESCRIPTOR.fields_by_name
    for name, value in rules.to_dict().items():
        field = fields[name]
        if field.enum_type is not None:
            setattr(
                msg,
                name,
                field.enum_type.values_by_name[_enum_prefix(field) + value.upper()].number,
            )
        else:
            setattr(msg, name, value)
    return msg


def rules_from_pb(msg: pb.RuleSet) -> RuleSet:
    """The rule set a client asked for: the preset, then every field that is set.

    Raises RuleError (a ValueError) naming a bad preset or option.
    """
    return _rules_from_bytes(msg.SerializeToString(deterministic=True))


@lru_cache(maxsize=256)
def _rules_from_bytes(data: bytes) -> RuleSet:
    """:func:`rules_from_pb` of an encoded RuleSet: judged once per rule set
    (a client decodes the table's rules with every welcome and snapshot)."""
    msg = pb.RuleSet.FromString(data)
    base = preset(msg.preset or "official")
    fields = pb.RuleSet.DESCRIPTOR.fields_by_name
    options = {}
    for name in OPTION_NAMES:
        field = fields[name]
        if field.enum_type is not None:
            number = getattr(msg, name)
            if number == 0:
                continue
            value = field.enum_type.values_by_number.get(number)
            if value is None:
                raise RuleError(f"{name}: unknown value {number}")
            options[name] = value.name.removeprefix(_enum_prefix(field)).lower()
        elif msg.HasField(name):
            value = getattr(msg, name)
            options[name] = value
    return RuleSet.from_dict(options, base=base)


# ----------------------------------------------------------------- tables and stream messages

_TABLE_STATE = {
    TableState.WAITING: ls.TABLE_STATE_WAITING,
    TableState.PLAYING: ls.TABLE_STATE_PLAYING,
    TableState.FINISHED: ls.TABLE_STATE_FINISHED,
}
_TABLE_STATE_FROM = {v: k for k, v in _TABLE_STATE.items()}


def seat_list_pb(seats: Iterable[SeatInfo]) -> tuple[pb.SeatInfo, ...]:
    """``seats`` as protobuf SeatInfo messages. Not cached: a table keeps its
    own (Table keeps the list it last showed), where a cache keyed by seat
    lists held every list any table had shown, thousands of tracked objects
    that each full garbage collection walked."""
    return tuple(
        pb.SeatInfo(seat=s.seat, name=s.name, bot=s.bot, occupied=s.occupied, connected=s.connected)
        for s in seats
    )


def seats_pb(info: TableInfo) -> list[pb.SeatInfo]:
    """Public seat list of a table."""
    return list(seat_list_pb(info.seats))


def table_pb(info: TableInfo) -> ls.Table:
    """Public table snapshot as a message."""
    rules_preset, rule_differences = _nearest(info.rules)
    return ls.Table(
        table_id=info.table_id,
        title=info.title,
        seats=seats_pb(info),
        rules=rules_pb(info.rules),
        turn_seconds=info.turn_seconds,
        state=_TABLE_STATE[info.state],
        scores=info.scores,
        away_grace_seconds=int(info.away_grace),
        window_ms=info.window_ms,
        seeded=info.seeded,
        max_round_actions=info.max_round_actions,
        rematch_votes=info.rematch_votes,
        games=info.games,
        rules_preset=rules_preset,
        rule_differences=rule_differences,
        arena=info.arena,
    )


@lru_cache(maxsize=256)
def _nearest(rules: RuleSet) -> tuple[str, tuple[str, ...]]:
    """The table message's rules_preset and rule_differences for ``rules``."""
    name, changed = nearest_preset(rules)
    return name, tuple(f"{option}={option_text(value)}" for option, value in changed)


def fill_update(target: gs.PlayerUpdate, message: Update) -> None:
    """Write ``message`` into ``target`` in place (one copy fewer than nesting)."""
    target.view.CopyFrom(view_pb(message.view, seat_list_pb(message.seats)))
    target.legal_actions.extend(legal_pb(message.legal))
    target.deadline_unix_ms = round(message.deadline * 1000)
    target.window_closes_unix_ms = round(message.window_closes * 1000)


def fill_message(target: gs.TableMessage, seq: int, message: Message) -> None:
    """Write log entry ``message`` with sequence number ``seq`` into ``target``."""
    target.seq = seq
    if isinstance(message, Update):
        fill_update(target.update, message)
    elif isinstance(message, Welcome):
        welcome = target.welcome
        welcome.seat = message.seat
        welcome.table.CopyFrom(table_pb(message.table))
        welcome.deal_commitment = message.commitment
    elif isinstance(message, Refusal):
        error = target.error
        error.reason = message.reason
        error.message = message.message
        error.action_id = message.action_id
        error.race = message.race
    elif isinstance(message, SeatsChanged):
        target.seats_changed.seats.extend(seat_list_pb(message.seats))
    elif isinstance(message, DealReveal):
        revealed = target.deal_revealed
        revealed.seed = message.seed
        revealed.salt = message.salt
        revealed.commitment = message.commitment
    else:
        target.event.CopyFrom(event_pb(message))


def message_pb(seq: int, message: Message) -> gs.TableMessage:
    """One log entry of a seat as the wire message with sequence number ``seq``."""
    msg = gs.TableMessage()
    fill_message(msg, seq, message)
    return msg


#: A seat's facts to its (shared) SeatInfo: every update repeats every seat's.
_seat_info = lru_cache(maxsize=4096)(SeatInfo)


def seat_from_pb(msg: pb.SeatInfo) -> SeatInfo:
    """``pb.SeatInfo`` to the game's :class:`SeatInfo` (shared: do not rely on identity)."""
    return _seat_info(msg.seat, msg.name, msg.bot, msg.occupied, msg.connected)


def seats_from_pb(msgs: Iterable[pb.SeatInfo]) -> tuple[SeatInfo, ...]:
    """A list of ``pb.SeatInfo`` to a tuple of :class:`SeatInfo`, by seat."""
    return tuple([_seat_info(m.seat, m.name, m.bot, m.occupied, m.connected) for m in msgs])


def table_from_pb(msg: ls.Table) -> TableInfo:
    """``ls.Table`` to the game's :class:`TableInfo`. Raises RuleError (a
    ValueError) for rules this version does not know (a newer server's option)."""
    return TableInfo(
        table_id=msg.table_id,
        title=msg.title,
        seats=seats_from_pb(msg.seats),
        rules=rules_from_pb(msg.rules),
        turn_seconds=msg.turn_seconds,
        state=_TABLE_STATE_FROM.get(msg.state, TableState.WAITING),
        scores=tuple(msg.scores),
        away_grace=float(msg.away_grace_seconds),
        window_ms=msg.window_ms,
        seeded=msg.seeded,
        max_round_actions=msg.max_round_actions,
        rematch_votes=tuple(msg.rematch_votes),
        games=msg.games,
        arena=msg.arena,
    )


@lru_cache(maxsize=16384)
def _action_with_id(ident: int) -> Action | None:
    return action_from_id(ident)


def _legal_from_pb(msg: pb.LegalAction) -> Action:
    """The action of a legal action: by its id (decoded once per id), or spelled
    out when the id is one this version does not know (a newer server's)."""
    return _action_with_id(msg.id) or action_from_pb(msg.action)


#: How each field of an :class:`Update` is read from a ``gs.PlayerUpdate``
#: (times in Unix seconds).
_UPDATE_READERS: dict[str, Callable[[gs.PlayerUpdate], Any]] = {
    "view": lambda msg: view_from_pb(msg.view),
    "legal": lambda msg: tuple([_legal_from_pb(a) for a in msg.legal_actions]),
    "deadline": lambda msg: msg.deadline_unix_ms / 1000,
    "seats": lambda msg: seats_from_pb(msg.view.seats),
    "window_closes": lambda msg: msg.window_closes_unix_ms / 1000,
}


def update_from_pb(msg: gs.PlayerUpdate) -> Update:
    """``gs.PlayerUpdate`` to the game's :class:`Update` (times in Unix seconds)."""
    return Update(**{name: read(msg) for name, read in _UPDATE_READERS.items()})


class LazyUpdate(Update):
    """An :class:`Update` whose fields are read from ``msg`` (a
    ``gs.PlayerUpdate``) one by one, the first time each is read. A client's
    stream brings an update after every change at the table, and a bot reads
    the view of only those it acts on (``legal`` alone tells it whether it
    may act). Equal to, and hashed as, the Update it reads as; a copy is a
    plain Update, and ``dataclasses.replace`` gives one with every field set.
    A field this version cannot read (a newer server's phase)
    raises ValueError when it is read, not when the message arrives. It
    keeps ``msg`` (and the response it came in) as long as it lives."""

    __slots__ = ("_msg",)

    def __init__(self, msg: gs.PlayerUpdate | None = None, /, **fields: Any) -> None:
        """Read from ``msg``; or (``dataclasses.replace``) every field given."""
        object.__setattr__(self, "_msg", msg)
        for name, value in fields.items():
            object.__setattr__(self, name, value)

    def __reduce__(self) -> tuple[Any, ...]:  # a copy or a pickle is a plain Update
        return (Update, _update_fields(self))

    def __getattr__(self, name: str) -> Any:  # a field not read yet (its slot is empty)
        read = _UPDATE_READERS.get(name)
        if read is None:
            raise AttributeError(name)
        value = read(object.__getattribute__(self, "_msg"))
        object.__setattr__(self, name, value)
        return value

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Update):
            return NotImplemented
        return _update_fields(self) == _update_fields(other)

    def __hash__(self) -> int:
        return hash(_update_fields(self))


def _update_fields(u: Update) -> tuple[Any, ...]:
    return tuple([getattr(u, name) for name in _UPDATE_READERS])


#: Public events decoded, by their bytes (events repeat: the same play by the
#: same seat of the same card); emptied when full.
_public_events: dict[bytes, Event] = {}


def _received_event(msg: pb.Event, seat: int) -> Event:
    if msg.private:
        return event_from_pb(msg, seat)
    key = msg.SerializeToString()
    event = _public_events.get(key)
    if event is None:
        if len(_public_events) >= 8192:
            _public_events.clear()
        event = _public_events[key] = event_from_pb(msg, seat)
    return event


def message_from_pb(msg: gs.TableMessage, seat: int) -> Message | None:
    """One stream message received by ``seat`` (-1 a spectator) as a game
    value; None for a body this version does not know (a newer server's). An
    update is a :class:`LazyUpdate`; a public event may be shared (events are
    immutable values)."""
    body = msg.WhichOneof("body")
    if body == "event":
        return _received_event(msg.event, seat)
    if body == "update":
        return LazyUpdate(msg.update)
    if body == "error":
        e = msg.error
        return Refusal(e.reason, e.message, e.action_id, e.race)
    if body == "seats_changed":
        return SeatsChanged(seats_from_pb(msg.seats_changed.seats))
    if body == "welcome":
        return Welcome(
            msg.welcome.seat, table_from_pb(msg.welcome.table), msg.welcome.deal_commitment
        )
    if body == "deal_revealed":
        d = msg.deal_revealed
        return DealReveal(d.seed, d.salt, d.commitment)
    return None


def rules_request_pb(preset_name: str, options: Mapping[str, object]) -> pb.RuleSet:
    """A ``RuleSet`` message asking for ``preset_name`` with every option of
    ``options`` set, without judging the values (the server does, and names
    the option it refuses). Choices are their names, e.g. ``"same_rank"``;
    a text for a switch or a number is read as a command line's
    (:func:`~unoplay.game.rules.parse_option`: ``"on"``, ``"300"``). Raises
    RuleError for an unknown option or choice name, and for a value the
    message cannot carry (a negative count, a text that is no number)."""
    msg = pb.RuleSet(preset=preset_name)
    fields = pb.RuleSet.DESCRIPTOR.fields_by_name
    for name, value in options.items():
        field = fields.get(name)
        if field is None or name == "preset":
            raise unknown_options([name])
        if field.enum_type is not None:
            number = field.enum_type.values_by_name.get(_enum_prefix(field) + str(value).upper())
            if number is None:
                raise RuleError(f"{name}: {value!r} is not a known value")
            setattr(msg, name, number.number)
        else:
            if isinstance(value, str):
                value = parse_option(name, value)
            try:
                setattr(msg, name, value)
            except (TypeError, ValueError) as err:
                raise RuleError(f"{name}: {value!r} cannot be asked for ({err})") from None
    return msg


# ----------------------------------------------------------------- stream bytes
#
# A stream's messages are kept and sent as bytes: each message once encoded as
# the body of a TableMessage (its oneof field, without the seq), a response
# put together from them. Protobuf's encoding of a message is the
# concatenation of its fields' encodings, so TableMessage(seq, body) is the
# seq field's bytes followed by the body's, and a PlayResponse (or
# SpectateResponse: the same field numbers) is its messages, each as field 1,
# then its snapshot as field 2. tests/server/test_wire.py checks the bytes
# against the protobuf library's own.


def _encode_varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


#: The varints of 0..16383 (one and two bytes): every length and most seqs.
_VARINTS = tuple(_encode_varint(n) for n in range(1 << 14))


def varint(value: int) -> bytes:
    """``value`` (>= 0) as a protobuf varint."""
    return _VARINTS[value] if 0 <= value < 16384 else _encode_varint(value)


#: Each byte value as a one-byte string (a field's tag).
_BYTES = tuple(bytes((n,)) for n in range(256))

#: -1 as an int32 varint (ten bytes: a spectator's seat).
_MINUS_ONE = _encode_varint(0xFFFFFFFFFFFFFFFF)


def _field(tag: int, payload: bytes) -> bytes:
    """A length-delimited field: its tag byte (field number << 3 | 2), length, payload."""
    return _BYTES[tag] + varint(len(payload)) + payload


_EVENT, _UPDATE, _WELCOME, _ERROR, _SEATS, _REVEAL = 0x1A, 0x22, 0x12, 0x2A, 0x32, 0x3A


@lru_cache(maxsize=16384)
def event_body(event: Event) -> bytes:
    """The TableMessage body of ``event`` (shared: hot-path events are interned,
    so every seat's log holds one copy of each public event's bytes)."""
    return _field(_EVENT, event_pb(event).SerializeToString())


def update_pb(message: Update) -> bytes:
    """The PlayerUpdate of ``message``, encoded."""
    target = gs.PlayerUpdate()
    fill_update(target, message)
    return target.SerializeToString()


#: Each card as an encoded PlayerView field: a card of the hand (field 2), the
#: drawn card (field 10).
_HAND_CARD = tuple(_field(0x12, card.SerializeToString()) for card in CARDS_PB)
_DRAWN_CARD = tuple(_field(0x52, card.SerializeToString()) for card in CARDS_PB)


@lru_cache(maxsize=16384)
def _legal_action_field(action: Action) -> bytes:
    """``action`` as an encoded PlayerUpdate.legal_actions entry (field 2)."""
    return _field(0x12, _legal_action_pb(action).SerializeToString())


def _int(value: int) -> bytes:
    """An int32, int64 or enum varint (a negative one in ten bytes)."""
    return varint(value) if value >= 0 else _encode_varint(value & 0xFFFFFFFFFFFFFFFF)


def _scalar(tag: bytes, value: int) -> bytes:
    """A varint field (nothing for 0, proto3's default)."""
    return tag + _int(value) if value else b""


def seat_list_bytes(seats: Iterable[pb.SeatInfo]) -> bytes:
    """``seats`` as the encoded ``PlayerView.seats`` field (20), for
    :class:`UpdateEncoder` (a table encodes its seat list once a change of it)."""
    encoded = [s.SerializeToString() for s in seats]
    return b"".join([b"\xa2\x01" + varint(len(e)) + e for e in encoded])


class UpdateEncoder:
    """Every seat's PlayerUpdate after one change, encoded, with what the seats
    share encoded once: the public part of the view (``public``, the
    spectators' view: no hand, no drawn card), the seats, the deadline and the
    window's close (Unix seconds, 0.0 for none). :meth:`encode` then adds a
    seat's own fields. The bytes parse to exactly the message
    :func:`update_pb` makes of the same update (a protobuf parser reads the
    fields in any order: the seat's come first)."""

    __slots__ = ("_tail", "_view")

    def __init__(
        self,
        public: PlayerView,
        seats: Sequence[pb.SeatInfo] | bytes,
        deadline: float,
        closes: float,
    ) -> None:
        """``seats``: the seat list's messages, or already :func:`seat_list_bytes`."""
        if not isinstance(seats, bytes):
            seats = seat_list_bytes(seats)
        shared = view_pb(public)  # the seat list, encoded once a change of it, after
        shared.ClearField("seat")
        self._view = shared.SerializeToString() + seats
        self._tail = _scalar(b"\x18", round(deadline * 1000)) + _scalar(
            b"\x20", round(closes * 1000)
        )

    def encode(
        self, seat: int, hand: Iterable[int], drawn_card: int, legal: Iterable[Action]
    ) -> bytes:
        """The encoded PlayerUpdate of ``seat`` (-1: the spectators) holding
        ``hand`` and ``drawn_card`` (NONE for none), offered ``legal``."""
        view = b"".join([_HAND_CARD[c] for c in hand])
        if seat:
            view = b"\x08" + (varint(seat) if seat > 0 else _MINUS_ONE) + view  # int32
        if drawn_card != NONE:
            view += _DRAWN_CARD[drawn_card]
        return (
            _field(0x0A, view + self._view)
            + b"".join([_legal_action_field(a) for a in legal])
            + self._tail
        )


def update_body(update: bytes) -> bytes:
    """The TableMessage body of a PlayerUpdate already encoded
    (:class:`UpdateEncoder`, :func:`update_pb`)."""
    return _field(_UPDATE, update)


def message_body(message: Message) -> bytes:
    """The TableMessage body of a stream message: its oneof field, encoded."""
    if isinstance(message, Event):
        return event_body(message)
    if isinstance(message, Update):
        return update_body(update_pb(message))
    msg = gs.TableMessage()
    fill_message(msg, 0, message)  # seq 0 is not encoded: the body alone
    return msg.SerializeToString()


def response_bytes(first_seq: int, bodies: Iterable[bytes], snapshot: bytes = b"") -> bytes:
    """A PlayResponse (or SpectateResponse) holding the messages ``bodies``
    numbered from ``first_seq``, and ``snapshot`` (an encoded Snapshot) if given."""
    parts: list[bytes] = []
    seq = first_seq
    for body in bodies:
        head = b"\x08" + varint(seq)
        parts += (b"\x0a", varint(len(head) + len(body)), head, body)
        seq += 1
    if snapshot:
        parts.append(_field(0x12, snapshot))
    return b"".join(parts)


def body_message(body: bytes, seat: int) -> Message | None:
    """A stored body back to its game value, as ``seat`` (-1 a spectator) got it."""
    return message_from_pb(gs.TableMessage.FromString(body), seat)
