from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EnterRequest(_message.Message):
    __slots__ = ("name", "secret")
    NAME_FIELD_NUMBER: _ClassVar[int]
    SECRET_FIELD_NUMBER: _ClassVar[int]
    name: str
    secret: str
    def __init__(self, name: _Optional[str] = ..., secret: _Optional[str] = ...) -> None: ...

class EnterResponse(_message.Message):
    __slots__ = ("welcome", "seat")
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    welcome: ArenaWelcome
    seat: ArenaSeat
    def __init__(self, welcome: _Optional[_Union[ArenaWelcome, _Mapping]] = ..., seat: _Optional[_Union[ArenaSeat, _Mapping]] = ...) -> None: ...

class ArenaWelcome(_message.Message):
    __slots__ = ("name", "secret", "seats", "rules", "target_score", "standing", "turn_seconds")
    NAME_FIELD_NUMBER: _ClassVar[int]
    SECRET_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    TARGET_SCORE_FIELD_NUMBER: _ClassVar[int]
    STANDING_FIELD_NUMBER: _ClassVar[int]
    TURN_SECONDS_FIELD_NUMBER: _ClassVar[int]
    name: str
    secret: str
    seats: int
    rules: str
    target_score: int
    standing: Standing
    turn_seconds: int
    def __init__(self, name: _Optional[str] = ..., secret: _Optional[str] = ..., seats: _Optional[int] = ..., rules: _Optional[str] = ..., target_score: _Optional[int] = ..., standing: _Optional[_Union[Standing, _Mapping]] = ..., turn_seconds: _Optional[int] = ...) -> None: ...

class ArenaSeat(_message.Message):
    __slots__ = ("table_id", "seat_token", "seat", "game")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    seat_token: str
    seat: int
    game: int
    def __init__(self, table_id: _Optional[str] = ..., seat_token: _Optional[str] = ..., seat: _Optional[int] = ..., game: _Optional[int] = ...) -> None: ...

class StandingsRequest(_message.Message):
    __slots__ = ("limit",)
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    limit: int
    def __init__(self, limit: _Optional[int] = ...) -> None: ...

class StandingsResponse(_message.Message):
    __slots__ = ("standings",)
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    standings: _containers.RepeatedCompositeFieldContainer[Standing]
    def __init__(self, standings: _Optional[_Iterable[_Union[Standing, _Mapping]]] = ...) -> None: ...

class Standing(_message.Message):
    __slots__ = ("name", "games", "wins", "mu", "sigma", "rating", "waiting", "playing", "opponents", "provisional")
    NAME_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    WAITING_FIELD_NUMBER: _ClassVar[int]
    PLAYING_FIELD_NUMBER: _ClassVar[int]
    OPPONENTS_FIELD_NUMBER: _ClassVar[int]
    PROVISIONAL_FIELD_NUMBER: _ClassVar[int]
    name: str
    games: int
    wins: int
    mu: float
    sigma: float
    rating: float
    waiting: bool
    playing: bool
    opponents: int
    provisional: bool
    def __init__(self, name: _Optional[str] = ..., games: _Optional[int] = ..., wins: _Optional[int] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., rating: _Optional[float] = ..., waiting: _Optional[bool] = ..., playing: _Optional[bool] = ..., opponents: _Optional[int] = ..., provisional: _Optional[bool] = ...) -> None: ...
