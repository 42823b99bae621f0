#!/usr/bin/env python3
"""The numerics contract for fused attention: on every result that two
accel-run --save-outputs folders share (same functions, same seed, so same
inputs and references), the fused path's max abs error against the fp64
reference must be at most RATIO x the unfused path's, with a floor of one f32
unit roundoff of the result's magnitude (so exact-zero errors do not make the
comparison brittle). Prints one line per result and exits 1 on a violation."""
import argparse
import array
import ast
import pathlib
import struct
import sys


def load_f64(path: pathlib.Path) -> array.array:
    """The float64 data of an .npy file accel-run wrote (standard library only:
    lit runs helpers under its own interpreter)."""
    raw = path.read_bytes()
    if raw[:6] != b"\x93NUMPY":
        raise ValueError(f"{path}: not an .npy file")
    major = raw[6]
    if major == 1:
        (hlen,), start = struct.unpack_from("<H", raw, 8), 10
    else:
        (hlen,), start = struct.unpack_from("<I", raw, 8), 12
    header = ast.literal_eval(raw[start:start + hlen].decode("latin1"))
    if header["descr"] != "<f8" or header["fortran_order"]:
        raise ValueError(f"{path}: expected little-endian C-order float64, got {header}")
    data = array.array("d")
    data.frombytes(raw[start + hlen:])
    if sys.byteorder != "little":
        data.byteswap()
    return data


def max_abs_diff(a: array.array, b: array.array) -> float:
    """max |a - b|; a NaN on one side only is an infinite error."""
    worst = 0.0
    for x, y in zip(a, b):
        if x != x or y != y:
            if (x != x) != (y != y):
                return float("inf")
            continue
        worst = max(worst, abs(x - y))
    return worst


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("fused", type=pathlib.Path)
    parser.add_argument("unfused", type=pathlib.Path)
    parser.add_argument("--max-ratio", type=float, default=2.0)
    args = parser.parse_args()
    results = sorted(p for p in args.fused.glob("*.npy")
                     if not p.name.endswith((".ref.npy", ".bound.npy")))
    if not results:
        print(f"compare_errors: no results in {args.fused}")
        return 1
    bad = 0
    for fused in results:
        unfused = args.unfused / fused.name
        ref_path = fused.with_name(fused.name[: -len(".npy")] + ".ref.npy")
        if not unfused.exists():
            print(f"compare_errors: {unfused} is missing")
            return 1
        ref = load_f64(ref_path)
        if ref.tobytes() != load_f64(args.unfused / ref_path.name).tobytes():
            print(f"compare_errors: {fused.name}: the two runs have different references "
                  "(different inputs?)")
            return 1
        err_f = max_abs_diff(load_f64(fused), ref)
        err_u = max_abs_diff(load_f64(unfused), ref)
        floor = 2.0 ** -24 * max((abs(x) for x in ref), default=0.0)
        allowed = args.max_ratio * max(err_u, floor)
        ok = err_f <= allowed
        bad += not ok
        print(f"{fused.stem}: fused {err_f:.3e} unfused {err_u:.3e} allowed {allowed:.3e} "
              f"{'OK' if ok else 'VIOLATION'}")
    print(f"compare_errors: {len(results) - bad} of {len(results)} results within "
          f"{args.max_ratio}x the unfused error")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
