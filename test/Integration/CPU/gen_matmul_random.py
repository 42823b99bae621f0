#!/usr/bin/env python3
"""Writes N random accel.matmul cases (a fixed seed: the same file every
time) for accel-run to check against the fp64 oracle:

    python3 gen_matmul_random.py --seed 1 --count 30 > cases.mlir

Each case draws M, N, K (1 to 300, so register and cache tiles are partial
and the dot kernels' K groups and column groups are ragged), optional batch
dimensions, transpose_b, accumulate, and the precision: f32, f16 -> f32,
bf16 -> f32 (vdpbf16ps on AVX512-BF16 hosts), i8 -> i32 (vpdpbusd on VNNI
hosts), f8E4M3FN -> f32. Standard library only (lit runs it)."""
import argparse
import random


def ty(shape, elt):
    return "tensor<" + "".join(f"{d}x" for d in shape) + elt + ">"


def size(rng):
    return rng.choice([1, rng.randint(2, 20), rng.randint(20, 130), rng.randint(130, 300)])


def case(rng, index, systolic=False):
    m, n, k = size(rng), size(rng), size(rng)
    batch = tuple(rng.randint(1, 3) for _ in range(rng.choice([0, 0, 0, 1])))
    a, c = rng.choice([("f32", "f32"), ("f16", "f32"), ("bf16", "f32"),
                       ("bf16", "f32"), ("i8", "i32"), ("i8", "i32"),
                       ("f8E4M3FN", "f32")])
    if systolic and a in ("f16", "f8E4M3FN"):
        a = "bf16"  # the array takes i8, bf16 and f32
    tb = rng.random() < 0.25
    acc = rng.random() < 0.25
    ta = ty(batch + (m, k), a)
    tbt = ty(batch + ((n, k) if tb else (k, n)), a)
    tc = ty(batch + (m, n), c)
    params = [f"%a: {ta}", f"%b: {tbt}"] + ([f"%c: {tc}"] if acc else [])
    init = "%c" if acc else "%o"
    flags = ("transpose_b " if tb else "") + ("accumulate " if acc else "")
    return (f"func.func @case_{index}({', '.join(params)}) -> {tc} {{\n"
            + ("" if acc else f"  %o = tensor.empty() : {tc}\n")
            + f"  %r = accel.matmul {flags}ins(%a, %b : {ta}, {tbt}) outs({init} : {tc}) -> {tc}\n"
            + f"  return %r : {tc}\n}}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=30)
    parser.add_argument("--systolic", action="store_true",
                        help="only the systolic array's types: bf16 for f16 "
                        "and f8 (the same draws, mapped)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print("\n".join(case(rng, i, args.systolic) for i in range(args.count)))


if __name__ == "__main__":
    main()
