"""``uno match``: bot-vs-bot matches as a testing tool.

Many games at once (worker processes, or Ray actors on a cluster), each over
the real gRPC path against an embedded server; duplicate deals; an SPRT that
stops the match once it has decided; adjudication of endless games; time
forfeits, stand-ins and crashes kept apart; every game stored in SQLite as it
finishes, so a run resumes; reports for people and for machines.

The pieces, each a module named for what it holds: :mod:`.entrants` (who
plays), :mod:`.schedule` (which game is played where, from which seed),
:mod:`.config` (the match's settings, one value), :mod:`.game` (one game:
its :mod:`.players`, its :mod:`.watch`, its :mod:`.adjudication`),
:mod:`.worker` and :mod:`.pool` (where games are played), :mod:`.cluster`
(Ray), :mod:`.runner` (the match; :mod:`.givenup`: the games its workers
gave up), :mod:`.store` (SQLite, JSONL), :mod:`.stats` and :mod:`.sprt` (the figures),
:mod:`.report` (tables), :mod:`.procs` (children that die with the runner),
:mod:`.bench` (``uno bench --match``), :mod:`.probes` (bots that test the runner),
:mod:`.aa` (the SPRT's A/A test: ``python -m unoplay.client.match.aa``).
"""

from .config import MatchConfig, default_concurrency
from .control import MatchControl, Progress
from .entrants import Entrant, parse_entrants
from .errors import MatchError
from .report import build_report, print_report
from .result import GameResult
from .runner import run_match
from .schedule import GameSpec, Schedule, make_schedule
from .sprt import SprtSpec
from .stats import wilson_interval

__all__ = [
    "Entrant",
    "GameResult",
    "GameSpec",
    "MatchConfig",
    "MatchControl",
    "MatchError",
    "Progress",
    "Schedule",
    "SprtSpec",
    "build_report",
    "default_concurrency",
    "make_schedule",
    "parse_entrants",
    "print_report",
    "run_match",
    "wilson_interval",
]
