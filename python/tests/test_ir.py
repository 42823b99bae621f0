"""Tests of accel.ir: builder output, accel-opt round trips, and validation.

Building an op asks the C++ verifier through the accel._core extension: the
tests that build one take the `accel_core` fixture, which skips them only
when the extension is not built.
"""

from __future__ import annotations

import math
import re
from types import ModuleType
from typing import Callable

import numpy as np
import pytest

from accel import AccelError, dtypes, ir, tools


def roundtrip(f: ir.Function, op: str) -> str:
    """Verifies `f` with accel-opt and checks that `op` survived."""
    out = tools.verify(f.to_mlir())
    assert f"func.func @{f.name}(" in out
    assert op in out, out
    return out


# ---------------------------------------------------------------------------
# Text the builder prints
# ---------------------------------------------------------------------------


def test_matmul_text_is_exact(accel_core: ModuleType) -> None:
    f = ir.Function("mm")
    a = f.arg((4, 8), "f32", name="a")
    b = f.arg((8, 16), "f32", name="b")
    f.ret(f.matmul(a, b))
    assert f.to_mlir() == (
        "func.func @mm(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {\n"
        "  %0 = tensor.empty() : tensor<4x16xf32>\n"
        "  %1 = accel.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) "
        "outs(%0 : tensor<4x16xf32>) -> tensor<4x16xf32>\n"
        "  return %1 : tensor<4x16xf32>\n"
        "}\n")


def test_quantized_matmul_text_is_exact(accel_core: ModuleType) -> None:
    f = ir.Function("q")
    qa = f.arg((3, 4, 8), "i8", name="qa")
    qb = f.arg((3, 16, 8), "i8", name="qb")
    sa, sb = f.scalar("f32", name="sa"), f.scalar("f32", name="sb")
    qc = f.arg((3, 4, 16), "f32", name="qc")
    r = f.matmul(qa, qb, transpose_b=True, accumulate=True, out=qc, scales=(sa, sb))
    assert ("%0 = accel.matmul transpose_b accumulate ins(%qa, %qb : tensor<3x4x8xi8>, "
            "tensor<3x16x8xi8>) scales(%sa, %sb) outs(%qc : tensor<3x4x16xf32>) -> "
            "tensor<3x4x16xf32>") in f.to_mlir()
    assert r.type == ir.TensorType((3, 4, 16), "f32")


def test_softmax_and_attention_text_is_exact(accel_core: ModuleType) -> None:
    f = ir.Function("t")
    x = f.arg((4, 16), "f32", name="x")
    y = f.arg((4, 16), "f32", name="y")
    f.softmax(x, 1, out=y)
    q = f.arg((2, 8, 128, 64), "f16", name="q")
    k = f.arg((2, 2, 100, 64), "f16", name="k")
    v = f.arg((2, 2, 100, 32), "f16", name="v")
    m = f.arg((128, 100), "i1", name="m")
    o = f.arg((2, 8, 128, 32), "f32", name="o")
    f.attention(q, k, v, causal=True, scale=0.125, mask=m, out=o)
    text = f.to_mlir()
    assert ("%0 = accel.softmax dimension(1) ins(%x : tensor<4x16xf32>) outs(%y : "
            "tensor<4x16xf32>) -> tensor<4x16xf32>") in text
    assert ("%1 = accel.attention causal scale(0.125) ins(%q, %k, %v : tensor<2x8x128x64xf16>, "
            "tensor<2x2x100x64xf16>, tensor<2x2x100x32xf16>) mask(%m : tensor<128x100xi1>) "
            "outs(%o : tensor<2x8x128x32xf32>) -> tensor<2x8x128x32xf32>") in text


def test_dynamic_dims_read_sizes_with_tensor_dim(accel_core: ModuleType) -> None:
    f = ir.Function("dyn")
    a = f.arg((None, None, 8), "f32")
    b = f.arg((2, 8, None), "f32")
    c = f.matmul(a, b)
    assert c.type == ir.TensorType((2, None, None), "f32")
    text = f.to_mlir()
    assert "tensor<?x?x8xf32>" in text
    # Batch is static through B; M and N come from tensor.dim.
    assert "tensor.dim %arg0, %c1 : tensor<?x?x8xf32>" in text
    assert "tensor.dim %arg1, %c2 : tensor<2x8x?xf32>" in text
    assert "tensor.empty(%0, %1) : tensor<2x?x?xf32>" in text


def test_no_ret_returns_nothing_and_multiple_results() -> None:
    f = ir.Function("none")
    f.arg((2, 2), "f32")
    assert "func.func @none(%arg0: tensor<2x2xf32>) {" in f.to_mlir()
    assert "  return\n" in f.to_mlir()
    g = ir.Function("two")
    a, b = g.arg((2, 2), "f32"), g.arg((2, 2), "f32")
    g.ret(a, b)
    assert "-> (tensor<2x2xf32>, tensor<2x2xf32>)" in g.to_mlir()


def test_dtype_spellings() -> None:
    assert dtypes.normalize(np.float16) == "f16"
    assert dtypes.normalize("float32") == "f32"
    assert dtypes.normalize(np.bool_) == "i1"
    assert dtypes.normalize("f8E4M3FN") == "f8E4M3FN"
    with pytest.raises(ValueError, match="unsupported element type"):
        dtypes.normalize(np.float64)


