#!/usr/bin/env python3
"""nn.Linear as torch-mlir writes it, matmul(x, t(W)) with W [N, K] and the
transpose a linalg.transpose, on the CPU (issue 28): before accel-raise read
through the transpose (the same IR written as accel.matmul on the
transposed tensor) against after (linalg.matmul, raised to accel.matmul
transpose_b on W). AOT libraries, one thread, rotating calls, checked
against float64.
    python3 bench/linear_torch_ab.py
"""
import os, sys, time, tempfile
import numpy as np
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, 'python')); sys.path.insert(0, os.path.join(ROOT, 'bench'))
from accel import aot
from peers import pin_cpus, machine, commit
pin_cpus(1)
N = K = 4096
def src(name, m, raised):
    mm = (f"  %y = linalg.matmul ins(%x, %wt : tensor<{m}x{K}xf32>, tensor<{K}x{N}xf32>) outs(%f : tensor<{m}x{N}xf32>) -> tensor<{m}x{N}xf32>\n" if raised else
          f"  %y = accel.matmul ins(%x, %wt : tensor<{m}x{K}xf32>, tensor<{K}x{N}xf32>) outs(%c : tensor<{m}x{N}xf32>) -> tensor<{m}x{N}xf32>\n")
    return (f"func.func @{name}(%x: tensor<{m}x{K}xf32>, %w: tensor<{N}x{K}xf32>) -> tensor<{m}x{N}xf32> {{\n"
            f"  %e = tensor.empty() : tensor<{K}x{N}xf32>\n"
            f"  %wt = linalg.transpose ins(%w : tensor<{N}x{K}xf32>) outs(%e : tensor<{K}x{N}xf32>) permutation = [1, 0]\n"
            f"  %zero = arith.constant 0.0 : f32\n  %c = tensor.empty() : tensor<{m}x{N}xf32>\n"
            f"  %f = linalg.fill ins(%zero : f32) outs(%c : tensor<{m}x{N}xf32>) -> tensor<{m}x{N}xf32>\n"
            + mm + f"  return %y : tensor<{m}x{N}xf32>\n}}\n")
print(f"torch-style nn.Linear (matmul(x, t(W)), W [N,K] 4096x4096), {machine()}; commit {commit()}; 1 thread; median of 10 rotating calls, ms")
print("   M  accel.matmul on the transpose (before)  linalg, raised to transpose_b (after)  before/after")
rng = np.random.default_rng(0)
with tempfile.TemporaryDirectory() as tmp:
    for m in (1, 16, 64, 128):
        x = rng.standard_normal((m, K)).astype(np.float32); w = rng.standard_normal((N, K)).astype(np.float32)
        ref = x.astype(np.float64) @ w.astype(np.float64).T
        runs = []
        for raised in (False, True):
            name = f"{'after' if raised else 'before'}_{m}"
            lib = aot.load(aot.compile(src(name, m, raised), "cpu", out_dir=os.path.join(tmp, name), name=name, features="host"))
            k = lib.kernels[name]; out = [np.empty((m, N), np.float32)]
            k(x, w, out=out)
            assert np.abs(out[0] - ref).max() / np.abs(ref).max() < 1e-5
            runs.append((k, out, []))
        for i in range(10):
            for k, out, ts in runs[i % 2:] + runs[:i % 2]:
                s = time.perf_counter(); k(x, w, out=out); ts.append(time.perf_counter() - s)
        b, a = (np.median(r[2]) * 1e3 for r in runs)
        print(f"{m:4d}  {b:38.2f}  {a:37.2f}  {b / a:12.2f}", flush=True)
