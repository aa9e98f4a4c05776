"""What ``uno match`` shows as it goes: the progress (a bar on a terminal,
a line every few seconds elsewhere, on stderr) and, with ``--json``, stdout
kept for the report alone."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Iterator
from typing import Any

from .control import Progress

#: Seconds between two progress lines when stderr is not a terminal.
PLAIN_PROGRESS_EVERY = 2.0


class Display:
    """The progress: a bar on a terminal, a line every few seconds elsewhere,
    on stderr (stdout is the report's)."""

    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()
        self.bar: Any = None
        self.task: Any = None
        self.last = 0.0
        self.latest: Progress | None = None

    def __enter__(self) -> Display:
        if self.tty:
            from rich.console import Console
            from rich.progress import Progress as Bar

            self.bar = Bar(console=Console(stderr=True), transient=True)
            self.bar.__enter__()
            self.task = self.bar.add_task("games", total=None)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)

    def __call__(self, p: Progress) -> None:
        self.latest = p
        counts = p.counts
        apart = counts["played"] - counts["counted"]
        text = f"{p.done}/{p.total} games" + (f" ({apart} not counted)" if apart else "")
        if p.sprt:
            text += f", SPRT {p.sprt}"
        if self.bar is not None:
            self.bar.update(self.task, completed=p.done, total=p.total, description=text)
            return
        now = time.monotonic()
        if p.result is not None and (
            now - self.last >= PLAIN_PROGRESS_EVERY or p.done in (1, p.total)
        ):
            self.last = now
            print(f"uno match: {text}", file=sys.stderr, flush=True)

    def say(self, text: str) -> None:
        """Print a line for people on stderr, above the bar when there is one."""
        if self.bar is not None:
            self.bar.console.print(text)
        else:
            print(text, file=sys.stderr, flush=True)


@contextlib.contextmanager
def stdout_aside(aside: bool) -> Iterator[None]:
    """With ``aside`` (``--json``: stdout is the report's alone), what is
    written to stdout meanwhile (bots' print(), at the file descriptor too:
    C code, Ray's lines) goes to stderr; as it was afterwards."""
    if not aside:
        yield
        return
    sys.stdout.flush()
    saved, previous = os.dup(1), sys.stdout
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        yield
    finally:
        sys.stdout.flush()
        sys.stdout = previous
        os.dup2(saved, 1)
        os.close(saved)