def test_ml_dtypes_spellings() -> None:
    ml_dtypes = pytest.importorskip("ml_dtypes")
    assert dtypes.normalize(ml_dtypes.bfloat16) == "bf16"
    assert dtypes.normalize(ml_dtypes.float8_e4m3fn) == "f8E4M3FN"
    assert dtypes.normalize(ml_dtypes.float8_e5m2) == "f8E5M2"
    assert dtypes.normalize(ml_dtypes.float8_e4m3fnuz) == "f8E4M3FNUZ"
    assert dtypes.normalize(ml_dtypes.float8_e5m2fnuz) == "f8E5M2FNUZ"


# ---------------------------------------------------------------------------
# accel-opt round trips
# ---------------------------------------------------------------------------


def test_readme_example(accel_opt: str, accel_core: ModuleType) -> None:
    f = ir.Function("attn")
    q = f.arg((2, 8, 128, 64), "f16")
    k = f.arg((2, 2, 128, 64), "f16")
    v = f.arg((2, 2, 128, 64), "f16")
    o = f.attention(q, k, v, causal=True, out_dtype="f32")
    f.ret(o)
    out = roundtrip(f, "accel.attention causal ins(")
    assert "-> tensor<2x8x128x64xf32>" in out


@pytest.mark.parametrize("a_shape, b_shape, a_t, b_t, kwargs, expect", [
    ((4, 8), (8, 16), "f32", "f32", {}, "tensor<4x16xf32>"),
    ((5, 3, 4, 8), (5, 3, 8, 16), "f16", "f16", {"out_dtype": "f16"}, "tensor<5x3x4x16xf16>"),
    ((2, 4, 8), (2, 16, 8), "bf16", "bf16", {"transpose_b": True}, "tensor<2x4x16xf32>"),
    ((4, 8), (8, 16), "bf16", "bf16", {"out_dtype": np.float32}, "tensor<4x16xf32>"),
    ((4, 32), (32, 16), "f8E4M3FN", "f8E5M2", {"out_dtype": "bf16"}, "tensor<4x16xbf16>"),
    ((4, 32), (16, 32), "f8E5M2", "f8E5M2", {"transpose_b": True, "out_dtype": "f16"},
     "tensor<4x16xf16>"),
    ((4, 32), (32, 16), "f8E4M3FNUZ", "f8E5M2FNUZ", {"out_dtype": "bf16"},
     "tensor<4x16xbf16>"),
    ((4, 32), (16, 32), "f8E5M2FNUZ", "f8E5M2FNUZ", {"transpose_b": True}, "tensor<4x16xf32>"),
    ((None, 4, 8), (3, 8, None), "i8", "i8", {}, "tensor<3x4x?xi32>"),
    ((0, 8), (8, 0), "f32", "f32", {}, "tensor<0x0xf32>"),
])
def test_matmul_roundtrip(accel_opt: str, accel_core: ModuleType, a_shape, b_shape, a_t, b_t,
                          kwargs, expect) -> None:
    f = ir.Function("mm")
    c = f.matmul(f.arg(a_shape, a_t), f.arg(b_shape, b_t), **kwargs)
    f.ret(c)
    assert str(c.type) == expect
    flags = "accel.matmul transpose_b ins(" if kwargs.get("transpose_b") else "accel.matmul ins("
    out = roundtrip(f, flags)
    assert f"-> {expect}" in out


@pytest.mark.parametrize("acc_t", ["f32", "f16", "bf16"])
def test_matmul_i8_scales_accumulate_roundtrip(accel_opt: str, accel_core: ModuleType,
                                               acc_t: str) -> None:
    f = ir.Function("qmm")
    qa, qb = f.arg((3, 4, 8), "i8"), f.arg((3, 16, 8), "i8")
    sa, sb = f.scalar("f32"), f.scalar("f32")
    acc = f.arg((3, 4, 16), acc_t)
    f.ret(f.matmul(qa, qb, transpose_b=True, accumulate=True, out=acc, scales=(sa, sb)))
    roundtrip(f, "accel.matmul transpose_b accumulate ins(")
    assert "scales(" in tools.verify(f.to_mlir())


def test_matmul_i8_default_out_dtype_depends_on_scales(accel_opt: str,
                                                       accel_core: ModuleType) -> None:
    # Without scales i8 accumulates in i32; with scales it is dequantised into f32.
    f = ir.Function("qdef")
    qa, qb = f.arg((4, 8), "i8"), f.arg((8, 16), "i8")
    plain = f.matmul(qa, qb)
    scaled = f.matmul(qa, qb, scales=(f.scalar("f32"), f.scalar("f32")))
    assert plain.type == ir.TensorType((4, 16), "i32")
    assert scaled.type == ir.TensorType((4, 16), "f32")
    f.ret(scaled)
    out = roundtrip(f, "accel.matmul ins(")
    assert "scales(" in out and "tensor<4x16xi32>" in out and "-> tensor<4x16xf32>" in out


def test_matmul_f8_mixed_with_scales_roundtrip(accel_opt: str, accel_core: ModuleType) -> None:
    f = ir.Function("f8mm")
    a, b = f.arg((2, 16, 64), "f8E4M3FN"), f.arg((2, 64, 32), "f8E5M2")
    scales = (f.scalar("f32"), f.scalar("f32"))
    c = f.matmul(a, b, scales=scales, out_dtype="f16")
    # Chain: a second matmul accumulating into the first result.
    d = f.matmul(a, b, accumulate=True, out=c, scales=scales)
    f.ret(d)
    out = roundtrip(f, "accel.matmul accumulate ins(")
    assert out.count("accel.matmul") == 2


