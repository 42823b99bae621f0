"""Python front end of the accel tensor compiler.

`accel.ir` builds textual accel-dialect MLIR; `accel.tools` runs the
`accel-opt` driver on it; `accel.aot` compiles ahead of time with
`accel-compile` and loads CPU libraries through their C ABI (ctypes). Both are pure Python: the nanobind extension that
will bind the C++ libraries directly does not exist yet.
"""

from . import aot, dtypes, ir, tools
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
    "tools",
]
