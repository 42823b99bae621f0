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

Each op checks its operands the way the C++ verifier does (same rules, same
wording of the messages) and raises `ValueError` on a mismatch, so most
mistakes are reported in Python, at the line that made them. Dimensions may
be `None` (dynamic, printed `?`); only conflicts between static sizes are
errors, as in the verifier. Outputs the caller does not pass are allocated
with `tensor.empty`, their dynamic sizes read from the inputs by `tensor.dim`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple, Union

from . import dtypes as dt

Dim = Optional[int]
Shape = Tuple[Dim, ...]

__all__ = ["Dim", "Function", "ScalarType", "Shape", "TensorType", "Type", "Value"]

_INT64_MAX = 2**63 - 1
_F32_MAX = 3.4028234663852886e38
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*\Z")


def _dim_str(d: Dim) -> str:
    return "?" if d is None else str(d)


def _conflict(a: Dim, b: Dim) -> bool:
    """Two dimensions conflict when both are static and differ."""
    return a is not None and b is not None and a != b


def _q(t: object) -> str:
    """Quotes a type in a message, as MLIR diagnostics do: `'f32'`."""
    return f"'{t}'"


def _shape_str(shape: Sequence[Dim]) -> str:
    return "[" + ", ".join(_dim_str(d) for d in shape) + "]"


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