@pytest.mark.parametrize("shape, dim, kwargs, printed", [
    ((4, 16), 1, {}, 1),
    ((2, 3, 5), -1, {}, 2),
    ((2, 3, 5), 0, {"out_dtype": "bf16"}, 0),
    ((None, 1024), 1, {"out_dtype": "f16"}, 1),
    ((7,), 0, {}, 0),
])
def test_softmax_roundtrip(accel_opt: str, accel_core: ModuleType, shape, dim, kwargs,
                           printed) -> None:
    f = ir.Function("sm")
    x = f.arg(shape, "f32")
    f.ret(f.softmax(x, dim, **kwargs))
    roundtrip(f, f"accel.softmax dimension({printed}) ins(")


def test_softmax_f8_input_with_explicit_out(accel_opt: str, accel_core: ModuleType) -> None:
    f = ir.Function("sm8")
    x = f.arg((4, 16), "f8E4M3FN")
    y = f.arg((4, 16), "f32")
    f.ret(f.softmax(x, 0, out=y))
    roundtrip(f, "accel.softmax dimension(0) ins(")


def _attention_fn(hq: int, hkv: int, dtype: str = "f16", sq: int = 128, skv: int = 128,
                  d: int = 64, dv: int = 64) -> tuple:
    f = ir.Function("attn")
    q = f.arg((2, hq, sq, d), dtype)
    k = f.arg((2, hkv, skv, d), dtype)
    v = f.arg((2, hkv, skv, dv), dtype)
    return f, q, k, v


@pytest.mark.parametrize("hq, hkv", [(8, 8), (8, 2), (8, 1)], ids=["mha", "gqa", "mqa"])
@pytest.mark.parametrize("causal", [False, True])
def test_attention_heads_roundtrip(accel_opt: str, accel_core: ModuleType, hq: int, hkv: int,
                                   causal: bool) -> None:
    f, q, k, v = _attention_fn(hq, hkv)
    o = f.attention(q, k, v, causal=causal)
    assert o.type == ir.TensorType((2, hq, 128, 64), "f16")
    f.ret(o)
    roundtrip(f, "accel.attention causal ins(" if causal else "accel.attention ins(")


def test_attention_i1_mask_and_scale_roundtrip(accel_opt: str, accel_core: ModuleType) -> None:
    f, q, k, v = _attention_fn(8, 2, sq=128, skv=100, dv=32)
    m = f.arg((128, 100), "i1")
    f.ret(f.attention(q, k, v, causal=True, scale=0.125, mask=m, out_dtype="f32"))
    out = roundtrip(f, "accel.attention causal scale(")
    assert "mask(%arg3 : tensor<128x100xi1>)" in out
    assert "-> tensor<2x8x128x32xf32>" in out


@pytest.mark.parametrize("mask_shape, mask_t", [
    ((2, 8, 128, 128), "f32"),      # full
    ((1, 8, 1, 128), "f16"),        # broadcast over batch and queries
    ((128,), "bf16"),               # per-key bias
    ((2, 1, 128, 1), "f32"),
])
def test_attention_additive_mask_roundtrip(accel_opt: str, accel_core: ModuleType, mask_shape,
                                           mask_t) -> None:
    f, q, k, v = _attention_fn(8, 8)
    m = f.arg(mask_shape, mask_t)
    f.ret(f.attention(q, k, v, mask=m))
    roundtrip(f, f"mask(%arg3 : {ir.TensorType(mask_shape, mask_t)})")


def test_attention_window_and_lengths_roundtrip(accel_opt: str, accel_core: ModuleType) -> None:
    f, q, k, v = _attention_fn(8, 2)
    kvl = f.arg((2,), "i32")
    ql = f.arg((2,), "i64")
    f.ret(f.attention(q, k, v, causal=True, window=64, kv_lengths=kvl, q_lengths=ql))
    out = roundtrip(f, "accel.attention causal window(64) ins(")
    assert "kv_lengths(%arg3 : tensor<2xi32>) q_lengths(%arg4 : tensor<2xi64>)" in out


@pytest.mark.parametrize("kwargs, message", [
    (dict(window=4),
     "'accel.attention' op 'window' needs 'causal' (a window is the last W keys of the causal "
     "band)"),
    (dict(causal=True, window=0), "'accel.attention' op window must be in [1, 2^31], got 0"),
    (dict(causal=True, window=2**31 + 1),
     "'accel.attention' op window must be in [1, 2^31], got 2147483649"),
    # Python's own: the attribute is an i64, which MLIR would read 2^63 into as
    # a negative number.
    (dict(causal=True, window=2**63), "window 9223372036854775808 does not fit in an i64 "
     "attribute"),
    (dict(causal=True, window=-2**63), "'accel.attention' op window must be in [1, 2^31], got "
     "-9223372036854775808"),
    (dict(kv_lengths=("f32", (2,))),
     "'accel.attention' op operand #3 must be 1D tensor of 32-bit signless integer or 64-bit "
     "signless integer values, but got 'tensor<2xf32>'"),
    (dict(q_lengths=("i32", (3,))),
     "'accel.attention' op q_lengths has 3 entries, expected one per batch (B = 2)"),
    (dict(kv_lengths=("i32", (2,)), q_lengths=("i32", (2, 1))),
     "'accel.attention' op operand #4 must be 1D tensor of 32-bit signless integer or 64-bit "
     "signless integer values, but got 'tensor<2x1xi32>'"),
])
def test_attention_window_and_lengths_errors(accel_core: ModuleType, kwargs, message) -> None:
    f, q, k, v = _attention_fn(8, 2)
    for name in ("kv_lengths", "q_lengths"):
        if name in kwargs:
            dtype, shape = kwargs[name]
            kwargs[name] = f.arg(shape, dtype)
    with pytest.raises(ValueError, match=re.escape(message)):
        f.attention(q, k, v, **kwargs)


