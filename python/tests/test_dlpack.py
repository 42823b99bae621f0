"""accel.aot kernels on DLPack arrays: read in place when the layout allows,
copied with a CopyWarning that says why when not, refused (naming the
argument) for the wrong dtype, shape or device; `out=` written in place;
the producer's tensor handed back after every call."""

import sys
import warnings

import numpy as np
import pytest

from accel import aot, dlpack, ir

from test_aot import matmul


class Producer:
    """A DLPack producer over a numpy array that reports what it was asked
    (and can claim another device, or to speak only DLPack 0.x)."""

    def __init__(self, array, device=(dlpack.CPU, 0), versioned=True):
        self.array, self.device, self.versioned = array, device, versioned
        self.exports = 0

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, *, stream=None, max_version=None, **kwargs):
        self.exports += 1
        if not self.versioned:
            if max_version is not None:
                raise TypeError("max_version is not supported")
            return self.array.__dlpack__()
        return self.array.__dlpack__(max_version=max_version)


@pytest.fixture(scope="module")
def lib(accel_compile, tmp_path_factory, accel_core):
    return aot.load(aot.compile(matmul(), out_dir=tmp_path_factory.mktemp("dl"), name="dl"))


@pytest.fixture(scope="module")
def bf16_lib(accel_compile, tmp_path_factory, accel_core):
    return aot.load(aot.compile(matmul(dtype="bf16"), out_dir=tmp_path_factory.mktemp("dlb"),
                                name="dlb"))


def operands(seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((8, 16)).astype(np.float32),
            rng.standard_normal((16, 4)).astype(np.float32))


def test_view_reads_the_producers_memory():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    with dlpack.view(a, "a") as v:
        assert v.data == a.ctypes.data and v.shape == (3, 4) and v.strides == (4, 1)
        assert v.dtype == "f32" and v.device == (dlpack.CPU, 0) and v.readonly is False
        assert v.contiguous()
    with dlpack.view(a[:, ::2], "s") as v:
        assert v.strides == (4, 2) and not v.contiguous()
    with dlpack.view(Producer(a, versioned=False), "old") as v:
        assert v.readonly is None and v.data == a.ctypes.data
    a.flags.writeable = False
    with dlpack.view(a, "r") as v:
        assert v.readonly is True
    with pytest.raises(ValueError, match="x: DLPack element type .*complex|x: DLPack element "
                       "type \\(code 5"):
        dlpack.view(np.zeros(2, np.complex64), "x")
    with pytest.raises(TypeError, match="y: list has no __dlpack__"):
        dlpack.view([1.0], "y")


def test_every_view_is_handed_back():
    """The deleter runs once per borrowed tensor: numpy's drops the array's
    reference, so a leak or a double release shows in the count."""
    a = np.ones((4, 4), np.float32)
    before = sys.getrefcount(a)
    for _ in range(50):
        v = dlpack.view(a, "a")
        assert sys.getrefcount(a) > before
        v.release()
        v.release()
    assert sys.getrefcount(a) == before


def test_dlpack_arguments_are_read_in_place(lib):
    a, b = operands()
    pa, pb = Producer(a), Producer(b)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c = lib["mm"](pa, pb)
    assert pa.exports == 1 and pb.exports == 1 and lib["mm"].last_copies == []
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)
    # A DLPack 0.x producer is read the same way.
    np.testing.assert_array_equal(lib["mm"](Producer(a, versioned=False), b), c)


def test_out_arrays_are_written_in_place(lib):
    a, b = operands()
    out = np.full((8, 4), np.nan, np.float32)
    producer = Producer(out)
    (result,) = [lib["mm"](a, b, out=[producer])]
    assert result is producer
    np.testing.assert_allclose(out, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)
    readonly = np.zeros((8, 4), np.float32)
    readonly.flags.writeable = False
    with pytest.raises(ValueError, match="out array for result0 is read-only"):
        lib["mm"](a, b, out=[Producer(readonly)])
    with pytest.raises(ValueError, match="out array for result0 may be read-only"):
        lib["mm"](a, b, out=[Producer(np.zeros((8, 4), np.float32), versioned=False)])
    with pytest.raises(ValueError, match="out array for result0 has strides"):
        lib["mm"](a, b, out=[Producer(np.zeros((4, 8), np.float32).T)])
    with pytest.raises(ValueError, match="out array for result0 is on cuda:1"):
        lib["mm"](a, b, out=[Producer(out, device=(dlpack.CUDA, 1))])


