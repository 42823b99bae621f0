#!/usr/bin/env python3
"""Times one paged decode attention shape as an AOT library, with the pool
cold, warm or in L1: the probe behind the per-page figures of
docs/decode-attention.md.

    python3 bench/decode_probe.py [--context=8192] [--kv-heads=8]
        [--dtype=bf16|f32] [--pool=cold|warm|l1] [--options=threads=1]
        [--seconds=3]

One sequence, 4 query heads a KV head, D 128, 16-token pages in a random
order. `cold` cycles through 8 copies of the pool (a decode step's view of
memory); `warm` calls on one copy (in the caches it fits); `l1` points
every table entry at page 0 (the step's work with its data in L1).
Prints the mean time of back-to-back calls over `--seconds`,
the bytes of K and V a call reads ÷ that time, the time a page and KV head
(time ÷ (pages x KV heads)) and err/gate: the max abs error of query head
0 against a float64 reference of the op on the last pool called, over
f32 accumulation's worst case 2 N 2^-24 max|V| (N keys); exit 1 above 1.
"""

import argparse
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

from accel import aot, ir  # noqa: E402
from peers import commit, machine  # noqa: E402

D, PAGE, GROUP = 128, 16, 4


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--context", type=int, default=8192)
    p.add_argument("--kv-heads", type=int, default=8)
    p.add_argument("--dtype", default="bf16", choices=["bf16", "f32"])
    p.add_argument("--pool", default="cold", choices=["cold", "warm", "l1"])
    p.add_argument("--options", default="threads=1")
    p.add_argument("--seconds", type=float, default=3.0)
    args = p.parse_args()
    if args.context % PAGE or args.context <= 0:
        p.error(f"--context must be a positive multiple of {PAGE}")
    hkv, hq, pages = args.kv_heads, GROUP * args.kv_heads, args.context // PAGE
    if args.dtype == "bf16":
        import ml_dtypes
        np_dtype = ml_dtypes.bfloat16
    else:
        np_dtype = np.float32
    f = ir.Function("decode")
    q = f.arg((1, hq, 1, D), args.dtype)
    kc = f.arg((pages, PAGE, hkv, D), args.dtype)
    vc = f.arg((pages, PAGE, hkv, D), args.dtype)
    bt = f.arg((1, pages), "i32")
    ln = f.arg((1,), "i32")
    f.ret(f.paged_attention(q, kc, vc, bt, ln, out_dtype="f32"))

    rng = np.random.default_rng(0)
    shape = (pages, PAGE, hkv, D)
    copies = 8 if args.pool == "cold" else 1
    pools = [(rng.uniform(-1, 1, shape).astype(np_dtype),
              rng.uniform(-1, 1, shape).astype(np_dtype))
             for _ in range(copies)]
    qa = rng.uniform(-1, 1, (1, hq, 1, D)).astype(np_dtype)
    table = (np.zeros(pages, np.int32) if args.pool == "l1"
             else rng.permutation(pages).astype(np.int32)).reshape(1, pages)
    lengths = np.array([args.context], np.int32)
    out = np.empty((1, hq, 1, D), np.float32)
    print(f"decode_probe: {machine()}; commit {commit()}; {args.dtype} cache, "
          f"context {args.context}, Hkv {hkv}, Hq {hq}, D {D}, pool "
          f"{args.pool}, options '{args.options}'")
    with tempfile.TemporaryDirectory() as tmp:
        lib = aot.load(aot.compile(f, out_dir=tmp, name="probe",
                                   features="host", options=args.options))
        fn = lib["decode"]
        for k, v in pools:  # warm-up: workers, pages, code
            fn(qa, k, v, table, lengths, out=[out])
        calls, t0 = 0, time.perf_counter()
        while calls == 0 or time.perf_counter() - t0 < args.seconds:
            k, v = pools[calls % copies]
            fn(qa, k, v, table, lengths, out=[out])
            calls += 1
        dt = (time.perf_counter() - t0) / calls
    # float64 reference of query head 0 (KV head 0) on the last pool called
    k, v = pools[(calls - 1) % copies]
    j = np.arange(args.context)
    kk = k[table[0, j // PAGE], j % PAGE, 0].astype(np.float64)
    vv = v[table[0, j // PAGE], j % PAGE, 0].astype(np.float64)
    s = kk @ qa[0, 0, 0].astype(np.float64) / np.sqrt(D)
    w = np.exp(s - s.max())
    err = float(np.max(np.abs(out[0, 0, 0] - w @ vv / w.sum())))
    gate = 2.0 * args.context * 2.0 ** -24 * float(np.max(np.abs(vv)))
    kv_bytes = 2.0 * args.context * hkv * D * np_dtype(0).itemsize
    print(f"ms/call {dt * 1e3:.3f}  GB/s {kv_bytes / dt / 1e9:.2f}  "
          f"ns/page/head {dt * 1e9 / (pages * hkv):.1f}  err/gate "
          f"{err / gate:.3f}  "
          f"({calls} calls)")
    return 0 if np.isfinite(err) and err <= gate else 1


if __name__ == "__main__":
    sys.exit(main())
