from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Colour(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    COLOUR_UNSPECIFIED: _ClassVar[Colour]
    COLOUR_RED: _ClassVar[Colour]
    COLOUR_YELLOW: _ClassVar[Colour]
    COLOUR_GREEN: _ClassVar[Colour]
    COLOUR_BLUE: _ClassVar[Colour]

class Rank(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RANK_UNSPECIFIED: _ClassVar[Rank]
    RANK_ZERO: _ClassVar[Rank]
    RANK_ONE: _ClassVar[Rank]
    RANK_TWO: _ClassVar[Rank]
    RANK_THREE: _ClassVar[Rank]
    RANK_FOUR: _ClassVar[Rank]
    RANK_FIVE: _ClassVar[Rank]
    RANK_SIX: _ClassVar[Rank]
    RANK_SEVEN: _ClassVar[Rank]
    RANK_EIGHT: _ClassVar[Rank]
    RANK_NINE: _ClassVar[Rank]
    RANK_SKIP: _ClassVar[Rank]
    RANK_REVERSE: _ClassVar[Rank]
    RANK_DRAW_TWO: _ClassVar[Rank]
    RANK_WILD: _ClassVar[Rank]
    RANK_WILD_DRAW_FOUR: _ClassVar[Rank]

class FirstPlayer(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FIRST_PLAYER_UNSPECIFIED: _ClassVar[FirstPlayer]
    FIRST_PLAYER_LEFT_OF_DEALER: _ClassVar[FirstPlayer]
    FIRST_PLAYER_DEALER: _ClassVar[FirstPlayer]

class ReverseStarter(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    REVERSE_STARTER_UNSPECIFIED: _ClassVar[ReverseStarter]
    REVERSE_STARTER_DEALER_FIRST: _ClassVar[ReverseStarter]
    REVERSE_STARTER_RIGHT_OF_DEALER_FIRST: _ClassVar[ReverseStarter]
    REVERSE_STARTER_FIRST_PLAYER_THEN_REVERSE: _ClassVar[ReverseStarter]

class WildStarter(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    WILD_STARTER_UNSPECIFIED: _ClassVar[WildStarter]
    WILD_STARTER_FIRST_PLAYER_NAMES_AND_PLAYS: _ClassVar[WildStarter]
    WILD_STARTER_FIRST_PLAYER_NAMES_ONLY: _ClassVar[WildStarter]
    WILD_STARTER_DEALER_NAMES: _ClassVar[WildStarter]

class Direction(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DIRECTION_UNSPECIFIED: _ClassVar[Direction]
    DIRECTION_CLOCKWISE: _ClassVar[Direction]
    DIRECTION_COUNTER_CLOCKWISE: _ClassVar[Direction]

class Wd4Restriction(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    WD4_RESTRICTION_UNSPECIFIED: _ClassVar[Wd4Restriction]
    WD4_RESTRICTION_COLOUR: _ClassVar[Wd4Restriction]
    WD4_RESTRICTION_ANY_MATCH: _ClassVar[Wd4Restriction]

class PointValues(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    POINT_VALUES_UNSPECIFIED: _ClassVar[PointValues]
    POINT_VALUES_STANDARD: _ClassVar[PointValues]
    POINT_VALUES_CLASSIC: _ClassVar[PointValues]

class Scoring(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SCORING_UNSPECIFIED: _ClassVar[Scoring]
    SCORING_WINNER_TAKES: _ClassVar[Scoring]
    SCORING_PENALTY: _ClassVar[Scoring]

class Stacking(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    STACKING_UNSPECIFIED: _ClassVar[Stacking]
    STACKING_OFF: _ClassVar[Stacking]
    STACKING_DRAW_TWO: _ClassVar[Stacking]
    STACKING_PLUS_FOUR_OVER_TWO: _ClassVar[Stacking]
    STACKING_ANY: _ClassVar[Stacking]

class MultiPlay(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MULTI_PLAY_UNSPECIFIED: _ClassVar[MultiPlay]
    MULTI_PLAY_OFF: _ClassVar[MultiPlay]
    MULTI_PLAY_IDENTICAL: _ClassVar[MultiPlay]
    MULTI_PLAY_SAME_RANK: _ClassVar[MultiPlay]

class GameFormat(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    GAME_FORMAT_UNSPECIFIED: _ClassVar[GameFormat]
    GAME_FORMAT_STANDARD: _ClassVar[GameFormat]
    GAME_FORMAT_ELIMINATION: _ClassVar[GameFormat]
    GAME_FORMAT_TEAMS: _ClassVar[GameFormat]
    GAME_FORMAT_TOURNAMENT: _ClassVar[GameFormat]

class ActionKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ACTION_KIND_UNSPECIFIED: _ClassVar[ActionKind]
    ACTION_KIND_PLAY: _ClassVar[ActionKind]
    ACTION_KIND_DRAW: _ClassVar[ActionKind]
    ACTION_KIND_KEEP: _ClassVar[ActionKind]
    ACTION_KIND_CHALLENGE: _ClassVar[ActionKind]
    ACTION_KIND_ACCEPT: _ClassVar[ActionKind]
    ACTION_KIND_CALL_UNO: _ClassVar[ActionKind]
    ACTION_KIND_CATCH: _ClassVar[ActionKind]
    ACTION_KIND_CHOOSE_COLOUR: _ClassVar[ActionKind]

class EventKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EVENT_KIND_UNSPECIFIED: _ClassVar[EventKind]
    EVENT_KIND_DEALER_DRAW: _ClassVar[EventKind]
    EVENT_KIND_DEALER_CHOSEN: _ClassVar[EventKind]
    EVENT_KIND_ROUND_STARTED: _ClassVar[EventKind]
    EVENT_KIND_HAND_DEALT: _ClassVar[EventKind]
    EVENT_KIND_STARTER_FLIPPED: _ClassVar[EventKind]
    EVENT_KIND_STARTER_RETURNED: _ClassVar[EventKind]
    EVENT_KIND_PLAYED: _ClassVar[EventKind]
    EVENT_KIND_DREW: _ClassVar[EventKind]
    EVENT_KIND_DREW_CARDS: _ClassVar[EventKind]
    EVENT_KIND_KEPT: _ClassVar[EventKind]
    EVENT_KIND_SKIPPED: _ClassVar[EventKind]
    EVENT_KIND_DIRECTION_CHANGED: _ClassVar[EventKind]
    EVENT_KIND_COLOUR_CHOSEN: _ClassVar[EventKind]
    EVENT_KIND_UNO_CALLED: _ClassVar[EventKind]
    EVENT_KIND_UNO_CAUGHT: _ClassVar[EventKind]
    EVENT_KIND_CHALLENGED: _ClassVar[EventKind]
    EVENT_KIND_HAND_SHOWN: _ClassVar[EventKind]
    EVENT_KIND_PENALTY_ACCEPTED: _ClassVar[EventKind]
    EVENT_KIND_DECK_RESHUFFLED: _ClassVar[EventKind]
    EVENT_KIND_TURN: _ClassVar[EventKind]
    EVENT_KIND_HAND_SCORED: _ClassVar[EventKind]
    EVENT_KIND_ROUND_OVER: _ClassVar[EventKind]
    EVENT_KIND_GAME_OVER: _ClassVar[EventKind]
    EVENT_KIND_UNO_FALSE_CALL: _ClassVar[EventKind]
    EVENT_KIND_HANDS_SWAPPED: _ClassVar[EventKind]
    EVENT_KIND_HANDS_ROTATED: _ClassVar[EventKind]
    EVENT_KIND_HAND_RECEIVED: _ClassVar[EventKind]
    EVENT_KIND_WRONG_PLAY: _ClassVar[EventKind]
    EVENT_KIND_LAST_CARD_NOT_NUMBER: _ClassVar[EventKind]
    EVENT_KIND_PLAYER_OUT: _ClassVar[EventKind]
    EVENT_KIND_TIMED_OUT: _ClassVar[EventKind]
    EVENT_KIND_ROUND_CAPPED: _ClassVar[EventKind]

class Phase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PHASE_UNSPECIFIED: _ClassVar[Phase]
    PHASE_CHOOSE_COLOUR: _ClassVar[Phase]
    PHASE_PLAY: _ClassVar[Phase]
    PHASE_DRAWN: _ClassVar[Phase]
    PHASE_PENALTY: _ClassVar[Phase]
    PHASE_ROUND_OVER: _ClassVar[Phase]
    PHASE_GAME_OVER: _ClassVar[Phase]
COLOUR_UNSPECIFIED: Colour
COLOUR_RED: Colour
COLOUR_YELLOW: Colour
COLOUR_GREEN: Colour
COLOUR_BLUE: Colour
RANK_UNSPECIFIED: Rank
RANK_ZERO: Rank
RANK_ONE: Rank
RANK_TWO: Rank
RANK_THREE: Rank
RANK_FOUR: Rank
RANK_FIVE: Rank
RANK_SIX: Rank
RANK_SEVEN: Rank
RANK_EIGHT: Rank
RANK_NINE: Rank
RANK_SKIP: Rank
RANK_REVERSE: Rank
RANK_DRAW_TWO: Rank
RANK_WILD: Rank
RANK_WILD_DRAW_FOUR: Rank
FIRST_PLAYER_UNSPECIFIED: FirstPlayer
FIRST_PLAYER_LEFT_OF_DEALER: FirstPlayer
FIRST_PLAYER_DEALER: FirstPlayer
REVERSE_STARTER_UNSPECIFIED: ReverseStarter
REVERSE_STARTER_DEALER_FIRST: ReverseStarter
REVERSE_STARTER_RIGHT_OF_DEALER_FIRST: ReverseStarter
REVERSE_STARTER_FIRST_PLAYER_THEN_REVERSE: ReverseStarter
WILD_STARTER_UNSPECIFIED: WildStarter
WILD_STARTER_FIRST_PLAYER_NAMES_AND_PLAYS: WildStarter
WILD_STARTER_FIRST_PLAYER_NAMES_ONLY: WildStarter
WILD_STARTER_DEALER_NAMES: WildStarter
DIRECTION_UNSPECIFIED: Direction
DIRECTION_CLOCKWISE: Direction
DIRECTION_COUNTER_CLOCKWISE: Direction
WD4_RESTRICTION_UNSPECIFIED: Wd4Restriction
WD4_RESTRICTION_COLOUR: Wd4Restriction
WD4_RESTRICTION_ANY_MATCH: Wd4Restriction
POINT_VALUES_UNSPECIFIED: PointValues
POINT_VALUES_STANDARD: PointValues
POINT_VALUES_CLASSIC: PointValues
SCORING_UNSPECIFIED: Scoring
SCORING_WINNER_TAKES: Scoring
SCORING_PENALTY: Scoring
STACKING_UNSPECIFIED: Stacking
STACKING_OFF: Stacking
STACKING_DRAW_TWO: Stacking
STACKING_PLUS_FOUR_OVER_TWO: Stacking
STACKING_ANY: Stacking
MULTI_PLAY_UNSPECIFIED: MultiPlay
MULTI_PLAY_OFF: MultiPlay
MULTI_PLAY_IDENTICAL: MultiPlay
MULTI_PLAY_SAME_RANK: MultiPlay
GAME_FORMAT_UNSPECIFIED: GameFormat
GAME_FORMAT_STANDARD: GameFormat
GAME_FORMAT_ELIMINATION: GameFormat
GAME_FORMAT_TEAMS: GameFormat
GAME_FORMAT_TOURNAMENT: GameFormat
ACTION_KIND_UNSPECIFIED: ActionKind
ACTION_KIND_PLAY: ActionKind
ACTION_KIND_DRAW: ActionKind
ACTION_KIND_KEEP: ActionKind
ACTION_KIND_CHALLENGE: ActionKind
ACTION_KIND_ACCEPT: ActionKind
ACTION_KIND_CALL_UNO: ActionKind
ACTION_KIND_CATCH: ActionKind
ACTION_KIND_CHOOSE_COLOUR: ActionKind
EVENT_KIND_UNSPECIFIED: EventKind
EVENT_KIND_DEALER_DRAW: EventKind
EVENT_KIND_DEALER_CHOSEN: EventKind
EVENT_KIND_ROUND_STARTED: EventKind
EVENT_KIND_HAND_DEALT: EventKind
EVENT_KIND_STARTER_FLIPPED: EventKind
EVENT_KIND_STARTER_RETURNED: EventKind
EVENT_KIND_PLAYED: EventKind
EVENT_KIND_DREW: EventKind
EVENT_KIND_DREW_CARDS: EventKind
EVENT_KIND_KEPT: EventKind
EVENT_KIND_SKIPPED: EventKind
EVENT_KIND_DIRECTION_CHANGED: EventKind
EVENT_KIND_COLOUR_CHOSEN: EventKind
EVENT_KIND_UNO_CALLED: EventKind
EVENT_KIND_UNO_CAUGHT: EventKind
EVENT_KIND_CHALLENGED: EventKind
EVENT_KIND_HAND_SHOWN: EventKind
EVENT_KIND_PENALTY_ACCEPTED: EventKind
EVENT_KIND_DECK_RESHUFFLED: EventKind
EVENT_KIND_TURN: EventKind
EVENT_KIND_HAND_SCORED: EventKind
EVENT_KIND_ROUND_OVER: EventKind
EVENT_KIND_GAME_OVER: EventKind
EVENT_KIND_UNO_FALSE_CALL: EventKind
EVENT_KIND_HANDS_SWAPPED: EventKind
EVENT_KIND_HANDS_ROTATED: EventKind
EVENT_KIND_HAND_RECEIVED: EventKind
EVENT_KIND_WRONG_PLAY: EventKind
EVENT_KIND_LAST_CARD_NOT_NUMBER: EventKind
EVENT_KIND_PLAYER_OUT: EventKind
EVENT_KIND_TIMED_OUT: EventKind
EVENT_KIND_ROUND_CAPPED: EventKind
PHASE_UNSPECIFIED: Phase
PHASE_CHOOSE_COLOUR: Phase
PHASE_PLAY: Phase
PHASE_DRAWN: Phase
PHASE_PENALTY: Phase
PHASE_ROUND_OVER: Phase
PHASE_GAME_OVER: Phase

class Card(_message.Message):
    __slots__ = ("id", "colour", "rank")
    ID_FIELD_NUMBER: _ClassVar[int]
    COLOUR_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    id: int
    colour: Colour
    rank: Rank
    def __init__(self, id: _Optional[int] = ..., colour: _Optional[_Union[Colour, str]] = ..., rank: _Optional[_Union[Rank, str]] = ...) -> None: ...

class RuleSet(_message.Message):
    __slots__ = ("preset", "first_player", "reverse_starter", "wild_starter", "starter_wild_redraw", "initial_direction", "wd4_restriction", "unnamed_wild_keeps_colour", "challenge_success_skips_challenger", "uno_penalty", "uno_call_strict", "false_uno_penalty", "point_values", "scoring", "target_score", "stacking", "reverse_deflects_draw", "jump_in", "swap_on_five", "seven_zero", "number_first_and_last", "wrong_play_penalty", "multi_play", "format")
    PRESET_FIELD_NUMBER: _ClassVar[int]
    FIRST_PLAYER_FIELD_NUMBER: _ClassVar[int]
    REVERSE_STARTER_FIELD_NUMBER: _ClassVar[int]
    WILD_STARTER_FIELD_NUMBER: _ClassVar[int]
    STARTER_WILD_REDRAW_FIELD_NUMBER: _ClassVar[int]
    INITIAL_DIRECTION_FIELD_NUMBER: _ClassVar[int]
    WD4_RESTRICTION_FIELD_NUMBER: _ClassVar[int]
    UNNAMED_WILD_KEEPS_COLOUR_FIELD_NUMBER: _ClassVar[int]
    CHALLENGE_SUCCESS_SKIPS_CHALLENGER_FIELD_NUMBER: _ClassVar[int]
    UNO_PENALTY_FIELD_NUMBER: _ClassVar[int]
    UNO_CALL_STRICT_FIELD_NUMBER: _ClassVar[int]
    FALSE_UNO_PENALTY_FIELD_NUMBER: _ClassVar[int]
    POINT_VALUES_FIELD_NUMBER: _ClassVar[int]
    SCORING_FIELD_NUMBER: _ClassVar[int]
    TARGET_SCORE_FIELD_NUMBER: _ClassVar[int]
    STACKING_FIELD_NUMBER: _ClassVar[int]
    REVERSE_DEFLECTS_DRAW_FIELD_NUMBER: _ClassVar[int]
    JUMP_IN_FIELD_NUMBER: _ClassVar[int]
    SWAP_ON_FIVE_FIELD_NUMBER: _ClassVar[int]
    SEVEN_ZERO_FIELD_NUMBER: _ClassVar[int]
    NUMBER_FIRST_AND_LAST_FIELD_NUMBER: _ClassVar[int]
    WRONG_PLAY_PENALTY_FIELD_NUMBER: _ClassVar[int]
    MULTI_PLAY_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    preset: str
    first_player: FirstPlayer
    reverse_starter: ReverseStarter
    wild_starter: WildStarter
    starter_wild_redraw: bool
    initial_direction: Direction
    wd4_restriction: Wd4Restriction
    unnamed_wild_keeps_colour: bool
    challenge_success_skips_challenger: bool
    uno_penalty: int
    uno_call_strict: bool
    false_uno_penalty: int
    point_values: PointValues
    scoring: Scoring
    target_score: int
    stacking: Stacking
    reverse_deflects_draw: bool
    jump_in: bool
    swap_on_five: bool
    seven_zero: bool
    number_first_and_last: bool
    wrong_play_penalty: int
    multi_play: MultiPlay
    format: GameFormat
    def __init__(self, preset: _Optional[str] = ..., first_player: _Optional[_Union[FirstPlayer, str]] = ..., reverse_starter: _Optional[_Union[ReverseStarter, str]] = ..., wild_starter: _Optional[_Union[WildStarter, str]] = ..., starter_wild_redraw: _Optional[bool] = ..., initial_direction: _Optional[_Union[Direction, str]] = ..., wd4_restriction: _Optional[_Union[Wd4Restriction, str]] = ..., unnamed_wild_keeps_colour: _Optional[bool] = ..., challenge_success_skips_challenger: _Optional[bool] = ..., uno_penalty: _Optional[int] = ..., uno_call_strict: _Optional[bool] = ..., false_uno_penalty: _Optional[int] = ..., point_values: _Optional[_Union[PointValues, str]] = ..., scoring: _Optional[_Union[Scoring, str]] = ..., target_score: _Optional[int] = ..., stacking: _Optional[_Union[Stacking, str]] = ..., reverse_deflects_draw: _Optional[bool] = ..., jump_in: _Optional[bool] = ..., swap_on_five: _Optional[bool] = ..., seven_zero: _Optional[bool] = ..., number_first_and_last: _Optional[bool] = ..., wrong_play_penalty: _Optional[int] = ..., multi_play: _Optional[_Union[MultiPlay, str]] = ..., format: _Optional[_Union[GameFormat, str]] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("kind", "card_id", "colour", "uno", "target", "extra_card_ids")
    KIND_FIELD_NUMBER: _ClassVar[int]
    CARD_ID_FIELD_NUMBER: _ClassVar[int]
    COLOUR_FIELD_NUMBER: _ClassVar[int]
    UNO_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    EXTRA_CARD_IDS_FIELD_NUMBER: _ClassVar[int]
    kind: ActionKind
    card_id: int
    colour: Colour
    uno: bool
    target: int
    extra_card_ids: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, kind: _Optional[_Union[ActionKind, str]] = ..., card_id: _Optional[int] = ..., colour: _Optional[_Union[Colour, str]] = ..., uno: _Optional[bool] = ..., target: _Optional[int] = ..., extra_card_ids: _Optional[_Iterable[int]] = ...) -> None: ...

class LegalAction(_message.Message):
    __slots__ = ("id", "action", "label")
    ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    id: int
    action: Action
    label: str
    def __init__(self, id: _Optional[int] = ..., action: _Optional[_Union[Action, _Mapping]] = ..., label: _Optional[str] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("kind", "player", "cards", "count", "colour", "target", "value", "private")
    KIND_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    COLOUR_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    PRIVATE_FIELD_NUMBER: _ClassVar[int]
    kind: EventKind
    player: int
    cards: _containers.RepeatedCompositeFieldContainer[Card]
    count: int
    colour: Colour
    target: int
    value: int
    private: bool
    def __init__(self, kind: _Optional[_Union[EventKind, str]] = ..., player: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., count: _Optional[int] = ..., colour: _Optional[_Union[Colour, str]] = ..., target: _Optional[int] = ..., value: _Optional[int] = ..., private: _Optional[bool] = ...) -> None: ...

class SeatInfo(_message.Message):
    __slots__ = ("seat", "name", "bot", "occupied", "connected")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    OCCUPIED_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    name: str
    bot: bool
    occupied: bool
    connected: bool
    def __init__(self, seat: _Optional[int] = ..., name: _Optional[str] = ..., bot: _Optional[bool] = ..., occupied: _Optional[bool] = ..., connected: _Optional[bool] = ...) -> None: ...

class PlayerView(_message.Message):
    __slots__ = ("seat", "hand", "hand_sizes", "top_card", "colour", "direction", "current", "phase", "pending_penalty", "drawn_card", "uno_called", "catchable", "draw_pile_size", "discard_pile_size", "scores", "dealer", "round_number", "round_winner", "game_winners", "seats", "out_seats")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    TOP_CARD_FIELD_NUMBER: _ClassVar[int]
    COLOUR_FIELD_NUMBER: _ClassVar[int]
    DIRECTION_FIELD_NUMBER: _ClassVar[int]
    CURRENT_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    PENDING_PENALTY_FIELD_NUMBER: _ClassVar[int]
    DRAWN_CARD_FIELD_NUMBER: _ClassVar[int]
    UNO_CALLED_FIELD_NUMBER: _ClassVar[int]
    CATCHABLE_FIELD_NUMBER: _ClassVar[int]
    DRAW_PILE_SIZE_FIELD_NUMBER: _ClassVar[int]
    DISCARD_PILE_SIZE_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    ROUND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    ROUND_WINNER_FIELD_NUMBER: _ClassVar[int]
    GAME_WINNERS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    OUT_SEATS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    hand: _containers.RepeatedCompositeFieldContainer[Card]
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    top_card: Card
    colour: Colour
    direction: Direction
    current: int
    phase: Phase
    pending_penalty: int
    drawn_card: Card
    uno_called: _containers.RepeatedScalarFieldContainer[bool]
    catchable: int
    draw_pile_size: int
    discard_pile_size: int
    scores: _containers.RepeatedScalarFieldContainer[int]
    dealer: int
    round_number: int
    round_winner: int
    game_winners: _containers.RepeatedScalarFieldContainer[int]
    seats: _containers.RepeatedCompositeFieldContainer[SeatInfo]
    out_seats: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seat: _Optional[int] = ..., hand: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., hand_sizes: _Optional[_Iterable[int]] = ..., top_card: _Optional[_Union[Card, _Mapping]] = ..., colour: _Optional[_Union[Colour, str]] = ..., direction: _Optional[_Union[Direction, str]] = ..., current: _Optional[int] = ..., phase: _Optional[_Union[Phase, str]] = ..., pending_penalty: _Optional[int] = ..., drawn_card: _Optional[_Union[Card, _Mapping]] = ..., uno_called: _Optional[_Iterable[bool]] = ..., catchable: _Optional[int] = ..., draw_pile_size: _Optional[int] = ..., discard_pile_size: _Optional[int] = ..., scores: _Optional[_Iterable[int]] = ..., dealer: _Optional[int] = ..., round_number: _Optional[int] = ..., round_winner: _Optional[int] = ..., game_winners: _Optional[_Iterable[int]] = ..., seats: _Optional[_Iterable[_Union[SeatInfo, _Mapping]]] = ..., out_seats: _Optional[_Iterable[int]] = ...) -> None: ...
