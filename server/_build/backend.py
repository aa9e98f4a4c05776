"""The project's PEP 517 build backend: setuptools, plus an OPTIONAL compiled engine.

``pyproject.toml`` names it (``build-backend = "backend"``, ``backend-path =
["server/_build"]``); the project has no ``setup.py``. Every hook is
setuptools' own (``setuptools.build_meta``), except that a **wheel** (``pip
install .``, ``pip wheel .``) also carries the game's hot modules compiled by
Cython from their unchanged ``.py`` sources, each with its ``.pxd`` beside it
(``server/game/engine.pxd`` declares ``GameState`` a ``cdef class``):

* ``compiler_directives={"annotation_typing": False}``: the annotations of the
  ``.py`` files stay documentation (``dict[str, type]`` would otherwise become
  an exact type check); the types the C code uses are the ``.pxd``'s.
* ``ext.optional = True`` after ``cythonize``: a machine without a C compiler
  still installs, as pure Python (setuptools warns and goes on).
* The sources are copied to ``build/cython/src/unoplay/game/`` (Cython finds a
  module's .pxd by its import name), the generated C goes to ``build/cython/c/``; neither goes into the wheel, which
  holds each ``.py`` beside its compiled module (the import system prefers
  the compiled one).
* Never built in place: an **editable** install (``pip install -e .``, what
  ``make install`` does) is pure Python, so a stale ``.so`` never shadows an
  edit of the source and the module keeps its true ``__module__``.

``UNOPLAY_PURE=1`` in the environment (or ``--config-settings pure=1``) builds
a pure-Python wheel. ``make compiled`` installs the compiled build into
``.venv-compiled``; ``make test-compiled`` runs the game's tests on it.
"""

from __future__ import annotations

import os
import shutil
from typing import Any

from setuptools import build_meta as _meta

#: The game package's modules compiled in a wheel. Each may have a .pxd beside
#: it (server/game/NAME.pxd) with its C declarations.
COMPILED = ("engine", "deals", "house", "scoring", "search", "state", "playorder")
#: Where the sources are laid out under their import names (``unoplay/game/``),
#: so that Cython finds each module's .pxd and names the module right.
STAGE = os.path.join("build", "cython", "src")

_Settings = dict[str, Any] | None


def _pure(config_settings: _Settings) -> bool:
    flag = str((config_settings or {}).get("pure", os.environ.get("UNOPLAY_PURE", "")))
    return flag.lower() in ("1", "true", "yes", "on")


def _extensions() -> list[Any]:
    """The Cython extensions, cythonized; each optional (skipped if it cannot compile)."""
    from Cython.Build import cythonize
    from setuptools import Extension

    game = os.path.join(STAGE, "unoplay", "game")
    shutil.rmtree(STAGE, ignore_errors=True)
    shutil.copytree(os.path.join("server", "game"), game, ignore=shutil.ignore_patterns("__pycache__"))
    with open(os.path.join(STAGE, "unoplay", "__init__.py"), "w"):
        pass
    modules = cythonize(
        [Extension(f"unoplay.game.{m}", [os.path.join(game, f"{m}.py")]) for m in COMPILED],
        compiler_directives={"annotation_typing": False, "language_level": 3},
        build_dir=os.path.join("build", "cython", "c"),
        quiet=True,
    )
    for ext in modules:
        ext.optional = True
    return modules


class _Backend(_meta._BuildMetaBackend):
    """setuptools' backend; ``run_setup`` adds the extensions when ``compiled``."""

    compiled = False

    def run_setup(self, setup_script: str = "setup.py") -> None:
        from setuptools import setup

        if self.compiled:
            setup(ext_modules=_extensions())
        else:
            setup()


_plain = _Backend()
_compiled = _Backend()
_compiled.compiled = True

get_requires_for_build_sdist = _plain.get_requires_for_build_sdist
get_requires_for_build_editable = _plain.get_requires_for_build_editable
prepare_metadata_for_build_wheel = _plain.prepare_metadata_for_build_wheel
prepare_metadata_for_build_editable = _plain.prepare_metadata_for_build_editable
build_sdist = _plain.build_sdist
build_editable = _plain.build_editable  # pure Python: never a module built in place


def get_requires_for_build_wheel(config_settings: _Settings = None) -> list[str]:
    """setuptools' requirements (Cython is in ``[build-system] requires``)."""
    return _plain.get_requires_for_build_wheel(config_settings)


def build_wheel(
    wheel_directory: str,
    config_settings: _Settings = None,
    metadata_directory: str | None = None,
) -> str:
    """A wheel with the compiled engine (pure Python if ``pure`` is set, or
    where the C compiler fails). Returns the wheel's file name."""
    backend = _plain if _pure(config_settings) else _compiled
    return backend.build_wheel(wheel_directory, config_settings, metadata_directory)
