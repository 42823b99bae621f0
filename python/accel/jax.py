"""accel CPU kernels inside JAX programs, through XLA's FFI.

    import jax
    from accel import aot
    import accel.jax as ajax

    lib = aot.load(aot.compile(f, target="cpu", out_dir="aot", features="host"))
    attention = ajax.kernel(lib["attention"])

    @jax.jit
    def block(q, k, v):
        return attention(q, k, v) * 2.0

`kernel(cpu_kernel)` returns a function of JAX arrays that XLA runs as a
custom call (`jax.ffi.ffi_call`): inside `jax.jit` the kernel reads XLA's
buffers and writes its results straight into XLA's result buffers, with no
copy and no Python on the way. Outside a jit it runs as any JAX op. The
handler is one C++ function (python/src/JaxFfi.cpp, `libaccel_jax_ffi.so`,
built with the package against the XLA FFI headers jaxlib ships) that
calls the entry point of the C ABI (docs/aot.md) whose address the call
carries.

The operands' dtypes and shapes are checked against the library's
metadata when the call is traced (a ValueError naming the argument); the
library's wrapper checks the sizes again at every call, and a refused call
raises JAX's runtime error with the kernel's status. Results with dynamic
dimensions need `result_shapes`. Under `jax.vmap` the kernel runs once per
batch element (`vmap_method="sequential"`), unless another method is given.

Needs jax (`pip install accel[jax]`); the kernels run on the CPU backend
only (a jitted function placed on a GPU has no handler for them).
"""

from __future__ import annotations

import ctypes
import os
import threading
from pathlib import Path
from typing import Any, Dict, Optional, Sequence

import jax
import numpy as np

from . import aot

__all__ = ["TARGET", "JaxKernel", "handler_library", "kernel"]

#: The name the handler is registered under (platform "cpu").
TARGET = "accel_cpu_call"
_LIBRARY = "libaccel_jax_ffi.so"

_lock = threading.Lock()
_handler: Optional[ctypes.CDLL] = None


def handler_library() -> Path:
    """The path of the XLA FFI handler library: installed next to this
    package, else in `$ACCEL_BUILD_DIR/python/accel/` (default
    `<repo>/build`); FileNotFoundError when it was not built (no jaxlib
    when the package was configured)."""
    here = Path(__file__).resolve().parent
    build = Path(os.environ.get("ACCEL_BUILD_DIR") or here.parents[1] / "build")
    for path in (here / _LIBRARY, build / "python" / "accel" / _LIBRARY):
        if path.is_file():
            return path
    raise FileNotFoundError(
        f"{_LIBRARY} is not built: the package looks for it in {here} and in "
        f"{build / 'python' / 'accel'}; it is built when jax is installed in the "
        "Python the package is configured with (pip install ./python, or "
        "scripts/setup.sh)")


def _register() -> ctypes.CDLL:
    """The handler library, registered with XLA on first use."""
    global _handler
    with _lock:
        if _handler is None:
            library = ctypes.CDLL(str(handler_library()))
            library.AccelXlaAllow.argtypes = [ctypes.c_int64]
            library.AccelXlaAllow.restype = None
            jax.ffi.register_ffi_target(TARGET, jax.ffi.pycapsule(library.AccelXlaCall),
                                        platform="cpu")
            _handler = library
        return _handler


class JaxKernel:
    """An accel CPU kernel as a JAX function (see the module doc)."""

    def __init__(self, cpu_kernel: aot.CpuKernel, *,
                 result_shapes: Optional[Sequence[Sequence[int]]] = None,
                 vmap_method: Optional[str] = "sequential") -> None:
        if not isinstance(cpu_kernel, aot.CpuKernel):
            raise TypeError(f"kernel() takes an accel.aot.CpuKernel (lib['name']), not "
                            f"{type(cpu_kernel).__name__}")
        handler = _register()
        self.cpu_kernel = cpu_kernel
        self.name = cpu_kernel.name
        self._entry = np.int64(cpu_kernel.address)
        # The handler calls only the entry points allowed here (the library
        # stays loaded: ctypes never unloads it, and this holds it).
        handler.AccelXlaAllow(self._entry)
        self._vmap_method = vmap_method
        results = cpu_kernel.results
        if result_shapes is not None:
            result_shapes = [tuple(int(n) for n in s) for s in result_shapes]
            if len(result_shapes) != len(results):
                raise ValueError(f"{self.name} has {len(results)} results, got "
                                 f"{len(result_shapes)} result_shapes")
            for spec, shape in zip(results, result_shapes):
                _check_shape(self.name, "result", spec, shape)
        else:
            dynamic = [r["name"] for r in results if any(s is None for s in r["shape"])]
            if dynamic:
                raise ValueError(f"{self.name}: result {dynamic[0]} has dynamic dimensions; "
                                 "pass result_shapes=[...]")
            result_shapes = [tuple(r["shape"]) for r in results]
        self._results = [jax.ShapeDtypeStruct(shape, aot._numpy_dtype(spec["dtype"]))
                         for spec, shape in zip(results, result_shapes)]
        self._call = jax.ffi.ffi_call(TARGET, self._results, vmap_method=vmap_method)

    def __repr__(self) -> str:
        return f"<accel JAX kernel {self.cpu_kernel.signature}>"

    def __call__(self, *args: Any):
        kernel = self.cpu_kernel
        if len(args) != len(kernel.arguments):
            raise TypeError(f"{self.name} takes {len(kernel.arguments)} arrays, got "
                            f"{len(args)}")
        for spec, value in zip(kernel.arguments, args):
            dtype = np.dtype(getattr(value, "dtype", None) or np.asarray(value).dtype)
            want = aot._numpy_dtype(spec["dtype"])
            if dtype != want:
                raise ValueError(f"{self.name}: argument {spec['name']} must be "
                                 f"{spec['dtype']} ({want}), got {dtype}")
            _check_shape(self.name, "argument", spec, tuple(np.shape(value)))
        out = self._call(*args, entry=self._entry, kernel=self.name)
        return out[0] if len(out) == 1 else tuple(out)


def _check_shape(name: str, what: str, spec: Dict[str, Any], shape: Sequence[int]) -> None:
    want = spec["shape"]
    if len(shape) != len(want) or any(s is not None and s != n for s, n in zip(want, shape)):
        shown = "x".join("?" if s is None else str(s) for s in want)
        raise ValueError(f"{name}: {what} {spec['name']} must have shape {shown}, got "
                         f"{'x'.join(map(str, shape)) or 'a scalar'}")


def kernel(cpu_kernel: aot.CpuKernel, *,
           result_shapes: Optional[Sequence[Sequence[int]]] = None,
           vmap_method: Optional[str] = "sequential") -> JaxKernel:
    """`cpu_kernel` (an entry point of a library `accel.aot.load` loaded)
    as a function of JAX arrays, usable inside `jax.jit`."""
    return JaxKernel(cpu_kernel, result_shapes=result_shapes, vmap_method=vmap_method)
