"""A small builder for textual accel-dialect MLIR.

A `Function` collects tensor and scalar arguments, accel ops and a return,
and prints a `func.func` that `accel-opt` parses::

    from accel import ir
    f = ir.Function("attn")
    q = f.arg((2, 8, 128, 64), "f16")
    k = f.arg((2, 2, 128, 64), "f16")
    v = f.arg((2, 2, 128, 64), "f16")
    o = f.attention(q, k, v, causal=True, out_dtype="f32")
    f.ret(o)
    print(f.to_mlir())

Each op asks the C++ verifier itself whether it is valid before it is
added, through the `accel._core` extension (see `accel.core`; without it an
op raises ModuleNotFoundError): a function whose arguments are the op's
operands and whose body is the op is parsed and verified, and a rejection
raises `ValueError` with the compiler's message, without its location
(`'accel.matmul' op contraction dimension mismatch: ...`). So mistakes are
reported in Python, at the line that made them, and the function is left as
it was. Python checks only what the op cannot see: the types of the Python
arguments, values of another function, `accumulate=True` without `out=`,
an `out_dtype` that disagrees with `out`, scales that are not a pair, a
negative softmax `dimension` (the op counts from 0), and numbers the op's
attributes cannot hold as given (an int past i64; a non-finite `scale` is
printed in hex for the verifier to refuse). Dimensions may be
`None` (dynamic, printed `?`). Outputs the caller does not pass are
allocated with `tensor.empty` once the op is accepted, their dynamic sizes
read from the inputs by `tensor.dim`.
"""

from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple, Union

from . import dtypes as dt

Dim = Optional[int]
Shape = Tuple[Dim, ...]

__all__ = ["Dim", "Function", "ScalarType", "Shape", "TensorType", "Type", "Value"]

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*\Z")
#: A located error of the compiler, `<python>:3:5: error: message`.
_ERROR = re.compile(r"^\S+:\d+:\d+: error: (.*)$", re.MULTILINE)


def _dim_str(d: Dim) -> str:
    return "?" if d is None else str(d)


def _q(t: object) -> str:
    """Quotes a type in a message, as MLIR diagnostics do: `'f32'`."""
    return f"'{t}'"


@dataclass(frozen=True)
class TensorType:
    """A ranked tensor type; `None` dimensions are dynamic."""

    shape: Shape
    dtype: str

    @property
    def rank(self) -> int:
        return len(self.shape)

    def __str__(self) -> str:
        dims = "".join(f"{_dim_str(d)}x" for d in self.shape)
        return f"tensor<{dims}{self.dtype}>"


@dataclass(frozen=True)
class ScalarType:
    """A scalar type (`f32`, `index`, ...)."""

    dtype: str

    def __str__(self) -> str:
        return self.dtype


Type = Union[TensorType, ScalarType]


class Value:
    """An SSA value of a `Function`: an argument or an op result."""

    __slots__ = ("name", "type", "_owner")

    def __init__(self, name: str, type: Type, owner: Function) -> None:
        self.name = name
        self.type = type
        self._owner = owner

    @property
    def ref(self) -> str:
        """The value as it appears in the IR, e.g. `%arg0`."""
        return f"%{self.name}"

    @property
    def is_tensor(self) -> bool:
        return isinstance(self.type, TensorType)

    @property
    def shape(self) -> Shape:
        """The shape of a tensor value (`()` for a scalar)."""
        return self.type.shape if isinstance(self.type, TensorType) else ()

    @property
    def dtype(self) -> str:
        return self.type.dtype

    def __repr__(self) -> str:
        return f"Value({self.ref} : {self.type})"


def _normalize_shape(shape: Sequence[Dim]) -> Shape:
    try:
        dims = tuple(shape)
    except TypeError:
        raise ValueError(f"shape must be a sequence of ints or None, got {shape!r}") from None
    for d in dims:
        if d is None:
            continue
        if isinstance(d, bool) or not isinstance(d, int) or d < 0:
            raise ValueError(f"invalid dimension {d!r} in shape {dims!r}: expected an int >= 0 "
                             "or None (dynamic)")
    return tuple(None if d is None else int(d) for d in dims)


