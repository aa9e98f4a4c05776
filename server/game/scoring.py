"""Sections 7 and 9 of RULES.md: the end of a round, its scoring, the target
score, and the game formats' variations (elimination, teams, tournament).

Functions on a :class:`~.engine.GameState`, called by the engine when a
player goes out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .actions import NONE
from .events import EVERYONE, Event, new_event
from .events import EventKind as E
from .hotpath import EV_HAND_SCORED, PLAYING, ROUND_OVER, TURN
from .rules import GameFormat, Scoring
from .view import Phase

if TYPE_CHECKING:
    from .engine import GameState


def went_out(game: GameState, seat: int, nxt: int, events: list[Event]) -> list[Event]:
    """``seat`` has played its last card: the round ends (section 7), or under
    ``format=elimination`` play goes on without them, from ``nxt`` (section 9)."""
    if game.rules.format is GameFormat.ELIMINATION:
        ring = game._ring
        after = game._step(seat, 1)
        take_out(game, seat)
        events.append(Event(E.PLAYER_OUT, seat, value=len(game._out)))
        if len(ring) > 1:
            game._catchable = NONE
            game._phase = PLAYING
            game._current = after if nxt == seat else nxt
            events.append(TURN[game._current])
            return events
    end_round(game, seat, events)
    return events


def take_out(game: GameState, seat: int) -> None:
    """Section 9: ``seat`` leaves play (turn order closes up around it)."""
    ring = game._ring
    ring.remove(seat)
    game._out.append(seat)
    pos = game._pos
    pos[seat] = NONE
    for i, p in enumerate(ring):
        pos[p] = i


def end_round(game: GameState, winner: int, events: list[Event]) -> None:
    """Section 7: score the round and check the target score; section 9: the
    formats' variations (elimination, teams, tournament)."""
    rules = game.rules
    fmt = rules.format
    game._round_winner = winner
    game._catchable = NONE
    game._phase = ROUND_OVER
    if fmt is GameFormat.ELIMINATION:  # the one player left loses; no points change
        loser = game._ring[0]
        take_out(game, loser)
        events.append(Event(E.PLAYER_OUT, loser, value=len(game._out)))
        events.append(Event(E.HAND_SCORED, loser, value=game.hand_points(loser)))
        game._round_winner = winner = game._out[0]
        events.append(Event(E.ROUND_OVER, winner, value=0))
        game_over(game, (winner,), events)
        return
    ring = game._ring
    pts = game._points
    points = [0] * game.players
    for p in ring:
        points[p] = value = sum(map(pts.__getitem__, game._hands[p]))
        events.append(new_event((EV_HAND_SCORED, p, EVERYONE, (), 0, NONE, NONE, value)))
    scores = game._scores
    won = 0
    if fmt is GameFormat.TEAMS:  # partners p and p + n/2 score as one
        half = game.players // 2
        for team in range(half):
            mates = (team, team + half)
            if rules.scoring is Scoring.WINNER_TAKES:
                if winner % half == team:
                    won = sum(points) - points[team] - points[team + half]
                    gain = won
                else:
                    gain = 0
            else:
                gain = points[team] + points[team + half]
            for p in mates:
                scores[p] += gain
    elif rules.scoring is Scoring.WINNER_TAKES:
        won = sum(points)
        scores[winner] += won
    else:
        for p in ring:
            scores[p] += points[p]
    events.append(Event(E.ROUND_OVER, winner, value=won))
    if fmt is GameFormat.TOURNAMENT:
        tournament_outs(game, events)
    elif max(scores) >= rules.target_score:
        best = (max if rules.scoring is Scoring.WINNER_TAKES else min)(scores)
        game_over(game, tuple(p for p in range(game.players) if scores[p] == best), events)


def tournament_outs(game: GameState, events: list[Event]) -> None:
    """Section 9 (challenge tournament): players whose score reached the target
    are out, the highest score first (each takes the last place left); the
    last player left wins. If all who were left reach it together, the lowest
    score among them wins."""
    scores = game._scores
    target = game.rules.target_score
    reached = sorted((p for p in game._ring if scores[p] >= target), key=lambda p: -scores[p])
    if len(reached) == len(game._ring):
        best = min(scores[p] for p in reached)
        reached = [p for p in reached if scores[p] != best]
    for p in reached:
        events.append(Event(E.PLAYER_OUT, p, value=len(game._ring)))
        take_out(game, p)
    ring = game._ring
    if len(ring) == 1 or all(scores[p] >= target for p in ring):
        game_over(game, tuple(ring), events)


def game_over(game: GameState, winners: tuple[int, ...], events: list[Event]) -> None:
    game._game_winners = winners
    game._phase = Phase.GAME_OVER
    for p in winners:
        events.append(Event(E.GAME_OVER, p))
