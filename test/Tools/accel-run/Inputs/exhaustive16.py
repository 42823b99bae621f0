"""Every finite value of a 16-bit float format, for an exhaustive test of
exp through softmax (softmax([x, 0]) = 1 / (1 + exp(-x)) for every x).
Standard library only: lit runs helpers under its own interpreter.

  exhaustive16.py make f16|bf16 OUT.npy
      writes an N x 2 array: row i is [x_i, 0] for the i-th finite value of
      the format (f16 as '<f2'; bf16 as the '<f4' values it holds exactly)
  exhaustive16.py check f16|bf16 RESULT.npy REF.npy
      reads accel-run's float64 result and fp64 reference (--save-outputs),
      rounds the reference to the format and prints, for the references in
      the format's normal range and for those below it (subnormals), the
      largest distance in units in the last place and how many elements are
      off by more than 1
"""

import ast
import math
import struct
import sys


def finite_values(fmt):
    out = []
    for bits in range(1 << 16):
        if fmt == "f16":
            v = struct.unpack("<e", struct.pack("<H", bits))[0]
        else:
            v = struct.unpack("<f", struct.pack("<I", bits << 16))[0]
        if math.isfinite(v):
            out.append(v)
    return out


def write_npy(path, descr, shape, payload):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d, %d), }" % (
        descr, shape[0], shape[1])
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1") + payload)


def read_f8(path):
    raw = open(path, "rb").read()
    (hlen,) = struct.unpack_from("<H", raw, 8)
    header = ast.literal_eval(raw[10:10 + hlen].decode("latin1"))
    assert header["descr"] == "<f8", header
    data = raw[10 + hlen:]
    return struct.unpack("<%dd" % (len(data) // 8), data)


def bits16(fmt, v):
    """The format's bits of v rounded to nearest even (v is finite or the
    format's own value)."""
    if fmt == "f16":
        return struct.unpack("<H", struct.pack("<e", v))[0]
    (b,) = struct.unpack("<I", struct.pack("<f", v))
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF


def ordered(b):
    """Bits to an integer line where neighbours differ by 1 (+0 = -0 = 0)."""
    return -(b & 0x7FFF) if b & 0x8000 else b


def main():
    mode, fmt = sys.argv[1], sys.argv[2]
    if mode == "make":
        xs = finite_values(fmt)
        code, width = ("e", "<f2") if fmt == "f16" else ("f", "<f4")
        payload = b"".join(struct.pack("<" + code * 2, x, 0.0) for x in xs)
        write_npy(sys.argv[3], width, (len(xs), 2), payload)
        print(f"{len(xs)} finite {fmt} values")
        return 0
    got, ref = read_f8(sys.argv[3]), read_f8(sys.argv[4])
    tiny = 2.0**-14 if fmt == "f16" else 2.0**-126
    worst, over = {"normal": 0, "subnormal": 0}, {"normal": 0, "subnormal": 0}
    for g, r in zip(got, ref):
        d = abs(ordered(bits16(fmt, g)) - ordered(bits16(fmt, r)))
        kind = "subnormal" if 0 < abs(r) < tiny else "normal"
        worst[kind] = max(worst[kind], d)
        over[kind] += d > 1
    print(f"{len(got)} values; " + "; ".join(
        f"{k}: max {worst[k]} ulp, {over[k]} beyond 1 ulp" for k in worst))
    return 0


if __name__ == "__main__":
    sys.exit(main())