def _format_f32(x: Union[int, float]) -> str:
    """An f32 attribute MLIR parses.

    A finite value is a decimal literal (MLIR needs a `.` before any exponent);
    the parser rounds it to f32, so one past the f32 range becomes infinite.
    An infinite or NaN value has no decimal spelling: it is printed as its f32
    bits in hex. The verifier then says what is wrong with it.
    """
    try:
        value = float(x)
    except OverflowError:  # an int past the double range
        value = math.inf if x > 0 else -math.inf
    if not math.isfinite(value):
        return "0x%08X" % struct.unpack(">I", struct.pack(">f", value))[0]
    mantissa, e, exponent = repr(value).partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + (f"e{exponent}" if e else "")


def _i64(value: int, what: str) -> int:
    """`value`, an attribute the op stores as an i64.

    MLIR's parser reads 2^63 .. 2^64-1 as negative i64s (the bits of a
    signless integer), so a value out of range would print as another one.
    """
    if not -2**63 <= value < 2**63:
        raise ValueError(f"{what} {value} does not fit in an i64 attribute")
    return value


def _first_error(diagnostics: str) -> str:
    """The message of the first error in `diagnostics`, without its location."""
    match = _ERROR.search(diagnostics)
    return match.group(1) if match else diagnostics.strip()


def _scale_text(scale: Optional[float]) -> str:
    """An attention op's `scale(...) ` clause ('' for the default)."""
    if scale is None:
        return ""
    if isinstance(scale, bool) or not isinstance(scale, (int, float)):
        raise TypeError(f"scale must be a float, got {type(scale).__name__}")
    return f"scale({_format_f32(scale)}) "

