"""Ahead-of-time compilation (`accel-compile`) and a loader for CPU kernels.

    from accel import aot
    art = aot.compile(text, target="cpu", out_dir="build/aot", features="host")
    lib = aot.load(art)                  # checks ABI version, identity, CPU
    out = lib["attention"](q, k, v)      # numpy arrays in, numpy arrays out

`compile` runs the `accel-compile` driver (found as `accel-opt` is:
`$ACCEL_COMPILE`, `<repo>/build/bin`, `PATH`) and returns the folder's
artifacts with their parsed JSON metadata, for every target it writes
(cpu, nvptx, amdgpu, systolic). `load` opens a CPU library with ctypes and calls its
entry points through the C ABI of docs/aot.md (`accel_tensor`: data, rank,
sizes, strides; a status return), after the checks that the C header's
`accel_<module>_load_check()` does: the library's ABI version and identity
string against the metadata, then the CPU's features. A mismatch raises
`AbiMismatchError`, a missing CPU feature `CpuFeatureError`; a refused or
failed call `KernelError` with the library's status; wrong arrays `ValueError` before
anything is called. `simulate` runs a systolic program on the cycle-level
simulator (`accel-sim`) with numpy inputs and returns its results and
statistics.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import subprocess
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Union

import numpy as np

from . import dlpack, dtypes
from .tools import AccelError, find_tool

__all__ = [
    "AbiMismatchError",
    "Artifacts",
    "CopyWarning",
    "CpuFeatureError",
    "CpuKernel",
    "CpuLibrary",
    "KernelError",
    "compile",
    "find_accel_compile",
    "load",
    "simulate",
]

#: Environment variable that overrides where `accel-compile` is looked for.
ENV_VAR = "ACCEL_COMPILE"

#: The C ABI this loader speaks (docs/aot.md, "The C ABI (version 6)").
ABI_VERSION = 7
MAX_RANK = 8

#: Status codes of the C ABI and their messages (the header's
#: accel_status_string).
STATUS = {
    0: "ok",
    1: "a buffer or its data is NULL",
    2: "a buffer's rank or sizes differ from the compiled shapes",
    3: "a buffer is not contiguous row-major or is misaligned",
    4: "this CPU lacks instruction set features the library was compiled for",
    5: "the library does not match this header (ABI version, compiler, target or "
       "features)",
    6: "a temporary could not be allocated (its size overflows, is over the "
       "library's limit, or malloc failed)",
    7: "a thread setting the library cannot honour (fewer than 1, over "
       "ACCEL_MAX_THREADS, or more than 1 for a library compiled with threads=1)",
    8: "the GPU driver is missing or failed, the library is not loaded, or the "
       "device cannot run its code (the library's last_error() says which)",
    9: "sharded: MPI is not running with the grid's process count (CPU), or the "
       "communicator is NULL or has another number of ranks than the module's grid, "
       "or an NCCL (RCCL) call failed (GPU; the library's last_error() says which)",
    10: "index data out of range: a paged attention's kv_lengths outside [0, pages "
        "* page size] or a block table entry outside the pool (nothing was run)",
}


class AbiMismatchError(RuntimeError):
    """The library is not the one its metadata describes (another ABI
    version, compiler, target, features or module)."""


class CpuFeatureError(RuntimeError):
    """This CPU (or OS) lacks features the library was compiled for."""


class KernelError(RuntimeError):
    """An entry point refused a call, or failed it (a temporary that could
    not be allocated); `status` is its C ABI status."""

    def __init__(self, kernel: str, status: int, detail: str = "") -> None:
        self.kernel = kernel
        self.status = status
        super().__init__(f"accel_{kernel} returned {status}: "
                         f"{STATUS.get(status, 'unknown status')}"
                         + (f" ({detail})" if detail else ""))


def find_accel_compile() -> str:
    """The path of the `accel-compile` driver, or FileNotFoundError."""
    return find_tool("accel-compile", ENV_VAR)


@dataclass
class Artifacts:
    """What one `accel-compile` call wrote into `folder`."""

    target: str
    folder: Path
    #: Every file in the folder, by name.
    files: List[str] = field(default_factory=list)
    #: The parsed JSON metadata files, by file name (cpu: one per module;
    #: nvptx: one per kernel; systolic: one per program).
    metadata: Dict[str, Any] = field(default_factory=dict)

    def path(self, name: str) -> Path:
        return self.folder / name


def _source_text(source: Any) -> str:
    if hasattr(source, "to_mlir"):
        return source.to_mlir()
    if isinstance(source, os.PathLike):
        return Path(source).read_text()
    if isinstance(source, str):
        return source
    raise TypeError(f"compile() takes MLIR text, a path or an accel.ir.Function, "
                    f"not {type(source).__name__}")


def compile(source: Any, target: str = "cpu", out_dir: Union[str, os.PathLike] = "aot", *,
            name: str = "kernels", chip: Optional[str] = None,
            features: Optional[Union[str, Sequence[str]]] = None,
            options: Optional[str] = None, extra_args: Sequence[str] = (),
            timeout: Optional[float] = 600.0) -> Artifacts:
    """Compiles `source` (MLIR text, an `accel.ir.Function`, or a path) for
    `target` into `out_dir` with `accel-compile` and returns the artifacts.

    `name` is the stem of the source file the driver reads, which names the
    CPU module (`lib<name>.so`, `<name>.h`) unless the text has
    `module @name`. `chip`, `features` (a comma-separated string or a list)
    and `options` (the target pipeline's options) go to the driver as they
    are. On failure the driver writes nothing and AccelError carries its
    diagnostics. `timeout` (seconds) is the driver's own
    `--max-compile-seconds`: it stops a compilation that takes longer, with
    everything it started, and removes what it staged (None: no limit).
    """
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise ValueError(f"name {name!r} is not a C identifier")
    text = _source_text(source)
    out = Path(out_dir)
    with tempfile.TemporaryDirectory(prefix="accel-aot-") as tmp:
        src = Path(tmp) / f"{name}.mlir"
        src.write_text(text)
        command = [find_accel_compile(), str(src), f"--target={target}", "-o", str(out)]
        if chip is not None:
            command.append(f"--chip={chip}")
        if features is not None:
            if not isinstance(features, str):
                features = ",".join(features)
            command.append(f"--features={features}")
        if options is not None:
            command.append(f"--options={options}")
        if timeout is not None:
            command.append(f"--max-compile-seconds={timeout:g}")
        command.extend(extra_args)
        # The driver stops itself at `timeout`; the margin covers its start
        # and its clean-up, and only a driver that hangs meets this one.
        proc = subprocess.run(command, capture_output=True, text=True,
                              timeout=None if timeout is None else timeout + 30,
                              check=False)
    if proc.returncode != 0:
        raise AccelError(proc.stderr or proc.stdout, proc.returncode, command)
    files = sorted(p.name for p in out.iterdir() if p.is_file())
    metadata = {f: json.loads((out / f).read_text()) for f in files if f.endswith(".json")}
    return Artifacts(target=target, folder=out, files=files, metadata=metadata)


# --------------------------------------------------------------------------
# The CPU loader
# --------------------------------------------------------------------------


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("rank", ctypes.c_int64),
                ("sizes", ctypes.c_int64 * MAX_RANK),
                ("strides", ctypes.c_int64 * MAX_RANK)]


def _numpy_dtype(dtype: str) -> np.dtype:
    """The numpy dtype of an element type of the metadata."""
    plain = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "i8": np.int8,
             "i16": np.int16, "i32": np.int32, "i64": np.int64, "i1": np.bool_}
    if dtype in plain:
        return np.dtype(plain[dtype])
    try:
        import ml_dtypes
    except ImportError as err:  # pragma: no cover - ml_dtypes is a dependency
        raise ValueError(f"{dtype} arrays need the ml_dtypes package") from err
    special = {"bf16": ml_dtypes.bfloat16, "f8E4M3FN": ml_dtypes.float8_e4m3fn,
               "f8E5M2": ml_dtypes.float8_e5m2, "f8E4M3FNUZ": ml_dtypes.float8_e4m3fnuz,
               "f8E5M2FNUZ": ml_dtypes.float8_e5m2fnuz}
    if dtype in special:
        return np.dtype(special[dtype])
    raise ValueError(f"no numpy dtype for element type {dtype}")


class CpuKernel:
    """One entry point of a CPU library, called by its signature-hashed name
    (`accel_<name>_h<hash>`, the name the header makes C code call)."""

    def __init__(self, library: "CpuLibrary", meta: Dict[str, Any]) -> None:
        self.name = meta["name"]
        self.signature = meta["signature"]
        self.arguments = meta["arguments"]
        self.results = meta["results"]
        self._library = library
        self._fn = getattr(library._dll, meta["hashed_symbol"])
        self._fn.restype = ctypes.c_int
        self._fn.argtypes = [ctypes.POINTER(_Tensor)] * (len(self.arguments) +
                                                         len(self.results))
        #: The arguments the last call copied, each with the reason.
        self.last_copies: List[str] = []
        # The fast path of a call whose arrays are all numpy, of the exact
        # dtypes and static shapes, contiguous and aligned: per buffer its
        # dtype, shape and a prebuilt accel_tensor (sizes and strides) that
        # the call copies and points at the data.
        specs = self.arguments + self.results
        self._fast = all(None not in s["shape"] for s in specs)
        if self._fast:
            self._fast_args = [(_numpy_dtype(s["dtype"]), tuple(s["shape"]),
                                bytes(_Buffer(0, s["shape"], None).tensor()), s["dtype"])
                               for s in self.arguments]
            self._fast_results = [(_numpy_dtype(s["dtype"]), tuple(s["shape"]),
                                   bytes(_Buffer(0, s["shape"], None).tensor()), s["dtype"])
                                  for s in self.results]

    def __repr__(self) -> str:
        return f"<accel CPU kernel {self.signature}>"

    def _check_type(self, what: str, spec: Dict[str, Any], dtype: Any,
                    shape: Sequence[int]) -> None:
        """`dtype`: a numpy dtype, or the MLIR name of a DLPack tensor's."""
        name = _dtype_name(dtype) if isinstance(dtype, np.dtype) else dtype
        if name != spec["dtype"]:
            raise ValueError(f"{self.name}: {what} {spec['name']} must be {spec['dtype']} "
                             f"({_numpy_dtype(spec['dtype'])}), got {dtype}")
        want = spec["shape"]
        if len(shape) != len(want) or any(
                s is not None and s != n for s, n in zip(want, shape)):
            shown = "x".join("?" if s is None else str(s) for s in want)
            raise ValueError(f"{self.name}: {what} {spec['name']} must have shape "
                             f"{shown}, got {'x'.join(map(str, shape)) or 'a scalar'}")

    def _needs_copy(self, what: str, spec: Dict[str, Any], reason: Optional[str],
                    copy: Optional[bool]) -> bool:
        """Whether an argument must be copied (reason is not None); raises
        when `copy=False` forbids it, warns (CopyWarning) when it copies."""
        if reason is None:
            return False
        if copy is False:
            raise ValueError(f"{self.name}: {what} {spec['name']} {reason}, and copy=False "
                             "forbids the copy the kernel would need")
        warnings.warn(f"{self.name}: {what} {spec['name']} copied: {reason}", CopyWarning,
                      stacklevel=4)
        self.last_copies.append(f"{spec['name']}: {reason}")
        return True

    def _argument(self, spec: Dict[str, Any], value: Any, copy: Optional[bool]) -> _Buffer:
        """The argument `value` as a buffer of the C ABI: numpy arrays and
        DLPack producers on the host without a copy when they are row-major
        contiguous and aligned to their element size, else (copy=None) a
        contiguous copy with a CopyWarning saying why."""
        if isinstance(value, np.ndarray):
            self._check_type("argument", spec, value.dtype, value.shape)
            if self._needs_copy("argument", spec, _copy_reason(value), copy):
                value = np.ascontiguousarray(value)
            return _Buffer.of_numpy(value)
        if hasattr(value, "__dlpack__") and hasattr(value, "__dlpack_device__"):
            kind, index = dlpack.device_of(value)
            if kind not in (dlpack.CPU, dlpack.CUDA_HOST):
                where = f"{dlpack.DEVICE_NAMES.get(kind, f'device type {kind}')}:{index}"
                raise ValueError(f"{self.name}: argument {spec['name']} is on {where}; a CPU "
                                 "kernel reads host memory (move it to the host first)")
            borrowed = dlpack.view(value, spec["name"])
            try:
                self._check_type("argument", spec, borrowed.dtype, borrowed.shape)
                reason = _view_copy_reason(borrowed)
                if self._needs_copy("argument", spec, reason, copy):
                    copied = np.ascontiguousarray(_numpy_over(borrowed))
                    borrowed.release()
                    return _Buffer.of_numpy(copied)
            except BaseException:
                borrowed.release()
                raise
            return _Buffer(borrowed.data, borrowed.shape, keep=borrowed)
        array = np.asarray(value)
        self._check_type("argument", spec, array.dtype, array.shape)
        return _Buffer.of_numpy(np.ascontiguousarray(array))

    def _result(self, spec: Dict[str, Any], value: Any) -> _Buffer:
        """An `out=` array: written in place, so never copied."""
        if isinstance(value, np.ndarray):
            self._check_type("result", spec, value.dtype, value.shape)
            reason = _copy_reason(value) or (None if value.flags.writeable else "is read-only")
            if reason is not None:
                raise ValueError(f"{self.name}: out array for {spec['name']} {reason}; it "
                                 "must be a writeable C-contiguous array")
            return _Buffer.of_numpy(value)
        if not (hasattr(value, "__dlpack__") and hasattr(value, "__dlpack_device__")):
            raise ValueError(f"{self.name}: out array for {spec['name']} must be a numpy "
                             f"array or a DLPack array on the host, got {type(value).__name__}")
        kind, index = dlpack.device_of(value)
        if kind not in (dlpack.CPU, dlpack.CUDA_HOST):
            raise ValueError(f"{self.name}: out array for {spec['name']} is on "
                             f"{dlpack.DEVICE_NAMES.get(kind, kind)}:{index}; a CPU kernel "
                             "writes host memory")
        borrowed = dlpack.view(value, spec["name"])
        try:
            self._check_type("result", spec, borrowed.dtype, borrowed.shape)
            reason = _view_copy_reason(borrowed)
            if reason is None and borrowed.readonly is not False:
                reason = ("is read-only" if borrowed.readonly else
                          "may be read-only (its producer does not say: DLPack 0.x)")
            if reason is not None:
                raise ValueError(f"{self.name}: out array for {spec['name']} {reason}; it "
                                 "must be a writeable row-major contiguous array")
        except BaseException:
            borrowed.release()
            raise
        return _Buffer(borrowed.data, borrowed.shape, keep=borrowed)

    def __call__(self, *inputs: Any, out: Optional[Sequence[Any]] = None,
                 copy: Optional[bool] = None):
        """Runs the kernel on `inputs` and returns its result (a tuple when
        there are several) as numpy arrays.

        Inputs are numpy arrays, anything with `__dlpack__` on the host (JAX,
        PyTorch, CuPy pinned memory, ...), or array-likes; they must have the
        argument's dtype (never converted) and shape. Row-major contiguous
        arrays aligned to their element size are read in place; others are
        copied with a `CopyWarning` saying why (`copy=False`: a ValueError
        instead; `last_copies` lists the copies of the last call). `out`
        gives the result arrays to write in place (writeable, contiguous,
        numpy or DLPack 1.x on the host), required for results with
        dynamic dimensions; the call returns them."""
        if len(inputs) != len(self.arguments):
            raise TypeError(f"{self.name} takes {len(self.arguments)} arrays, "
                            f"got {len(inputs)}")
        if self._fast:
            called = self._call_fast(inputs, out)
            if called is not None:
                return called
        self.last_copies = []
        buffers: List[_Buffer] = []
        try:
            for spec, value in zip(self.arguments, inputs):
                buffers.append(self._argument(spec, value, copy))
            if out is None:
                outs: List[Any] = []
                for spec in self.results:
                    if any(s is None for s in spec["shape"]):
                        raise ValueError(f"{self.name}: result {spec['name']} has dynamic "
                                         "dimensions; pass out=[...] arrays")
                    outs.append(np.empty(spec["shape"], dtype=_numpy_dtype(spec["dtype"])))
                    buffers.append(_Buffer.of_numpy(outs[-1]))
            else:
                outs = list(out)
                if len(outs) != len(self.results):
                    raise TypeError(f"{self.name} has {len(self.results)} results, got "
                                    f"{len(outs)} out arrays")
                for spec, value in zip(self.results, outs):
                    buffers.append(self._result(spec, value))
            tensors = [b.tensor() for b in buffers]
            status = self._fn(*[ctypes.byref(t) for t in tensors])
        finally:
            for b in buffers:
                b.release()
        if status != 0:
            raise KernelError(self.name, status)
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _call_fast(self, inputs: Sequence[Any], out: Optional[Sequence[Any]]):
        """The call when every input is a numpy array, or a DLPack array on
        the host, of the exact dtype and static shape, contiguous and
        aligned, and every `out` array a writeable numpy one of the same
        kind; None when one is not (the general path then checks and
        explains)."""
        if out is not None and len(out) != len(self._fast_results):
            return None
        tensors = []
        views = []
        try:
            arrays = list(inputs) if out is None else list(inputs) + list(out)
            for i, (value, (dtype, shape, template, name)) in enumerate(
                    zip(arrays, self._fast_args + self._fast_results)):
                if type(value) is np.ndarray:
                    if value.dtype != dtype or value.shape != shape or \
                            not value.flags.c_contiguous or \
                            (i >= len(inputs) and not value.flags.writeable):
                        return None
                    data = value.ctypes.data
                elif i < len(inputs) and hasattr(value, "__dlpack_device__") and \
                        value.__dlpack_device__()[0] == dlpack.CPU:
                    view = dlpack.view(value, "")
                    views.append(view)
                    if view.dtype != name or view.shape != shape or \
                            not view.contiguous():
                        return None
                    data = view.data
                else:
                    return None
                if data % dtype.itemsize:
                    return None
                t = _Tensor.from_buffer_copy(template)
                t.data = data
                tensors.append(t)
            if out is None:
                outs = []
                for dtype, shape, template, _ in self._fast_results:
                    outs.append(np.empty(shape, dtype))
                    t = _Tensor.from_buffer_copy(template)
                    t.data = outs[-1].ctypes.data
                    tensors.append(t)
            else:
                outs = list(out)
            status = self._fn(*[ctypes.byref(t) for t in tensors])
        finally:
            for view in views:
                view.release()
        if self.last_copies:
            self.last_copies = []
        if status != 0:
            raise KernelError(self.name, status)
        return outs[0] if len(outs) == 1 else tuple(outs)

    @property
    def address(self) -> int:
        """The entry point's address (what accel.jax's XLA handler calls)."""
        return ctypes.cast(self._fn, ctypes.c_void_p).value or 0


class CopyWarning(UserWarning):
    """An argument had to be copied before a kernel could read it (its
    layout, alignment or kind); the message says which and why."""


_NUMPY_NAMES = {"float32": "f32", "float64": "f64", "float16": "f16", "int8": "i8",
                "int16": "i16", "int32": "i32", "int64": "i64", "bool": "i1",
                "uint8": "ui8", "uint16": "ui16", "uint32": "ui32", "uint64": "ui64",
                "bfloat16": "bf16", "float8_e4m3fn": "f8E4M3FN", "float8_e5m2": "f8E5M2",
                "float8_e4m3fnuz": "f8E4M3FNUZ", "float8_e5m2fnuz": "f8E5M2FNUZ"}


def _dtype_name(dtype: np.dtype) -> str:
    """The MLIR element type of a numpy dtype (the numpy name when it has
    none, which no kernel takes)."""
    return _NUMPY_NAMES.get(dtype.name, dtype.name)


def _copy_reason(array: np.ndarray) -> Optional[str]:
    if not array.flags.c_contiguous:
        return (f"has strides {tuple(s // max(array.itemsize, 1) for s in array.strides)} "
                f"(elements), not row-major contiguous")
    if array.size and array.ctypes.data % array.itemsize:
        return f"is not aligned to its element size ({array.itemsize} bytes)"
    return None


def _view_copy_reason(view: "dlpack.View") -> Optional[str]:
    if not view.contiguous():
        return f"has strides {view.strides} (elements), not row-major contiguous"
    if view.data % view.itemsize:
        return f"is not aligned to its element size ({view.itemsize} bytes)"
    return None


def _numpy_over(view: "dlpack.View") -> np.ndarray:
    """A numpy array over a borrowed tensor's memory (strided, no copy)."""
    dtype = _numpy_dtype(view.dtype)
    if any(n == 0 for n in view.shape):
        return np.empty(view.shape, dtype)
    low = sum(min(0, (n - 1) * s) for n, s in zip(view.shape, view.strides))
    high = sum(max(0, (n - 1) * s) for n, s in zip(view.shape, view.strides))
    span = (high - low + 1) * view.itemsize
    memory = (ctypes.c_char * span).from_address(view.data + low * view.itemsize)
    return np.ndarray(view.shape, dtype, buffer=memory, offset=-low * view.itemsize,
                      strides=tuple(s * view.itemsize for s in view.strides))


class _Buffer:
    """One buffer of a call: its data pointer and sizes (row-major
    contiguous), and what keeps its memory alive until the call returns."""

    __slots__ = ("data", "shape", "keep")

    def __init__(self, data: int, shape: Sequence[int], keep: Any) -> None:
        self.data, self.shape, self.keep = data, tuple(shape), keep

    @classmethod
    def of_numpy(cls, array: np.ndarray) -> "_Buffer":
        return cls(array.ctypes.data if array.size else 0, array.shape, array)

    def tensor(self) -> _Tensor:
        t = _Tensor()
        t.data = self.data or None
        t.rank = len(self.shape)
        stride = 1
        for i in reversed(range(len(self.shape))):
            t.sizes[i] = self.shape[i]
            t.strides[i] = stride
            stride *= self.shape[i]
        return t

    def release(self) -> None:
        if isinstance(self.keep, dlpack.View):
            self.keep.release()
        self.keep = None


def _open_library(folder: Path, meta: Dict[str, Any], targets: Sequence[str],
                  entries: str, abi_version: int) -> ctypes.CDLL:
    """The library `meta` (the JSON metadata accel-compile wrote in
    `folder`) describes, opened after the checks `accel_<module>_load_check()`
    makes: a target of `targets`, the ABI version, a module name that is a C
    identifier, a library file in the folder, and the library's own
    `accel_<module>_info()` and ABI version equal to the metadata's.
    `entries` is the metadata's list of entry points ("kernels" for the CPU,
    "functions" for GPU host libraries). AbiMismatchError otherwise."""
    missing = [k for k in ("target", "abi_version", "module", "library", "info",
                           entries) if k not in meta]
    if missing:
        raise AbiMismatchError(f"{folder}: malformed metadata (no {', '.join(missing)})")
    if meta.get("target") not in targets:
        raise AbiMismatchError(f"{folder}: metadata of target {meta.get('target')!r}, "
                               f"not {' or '.join(targets)}")
    if meta.get("abi_version") != abi_version:
        raise AbiMismatchError(f"{folder}: C ABI version {meta.get('abi_version')}, "
                               f"this loader speaks {abi_version}")
    module = meta["module"]
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(module)) or \
            Path(meta["library"]).name != meta["library"]:
        raise AbiMismatchError(f"{folder}: malformed metadata (module {module!r}, "
                               f"library {meta['library']!r})")
    dll = ctypes.CDLL(str(folder / meta["library"]))
    info = getattr(dll, f"accel_{module}_info", None)
    version = getattr(dll, f"accel_{module}_abi_version", None)
    if info is None or version is None:
        raise AbiMismatchError(f"{folder / meta['library']} has no accel_{module}_info"
                               " / _abi_version: not the library of this metadata")
    info.restype = ctypes.c_char_p
    version.restype = ctypes.c_int
    if version() != meta["abi_version"] or info().decode() != meta["info"]:
        raise AbiMismatchError(
            f"{folder / meta['library']} is not the library {folder} describes: it says "
            f"{info().decode()} (ABI {version()}), the metadata {meta['info']} "
            f"(ABI {meta['abi_version']})")
    return dll


