"""Reading arrays through the DLPack protocol, without copies.

`view(obj, name)` takes anything with `__dlpack__` / `__dlpack_device__`
(JAX, PyTorch, CuPy, numpy >= 1.22 arrays, ...) and returns a `View`: the
data pointer, shape, strides (in elements), element type (in MLIR spelling:
f32, bf16, f8E4M3FN, ...), device and read-only flag of the producer's
memory, with the producer's tensor held until `release()` (or the end of a
`with` block). Nothing is copied; the DLPack capsule is read with ctypes, so
bf16 and fp8 arrays work too (numpy's own `from_dlpack` refuses them).

The versioned protocol (DLPack 1.x, `__dlpack__(max_version=(1, 0))`) is
asked for first: it carries the read-only flag. Producers that only speak
the original protocol give a tensor whose writability is unknown
(`readonly` is None).
"""

from __future__ import annotations

import ctypes
import struct
from typing import Any, Dict, Optional, Tuple

__all__ = ["CPU", "CUDA", "CUDA_HOST", "DEVICE_NAMES", "ROCM", "View", "device_of",
           "view"]

# DLDeviceType
CPU, CUDA, CUDA_HOST, ROCM = 1, 2, 3, 10
DEVICE_NAMES = {1: "cpu", 2: "cuda", 3: "cuda_host", 4: "opencl", 7: "vulkan",
                8: "metal", 9: "vpi", 10: "rocm", 11: "rocm_host", 13: "cuda_managed",
                14: "oneapi"}

# (DLDataTypeCode, bits) -> MLIR element type.
_DTYPES = {
    (0, 8): "i8", (0, 16): "i16", (0, 32): "i32", (0, 64): "i64",
    (1, 8): "ui8", (1, 16): "ui16", (1, 32): "ui32", (1, 64): "ui64",
    (2, 16): "f16", (2, 32): "f32", (2, 64): "f64",
    (4, 16): "bf16", (6, 8): "i1",
    (7, 8): "f8E3M4", (8, 8): "f8E4M3", (9, 8): "f8E4M3B11FNUZ", (10, 8): "f8E4M3FN",
    (11, 8): "f8E4M3FNUZ", (12, 8): "f8E5M2", (13, 8): "f8E5M2FNUZ",
}

_READ_ONLY = 1  # DLPACK_FLAG_BITMASK_READ_ONLY


# The DLPack structs, read with struct (the C layouts on a 64-bit ABI).
# DLTensor: data, device (type, id), ndim, dtype (code, bits, lanes),
# shape, strides, byte_offset.
_TENSOR = struct.Struct("<QiiiBBHQQQ")
_DELETER = struct.Struct("<Q")
# DLManagedTensorVersioned's head: version, manager_ctx, deleter, flags.
_VERSIONED_HEAD = struct.Struct("<IIQQQ")

_DELETER_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_deleters: Dict[int, Any] = {}


def _deleter(address: int) -> Any:
    """The deleter at `address` as a callable (made once per address)."""
    fn = _deleters.get(address)
    if fn is None:
        fn = _deleters[address] = _DELETER_TYPE(address)
    return fn


_api = ctypes.pythonapi
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]

# The names a consumed capsule takes (the protocol's rule: its destructor then
# leaves the tensor to the consumer, which calls the deleter).
_USED = {b"dltensor": b"used_dltensor", b"dltensor_versioned": b"used_dltensor_versioned"}


def device_of(obj: Any) -> Tuple[int, int]:
    """(DLDeviceType, device id) of `obj`'s `__dlpack_device__`."""
    device_type, device_id = obj.__dlpack_device__()
    return int(device_type), int(device_id)