@pytest.mark.parametrize("scale", [0.125, 1.0, 1e-5, -0.5, 3, 1 / math.sqrt(96)])
def test_attention_explicit_scale_roundtrip(accel_opt: str, accel_core: ModuleType,
                                            scale: float) -> None:
    f, q, k, v = _attention_fn(4, 4, dtype="bf16")
    f.ret(f.attention(q, k, v, scale=scale))
    roundtrip(f, "accel.attention scale(")


def test_attention_diagonal_f8_dynamic_roundtrip(accel_opt: str, accel_core: ModuleType) -> None:
    f = ir.Function("dec")
    q = f.arg((None, 8, 1, 64), "f8E4M3FN")
    k = f.arg((None, 1, None, 64), "f8E4M3FN")
    v = f.arg((None, 1, None, 64), "f8E4M3FN")
    diag = f.scalar("index")
    o = f.attention(q, k, v, causal=True, diagonal=diag)
    assert o.type == ir.TensorType((None, 8, 1, 64), "f32")
    f.ret(o)
    out = roundtrip(f, "accel.attention causal diagonal(%arg3) ins(")
    assert "tensor.empty(%dim) : tensor<?x8x1x64xf32>" in out


# ---------------------------------------------------------------------------
# Validation: the C++ verifier's messages, and the few checks of Python's own
# ---------------------------------------------------------------------------

MM = "'accel.matmul' op "
SM = "'accel.softmax' op "
AT = "'accel.attention' op "
#: What ODS says of the operands of softmax and attention.
FLOAT_TENSOR = ("must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type or "
                "f8E4M3FN type or f8E5M2 type values")


def _mm(a_shape, b_shape, a_t="f32", b_t="f32", c=None, **kwargs) -> None:
    f = ir.Function("mm")
    a, b = f.arg(a_shape, a_t), f.arg(b_shape, b_t)
    if c is not None:
        kwargs["out"] = f.arg(*c)
    if "scales" in kwargs:
        kwargs["scales"] = tuple(f.scalar(t) for t in kwargs["scales"])
    f.matmul(a, b, **kwargs)


MATMUL_ERRORS = [
    (lambda: _mm((4, 8), (2, 8, 16)),
     MM + "expected A, B and C to have the same rank, got A of rank 2, B of rank 3 and C of "
     "rank 2"),
    (lambda: _mm((4, 8), (8, 16), c=((2, 4, 16), "f32")),
     MM + "expected A, B and C to have the same rank, got A of rank 2, B of rank 2 and C of "
     "rank 3"),
    (lambda: _mm((8,), (8,)),
     MM + "expected operands of rank at least 2 ([batch..., M, K]), got rank 1"),
    # Without out=, the check has a dynamic C: `C has ?`.
    (lambda: _mm((2, 4, 8), (3, 8, 16)),
     MM + "batch dimension #0 mismatch: A has 2, B has 3, C has ?"),
    (lambda: _mm((4, 8), (7, 16)),
     MM + "contraction dimension mismatch: A has K = 8, B has K = 7 (B is [K, N])"),
    (lambda: _mm((4, 8), (16, 7), transpose_b=True),
     MM + "contraction dimension mismatch: A has K = 8, B has K = 7 (B is [N, K] with "
     "transpose_b)"),
    (lambda: _mm((4, 8), (8, 16), c=((5, 16), "f32")),
     MM + "M mismatch: A has M = 4, C has M = 5"),
    (lambda: _mm((4, 8), (8, 16), c=((4, 15), "f32")),
     MM + "N mismatch: B has N = 16, C has N = 15"),
    (lambda: _mm((4, 8), (8, 16), "f32", "f16"),
     MM + "A and B element types must match (or both be f8 of one family), got 'f32' and "
     "'f16'"),
    (lambda: _mm((4, 8), (8, 16), "i8", "f8E4M3FN"),
     MM + "A and B element types must match (or both be f8 of one family), got 'i8' and "
     "'f8E4M3FN'"),
    # The OCP and FNUZ fp8 families do not mix (their encodings differ).
    (lambda: _mm((4, 8), (8, 16), "f8E4M3FN", "f8E4M3FNUZ"),
     MM + "A and B element types must match (or both be f8 of one family), got 'f8E4M3FN' and "
     "'f8E4M3FNUZ'; supported: f32, f16, bf16, i8, any mix of f8E4M3FN and f8E5M2, or any "
     "mix of f8E4M3FNUZ and f8E5M2FNUZ"),
    (lambda: _mm((4, 8), (8, 16), "f8E5M2FNUZ", "f8E5M2"),
     MM + "A and B element types must match (or both be f8 of one family), got 'f8E5M2FNUZ' "
     "and 'f8E5M2'"),
    (lambda: _mm((4, 8), (8, 16), "f8E4M3FNUZ", "f8E5M2FNUZ", out_dtype="i32"),
     MM + "C element type 'i32' is not allowed for 'f8E4M3FNUZ' inputs; expected 'f32' or "
     "'f16' or 'bf16'"),
    (lambda: _mm((4, 8), (8, 16), "i32", "i32"),
     MM + "operand #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type "
     "or f8E4M3FN type or f8E5M2 type or f8E4M3FNUZ type or f8E5M2FNUZ type or 8-bit signless "
     "integer values, but got 'tensor<4x8xi32>'"),
    (lambda: _mm((4, 8), (8, 16), out_dtype="f64"), "unsupported element type 'f64'"),
    (lambda: _mm((4, 8), (8, 16), out_dtype="i1"),
     MM + "operand #2 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type "
     "or 32-bit signless integer values, but got 'tensor<?x?xi1>'"),
    (lambda: _mm((4, 8), (8, 16), out_dtype="f16"),
     MM + "C element type 'f16' is not allowed for 'f32' inputs (the accumulator is narrower "
     "than the inputs); expected 'f32'"),
    (lambda: _mm((4, 8), (8, 16), "bf16", "bf16", out_dtype="f16"),
     MM + "C element type 'f16' is not allowed for 'bf16' inputs; expected 'f32' or 'bf16'"),
    (lambda: _mm((4, 8), (8, 16), "i8", "i8", c=((4, 16), "f32")),
     MM + "C element type 'f32' is not allowed for 'i8' inputs without scales; expected 'i32'"),
    (lambda: _mm((4, 8), (8, 16), "i8", "i8", out_dtype="bf16"),
     MM + "C element type 'bf16' is not allowed for 'i8' inputs without scales; expected "
     "'i32'"),
    (lambda: _mm((4, 8), (8, 16), "i8", "i8", c=((4, 16), "i32"), scales=("f32", "f32")),
     MM + "C element type 'i32' is not allowed for 'i8' inputs with scales (the dequantised "
     "result is a float); expected 'f32' or 'f16' or 'bf16'"),
    (lambda: _mm((4, 8), (8, 16), "i8", "i8", out_dtype="i32", scales=("f32", "f32")),
     MM + "C element type 'i32' is not allowed for 'i8' inputs with scales"),
    (lambda: _mm((4, 8), (8, 16), scales=("f32", "f32")),
     MM + "per-tensor scales are only allowed with f8 or i8 inputs, got 'f32'"),
    # The scale checks come before the accumulator check (MatmulOp::verify's order).
    (lambda: _mm((4, 8), (8, 16), out_dtype="f16", scales=("f32", "f32")),
     MM + "per-tensor scales are only allowed with f8 or i8 inputs, got 'f32'"),
    # A scale is an f32 by the op's syntax: the parser's message.
    (lambda: _mm((4, 8), (8, 16), "i8", "i8", scales=("f32", "f16")),
     "use of value '%arg3' expects different type than prior uses: 'f32' vs 'f16'"),
    (lambda: _mm((2**40, 2**40), (2**40, 1)),
     MM + "operand #0 of type 'tensor<1099511627776x1099511627776xf32>' has an element count "
     "that overflows int64"),
    (lambda: _mm((4, 2**31), (2**31, 2**31)),
     MM + "operand #1 of type 'tensor<2147483648x2147483648xf32>' has a size in bits that "
     "overflows int64"),
    # Python's own: options the op has no spelling for.
    (lambda: _mm((4, 8), (8, 16), accumulate=True),
     "accumulate=True needs out= (the C tensor to accumulate into)"),
    (lambda: _mm((4, 8), (8, 16), c=((4, 16), "f32"), out_dtype="f16"),
     "out_dtype 'f16' does not match the element type of out ('tensor<4x16xf32>')"),
    (lambda: _mm((4, 8), (8, 16), "i8", "i8", scales=("f32",)),
     "per-tensor scales come in pairs: give both A's and B's scale (use 1.0 for an unscaled "
     "operand)"),
    (lambda: _mm((4, 8), (8, 16), "i8", "i8", c=((4, 16), "i32"), scales=("f32",)),
     "per-tensor scales come in pairs"),
]


