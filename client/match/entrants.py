"""Who plays a match: entrants from ``--bots`` and ``--seat``, their labels,
and the bots they stand for.

An entrant is one of:

* a built-in bot kind (``random``, ``greedy``: :data:`unoplay.game.registry.BOT_KINDS`);
* a Python bot of your own, named ``module:attr`` or ``path/to/file.py:attr``
  (a :class:`~unoplay.game.bots.Bot` subclass, or any callable taking
  ``seed`` and returning an object with ``decide(view, legal)``); it runs in
  the runner's worker processes, driven through the SDK like a built-in;
* an external command (``--seat "node bot.js"``), started for every game with
  the server address, table id and seat token in its environment:
  ``UNO_SERVER``, ``UNO_TABLE``, ``UNO_TOKEN`` (and ``UNO_SEAT``).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from unoplay.game.registry import UnknownBotKind, make_bot, parse_kind
from unoplay.game.rules import RuleSet

#: Longest label shown for an external command (its middle is elided).
LABEL_WIDTH = 40
#: Most entrants in one match (a round-robin seats them a table at a time).
MAX_ENTRANTS = 64
#: The server's limit on a seat's name (server/table.py MAX_NAME).
NAME_WIDTH = 24


@dataclass(frozen=True)
class Entrant:
    """One player of the match: a bot kind (built-in or ``module:attr``) or an
    external command. ``label`` is unique within the match."""

    label: str
    kind: str = ""  #: built-in kind or ``module:attr``; "" for an external command
    command: tuple[str, ...] = field(default=())

    @property
    def external(self) -> bool:
        """True for an external command."""
        return not self.kind

    @property
    def identity(self) -> str:
        """What plays, whatever the label: the kind, or the command line.
        Entrants with one identity are interchangeable (duplicate permutations,
        the SPRT's candidate)."""
        return self.kind or shlex.join(self.command)

    @property
    def name(self) -> str:
        """The name this entrant takes at a table (the server allows 24 characters)."""
        label = self.label
        return label if len(label) <= NAME_WIDTH else label[: NAME_WIDTH - 1] + "…"

    def to_dict(self) -> dict[str, Any]:
        """Plain values (JSON): ``label``, ``kind``, ``command``."""
        return {"label": self.label, "kind": self.kind, "command": list(self.command)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Entrant:
        """The entrant of :meth:`to_dict`'s values."""
        return cls(data["label"], data.get("kind", ""), tuple(data.get("command", ())))


def short_command(command: tuple[str, ...] | list[str], width: int = LABEL_WIDTH) -> str:
    """The command line as a label: in full when it fits ``width``, else with
    its paths reduced to their last part, and then its start and end around
    an ellipsis."""
    text = shlex.join(command)
    if len(text) <= width:
        return text
    text = shlex.join(os.path.basename(a) if os.sep in a and " " not in a else a for a in command)
    if len(text) <= width:
        return text
    head = (width - 1) // 2
    return text[:head] + "…" + text[len(text) - (width - 1 - head) :]


def _file_module_name(where: str) -> str:
    """The name the module of bot file ``where`` (as written in its kind) takes
    in ``sys.modules`` in this process."""
    return f"unoplay_match_bot_{abs(hash(str(Path(where).resolve())))}"


#: Per bot module (its name in ``sys.modules``): the modules that were first
#: imported while it was loaded (its own imports, and theirs), for
#: :func:`code_fingerprints`.
_imported_with: dict[str, set[str]] = {}


def _load_file(name: str, path: Path) -> Any:
    """The module of Python file ``path``, loaded once as ``name``. Raises
    ImportError (and what the file raises) when it cannot be loaded."""
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {path}")
        module = importlib.util.module_from_spec(spec)
        before = set(sys.modules)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        finally:
            _imported_with[name] = set(sys.modules) - before - {name}
    return module


def _import(name: str) -> Any:
    """``importlib.import_module(name)``, noting the modules it imported first."""
    if name in sys.modules:
        return importlib.import_module(name)
    before = set(sys.modules)
    try:
        return importlib.import_module(name)
    finally:
        _imported_with[name] = set(sys.modules) - before - {name}


def adopt_bot_file(where: str, path: str | Path) -> None:
    """Make the bots of file ``where`` (``where.py:attr`` as the runner wrote
    it) come from the file at ``path`` in this process: a copy of it shipped
    here (a Ray node that lacks ``where``). Raises what loading it raises."""
    _load_file(_file_module_name(where), Path(path))


def load_bot_factory(kind: str) -> Any:
    """The class or callable named by ``module:attr`` or ``file.py:attr``
    (a file :func:`adopt_bot_file` was given for comes from its copy).
    Raises ValueError when it cannot be imported."""
    where, _, attr = kind.rpartition(":")
    if not where or not attr:
        raise ValueError(f"a bot of your own is module:attr or file.py:attr, not {kind!r}")
    try:
        if where.endswith(".py"):
            module = _load_file(_file_module_name(where), Path(where).resolve())
        else:
            module = _import(where)
        factory = getattr(module, attr)
    except (ImportError, AttributeError, OSError, SyntaxError) as err:
        raise ValueError(f"cannot load the bot {kind!r}: {err}") from None
    if not callable(factory):
        raise ValueError(f"{kind!r} is not a class or a function")
    return factory


def is_plugin(kind: str) -> bool:
    """True for a bot of one's own (``module:attr``), False for a built-in kind."""
    return ":" in kind


def new_bot(kind: str, seed: int, rules: RuleSet | None = None) -> Any:
    """A fresh bot of ``kind`` (built-in or ``module:attr``) for one game under
    ``rules`` (a search bot such as ``ismcts`` plays out positions by them)."""
    if not is_plugin(kind):
        return make_bot(kind, seed=seed, rules=rules)
    factory = load_bot_factory(kind)
    try:
        return factory(seed=seed)
    except TypeError:  # a factory without a seed
        return factory()


def _unique(labels: list[str]) -> list[str]:
    """The labels with ``#2``, ``#3``... after repeats, so each is unique."""
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        out.append(label if seen[label] == 1 else f"{label}#{seen[label]}")
    return out


def _plugin_label(kind: str, kinds: list[str]) -> str:
    """A bot of one's own is labelled by its attribute (``Bot``), or by its
    file's or module's last name and attribute (``v2:Bot``) when another bot
    of the match has that attribute elsewhere (``v2.py:Bot,v1.py:Bot``)."""
    where, _, attr = kind.rpartition(":")
    others = {k.rpartition(":")[0] for k in kinds if is_plugin(k) and k.rpartition(":")[2] == attr}
    if len(others) < 2:
        return attr
    name = Path(where).stem if where.endswith(".py") else where.rpartition(".")[2]
    return f"{name}:{attr}"


def parse_entrants(bots: str, seats: list[str] | tuple[str, ...] = ()) -> list[Entrant]:
    """Entrants from ``--bots greedy,random`` and ``--seat CMD`` options.

    Built-in kinds keep their name (``random``, ``random#2``...), a bot of
    your own its attribute name, an external command its command line.
    Raises ValueError for an unknown kind, a bot that cannot be loaded, an
    empty command, or fewer than 2 / more than :data:`MAX_ENTRANTS` entrants.
    """
    kinds: list[str] = []
    labels: list[str] = []
    commands: list[tuple[str, ...]] = []
    given = [k.strip() for k in bots.split(",") if k.strip()]
    for kind in given:
        if is_plugin(kind):
            load_bot_factory(kind)  # fail now, not in a worker
            labels.append(_plugin_label(kind, given))
        else:
            try:
                parse_kind(kind)  # a bad budget of a known kind: its ValueError as it is
            except UnknownBotKind as err:
                raise ValueError(
                    f"{err}; or a bot of your own, module:attr or file.py:attr"
                ) from None
            labels.append(kind)
        kinds.append(kind)
        commands.append(())
    for text in seats:
        command = tuple(shlex.split(text))
        if not command:
            raise ValueError("--seat needs a command")
        kinds.append("")
        labels.append(short_command(command))
        commands.append(command)
    if not 2 <= len(kinds) <= MAX_ENTRANTS:
        raise ValueError(
            f"a match needs 2..{MAX_ENTRANTS} entrants (--bots and --seat together), "
            f"not {len(kinds)}"
        )
    return [
        Entrant(label, kind, command)
        for label, kind, command in zip(_unique(labels), kinds, commands)
    ]


def _sha256(path: Path) -> str:
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def _installed_dirs() -> tuple[str, ...]:
    """Directories whose modules are not a bot's own code: the standard
    library, site-packages (this environment's, the user's) and unoplay's own
    packages; each ending in a separator."""
    import site
    import sysconfig

    paths = sysconfig.get_paths()
    dirs = {paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths}
    dirs.update(site.getsitepackages())
    dirs.add(site.getusersitepackages())
    return tuple(os.path.realpath(d) + os.sep for d in dirs if d) + unoplay_dirs()


def unoplay_dirs() -> tuple[str, ...]:
    """The directories of unoplay's own packages (real paths, each ending in a
    separator), found without importing them."""
    import importlib.util

    dirs = []
    for name in ("unoplay", "unoplay.client", "unoplay.server"):
        spec = importlib.util.find_spec(name)
        origin = spec.origin if spec is not None and spec.origin else "."
        dirs.append(os.path.realpath(os.path.dirname(origin)) + os.sep)
    return tuple(dirs)


def _own_file(module: Any, installed: tuple[str, ...]) -> Path | None:
    """The source file of ``module`` when it is a bot's own code (not in
    ``installed``: :func:`_installed_dirs`), else None."""
    name = getattr(module, "__file__", None)
    if not isinstance(name, str) or not os.path.isfile(name):
        return None
    path = os.path.realpath(name)
    return None if path.startswith(installed) else Path(path)


def _own_modules(root: Any, installed: tuple[str, ...]) -> list[Path]:
    """The files of the bot's own modules reached from module ``root``: the
    modules first imported while it was loaded, the modules its globals name
    (imported modules, the modules of its classes and functions), theirs in
    turn, and every ``.py`` file of a package of its own they belong to
    (its lazy imports too); not ``root``'s own file."""
    files: set[Path] = set()
    seen = {root.__name__}
    todo = [root]
    for name in _imported_with.get(root.__name__, ()):
        if name in sys.modules and name not in seen:
            seen.add(name)
            todo.append(sys.modules[name])
    while todo:
        module = todo.pop()
        path = _own_file(module, installed)
        if module is not root:
            if path is None:
                continue  # installed: not followed
            files.add(path)
        top = sys.modules.get((getattr(module, "__package__", None) or "").partition(".")[0])
        for where in getattr(top, "__path__", ()):  # a package of its own: all of it
            if not os.path.realpath(where).startswith(installed):
                files.update(p.resolve() for p in Path(where).rglob("*.py"))
        for value in list(vars(module).values()):
            try:
                name = value.__name__ if isinstance(value, type(sys)) else value.__module__
            except Exception:  # no module (or an object that will not say)
                continue
            if isinstance(name, str) and name not in seen and name in sys.modules:
                seen.add(name)
                todo.append(sys.modules[name])
    return sorted(files)


def _code_files(entrant: Entrant) -> list[Path]:
    """The files whose content decides how ``entrant`` plays: a built-in
    kind's modules (unoplay.game.bots, .playorder and .search), a ``file.py:attr`` bot's
    file or a ``module:attr`` bot's module source, then the files of every
    module of its own it uses (:func:`_own_modules`: not in the standard
    library, site-packages or unoplay); an external command's executable
    (found on PATH) and every argument naming an existing file (``node
    bot.js``: node and bot.js)."""
    if entrant.external:
        import shutil

        found = shutil.which(entrant.command[0])
        paths = [Path(found)] if found else []
        paths += [Path(a) for a in entrant.command[1:] if os.path.isfile(a)]
        return paths
    if not is_plugin(entrant.kind):
        from unoplay.game import bots, playorder, search

        return [Path(m.__file__) for m in (bots, playorder, search) if m.__file__]
    where = entrant.kind.rpartition(":")[0]
    if where.endswith(".py"):
        first = Path(where)
        module = sys.modules.get(_file_module_name(where))
    else:
        spec = importlib.util.find_spec(where)
        if spec is None or not spec.origin or not os.path.isfile(spec.origin):
            return []
        first = Path(spec.origin)
        module = sys.modules.get(where)
    if module is None:  # not loaded here (parse_entrants loads every bot): its file alone
        return [first]
    installed = _installed_dirs()
    return [first] + [p for p in _own_modules(module, installed) if p != first.resolve()]


def code_fingerprints(entrants: list[Entrant]) -> list[dict[str, Any]]:
    """Each entrant's identity (JSON): its label, kind or command, and the
    SHA-256 of each file of its code (:func:`_code_files`: ``files``, a list
    of [path, hex digest]). ``uno match --resume`` compares them with those
    stored with the match, so results of two versions of a bot, or of a
    helper module of it, never mix."""
    out = []
    for entrant in entrants:
        files = []
        for path in _code_files(entrant):
            try:
                files.append([str(path), _sha256(path)])
            except OSError:
                files.append([str(path), "unreadable"])
        out.append({**entrant.to_dict(), "files": files})
    return out


def code_changes(before: Any, now: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What changed between two lists of :func:`code_fingerprints` (``before``:
    a match's stored ones; not a list of as many: nothing is said): per
    changed entrant, ``label`` and ``files``, each ``{"path", "change"}``
    ("changed", "new" or "gone"; none: its command or kind changed)."""
    if not isinstance(before, list) or len(before) != len(now):
        return []
    out = []
    for old, new in zip(before, now):
        if old == new:
            continue
        was = {p: d for p, d in old.get("files", [])}
        is_ = {p: d for p, d in new.get("files", [])}
        files = [
            {"path": p, "change": "new" if p not in was else "changed"}
            for p, d in is_.items()
            if was.get(p) != d
        ] + [{"path": p, "change": "gone"} for p in was if p not in is_]
        out.append({"label": new["label"], "files": files})
    return out


def describe_change(change: dict[str, Any]) -> str:
    """One entrant's :func:`code_changes` entry for people: "Bot (helper.py is changed)"."""
    parts = [f"{f['path']} is {f['change']}" for f in change["files"]]
    return f"{change['label']} ({', '.join(parts) or 'its command or kind'})"
