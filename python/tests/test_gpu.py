"""accel.gpu: GPU host libraries (accel-compile --target=nvptx) loaded and
called from Python on device arrays, here against the project's fake
libcuda (unittests/fake_libcuda.c: it records launches and never runs a
kernel). What the kernels compute is checked by
test/Tools/accel-compile/gpu-host.test, which runs this loader with the
kernel emulator behind the fake driver and replays the results against
the fp64 oracle; here: loading, the refusals (each naming the argument),
the stream a call enqueues on and a failed launch."""

import ctypes
import os
from pathlib import Path

import numpy as np
import pytest

from accel import aot, dlpack, gpu

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("ACCEL_BUILD_DIR", REPO / "build"))
FAKE = BUILD / "unittests" / "libfake_libcuda.so"
PROGRAM = REPO / "test" / "Tools" / "accel-compile" / "Inputs" / "gpu_program.mlir"


class OnDevice:
    """A DLPack producer over host memory that says it is on a GPU (the fake
    driver's device pointers are host pointers)."""

    def __init__(self, array, device=(dlpack.CUDA, 0)):
        self.array, self.device, self.streams = array, device, []

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None, max_version=None, **kwargs):
        self.streams.append(stream)
        return self.array.__dlpack__(max_version=max_version)


def aligned(shape, dtype, offset=0, align=256):
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape)) * dtype.itemsize
    raw = np.zeros(nbytes + 2 * align, np.uint8)
    start = (-raw.ctypes.data) % align + offset
    return raw[start:start + nbytes].view(dtype).reshape(shape)


@pytest.fixture(scope="module")
def fake():
    if not FAKE.is_file():
        pytest.skip(f"the fake libcuda is not built ({FAKE})")
    before = os.environ.get("ACCEL_LIBCUDA")
    os.environ["ACCEL_LIBCUDA"] = str(FAKE)
    lib = ctypes.CDLL(str(FAKE), mode=ctypes.RTLD_GLOBAL)
    lib.fake_cuda_launched.restype = ctypes.c_char_p
    lib.fake_cuda_launched.argtypes = [ctypes.c_int]
    lib.fake_cuda_stream.restype = ctypes.c_void_p
    lib.fake_cuda_count.argtypes = [ctypes.c_char_p]
    lib.fake_cuda_fail.argtypes = [ctypes.c_char_p, ctypes.c_int]
    yield lib
    if before is None:
        del os.environ["ACCEL_LIBCUDA"]
    else:
        os.environ["ACCEL_LIBCUDA"] = before


@pytest.fixture(scope="module")
def lib(fake, accel_compile, tmp_path_factory):
    out = tmp_path_factory.mktemp("gpu")
    art = aot.compile(PROGRAM, target="nvptx", chip="sm_80", out_dir=out, name="gpu_program",
                      extra_args=["--cubin=no"])
    library = aot.load(art)
    yield library
    library.unload()


def operands(kernel):
    dtypes = {"f16": np.float16, "f32": np.float32}
    ins = [OnDevice(aligned(a["shape"], dtypes[a["dtype"]])) for a in kernel.arguments]
    outs = [OnDevice(aligned(r["shape"], dtypes[r["dtype"]])) for r in kernel.results]
    return ins, outs


def test_loads_and_enqueues_on_the_callers_stream(fake, lib):
    assert isinstance(lib, gpu.GpuLibrary)
    assert repr(lib) == ("<accel nvptx library gpu_program on device 0: mlp_block, "
                         "two_layers, projection>")
    mlp = lib["mlp_block"]
    assert mlp.kernels == ["mlp_block_0", "mlp_block_1", "mlp_block_2"]
    assert mlp.workspace_bytes == 66048
    ins, outs = operands(mlp)
    workspace = OnDevice(aligned((mlp.workspace_bytes,), np.uint8))
    before = fake.fake_cuda_count(b"launches")
    result = mlp(*ins, out=outs, workspace=workspace, stream=0x42)
    assert result is outs[0]
    launched = [fake.fake_cuda_launched(i).decode()
                for i in range(before, fake.fake_cuda_count(b"launches"))]
    assert launched == mlp.kernels
    assert fake.fake_cuda_stream() == 0x42
    # Every array was exported for the call's stream (DLPack's stream).
    assert {s for d in ins + outs + [workspace] for s in d.streams} == {0x42}

    class CupyLikeStream:
        ptr = 0x77
    projection = lib["projection"]
    ins, outs = operands(projection)
    projection(*ins, out=outs, stream=CupyLikeStream())
    assert fake.fake_cuda_stream() == 0x77
    # The default stream: NULL to the library, 1 (CUDA's legacy default
    # stream) to the producers.
    projection(*ins, out=outs)
    assert fake.fake_cuda_stream() in (0, None) and ins[0].streams[-1] == 1


