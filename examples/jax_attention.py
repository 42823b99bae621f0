#!/usr/bin/env python3
"""An accel kernel inside a jitted JAX function (docs/python.md, "JAX").

Builds a causal grouped-query attention with `accel.ir`, compiles it into a
CPU library (`accel.aot.compile`), loads it, and wraps its entry point with
`accel.jax.kernel`: a JAX function that XLA runs as an FFI custom call. A
jitted attention block then does its projections in JAX and the attention
in accel's kernel, reading and writing XLA's buffers in place. The
attention output, taken from inside the jitted function, is checked
against a float64 attention of the same operands held to the attention
gate of docs/numerics.md, and the block's output against float64 o @ Wo
from that output (the f32 matmul gate).

    python3 examples/jax_attention.py [--heads 8 --kv-heads 2 --seq 256 --dim 64]

Runs from a source checkout (with build/) or with the package installed
(pip install ./python, then jax). Exits 0 when within the gates, 1 when not.
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

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

import accel.jax as ajax  # noqa: E402
from accel import aot  # noqa: E402

from attention_aot import (arguments, attention_function,  # noqa: E402
                           check_block)  # (examples/attention_aot.py)


def main():
    args = arguments(__doc__, seq=256)
    hq, hkv, s, d = args.heads, args.kv_heads, args.seq, args.dim
    model = hq * d
    with tempfile.TemporaryDirectory() as tmp:
        lib = aot.load(aot.compile(attention_function(hq, hkv, s, d), target="cpu",
                                   out_dir=Path(tmp) / "aot", name="jax_attention",
                                   features=args.features or None))
    attention = ajax.kernel(lib["attention"])
    print(f"library: {lib.metadata['info']}")

    def heads(x, n):  # (S, n*d) -> (1, n, S, d)
        return x.reshape(s, n, d).transpose(1, 0, 2)[None]

    @jax.jit
    def block(x, wq, wk, wv, wo):
        qh, kh, vh = heads(x @ wq, hq), heads(x @ wk, hkv), heads(x @ wv, hkv)
        o = attention(qh, kh, vh)                       # accel's kernel
        y = o[0].transpose(1, 0, 2).reshape(s, model) @ wo
        return y, (qh, kh, vh, o)

    rng = np.random.default_rng(0)
    x = rng.standard_normal((s, model)).astype(np.float32)
    scale = 1.0 / math.sqrt(model)
    ws = [(rng.standard_normal((model, n)) * scale).astype(np.float32)
          for n in (model, hkv * d, hkv * d, model)]
    y, (qh, kh, vh, o) = jax.block_until_ready(block(jnp.asarray(x), *map(jnp.asarray, ws)))
    # On the very operands XLA gave the kernel, and what flowed on from it.
    ok = check_block("jax.jit", *(np.asarray(t) for t in (qh, kh, vh, o, y)), ws[3])
    return 0 if ok else 1

if __name__ == "__main__":
    sys.exit(main())
