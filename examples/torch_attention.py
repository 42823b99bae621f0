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
from accel import aot  # noqa: E402

from attention_aot import (arguments, attention_function,  # noqa: E402
                           check_block)  # (examples/attention_aot.py)


def main():
    args = arguments(__doc__, seq=256)
    hq, hkv, s, d = args.heads, args.kv_heads, args.seq, args.dim
    model = hq * d
    with tempfile.TemporaryDirectory() as tmp:
        lib = aot.load(aot.compile(attention_function(hq, hkv, s, d), target="cpu",
                                   out_dir=Path(tmp) / "aot", name="torch_attention",
                                   features=args.features or None))
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
    ok = check_block("torch.compile", *(t.numpy() for t in (qh, kh, vh, o, y)),
                     ws[3].numpy())
    return 0 if ok else 1

if __name__ == "__main__":
    sys.exit(main())
