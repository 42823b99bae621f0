"""Runs the `accel-opt` driver on MLIR text.

The driver is found, in order, at `$ACCEL_OPT`, in the installed package
(`accel/bin/accel-opt`, what a wheel holds), at `<repo>/build/bin/accel-opt`
(the build tree next to this package's source), and on `PATH`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Optional, Sequence

__all__ = ["AccelError", "find_accel_opt", "find_tool", "roofline", "run_opt", "verify"]

#: Environment variable that overrides where `accel-opt` is looked for.
ENV_VAR = "ACCEL_OPT"

_REPO_ROOT = Path(__file__).resolve().parents[2]


class AccelError(RuntimeError):
    """`accel-opt` rejected its input; the message carries its diagnostics."""

    def __init__(self, diagnostics: str, returncode: int, command: Sequence[str]) -> None:
        self.diagnostics = diagnostics
        self.returncode = returncode
        self.command = list(command)
        super().__init__(f"{os.path.basename(self.command[0])} exited with status "
                         f"{returncode}:\n{diagnostics.rstrip()}")


def find_tool(name: str, env_var: str) -> str:
    """The path of the driver `name` (`accel-opt`, `accel-compile`, ...):
    `$env_var`, then the package's own `bin/name` (an installed wheel), then
    `<repo>/build/bin/name`, then `PATH`; else FileNotFoundError."""
    override = os.environ.get(env_var)
    if override:
        if os.path.isfile(override) and os.access(override, os.X_OK):
            return override
        raise FileNotFoundError(f"${env_var} is set to {override!r}, which is not an "
                                "executable file")
    bundled = Path(__file__).resolve().parent / "bin" / name
    if bundled.is_file() and os.access(bundled, os.X_OK):
        return str(bundled)
    built = _REPO_ROOT / "build" / "bin" / name
    if built.is_file() and os.access(built, os.X_OK):
        return str(built)
    on_path = shutil.which(name)
    if on_path:
        return on_path
    raise FileNotFoundError(f"{name} not found: set ${env_var}, build it into {built}, "
                            "or put it on PATH")


def find_accel_opt() -> str:
    """The path of the `accel-opt` driver, or FileNotFoundError."""
    return find_tool("accel-opt", ENV_VAR)


def run_opt(text: str, args: Sequence[str] = (), *, accel_opt: Optional[str] = None,
            timeout: float = 120.0) -> str:
    """Runs `accel-opt args...` on `text` (via stdin) and returns its output.

    Raises AccelError with the diagnostics (stderr) on a non-zero exit.
    """
    command = [accel_opt or find_accel_opt(), *args, "-"]
    proc = subprocess.run(command, input=text, capture_output=True, text=True,
                          timeout=timeout, check=False)
    if proc.returncode != 0:
        raise AccelError(proc.stderr or proc.stdout, proc.returncode, command)
    return proc.stdout


def verify(text: str, *, accel_opt: Optional[str] = None) -> str:
    """Parses and verifies `text` with `accel-opt`; returns the printed IR."""
    return run_opt(text, accel_opt=accel_opt)


def roofline(text: str, target: str = "h100", *, accel_opt: Optional[str] = None) -> str:
    """The roofline report of `text`'s ops on `target` (a name of the
    target catalogue: h100, h200, a100, mi300x, x86-64-avx512, ...): FLOPs, bytes,
    intensity, bound, predicted time and tiles per op, as
    `accel-opt --accel-roofline="target=... report=-"` prints it."""
    command = [accel_opt or find_accel_opt(), f"--accel-roofline=target={target} report=-",
               "-o", os.devnull, "-"]
    proc = subprocess.run(command, input=text, capture_output=True, text=True,
                          timeout=120.0, check=False)
    if proc.returncode != 0:
        raise AccelError(proc.stderr or proc.stdout, proc.returncode, command)
    return proc.stdout
