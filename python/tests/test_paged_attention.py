"""accel.paged_attention from Python (docs/decode-attention.md): the
builder writes the op (checked by the C++ verifier as it is built), and a
compiled decode step runs on numpy arrays against a float64 reference of
the op; a block table pointing past the pool is ACCEL_ERR_INDEX."""
import numpy as np
import pytest

from accel import aot, ir


def decode(batch, pool, page, pages, hq=8, hkv=2, d=32, dtype="f16"):
    f = ir.Function("decode")
    q = f.arg((batch, hq, 1, d), dtype)
    kc = f.arg((pool, page, hkv, d), dtype)
    vc = f.arg((pool, page, hkv, d), dtype)
    bt = f.arg((batch, pages), "i32")
    ln = f.arg((batch,), "i32")
    f.ret(f.paged_attention(q, kc, vc, bt, ln, out_dtype="f32"))
    return f


def test_builder_writes_the_op(accel_core):
    text = decode(2, 6, 16, 3).to_mlir()
    assert ("accel.paged_attention ins(%arg0, %arg1, %arg2 : tensor<2x8x1x32xf16>, "
            "tensor<6x16x2x32xf16>, tensor<6x16x2x32xf16>) block_table(%arg3 : "
            "tensor<2x3xi32>) kv_lengths(%arg4 : tensor<2xi32>) outs(%0 : "
            "tensor<2x8x1x32xf32>) -> tensor<2x8x1x32xf32>") in text


def test_builder_asks_the_verifier(accel_core):
    f = ir.Function("bad")
    q = f.arg((1, 3, 1, 8), "f32")
    kc = f.arg((4, 4, 2, 8), "f32")
    bt = f.arg((1, 2), "i32")
    ln = f.arg((1,), "i32")
    with pytest.raises(ValueError, match=r"query heads \(Hq = 3\) must be a multiple"):
        f.paged_attention(q, kc, kc, bt, ln)


def reference(q, kc, vc, table, lengths):
    b_, hq, _, d = q.shape
    page, hkv = kc.shape[1], kc.shape[2]
    out = np.zeros((b_, hq, 1, vc.shape[3]))
    for b in range(b_):
        n = int(lengths[b])
        if n == 0:
            continue
        j = np.arange(n)
        k = kc[table[b, j // page], j % page].astype(np.float64)
        v = vc[table[b, j // page], j % page].astype(np.float64)
        for h in range(hq):
            s = q[b, h, 0].astype(np.float64) @ k[:, h // (hq // hkv)].T / np.sqrt(d)
            p = np.exp(s - s.max())
            out[b, h, 0] = p @ v[:, h // (hq // hkv)] / p.sum()
    return out


def test_compiled_decode_matches_numpy(tmp_path, accel_core):
    try:
        aot.find_accel_compile()
    except FileNotFoundError as err:
        pytest.skip(str(err))
    lib = aot.load(aot.compile(decode(2, 6, 16, 3), out_dir=tmp_path / "o",
                               name="paged"))
    rng = np.random.default_rng(3)
    q = rng.uniform(-1, 1, (2, 8, 1, 32)).astype(np.float16)
    kc = rng.uniform(-1, 1, (6, 16, 2, 32)).astype(np.float16)
    vc = rng.uniform(-1, 1, (6, 16, 2, 32)).astype(np.float16)
    table = np.array([[4, 0, 5], [2, -1, -1]], np.int32)
    lengths = np.array([41, 16], np.int32)
    o = lib["decode"](q, kc, vc, table, lengths)
    assert np.max(np.abs(o - reference(q, kc, vc, table, lengths))) < 2e-3
    bad = table.copy()
    bad[1, 0] = 6
    with pytest.raises(aot.KernelError) as err:
        lib["decode"](q, kc, vc, bad, lengths)
    assert err.value.status == 10