class View:
    """A producer's tensor, borrowed through DLPack (see the module doc):
    `name`, `data` (the first element's address), `shape`, `strides` (in
    elements; the compact row-major strides when the producer gave none),
    `dtype` (MLIR spelling), `itemsize`, `device` ((DLDeviceType, id)) and
    `readonly` (True / False from a versioned tensor's flags; None:
    unknown)."""

    __slots__ = ("name", "data", "shape", "strides", "dtype", "itemsize", "device",
                 "readonly", "_managed", "_deleter")

    def __init__(self, name: str, data: int, shape: Tuple[int, ...],
                 strides: Tuple[int, ...], dtype: str, itemsize: int,
                 device: Tuple[int, int], readonly: Optional[bool], managed: int = 0,
                 deleter: int = 0) -> None:
        self.name, self.data, self.shape, self.strides = name, data, shape, strides
        self.dtype, self.itemsize, self.device, self.readonly = dtype, itemsize, device, \
            readonly
        self._managed, self._deleter = managed, deleter

    def __repr__(self) -> str:
        return (f"View(name={self.name!r}, data={self.data:#x}, shape={self.shape}, "
                f"strides={self.strides}, dtype={self.dtype!r}, device={self.device}, "
                f"readonly={self.readonly})")

    def release(self) -> None:
        """Hands the tensor back to its producer (calls its deleter once)."""
        if self._deleter and self._managed:
            _deleter(self._deleter)(self._managed)
        self._managed = self._deleter = 0

    def __enter__(self) -> "View":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release()

    def __del__(self) -> None:
        self.release()

    @property
    def device_name(self) -> str:
        kind, index = self.device
        return f"{DEVICE_NAMES.get(kind, f'device type {kind}')}:{index}"

    def contiguous(self) -> bool:
        """Row-major contiguous (dimensions of size 1 may have any stride)."""
        expected = 1
        for n, s in zip(reversed(self.shape), reversed(self.strides)):
            if n != 1 and s != expected:
                return False
            expected *= n
        return True


def _capsule(obj: Any, name: str, stream: Optional[int]) -> Tuple[Any, bytes]:
    extra = {} if stream is None else {"stream": stream}
    try:
        capsule = obj.__dlpack__(max_version=(1, 0), **extra)
    except TypeError:
        # A producer of the original protocol (no max_version keyword).
        capsule = obj.__dlpack__(**extra)
    for kind in (b"dltensor_versioned", b"dltensor"):
        if _api.PyCapsule_IsValid(capsule, kind):
            return capsule, kind
    raise ValueError(f"{name}: __dlpack__ returned no unconsumed DLPack capsule")


def view(obj: Any, name: str = "array", stream: Optional[int] = None) -> View:
    """Borrows `obj`'s memory through DLPack; ValueError (naming `name`) for
    an element type accel has no name for, vector lanes, or a producer
    that breaks the protocol. `stream`: the consumer's stream for a device
    array (DLPack's argument: the producer orders its pending work on the
    array before that stream's next work); None for host arrays."""
    if not hasattr(obj, "__dlpack__"):
        raise TypeError(f"{name}: {type(obj).__name__} has no __dlpack__")
    capsule, kind = _capsule(obj, name, stream)
    pointer = _api.PyCapsule_GetPointer(capsule, kind)
    if kind == b"dltensor_versioned":
        # DLManagedTensorVersioned: version (major, minor), manager_ctx,
        # deleter, flags, then the DLTensor.
        major, minor, _, deleter, flags = _VERSIONED_HEAD.unpack(
            ctypes.string_at(pointer, _VERSIONED_HEAD.size))
        if major != 1:
            raise ValueError(f"{name}: DLPack version {major}.{minor}, accel reads 1.x")
        readonly: Optional[bool] = bool(flags & _READ_ONLY)
        tensor_at = pointer + _VERSIONED_HEAD.size
    else:
        # DLManagedTensor: the DLTensor, manager_ctx, deleter.
        (deleter,) = _DELETER.unpack(ctypes.string_at(pointer + _TENSOR.size + 8, 8))
        readonly = None
        tensor_at = pointer
    # From here on the tensor is ours to hand back (View.release).
    _api.PyCapsule_SetName(capsule, _USED[kind])
    (data, device_type, device_id, ndim, code, bits, lanes, shape_at, strides_at,
     byte_offset) = _TENSOR.unpack(ctypes.string_at(tensor_at, _TENSOR.size))
    result = View(name, 0, (), (), "", 0, (device_type, device_id), readonly, pointer,
                  deleter or 0)
    dtype = _DTYPES.get((code, bits))
    if dtype is None or lanes != 1:
        result.release()
        raise ValueError(f"{name}: DLPack element type (code {code}, {bits} bits, "
                         f"{lanes} lanes) has no accel element type")
    shape = struct.unpack(f"<{ndim}q", ctypes.string_at(shape_at, 8 * ndim)) \
        if ndim else ()
    if strides_at:
        strides = struct.unpack(f"<{ndim}q", ctypes.string_at(strides_at, 8 * ndim)) \
            if ndim else ()
    else:
        steps, step = [], 1
        for n in reversed(shape):
            steps.append(step)
            step *= n
        strides = tuple(reversed(steps))
    result.data = (data or 0) + byte_offset
    result.shape, result.strides, result.dtype = shape, strides, dtype
    result.itemsize = max(1, bits // 8)
    return result
