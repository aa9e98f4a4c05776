"""The import graph of the tree, checked: no circle of files, and the client
reaches into the server only through the embedded server's entry points.

    .venv/bin/python tests/import_graph.py            (run by `make lint`)
    .venv/bin/python tests/import_graph.py --arrows   (every arrow, one a line)

Every ``import`` and ``from ... import`` of every ``.py`` file counts, those
inside functions and under ``if TYPE_CHECKING:`` too: a type hint is a
dependency of the design even when it costs nothing at run time. A file is
named by its installed module (``server/game/engine.py`` is
``unoplay.game.engine``: pyproject.toml's ``package-dir``). ``from p import
name`` is an arrow to the module ``p.name`` when there is one, else to ``p``.

Two rules, each failing the check with the arrows that break it:

- **No circle of files** (a strongly connected part of the graph with two
  files or more; a package's ``__init__`` that re-exports its modules is a
  file like any other).
- **The client and the server meet at the server's entry points**: a module
  of ``unoplay.client`` may import from ``unoplay.server`` only the names in
  ``ENTRY_POINTS`` (the embedded server: ``Lobby``, ``LocalSeats``, ``serve``),
  and what a server is started with, plus the arrows of ``EXCEPTIONS``,
  each with the reason it stays.

Exit status 0 when both hold, 1 otherwise.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# pyproject.toml's package-dir: the folder of each top package, the most
# specific first (server/game is unoplay.game, not unoplay.server.game).
PACKAGES: list[tuple[str, Path]] = [
    ("unoplay.game", ROOT / "server" / "game"),
    ("unoplay.server", ROOT / "server"),
    ("unoplay.client", ROOT / "client"),
    ("unoplay", ROOT / "proto" / "unoplay"),
]
SKIPPED = {"_build", "build", "node_modules", "__pycache__"}

# What the client may import from the server: the embedded server's entry
# points (the lobby, in-process seats, serve) and what a server is started
# with (its limits, the arena's settings, its file of games).
ENTRY_POINTS: dict[str, set[str]] = {
    "unoplay.server.lobby": {"Lobby"},
    "unoplay.server.localseat": {"LocalSeats", "BotRaised", "SlowDecision"},
    "unoplay.server.service": {"start_server", "Server"},
    "unoplay.server.limits": {"Limits"},
    "unoplay.server.arena": {"ArenaSettings"},
    "unoplay.server.storage": {"GameStore", "default_db_path"},
}

# (client module, server module) arrows that stay, with the reason.
EXCEPTIONS: dict[tuple[str, str], str] = {
    ("unoplay.client.cli.arena", "unoplay.server.ratings"): (
        "`uno arena reset` and `uno arena forget` edit the ratings book in the server's own file"
    ),
}


def module_files() -> dict[str, Path]:
    """Every module of the tree: ``{module name: file}``; a package is the
    name of its ``__init__.py``."""
    modules: dict[str, Path] = {}
    seen: set[Path] = set()
    for package, folder in PACKAGES:
        for path in sorted(folder.rglob("*.py")):
            parts = path.relative_to(folder).with_suffix("").parts
            if SKIPPED & set(parts) or path in seen:
                continue
            seen.add(path)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            name = ".".join((package, *parts))
            modules[name] = path
    return modules


def imports(name: str, path: Path) -> Iterator[tuple[str, list[str]]]:
    """The imports of module ``name`` (file ``path``): ``(imported module,
    names taken from it)`` pairs, relative imports resolved."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, []
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            yield base, [alias.name for alias in node.names]


def arrows(modules: dict[str, Path]) -> dict[str, dict[str, set[str]]]:
    """The graph: ``{module: {imported module of the tree: names taken}}``."""
    graph: dict[str, dict[str, set[str]]] = {name: {} for name in modules}
    for name, path in modules.items():
        for target, names in imports(name, path):
            submodules = [f"{target}.{n}" for n in names if f"{target}.{n}" in modules]
            rest = {n for n in names if f"{target}.{n}" not in modules}
            for sub in submodules:
                graph[name].setdefault(sub, set())
            if target in modules and (rest or not names):
                graph[name].setdefault(target, set()).update(rest)
    for name in graph:
        graph[name].pop(name, None)
    return graph


def circles(graph: dict[str, dict[str, set[str]]]) -> list[list[str]]:
    """The strongly connected parts of two modules or more (Tarjan's
    algorithm, iterative), each sorted, the list sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                part = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    part.append(member)
                    if member == node:
                        break
                if len(part) > 1:
                    found.append(sorted(part))
    return sorted(found)


def client_reaches(graph: dict[str, dict[str, set[str]]]) -> list[str]:
    """The client's arrows into the server that are neither an entry point
    nor a written exception: one line each."""
    wrong = []
    for source, targets in sorted(graph.items()):
        if not source.startswith("unoplay.client"):
            continue
        for target, names in sorted(targets.items()):
            if not target.startswith("unoplay.server") or (source, target) in EXCEPTIONS:
                continue
            allowed = ENTRY_POINTS.get(target, set())
            extra = sorted(names - allowed) if names else ["(the module itself)"]
            if extra:
                wrong.append(f"{source} -> {target}: {', '.join(extra)}")
    return wrong


def main(argv: list[str] | None = None) -> int:
    """Check the two rules; print what breaks them."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--arrows", action="store_true", help="print every arrow and stop")
    args = parser.parse_args(argv)
    modules = module_files()
    graph = arrows(modules)
    if args.arrows:
        for source, targets in sorted(graph.items()):
            for target, names in sorted(targets.items()):
                print(f"{source} -> {target}: {', '.join(sorted(names)) or '(the module)'}")
        return 0
    failed = False
    for number, part in enumerate(circles(graph), 1):
        failed = True
        print(f"import circle {number}: {', '.join(part)}")
        for source in part:
            for target in sorted(set(graph[source]) & set(part)):
                names = ", ".join(sorted(graph[source][target])) or "(the module)"
                print(f"  {source} -> {target}: {names}")
    wrong = client_reaches(graph)
    if wrong:
        failed = True
        print("the client imports from the server beyond its entry points:")
        print("\n".join(f"  {line}" for line in wrong))
    unused = [pair for pair in EXCEPTIONS if pair[1] not in graph.get(pair[0], {})]
    if unused:
        failed = True
        print("exceptions no longer needed (remove them):")
        print("\n".join(f"  {a} -> {b}" for a, b in unused))
    if not failed:
        print(
            f"import graph: {len(modules)} modules, no circle, the client uses the server's entry points"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
