"""Python front end of the accel tensor compiler.

`accel.ir` builds textual accel-dialect MLIR; `accel.core` (the nanobind
extension `accel._core` over the compiler's C++ libraries, imported on first
use) parses, verifies and runs pass pipelines in process; `accel.tools` runs
the `accel-opt` driver and prints roofline reports; `accel.aot` compiles
ahead of time with `accel-compile`, loads CPU libraries through their C ABI
(ctypes; numpy or any DLPack array in, without copies) and runs systolic
programs on the simulator; `accel.jax` (imported on its own: it needs jax)
runs CPU kernels inside jitted JAX functions through XLA's FFI.
"""

from . import aot, dlpack, dtypes, ir, quant, tools
from .ir import Function, ScalarType, TensorType, Value
from .tools import AccelError


def _version() -> str:
    """The version: written into an installed package by its build, read
    from the root CMakeLists.txt's project() line (its one place) in a
    source checkout."""
    try:
        from ._version import version
        return version
    except ImportError:
        import re
        from pathlib import Path
        cmake = Path(__file__).resolve().parents[2] / "CMakeLists.txt"
        found = re.search(r"project\(accel VERSION ([0-9.]+)",
                          cmake.read_text() if cmake.is_file() else "")
        return found.group(1) if found else "unknown"


__version__ = _version()

__all__ = [
    "AccelError",
    "Function",
    "ScalarType",
    "TensorType",
    "Value",
    "__version__",
    "aot",
    "dlpack",
    "dtypes",
    "ir",
    "quant",
    "tools",
]
