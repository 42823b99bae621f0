#!/usr/bin/env python3
"""Writes, as a float64 .npy accel-run reads, the f32 values that exercise a
cast to an fp8 format: every finite value of the format, every midpoint
between neighbours (the ties of round to nearest even) and the f32 values
one ulp either side of it, the overflow boundary and what lies beyond it,
the smallest subnormal's half (which ties to 0), infinities and NaN, with
both signs. With --codes, instead: the value of each of the format's 256
codes, in code order (NaN for the NaN codes).

    f8_cast_values.py [--codes] e4m3fn|e5m2|e4m3fnuz|e5m2fnuz OUT.npy
"""
import math
import struct
import sys


FORMATS = {  # mantissa bits, exponent bias
    "e4m3fn": (3, 7),
    "e5m2": (2, 15),
    "e4m3fnuz": (3, 8),
    "e5m2fnuz": (2, 16),
}


def decode(code: int, fmt: str) -> float:
    """The value of an fp8 code (OCP E4M3FN or E5M2, or their FNUZ variants:
    no infinities, no -0, one NaN at 0x80)."""
    mbits, bias = FORMATS[fmt]
    if fmt.endswith("fnuz") and code == 0x80:
        return math.nan
    sign = -1.0 if code & 0x80 else 1.0
    exp = (code & 0x7F) >> mbits
    man = code & ((1 << mbits) - 1)
    top = (1 << (7 - mbits)) - 1
    if fmt == "e4m3fn" and exp == top and man == (1 << mbits) - 1:
        return math.nan
    if fmt == "e5m2" and exp == top:
        return math.nan if man else sign * math.inf
    if exp == 0:
        return sign * man * 2.0 ** (1 - bias - mbits)
    return sign * (1 + man / (1 << mbits)) * 2.0 ** (exp - bias)


def f32_neighbours(x: float):
    """x and the f32 values one ulp below and above it (x an f32 value)."""
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    out = [x]
    for b in (bits - 1, bits + 1):
        out.append(struct.unpack("<f", struct.pack("<I", b & 0xFFFFFFFF))[0])
    return out


def write_npy(path: str, values) -> None:
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (%d,), }" % len(values)
    header += " " * (63 - (len(header) + 10) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(struct.pack("<%dd" % len(values), *values))


def main() -> int:
    args = sys.argv[1:]
    if args and args[0] == "--codes":
        fmt, path = args[1], args[2]
        write_npy(path, [decode(c, fmt) for c in range(256)])
        print(256)
        return 0
    fmt, path = args[0], args[1]
    finite = sorted({decode(c, fmt) for c in range(0x80) if math.isfinite(decode(c, fmt))})
    values = list(finite)
    for lo, hi in zip(finite, finite[1:]):
        values += f32_neighbours((lo + hi) / 2)
    largest = finite[-1]
    step = largest - finite[-2]
    boundary = largest + step / 2
    values += f32_neighbours(boundary)
    values += [largest + step, 2 * largest, 1e6, 3.0e38, math.inf, math.nan]
    values += f32_neighbours(finite[1] / 2)
    values += [1e-30, 1e-45]
    values += [-v for v in values]
    write_npy(path, values)
    print(len(values))
    return 0


if __name__ == "__main__":
    sys.exit(main())
