#!/usr/bin/env python3
"""The ahead-of-time Python example (docs/aot.md): builds a causal
grouped-query attention with `accel.ir`, compiles it into a CPU library with
`accel.aot.compile` (accel-compile --target=cpu), loads it with
`accel.aot.load` (checks the library's ABI version, identity and CPU
features) and runs it on numpy arrays, then checks the result against a
float64 attention held to the attention gate of docs/numerics.md.

    python3 examples/attention_aot.py [--features host|''] [--out DIR]
                                      [--heads 8 --kv-heads 2 --seq 200 --dim 64]

Exits 0 when the result is within the gate, 1 when not.
"""
import argparse
import math
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from accel import aot, ir  # noqa: E402


def reference(q, k, v):
    """float64 causal attention (bottom-right aligned, Sq = Skv here), its
    largest |logit| and |v| for the gate."""
    b, hq, s, d = q.shape
    group = hq // k.shape[1]
    kk = np.repeat(k.astype(np.float64), group, axis=1)
    vv = np.repeat(v.astype(np.float64), group, axis=1)
    logits = q.astype(np.float64) @ kk.transpose(0, 1, 3, 2) / math.sqrt(d)
    keep = np.tril(np.ones((s, s), dtype=bool))
    max_logit = float(np.abs(logits[..., keep]).max())
    logits = np.where(keep, logits, -np.inf)
    p = np.exp(logits - logits.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    return p @ vv, max_logit, float(np.abs(vv).max())


def attention_function(hq, hkv, s, d, b=1):
    """The causal GQA attention f32 function the examples compile."""
    f = ir.Function("attention")
    q = f.arg((b, hq, s, d), "f32")
    k = f.arg((b, hkv, s, d), "f32")
    v = f.arg((b, hkv, s, d), "f32")
    f.ret(f.attention(q, k, v, causal=True, out_dtype="f32"))
    return f


def gate(s, max_logit, max_v):
    """docs/numerics.md, attention, f32 output: atol + the rounding of large
    logits + the output's rounding and the f32 sum over the keys."""
    u = 2.0 ** -24
    return 1e-5 + 2 * max_v * 2 * u * max_logit + (u + 2 * math.sqrt(s) * u) * max_v


def check_attention(label, q, k, v, o):
    """`o` against a float64 attention of q, k, v and the gate above;
    prints "attention <label>: max error ..., tolerance ...: PASS|FAIL" and
    returns whether it passes."""
    ref, max_logit, max_v = reference(q, k, v)
    err = float(np.nan_to_num(np.abs(o.astype(np.float64) - ref), nan=np.inf).max())
    tol = gate(q.shape[2], max_logit, max_v)
    ok = err <= tol
    print(f"attention {label}: max error {err:.3g}, tolerance {tol:.3g}: "
          f"{'PASS' if ok else 'FAIL'}")
    return ok


def check_block(framework, q, k, v, o, y, wo):
    """The framework examples' checks, on numpy copies of what the compiled
    block computed: its attention output `o` against a float64 attention of
    the operands it was given (the gate above), and the block's output `y`
    against float64 o @ Wo (the f32 matmul gate gamma_K |o||Wo|). Prints
    both and returns whether both pass."""
    _, hq, s, d = q.shape
    model = hq * d
    ok = check_attention(f"in {framework} Hq={hq} Hkv={k.shape[1]} S={s} D={d} causal f32",
                         q, k, v, o)
    o2 = o.astype(np.float64)[0].transpose(1, 0, 2).reshape(s, model)
    wo = wo.astype(np.float64)
    u = 2.0 ** -24
    gamma = model * u / (1 - model * u)
    bound = gamma * float((np.abs(o2) @ np.abs(wo)).max())
    block_err = float(np.nan_to_num(np.abs(y.astype(np.float64) - o2 @ wo),
                                    nan=np.inf).max())
    block_ok = block_err <= bound
    print(f"block output (attention in accel, projections in {framework.split('.')[0]}): "
          f"max error {block_err:.3g}, bound {bound:.3g}: {'PASS' if block_ok else 'FAIL'}")
    return ok and block_ok


def arguments(doc, seq=200):
    """The examples' command line."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--features", default="host",
                    help="accel-compile --features ('' for baseline x86-64)")
    ap.add_argument("--out", default=None, help="folder for the artifacts")
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--kv-heads", type=int, default=2)
    ap.add_argument("--seq", type=int, default=seq)
    ap.add_argument("--dim", type=int, default=64)
    return ap.parse_args()


def main():
    args = arguments(__doc__)
    b, hq, hkv, s, d = 1, args.heads, args.kv_heads, args.seq, args.dim
    f = attention_function(hq, hkv, s, d, b)

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(args.out) if args.out else Path(tmp) / "aot"
        art = aot.compile(f, target="cpu", out_dir=out, name="attention_py",
                          features=args.features or None)
        lib = aot.load(art)
        print(f"library: {lib.metadata['info']}")
        rng = np.random.default_rng(0)
        qa, ka, va = (rng.standard_normal(shape).astype(np.float32)
                      for shape in ((b, hq, s, d), (b, hkv, s, d), (b, hkv, s, d)))
        o = lib["attention"](qa, ka, va)

    ok = check_attention(f"B={b} Hq={hq} Hkv={hkv} S={s} D={d} causal f32", qa, ka, va, o)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
