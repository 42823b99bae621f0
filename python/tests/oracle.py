"""float64 references and gates the framework tests share."""

import math

import numpy as np


def attention64(q, k, v):
    group = q.shape[1] // k.shape[1]
    kk = np.repeat(k.astype(np.float64), group, axis=1)
    vv = np.repeat(v.astype(np.float64), group, axis=1)
    s = q.shape[2]
    logits = q.astype(np.float64) @ kk.transpose(0, 1, 3, 2) / math.sqrt(q.shape[-1])
    keep = np.tril(np.ones((s, s), bool))
    max_logit = float(np.abs(logits[..., keep]).max())
    logits = np.where(keep, logits, -np.inf)
    p = np.exp(logits - logits.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return p @ vv, max_logit, float(np.abs(vv).max())


def gate(s, max_logit, max_v):
    """docs/numerics.md, attention with an f32 output."""
    u = 2.0 ** -24
    return 1e-5 + 2 * max_v * 2 * u * max_logit + (u + 2 * math.sqrt(s) * u) * max_v


def attention_library(aot, ir, out_dir, name, q=(2, 4, 48, 32), kv=(2, 2, 48, 32)):
    """A CPU library of one causal f32 attention (GQA by default), compiled
    for the host and loaded."""
    f = ir.Function("attention")
    qa = f.arg(q, "f32")
    ka = f.arg(kv, "f32")
    va = f.arg(kv, "f32")
    f.ret(f.attention(qa, ka, va, causal=True, out_dtype="f32"))
    return aot.load(aot.compile(f, out_dir=out_dir, name=name, features="host"))