def _format_f32(x: float) -> str:
    """A float literal MLIR parses (it needs a `.` before any exponent)."""
    text = repr(float(x))
    mantissa, e, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + (f"e{exponent}" if e else "")


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

    def _check_counts(self, operands: Sequence[Tuple[str, Value]]) -> None:
        """Rejects operands whose static element count or size in bits overflows int64."""
        for what, v in operands:
            if not v.is_tensor:
                continue
            count = 1
            for d in v.shape:
                if d is not None:
                    count *= d
            if count > _INT64_MAX:
                raise ValueError(f"{what} of type {_q(v.type)} has an element count that "
                                 "overflows int64")
            if count * max(8, dt.bit_width(v.dtype)) > _INT64_MAX:
                raise ValueError(f"{what} of type {_q(v.type)} has a size in bits that "
                                 "overflows int64")

    def _out(self, out: Optional[Value], out_dtype: Any) -> Tuple[Optional[Value], Optional[str]]:
        """Checks `out` and `out_dtype` and returns them (dtype normalised)."""
        if out is not None:
            self._own(out, "out")
        dtype = None if out_dtype is None else dt.normalize(out_dtype)
        if out is not None and dtype is not None and dtype != out.dtype:
            raise ValueError(f"out_dtype {_q(dtype)} does not match the element type of out "
                             f"({_q(out.type)})")
        return out, dtype

    def matmul(self, a: Value, b: Value, *, transpose_b: bool = False,
               accumulate: bool = False, out: Optional[Value] = None,
               out_dtype: Any = None,
               scales: Optional[Tuple[Value, Value]] = None) -> Value:
        """`accel.matmul`: C = A·B (or A·Bᵀ with `transpose_b`), + C with `accumulate`.

        A is [batch..., M, K]; B is [batch..., K, N], or [batch..., N, K] with
        `transpose_b`. `out` is the C operand; without it a `tensor.empty` of
        `out_dtype` is allocated (default f32; i32 for i8 inputs without scales).
        `accumulate` needs `out`. `scales=(sa, sb)` are f32 scalars, f8/i8 only.

        C element types: f32 for f32 inputs; f32/f16 for f16; f32/bf16 for
        bf16; f32/f16/bf16 for f8 (with or without scales). i8 without scales
        accumulates in i32; i8 with scales is dequantised, so C is f32, f16 or
        bf16.
        """
        self._check_open()
        self._own(a, "A")
        self._own(b, "B")
        out, dtype = self._out(out, out_dtype)
        if accumulate and out is None:
            raise ValueError("accumulate=True needs out= (the C tensor to accumulate into)")
        operands = [("A", a), ("B", b)] + ([("C", out)] if out is not None else [])
        self._check_counts(operands)

        rank = a.type.rank
        c_rank = out.type.rank if out is not None else rank
        if b.type.rank != rank or c_rank != rank:
            raise ValueError("expected A, B and C to have the same rank, got A of rank "
                             f"{rank}, B of rank {b.type.rank} and C of rank {c_rank}")
        if rank < 2:
            raise ValueError("expected operands of rank at least 2 ([batch..., M, K]), got "
                             f"rank {rank}")
        sa, sb = a.shape, b.shape
        sc: Shape = out.shape if out is not None else (None,) * rank
        for i in range(rank - 2):
            if _conflict(sa[i], sb[i]) or _conflict(sa[i], sc[i]) or _conflict(sb[i], sc[i]):
                raise ValueError(f"batch dimension #{i} mismatch: A has {_dim_str(sa[i])}, "
                                 f"B has {_dim_str(sb[i])}, C has {_dim_str(sc[i])}")
        k_axis, n_axis = (rank - 1, rank - 2) if transpose_b else (rank - 2, rank - 1)
        a_m, a_k, b_k, b_n = sa[-2], sa[-1], sb[k_axis], sb[n_axis]
        layout = " (B is [N, K] with transpose_b)" if transpose_b else " (B is [K, N])"
        if _conflict(a_k, b_k):
            raise ValueError(f"contraction dimension mismatch: A has K = {_dim_str(a_k)}, "
                             f"B has K = {_dim_str(b_k)}{layout}")
        if _conflict(a_m, sc[-2]):
            raise ValueError(f"M mismatch: A has M = {_dim_str(a_m)}, C has M = "
                             f"{_dim_str(sc[-2])}")
        if _conflict(b_n, sc[-1]):
            raise ValueError(f"N mismatch: B has N = {_dim_str(b_n)}, C has N = "
                             f"{_dim_str(sc[-1])}"
                             + (" (B is [N, K] with transpose_b)" if transpose_b else ""))

        ea, eb = a.dtype, b.dtype
        inputs = (dt.F32, dt.F16, dt.BF16, dt.F8E4M3FN, dt.F8E5M2, dt.F8E4M3FNUZ,
                  dt.F8E5M2FNUZ, dt.I8)
        for what, e in (("A", ea), ("B", eb)):
            if e not in inputs:
                raise ValueError(f"{what} element type {_q(e)} is not supported; expected "
                                 "f32, f16, bf16, f8E4M3FN, f8E5M2, f8E4M3FNUZ, f8E5M2FNUZ "
                                 "or i8")
        if not (ea == eb or dt.same_f8_family(ea, eb)):
            raise ValueError("A and B element types must match (or both be f8 of one family), "
                             f"got {_q(ea)} and {_q(eb)}; supported: f32, f16, bf16, i8, any "
                             "mix of f8E4M3FN and f8E5M2, or any mix of f8E4M3FNUZ and "
                             "f8E5M2FNUZ")
        # Same order as MatmulOp::verify: the scales first (they decide the
        # accumulators allowed for i8), then the C element type.
        scale_text = ""
        scaled = scales is not None
        if scaled:
            if not isinstance(scales, (tuple, list)) or len(scales) != 2 or None in scales:
                raise ValueError("per-tensor scales come in pairs: give both A's and B's scale "
                                 "(use 1.0 for an unscaled operand)")
            if not (dt.is_f8(ea) or ea == dt.I8):
                raise ValueError(f"per-tensor scales are only allowed with f8 or i8 inputs, "
                                 f"got {_q(ea)}")
            for what, s in zip(("A's scale", "B's scale"), scales):
                self._own(s, what, tensor=False)
                if s.type != ScalarType(dt.F32):
                    raise ValueError(f"{what} ({s.ref}) must be an f32 scalar, got "
                                     f"{_q(s.type)}")
            scale_text = f" scales({scales[0].ref}, {scales[1].ref})"

        accs = _matmul_accumulators(ea, scaled)
        ec = out.dtype if out is not None else (dtype or accs[0])
        if ec not in accs:
            msg = f"C element type {_q(ec)} is not allowed for {_q(ea)} inputs"
            if dt.is_float(ec) and dt.is_float(ea) and dt.bit_width(ec) < dt.bit_width(ea):
                msg += " (the accumulator is narrower than the inputs)"
            if ea == dt.I8:
                msg += (" with scales (the dequantised result is a float)" if scaled
                        else " without scales")
            raise ValueError(f"{msg}; expected {' or '.join(_q(t) for t in accs)}")

        if out is None:
            batch = [[(a, i), (b, i)] for i in range(rank - 2)]
            out = self._alloc(batch + [[(a, rank - 2)], [(b, n_axis)]], ec)
        flags = ("transpose_b " if transpose_b else "") + ("accumulate " if accumulate else "")
        return self._emit(out.type,
                          f"accel.matmul {flags}ins({a.ref}, {b.ref} : {a.type}, {b.type})"
                          f"{scale_text} outs({out.ref} : {out.type}) -> {out.type}")

    def softmax(self, x: Value, dimension: int, *, out: Optional[Value] = None,
                out_dtype: Any = None) -> Value:
        """`accel.softmax` of `x` along `dimension` (negative counts from the end).

        The output has the shape of `x` and element type `out_dtype` (default
        that of `x`); both are float types.
        """
        self._check_open()
        self._own(x, "input")
        out, dtype = self._out(out, out_dtype)
        self._check_counts([("input", x)] + ([("output", out)] if out is not None else []))
        floats = ", ".join(sorted(dt.FLOAT_TYPES))
        ec = out.dtype if out is not None else (dtype or x.dtype)
        for what, e in (("input", x.dtype), ("output", ec)):
            if not dt.is_float(e):
                why = (_FNUZ_MATMUL_ONLY if e in dt.FNUZ_F8_TYPES else "is not a float type")
                raise ValueError(f"softmax {what} element type {_q(e)} {why}; "
                                 f"expected one of {floats}")
        rank = x.type.rank
        if rank < 1:
            raise ValueError("expected an input of rank at least 1")
        if out is not None:
            if out.type.rank != rank:
                raise ValueError(f"expected input and output of the same rank, got {rank} "
                                 f"and {out.type.rank}")
            for i, (di, do) in enumerate(zip(x.shape, out.shape)):
                if _conflict(di, do):
                    raise ValueError(f"input and output differ in dimension #{i}: "
                                     f"{_dim_str(di)} vs {_dim_str(do)}")
        if isinstance(dimension, bool) or not isinstance(dimension, int):
            raise TypeError(f"dimension must be an int, got {type(dimension).__name__}")
        dim = dimension + rank if dimension < 0 else dimension
        if not 0 <= dim < rank:
            low = -rank if dimension < 0 else 0
            raise ValueError(f"dimension {dimension} is out of range for an input of rank "
                             f"{rank} (expected {low} <= dimension < {rank})")
        if out is None:
            out = self._alloc([[(x, i)] for i in range(rank)], ec)
        return self._emit(out.type,
                          f"accel.softmax dimension({dim}) ins({x.ref} : {x.type}) "
                          f"outs({out.ref} : {out.type}) -> {out.type}")

    def attention(self, q: Value, k: Value, v: Value, *, causal: bool = False,
                  scale: Optional[float] = None, mask: Optional[Value] = None,
                  diagonal: Optional[Value] = None, window: Optional[int] = None,
                  kv_lengths: Optional[Value] = None, q_lengths: Optional[Value] = None,
                  out: Optional[Value] = None, out_dtype: Any = None) -> Value:
        """`accel.attention`: softmax(scale·Q·Kᵀ (+ mask)) · V.

        Q [B, Hq, Sq, D], K [B, Hkv, Skv, D], V [B, Hkv, Skv, Dv] share a
        float element type, Hq % Hkv == 0; the output O is [B, Hq, Sq, Dv] of
        `out_dtype` (f32, f16 or bf16; default Q's type, f32 for f8 inputs).
        `scale` defaults to 1/sqrt(D) in the compiler. `mask` (i1 keeps a key,
        a float is added to the logits) broadcasts to [B, Hq, Sq, Skv].
        `diagonal` is an index scalar that moves the causal band. `window`
        (with `causal`) keeps only the last W keys of the band. `kv_lengths`
        and `q_lengths` (1-D i32/i64 tensors, one entry per batch) are the
        sequence lengths of a right-padded batch.
        """
        self._check_open()
        self._own(q, "Q")
        self._own(k, "K")
        self._own(v, "V")
        if mask is not None:
            self._own(mask, "mask")
        for name, lengths in (("kv_lengths", kv_lengths), ("q_lengths", q_lengths)):
            if lengths is not None:
                self._own(lengths, name)
        out, dtype = self._out(out, out_dtype)
        operands = [("Q", q), ("K", k), ("V", v)]
        operands += [("mask", mask)] if mask is not None else []
        operands += [("O", out)] if out is not None else []
        self._check_counts(operands)

        o_rank = out.type.rank if out is not None else 4
        ranks = (q.type.rank, k.type.rank, v.type.rank, o_rank)
        if ranks != (4, 4, 4, 4):
            raise ValueError("expected Q, K, V and O of rank 4 ([B, H, S, D]), got ranks "
                             f"{ranks[0]}, {ranks[1]}, {ranks[2]} and {ranks[3]}")
        sq, sk, sv = q.shape, k.shape, v.shape
        so: Shape = out.shape if out is not None else (None,) * 4
        if (_conflict(sq[0], sk[0]) or _conflict(sq[0], sv[0]) or _conflict(sq[0], so[0])
                or _conflict(sk[0], sv[0])):
            raise ValueError(f"batch mismatch: Q has B = {_dim_str(sq[0])}, K has "
                             f"{_dim_str(sk[0])}, V has {_dim_str(sv[0])}, O has "
                             f"{_dim_str(so[0])}")
        if _conflict(sk[1], sv[1]):
            raise ValueError(f"key/value head count mismatch: K has Hkv = {_dim_str(sk[1])}, "
                             f"V has Hkv = {_dim_str(sv[1])}")
        hq, hkv = sq[1], (sv[1] if sk[1] is None else sk[1])
        if hq is not None and hkv is not None and (hq != 0 if hkv == 0 else hq % hkv != 0):
            raise ValueError(f"query heads (Hq = {hq}) must be a multiple of key/value heads "
                             f"(Hkv = {hkv})")
        if _conflict(sq[3], sk[3]):
            raise ValueError(f"head dimension mismatch: Q has D = {_dim_str(sq[3])}, K has "
                             f"D = {_dim_str(sk[3])}")
        if _conflict(sk[2], sv[2]):
            raise ValueError("key/value sequence length mismatch: K has Skv = "
                             f"{_dim_str(sk[2])}, V has Skv = {_dim_str(sv[2])}")
        if out is not None and (_conflict(so[1], sq[1]) or _conflict(so[2], sq[2])
                                or _conflict(so[3], sv[3])):
            raise ValueError("expected O of shape [B, Hq, Sq, Dv] = "
                             f"{_shape_str((sq[0], sq[1], sq[2], sv[3]))}, got {_q(out.type)}")
        if not q.dtype == k.dtype == v.dtype:
            raise ValueError(f"Q, K and V must share one element type, got {_q(q.dtype)}, "
                             f"{_q(k.dtype)} and {_q(v.dtype)}")
        if not dt.is_float(q.dtype):
            why = f" ({_FNUZ_MATMUL_ONLY})" if q.dtype in dt.FNUZ_F8_TYPES else ""
            raise ValueError(f"Q, K and V must have a float element type, got {_q(q.dtype)}"
                             f"{why}; expected one of {', '.join(sorted(dt.FLOAT_TYPES))}")
        outputs = (dt.F32, dt.F16, dt.BF16)
        default = q.dtype if q.dtype in outputs else dt.F32
        eo = out.dtype if out is not None else (dtype or default)
        if eo not in outputs:
            raise ValueError(f"O element type {_q(eo)} is not allowed; expected f32, f16 or "
                             "bf16")

        mask_text = ""
        if mask is not None:
            if mask.dtype not in (dt.I1, dt.F32, dt.F16, dt.BF16):
                raise ValueError(f"mask element type {_q(mask.dtype)} is not allowed; expected "
                                 "i1 (keep) or f32, f16, bf16 (additive)")
            full = (sq[0], sq[1], sq[2], sk[2])
            mr = mask.type.rank
            if mr > 4:
                raise ValueError(f"mask of rank {mr} does not broadcast to [B, Hq, Sq, Skv]")
            for i, md in enumerate(mask.shape):
                td = full[i + 4 - mr]
                if md != 1 and _conflict(md, td):
                    raise ValueError(f"mask {_q(mask.type)} does not broadcast to "
                                     f"[B, Hq, Sq, Skv] = {_shape_str(full)}: mask dimension "
                                     f"#{i} has size {md}, expected 1 or {td}")
            mask_text = f" mask({mask.ref} : {mask.type})"

        scale_text = ""
        if scale is not None:
            if isinstance(scale, bool) or not isinstance(scale, (int, float)):
                raise TypeError(f"scale must be a float, got {type(scale).__name__}")
            if not math.isfinite(scale) or abs(scale) > _F32_MAX:
                raise ValueError(f"scale must be finite (in f32), got {scale}")
            scale_text = f"scale({_format_f32(scale)}) "

        diagonal_text = ""
        if diagonal is not None:
            if not causal:
                raise ValueError("'diagonal' is only meaningful with 'causal'")
            self._own(diagonal, "diagonal", tensor=False)
            if diagonal.dtype != dt.INDEX:
                raise ValueError(f"diagonal ({diagonal.ref}) must be an index, got "
                                 f"{_q(diagonal.type)}")
            diagonal_text = f"diagonal({diagonal.ref}) "

        window_text = ""
        if window is not None:
            if isinstance(window, bool) or not isinstance(window, int):
                raise TypeError(f"window must be an int, got {type(window).__name__}")
            if not causal:
                raise ValueError("'window' needs 'causal' (a window is the last W keys of the "
                                 "causal band)")
            if window < 1 or window > 2**31:
                raise ValueError(f"window must be in [1, 2^31], got {window}")
            window_text = f"window({window}) "

        lengths_text = ""
        for name, lengths in (("kv_lengths", kv_lengths), ("q_lengths", q_lengths)):
            if lengths is None:
                continue
            if lengths.type.rank != 1 or lengths.dtype not in (dt.I32, dt.I64):
                raise ValueError(f"{name} must be a 1-D tensor of i32 or i64, got "
                                 f"{_q(lengths.type)}")
            if _conflict(lengths.shape[0], sq[0]):
                raise ValueError(f"{name} has {lengths.shape[0]} entries, expected one per "
                                 f"batch (B = {_dim_str(sq[0])})")
            lengths_text += f" {name}({lengths.ref} : {lengths.type})"

        if out is None:
            out = self._alloc([[(q, 0), (k, 0), (v, 0)], [(q, 1)], [(q, 2)], [(v, 3)]], eo)
        flags = ("causal " if causal else "") + window_text + diagonal_text + scale_text
        return self._emit(out.type,
                          f"accel.attention {flags}ins({q.ref}, {k.ref}, {v.ref} : "
                          f"{q.type}, {k.type}, {v.type}){mask_text}{lengths_text} "
                          f"outs({out.ref} : {out.type}) -> {out.type}")

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


#: Why softmax and attention refuse f8E4M3FNUZ and f8E5M2FNUZ.
_FNUZ_MATMUL_ONLY = "is an FNUZ f8 type, which only matmul takes"


def _matmul_accumulators(input_dtype: str, scaled: bool = False) -> List[str]:
    """The C element types allowed for A/B of `input_dtype`, preferred first.

    `scaled` says whether per-tensor scales are given: scaled i8 is
    dequantised into a float C (mirrors allowedAccumulators in AccelOps.cpp).
    """
    if input_dtype == dt.F32:
        return [dt.F32]
    if input_dtype == dt.F16:
        return [dt.F32, dt.F16]
    if input_dtype == dt.BF16:
        return [dt.F32, dt.BF16]
    if dt.is_f8(input_dtype):
        return [dt.F32, dt.F16, dt.BF16]
    if input_dtype == dt.I8:
        return [dt.F32, dt.F16, dt.BF16] if scaled else [dt.I32]
    return []
