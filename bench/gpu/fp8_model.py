#!/usr/bin/env python3
"""How well the oracle's model of Hopper's fp8 MMA fits a GPU's results.

    python3 bench/gpu/fp8_model.py DIR [DIR ...]

DIR: a record folder of `accel-run --target=nvptx --record` whose fp8
functions ran on the GPU (their .result.bin files, as `check.py verify`
unpacks them; e.g. .gpu-check/catalogue/NN). For each f8 x f8 -> f32
function whose kernel is the promoted wgmma one, prints, in units of
u_tc·|A||B| (u_tc = 2^-13, per element): the GPU's worst error against the
exact product, the model's (test/Tools/accel-run/Inputs/launch_fp8_chunks.py,
chunks of 128 promoted into f32: the same model as ref::matmul's), the
worst distance between the GPU and the model, the share of elements where
they agree bit for bit, and the correlation of their errors; the same for a
model that sums each instruction exactly and rounds once (the alternative
the fit rules out). docs/numerics.md quotes its output for 3b95a86.
"""
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "test", "Tools", "accel-run",
                                "Inputs"))
from launch_fp8_chunks import DECODE, mma_step  # noqa: E402

U_TC = 2.0 ** -13


def model(a, b, chunk=128, exact_steps=False):
    """A x B^T (b as [N, K]) as the tensor cores sum it, chunks promoted in
    f32; with exact_steps each instruction's sum is exact, rounded once."""
    c = np.zeros((a.shape[0], b.shape[0]), np.float32)
    k = a.shape[1]
    for p0 in range(0, k, chunk):
        part = np.zeros(c.shape)
        for s0 in range(p0, min(k, p0 + chunk), 32):
            s1 = min(k, p0 + chunk, s0 + 32)
            products = a[:, None, s0:s1] * b[None, :, s0:s1]
            if exact_steps:
                total = part + products.sum(axis=-1)
                part = mma_step(total, np.zeros(total.shape + (1,)))
            else:
                part = mma_step(part, products)
        c += part.astype(np.float32)
    return c.astype(np.float64)


def main():
    for folder in sys.argv[1:]:
        manifest = json.load(open(os.path.join(folder, "manifest.json")))
        for fn in manifest["functions"]:
            if "metadata" not in fn:
                continue
            meta = json.load(open(os.path.join(folder, fn["metadata"])))
            args = meta["arguments"]
            out = args[-1]
            if not args[0]["dtype"].startswith("f8") or out["dtype"] != "f32":
                continue
            result = os.path.join(folder, f"{fn['name']}.b{len(args) - 1}.result.bin")
            if not os.path.exists(result):
                print(f"{folder} @{fn['name']}: no result (not launched?)")
                continue
            a, b = (DECODE[args[i]["dtype"]][np.fromfile(
                os.path.join(folder, fn["buffers"][i]), np.uint8)].reshape(
                    args[i]["shape"]) for i in (0, 1))
            c = np.fromfile(os.path.join(folder, fn["buffers"][2]), np.float32) \
                .astype(np.float64).reshape(out["shape"]) if len(args) == 4 else 0.0
            gpu = np.fromfile(result, np.float32).astype(np.float64).reshape(
                out["shape"])
            if a.shape[1] >= 4096:  # the model is slow in numpy: 16 rows
                a, gpu = a[:16], gpu[:16]
                c = c[:16] if len(args) == 4 else 0.0
            unit = U_TC * (np.abs(a) @ np.abs(b).T)
            exact = a @ b.T + c
            line = [f"{folder} @{fn['name']} K={a.shape[1]}:",
                    f"GPU err {np.max(np.abs(gpu - exact) / unit):.2f}"]
            for name, m in (("model", model(a, b) + c),
                            ("exact-step model", model(a, b, exact_steps=True) + c)):
                corr = np.corrcoef((m - exact).ravel(), (gpu - exact).ravel())[0, 1]
                line.append(f"| {name}: err {np.max(np.abs(m - exact) / unit):.2f}, "
                            f"GPU-model {np.max(np.abs(gpu - m) / unit):.2f}, "
                            f"bit-exact {np.mean(gpu == m.astype(np.float32)):.2f}, "
                            f"corr {corr:.2f}")
            print(" ".join(line))


if __name__ == "__main__":
    main()
