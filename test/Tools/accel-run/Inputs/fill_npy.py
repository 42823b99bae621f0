"""fill_npy.py DTYPE SHAPE VALUES OUT: writes a .npy of DTYPE (i1: int8,
f2: float16, f4: float32, f8: float64) and SHAPE (e.g. 4x8) whose elements
are VALUES (comma separated) repeated in row-major order. Standard library
only: lit runs helpers under its own interpreter."""

import struct
import sys


def main():
    dtype, shape, values, out = sys.argv[1:5]
    dims = [int(d) for d in shape.split("x")]
    count = 1
    for d in dims:
        count *= d
    code = {"i1": "b", "f2": "e", "f4": "f", "f8": "d"}[dtype]
    conv = int if dtype == "i1" else float
    pattern = [conv(v) for v in values.split(",")]
    data = [pattern[i % len(pattern)] for i in range(count)]
    descr = "|i1" if dtype == "i1" else "<" + dtype
    shape_text = ", ".join(map(str, dims)) + ("," if len(dims) == 1 else "")
    header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': ({shape_text}), }}"
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(out, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        f.write(struct.pack(f"<{count}{code}", *data))


if __name__ == "__main__":
    main()
