"""Element types, spelled as in MLIR (`f32`, `bf16`, `f8E4M3FN`, ...).

Every API that takes a dtype accepts either the MLIR spelling or anything
`numpy.dtype` understands (`numpy.float16`, `"float32"`, `numpy.bool_`, and
the `ml_dtypes` types `bfloat16`, `float8_e4m3fn`, `float8_e5m2`,
`float8_e4m3fnuz` and `float8_e5m2fnuz` when that package is installed).

The fp8 types come in two families with different encodings: OCP
(`f8E4M3FN`, `f8E5M2`) and FNUZ (`f8E4M3FNUZ`, `f8E5M2FNUZ`: no infinities,
no negative zero, one NaN; AMD gfx942's fp8). The FNUZ ones are matmul
inputs only.
"""

from __future__ import annotations

from typing import Any, Dict, FrozenSet

import numpy as np

F32 = "f32"
F16 = "f16"
BF16 = "bf16"
F8E4M3FN = "f8E4M3FN"
F8E5M2 = "f8E5M2"
F8E4M3FNUZ = "f8E4M3FNUZ"
F8E5M2FNUZ = "f8E5M2FNUZ"
I1 = "i1"
I8 = "i8"
I32 = "i32"
I64 = "i64"
INDEX = "index"

#: Bit width of every element type this package knows.
BIT_WIDTHS: Dict[str, int] = {
    F32: 32,
    F16: 16,
    BF16: 16,
    F8E4M3FN: 8,
    F8E5M2: 8,
    F8E4M3FNUZ: 8,
    F8E5M2FNUZ: 8,
    I1: 1,
    I8: 8,
    I32: 32,
    I64: 64,
    INDEX: 64,
}

OCP_F8_TYPES: FrozenSet[str] = frozenset({F8E4M3FN, F8E5M2})
FNUZ_F8_TYPES: FrozenSet[str] = frozenset({F8E4M3FNUZ, F8E5M2FNUZ})
F8_TYPES: FrozenSet[str] = OCP_F8_TYPES | FNUZ_F8_TYPES
#: The float types of softmax and attention (the FNUZ fp8 types are matmul
#: inputs only).
FLOAT_TYPES: FrozenSet[str] = frozenset({F32, F16, BF16, F8E4M3FN, F8E5M2})

#: Element types allowed in a tensor (`index` is a scalar-only type here).
TENSOR_ELEMENT_TYPES: FrozenSet[str] = frozenset(BIT_WIDTHS) - {INDEX}
#: Types allowed for a scalar function argument.
SCALAR_TYPES: FrozenSet[str] = frozenset(BIT_WIDTHS)

# numpy / ml_dtypes dtype names -> MLIR spelling.
_NUMPY_NAMES: Dict[str, str] = {
    "float32": F32,
    "float16": F16,
    "bfloat16": BF16,
    "float8_e4m3fn": F8E4M3FN,
    "float8_e5m2": F8E5M2,
    "float8_e4m3fnuz": F8E4M3FNUZ,
    "float8_e5m2fnuz": F8E5M2FNUZ,
    "bool": I1,
    "int8": I8,
    "int32": I32,
    "int64": I64,
}


def normalize(dtype: Any) -> str:
    """Returns the MLIR spelling of `dtype`, or raises ValueError."""
    if isinstance(dtype, str) and dtype in BIT_WIDTHS:
        return dtype
    try:
        name = np.dtype(dtype).name
    except TypeError:
        name = None
    if name is not None and name in _NUMPY_NAMES:
        return _NUMPY_NAMES[name]
    supported = ", ".join(BIT_WIDTHS)
    raise ValueError(f"unsupported element type {dtype!r}; expected one of {supported} "
                     "(or the matching numpy/ml_dtypes dtype)")


def bit_width(dtype: str) -> int:
    """Bit width of a normalised element type."""
    return BIT_WIDTHS[dtype]


def is_float(dtype: str) -> bool:
    """True for f32, f16, bf16 and the OCP f8 types (softmax's and
    attention's float types)."""
    return dtype in FLOAT_TYPES


def is_f8(dtype: str) -> bool:
    """True for the f8 types of both families (OCP and FNUZ)."""
    return dtype in F8_TYPES


def same_f8_family(a: str, b: str) -> bool:
    """True when `a` and `b` are both OCP f8 or both FNUZ f8 types: the mixes
    a matmul accepts."""
    return ((a in OCP_F8_TYPES and b in OCP_F8_TYPES)
            or (a in FNUZ_F8_TYPES and b in FNUZ_F8_TYPES))