@pytest.mark.parametrize("build, message", MATMUL_ERRORS)
def test_matmul_errors(accel_core: ModuleType, build: Callable[[], None], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        build()


def _sm(shape, dim, dtype="f32", out=None, **kwargs) -> None:
    f = ir.Function("sm")
    x = f.arg(shape, dtype)
    if out is not None:
        kwargs["out"] = f.arg(*out)
    f.softmax(x, dim, **kwargs)


SOFTMAX_ERRORS = [
    (lambda: _sm((4, 16), 2),
     SM + "dimension 2 is out of range for an input of rank 2 (expected 0 <= dimension < 2)"),
    # Python's own: a negative dimension counts from the end (the op has no spelling for it).
    (lambda: _sm((4, 16), -3),
     "dimension -3 is out of range for an input of rank 2 (expected -2 <= dimension < 2)"),
    # ... checked after the operands, as a positive one is.
    (lambda: _sm((4, 16), -3, out=((4, 17), "f32")),
     SM + "input and output differ in dimension #1: 16 vs 17"),
    (lambda: _sm((), 0), SM + "expected an input of rank at least 1"),
    (lambda: _sm((), -1), SM + "expected an input of rank at least 1"),
    (lambda: _sm((4, 16), 1, "i8"),
     SM + f"operand #0 {FLOAT_TENSOR}, but got 'tensor<4x16xi8>'"),
    # The FNUZ fp8 types are matmul inputs only.
    (lambda: _sm((4, 16), 1, "f8E4M3FNUZ"),
     SM + f"operand #0 {FLOAT_TENSOR}, but got 'tensor<4x16xf8E4M3FNUZ>'"),
    (lambda: _sm((4, 16), 1, out_dtype="i32"),
     SM + f"operand #1 {FLOAT_TENSOR}, but got 'tensor<?x?xi32>'"),
    (lambda: _sm((4, 16), 1, out=((4, 16, 1), "f32")),
     SM + "expected input and output of the same rank, got 2 and 3"),
    (lambda: _sm((4, 16), 1, out=((4, 17), "f32")),
     SM + "input and output differ in dimension #1: 16 vs 17"),
    (lambda: _sm((4, 16), 2**63),
     "dimension 9223372036854775808 does not fit in an i64 attribute"),
    (lambda: _sm((4, 16), 2**63 - 1),
     SM + "dimension 9223372036854775807 is out of range for an input of rank 2"),
]


@pytest.mark.parametrize("build, message", SOFTMAX_ERRORS)
def test_softmax_errors(accel_core: ModuleType, build: Callable[[], None], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        build()


def _attn(q=(2, 8, 16, 64), k=(2, 2, 32, 64), v=(2, 2, 32, 64), dtype="f16", kv_dtype=None,
          mask=None, out=None, diagonal=None, **kwargs) -> None:
    f = ir.Function("attn")
    qv = f.arg(q, dtype)
    kv = f.arg(k, kv_dtype or dtype)
    vv = f.arg(v, kv_dtype or dtype)
    if mask is not None:
        kwargs["mask"] = f.arg(*mask)
    if out is not None:
        kwargs["out"] = f.arg(*out)
    if diagonal is not None:
        kwargs["diagonal"] = f.scalar(diagonal)
    f.attention(qv, kv, vv, **kwargs)


ATTENTION_ERRORS = [
    (lambda: _attn(q=(8, 16, 64)),
     AT + "expected Q, K, V and O of rank 4 ([B, H, S, D]), got ranks 3, 4, 4 and 4"),
    (lambda: _attn(k=(3, 2, 32, 64)),
     AT + "batch mismatch: Q has B = 2, K has 3, V has 2, O has ?"),
    (lambda: _attn(v=(2, 4, 32, 64)),
     AT + "key/value head count mismatch: K has Hkv = 2, V has Hkv = 4"),
    (lambda: _attn(k=(2, 3, 32, 64), v=(2, 3, 32, 64)),
     AT + "query heads (Hq = 8) must be a multiple of key/value heads (Hkv = 3)"),
    (lambda: _attn(k=(2, 0, 32, 64), v=(2, 0, 32, 64)),
     AT + "query heads (Hq = 8) must be a multiple of key/value heads (Hkv = 0)"),
    (lambda: _attn(k=(2, 2, 32, 32)),
     AT + "head dimension mismatch: Q has D = 64, K has D = 32"),
    (lambda: _attn(v=(2, 2, 31, 64)),
     AT + "key/value sequence length mismatch: K has Skv = 32, V has Skv = 31"),
    (lambda: _attn(out=((2, 8, 16, 32), "f32")),
     AT + "expected O of shape [B, Hq, Sq, Dv] = [2, 8, 16, 64], got 'tensor<2x8x16x32xf32>'"),
    (lambda: _attn(kv_dtype="bf16"),
     AT + "Q, K and V must share one element type, got 'f16', 'bf16' and 'bf16'"),
    (lambda: _attn(dtype="i8"),
     AT + f"operand #0 {FLOAT_TENSOR}, but got 'tensor<2x8x16x64xi8>'"),
    (lambda: _attn(dtype="f8E5M2FNUZ"),
     AT + f"operand #0 {FLOAT_TENSOR}, but got 'tensor<2x8x16x64xf8E5M2FNUZ>'"),
    (lambda: _attn(out_dtype="f8E4M3FN"),
     AT + "operand #3 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type "
     "values, but got 'tensor<?x?x?x?xf8E4M3FN>'"),
    (lambda: _attn(mask=((16, 32), "i8")),
     AT + "operand #3 must be ranked tensor of 1-bit signless integer or 32-bit float or "
     "16-bit float or bfloat16 type values, but got 'tensor<16x32xi8>'"),
    (lambda: _attn(mask=((1, 2, 8, 16, 32), "i1")),
     AT + "mask of rank 5 does not broadcast to [B, Hq, Sq, Skv]"),
    (lambda: _attn(mask=((16, 31), "i1")),
     AT + "mask 'tensor<16x31xi1>' does not broadcast to [B, Hq, Sq, Skv] = [2, 8, 16, 32]: "
     "mask dimension #1 has size 31, expected 1 or 32"),
    # The scale is an f32: infinities and NaN are printed in hex, and a value
    # past the f32 range rounds to infinity in the parser.
    (lambda: _attn(scale=math.inf), AT + "scale must be finite, got INF"),
    (lambda: _attn(scale=-math.inf), AT + "scale must be finite, got -INF"),
    (lambda: _attn(scale=math.nan), AT + "scale must be finite, got nan"),
    (lambda: _attn(scale=1e39), AT + "scale must be finite, got INF"),
    (lambda: _attn(scale=-3.5e38), AT + "scale must be finite, got -INF"),
    (lambda: _attn(scale=10**400), AT + "scale must be finite, got INF"),
    (lambda: _attn(diagonal="index"), AT + "'diagonal' is only meaningful with 'causal'"),
    # The diagonal is an index by the op's syntax: the parser's message.
    (lambda: _attn(diagonal="i32", causal=True),
     "use of value '%arg3' expects different type than prior uses: 'index' vs 'i32'"),
]


@pytest.mark.parametrize("build, message", ATTENTION_ERRORS)
def test_attention_errors(accel_core: ModuleType, build: Callable[[], None],
                          message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        build()


def test_python_argument_types() -> None:
    f = ir.Function("f")
    x = f.arg((4, 16), "f32")
    with pytest.raises(TypeError, match="dimension must be an int, got str"):
        f.softmax(x, "1")  # type: ignore[arg-type]
    q = f.arg((1, 1, 4, 16), "f32")
    with pytest.raises(TypeError, match="scale must be a float, got str"):
        f.attention(q, q, q, scale="0.5")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="window must be an int, got float"):
        f.attention(q, q, q, causal=True, window=2.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="mask must be a tensor, got a scalar of type 'f32'"):
        f.attention(q, q, q, mask=f.scalar("f32"))
    assert "accel." not in f.to_mlir()


def test_refused_op_leaves_the_function_unchanged(accel_core: ModuleType) -> None:
    def start() -> tuple:
        f = ir.Function("f")
        return f, f.arg((None, 8), "f32"), f.arg((7, None), "f32"), f.arg((8, None), "f32")

    f, a, bad, b = start()
    before = f.to_mlir()
    # Accepted, each would allocate its output with tensor.dim of the dynamic sizes.
    with pytest.raises(ValueError, match=re.escape(MM + "contraction dimension mismatch")):
        f.matmul(a, bad)
    with pytest.raises(ValueError, match=re.escape("dimension -3 is out of range")):
        f.softmax(a, -3)
    with pytest.raises(ValueError, match=re.escape(SM + "operand #1")):
        f.softmax(a, 0, out_dtype="i32")
    with pytest.raises(ValueError, match="accumulate=True needs out="):
        f.matmul(a, b, accumulate=True)
    assert f.to_mlir() == before
    # Nor are names or values taken: the next op prints as in a fresh function.
    f.ret(f.matmul(a, b))
    g, a, _, b = start()
    g.ret(g.matmul(a, b))
    assert f.to_mlir() == g.to_mlir()
    assert "%c0 = arith.constant 0 : index" in f.to_mlir()


def test_messages_come_from_the_cpp_verifier(accel_core: ModuleType,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    f = ir.Function("f")
    a, b = f.arg((4, 8), "f32", name="a"), f.arg((8, 16), "f32", name="b")
    checked = []
    parse = accel_core.parse

    def recording_parse(text, *args):
        checked.append(text)
        return parse(text, *args)

    # The check: the op's operands as arguments, a dynamic C in place of the
    # one allocated afterwards, the op alone.
    monkeypatch.setattr(accel_core, "parse", recording_parse)
    f.matmul(a, b)
    assert checked == [
        "func.func @check(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, "
        "%out: tensor<?x?xf32>) {\n"
        "  accel.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) "
        "outs(%out : tensor<?x?xf32>) -> tensor<?x?xf32>\n"
        "  return\n"
        "}\n"]

    # Whatever the verifier says is the message: its first error, unlocated.
    def refusing_parse(text, *args):
        raise accel_core.AccelError(
            "<python>:2:3: error: 'accel.matmul' op a rule only C++ knows\n"
            "  accel.matmul ins(...)\n  ^\n"
            "<python>:2:3: note: see current operation: ...\n", ["accel.core.parse"])

    monkeypatch.setattr(accel_core, "parse", refusing_parse)
    with pytest.raises(ValueError) as err:
        f.matmul(a, b)
    assert str(err.value) == "'accel.matmul' op a rule only C++ knows"
    monkeypatch.undo()

    # With the real verifier: the message is the one accel.core reports.
    with pytest.raises(ValueError) as err:
        f.matmul(b, b)
    assert str(err.value).startswith("'accel.matmul' op contraction dimension mismatch")
    with pytest.raises(accel_core.AccelError) as cpp_err:
        accel_core.parse(
            "func.func @f(%b: tensor<8x16xf32>, %c: tensor<8x16xf32>) {\n"
            "  accel.matmul ins(%b, %b : tensor<8x16xf32>, tensor<8x16xf32>) "
            "outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>\n  return\n}\n")
    assert f"error: {err.value}" in cpp_err.value.diagnostics


def test_function_errors() -> None:
    with pytest.raises(ValueError, match="invalid function name"):
        ir.Function("1bad")
    f = ir.Function("f")
    with pytest.raises(ValueError, match=re.escape("invalid dimension -1 in shape (4, -1)")):
        f.arg((4, -1), "f32")
    with pytest.raises(ValueError, match="unsupported element type 'f64'"):
        f.arg((4,), "f64")
    with pytest.raises(ValueError, match="'index' is not a tensor element type"):
        f.arg((4,), "index")
    a = f.arg((4, 4), "f32", name="a")
    with pytest.raises(ValueError, match="duplicate value name %a"):
        f.scalar("f32", name="a")
    s = f.scalar("f32")
    with pytest.raises(ValueError, match="A must be a tensor, got a scalar of type 'f32'"):
        f.matmul(s, a)
    with pytest.raises(TypeError, match="A must be an accel.ir.Value"):
        f.matmul(np.zeros((4, 4)), a)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="has 1 dynamic dimension"):
        f.empty((None, 4), "f32")
    other = ir.Function("g")
    b = other.arg((4, 4), "f32")
    with pytest.raises(ValueError, match=re.escape("B (%arg0) belongs to function @g, not @f")):
        f.matmul(a, b)
    f.ret(a)
    with pytest.raises(ValueError, match="already returned"):
        f.softmax(a, 0)


# ---------------------------------------------------------------------------
# accel-opt diagnostics
# ---------------------------------------------------------------------------

# Hand-written IR the Python builder refuses, with the builder call that
# refuses it: the builder's message (from accel._core, in process) is the one
# accel-opt prints.
CPP_MIRRORS = [
    ("""func.func @f(%a: tensor<4x8xf32>, %b: tensor<7x16xf32>, %c: tensor<4x16xf32>) {
  %0 = accel.matmul ins(%a, %b : tensor<4x8xf32>, tensor<7x16xf32>)
         outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return
}""", lambda: _mm((4, 8), (7, 16))),
    ("""func.func @f(%a: tensor<4x8xf32>, %b: tensor<15x8xf32>, %c: tensor<4x16xf32>) {
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<4x8xf32>, tensor<15x8xf32>)
         outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return
}""", lambda: _mm((4, 8), (15, 8), c=((4, 16), "f32"), transpose_b=True)),
    ("""func.func @f(%a: tensor<4x8xbf16>, %b: tensor<8x16xbf16>, %c: tensor<4x16xf16>) {
  %0 = accel.matmul ins(%a, %b : tensor<4x8xbf16>, tensor<8x16xbf16>)
         outs(%c : tensor<4x16xf16>) -> tensor<4x16xf16>
  return
}""", lambda: _mm((4, 8), (8, 16), "bf16", "bf16", out_dtype="f16")),
    ("""func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>, %s: f32) {
  %0 = accel.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) scales(%s, %s)
         outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return
}""", lambda: _mm((4, 8), (8, 16), scales=("f32", "f32"))),
    # Both the scales and C are wrong: the scales error comes first.
    ("""func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf16>, %s: f32) {
  %0 = accel.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) scales(%s, %s)
         outs(%c : tensor<4x16xf16>) -> tensor<4x16xf16>
  return
}""", lambda: _mm((4, 8), (8, 16), out_dtype="f16", scales=("f32", "f32"))),
    ("""func.func @f(%a: tensor<4x8xi8>, %b: tensor<8x16xi8>, %c: tensor<4x16xf32>) {
  %0 = accel.matmul ins(%a, %b : tensor<4x8xi8>, tensor<8x16xi8>)
         outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return
}""", lambda: _mm((4, 8), (8, 16), "i8", "i8", c=((4, 16), "f32"))),
    ("""func.func @f(%a: tensor<4x8xi8>, %b: tensor<8x16xi8>, %c: tensor<4x16xi32>, %s: f32) {
  %0 = accel.matmul ins(%a, %b : tensor<4x8xi8>, tensor<8x16xi8>) scales(%s, %s)
         outs(%c : tensor<4x16xi32>) -> tensor<4x16xi32>
  return
}""", lambda: _mm((4, 8), (8, 16), "i8", "i8", c=((4, 16), "i32"), scales=("f32", "f32"))),
    ("""func.func @f(%x: tensor<4x16xf32>) {
  %0 = accel.softmax dimension(2) ins(%x : tensor<4x16xf32>)
         outs(%x : tensor<4x16xf32>) -> tensor<4x16xf32>
  return
}""", lambda: _sm((4, 16), 2)),
    ("""func.func @f(%q: tensor<2x8x16x64xf16>, %k: tensor<2x3x32x64xf16>,
             %o: tensor<2x8x16x64xf16>) {
  %0 = accel.attention ins(%q, %k, %k : tensor<2x8x16x64xf16>, tensor<2x3x32x64xf16>,
                                        tensor<2x3x32x64xf16>)
         outs(%o : tensor<2x8x16x64xf16>) -> tensor<2x8x16x64xf16>
  return
}""", lambda: _attn(k=(2, 3, 32, 64), v=(2, 3, 32, 64))),
    ("""func.func @f(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x32x64xf16>,
             %o: tensor<2x8x16x32xf32>) {
  %0 = accel.attention ins(%q, %k, %k : tensor<2x8x16x64xf16>, tensor<2x2x32x64xf16>,
                                        tensor<2x2x32x64xf16>)
         outs(%o : tensor<2x8x16x32xf32>) -> tensor<2x8x16x32xf32>
  return
}""", lambda: _attn(out=((2, 8, 16, 32), "f32"))),
    ("""func.func @f(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x32x64xf16>, %m: tensor<16x31xi1>,
             %o: tensor<2x8x16x64xf16>) {
  %0 = accel.attention ins(%q, %k, %k : tensor<2x8x16x64xf16>, tensor<2x2x32x64xf16>,
                                        tensor<2x2x32x64xf16>) mask(%m : tensor<16x31xi1>)
         outs(%o : tensor<2x8x16x64xf16>) -> tensor<2x8x16x64xf16>
  return
}""", lambda: _attn(mask=((16, 31), "i1"))),
    ("""func.func @f(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x32x64xf16>, %d: index,
             %o: tensor<2x8x16x64xf16>) {
  %0 = accel.attention diagonal(%d)
         ins(%q, %k, %k : tensor<2x8x16x64xf16>, tensor<2x2x32x64xf16>, tensor<2x2x32x64xf16>)
         outs(%o : tensor<2x8x16x64xf16>) -> tensor<2x8x16x64xf16>
  return
}""", lambda: _attn(diagonal="index")),
]


@pytest.mark.parametrize("text, build", CPP_MIRRORS)
def test_cpp_verifier_agrees(accel_opt: str, accel_core: ModuleType, text: str,
                             build: Callable[[], None]) -> None:
    with pytest.raises(ValueError) as py_err:
        build()
    with pytest.raises(AccelError) as cpp_err:
        tools.verify(text)
    message = str(cpp_err.value)
    assert "error:" in message
    assert str(py_err.value) in message
    assert cpp_err.value.returncode != 0


def test_accel_opt_rejects_garbage(accel_opt: str) -> None:
    with pytest.raises(AccelError, match="error:") as err:
        tools.verify("func.func @f() {\n  %0 = accel.nope : i32\n  return\n}\n")
    assert "accel.nope" in err.value.diagnostics


def test_accel_opt_env_override(accel_opt: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(tools.ENV_VAR, accel_opt)
    assert tools.find_accel_opt() == accel_opt
    monkeypatch.setenv(tools.ENV_VAR, "/nonexistent/accel-opt")
    with pytest.raises(FileNotFoundError, match="ACCEL_OPT"):
        tools.find_accel_opt()
