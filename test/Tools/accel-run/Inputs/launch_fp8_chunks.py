#!/usr/bin/env python3
"""A stand-in for Hopper's fp8 tensor cores in
nvptx-fp8-tensor-core-gate.test: "launches" the f8 matmul kernel of an
`accel-run --record` folder with numpy, summing each chunk of 128 products
as Hopper's fp8 MMA does (per instruction of 32 products: the products and
the running sum aligned to the largest magnitude and cut toward zero to 14
significant bits, then added; the model that reproduced the H200's results,
docs/numerics.md), then adding the chunks in f32 (the promotion), and writes
the result buffer.

    launch_fp8_chunks.py FOLDER [--chunk N] [--drop-chunk]
        --chunk N: products per chunk (default 128; K: no promotion, the
            kernel that failed run A)
        --drop-chunk: leave chunk 0 out (a broken kernel)
"""
import argparse
import json
import os

import numpy as np


def f8_values(mbits, bias, fn):
    """The value of each of the 256 codes of an OCP f8 format."""
    out = np.zeros(256)
    ebits = 7 - mbits
    for code in range(256):
        s, e, m = code >> 7, (code >> mbits) & ((1 << ebits) - 1), \
            code & ((1 << mbits) - 1)
        top = (1 << ebits) - 1
        if fn and e == top and m == (1 << mbits) - 1:
            v = np.nan
        elif not fn and e == top:
            v = np.inf if m == 0 else np.nan
        elif e == 0:
            v = m * 2.0 ** (1 - bias - mbits)
        else:
            v = (1 + m / 2.0 ** mbits) * 2.0 ** (e - bias)
        out[code] = -v if s else v
    return out


DECODE = {"f8E4M3FN": f8_values(3, 7, True), "f8E5M2": f8_values(2, 15, False)}


def mma_step(acc, products, bits=14):
    """One MMA instruction: acc and the products (last axis) aligned to the
    largest magnitude among them, cut toward zero to `bits` significant
    bits there, then added."""
    largest = np.maximum(np.abs(acc), np.abs(products).max(axis=-1))
    _, e = np.frexp(np.where(largest > 0, largest, 1.0))
    grid = np.ldexp(1.0, e - bits)[..., None]
    return np.trunc(acc / grid[..., 0]) * grid[..., 0] + \
        (np.trunc(products / grid) * grid).sum(axis=-1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("folder")
    ap.add_argument("--chunk", type=int, default=128)
    ap.add_argument("--drop-chunk", action="store_true")
    args = ap.parse_args()
    manifest = json.load(open(os.path.join(args.folder, "manifest.json")))
    for fn in manifest["functions"]:
        meta = json.load(open(os.path.join(args.folder, fn["metadata"])))
        a, b = (DECODE[meta["arguments"][i]["dtype"]][np.fromfile(
            os.path.join(args.folder, fn["buffers"][i]), np.uint8)].reshape(
                meta["arguments"][i]["shape"]) for i in (0, 1))
        k = a.shape[1]
        c = np.zeros((a.shape[0], b.shape[0]), np.float32)
        for p0 in range(0, k, args.chunk):
            part = np.zeros(c.shape)
            for s0 in range(p0, min(k, p0 + args.chunk), 32):
                s1 = min(k, p0 + args.chunk, s0 + 32)
                part = mma_step(part, a[:, None, s0:s1] * b[None, :, s0:s1])
            if not (args.drop_chunk and p0 == 0):
                c += part.astype(np.float32)
        out = len(fn["buffers"]) - 1
        c.tofile(os.path.join(args.folder, f"{fn['name']}.b{out}.result.bin"))


if __name__ == "__main__":
    main()
