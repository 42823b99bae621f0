"""GPU host libraries from Python: accel kernels on device arrays.

    from accel import aot
    lib = aot.load(aot.compile(f, target="nvptx", chip="sm_90a", out_dir="gpu"))
    q, k, v = (cupy.asarray(x) for x in ...)            # or torch CUDA tensors
    o = cupy.empty(shape, cupy.float32)
    ws = cupy.empty(lib["attention"].workspace_bytes, cupy.uint8)
    lib["attention"](q, k, v, out=[o], workspace=ws, stream=cupy.cuda.get_current_stream())

`accel.aot.load` returns a `GpuLibrary` for a folder that `accel-compile
--target=nvptx|amdgpu` wrote: its C library (`lib<module>.so`, docs/aot.md
"GPU host libraries") is opened with ctypes after the same identity
checks as a CPU library's, and `load(device)` (done by `aot.load`) opens
the driver (CUDA or HIP, by dlopen: nothing here links against it) and
loads the kernels on that device.

A kernel takes its arguments and results as DLPack arrays on that device
(CuPy, PyTorch, JAX, ...: whatever `__dlpack__` exports on CUDA or ROCm),
read and written in place, never copied (a device copy would need the
producer's allocator): an argument of another dtype, shape or device, not
row-major contiguous or not aligned to 16 bytes is a ValueError naming it.
Results are written into `out=` arrays; the function's temporaries into
`workspace=` (`workspace_bytes` bytes of device memory aligned to 256,
e.g. `cupy.empty(n, cupy.uint8)`; none when it needs 0). The call enqueues
the kernels on `stream` (a CUDA/HIP stream handle as an int, or a CuPy
or PyTorch stream object; None: the default stream) and returns without
waiting, as cuBLAS does; each array is exported for that stream (DLPack's
`stream` argument), so its producer orders its own pending work first. A
refused or failed call raises `KernelError` with the library's message.
"""

from __future__ import annotations

import ctypes
import json
import re
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from . import dlpack
from .aot import AbiMismatchError, KernelError, _Buffer, _Tensor, _open_library

__all__ = ["GpuKernel", "GpuLibrary", "stream_handle"]

#: The ABI of GPU host libraries this loader speaks (docs/aot.md).
ABI_VERSION = 7
#: What device each target's kernels run on (DLPack device types).
DEVICE_TYPES = {"nvptx": dlpack.CUDA, "amdgpu": dlpack.ROCM}
#: Alignment the library requires of buffers and of the workspace.
BUFFER_ALIGN, WORKSPACE_ALIGN = 16, 256


def stream_handle(stream: Any) -> int:
    """The handle of `stream`: an int, a CuPy stream (`.ptr`), a PyTorch
    stream (`.cuda_stream`), or None (0: the default stream)."""
    if stream is None:
        return 0
    if isinstance(stream, int):
        return stream
    for attribute in ("ptr", "cuda_stream"):
        value = getattr(stream, attribute, None)
        if isinstance(value, int):
            return value
    raise TypeError(f"stream must be an int handle, a CuPy or PyTorch stream, or None; "
                    f"got {type(stream).__name__}")


