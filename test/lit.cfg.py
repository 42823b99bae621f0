# -*- Python -*-
# lit configuration for the accel regression tests.

import os
import sys

import lit.formats
import lit.util
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "ACCEL"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.accel_obj_root, "test")
config.excludes = ["Inputs", "CMakeLists.txt", "README.txt", "lit.cfg.py",
                   "lit.site.cfg.py"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%accel_src_root", config.accel_src_root))
config.substitutions.append(("%accel_obj_root", config.accel_obj_root))
# The interpreter lit runs under; test helpers use the standard library only.
config.substitutions.append(("%python", sys.executable))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.accel_tools_dir, append_path=True)

tool_dirs = [config.accel_tools_dir, config.llvm_tools_dir]
tools = [
    ToolSubst("accel-opt", unresolved="fatal"),
    ToolSubst("mlir-opt", unresolved="fatal"),
    ToolSubst("mlir-runner", unresolved="fatal"),
    ToolSubst("accel-run", unresolved="fatal"),
    ToolSubst("accel-systolic-translate", unresolved="fatal"),
    ToolSubst("accel-sim", unresolved="fatal"),
    ToolSubst("accel-compile", unresolved="fatal"),
    ToolSubst("accel-launch", unresolved="fatal"),
    ToolSubst("mlir-translate", unresolved="fatal"),
    ToolSubst("llc", unresolved="fatal"),
    # LLVM 22's: an older llvm-readobj/llvm-objdump on PATH (Debian's
    # /usr/bin ones) may not know the AMDGPU chips of the code objects.
    ToolSubst("llvm-readobj", unresolved="fatal"),
    ToolSubst("llvm-objdump", unresolved="fatal"),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# accel-bench is built only where oneDNN and OpenBLAS are installed
# (`// REQUIRES: accel-bench`).
if os.access(os.path.join(config.accel_tools_dir, "accel-bench"), os.X_OK):
    config.available_features.add("accel-bench")

# A build instrumented by the sanitizers (scripts/sanitize.sh): `asan`,
# `ubsan`, for tests that cannot run that way (`UNSUPPORTED: asan`, with the
# reason).
_sanitizers = set(filter(None, getattr(config, "accel_sanitizers", "").split(",")))
if "address" in _sanitizers:
    config.available_features.add("asan")
if "undefined" in _sanitizers:
    config.available_features.add("ubsan")

# Runtime support libraries for tests executed with mlir-runner.
llvm_lib_dir = os.path.join(os.path.dirname(config.llvm_tools_dir), "lib")
config.substitutions.append(
    ("%mlir_runner_utils", os.path.join(llvm_lib_dir, "libmlir_runner_utils.so")))
config.substitutions.append(
    ("%mlir_c_runner_utils", os.path.join(llvm_lib_dir, "libmlir_c_runner_utils.so")))

# NVIDIA's assembler (CUDA toolkit), for tests that assemble generated PTX:
# `// REQUIRES: ptxas`, `%ptxas` runs it.
import shutil
ptxas = shutil.which("ptxas") or (
    "/usr/local/cuda/bin/ptxas"
    if os.access("/usr/local/cuda/bin/ptxas", os.X_OK) else None)
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))

# x86-64 hosts without AMX: accel-compile --target=cpu tests compile for
# amx-tile there to see the library refuse a CPU that lacks a feature.
try:
    with open("/proc/cpuinfo") as _f:
        _flags = _f.read()
    if " avx512f" in _flags and " amx_tile" not in _flags:
        config.available_features.add("cpu-avx512-no-amx")
    # Hosts with AVX-512 (F, BW, VL) and its dot products: RUN lines that
    # JIT-compile for those features run there only (accel-run refuses
    # features the host lacks; an AVX2-only CPU such as Zen 3 has none).
    if all(f" {f}" in _flags for f in ("avx512f", "avx512bw", "avx512vl")):
        config.available_features.add("cpu-avx512")
    if " avx512_vnni" in _flags:
        config.available_features.add("cpu-avx512vnni")
    # Hosts whose JIT-compiled bf16 matmuls use vdpbf16ps (which flushes
    # subnormals, `bf16-subnormals=flush`).
    if " avx512_bf16" in _flags:
        config.available_features.add("cpu-avx512bf16")
    # Hosts with AMX tiles for bf16 and int8 (Sapphire Rapids on): the AMX
    # kernels' numerics run there (accel-cpu-amx-kernels); elsewhere lit
    # reports those tests UNSUPPORTED.
    if all(f" {f}" in _flags for f in ("amx_tile", "amx_bf16", "amx_int8")):
        config.available_features.add("cpu-amx")
except OSError:
    pass

