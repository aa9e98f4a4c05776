"""Sections 7 and 9 of RULES.md: the end of a round, its scoring, the target
score, and the game formats' variations (elimination, teams, tournament).

Functions on a :class:`~.state.Position` (the engine's state), called by the engine when a
player goes out.
"""

from __future__ import annotations

from .actions import NONE
from .events import EVERYONE, Event, new_event
from .events import EventKind as E
from .hotpath import EV_HAND_SCORED, PLAYING, ROUND_OVER, TURN
from .rules import GameFormat, Scoring
from .state import Position
from .view import Phase


def went_out(game: Position, seat: int, nxt: int, events: list[Event]) -> list[Event]:
    """``seat`` has played its last card: the round ends (section 7), or under
    ``format=elimination`` play goes on without them, from ``nxt`` (section 9)."""
    if game.rules.format is GameFormat.ELIMINATION:
        ring = game.ring
        after = game.seat_after(seat, 1)
        take_out(game, seat)
        events.append(Event(E.PLAYER_OUT, seat, value=len(game.out_seats)))
        if len(ring) > 1:
            game.catchable = NONE
            game.phase = PLAYING
            game.current = after if nxt == seat else nxt
            events.append(TURN[game.current])
            return events
    end_round(game, seat, events)
    return events


def take_out(game: Position, seat: int) -> None:
    """Section 9: ``seat`` leaves play (turn order closes up around it)."""
    ring = game.ring
    ring.remove(seat)
    game.out_seats.append(seat)
    pos = game.ring_pos
    pos[seat] = NONE
    for i, p in enumerate(ring):
        pos[p] = i


def end_round(game: Position, winner: int, events: list[Event]) -> None:
    """Section 7: score the round and check the target score; section 9: the
    formats' variations (elimination, teams, tournament)."""
    rules = game.rules
    fmt = rules.format
    game.round_winner = winner
    game.catchable = NONE
    game.phase = ROUND_OVER
    if fmt is GameFormat.ELIMINATION:  # the one player left loses; no points change
        loser = game.ring[0]
        take_out(game, loser)
        events.append(Event(E.PLAYER_OUT, loser, value=len(game.out_seats)))
        events.append(Event(E.HAND_SCORED, loser, value=game.hand_points(loser)))
        game.round_winner = winner = game.out_seats[0]
        events.append(Event(E.ROUND_OVER, winner, value=0))
        game_over(game, (winner,), events)
        return
    ring = game.ring
    pts = game.card_points
    points = [0] * game.players
    for p in ring:
        points[p] = value = sum(map(pts.__getitem__, game.hands[p]))
        events.append(new_event((EV_HAND_SCORED, p, EVERYONE, (), 0, NONE, NONE, value)))
    scores = game.score_sheet
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
    elif rules.target_score == 0:  # a single-round game: whoever went out wins it
        if fmt is GameFormat.TEAMS:
            half = game.players // 2
            game_over(game, (winner % half, winner % half + half), events)
        else:
            game_over(game, (winner,), events)
    elif max(scores) >= rules.target_score:
        best = (max if rules.scoring is Scoring.WINNER_TAKES else min)(scores)
        game_over(game, tuple(p for p in range(game.players) if scores[p] == best), events)


def tournament_outs(game: Position, events: list[Event]) -> None:
    """Section 9 (challenge tournament): players whose score reached the target
    are out, the highest score first (each takes the last place left); the
    last player left wins. If all who were left reach it together, the lowest
    score among them wins."""
    scores = game.score_sheet
    target = game.rules.target_score
    reached = sorted((p for p in game.ring if scores[p] >= target), key=lambda p: -scores[p])
    if len(reached) == len(game.ring):
        best = min(scores[p] for p in reached)
        reached = [p for p in reached if scores[p] != best]
    for p in reached:
        events.append(Event(E.PLAYER_OUT, p, value=len(game.ring)))
        take_out(game, p)
    ring = game.ring
    if len(ring) == 1 or all(scores[p] >= target for p in ring):
        game_over(game, tuple(ring), events)


def game_over(game: Position, winners: tuple[int, ...], events: list[Event]) -> None:
    """Section 7: the game is over, won by ``winners``."""
    game.game_winners = winners
    game.phase = Phase.GAME_OVER
    for p in winners:
        events.append(Event(E.GAME_OVER, p))
