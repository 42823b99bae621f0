#!/usr/bin/env python3
"""Linear layers with the weight as [N, K] (PyTorch's nn.Linear layout,
`accel.matmul transpose_b`) against the same GEMM with B as [K, N], on the
CPU (issue 28; docs/cpu-performance.md, "Linear layers with B as [N, K]").

    python3 bench/linear_nk.py [--dtypes=bf16,f32,i8] [--rows=1,16,128,512]
                               [--n=4096] [--k=4096] [--features=host]
                               [--threads=1] [--samples=8]

For each dtype and M, two functions are compiled with `accel-compile
--target=cpu --features=...` into AOT libraries and called alternately in
this process (preallocated outputs, warm weights: one copy each): C[M, N] =
A[M, K] · W with W as [N, K] (`transpose_b`) and as [K, N]. bf16 and int8
products sum in f32 and i32. The [N, K] one is what a model's weights are;
on AMX and the AVX512-BF16/VNNI dot kernels B is packed from [N, K] itself,
f32 with up to 24 rows takes cpu-row-dot (dot products along W's rows),
more rows cpu-fma with its panels of B packed from [N, K] (no copy).
Both results are checked against float64 numpy (normwise error under
1e-2 for bf16, 1e-5 for f32, exact for int8; FAIL otherwise). Prints the
CPU model and features, the commit, and per row the median ms of each and
[N, K] ÷ [K, N] (1.0: no cost for the layout).
"""
import argparse
import os
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from accel import aot  # noqa: E402
from peers import commit, machine, pin_cpus  # noqa: E402

OUT_TYPE = {"bf16": "f32", "f32": "f32", "i8": "i32"}


def source(name, m, n, k, dtype, nk):
    out = OUT_TYPE[dtype]
    a, c = f"tensor<{m}x{k}x{dtype}>", f"tensor<{m}x{n}x{out}>"
    b = f"tensor<{n}x{k}x{dtype}>" if nk else f"tensor<{k}x{n}x{dtype}>"
    tb = "transpose_b " if nk else ""
    return (f"func.func @{name}(%a: {a}, %b: {b}) -> {c} {{\n"
            f"  %c = tensor.empty() : {c}\n"
            f"  %0 = accel.matmul {tb}ins(%a, %b : {a}, {b}) outs(%c : {c}) -> {c}\n"
            f"  return %0 : {c}\n}}\n")


def inputs(kernel, rng, dtype):
    arrays = []
    for arg in kernel.arguments:
        dt = aot._numpy_dtype(arg["dtype"])
        if dtype == "i8":
            arrays.append(rng.integers(-8, 8, arg["shape"]).astype(dt))
        else:
            arrays.append(rng.standard_normal(arg["shape"]).astype(dt))
    return arrays


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dtypes", default="bf16,f32,i8")
    p.add_argument("--rows", default="1,16,128,512")
    p.add_argument("--n", type=int, default=4096)
    p.add_argument("--k", type=int, default=4096)
    p.add_argument("--features", default="host")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--samples", type=int, default=8)
    args = p.parse_args()
    pin_cpus(args.threads)
    print(f"linear_nk: {machine()}; commit {commit()}; features "
          f"{args.features}; {args.threads} thread(s); median of "
          f"{args.samples} alternating calls, ms")
    print(f"{'dtype':6s} {'M':>5s} {'N x K':>11s} {'W [N,K]':>9s} {'W [K,N]':>9s} "
          f"{'[N,K]/[K,N]':>12s}  check")
    rng = np.random.default_rng(0)
    options = f"threads={args.threads}" if args.threads > 1 else None
    failed = False
    with tempfile.TemporaryDirectory(prefix="linear-nk-") as tmp:
        for dtype in args.dtypes.split(","):
            for m in (int(r) for r in args.rows.split(",")):
                kernels, calls = [], []
                for nk in (True, False):
                    name = f"{'nk' if nk else 'kn'}_{dtype}_{m}"
                    art = aot.compile(source(name, m, args.n, args.k, dtype, nk),
                                      "cpu", out_dir=os.path.join(tmp, name),
                                      name=name, features=args.features,
                                      options=options)
                    lib = aot.load(art)
                    if args.threads > 1:
                        lib.num_threads = args.threads
                    kernel = lib.kernels[name]
                    ins = inputs(kernel, rng, dtype)
                    outs = [np.empty(r["shape"], aot._numpy_dtype(r["dtype"]))
                            for r in kernel.results]
                    kernel(*ins, out=outs)
                    kernels.append((kernel, ins, outs))
                    calls.append([])
                # Check both against float64.
                verdict = []
                for (kernel, ins, outs), nk in zip(kernels, (True, False)):
                    a64 = ins[0].astype(np.float64)
                    b64 = ins[1].astype(np.float64)
                    ref = a64 @ (b64.T if nk else b64)
                    got = outs[0].astype(np.float64)
                    err = (np.abs(got - ref).max() /
                           max(np.abs(ref).max(), 1e-30))
                    limit = {"bf16": 1e-2, "f32": 1e-5, "i8": 0.0}[dtype]
                    ok = err <= limit
                    failed |= not ok
                    verdict.append(f"{'ok' if ok else 'FAIL'} ({err:.1e})")
                for _ in range(args.samples):
                    for (kernel, ins, outs), ts in zip(kernels, calls):
                        t = time.perf_counter()
                        kernel(*ins, out=outs)
                        ts.append(time.perf_counter() - t)
                nk_ms, kn_ms = (float(np.median(ts)) * 1e3 for ts in calls)
                print(f"{dtype:6s} {m:5d} {args.n:5d}x{args.k:<5d} {nk_ms:9.2f} "
                      f"{kn_ms:9.2f} {nk_ms / kn_ms:12.2f}  {', '.join(verdict)}",
                      flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