# A Python with numpy, for test helpers that emulate kernels
# (`// REQUIRES: numpy`, run them with `%numpy_python`); lit's own
# interpreter may lack it.
import subprocess
for _py in (sys.executable, shutil.which("python3")):
    if _py and subprocess.run([_py, "-c", "import numpy"],
                              stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL).returncode == 0:
        config.available_features.add("numpy")
        config.substitutions.append(("%numpy_python", _py))
        # accel.ir asks the C++ verifier about each op it builds, through
        # the accel._core extension (built only where nanobind and the
        # Python headers are, python/CMakeLists.txt): scripts that build ops
        # need it loadable by this Python (`// REQUIRES: accel-python-core`;
        # run them with ACCEL_BUILD_DIR=%accel_obj_root).
        if subprocess.run(
                [_py, "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
                 "from accel import core", os.path.join(config.accel_src_root, "python")],
                env=dict(os.environ, ACCEL_BUILD_DIR=config.accel_obj_root),
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
            config.available_features.add("accel-python-core")
        # accel.jax: jax importable and its XLA FFI handler built (the
        # build finds jax's headers through the same Python).
        if os.path.exists(os.path.join(config.accel_obj_root, "python", "accel",
                                       "libaccel_jax_ffi.so")) and subprocess.run(
                [_py, "-c", "import jax"], stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL).returncode == 0:
            config.available_features.add("accel-jax")
        break

# SCALE-Sim v3, the reference for the systolic simulator's SCALE-Sim mode
# (`// REQUIRES: scalesim`, run scripts with `%scalesim_python`).
# scripts/setup.sh installs it in its own virtual environment,
# <build>/scalesim-venv, as it needs a numpy older than the project's;
# ACCEL_SCALESIM_PYTHON names another interpreter that has it.
_scalesim_py = os.environ.get("ACCEL_SCALESIM_PYTHON") or os.path.join(
    config.accel_obj_root, "scalesim-venv", "bin", "python")
if os.access(_scalesim_py, os.X_OK) and subprocess.run(
        [_scalesim_py, "-c", "import scalesim.scale_sim"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
    config.available_features.add("scalesim")
    config.substitutions.append(("%scalesim_python", _scalesim_py))

# An NVIDIA GPU with its driver (`// REQUIRES: cuda`): libcuda loads, cuInit
# succeeds and there is a device. Tests never fail for want of one: they are
# unsupported.
def _has_cuda():
    import ctypes
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
        count = ctypes.c_int(0)
        return (cuda.cuInit(0) == 0 and
                cuda.cuDeviceGetCount(ctypes.byref(count)) == 0 and
                count.value > 0)
    except OSError:
        return False
if _has_cuda():
    config.available_features.add("cuda")

# An AMD GPU with ROCm 6 or later (`// REQUIRES: hip`): libamdhip64 loads,
# hipInit succeeds and there is a device. Unsupported otherwise, never failed.
def _has_hip():
    import ctypes
    for name in ("libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.7",
                 "/opt/rocm/lib/libamdhip64.so"):
        try:
            hip = ctypes.CDLL(name)
        except OSError:
            continue
        count = ctypes.c_int(0)
        return (hip.hipInit(0) == 0 and
                hip.hipGetDeviceCount(ctypes.byref(count)) == 0 and
                count.value > 0)
    return False
if _has_hip():
    config.available_features.add("hip")

# The same for HIP (`// REQUIRES: fake-libamdhip64`, `%fake_libamdhip64`).
fake_libamdhip64 = os.path.join(config.accel_obj_root, "unittests",
                                "libfake_libamdhip64.so")
if os.path.exists(fake_libamdhip64):
    config.available_features.add("fake-libamdhip64")
    config.substitutions.append(("%fake_libamdhip64", fake_libamdhip64))

# The host-memory stand-in for libcuda the unit tests build
# (`// REQUIRES: fake-libcuda`, `%fake_libcuda`): runs the launcher's whole
# path (allocation, copies, argument packing) without a GPU; kernels do not
# execute, so their outputs stay NaN-prefilled.
fake_libcuda = os.path.join(config.accel_obj_root, "unittests",
                            "libfake_libcuda.so")
if os.path.exists(fake_libcuda):
    config.available_features.add("fake-libcuda")
    config.substitutions.append(("%fake_libcuda", fake_libcuda))
# NCCL's API for ranks that are threads of one process
# (`// REQUIRES: fake-libnccl`, `%fake_libnccl`).
fake_libnccl = os.path.join(config.accel_obj_root, "unittests",
                            "libfake_libnccl.so")
if os.path.exists(fake_libnccl):
    config.available_features.add("fake-libnccl")
    config.substitutions.append(("%fake_libnccl", fake_libnccl))
