"""Python front end of the accel tensor compiler.

`accel.ir` builds textual accel-dialect MLIR; `accel.core` (the nanobind
extension `accel._core` over the compiler's C++ libraries, imported on first
use) parses, verifies and runs pass pipelines in process; `accel.tools` runs
the `accel-opt` driver and prints roofline reports; `accel.aot` compiles
ahead of time with `accel-compile`, loads CPU libraries through their C ABI
(ctypes) and runs systolic programs on the simulator.
"""

from . import aot, dtypes, ir, quant, tools
from .ir import Function, ScalarType, TensorType, Value
from .tools import AccelError

__version__ = "0.1.0"

__all__ = [
    "AccelError",
    "Function",
    "ScalarType",
    "TensorType",
    "Value",
    "__version__",
    "aot",
    "dtypes",
    "ir",
    "quant",
    "tools",
]
