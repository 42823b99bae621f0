#!/usr/bin/env python3
"""Prints the values of the float64 .npy files accel-run --save-outputs
wrote, one per line ('name[i] = value'), for FileCheck. Standard library
only: lit runs helpers under its own interpreter.

    print_npy.py FILE.npy...
"""
import ast
import pathlib
import struct
import sys


def main() -> int:
    for name in sys.argv[1:]:
        raw = pathlib.Path(name).read_bytes()
        (hlen,) = struct.unpack_from("<H", raw, 8)
        header = ast.literal_eval(raw[10:10 + hlen].decode("latin1"))
        if header["descr"] != "<f8":
            print(f"print_npy: {name}: expected float64, got {header['descr']}")
            return 1
        data = raw[10 + hlen:]
        values = struct.unpack("<%dd" % (len(data) // 8), data)
        stem = pathlib.Path(name).name
        for i, v in enumerate(values):
            print(f"{stem}[{i}] = {v:.9g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
