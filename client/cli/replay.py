"""``uno replay``: the stored games (``uno serve --db``, or a ``uno match``
results file), one game stepped through in the terminal, or exported."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from .. import arguments

HELP = "step through a stored game (or list them), or export it"


def add_arguments(replay: argparse.ArgumentParser) -> None:
    """The options of ``uno replay``."""
    replay.add_argument(
        "game",
        nargs="?",
        help="game id, table id or 'last' (with --match: the game's number in the match; "
        "none: list games)",
    )
    arguments.add_db(replay)
    replay.add_argument(
        "--match",
        metavar="FILE",
        help="a game of a uno match results file (its --out) instead: the latest match's",
    )
    replay.add_argument(
        "--match-id", type=int, default=None, metavar="ID", help="with --match: this match's"
    )
    replay.add_argument(
        "--jsonl",
        action="store_true",
        help="JSON Lines: the game, every action and every event, the result",
    )
    replay.add_argument("--limit", type=arguments.positive, default=50, help="games to list")
    replay.add_argument(
        "--text", action="store_true", help="print the list or the move list (no screen)"
    )
    replay.add_argument(
        "--as",
        dest="as_seat",
        type=int,
        default=None,
        metavar="SEAT",
        help="step through seat SEAT's view (1..players; default: every hand)",
    )


def run(args: argparse.Namespace) -> int:
    """``uno replay``: the stored games, or one game, stepped through in the
    terminal (a text dump with ``--text`` or when the output is no terminal;
    JSON Lines with ``--jsonl``)."""
    from ..replay import Frames, jsonl_lines, write_game_list, write_move_list

    if args.jsonl and args.text:
        raise SystemExit("uno replay: --jsonl or --text, not both")

    if args.match:
        store: Any = _MatchGames(args.match, args.match_id)
    else:
        store = arguments.game_store(args, "uno replay")
    text = args.text or args.jsonl or not sys.stdout.isatty()
    try:
        if args.game is None:
            games = store.games(args.limit)
            if text:
                write_game_list(games, sys.stdout)
                return 0
            from ..tui.replay import ReplayApp

            def load(game_id: int) -> Frames:
                return Frames.of(store.load(game_id))

            return _run_app(ReplayApp(games=games, load=load))
        try:
            record = store.load(args.game)
        except KeyError as err:
            raise SystemExit(f"uno replay: {err.args[0]}") from None
        if args.jsonl:
            for line in jsonl_lines(record):
                sys.stdout.write(line + "\n")
        elif text:
            write_move_list(record, sys.stdout)
        else:
            from ..tui.replay import ReplayApp

            seat = (args.as_seat or 0) - 1
            if not -1 <= seat < len(record.players):
                raise SystemExit(f"uno replay: --as takes a seat 1..{len(record.players)}")
            try:
                frames = Frames.of(record)
            except ValueError as err:
                raise SystemExit(f"uno replay: the game does not replay: {err}") from None
            return _run_app(ReplayApp(frames, seat))
    finally:
        store.close()
    return 0


def _run_app(app: Any) -> int:
    """Run a Textual app; its exit status: 0, or non-zero when it ended in an
    error (Textual has printed what went wrong)."""
    app.run()
    return app.return_code or 0


class _MatchGames:
    """The games of one match of a ``uno match`` results file, as ``uno
    replay`` reads a game store (``games``, ``load``, ``close``): game N is the
    match's game index N. Raises SystemExit when the file or the match is not there."""

    def __init__(self, path: str, match_id: int | None) -> None:
        from ..match.store import MatchStore

        if not os.path.exists(path):
            raise SystemExit(f"uno replay: no match results at {path}")
        try:
            self.store = MatchStore(path)
        except ValueError as err:
            raise SystemExit(f"uno replay: {err}") from None
        self.match_id = match_id if match_id is not None else self.store.latest()
        try:
            if self.match_id is None:
                raise KeyError(f"{path} holds no match")
            self.store.match(self.match_id)
        except KeyError as err:
            self.store.close()
            raise SystemExit(f"uno replay: {err.args[0]}") from None

    def games(self, limit: int) -> list[dict]:
        """The match's games by index (the first ``limit``)."""
        assert self.match_id is not None
        return self.store.game_list(self.match_id)[:limit]

    def load(self, game: int | str):
        """The full record of the match's game ``game`` (its index). Raises
        KeyError when there is no such game, or it has no record."""
        assert self.match_id is not None
        if not str(game).isdigit():
            raise KeyError(f"a match's game is its number, not {game!r}")
        record = self.store.game_record(self.match_id, int(game))
        if record is None:
            raise KeyError(
                f"game {game} of match {self.match_id} has no record: it was played on a "
                "remote server (--server), whose own store (uno serve --db) may hold it"
            )
        record.game_id = int(game)
        return record

    def close(self) -> None:
        """Close the file."""
        self.store.close()
