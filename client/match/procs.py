"""Child processes that end with their parent.

Every process the match runner starts (worker processes, external bots) must
end with it, even when the runner is killed with SIGKILL and has no chance to
clean up. On Linux the kernel does it: ``prctl(PR_SET_PDEATHSIG, SIGKILL)``
asks for SIGKILL when the parent thread dies (the thread that forked: the
event loop's, which lives as long as the runner). Each child is also the
leader of its own process group, so that ending it ends what it started
(``sh -c "node bot.js"``), and so that the terminal's Ctrl-C reaches only the
runner, which decides what happens to its games.

Elsewhere (macOS) there is no PDEATHSIG: children are ended on every exit but
SIGKILL.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import shutil
import signal
import sys
from collections.abc import Callable, Sequence

PR_SET_PDEATHSIG = 1

_prctl: Callable[..., int] | None = None
if sys.platform.startswith("linux"):
    try:
        _libc = ctypes.CDLL(None, use_errno=True)
        _prctl = _libc.prctl
        _prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong]
        _prctl.restype = ctypes.c_int
    except (OSError, AttributeError):  # pragma: no cover - a libc without prctl
        _prctl = None


def die_with_parent() -> None:
    """Ask the kernel for SIGKILL when the parent thread dies (Linux; else
    nothing). A child that calls it for itself should then check that its
    parent is still the one it expects (:func:`parent_alive`), since the
    parent may have died before the call."""
    if _prctl is not None:
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0)


def parent_alive(expected: int) -> bool:
    """True while this process's parent is ``expected`` (an orphan's parent
    is init or a subreaper)."""
    return os.getppid() == expected


#: Runs a command with PR_SET_PDEATHSIG set (``python -S -c WRAPPER PARENT CMD...``):
#: asks for SIGKILL on the parent's death, checks that the parent is still
#: there (it may have died first), then becomes the command.
WRAPPER = (
    "import ctypes,os,sys\n"
    "ctypes.CDLL(None).prctl(1, 9, 0, 0, 0)\n"
    "if os.getppid() != int(sys.argv[1]): os._exit(1)\n"
    "os.execvp(sys.argv[2], sys.argv[2:])\n"
)


def wrapped(command: list[str] | tuple[str, ...]) -> list[str]:
    """``command`` behind :data:`WRAPPER` on Linux (as it is elsewhere).

    Not a ``preexec_fn``: a process that uses grpc must not run Python code
    between fork and exec (grpc's fork handlers abort the child), and without
    one ``subprocess`` forks with vfork, which runs no fork handler at all."""
    if _prctl is None:
        return list(command)
    return [sys.executable, "-S", "-c", WRAPPER, str(os.getpid()), *command]


def program_problem(command: Sequence[str]) -> str:
    """Why ``command``'s program cannot be started here ("no such program:
    'x'", "not an executable program: 'x'"), or "" when it can."""
    program = command[0] if command else ""
    if not program or (os.sep not in program and shutil.which(program) is None):
        return f"no such program: {program!r}"
    if os.sep in program and not os.access(program, os.X_OK):
        return f"not an executable program: {program!r}"
    return ""


async def spawn(
    command: list[str] | tuple[str, ...],
    *,
    env: dict[str, str] | None = None,
    stdin: int | None = asyncio.subprocess.DEVNULL,
    stdout: int | None = asyncio.subprocess.DEVNULL,
    stderr: int | None = None,
    limit: int = 2**16,
    wrap: bool = True,
) -> asyncio.subprocess.Process:
    """Start ``command`` in a process group of its own as a child that dies
    with this process: behind :data:`WRAPPER` (``wrap``), or a child that
    asks for it itself (the worker processes, :func:`die_with_parent`).
    Raises OSError when the program does not exist."""
    problem = program_problem(command)
    if problem:
        raise (FileNotFoundError if problem.startswith("no such") else PermissionError)(problem)
    return await asyncio.create_subprocess_exec(
        *(wrapped(command) if wrap else command),
        env=env,
        stdin=stdin,
        stdout=stdout,
        stderr=stderr,
        limit=limit,
        process_group=0,
    )


def signal_group(process: asyncio.subprocess.Process, sig: int) -> None:
    """Send ``sig`` to the process group that ``process`` leads (itself and
    whatever it started); nothing if it is gone."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, sig)


async def end(process: asyncio.subprocess.Process, grace: float = 2.0) -> int | None:
    """End ``process`` and its group: SIGTERM, then SIGKILL after ``grace``
    seconds. Returns its exit code (negative: the signal that ended it).
    The group is signalled even when the leader has already exited, since
    what it started may still run."""
    if process.returncode is None:
        signal_group(process, signal.SIGTERM)
        try:
            await asyncio.wait_for(process.wait(), grace)
        except TimeoutError:
            pass
    signal_group(process, signal.SIGKILL)
    if process.returncode is None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(process.wait(), 5.0)
    return process.returncode
