#!/usr/bin/env python3
"""Checks what accel-run --save-outputs wrote for a cast of f32 values to an
fp8 format and back against ml_dtypes, bit for bit (the sign of zero too,
NaN where NaN): a second reference beside accel-run's APFloat oracle.

    f8_cast_check.py e4m3fn|e5m2|e4m3fnuz|e5m2fnuz INPUT.npy OUTPUT.npy

INPUT holds the values accel-run was given (float64; the kernel sees them
rounded to f32, or to the fp8 format for an fp8 argument, which is the
same for values the format holds), OUTPUT the values it returned.
"""
import sys

import ml_dtypes
import numpy as np

TYPES = {
    "e4m3fn": ml_dtypes.float8_e4m3fn,
    "e5m2": ml_dtypes.float8_e5m2,
    "e4m3fnuz": ml_dtypes.float8_e4m3fnuz,
    "e5m2fnuz": ml_dtypes.float8_e5m2fnuz,
}


def main() -> int:
    fmt, inputs, outputs = sys.argv[1], np.load(sys.argv[2]), np.load(sys.argv[3])
    x = inputs.astype(np.float32)
    want = x.astype(TYPES[fmt]).astype(np.float32).astype(np.float64)
    got = outputs.astype(np.float64)
    if want.shape != got.shape:
        print(f"f8_cast_check: {fmt}: shapes differ: {want.shape} vs {got.shape}")
        return 1
    same = (np.isnan(want) & np.isnan(got)) | (
        (want == got) & (np.signbit(want) == np.signbit(got)))
    bad = np.flatnonzero(~same)
    for i in bad[:10]:
        print(f"f8_cast_check: {fmt}: [{i}] {x[i]!r} -> {got[i]!r}, ml_dtypes {want[i]!r}")
    print(f"f8_cast_check: {fmt}: {len(got) - len(bad)} of {len(got)} agree with ml_dtypes")
    return 1 if len(bad) else 0


if __name__ == "__main__":
    sys.exit(main())