class Function:
    """Builds one `func.func` of accel ops on tensor arguments."""

    def __init__(self, name: str) -> None:
        if not _IDENT.match(name):
            raise ValueError(f"invalid function name {name!r}: expected an identifier "
                             "([A-Za-z_][A-Za-z0-9_$.]*)")
        self.name = name
        self.args: List[Value] = []
        self.results: Optional[List[Value]] = None
        self._body: List[str] = []
        self._names: Set[str] = set()
        self._next_id = 0
        self._constants: Dict[int, Value] = {}
        self._dims: Dict[Tuple[str, int], Value] = {}

    # -- values ---------------------------------------------------------------

    def _claim(self, base: str) -> str:
        name, n = base, 0
        while name in self._names:
            n += 1
            name = f"{base}_{n}"
        self._names.add(name)
        return name

    def _arg_name(self, name: Optional[str]) -> str:
        if name is None:
            return self._claim(f"arg{len(self.args)}")
        if not _IDENT.match(name):
            raise ValueError(f"invalid argument name {name!r}: expected an identifier "
                             "([A-Za-z_][A-Za-z0-9_$.]*)")
        if name in self._names:
            raise ValueError(f"duplicate value name %{name} in function @{self.name}")
        self._names.add(name)
        return name

    def _emit(self, result_type: Type, text: str, name: Optional[str] = None) -> Value:
        """Appends `%result = text` to the body and returns the result."""
        if name is None:
            name = str(self._next_id)
            self._next_id += 1
        value = Value(name, result_type, self)
        self._body.append(f"{value.ref} = {text}")
        return value

    def _check_open(self) -> None:
        if self.results is not None:
            raise ValueError(f"function @{self.name} already returned; nothing can be added")

    def _own(self, value: Any, what: str, tensor: bool = True) -> Value:
        """Checks that `value` is a Value of this function (a tensor by default)."""
        if not isinstance(value, Value):
            raise TypeError(f"{what} must be an accel.ir.Value, got {type(value).__name__}")
        if value._owner is not self:
            raise ValueError(f"{what} ({value.ref}) belongs to function @{value._owner.name}, "
                             f"not @{self.name}")
        if tensor and not value.is_tensor:
            raise ValueError(f"{what} must be a tensor, got a scalar of type "
                             f"{_q(value.type)}")
        return value

    def arg(self, shape: Sequence[Dim], dtype: Any, name: Optional[str] = None) -> Value:
        """Adds a tensor argument; `None` in `shape` is a dynamic dimension."""
        self._check_open()
        element = dt.normalize(dtype)
        if element not in dt.TENSOR_ELEMENT_TYPES:
            raise ValueError(f"{_q(element)} is not a tensor element type")
        value = Value(self._arg_name(name), TensorType(_normalize_shape(shape), element), self)
        self.args.append(value)
        return value

    def scalar(self, dtype: Any, name: Optional[str] = None) -> Value:
        """Adds a scalar argument (an f32 scale, an index diagonal, ...)."""
        self._check_open()
        value = Value(self._arg_name(name), ScalarType(dt.normalize(dtype)), self)
        self.args.append(value)
        return value

    def constant_index(self, n: int) -> Value:
        """An `arith.constant n : index`, emitted once per function."""
        self._check_open()
        if n not in self._constants:
            name = self._claim(f"c{n}" if n >= 0 else f"c_neg{-n}")
            self._constants[n] = self._emit(ScalarType(dt.INDEX),
                                            f"arith.constant {n} : index", name)
        return self._constants[n]

    def dim(self, x: Value, axis: int) -> Value:
        """The size of dimension `axis` of `x`, via `tensor.dim` (once per pair)."""
        self._check_open()
        self._own(x, "x")
        if not 0 <= axis < len(x.shape):
            raise ValueError(f"axis {axis} is out of range for {_q(x.type)}")
        key = (x.name, axis)
        if key not in self._dims:
            c = self.constant_index(axis)
            self._dims[key] = self._emit(ScalarType(dt.INDEX),
                                         f"tensor.dim {x.ref}, {c.ref} : {x.type}")
        return self._dims[key]

    def empty(self, shape: Sequence[Dim], dtype: Any,
              dynamic_sizes: Sequence[Value] = ()) -> Value:
        """A `tensor.empty`, with one index value per dynamic dimension."""
        self._check_open()
        ttype = TensorType(_normalize_shape(shape), dt.normalize(dtype))
        if ttype.dtype not in dt.TENSOR_ELEMENT_TYPES:
            raise ValueError(f"{_q(ttype.dtype)} is not a tensor element type")
        n_dynamic = sum(d is None for d in ttype.shape)
        if len(dynamic_sizes) != n_dynamic:
            raise ValueError(f"{_q(ttype)} has {n_dynamic} dynamic dimension(s) but "
                             f"{len(dynamic_sizes)} size(s) were given")
        for s in dynamic_sizes:
            self._own(s, "dynamic size", tensor=False)
            if s.dtype != dt.INDEX:
                raise ValueError(f"dynamic size {s.ref} must be an index, got {_q(s.type)}")
        sizes = ", ".join(s.ref for s in dynamic_sizes)
        return self._emit(ttype, f"tensor.empty({sizes}) : {ttype}")

    def _alloc(self, dims: Sequence[Sequence[Tuple[Value, int]]], dtype: str) -> Value:
        """A `tensor.empty` whose dimension i is the size of any of `dims[i]`.

        Each entry lists (value, axis) pairs known to have the same size; the
        first static one gives the size, else `tensor.dim` of the first pair.
        """
        shape: List[Dim] = []
        sizes: List[Value] = []
        for sources in dims:
            static = next((v.shape[a] for v, a in sources if v.shape[a] is not None), None)
            shape.append(static)
            if static is None:
                v, a = sources[0]
                sizes.append(self.dim(v, a))
        return self.empty(shape, dtype, sizes)

    # -- ops ------------------------------------------------------------------

    def _out(self, out: Optional[Value], out_dtype: Any) -> Tuple[Optional[Value], Optional[str]]:
        """Checks `out` and `out_dtype` and returns them (dtype normalised)."""
        if out is not None:
            self._own(out, "out")
        dtype = None if out_dtype is None else dt.normalize(out_dtype)
        if out is not None and dtype is not None and dtype != out.dtype:
            raise ValueError(f"out_dtype {_q(dtype)} does not match the element type of out "
                             f"({_q(out.type)})")
        return out, dtype

    def _verify(self, op: Callable[[str, Type], str], operands: Sequence[Value],
                out: Optional[Value], rank: int, dtype: str,
                probe_shape: Optional[Sequence[Dim]] = None) -> None:
        """Asks the C++ verifier, through `accel._core`, whether an op is valid.

        `op(ref, type)` is the op's text with `ref : type` as its out operand.
        The check is a function whose block arguments are `operands` and the
        out (the caller's, or a `rank`-D tensor of `dtype`, fully dynamic or
        of `probe_shape`, in place of the one allocated after the check),
        with the op as its only
        statement. A rejection raises ValueError with the first error's
        message, without its location (a line of the check, not of the
        caller's code). Nothing is emitted here: a refused op leaves the
        function as it was.
        """
        from . import core  # imported on first use: building an op needs the extension

        if out is None:
            name, n = "out", 0
            while name in self._names:
                n += 1
                name = f"out_{n}"
            shape = tuple(probe_shape) if probe_shape is not None else (None,) * rank
            out = Value(name, TensorType(shape, dtype), self)
        args: Dict[str, Type] = {}
        for v in (*operands, out):
            args.setdefault(v.name, v.type)
        signature = ", ".join(f"%{name}: {t}" for name, t in args.items())
        text = f"func.func @check({signature}) {{\n  {op(out.ref, out.type)}\n  return\n}}\n"
        try:
            core.parse(text)
        except core.AccelError as err:
            raise ValueError(_first_error(err.diagnostics)) from None

    def matmul(self, a: Value, b: Value, *, transpose_b: bool = False,
               accumulate: bool = False, out: Optional[Value] = None,
               out_dtype: Any = None,
               scales: Optional[Tuple[Value, Value]] = None) -> Value:
        """`accel.matmul`: C = A·B (or A·Bᵀ with `transpose_b`), + C with `accumulate`.

        A is [batch..., M, K]; B is [batch..., K, N], or [batch..., N, K] with
        `transpose_b`. `out` is the C operand; without it a `tensor.empty` of
        `out_dtype` is allocated (default f32; i32 for i8 inputs without scales).
        `accumulate` needs `out`. `scales=(sa, sb)` are f32 scalars, f8/i8 only.

        C element types (the verifier's table, AccelOps.td): f32 for f32
        inputs; f32/f16 for f16; f32/bf16 for bf16; f32/f16/bf16 for f8 (with
        or without scales). i8 without scales accumulates in i32; i8 with
        scales is dequantised, so C is f32, f16 or bf16.
        """
        self._check_open()
        self._own(a, "A")
        self._own(b, "B")
        out, dtype = self._out(out, out_dtype)
        if accumulate and out is None:
            raise ValueError("accumulate=True needs out= (the C tensor to accumulate into)")
        operands = [a, b]
        scale_text = ""
        scaled = scales is not None
        if scaled:
            # The op's syntax has room for both scales or none.
            if not isinstance(scales, (tuple, list)) or len(scales) != 2 or None in scales:
                raise ValueError("per-tensor scales come in pairs: give both A's and B's scale "
                                 "(use 1.0 for an unscaled operand)")
            for what, s in zip(("A's scale", "B's scale"), scales):
                operands.append(self._own(s, what, tensor=False))
            scale_text = f" scales({scales[0].ref}, {scales[1].ref})"
        ec = dtype or (dt.I32 if a.dtype == dt.I8 and not scaled else dt.F32)
        flags = ("transpose_b " if transpose_b else "") + ("accumulate " if accumulate else "")

        def op(c: str, c_type: Type) -> str:
            return (f"accel.matmul {flags}ins({a.ref}, {b.ref} : {a.type}, {b.type})"
                    f"{scale_text} outs({c} : {c_type}) -> {c_type}")

        rank = a.type.rank
        self._verify(op, operands, out, rank, ec)
        if out is None:
            n_axis = rank - 2 if transpose_b else rank - 1
            batch = [[(a, i), (b, i)] for i in range(rank - 2)]
            out = self._alloc(batch + [[(a, rank - 2)], [(b, n_axis)]], ec)
        return self._emit(out.type, op(out.ref, out.type))

    def dequant_matmul(self, a: Value, weights: Value, scales: Value, *, bits: int,
                       group: int, zero_points: Optional[Value] = None,
                       unsigned: bool = False, out: Optional[Value] = None,
                       out_dtype: Any = None) -> Value:
        """`accel.dequant_matmul`: C = A·dequant(W)ᵀ with int4/int8 weights.

        A is [batch..., M, K] (f32, f16, bf16); `weights` [N, K * bits / 8]
        i8 bytes (int4: weight k in the low nibble of byte k / 2 for even k);
        `scales` and `zero_points` [N, K / group] of one float type. Each
        weight is f32(f32(q - z) * s), the sum is f32, C is f32 (default) or
        A's type. `accel.quant.quantize` makes the three arrays from float
        weights (docs/quantization.md).
        """
        self._check_open()
        self._own(a, "A")
        self._own(weights, "weights")
        self._own(scales, "scales")
        operands = [a, weights, scales]
        if zero_points is not None:
            operands.append(self._own(zero_points, "zero points"))
        for name, v in (("bits", bits), ("group", group)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"{name} must be an int, got {type(v).__name__}")
        out, dtype = self._out(out, out_dtype)
        ec = dtype or dt.F32
        head = f"bits({bits}) group({group}){' unsigned' if unsigned else ''}"
        zp = (f" zero_points({zero_points.ref} : {zero_points.type})"
              if zero_points is not None else "")

        def op(c: str, c_type: Type) -> str:
            return (f"accel.dequant_matmul {head} ins({a.ref}, {weights.ref} : "
                    f"{a.type}, {weights.type}) scales({scales.ref} : {scales.type})"
                    f"{zp} outs({c} : {c_type}) -> {c_type}")

        rank = a.type.rank
        self._verify(op, operands, out, rank, ec)
        if out is None:
            out = self._alloc([[(a, i)] for i in range(rank - 1)] + [[(weights, 0)]], ec)
        return self._emit(out.type, op(out.ref, out.type))

    def softmax(self, x: Value, dimension: int, *, out: Optional[Value] = None,
                out_dtype: Any = None) -> Value:
        """`accel.softmax` of `x` along `dimension` (negative counts from the end).

        The output has the shape of `x` and element type `out_dtype` (default
        that of `x`); both are float types.
        """
        self._check_open()
        self._own(x, "input")
        out, dtype = self._out(out, out_dtype)
        if isinstance(dimension, bool) or not isinstance(dimension, int):
            raise TypeError(f"dimension must be an int, got {type(dimension).__name__}")
        rank = x.type.rank
        # The op takes 0 <= dimension < rank; -1 is the last one here.
        dim = _i64(dimension, "dimension")
        dim = dim + rank if dim < 0 else dim
        ec = dtype or x.dtype

        def op(y: str, y_type: Type, d: int = dim) -> str:
            return (f"accel.softmax dimension({d}) ins({x.ref} : {x.type}) "
                    f"outs({y} : {y_type}) -> {y_type}")

        # A negative dimension still out of range has no spelling in the op:
        # the operands are checked with dimension 0, then the range here.
        self._verify(lambda y, y_type: op(y, y_type, max(dim, 0)), [x], out, rank, ec)
        if dim < 0:
            raise ValueError(f"dimension {dimension} is out of range for an input of rank "
                             f"{rank} (expected {-rank} <= dimension < {rank})")
        if out is None:
            out = self._alloc([[(x, i)] for i in range(rank)], ec)
        return self._emit(out.type, op(out.ref, out.type))

    def attention(self, q: Value, k: Value, v: Value, *, causal: bool = False,
                  scale: Optional[float] = None, mask: Optional[Value] = None,
                  diagonal: Optional[Value] = None, window: Optional[int] = None,
                  kv_lengths: Optional[Value] = None, q_lengths: Optional[Value] = None,
                  out: Optional[Value] = None, out_dtype: Any = None) -> Value:
        """`accel.attention`: softmax(scale·Q·Kᵀ (+ mask)) · V.

        Q [B, Hq, Sq, D], K [B, Hkv, Skv, D], V [B, Hkv, Skv, Dv] share a
        float element type, Hq % Hkv == 0; the output O is [B, Hq, Sq, Dv] of
        `out_dtype` (f32, f16 or bf16; default Q's type, f32 for f8 inputs).
        `scale` defaults to 1/sqrt(D) in the compiler; it is an f32, so one
        past the f32 range is infinite (refused). `mask` (i1 keeps a key, a
        float is added to the logits) broadcasts to [B, Hq, Sq, Skv].
        `diagonal` is an index scalar that moves the causal band. `window`
        (with `causal`) keeps only the last W keys of the band. `kv_lengths`
        and `q_lengths` (1-D i32/i64 tensors, one entry per batch) are the
        sequence lengths of a right-padded batch.
        """
        self._check_open()
        operands = [self._own(q, "Q"), self._own(k, "K"), self._own(v, "V")]
        mask_text = ""
        if mask is not None:
            operands.append(self._own(mask, "mask"))
            mask_text = f" mask({mask.ref} : {mask.type})"
        lengths_text = ""
        for name, lengths in (("kv_lengths", kv_lengths), ("q_lengths", q_lengths)):
            if lengths is not None:
                operands.append(self._own(lengths, name))
                lengths_text += f" {name}({lengths.ref} : {lengths.type})"
        out, dtype = self._out(out, out_dtype)

        scale_text = _scale_text(scale)
        diagonal_text = ""
        if diagonal is not None:
            operands.append(self._own(diagonal, "diagonal", tensor=False))
            diagonal_text = f"diagonal({diagonal.ref}) "
        window_text = ""
        if window is not None:
            if isinstance(window, bool) or not isinstance(window, int):
                raise TypeError(f"window must be an int, got {type(window).__name__}")
            window_text = f"window({_i64(window, 'window')}) "
        eo = dtype or (q.dtype if q.dtype in (dt.F32, dt.F16, dt.BF16) else dt.F32)
        flags = ("causal " if causal else "") + window_text + diagonal_text + scale_text

        def op(o: str, o_type: Type) -> str:
            return (f"accel.attention {flags}ins({q.ref}, {k.ref}, {v.ref} : "
                    f"{q.type}, {k.type}, {v.type}){mask_text}{lengths_text} "
                    f"outs({o} : {o_type}) -> {o_type}")

        self._verify(op, operands, out, 4, eo)
        if out is None:
            out = self._alloc([[(q, 0), (k, 0), (v, 0)], [(q, 1)], [(q, 2)], [(v, 3)]], eo)
        return self._emit(out.type, op(out.ref, out.type))

    def paged_attention(self, q: Value, k_pool: Value, v_pool: Value,
                        block_table: Value, kv_lengths: Value, *,
                        causal: bool = False, scale: Optional[float] = None,
                        out: Optional[Value] = None,
                        out_dtype: Any = None) -> Value:
        """`accel.paged_attention`: decode attention over a paged KV cache.

        Q [B, Hq, Sq, D]; the pools [P, T, Hkv, D] and [P, T, Hkv, Dv] (P
        pages of T tokens, FlashAttention's / vLLM v1's layout) share Q's
        float type; `block_table` [B, N] (i32/i64) names each sequence's
        pages, `kv_lengths` [B] its tokens. O is [B, Hq, Sq, Dv] of
        `out_dtype` (f32, f16 or bf16; default Q's type). The result is
        `attention` over each sequence's keys gathered through its table
        (docs/decode-attention.md); `causal` matters for Sq > 1.
        """
        self._check_open()
        operands = [self._own(q, "Q"), self._own(k_pool, "key pool"),
                    self._own(v_pool, "value pool"),
                    self._own(block_table, "block table"),
                    self._own(kv_lengths, "kv_lengths")]
        out, dtype = self._out(out, out_dtype)
        scale_text = _scale_text(scale)
        eo = dtype or q.dtype
        flags = ("causal " if causal else "") + scale_text

        def op(o: str, o_type: Type) -> str:
            return (f"accel.paged_attention {flags}ins({q.ref}, {k_pool.ref}, "
                    f"{v_pool.ref} : {q.type}, {k_pool.type}, {v_pool.type}) "
                    f"block_table({block_table.ref} : {block_table.type}) "
                    f"kv_lengths({kv_lengths.ref} : {kv_lengths.type}) "
                    f"outs({o} : {o_type}) -> {o_type}")

        # The op takes a static O but for B: the check's out has O's shape.
        self._verify(op, operands, out, 4, eo,
                     probe_shape=(q.shape[0], q.shape[1], q.shape[2], v_pool.shape[3]))
        if out is None:
            out = self._alloc([[(q, 0), (block_table, 0), (kv_lengths, 0)],
                               [(q, 1)], [(q, 2)], [(v_pool, 3)]], eo)
        return self._emit(out.type, op(out.ref, out.type))

    # -- function -------------------------------------------------------------

    def ret(self, *values: Value) -> None:
        """Ends the function with `return values`; the result types follow."""
        self._check_open()
        for i, value in enumerate(values):
            self._own(value, f"return value #{i}", tensor=False)
        self.results = list(values)

    def to_mlir(self) -> str:
        """The `func.func` as MLIR text (a function that never `ret`s returns nothing)."""
        results = self.results or []
        args = ", ".join(f"{a.ref}: {a.type}" for a in self.args)
        types = [str(r.type) for r in results]
        signature = f"func.func @{self.name}({args})"
        if len(types) == 1:
            signature += f" -> {types[0]}"
        elif types:
            signature += f" -> ({', '.join(types)})"
        lines = [signature + " {"]
        lines += [f"  {line}" for line in self._body]
        if results:
            refs = ", ".join(r.ref for r in results)
            lines.append(f"  return {refs} : {', '.join(types)}")
        else:
            lines.append("  return")
        lines.append("}")
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        return self.to_mlir()

    def __repr__(self) -> str:
        return f"Function(@{self.name}, {len(self.args)} args, {len(self._body)} ops)"
