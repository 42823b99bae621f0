"""accel.torch: accel CPU kernels as torch.library custom ops, eager and
under torch.compile, checked against float64; the fake implementation
(torch.library.opcheck) and the refusals."""

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="torch is not installed (not in python/requirements.txt: PyPI's "
    "Linux wheels pull several GB of CUDA packages); these tests run where it is")

from accel import aot, ir  # noqa: E402

from test_aot import matmul  # noqa: E402
from oracle import attention64, attention_library, gate  # noqa: E402


@pytest.fixture(scope="module")
def atorch(accel_core):
    import accel.torch as module
    return module


@pytest.fixture(scope="module")
def libs(accel_compile, tmp_path_factory, accel_core):
    attention = attention_library(aot, ir, tmp_path_factory.mktemp("ta"), "ta")
    g = ir.Function("two")
    a = g.arg((8, 16), "bf16")
    b = g.arg((16, 4), "bf16")
    g.ret(g.matmul(a, b, out_dtype="bf16"), g.matmul(a, b, out_dtype="f32"))
    two = aot.load(aot.compile(g, out_dir=tmp_path_factory.mktemp("tt"), name="tt"))
    mm = aot.load(aot.compile(matmul(), out_dir=tmp_path_factory.mktemp("tm"), name="tm"))
    return {"attention": attention, "two": two, "mm": mm}


def operands(seed=1):
    gen = torch.Generator().manual_seed(seed)
    return (torch.randn(2, 4, 48, 32, generator=gen), torch.randn(2, 2, 48, 32, generator=gen),
            torch.randn(2, 2, 48, 32, generator=gen))


def test_eager_and_compiled_match_float64(atorch, libs):
    op = atorch.register(libs["attention"]["attention"])
    # Registered under accel::attention: the torch.ops name runs the same op.
    assert hasattr(torch.ops.accel, "attention")
    q, k, v = operands()
    ref, max_logit, max_v = attention64(*(t.numpy() for t in (q, k, v)))
    out = op(q, k, v)
    torch.testing.assert_close(torch.ops.accel.attention(q, k, v), out, rtol=0, atol=0)
    # The tensors were read in place (DLPack), the result is the kernel's.
    assert libs["attention"]["attention"].last_copies == []
    assert out.dtype == torch.float32 and out.shape == (2, 4, 48, 32)
    assert np.abs(out.numpy().astype(np.float64) - ref).max() <= gate(48, max_logit, max_v)

    def block(q, k, v):
        return torch.ops.accel.attention(q * 2.0, k, v) + 1.0

    compiled = torch.compile(block, fullgraph=True)
    got = compiled(q, k, v)
    ref2, max_logit2, _ = attention64(*(t.numpy() for t in (q * 2.0, k, v)))
    assert np.abs(got.numpy().astype(np.float64) - 1.0 - ref2).max() <= \
        gate(48, max_logit2, max_v)
    torch.testing.assert_close(got, block(q, k, v), rtol=0, atol=0)


def test_opcheck(atorch, libs):
    """torch.library's own checks: schema, fake implementation, dispatch."""
    atorch.register(libs["attention"]["attention"])
    torch.library.opcheck(torch.ops.accel.attention.default, operands())


def test_bf16_and_several_results(atorch, libs):
    op = atorch.register(libs["two"]["two"], "two_results")
    gen = torch.Generator().manual_seed(3)
    a = torch.randn(8, 16, generator=gen).to(torch.bfloat16)
    b = torch.randn(16, 4, generator=gen).to(torch.bfloat16)
    low, high = op(a, b)
    assert low.dtype == torch.bfloat16 and high.dtype == torch.float32
    exact = a.double() @ b.double()
    u = 2.0 ** -24
    bound = 16 * u / (1 - 16 * u) * (a.double().abs() @ b.double().abs())
    assert bool(((high.double() - exact).abs() <= bound).all())
    # bf16 result: the f32 sum rounded once to bf16.
    assert bool(((low.double() - exact).abs() <= bound + exact.abs() * 2.0 ** -8).all())
    fake_low, fake_high = torch.compile(lambda x, y: op(x, y), fullgraph=True)(a, b)
    torch.testing.assert_close(fake_low, low, rtol=0, atol=0)


def test_refusals(atorch, libs):
    op = atorch.register(libs["mm"]["mm"], "mm_f32")
    a, b = torch.zeros(8, 16), torch.zeros(16, 4)
    with pytest.raises(ValueError, match=r"mm: argument arg1 must be f32 \(torch.float32\), "
                       "got torch.float64"):
        op(a, b.double())
    with pytest.raises(ValueError, match="mm: argument arg0 must have shape 8x16, got 16x8"):
        op(a.T.contiguous(), b)
    # The fake implementation checks the same when tracing.
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        with pytest.raises(ValueError, match="argument arg0 must have shape 8x16"):
            op(torch.empty(8, 15), torch.empty(16, 4))
    # Registering: the same kernel again is the same op; another kernel under
    # that name is refused.
    assert atorch.register(libs["mm"]["mm"], "mm_f32") is op
    with pytest.raises(ValueError, match="accel::mm_f32 is registered for another kernel"):
        atorch.register(libs["attention"]["attention"], "mm_f32")
    with pytest.raises(ValueError, match="'no-dash' is not a valid op name part"):
        atorch.register(libs["mm"]["mm"], "no-dash")
    with pytest.raises(TypeError, match="takes an accel.aot.CpuKernel"):
        atorch.register(lambda x: x)
    # A non-contiguous tensor is copied first, with the reason.
    with pytest.warns(aot.CopyWarning, match="arg0 copied: has strides"):
        torch.testing.assert_close(op(torch.ones(16, 8).T, b), torch.zeros(8, 4))
