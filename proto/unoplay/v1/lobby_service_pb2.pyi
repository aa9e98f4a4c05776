from unoplay.v1 import game_pb2 as _game_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TableState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TABLE_STATE_UNSPECIFIED: _ClassVar[TableState]
    TABLE_STATE_WAITING: _ClassVar[TableState]
    TABLE_STATE_PLAYING: _ClassVar[TableState]
    TABLE_STATE_FINISHED: _ClassVar[TableState]
TABLE_STATE_UNSPECIFIED: TableState
TABLE_STATE_WAITING: TableState
TABLE_STATE_PLAYING: TableState
TABLE_STATE_FINISHED: TableState

class Table(_message.Message):
    __slots__ = ("table_id", "title", "seats", "rules", "turn_seconds", "state", "scores", "away_grace_seconds", "window_ms", "seeded", "max_round_actions", "rematch_votes", "games", "rules_preset", "rule_differences", "arena")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    TURN_SECONDS_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    AWAY_GRACE_SECONDS_FIELD_NUMBER: _ClassVar[int]
    WINDOW_MS_FIELD_NUMBER: _ClassVar[int]
    SEEDED_FIELD_NUMBER: _ClassVar[int]
    MAX_ROUND_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    REMATCH_VOTES_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    RULES_PRESET_FIELD_NUMBER: _ClassVar[int]
    RULE_DIFFERENCES_FIELD_NUMBER: _ClassVar[int]
    ARENA_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    title: str
    seats: _containers.RepeatedCompositeFieldContainer[_game_pb2.SeatInfo]
    rules: _game_pb2.RuleSet
    turn_seconds: int
    state: TableState
    scores: _containers.RepeatedScalarFieldContainer[int]
    away_grace_seconds: int
    window_ms: int
    seeded: bool
    max_round_actions: int
    rematch_votes: _containers.RepeatedScalarFieldContainer[int]
    games: int
    rules_preset: str
    rule_differences: _containers.RepeatedScalarFieldContainer[str]
    arena: bool
    def __init__(self, table_id: _Optional[str] = ..., title: _Optional[str] = ..., seats: _Optional[_Iterable[_Union[_game_pb2.SeatInfo, _Mapping]]] = ..., rules: _Optional[_Union[_game_pb2.RuleSet, _Mapping]] = ..., turn_seconds: _Optional[int] = ..., state: _Optional[_Union[TableState, str]] = ..., scores: _Optional[_Iterable[int]] = ..., away_grace_seconds: _Optional[int] = ..., window_ms: _Optional[int] = ..., seeded: _Optional[bool] = ..., max_round_actions: _Optional[int] = ..., rematch_votes: _Optional[_Iterable[int]] = ..., games: _Optional[int] = ..., rules_preset: _Optional[str] = ..., rule_differences: _Optional[_Iterable[str]] = ..., arena: _Optional[bool] = ...) -> None: ...

class CreateTableRequest(_message.Message):
    __slots__ = ("title", "seats", "rules", "turn_seconds", "bot_delay_seconds", "away_grace_seconds", "window_ms", "seed", "max_round_actions")
    TITLE_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    TURN_SECONDS_FIELD_NUMBER: _ClassVar[int]
    BOT_DELAY_SECONDS_FIELD_NUMBER: _ClassVar[int]
    AWAY_GRACE_SECONDS_FIELD_NUMBER: _ClassVar[int]
    WINDOW_MS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    MAX_ROUND_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    title: str
    seats: int
    rules: _game_pb2.RuleSet
    turn_seconds: int
    bot_delay_seconds: float
    away_grace_seconds: int
    window_ms: int
    seed: str
    max_round_actions: int
    def __init__(self, title: _Optional[str] = ..., seats: _Optional[int] = ..., rules: _Optional[_Union[_game_pb2.RuleSet, _Mapping]] = ..., turn_seconds: _Optional[int] = ..., bot_delay_seconds: _Optional[float] = ..., away_grace_seconds: _Optional[int] = ..., window_ms: _Optional[int] = ..., seed: _Optional[str] = ..., max_round_actions: _Optional[int] = ...) -> None: ...

class CreateTableResponse(_message.Message):
    __slots__ = ("table",)
    TABLE_FIELD_NUMBER: _ClassVar[int]
    table: Table
    def __init__(self, table: _Optional[_Union[Table, _Mapping]] = ...) -> None: ...

class ListTablesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListTablesResponse(_message.Message):
    __slots__ = ("tables",)
    TABLES_FIELD_NUMBER: _ClassVar[int]
    tables: _containers.RepeatedCompositeFieldContainer[Table]
    def __init__(self, tables: _Optional[_Iterable[_Union[Table, _Mapping]]] = ...) -> None: ...

class JoinTableRequest(_message.Message):
    __slots__ = ("table_id", "name", "seat")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    name: str
    seat: int
    def __init__(self, table_id: _Optional[str] = ..., name: _Optional[str] = ..., seat: _Optional[int] = ...) -> None: ...

class JoinTableResponse(_message.Message):
    __slots__ = ("seat", "seat_token", "table")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    seat_token: str
    table: Table
    def __init__(self, seat: _Optional[int] = ..., seat_token: _Optional[str] = ..., table: _Optional[_Union[Table, _Mapping]] = ...) -> None: ...

class AddBotRequest(_message.Message):
    __slots__ = ("table_id", "kind", "seat", "seat_token")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    kind: str
    seat: int
    seat_token: str
    def __init__(self, table_id: _Optional[str] = ..., kind: _Optional[str] = ..., seat: _Optional[int] = ..., seat_token: _Optional[str] = ...) -> None: ...

class AddBotResponse(_message.Message):
    __slots__ = ("seat", "table")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    table: Table
    def __init__(self, seat: _Optional[int] = ..., table: _Optional[_Union[Table, _Mapping]] = ...) -> None: ...

class StartGameRequest(_message.Message):
    __slots__ = ("table_id", "seat_token", "seed")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    seat_token: str
    seed: int
    def __init__(self, table_id: _Optional[str] = ..., seat_token: _Optional[str] = ..., seed: _Optional[int] = ...) -> None: ...

class StartGameResponse(_message.Message):
    __slots__ = ("table",)
    TABLE_FIELD_NUMBER: _ClassVar[int]
    table: Table
    def __init__(self, table: _Optional[_Union[Table, _Mapping]] = ...) -> None: ...

class LeaveTableRequest(_message.Message):
    __slots__ = ("table_id", "seat_token")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    seat_token: str
    def __init__(self, table_id: _Optional[str] = ..., seat_token: _Optional[str] = ...) -> None: ...

class LeaveTableResponse(_message.Message):
    __slots__ = ("table",)
    TABLE_FIELD_NUMBER: _ClassVar[int]
    table: Table
    def __init__(self, table: _Optional[_Union[Table, _Mapping]] = ...) -> None: ...

class RematchRequest(_message.Message):
    __slots__ = ("table_id", "seat_token")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    seat_token: str
    def __init__(self, table_id: _Optional[str] = ..., seat_token: _Optional[str] = ...) -> None: ...

class RematchResponse(_message.Message):
    __slots__ = ("table",)
    TABLE_FIELD_NUMBER: _ClassVar[int]
    table: Table
    def __init__(self, table: _Optional[_Union[Table, _Mapping]] = ...) -> None: ...
