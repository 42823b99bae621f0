#!/usr/bin/env python3
"""accel-compile's CPU libraries on one and two threads (issue 28 item 5),
next to the JIT (accel-run) on the same threads, in one run, with ratios.

    python3 bench/aot_threads.py [--quick] [--samples=N] [--seed=S]
                                 [--only=gemm|attention] [--threads=T]

Each case (peers.py's: f32 GEMM n^3, f32 attention B1 H8 L d, causal and
not) is compiled twice with `accel.aot.compile(..., features="host")`:
`threads=1` (sequential code) and `threads=T` (parallel loops through the
library's parallel-for, docs/aot.md "Threads"), loaded with ctypes and
called on numpy arrays (the output preallocated: no copy). Columns:

- AOT 1t: the sequential library; AOT Tt: the threaded one on T threads;
  Tt/1t = AOT 1t ÷ AOT Tt (issue 28's goal: >= 1.85 for T = 2, GEMM and
  attention at L >= 1024);
- JIT 1t / JIT Tt: `accel-run --num-threads` (OpenMP regions), as
  peers.py runs it; AOT Tt / JIT Tt = JIT time ÷ AOT time;
- err: max abs error of the threaded AOT result against float64, with
  peers.py's gates (a failure prints FAIL).

Times are medians of single calls after a warm-up (3 calls and 0.2 s). The sequential
and threaded AOT results must agree bit for bit (a thread changes which rows
it computes, never the order of a sum): a difference prints DIFF.
"""

import argparse
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))

import numpy as np  # noqa: E402

import peers  # noqa: E402
from accel import aot  # noqa: E402

peers.np = np  # peers.py imports numpy in its main()


def cases(args):
    out = []
    if args.only in (None, "gemm"):
        for n in ([512] if args.quick else [256, 512, 1024, 2048]):
            out.append(peers.Case("gemm", "f32", (n, n, n)))
    if args.only in (None, "attention"):
        for l in ([512] if args.quick else [512, 1024, 2048]):
            for d in ([64] if args.quick else [64, 128]):
                for causal in (False, True):
                    out.append(peers.Case("attention", "f32", (1, 8, l, d), causal))
    return out


def make_inputs(case, seed):
    """peers.make_inputs for f32 (which needs no ml_dtypes)."""
    rng = np.random.default_rng(seed)
    if case.kind == "gemm":
        m, n, k = case.shape
        shapes = ((m, k), (k, n))
    else:
        shapes = (case.shape,) * 3
    return [rng.uniform(-1, 1, s).astype(np.float32) for s in shapes]


def compile_case(case, threads, work):
    name = ("gemm" if case.kind == "gemm" else "attention")
    tag = f"{name}_{'x'.join(map(str, case.shape))}{'_c' if case.causal else ''}_t{threads}"
    art = aot.compile(peers.accel_module(case),
                      out_dir=os.path.join(work, tag), name=tag, features="host",
                      options=f"threads={threads}")
    lib = aot.load(art)
    return lib, lib[name]


def time_aot(kernel, inputs, out, samples):
    """Warm-up: at least 3 calls and 0.2 s (the first calls of a library
    start its workers and fault in their pages and malloc's: a 256^3 GEMM's
    first ten calls on two threads ran at the one-thread speed)."""
    t0, n = time.perf_counter(), 0
    while n < 3 or time.perf_counter() - t0 < 0.2:
        kernel(*inputs, out=[out])
        n += 1
    ms, n, util = peers.time_calls(lambda: kernel(*inputs, out=[out]), samples, 20.0)
    return ms, util


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--samples", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--only", choices=["gemm", "attention"])
    args = ap.parse_args()
    os.environ["KMP_BLOCKTIME"] = "1"  # bench/run.sh's setting for the JIT
    print(f"machine: {peers.machine()}")
    print(f"commit: {peers.commit()}")
    print(f"threads: {args.threads}; samples: {args.samples} (median of single calls)")
    header = (f"{'case':<34} {'AOT 1t':>9} {'AOT %dt' % args.threads:>9} "
              f"{'%dt/1t' % args.threads:>6} {'JIT 1t':>9} {'JIT %dt' % args.threads:>9} "
              f"{'AOT/JIT':>7}  err (gate)")
    print(header)
    print("-" * len(header))
    ratios = {"gemm": [], "attention": []}
    failed = False
    with tempfile.TemporaryDirectory(prefix="accel-aot-threads-") as work:
        for case in cases(args):
            inputs = make_inputs(case, args.seed)
            ref, tol = peers.reference(case, inputs)
            _, seq = compile_case(case, 1, work)
            lib, par = compile_case(case, args.threads, work)
            lib.num_threads = args.threads
            out1 = np.full(ref.shape, np.nan, dtype=np.float32)
            outt = np.full(ref.shape, np.nan, dtype=np.float32)
            t1, _ = time_aot(seq, inputs, out1, args.samples)
            tt, util = time_aot(par, inputs, outt, args.samples)
            err, ok = peers.check(outt, ref, tol)
            same = np.array_equal(out1, outt)
            failed |= not ok or not same
            jit = {}
            for t in (1, args.threads):
                a = argparse.Namespace(samples=args.samples, threads=t, seed=args.seed)
                jit[t] = peers.run_accel(case, a, work)
            j1 = jit[1].get("ms")
            jt = jit[args.threads].get("ms")
            scale = t1 / tt
            l_ok = case.kind == "gemm" or case.shape[2] >= 1024
            if l_ok:
                ratios[case.kind].append(scale)
            print(f"{case.name:<34} {peers.fmt_ms(t1):>9} {peers.fmt_ms(tt):>9} "
                  f"{scale:6.2f} {peers.fmt_ms(j1) if j1 else 'n/a':>9} "
                  f"{peers.fmt_ms(jt) if jt else 'n/a':>9} "
                  f"{(jt / tt) if jt else float('nan'):7.2f}  "
                  f"{err:.1e} ({peers.gate_text(tol)}){'' if ok else ' FAIL'}"
                  f"{'' if same else ' DIFF'}  cpu/wall {util:.2f}",
                  flush=True)
    for kind, rs in ratios.items():
        if rs:
            print(f"{kind}: AOT {args.threads}t/1t {min(rs):.2f}-{max(rs):.2f} "
                  f"(geomean {float(np.exp(np.mean(np.log(rs)))):.2f})"
                  f"{' at L >= 1024' if kind == 'attention' else ''}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