def test_arrays_are_checked_and_named(lib):
    projection = lib["projection"]
    ins, outs = operands(projection)
    host = ins[0].array
    with pytest.raises(ValueError, match=r"projection: argument arg0 is on cpu:0; the "
                       "library's kernels are loaded on cuda:0"):
        projection(host, *ins[1:], out=outs)
    with pytest.raises(ValueError, match="argument arg1 is on cuda:1"):
        projection(ins[0], OnDevice(ins[1].array, (dlpack.CUDA, 1)), ins[2], out=outs)
    with pytest.raises(ValueError, match="argument arg0 must be a DLPack array on cuda:0, "
                       "got list"):
        projection([1.0], *ins[1:], out=outs)
    with pytest.raises(ValueError, match="argument arg0 must be f16, got f32"):
        projection(OnDevice(aligned((48, 64), np.float32)), *ins[1:], out=outs)
    with pytest.raises(ValueError, match="argument arg2 must have shape 80, got 81"):
        projection(*ins[:2], OnDevice(aligned((81,), np.float32)), out=outs)
    wide = aligned((48, 128), np.float16)
    with pytest.raises(ValueError, match=r"argument arg0 has strides \(128, 1\) .*never "
                       "copied"):
        projection(OnDevice(wide[:, :64]), *ins[1:], out=outs)
    with pytest.raises(ValueError, match="the data of argument arg0 is not aligned to 16"):
        projection(OnDevice(aligned((48, 64), np.float16, offset=8)), *ins[1:], out=outs)
    readonly = aligned((48, 80), np.float32)
    readonly.flags.writeable = False
    with pytest.raises(ValueError, match="out array result0 is read-only"):
        projection(*ins, out=[OnDevice(readonly)])
    with pytest.raises(TypeError, match="projection has 1 results, got 0 out arrays"):
        projection(*ins, out=[])
    with pytest.raises(TypeError, match="stream must be an int handle"):
        projection(*ins, out=outs, stream="default")


def test_the_workspace_is_checked(lib):
    mlp = lib["mlp_block"]
    ins, outs = operands(mlp)
    with pytest.raises(ValueError, match="mlp_block needs a workspace of 66048 bytes"):
        mlp(*ins, out=outs)
    with pytest.raises(ValueError, match="at least 66048 bytes, got 66047 bytes"):
        mlp(*ins, out=outs, workspace=OnDevice(aligned((66047,), np.uint8)))
    with pytest.raises(ValueError, match="the workspace is not aligned to 256 bytes"):
        mlp(*ins, out=outs, workspace=OnDevice(aligned((66048,), np.uint8, offset=16)))


def test_a_communicator_goes_only_to_sharded_functions(lib):
    mlp = lib["mlp_block"]
    assert not mlp.sharded and mlp.collectives == []
    ins, outs = operands(mlp)
    with pytest.raises(TypeError, match="mlp_block is not sharded: it takes no communicator"):
        mlp(*ins, out=outs, comm=1234)


def test_a_failed_launch_raises_with_the_librarys_message(fake, lib):
    projection = lib["projection"]
    ins, outs = operands(projection)
    fake.fake_cuda_fail(b"cuLaunchKernel", 1)
    try:
        with pytest.raises(aot.KernelError, match=r"accel_projection returned 8: .*"
                           r"\(launching projection_0: cuLaunchKernel failed"):
            projection(*ins, out=outs)
    finally:
        fake.fake_cuda_fail(b"", 0)
    projection(*ins, out=outs)


def test_a_device_the_code_cannot_run_on_is_refused(fake, accel_compile, tmp_path):
    art = aot.compile(PROGRAM, target="nvptx", chip="sm_90a", out_dir=tmp_path / "h",
                      name="gpu_program", extra_args=["--cubin=no"])
    # The fake device is 8.0 (FAKE_CUDA_CC unset): sm_90a code cannot run.
    with pytest.raises(RuntimeError, match=r"accel_gpu_program_load\(0\) returned 8: device 0 "
                       "has compute capability 8.0"):
        aot.load(art)
