"""accel CPU kernels as PyTorch custom ops (`torch.library`).

    import torch
    from accel import aot
    import accel.torch as atorch

    lib = aot.load(aot.compile(f, target="cpu", out_dir="aot", features="host"))
    attention = atorch.register(lib["attention"])        # torch.ops.accel.attention

    @torch.compile
    def block(q, k, v):
        return attention(q, k, v) * 2.0

`register(cpu_kernel)` defines the custom op `accel::<name>` (the
namespace and name can be chosen) whose schema is the kernel's signature
(`(Tensor arg0, Tensor arg1) -> Tensor`), with

- a CPU implementation that calls the kernel on the tensors' memory in
  place (numpy views of the CPU tensors, bf16 and fp8 through integer
  views: contiguous tensors are not copied; others are, with accel.aot's
  CopyWarning) and returns its results as tensors over the arrays it
  allocated (no copy);
- a fake (meta) implementation that checks the operands' dtypes and shapes
  against the library's metadata (a ValueError naming the argument) and
  returns empty tensors of the results' shapes, so the op traces under
  `torch.compile` (Dynamo, FakeTensor) and `torch.export`.

Results with dynamic dimensions need `result_shapes`. The op has no
autograd formula: tensors that require grad are refused by PyTorch.
Needs torch (optional: the rest of the package does not import it).
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Sequence

import numpy as np
import torch

from . import aot

__all__ = ["register"]

# Element types of the C ABI -> torch dtypes.
_DTYPES = {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16,
           "bf16": torch.bfloat16, "i8": torch.int8, "i16": torch.int16,
           "i32": torch.int32, "i64": torch.int64, "i1": torch.bool}
for _name, _attr in (("f8E4M3FN", "float8_e4m3fn"), ("f8E5M2", "float8_e5m2"),
                     ("f8E4M3FNUZ", "float8_e4m3fnuz"), ("f8E5M2FNUZ", "float8_e5m2fnuz")):
    if hasattr(torch, _attr):
        _DTYPES[_name] = getattr(torch, _attr)

_registered: Dict[str, Any] = {}


def _torch_dtype(kernel: str, dtype: str) -> torch.dtype:
    if dtype not in _DTYPES:
        raise ValueError(f"{kernel}: element type {dtype} has no torch dtype")
    return _DTYPES[dtype]


def _check(kernel: aot.CpuKernel, args: Sequence[torch.Tensor]) -> None:
    if len(args) != len(kernel.arguments):
        raise TypeError(f"{kernel.name} takes {len(kernel.arguments)} tensors, got "
                        f"{len(args)}")
    for spec, value in zip(kernel.arguments, args):
        want = _torch_dtype(kernel.name, spec["dtype"])
        if value.dtype != want:
            raise ValueError(f"{kernel.name}: argument {spec['name']} must be "
                             f"{spec['dtype']} ({want}), got {value.dtype}")
        shape = tuple(value.shape)
        if len(shape) != len(spec["shape"]) or any(
                s is not None and s != n for s, n in zip(spec["shape"], shape)):
            shown = "x".join("?" if s is None else str(s) for s in spec["shape"])
            raise ValueError(f"{kernel.name}: argument {spec['name']} must have shape "
                             f"{shown}, got {'x'.join(map(str, shape)) or 'a scalar'}")
        if value.device.type != "cpu":
            raise ValueError(f"{kernel.name}: argument {spec['name']} is on {value.device}; "
                             "an accel CPU kernel reads host memory")


def _host_array(tensor: torch.Tensor, dtype: str) -> np.ndarray:
    """A numpy array over a CPU tensor's memory (no copy; bf16 and fp8
    through an integer view), which the kernel's fast path takes."""
    if dtype == "bf16":
        return tensor.view(torch.int16).numpy().view(aot._numpy_dtype(dtype))
    if dtype.startswith("f8"):
        return tensor.view(torch.uint8).numpy().view(aot._numpy_dtype(dtype))
    return tensor.numpy()


def _as_tensor(array: np.ndarray, dtype: str) -> torch.Tensor:
    """A tensor over `array`'s memory (no copy)."""
    if dtype == "bf16":
        return torch.from_numpy(array.view(np.int16)).view(torch.bfloat16)
    if dtype.startswith("f8"):
        return torch.from_numpy(array.view(np.uint8)).view(_DTYPES[dtype])
    return torch.from_numpy(array)


def register(cpu_kernel: aot.CpuKernel, name: Optional[str] = None, *,
             namespace: str = "accel",
             result_shapes: Optional[Sequence[Sequence[int]]] = None):
    """Registers `cpu_kernel` (an entry point of a library `accel.aot.load`
    loaded) as the custom op `namespace::name` (default `accel::<its
    name>`) and returns it (`torch.ops.<namespace>.<name>`). Registering
    the same kernel under the same name again returns the op; another
    kernel under a taken name is a ValueError."""
    if not isinstance(cpu_kernel, aot.CpuKernel):
        raise TypeError(f"register() takes an accel.aot.CpuKernel (lib['name']), not "
                        f"{type(cpu_kernel).__name__}")
    name = name or cpu_kernel.name
    for part in (namespace, name):
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", part):
            raise ValueError(f"{part!r} is not a valid op name part")
    qualname = f"{namespace}::{name}"
    if qualname in _registered:
        kernel, op = _registered[qualname]
        if kernel is not cpu_kernel:
            raise ValueError(f"{qualname} is registered for another kernel "
                             f"({kernel.signature})")
        return op
    results = cpu_kernel.results
    if result_shapes is None:
        dynamic = [r["name"] for r in results if any(s is None for s in r["shape"])]
        if dynamic:
            raise ValueError(f"{cpu_kernel.name}: result {dynamic[0]} has dynamic "
                             "dimensions; pass result_shapes=[...]")
        shapes: List[tuple] = [tuple(r["shape"]) for r in results]
    else:
        shapes = [tuple(int(n) for n in s) for s in result_shapes]
        if len(shapes) != len(results):
            raise ValueError(f"{cpu_kernel.name} has {len(results)} results, got "
                             f"{len(shapes)} result_shapes")
    out_dtypes = [_torch_dtype(cpu_kernel.name, r["dtype"]) for r in results]
    params = ", ".join(f"Tensor {a['name']}" for a in cpu_kernel.arguments)
    returns = "Tensor" if len(results) == 1 else \
        "(" + ", ".join("Tensor" for _ in results) + ")"
    schema = f"({params}) -> {returns}"

    def implementation(*args: torch.Tensor):
        _check(cpu_kernel, args)
        arrays = [_host_array(t, a["dtype"]) for t, a in zip(args, cpu_kernel.arguments)]
        if result_shapes is None:
            outs = cpu_kernel(*arrays)
        else:
            outs = cpu_kernel(*arrays, out=[np.empty(s, aot._numpy_dtype(r["dtype"]))
                                            for s, r in zip(shapes, results)])
        outs = outs if isinstance(outs, tuple) else (outs,)
        tensors = tuple(_as_tensor(o, r["dtype"]) for o, r in zip(outs, results))
        return tensors[0] if len(tensors) == 1 else tensors

    def fake(*args: torch.Tensor):
        _check(cpu_kernel, args)
        tensors = tuple(args[0].new_empty(s, dtype=d) if args else
                        torch.empty(s, dtype=d) for s, d in zip(shapes, out_dtypes))
        return tensors[0] if len(tensors) == 1 else tensors

    op = torch.library.custom_op(qualname, implementation, mutates_args=(),
                                 device_types="cpu", schema=schema)
    op.register_fake(fake)
    _registered[qualname] = (cpu_kernel, op)
    return op
