"""Python front end of the accel tensor compiler.

`accel.ir` builds textual accel-dialect MLIR; `accel.tools` runs the
`accel-opt` driver on it. Both are pure Python: the nanobind extension that
will bind the C++ libraries directly does not exist yet.
"""

from . import dtypes, ir, tools
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
    "dtypes",
    "ir",
    "tools",
]
