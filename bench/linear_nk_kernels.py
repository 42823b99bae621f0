#!/usr/bin/env python3
"""f32 linear layers with W as [N, K]: the kernels the configuration stage
chooses between, side by side (issue 28; docs/cpu-performance.md, "f32
above cpu-row-dot's rows").
    python3 bench/linear_nk_kernels.py [--rows=16,32,48,64,80,96,128]
                                       [--n=4096] [--k=4096] [--threads=1]
                                       [--samples=10] [--features=host]
For each M, five AOT libraries (`accel-compile --target=cpu`), each with its
kernel written on the op (`accel.lowering_config`, which overrides the
model), called alternately in this process on the same inputs (each round
of calls starting at the next variant):
  row-dot     cpu-row-dot, dot products along W's rows, its tiles the
              stage's for the host (AVX-512: 4 x 6 tiles, K blocks of 256;
              1 x 8 / 2 x 8 / 4 x 4 below 16 rows; AVX2: 1 x 4 / 2 x 2)
  fma-nk      cpu-fma (the host's register tile: 6 x 64 with AVX-512,
              6 x 16 without) with the [N, K] few-rows tile [M, 256, 256] (on
              several threads min(256, N / (2 threads))), B's panels packed
              from W's rows
  fma-nk-kn   cpu-fma on [N, K] with the tile of the [K, N] GEMM's few-rows
              rule ([M, 0, 32] to 64 rows, [M, 512, 256] above)
  model       no config: what accel-cpu-configure chooses for [N, K]
  kn          the same GEMM with W as [K, N], no config (the reference:
              1.0 = no cost for the layout)
Every result is checked against float64 numpy (normwise, 1e-5). Prints the
CPU, the commit and per row the median ms of each.
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


def source(name, m, n, k, nk, config):
    a, c = f"tensor<{m}x{k}xf32>", f"tensor<{m}x{n}xf32>"
    b = f"tensor<{n}x{k}xf32>" if nk else f"tensor<{k}x{n}xf32>"
    tb = "transpose_b " if nk else ""
    attr = f" {{accel.lowering_config = {config}}}" if config else ""
    return (f"func.func @{name}(%a: {a}, %b: {b}) -> {c} {{\n"
            f"  %c = tensor.empty() : {c}\n"
            f"  %0 = accel.matmul {tb}ins(%a, %b : {a}, {b}) outs(%c : {c})"
            f"{attr} -> {c}\n"
            f"  return %0 : {c}\n}}\n")


def variants(m, n, threads):
    # The kernels are forced; their register tiles (and row-dot's K
    # blocks) are left to the configuration stage, which knows the host's
    # vector registers.
    per_task = ((-(-n // (2 * threads)) + 63) // 64) * 64
    nc = min(256, per_task) if threads > 1 else 256
    if m <= 64:
        kn_tile = [m, 0 if threads == 1 or per_task >= n else per_task, 32]
    else:
        kn_tile = [m, 512 if threads == 1 else min(512, per_task), 256]
    fma = '#accel.lowering_config<kernel = "cpu-fma", tile = [{}]>'
    return [
        ("row-dot", True, '#accel.lowering_config<kernel = "cpu-row-dot">'),
        ("fma-nk", True, fma.format(f"{m}, {nc}, 256")),
        ("fma-nk-kn", True, fma.format(", ".join(map(str, kn_tile)))),
        ("model", True, None),
        ("kn", False, None),
    ]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", default="16,32,48,64,80,96,128")
    p.add_argument("--n", type=int, default=4096)
    p.add_argument("--k", type=int, default=4096)
    p.add_argument("--features", default="host")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--samples", type=int, default=10)
    args = p.parse_args()
    pin_cpus(args.threads)
    print(f"linear_nk_kernels: {machine()}; commit {commit()}; features "
          f"{args.features}; {args.threads} thread(s); {args.n} x {args.k}; "
          f"median of {args.samples} alternating calls, ms")
    names = [v[0] for v in variants(1, args.n, args.threads)]
    print(f"{'M':>5s} " + " ".join(f"{n:>10s}" for n in names) +
          "  model/kn  check")
    rng = np.random.default_rng(0)
    options = f"threads={args.threads}" if args.threads > 1 else None
    failed = False
    with tempfile.TemporaryDirectory(prefix="linear-nk-kernels-") as tmp:
        for m in (int(r) for r in args.rows.split(",")):
            x = rng.standard_normal((m, args.k)).astype(np.float32)
            w = rng.standard_normal((args.n, args.k)).astype(np.float32)
            wt = np.ascontiguousarray(w.T)
            ref = x.astype(np.float64) @ w.astype(np.float64).T
            runs, errs = [], []
            for tag, nk, config in variants(m, args.n, args.threads):
                name = f"{tag.replace('-', '_')}_{m}"
                art = aot.compile(source(name, m, args.n, args.k, nk, config),
                                  "cpu", out_dir=os.path.join(tmp, name),
                                  name=name, features=args.features,
                                  options=options)
                lib = aot.load(art)
                if args.threads > 1:
                    lib.num_threads = args.threads
                kernel = lib.kernels[name]
                ins = [x, w if nk else wt]
                out = [np.empty((m, args.n), np.float32)]
                kernel(*ins, out=out)
                err = float(np.abs(out[0] - ref).max() / np.abs(ref).max())
                errs.append(err)
                failed |= not err <= 1e-5
                runs.append((kernel, ins, out, []))
            # Each round starts at another variant: the one called first
            # after the previous round's last measured up to 1.4x slower.
            for i in range(args.samples):
                for kernel, ins, out, ts in runs[i % len(runs):] + \
                        runs[:i % len(runs)]:
                    t = time.perf_counter()
                    kernel(*ins, out=out)
                    ts.append(time.perf_counter() - t)
            ms = [float(np.median(r[3])) * 1e3 for r in runs]
            ok = "ok" if all(e <= 1e-5 for e in errs) else "FAIL"
            print(f"{m:5d} " + " ".join(f"{t:10.2f}" for t in ms) +
                  f"  {ms[3] / ms[4]:8.2f}  {ok} (max {max(errs):.1e})",
                  flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
