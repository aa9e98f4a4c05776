from unoplay.v1 import game_pb2 as _game_pb2
from unoplay.v1 import lobby_service_pb2 as _lobby_service_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class PlayRequest(_message.Message):
    __slots__ = ("join", "intent")
    JOIN_FIELD_NUMBER: _ClassVar[int]
    INTENT_FIELD_NUMBER: _ClassVar[int]
    join: JoinGame
    intent: Intent
    def __init__(self, join: _Optional[_Union[JoinGame, _Mapping]] = ..., intent: _Optional[_Union[Intent, _Mapping]] = ...) -> None: ...

class JoinGame(_message.Message):
    __slots__ = ("table_id", "seat_token", "last_seq")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    LAST_SEQ_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    seat_token: str
    last_seq: int
    def __init__(self, table_id: _Optional[str] = ..., seat_token: _Optional[str] = ..., last_seq: _Optional[int] = ...) -> None: ...

class Intent(_message.Message):
    __slots__ = ("action_id", "action", "seen_seq")
    ACTION_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    SEEN_SEQ_FIELD_NUMBER: _ClassVar[int]
    action_id: int
    action: _game_pb2.Action
    seen_seq: int
    def __init__(self, action_id: _Optional[int] = ..., action: _Optional[_Union[_game_pb2.Action, _Mapping]] = ..., seen_seq: _Optional[int] = ...) -> None: ...

class PlayResponse(_message.Message):
    __slots__ = ("messages", "snapshot")
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    messages: _containers.RepeatedCompositeFieldContainer[TableMessage]
    snapshot: Snapshot
    def __init__(self, messages: _Optional[_Iterable[_Union[TableMessage, _Mapping]]] = ..., snapshot: _Optional[_Union[Snapshot, _Mapping]] = ...) -> None: ...

class SpectateRequest(_message.Message):
    __slots__ = ("table_id", "last_seq")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    LAST_SEQ_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    last_seq: int
    def __init__(self, table_id: _Optional[str] = ..., last_seq: _Optional[int] = ...) -> None: ...

class SpectateResponse(_message.Message):
    __slots__ = ("messages", "snapshot")
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    messages: _containers.RepeatedCompositeFieldContainer[TableMessage]
    snapshot: Snapshot
    def __init__(self, messages: _Optional[_Iterable[_Union[TableMessage, _Mapping]]] = ..., snapshot: _Optional[_Union[Snapshot, _Mapping]] = ...) -> None: ...

class Snapshot(_message.Message):
    __slots__ = ("seq", "welcome", "update", "update_seq")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    UPDATE_FIELD_NUMBER: _ClassVar[int]
    UPDATE_SEQ_FIELD_NUMBER: _ClassVar[int]
    seq: int
    welcome: Welcome
    update: PlayerUpdate
    update_seq: int
    def __init__(self, seq: _Optional[int] = ..., welcome: _Optional[_Union[Welcome, _Mapping]] = ..., update: _Optional[_Union[PlayerUpdate, _Mapping]] = ..., update_seq: _Optional[int] = ...) -> None: ...

class SeatsChanged(_message.Message):
    __slots__ = ("seats",)
    SEATS_FIELD_NUMBER: _ClassVar[int]
    seats: _containers.RepeatedCompositeFieldContainer[_game_pb2.SeatInfo]
    def __init__(self, seats: _Optional[_Iterable[_Union[_game_pb2.SeatInfo, _Mapping]]] = ...) -> None: ...

class TableMessage(_message.Message):
    __slots__ = ("seq", "welcome", "event", "update", "error", "seats_changed", "deal_revealed")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    UPDATE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    SEATS_CHANGED_FIELD_NUMBER: _ClassVar[int]
    DEAL_REVEALED_FIELD_NUMBER: _ClassVar[int]
    seq: int
    welcome: Welcome
    event: _game_pb2.Event
    update: PlayerUpdate
    error: ActionError
    seats_changed: SeatsChanged
    deal_revealed: DealRevealed
    def __init__(self, seq: _Optional[int] = ..., welcome: _Optional[_Union[Welcome, _Mapping]] = ..., event: _Optional[_Union[_game_pb2.Event, _Mapping]] = ..., update: _Optional[_Union[PlayerUpdate, _Mapping]] = ..., error: _Optional[_Union[ActionError, _Mapping]] = ..., seats_changed: _Optional[_Union[SeatsChanged, _Mapping]] = ..., deal_revealed: _Optional[_Union[DealRevealed, _Mapping]] = ...) -> None: ...

class Welcome(_message.Message):
    __slots__ = ("seat", "table", "deal_commitment")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    DEAL_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    table: _lobby_service_pb2.Table
    deal_commitment: str
    def __init__(self, seat: _Optional[int] = ..., table: _Optional[_Union[_lobby_service_pb2.Table, _Mapping]] = ..., deal_commitment: _Optional[str] = ...) -> None: ...

class DealRevealed(_message.Message):
    __slots__ = ("seed", "salt", "commitment")
    SEED_FIELD_NUMBER: _ClassVar[int]
    SALT_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    seed: str
    salt: str
    commitment: str
    def __init__(self, seed: _Optional[str] = ..., salt: _Optional[str] = ..., commitment: _Optional[str] = ...) -> None: ...

class PlayerUpdate(_message.Message):
    __slots__ = ("view", "legal_actions", "deadline_unix_ms", "window_closes_unix_ms")
    VIEW_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_UNIX_MS_FIELD_NUMBER: _ClassVar[int]
    WINDOW_CLOSES_UNIX_MS_FIELD_NUMBER: _ClassVar[int]
    view: _game_pb2.PlayerView
    legal_actions: _containers.RepeatedCompositeFieldContainer[_game_pb2.LegalAction]
    deadline_unix_ms: int
    window_closes_unix_ms: int
    def __init__(self, view: _Optional[_Union[_game_pb2.PlayerView, _Mapping]] = ..., legal_actions: _Optional[_Iterable[_Union[_game_pb2.LegalAction, _Mapping]]] = ..., deadline_unix_ms: _Optional[int] = ..., window_closes_unix_ms: _Optional[int] = ...) -> None: ...

class ActionError(_message.Message):
    __slots__ = ("reason", "message", "action_id", "race")
    REASON_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    ACTION_ID_FIELD_NUMBER: _ClassVar[int]
    RACE_FIELD_NUMBER: _ClassVar[int]
    reason: str
    message: str
    action_id: int
    race: bool
    def __init__(self, reason: _Optional[str] = ..., message: _Optional[str] = ..., action_id: _Optional[int] = ..., race: _Optional[bool] = ...) -> None: ...
