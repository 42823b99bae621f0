#!/usr/bin/env python3
"""Writes N random accel.attention cases (a fixed seed: the same file every
time) for accel-run to check against the fp64 oracle:

    python3 gen_attention_random.py --seed 1 --count 24 > cases.mlir

Each case draws its shapes (B, Hq, Hkv with Hq % Hkv == 0, Sq and Skv from 1
to 150 so tiles are partial, D and Dv), its element type (f32, f16, bf16),
the output type, causal or not, an optional window (1 to Skv + 2), optional
kv and q lengths (constants from -2 to S + 2, or function arguments accel-run
draws from [0, S]), an optional mask (i1 or additive, broadcast shapes), an
explicit scale or the default. Standard library only (lit runs it)."""
import argparse
import random


def ty(shape, elt):
    return "tensor<" + "".join(f"{d}x" for d in shape) + elt + ">"


def case(rng, index, systolic=False):
    b = rng.choice([1, 1, 2, 3])
    hkv = rng.choice([1, 2])
    hq = hkv * rng.choice([1, 2, 3])
    sq = rng.choice([1, rng.randint(2, 40), rng.randint(40, 150)])
    skv = rng.choice([1, rng.randint(2, 40), rng.randint(40, 150)])
    d = rng.choice([8, 16, 24, 64])
    dv = rng.choice([d, 8, 32])
    elt = rng.choice(["f32", "f32", "f16", "bf16"])
    if systolic and elt == "f16":
        elt = "bf16"  # the array takes bf16 and f32
    out = rng.choice(["f32", elt]) if elt != "f32" else "f32"
    causal = rng.random() < 0.6
    window = rng.randint(1, skv + 2) if causal and rng.random() < 0.5 else None
    if systolic:
        window = None
    tq, tk, tv, to = (ty((b, hq, sq, d), elt), ty((b, hkv, skv, d), elt),
                      ty((b, hkv, skv, dv), elt), ty((b, hq, sq, dv), out))
    params = [f"%q: {tq}", f"%k: {tk}", f"%v: {tv}"]
    body = []
    operands = ""
    lengths = ""
    for name, size in (("kv_lengths", skv), ("q_lengths", sq)):
        kind = rng.choice(["none", "none", "const", "arg"])
        lt = ty((b,), rng.choice(["i32", "i64"]))
        if systolic:
            kind = "none"
        if kind == "const":
            values = ", ".join(str(rng.randint(-2, size + 2)) for _ in range(b))
            body.append(f"  %{name} = arith.constant dense<[{values}]> : {lt}")
            lengths += f" {name}(%{name} : {lt})"
        elif kind == "arg":
            params.append(f"%{name}: {lt}")
            lengths += f" {name}(%{name} : {lt})"
    mask_kind = rng.choice(["none", "none", "i1", "add"])
    if systolic and mask_kind == "i1":
        mask_kind = "add"  # additive masks only on the array
    if mask_kind != "none":
        full = (b, hq, sq, skv)
        rank = rng.randint(1, 4)
        shape = [full[4 - rank + i] if rng.random() < 0.7 else 1 for i in range(rank)]
        shape[-1] = skv
        mt = ty(tuple(shape), "i1" if mask_kind == "i1" else rng.choice(["f32", "f16"]))
        if systolic:
            mt = mt.replace("f16", "f32")
        params.append(f"%m: {mt}")
        operands = f" mask(%m : {mt})"
    flags = ("causal " if causal else "") + (f"window({window}) " if window else "")
    if rng.random() < 0.3:
        flags += f"scale({rng.choice([0.5, 0.125, 0.03125, 1.0])}) "
    return (f"func.func @case_{index}({', '.join(params)}) -> {to} {{\n"
            + "".join(line + "\n" for line in body)
            + f"  %o = tensor.empty() : {to}\n"
            + f"  %r = accel.attention {flags}ins(%q, %k, %v : {tq}, {tk}, {tv})"
            + f"{operands}{lengths} outs(%o : {to}) -> {to}\n"
            + f"  return %r : {to}\n}}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=24)
    parser.add_argument("--systolic", action="store_true",
                        help="only what the systolic lowering takes: bf16 "
                        "for f16, additive f32 masks, no windows or lengths "
                        "(the same draws, mapped)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print("\n".join(case(rng, i, args.systolic) for i in range(args.count)))


if __name__ == "__main__":
    main()
