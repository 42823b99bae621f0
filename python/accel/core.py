"""The accel compiler in-process, through the `accel._core` extension.

`parse(text)` parses, verifies and prints MLIR text; `run_pipeline(text,
pipeline)` also runs a textual pass pipeline on it (what `accel-opt
--pass-pipeline=...` does, without starting a process); `version()` is the
compiler id. Failures raise `AccelError`, whose `diagnostics` are located
in the input as `<python>:LINE:COL: error: ...`.

The extension (a nanobind module built with the C++ tree, see
python/CMakeLists.txt) is found, in order: installed next to this package
(`accel._core`), then in `$ACCEL_BUILD_DIR/python/accel/` when
`ACCEL_BUILD_DIR` is set, else in `<repo>/build/python/accel/`. When it is
not built, importing this module raises ModuleNotFoundError.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from . import tools

__all__ = ["AccelError", "parse", "run_pipeline", "version"]

_REPO_ROOT = Path(__file__).resolve().parents[2]
_NAME = __package__ + "._core"


def _build_dir() -> Path:
    override = os.environ.get("ACCEL_BUILD_DIR")
    return Path(override) if override else _REPO_ROOT / "build"


def _load() -> ModuleType:
    try:
        return importlib.import_module(_NAME)  # installed next to the package
    except ModuleNotFoundError as err:
        if err.name != _NAME:  # the extension exists but something it needs does not
            raise
    folder = _build_dir() / "python" / "accel"
    # Only the suffixes this interpreter can load: a build for another Python
    # version is reported as not built, with its file name.
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = folder / ("_core" + suffix)
        if path.is_file():
            spec = importlib.util.spec_from_file_location(_NAME, path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[_NAME] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                del sys.modules[_NAME]
                raise
            return module
    others = sorted(p.name for p in folder.glob("_core*")) if folder.is_dir() else []
    hint = (f" (found {', '.join(others)}, built for another Python)" if others else "")
    raise ModuleNotFoundError(
        f"the accel._core extension is not built: no _core{importlib.machinery.EXTENSION_SUFFIXES[0]} "
        f"in {folder}{hint}; build it with the C++ tree (needs Python development "
        "headers and nanobind, see python/README.md) or point ACCEL_BUILD_DIR at its build tree",
        name=_NAME)


_core = _load()


class AccelError(tools.AccelError, _core.AccelError):
    """The compiler rejected its input; `diagnostics` holds its messages.

    Also an `accel.AccelError` (`accel.tools.AccelError`, what the
    `accel-opt` driver raises), so one handler catches both. As a driver
    would, it has `returncode` 1 and a `command`: the call and its pipeline.
    """

    def __init__(self, diagnostics: str, command: list) -> None:
        self.diagnostics = diagnostics
        self.returncode = 1
        self.command = list(command)
        RuntimeError.__init__(self, diagnostics.rstrip())


def _text(source: Any) -> str:
    """MLIR text, from a string or an `accel.ir.Function`."""
    return source.to_mlir() if hasattr(source, "to_mlir") else source


def parse(text: Any, generic: bool = False) -> str:
    """Parses and verifies `text` and returns it printed (generic op form if
    `generic`); raises AccelError on a parse or verifier error."""
    try:
        return _core.parse(_text(text), generic)
    except _core.AccelError as err:
        raise AccelError(err.diagnostics, ["accel.core.parse"]) from None


def run_pipeline(text: Any, pipeline: str) -> str:
    """Runs a pass pipeline on `text` and returns the printed result.

    `pipeline` is anchored, `"builtin.module(accel-cpu-pipeline)"`, or a bare
    pass list, `"accel-tile,func.func(canonicalize)"`; passes that run on
    functions are nested in `func.func(...)`, as in accel-opt's
    --pass-pipeline. Raises AccelError on invalid input, an invalid pipeline
    or a failed pass.
    """
    try:
        return _core.run_pipeline(_text(text), pipeline)
    except _core.AccelError as err:
        raise AccelError(err.diagnostics, ["accel.core.run_pipeline", pipeline]) from None


def version() -> str:
    """The compiler id, `"accel <version>+<git commit>"`."""
    return _core.version()
