#!/usr/bin/env python3
"""AOT libraries with and without their results computed in the caller's
buffers (accel-cpu-results-in-place; docs/aot.md, "Results").
    python3 bench/aot_results.py [--sizes=256,512,1024,2048]
                                 [--dtypes=f32,bf16,i8] [--threads=1]
                                 [--samples=20] [--features=host]
For each GEMM (M = N = K = size, a tensor.empty result as frontends write
it) two AOT libraries (`accel-compile --target=cpu`): `copy`, built with
`results-in-place=0` (the kernel's buffer copied into the caller's after
the call), and `in place` (the default). Both are called in this process
on the same numpy arrays, in rounds of one untimed and three timed calls
of each, each round starting at the other one (with threads, 3 ms between
the libraries: idle workers spin 1 ms); every result is checked against float64 (bf16 and i8: the inputs'
exact values; f32 1e-5 normwise, bf16 1e-2, i8 exact). Prints the CPU,
the commit and per case the median ms of each and copy ÷ in place.
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

# dtype: (MLIR element, result element, numpy result, gate)
TYPES = {
    "f32": ("f32", "f32", np.float32, 1e-5),
    "bf16": ("bf16", "f32", np.float32, 1e-2),
    "i8": ("i8", "i32", np.int32, 0.0),
}


def source(name, n, elt, acc):
    t, c = f"tensor<{n}x{n}x{elt}>", f"tensor<{n}x{n}x{acc}>"
    return (f"func.func @{name}(%a: {t}, %b: {t}) -> {c} {{\n"
            f"  %e = tensor.empty() : {c}\n"
            f"  %0 = accel.matmul ins(%a, %b : {t}, {t}) outs(%e : {c}) -> {c}\n"
            f"  return %0 : {c}\n}}\n")


def inputs(rng, n, dtype):
    if dtype == "i8":
        return [rng.integers(-8, 8, (n, n)).astype(np.int8) for _ in range(2)]
    x = [rng.standard_normal((n, n)).astype(np.float32) for _ in range(2)]
    if dtype == "bf16":
        import ml_dtypes
        x = [a.astype(ml_dtypes.bfloat16) for a in x]
    return x


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="256,512,1024,2048")
    p.add_argument("--dtypes", default="f32,bf16,i8")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--samples", type=int, default=20)
    p.add_argument("--features", default="host")
    args = p.parse_args()
    pin_cpus(args.threads)
    print(f"aot_results: {machine()}; commit {commit()}; features "
          f"{args.features}; {args.threads} thread(s); median of "
          f"{3 * args.samples} calls in {args.samples} alternating rounds, ms")
    print(f"{'dtype':>5s} {'size':>5s} {'copy':>9s} {'in place':>9s} "
          f"{'copy/in place':>13s}  check")
    rng = np.random.default_rng(0)
    failed = False
    threads = f"threads={args.threads}"
    with tempfile.TemporaryDirectory(prefix="aot-results-") as tmp:
        for dtype in args.dtypes.split(","):
            elt, acc, out_np, gate = TYPES[dtype]
            for n in (int(s) for s in args.sizes.split(",")):
                x = inputs(rng, n, dtype)
                ref = x[0].astype(np.float64) @ x[1].astype(np.float64)
                runs, errs = [], []
                for tag, opts in (("copy", "results-in-place=0"),
                                  ("inplace", "")):
                    name = f"mm_{dtype}_{n}_{tag}"
                    art = aot.compile(source(name, n, elt, acc), "cpu",
                                      out_dir=os.path.join(tmp, name),
                                      name=name, features=args.features,
                                      options=f"{threads} {opts}".strip())
                    lib = aot.load(art)
                    lib.num_threads = args.threads
                    kernel = lib.kernels[name]
                    out = [np.full((n, n), -1, out_np)]
                    kernel(*x, out=out)
                    err = float(np.abs(out[0] - ref).max() /
                                max(np.abs(ref).max(), 1e-30))
                    errs.append(err)
                    failed |= not err <= gate
                    # Warm-up: 3 calls and 0.2 s (the first calls on two
                    # threads run at one thread's speed: bench/aot_threads.py).
                    t0 = time.perf_counter()
                    for i in range(1 << 30):
                        kernel(*x, out=out)
                        if i >= 2 and time.perf_counter() - t0 > 0.2:
                            break
                    runs.append((kernel, out, []))
                # Rounds of a few calls of each library, each starting at
                # the other one: a library's idle workers spin for 1 ms
                # after its last call and would take the other library's
                # cores, so each block waits 3 ms and makes one untimed
                # call first.
                for i in range(args.samples):
                    for kernel, out, ts in runs[i % 2:] + runs[:i % 2]:
                        if args.threads > 1:
                            time.sleep(0.003)
                        kernel(*x, out=out)
                        for _ in range(3):
                            t = time.perf_counter()
                            kernel(*x, out=out)
                            ts.append(time.perf_counter() - t)
                ms = [float(np.median(r[2])) * 1e3 for r in runs]
                ok = "ok" if all(e <= gate for e in errs) else "FAIL"
                print(f"{dtype:>5s} {n:5d} {ms[0]:9.3f} {ms[1]:9.3f} "
                      f"{ms[0] / ms[1]:13.2f}  {ok} (max {max(errs):.1e})",
                      flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
