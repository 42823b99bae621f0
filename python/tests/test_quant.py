"""accel.quant: the packing and dequantisation rule of accel.dequant_matmul,
and a compiled weight-only int4 GEMV called from numpy against
A @ dequantize(...).T (docs/quantization.md)."""

import numpy as np
import pytest

from accel import aot, ir, quant


@pytest.mark.parametrize("bits,unsigned", [(4, True), (4, False), (8, True), (8, False)])
def test_pack_unpack_round_trip(bits, unsigned):
    lo, hi = (0, 2 ** bits - 1) if unsigned else (-2 ** (bits - 1), 2 ** (bits - 1) - 1)
    q = np.random.default_rng(bits).integers(lo, hi + 1, size=(5, 64))
    packed = quant.pack(q, bits)
    assert packed.dtype == np.int8 and packed.shape == (5, 64 * bits // 8)
    np.testing.assert_array_equal(quant.unpack(packed, bits, unsigned), q)


def test_int4_low_nibble_first():
    # Weights 1, 2 (k = 0, 1) share byte 0: 0x21.
    packed = quant.pack(np.array([[1, 2, 15, 0]]), 4)
    assert packed.view(np.uint8).tolist() == [[0x21, 0x0F]]


def test_dequantize_is_the_ops_rule():
    packed = quant.pack(np.array([[3, 15, 0, 8]]), 4)
    s = np.array([[0.1]], np.float32)
    z = np.array([[8.0]], np.float32)
    w = quant.dequantize(packed, s, z, 4, 4, True)
    want = ((np.array([3, 15, 0, 8], np.float32) - np.float32(8)) * np.float32(0.1))
    np.testing.assert_array_equal(w[0], want.astype(np.float32))


@pytest.mark.parametrize("bits,symmetric", [(4, False), (4, True), (8, False), (8, True)])
def test_quantize_error_is_half_a_step(bits, symmetric):
    w = np.random.default_rng(0).standard_normal((16, 256)).astype(np.float32)
    qw = quant.quantize(w, bits, group=64, symmetric=symmetric)
    assert qw.packed.shape == (16, 256 * bits // 8)
    assert qw.scales.shape == (16, 4)
    assert (qw.zero_points is None) == symmetric
    step = np.repeat(qw.scales, 64, axis=1)
    assert np.all(np.abs(qw.dequantize() - w) <= 0.5 * step * (1 + 1e-5))


def test_bad_groups_are_refused():
    with pytest.raises(ValueError, match="does not divide"):
        quant.quantize(np.zeros((2, 64)), 4, group=48)
    with pytest.raises(ValueError, match="bits must be 4 or 8"):
        quant.quantize(np.zeros((2, 64)), 3, group=32)


def gemv(m, n, k, group, a_dtype="f32"):
    """An int4 GEMV with zero points, built with accel.ir."""
    f = ir.Function("gemv")
    x = f.arg((m, k), a_dtype)
    w = f.arg((n, k // 2), "i8")
    s = f.arg((n, k // group), "f32")
    z = f.arg((n, k // group), "f32")
    f.ret(f.dequant_matmul(x, w, s, bits=4, group=group, zero_points=z,
                           unsigned=True))
    return f


def test_builder_writes_the_op(accel_core):
    text = gemv(2, 8, 64, 32).to_mlir()
    assert ("accel.dequant_matmul bits(4) group(32) unsigned ins(%arg0, %arg1 : "
            "tensor<2x64xf32>, tensor<8x32xi8>) scales(%arg2 : tensor<8x2xf32>) "
            "zero_points(%arg3 : tensor<8x2xf32>) outs(%0 : tensor<2x8xf32>) "
            "-> tensor<2x8xf32>") in text


def test_builder_asks_the_verifier(accel_core):
    f = ir.Function("bad")
    x = f.arg((1, 64), "f32")
    w = f.arg((4, 32), "i8")
    s = f.arg((4, 2), "f32")
    with pytest.raises(ValueError, match="expected a group that divides K = 64, got 48"):
        f.dequant_matmul(x, w, s, bits=4, group=48)


def test_compiled_int4_gemv_matches_numpy(tmp_path, accel_core):
    try:
        aot.find_accel_compile()
    except FileNotFoundError as err:
        pytest.skip(str(err))
    m, n, k, group = 3, 40, 512, 128
    rng = np.random.default_rng(7)
    qw = quant.quantize(rng.standard_normal((n, k)).astype(np.float32), 4, group)
    lib = aot.load(aot.compile(gemv(m, n, k, group), out_dir=tmp_path / "o",
                               name="gemv_int4"))
    x = rng.standard_normal((m, k)).astype(np.float32)
    y = lib["gemv"](x, qw.packed, qw.scales, qw.zero_points)
    w = qw.dequantize().astype(np.float64)
    ref = x.astype(np.float64) @ w.T
    # The f32 matmul gate: γ_K · Σ|x·w|.
    u = 2.0 ** -24
    gate = k * u / (1 - k * u) * (np.abs(x).astype(np.float64) @ np.abs(w).T)
    assert np.all(np.abs(y - ref) <= gate)
