"""accel.jax: accel CPU kernels inside jitted JAX functions (XLA FFI custom
calls), checked against float64 references with NaN-prefilled nothing to
hide behind: XLA allocates the results, so a kernel that wrote nothing
would leave whatever the allocator held, and the comparisons fail."""

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="jax is not installed (pip install jax)")
jnp = pytest.importorskip("jax.numpy")

from accel import aot, ir  # noqa: E402

from oracle import attention64, attention_library, gate  # noqa: E402
from test_aot import matmul  # noqa: E402


@pytest.fixture(scope="module")
def ajax(accel_core):
    import accel.jax as module
    try:
        module.handler_library()
    except FileNotFoundError as err:
        pytest.skip(str(err))
    return module


@pytest.fixture(scope="module")
def libs(accel_compile, tmp_path_factory, accel_core):
    attention = attention_library(aot, ir, tmp_path_factory.mktemp("ja"), "ja")
    mm = aot.load(aot.compile(matmul(), out_dir=tmp_path_factory.mktemp("jm"), name="jm"))
    g = ir.Function("two")
    a = g.arg((8, 16), "f32")
    b = g.arg((16, 4), "f32")
    c = g.arg((4, 16), "f32")
    ab = g.matmul(a, b)
    g.ret(ab, g.matmul(ab, c))
    two = aot.load(aot.compile(g, out_dir=tmp_path_factory.mktemp("jt"), name="jt"))
    dyn = ir.Function("dyn")
    x = dyn.arg((None, 16), "f32")
    y = dyn.arg((16, 4), "f32")
    dyn.ret(dyn.matmul(x, y))
    dynamic = aot.load(aot.compile(dyn, out_dir=tmp_path_factory.mktemp("jd"), name="jd"))
    return {"attention": attention, "mm": mm, "two": two, "dyn": dynamic}


def test_attention_inside_jit_matches_float64(ajax, libs):
    attention = ajax.kernel(libs["attention"]["attention"])
    rng = np.random.default_rng(1)
    q = rng.standard_normal((2, 4, 48, 32)).astype(np.float32)
    k = rng.standard_normal((2, 2, 48, 32)).astype(np.float32)
    v = rng.standard_normal((2, 2, 48, 32)).astype(np.float32)

    @jax.jit
    def f(q, k, v):
        # JAX ops before and after the custom call: the kernel reads XLA's
        # buffers and what it writes flows on.
        return attention(q * 2.0, k, v) + 1.0

    out = np.asarray(f(q, k, v), np.float64)
    ref, max_logit, max_v = attention64(q * 2.0, k, v)
    err = np.abs(out - 1.0 - ref).max()
    assert err <= gate(48, max_logit, max_v), err
    # The same kernel called eagerly, and under vmap (one call per element).
    np.testing.assert_array_equal(np.asarray(attention(q * 2.0, k, v)) + 1.0,
                                  np.asarray(f(q, k, v)))
    stacked = jax.vmap(attention)(jnp.stack([q, q]), jnp.stack([k, k]), jnp.stack([v, v]))
    assert stacked.shape == (2, 2, 4, 48, 32)
    np.testing.assert_array_equal(np.asarray(stacked[1]), np.asarray(attention(q, k, v)))


def test_several_results_and_dynamic_shapes(ajax, libs):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((8, 16)).astype(np.float32)
    b = rng.standard_normal((16, 4)).astype(np.float32)
    c = rng.standard_normal((4, 16)).astype(np.float32)
    ab, abc = jax.jit(ajax.kernel(libs["two"]["two"]))(a, b, c)
    ab64 = a.astype(np.float64) @ b
    u = 2.0 ** -24
    assert np.abs(np.asarray(ab) - ab64).max() <= 16 * u / (1 - 16 * u) * (
        np.abs(a) @ np.abs(b)).max()
    np.testing.assert_allclose(np.asarray(abc), np.asarray(ab, np.float64) @ c, rtol=1e-5,
                               atol=1e-5)
    with pytest.raises(ValueError, match="result result0 has dynamic dimensions; pass "
                       r"result_shapes"):
        ajax.kernel(libs["dyn"]["dyn"])
    dyn = ajax.kernel(libs["dyn"]["dyn"], result_shapes=[(5, 4)])
    x = rng.standard_normal((5, 16)).astype(np.float32)
    y = rng.standard_normal((16, 4)).astype(np.float32)
    np.testing.assert_allclose(np.asarray(jax.jit(dyn)(x, y)), x.astype(np.float64) @ y,
                               rtol=1e-5, atol=1e-5)
    # Rows that disagree with result_shapes: the library refuses the call.
    with pytest.raises(Exception, match="accel_dyn returned 2: a buffer's rank or sizes"):
        jax.block_until_ready(jax.jit(dyn)(np.zeros((6, 16), np.float32), y))
    with pytest.raises(ValueError, match="result result0 must have shape \\?x4, got 5x3"):
        ajax.kernel(libs["dyn"]["dyn"], result_shapes=[(5, 3)])


def test_wrong_operands_name_the_argument_at_trace_time(ajax, libs):
    mm = ajax.kernel(libs["mm"]["mm"])
    a = jnp.zeros((8, 16), jnp.float32)
    b = jnp.zeros((16, 4), jnp.float32)
    with pytest.raises(ValueError, match=r"mm: argument arg1 must be f32 \(float32\), got "
                       "bfloat16"):
        jax.jit(mm)(a, b.astype(jnp.bfloat16))
    with pytest.raises(ValueError, match="mm: argument arg0 must have shape 8x16, got 16x8"):
        jax.jit(mm)(a.T, b)
    with pytest.raises(TypeError, match="mm takes 2 arrays, got 3"):
        mm(a, b, b)
    with pytest.raises(TypeError, match="takes an accel.aot.CpuKernel"):
        ajax.kernel(lambda x: x)


def test_an_entry_point_this_process_did_not_allow_is_refused(ajax, libs):
    """A custom call whose address no accel.jax.kernel allowed (as a jitted
    function serialised in another process would carry) is an error, not a
    jump to an arbitrary address."""
    kernel = libs["mm"]["mm"]
    call = jax.ffi.ffi_call(ajax.TARGET, jax.ShapeDtypeStruct((8, 4), jnp.float32))
    a = jnp.zeros((8, 16), jnp.float32)
    b = jnp.zeros((16, 4), jnp.float32)
    with pytest.raises(Exception, match="its entry point is not one this process loaded"):
        jax.block_until_ready(call(a, b, entry=np.int64(kernel.address + 16), kernel="mm"))