class GpuKernel:
    """One public function of a GPU host library (see the module doc)."""

    def __init__(self, library: "GpuLibrary", meta: Dict[str, Any]) -> None:
        self.name = meta["name"]
        self.signature = meta["signature"]
        self.arguments = meta["arguments"]
        self.results = meta["results"]
        #: Device bytes the call needs for its temporaries (`workspace=`).
        self.workspace_bytes = int(meta["workspace_bytes"])
        #: The kernels one call enqueues, in order.
        self.kernels = [k["kernel"] for k in meta["kernels"]]
        self._library = library
        self._fn = getattr(library._dll, meta["symbol"])
        self._fn.restype = ctypes.c_int
        #: A sharded module's function takes a communicator (`comm=`).
        self.sharded = "grid" in library.metadata
        self.collectives = [s for s in meta.get("steps", []) if "collective" in s]
        count = len(self.arguments) + len(self.results)
        self._fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p] + \
            ([ctypes.c_void_p] if self.sharded else []) + \
            [ctypes.POINTER(_Tensor)] * count

    def __repr__(self) -> str:
        return f"<accel GPU kernel {self.signature} ({', '.join(self.kernels)})>"

    def _borrow(self, what: str, name: str, value: Any, stream: int) -> dlpack.View:
        library = self._library
        where = f"{dlpack.DEVICE_NAMES[library.device_type]}:{library.device}"
        if not (hasattr(value, "__dlpack__") and hasattr(value, "__dlpack_device__")):
            raise ValueError(f"{self.name}: {what} {name} must be a DLPack array on "
                             f"{where}, got {type(value).__name__}")
        kind, index = dlpack.device_of(value)
        if (kind, index) != (library.device_type, library.device):
            raise ValueError(
                f"{self.name}: {what} {name} is on "
                f"{dlpack.DEVICE_NAMES.get(kind, f'device type {kind}')}:{index}; the "
                f"library's kernels are loaded on {where}")
        # The consumer's stream (DLPack): CUDA's legacy default stream is 1,
        # ROCm's default 0.
        export = stream or (1 if library.device_type == dlpack.CUDA else 0)
        return dlpack.view(value, name, stream=export)

    def _check(self, what: str, spec: Dict[str, Any], name: str, view: dlpack.View,
               align: int = BUFFER_ALIGN) -> None:
        if view.dtype != spec["dtype"]:
            raise ValueError(f"{self.name}: {what} {name} must be {spec['dtype']}, got "
                             f"{view.dtype}")
        if tuple(view.shape) != tuple(spec["shape"]):
            shown = "x".join(map(str, spec["shape"]))
            raise ValueError(f"{self.name}: {what} {name} must have shape {shown}, got "
                             f"{'x'.join(map(str, view.shape)) or 'a scalar'}")
        if not view.contiguous():
            raise ValueError(f"{self.name}: {what} {name} has strides {view.strides} "
                             "(elements), not row-major contiguous; device arrays are "
                             "never copied")
        if view.data % align:
            raise ValueError(f"{self.name}: the data of {what} {name} is not aligned to "
                             f"{align} bytes")

    def __call__(self, *inputs: Any, out: Sequence[Any], workspace: Any = None,
                 stream: Any = None, comm: Any = None):
        """Enqueues the function on `stream` over `inputs` (device arrays),
        writing `out` (device arrays, one per result), and returns `out`
        (one array, or a tuple). A sharded module's function takes this
        rank's NCCL (RCCL) communicator as `comm=`: an int handle
        (ncclComm_t) or an object with an int `comm` attribute (CuPy's
        NcclCommunicator)."""
        if comm is not None and not self.sharded:
            raise TypeError(f"{self.name} is not sharded: it takes no communicator")
        handle_comm = comm if isinstance(comm, int) or comm is None else \
            getattr(comm, "comm", None)
        if comm is not None and not isinstance(handle_comm, int):
            raise TypeError(f"comm must be an int ncclComm_t or have an int 'comm' "
                            f"attribute, got {type(comm).__name__}")
        if len(inputs) != len(self.arguments):
            raise TypeError(f"{self.name} takes {len(self.arguments)} arrays, got "
                            f"{len(inputs)}")
        outs = list(out)
        if len(outs) != len(self.results):
            raise TypeError(f"{self.name} has {len(self.results)} results, got "
                            f"{len(outs)} out arrays")
        handle = stream_handle(stream)
        views: List[dlpack.View] = []
        try:
            tensors = []
            for i, (spec, value) in enumerate(zip(self.arguments, inputs)):
                views.append(self._borrow("argument", f"arg{i}", value, handle))
                self._check("argument", spec, f"arg{i}", views[-1])
                tensors.append(_tensor(views[-1]))
            for i, (spec, value) in enumerate(zip(self.results, outs)):
                views.append(self._borrow("result", f"result{i}", value, handle))
                if views[-1].readonly:
                    raise ValueError(f"{self.name}: out array result{i} is read-only")
                self._check("result", spec, f"result{i}", views[-1])
                tensors.append(_tensor(views[-1]))
            space = None
            if self.workspace_bytes:
                if workspace is None:
                    raise ValueError(
                        f"{self.name} needs a workspace of {self.workspace_bytes} bytes of "
                        "device memory aligned to 256 (workspace=, e.g. cupy.empty("
                        f"{self.workspace_bytes}, cupy.uint8))")
                views.append(self._borrow("workspace", "workspace", workspace, handle))
                view = views[-1]
                size = view.itemsize
                for n in view.shape:
                    size *= n
                if not view.contiguous() or size < self.workspace_bytes:
                    raise ValueError(f"{self.name}: the workspace must be a contiguous "
                                     f"array of at least {self.workspace_bytes} bytes, "
                                     f"got {size} bytes")
                if view.data % WORKSPACE_ALIGN:
                    raise ValueError(f"{self.name}: the workspace is not aligned to "
                                     f"{WORKSPACE_ALIGN} bytes")
                space = view.data
            head = [ctypes.c_void_p(handle or None), ctypes.c_void_p(space)]
            if self.sharded:
                head.append(ctypes.c_void_p(handle_comm or None))
            status = self._fn(*head, *[ctypes.byref(t) for t in tensors])
        finally:
            for view in views:
                view.release()
        if status != 0:
            raise KernelError(self.name, status, self._library.last_error())
        return outs[0] if len(outs) == 1 else tuple(outs)


