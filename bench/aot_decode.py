#!/usr/bin/env python3
"""Paged decode attention as accel-compile'd CPU libraries (issue 31):
the same shapes as `accel-bench --mode=decode`, called from numpy through
`accel.aot` on one and two threads, with the pool cold (cycling through
copies of it, >= 256 MB) and warm (one pool, in the caches).

    python3 bench/aot_decode.py [--contexts=4096,32768] [--dtype=bf16|f32]
                                [--samples=N]

Columns: the time of one call (median), the bytes of K and V a call reads
÷ that time, and err: the max abs error of one head's output against a
float64 reference of the op. accel-bench --mode=decode times the JIT's
code on the same shapes (docs/decode-attention.md); this script shows the
AOT libraries run as fast.
"""

import argparse
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))

import numpy as np  # noqa: E402

from accel import aot, ir  # noqa: E402

HQ, HKV, D, PAGE = 32, 8, 128, 16


def build(pages, dtype):
    f = ir.Function("decode")
    q = f.arg((1, HQ, 1, D), dtype)
    kc = f.arg((pages, PAGE, HKV, D), dtype)
    vc = f.arg((pages, PAGE, HKV, D), dtype)
    bt = f.arg((1, pages), "i32")
    ln = f.arg((1,), "i32")
    f.ret(f.paged_attention(q, kc, vc, bt, ln, out_dtype="f32"))
    return f


def median_ms(fn, samples):
    for _ in range(3):
        fn()
    times = []
    for _ in range(samples):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return 1e3 * float(np.median(times))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--contexts", default="4096,32768")
    p.add_argument("--dtype", default="bf16", choices=["bf16", "f32"])
    p.add_argument("--samples", type=int, default=20)
    args = p.parse_args()
    if args.dtype == "bf16":
        import ml_dtypes
        np_dtype = ml_dtypes.bfloat16
    else:
        np_dtype = np.float32
    elt = 2 if args.dtype == "bf16" else 4
    rng = np.random.default_rng(0)
    print(f"Paged decode attention, AOT libraries: Hq {HQ}, Hkv {HKV}, D {D}, "
          f"pages of {PAGE} tokens, one sequence, {args.dtype} cache")
    print(f"{'context':>8} {'threads':>7} {'cold ms':>9} {'GB/s':>7} "
          f"{'warm ms':>9} {'GB/s':>7} {'err':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        for ctx in [int(c) for c in args.contexts.split(",")]:
            pages = ctx // PAGE
            kv_bytes = 2.0 * ctx * HKV * D * elt
            copies = max(2, int(np.ceil(256e6 / kv_bytes)))
            q = rng.uniform(-1, 1, (1, HQ, 1, D)).astype(np_dtype)
            pools = [(rng.uniform(-1, 1, (pages, PAGE, HKV, D)).astype(np_dtype),
                      rng.uniform(-1, 1, (pages, PAGE, HKV, D)).astype(np_dtype))
                     for _ in range(copies)]
            table = rng.permutation(pages).astype(np.int32).reshape(1, pages)
            lengths = np.array([ctx], np.int32)
            out = np.empty((1, HQ, 1, D), np.float32)
            # float64 reference of head 0 on the first pool
            kc, vc = pools[0]
            j = np.arange(ctx)
            k = kc[table[0, j // PAGE], j % PAGE, 0].astype(np.float64)
            v = vc[table[0, j // PAGE], j % PAGE, 0].astype(np.float64)
            s = k @ q[0, 0, 0].astype(np.float64) / np.sqrt(D)
            w = np.exp(s - s.max())
            ref = w @ v / w.sum()
            for threads in (1, 2):
                lib = aot.load(aot.compile(
                    build(pages, args.dtype),
                    out_dir=os.path.join(tmp, f"{ctx}-{threads}"),
                    name=f"decode{ctx}t{threads}", features="host",
                    options=f"threads={threads}"))
                fn = lib["decode"]
                state = {"i": 0}

                def cold():
                    kc, vc = pools[state["i"] % len(pools)]
                    state["i"] += 1
                    fn(q, kc, vc, table, lengths, out=[out])

                def warm():
                    fn(q, pools[0][0], pools[0][1], table, lengths,
                       out=[out])

                t_cold = median_ms(cold, args.samples)
                t_warm = median_ms(warm, args.samples)
                err = float(np.max(np.abs(out[0, 0, 0] - ref)))
                print(f"{ctx:>8} {threads:>7} {t_cold:>9.3f} "
                      f"{kv_bytes / t_cold / 1e6:>7.2f} {t_warm:>9.3f} "
                      f"{kv_bytes / t_warm / 1e6:>7.2f} {err:>9.1e}")


if __name__ == "__main__":
    main()