class CpuLibrary:
    """A CPU library written by `accel-compile --target=cpu`, checked and
    loaded; its kernels by name (`lib["attention"]`)."""

    def __init__(self, folder: Path, meta: Dict[str, Any]) -> None:
        self._dll = _open_library(folder, meta, ("cpu",), "kernels", ABI_VERSION)
        module = meta["module"]
        self.folder = folder
        self.module = module
        self.metadata = meta
        check = getattr(self._dll, f"accel_{module}_check_cpu")
        check.restype = ctypes.c_int
        if check() != 0:
            missing = getattr(self._dll, f"accel_{module}_missing_features")
            missing.restype = ctypes.c_char_p
            raise CpuFeatureError(f"{folder / meta['library']} needs CPU features this "
                                  f"machine lacks: {missing().decode()}")
        # Each entry point is accel_<name> with <name> a C identifier, and
        # accel_<name>_h<signature hash>: the metadata cannot make the loader
        # call another symbol (free, ...).
        kernels = meta["kernels"]
        for k in kernels if isinstance(kernels, list) else [None]:
            if not isinstance(k, dict) or not all(
                    key in k for key in ("name", "symbol", "hashed_symbol", "signature",
                                         "signature_hash", "arguments", "results")) or \
                    not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(k["name"])) or \
                    not re.fullmatch(r"0x[0-9a-f]{1,16}", str(k["signature_hash"])) or \
                    k["symbol"] != f"accel_{k['name']}" or \
                    k["hashed_symbol"] != \
                    f"accel_{k['name']}_h{int(k['signature_hash'], 16):016x}":
                raise AbiMismatchError(f"{folder}: malformed kernel entry in the "
                                       f"metadata: {k!r}"[:300])
            # The library's kernel of that name has the metadata's signature
            # only if it exports the hashed name too.
            if not hasattr(self._dll, k["hashed_symbol"]):
                raise AbiMismatchError(
                    f"{folder / meta['library']} has no {k['hashed_symbol']}: its "
                    f"{k['symbol']} is not the kernel {k['signature']} of the metadata")
        self.kernels = {k["name"]: CpuKernel(self, k) for k in kernels}
        self._set_threads = getattr(self._dll, f"accel_{module}_set_num_threads")
        self._set_threads.argtypes = [ctypes.c_int]
        self._set_threads.restype = ctypes.c_int
        self._threads = getattr(self._dll, f"accel_{module}_num_threads")
        self._threads.restype = ctypes.c_int
        self._release = getattr(self._dll, f"accel_{module}_release_memory")
        self._release.restype = None
        self._peak = getattr(self._dll, f"accel_{module}_peak_temporary_bytes")
        self._peak.argtypes = [ctypes.c_int]
        self._peak.restype = ctypes.c_uint64

    @property
    def num_threads(self) -> int:
        """How many threads the kernels' parallel loops run on (the library
        was compiled for `options="threads=N"`; 1: sequential kernels)."""
        return self._threads()

    @num_threads.setter
    def num_threads(self, n: int) -> None:
        status = self._set_threads(int(n)) if -2**31 <= int(n) < 2**31 else 7
        if status != 0:
            raise ValueError(f"{self.module}: cannot run on {n} threads: "
                             f"{STATUS[status]}")

    def release_memory(self) -> None:
        """Frees the temporaries the library keeps between calls (blocks of
        128 KiB and more, up to ACCEL_CACHE_MB of them; docs/aot.md,
        "Temporaries"); blocks in use stay with their calls."""
        self._release()

    def peak_temporary_bytes(self, reset: bool = False) -> int:
        """The most memory the kernels' temporaries held at once (bytes of
        their blocks, every thread together) since the library was loaded or
        since a call with `reset=True`, which then counts again from what
        they hold now (docs/aot.md, "Temporaries")."""
        return int(self._peak(1 if reset else 0))

    def __getitem__(self, name: str) -> CpuKernel:
        try:
            return self.kernels[name]
        except KeyError:
            raise KeyError(f"{self.module} has no kernel {name!r} (it has "
                           f"{', '.join(self.kernels)})") from None

    def __repr__(self) -> str:
        return f"<accel CPU library {self.module}: {', '.join(self.kernels)}>"