def test_copies_say_why_and_copy_false_refuses(lib):
    a, b = operands()
    strided = np.zeros((8, 32), np.float32)
    strided[:, ::2] = a
    view = strided[:, ::2]
    with pytest.warns(aot.CopyWarning, match=r"arg0 copied: has strides \(32, 2\)"):
        c = lib["mm"](Producer(view), b)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)
    assert lib["mm"].last_copies == ["arg0: has strides (32, 2) (elements), not row-major "
                                     "contiguous"]
    # Memory aligned to 1 byte only.
    raw = np.zeros(a.nbytes + 1, np.uint8)
    misaligned = raw[1:].view(np.float32).reshape(8, 16)
    misaligned[...] = a
    with pytest.warns(aot.CopyWarning, match="arg0 copied: is not aligned to its element "
                      r"size \(4 bytes\)"):
        np.testing.assert_array_equal(lib["mm"](Producer(misaligned), b), c)
    with pytest.raises(ValueError, match="arg0 has strides .*copy=False forbids"):
        lib["mm"](Producer(view), b, copy=False)


def test_wrong_arrays_name_the_argument(lib):
    a, b = operands()
    with pytest.raises(ValueError, match=r"mm: argument arg1 must be f32 \(float32\), got f64"):
        lib["mm"](a, Producer(b.astype(np.float64)))
    with pytest.raises(ValueError, match="argument arg0 must have shape 8x16, got 16x8"):
        lib["mm"](Producer(a.T.copy()), b)
    with pytest.raises(ValueError, match="argument arg0 is on cuda:0; a CPU kernel reads "
                       "host memory"):
        lib["mm"](Producer(a, device=(dlpack.CUDA, 0)), b)
    with pytest.raises(ValueError, match="argument arg0 is on rocm:2"):
        lib["mm"](Producer(a, device=(dlpack.ROCM, 2)), b)


def test_a_refused_call_hands_every_view_back(lib):
    a, b = operands()
    before = sys.getrefcount(a), sys.getrefcount(b)
    for _ in range(10):
        with pytest.raises(ValueError):
            lib["mm"](Producer(a), Producer(b.astype(np.float64)))
        with pytest.raises(ValueError):
            lib["mm"](Producer(a), Producer(b), out=[Producer(np.zeros((8, 4), np.float32),
                                                             versioned=False)])
        lib["mm"](Producer(a), Producer(b))
    assert (sys.getrefcount(a), sys.getrefcount(b)) == before


def test_jax_arrays(lib, bf16_lib):
    jnp = pytest.importorskip("jax.numpy", reason="jax is not installed")
    ml_dtypes = pytest.importorskip("ml_dtypes")
    a, b = operands()
    ja, jb = jnp.asarray(a), jnp.asarray(b)
    c = lib["mm"](ja, jb)
    assert lib["mm"].last_copies == []
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)
    # bf16, which numpy's own from_dlpack cannot read.
    ab, bb = a.astype(ml_dtypes.bfloat16), b.astype(ml_dtypes.bfloat16)
    cb = bf16_lib["mm"](jnp.asarray(ab), jnp.asarray(bb))
    np.testing.assert_array_equal(cb, bf16_lib["mm"](ab, bb))
    assert bf16_lib["mm"].last_copies == []
    # JAX arrays are immutable: never an out= array.
    with pytest.raises(ValueError, match="may be read-only"):
        lib["mm"](a, b, out=[jnp.zeros((8, 4), jnp.float32)])
