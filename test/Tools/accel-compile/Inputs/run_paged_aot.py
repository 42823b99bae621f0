"""Calls an accel-compile'd paged attention library from numpy
(cpu-paged-attention.test): valid calls against a float64 reference of the
op's definition, then run-time index data out of range, which must return
ACCEL_ERR_INDEX (10) without writing the output.

usage: run_paged_aot.py <library folder> <repository python/>"""
import sys

import numpy as np

sys.path.insert(0, sys.argv[2])
from accel import aot  # noqa: E402

lib = aot.load(sys.argv[1])
rng = np.random.default_rng(0)


def reference(q, kc, vc, table, lengths, causal):
    """The op's definition in float64: keys gathered through the table."""
    b_, hq, sq, d = q.shape
    _, page, hkv, dv = vc.shape
    out = np.zeros((b_, hq, sq, dv))
    for b in range(b_):
        n = int(lengths[b])
        if n == 0:
            continue
        j = np.arange(n)
        pages = table[b, j // page]
        k = kc[pages, j % page].astype(np.float64)  # [n, Hkv, D]
        v = vc[pages, j % page].astype(np.float64)
        for h in range(hq):
            hk = h // (hq // hkv)
            s = q[b, h].astype(np.float64) @ k[:, hk].T / np.sqrt(d)
            if causal:
                keep = j[None, :] <= n - sq + np.arange(sq)[:, None]
                s = np.where(keep, s, -np.inf)
            m = s.max(axis=1, keepdims=True)
            m = np.where(np.isfinite(m), m, 0)
            p = np.exp(s - m)
            l = p.sum(axis=1, keepdims=True)
            out[b, h] = np.where(l > 0, (p @ v[:, hk]) / np.where(l > 0, l, 1), 0)
    return out


def call(name, args, out_shape):
    """The result buffer, NaN-prefilled (the `outs` argument is too)."""
    out = np.full(out_shape, np.nan, np.float32)
    try:
        lib[name](*args, np.full(out_shape, np.nan, np.float32), out=[out])
    except aot.KernelError as err:
        return err.status, out
    return 0, out


def check(label, name, q, kc, vc, table, lengths, causal, tol):
    status, out = call(name, (q, kc, vc, table, lengths), q.shape[:3] + (vc.shape[3],))
    ref = reference(q, kc, vc, table, lengths, causal)
    err = float(np.max(np.abs(out - ref))) if out.size else 0.0
    good = bool(np.isfinite(err)) and err <= tol  # NaN is never ok
    print(f"{label}: status {status}, max abs err {'ok' if good else '%.1e' % err}")


def fail(label, name, q, kc, vc, table, lengths):
    status, out = call(name, (q, kc, vc, table, lengths), q.shape[:3] + (vc.shape[3],))
    print(f"{label}: status {status}, output untouched: {bool(np.isnan(out).all())}")


# decode: B = 3 over a pool of 11 pages; sequence lengths 0 (nothing), a
# partial last page, a full table; pages shared and out of order; -1 past
# the last page (never read).
pool = 11
q = rng.uniform(-1, 1, (3, 8, 1, 64)).astype(np.float16)
kc = rng.uniform(-1, 1, (pool, 16, 2, 64)).astype(np.float16)
vc = rng.uniform(-1, 1, (pool, 16, 2, 64)).astype(np.float16)
table = np.array([[-1, -1, -1, -1, -1], [7, 2, 9, -1, -1], [3, 3, 10, 0, 5]],
                 np.int32)
lengths = np.array([0, 37, 80], np.int32)
check("decode", "decode", q, kc, vc, table, lengths, False, 2e-3)
check("decode B=1", "decode", q[1:2], kc, vc, table[1:2], lengths[1:2], False, 2e-3)
check("decode P=3", "decode", q[:1], kc[:3], vc[:3],
      np.array([[0, 2, 1, -1, -1]], np.int32), np.array([40], np.int32), False, 2e-3)

# Out of range: a page of the pool's end, a negative page, a length past the
# table's 80 tokens, a negative length; each returns ACCEL_ERR_INDEX.
bad = table.copy(); bad[1, 2] = pool
fail("page = P", "decode", q, kc, vc, bad, lengths)
bad = table.copy(); bad[2, 0] = -1
fail("page = -1", "decode", q, kc, vc, bad, lengths)
fail("length 81", "decode", q, kc, vc, table, np.array([0, 37, 81], np.int32))
fail("length -1", "decode", q, kc, vc, table, np.array([-1, 37, 80], np.int32))
fail("empty pool", "decode", q[1:2], kc[:0], vc[:0], table[1:2], lengths[1:2])
# The library still runs after a refused call.
check("decode again", "decode", q, kc, vc, table, lengths, False, 2e-3)

# Rows past a sequence's length in its last page are not the sequence's:
# NaN there (an uninitialised pool) must not reach the output.
kn, vn = kc.copy(), vc.copy()
kn[9, 5:], vn[9, 5:] = np.nan, np.nan  # sequence 1: 37 tokens, page 9 holds 32..36
kn[1], vn[1] = np.inf, np.nan          # a page no sequence uses
check("NaN past the length", "decode", q, kn, vn, table, lengths, False, 2e-3)

# Sizes the library checks at run time: a table or lengths of another batch
# than Q's, a value pool of another size than the key pool: ACCEL_ERR_SHAPE.
fail("table of 2 rows", "decode", q, kc, vc, table[:2], lengths)
fail("lengths of 2", "decode", q, kc, vc, table, lengths[:2])
fail("value pool of 3 pages", "decode", q, kc, vc[:3], table, lengths)

# speculative: 3 causal queries at the end of each sequence.
q = rng.uniform(-1, 1, (2, 4, 3, 32)).astype(np.float32)
kc = rng.uniform(-1, 1, (7, 8, 4, 32)).astype(np.float32)
vc = rng.uniform(-1, 1, (7, 8, 4, 32)).astype(np.float32)
table = np.array([[6, 0, 1, 2], [5, 4, -7, 99]], np.int64)
check("speculative", "speculative", q, kc, vc, table, np.array([29, 10], np.int64), True, 1e-5)
check("speculative short", "speculative", q, kc, vc, table, np.array([2, 1], np.int64), True, 1e-5)
fail("speculative page 99", "speculative", q, kc, vc, table, np.array([29, 32], np.int64))