def _tensor(view: dlpack.View) -> _Tensor:
    return _Buffer(view.data, view.shape, None).tensor()


class GpuLibrary:
    """A GPU host library written by `accel-compile --target=nvptx|amdgpu`,
    checked, opened and loaded on `device`; its functions by name."""

    def __init__(self, folder: Path, meta: Dict[str, Any], device: int = 0) -> None:
        self._dll = _open_library(folder, meta, tuple(DEVICE_TYPES), "functions",
                                  ABI_VERSION)
        module = meta["module"]
        self.folder, self.module, self.metadata = folder, module, meta
        self.target = meta["target"]
        self.device_type = DEVICE_TYPES[self.target]
        self._last_error = getattr(self._dll, f"accel_{module}_last_error")
        self._last_error.restype = ctypes.c_char_p
        self._load = getattr(self._dll, f"accel_{module}_load")
        self._load.argtypes = [ctypes.c_int]
        self._load.restype = ctypes.c_int
        self._unload = getattr(self._dll, f"accel_{module}_unload")
        self._unload.restype = None
        kernels = {}
        for f in meta["functions"] if isinstance(meta["functions"], list) else [None]:
            if not isinstance(f, dict) or not all(
                    key in f for key in ("name", "symbol", "signature", "arguments",
                                         "results", "workspace_bytes", "kernels")) or \
                    not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(f["name"])) or \
                    not re.fullmatch(rf"accel_{f['name']}_h[0-9a-f]{{16}}", str(f["symbol"])):
                raise AbiMismatchError(f"{folder}: malformed function entry in the "
                                       f"metadata: {f!r}"[:300])
            if not hasattr(self._dll, f["symbol"]):
                raise AbiMismatchError(f"{folder / meta['library']} has no {f['symbol']}: "
                                       f"not the function {f['signature']} of the metadata")
            kernels[f["name"]] = GpuKernel(self, f)
        self.kernels = kernels
        self.device = -1
        self.load(device)

    def release_communicator(self, comm: Any) -> None:
        """Destroys the communicators a sharded library split from `comm`
        (an int ncclComm_t, or an object with an int `comm` attribute);
        call it on every rank before destroying `comm`."""
        if "grid" not in self.metadata:
            raise TypeError(f"{self.module} is not sharded: it keeps no communicators")
        handle = comm if isinstance(comm, int) else getattr(comm, "comm", None)
        if not isinstance(handle, int):
            raise TypeError(f"comm must be an int ncclComm_t or have an int 'comm' "
                            f"attribute, got {type(comm).__name__}")
        release = getattr(self._dll, f"accel_{self.module}_release_communicator")
        release.argtypes = [ctypes.c_void_p]
        release.restype = ctypes.c_int
        release(ctypes.c_void_p(handle))

    def last_error(self) -> str:
        """The library's message about its last failure on this thread."""
        return (self._last_error() or b"").decode()

    def load(self, device: int = 0) -> None:
        """Opens the driver and loads the kernels on `device` (idempotent for
        one device; another needs `unload()` first). RuntimeError with the
        library's message when it cannot (no driver, a device whose chip
        cannot run the code, ...)."""
        status = self._load(int(device))
        if status != 0:
            raise RuntimeError(f"accel_{self.module}_load({device}) returned {status}: "
                               f"{self.last_error()}")
        self.device = int(device)

    def unload(self) -> None:
        """Unloads the kernels (a later call needs `load()` again)."""
        self._unload()
        self.device = -1

    def __getitem__(self, name: str) -> GpuKernel:
        try:
            return self.kernels[name]
        except KeyError:
            raise KeyError(f"{self.module} has no function {name!r} (it has "
                           f"{', '.join(self.kernels)})") from None

    def __repr__(self) -> str:
        return (f"<accel {self.target} library {self.module} on device {self.device}: "
                f"{', '.join(self.kernels)}>")


def find_metadata(folder: Path) -> Optional[Dict[str, Any]]:
    """The GPU host library metadata of `folder` (the JSON naming a library
    and its functions), or None."""
    found = []
    for path in sorted(folder.glob("*.json")):
        try:
            meta = json.loads(path.read_text())
        except (json.JSONDecodeError, UnicodeDecodeError):
            continue
        if isinstance(meta, dict) and "library" in meta and "functions" in meta:
            found.append(meta)
    return found[0] if len(found) == 1 else None
