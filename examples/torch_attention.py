#!/usr/bin/env python3
"""An accel kernel inside a compiled PyTorch function (docs/python.md,
"PyTorch").

Builds a causal grouped-query attention with `accel.ir`, compiles it into a
CPU library (`accel.aot.compile`), loads it, and registers its entry point
as the custom op `torch.ops.accel.attention` (`accel.torch.register`). A
`torch.compile(fullgraph=True)` attention block then does its projections in
PyTorch and the attention in accel's kernel. The attention output, taken
from inside the compiled function, is checked against a float64 attention
of the same operands held to the attention gate of docs/numerics.md, and
the block's output against float64 o @ Wo from that output (the f32
matmul gate).

    python3 examples/torch_attention.py [--heads 8 --kv-heads 2 --seq 256 --dim 64]

Needs torch. Exits 0 when within the gates, 1 when not.
"""
import argparse
import math
import sys
import tempfile
from pathlib import Path

import numpy as np

try:
    import accel  # noqa: F401  (installed: pip install ./python)
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

import torch  # noqa: E402

import accel.torch as atorch  # noqa: E402
from accel import aot, ir  # noqa: E402

from attention_aot import reference  # noqa: E402  (examples/attention_aot.py)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--kv-heads", type=int, default=2)
    ap.add_argument("--seq", type=int, default=256)
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--features", default="host")
    args = ap.parse_args()
    hq, hkv, s, d = args.heads, args.kv_heads, args.seq, args.dim
    model = hq * d

    f = ir.Function("attention")
    q = f.arg((1, hq, s, d), "f32")
    k = f.arg((1, hkv, s, d), "f32")
    v = f.arg((1, hkv, s, d), "f32")
    f.ret(f.attention(q, k, v, causal=True, out_dtype="f32"))
    with tempfile.TemporaryDirectory() as tmp:
        lib = aot.load(aot.compile(f, target="cpu", out_dir=Path(tmp) / "aot",
                                   name="torch_attention", features=args.features or None))
    attention = atorch.register(lib["attention"])
    print(f"library: {lib.metadata['info']}")

    def heads(x, n):  # (S, n*d) -> (1, n, S, d)
        return x.reshape(s, n, d).transpose(0, 1).unsqueeze(0).contiguous()

    @torch.compile(fullgraph=True)
    def block(x, wq, wk, wv, wo):
        qh, kh, vh = heads(x @ wq, hq), heads(x @ wk, hkv), heads(x @ wv, hkv)
        o = attention(qh, kh, vh)                       # accel's kernel
        y = o[0].transpose(0, 1).reshape(s, model) @ wo
        return y, qh, kh, vh, o

    gen = torch.Generator().manual_seed(0)
    x = torch.randn(s, model, generator=gen)
    scale = 1.0 / math.sqrt(model)
    ws = [torch.randn(model, n, generator=gen) * scale
          for n in (model, hkv * d, hkv * d, model)]
    with torch.no_grad():
        y, qh, kh, vh, o = block(x, *ws)

    ref, max_logit, max_v = reference(qh.numpy(), kh.numpy(), vh.numpy())
    err = float(np.nan_to_num(np.abs(o.numpy().astype(np.float64) - ref), nan=np.inf).max())
    u = 2.0 ** -24
    tol = 1e-5 + 2 * max_v * 2 * u * max_logit + (u + 2 * math.sqrt(s) * u) * max_v
    ok = err <= tol
    print(f"attention in torch.compile Hq={hq} Hkv={hkv} S={s} D={d} causal f32: max error "
          f"{err:.3g}, tolerance {tol:.3g}: {'PASS' if ok else 'FAIL'}")

    o2 = o.numpy().astype(np.float64)[0].transpose(1, 0, 2).reshape(s, model)
    wo = ws[3].numpy().astype(np.float64)
    gamma = model * u / (1 - model * u)
    bound = gamma * float((np.abs(o2) @ np.abs(wo)).max())
    block_err = float(np.nan_to_num(np.abs(y.numpy().astype(np.float64) - o2 @ wo),
                                    nan=np.inf).max())
    block_ok = block_err <= bound
    print(f"block output (attention in accel, projections in PyTorch): max error "
          f"{block_err:.3g}, bound {bound:.3g}: {'PASS' if block_ok else 'FAIL'}")
    return 0 if ok and block_ok else 1


if __name__ == "__main__":
    sys.exit(main())
