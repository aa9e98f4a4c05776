"""``uno standings``: the arena's standings of a server, a table or JSON."""

from __future__ import annotations

import argparse
import asyncio
import json

from .. import arguments

HELP = "a server's arena standings"


#: the most rows a StandingsRequest asks for (its uint32; the server caps it lower)
MAX_ROWS = 2**32 - 1


def _row_limit(text: str) -> int:
    """``--limit``: a whole number of rows, 0 or more (a larger one than a
    request carries asks for every row the server gives)."""
    return min(arguments.number(int, 0)(text), MAX_ROWS)


def add_arguments(standings: argparse.ArgumentParser) -> None:
    """The options of ``uno standings``."""
    arguments.add_server(standings, required=True)
    standings.add_argument("--limit", type=_row_limit, default=0, help="rows at most (0: all)")
    arguments.add_json(standings)


def run(args: argparse.Namespace) -> int:
    """``uno standings``: the arena's standings of a server, a table or JSON."""
    from ..sdk import Connection

    async def main() -> list:
        async with Connection(args.server) as conn:
            return await conn.standings(args.limit)

    rows = asyncio.run(main())  # a server's failure: main() says it
    if args.json:
        fields = (
            "name",
            "games",
            "wins",
            "rating",
            "mu",
            "sigma",
            "waiting",
            "playing",
            "opponents",
            "provisional",
        )
        print(json.dumps([{f: getattr(r, f) for f in fields} for r in rows], indent=1))
        return 0
    from rich.console import Console
    from rich.table import Table as RichTable
    from rich.text import Text

    table = RichTable(title=f"Arena of {args.server}")
    for column in ("#", "name", "games", "opp.", "won", "rating", "mu ± sigma", "now"):
        table.add_column(column, justify="left" if column in ("name", "now") else "right")
    for rank, r in enumerate(rows, 1):
        win_rate = f"{r.wins / r.games:.0%}" if r.games else "-"
        now = "playing" if r.playing else "waiting" if r.waiting else ""
        table.add_row(
            str(rank),
            Text(r.name),
            str(r.games),
            str(r.opponents),
            win_rate,
            f"{r.rating:.2f}" + ("?" if r.provisional else ""),
            f"{r.mu:.2f} ± {r.sigma:.2f}",
            now,
        )
    if not rows:
        print(f"uno standings: nobody has entered the arena of {args.server} yet")
        return 0
    Console().print(table)
    print("opp.: distinct opponents in rated games; ?: a provisional rating (fewer than 5)")
    return 0