def load(artifacts: Union[Artifacts, str, os.PathLike],
         module: Optional[str] = None, *, device: int = 0):
    """Loads the library of `artifacts` (or of a folder accel-compile
    wrote). A CPU library: the metadata `<module>.json` (the only CPU one,
    or `module`'s), then the library, checked as
    `accel_<module>_load_check()` does; a `CpuLibrary`. A GPU host library
    (`--target=nvptx|amdgpu`): checked the same way and loaded on `device`
    (the driver opened, the kernels loaded); an `accel.gpu.GpuLibrary`."""
    folder = artifacts.folder if isinstance(artifacts, Artifacts) else Path(artifacts)
    candidates = []
    for path in sorted(folder.glob("*.json")):
        try:
            meta = json.loads(path.read_text())
        except json.JSONDecodeError as err:
            raise AbiMismatchError(f"{path}: not JSON ({err})") from None
        if isinstance(meta, dict) and meta.get("target") == "cpu":
            candidates.append(meta)
    if module is not None:
        candidates = [m for m in candidates if m.get("module") == module]
    if not candidates:
        from . import gpu
        meta = gpu.find_metadata(folder)
        if meta is not None and (module is None or meta.get("module") == module):
            return gpu.GpuLibrary(folder, meta, device)
    if len(candidates) != 1:
        what = f"module {module!r}" if module else "one CPU module or GPU host library"
        raise FileNotFoundError(f"{folder}: expected the metadata of {what}, found "
                                f"{len(candidates)}")
    return CpuLibrary(folder, candidates[0])


# --------------------------------------------------------------------------
# Systolic programs on the simulator
# --------------------------------------------------------------------------


@dataclass
class Simulation:
    """What `accel-sim` reported for one program run."""

    #: The result buffers by name (bf16 results come back as float32).
    results: Dict[str, np.ndarray]
    #: Cycles, utilization, traffic, ... (accel-sim --json "stats").
    stats: Dict[str, Any]
    #: The whole JSON report (program, mode, config, dram, stats, results).
    report: Dict[str, Any]


def simulate(program: Union[Artifacts, str, os.PathLike], inputs: Sequence[Any] = (), *,
             name: Optional[str] = None, mode: str = "default", seed: int = 1,
             timeout: float = 600.0) -> Simulation:
    """Runs a systolic program (a binary or `.mlir` file, or the one
    program of `Artifacts` from `compile(..., target="systolic")`) on the
    simulator. `inputs` are its argument buffers in order (none: random
    ones from `seed`); `name` picks the program of a module with several.
    Errors (a wrong shape or dtype, a malformed binary) raise AccelError
    with the simulator's message."""
    if isinstance(program, Artifacts):
        bins = [f for f in program.files if f.endswith(".bin")]
        if program.target != "systolic" or len(bins) != 1:
            raise ValueError(f"{program.folder}: expected one systolic program, found "
                             f"{len(bins)} .bin files (target {program.target})")
        path = program.path(bins[0])
    else:
        path = Path(program)
    with tempfile.TemporaryDirectory(prefix="accel-sim-") as tmp:
        tmpdir = Path(tmp)
        command = [find_tool("accel-sim", "ACCEL_SIM"), str(path), f"--mode={mode}",
                   f"--seed={seed}", f"--save-outputs={tmpdir / 'out'}",
                   f"--json={tmpdir / 'report.json'}"]
        if name is not None:
            command.append(f"--program={name}")
        for i, value in enumerate(inputs):
            array = np.ascontiguousarray(value)
            np.save(tmpdir / f"in{i}.npy", array)
            command.append(f"--input={tmpdir / f'in{i}.npy'}")
        proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                              check=False)
        if proc.returncode != 0:
            raise AccelError(proc.stderr or proc.stdout, proc.returncode, command)
        report = json.loads((tmpdir / "report.json").read_text())
        results = {p.stem: np.load(p) for p in sorted((tmpdir / "out").glob("*.npy"))}
    return Simulation(results=results, stats=report.get("stats", {}), report=report)
