"""Writes malformed and unusual .npy files for accel-run's error tests, with
the standard library only (no numpy): make_npy.py OUT_DIR."""
import os
import struct
import sys


def npy(path, header, data=b"", version=1, length=None):
    body = header.encode()
    body += b" " * ((64 - (10 + len(body) + 1) % 64) % 64) + b"\n"
    n = len(body) if length is None else length
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY" + bytes([version, 0]))
        f.write(struct.pack("<H", n) if version == 1 else struct.pack("<I", n))
        f.write(body)
        f.write(data)


out = sys.argv[1]
os.makedirs(out, exist_ok=True)
floats = struct.pack("<15f", *range(15))
npy(f"{out}/fortran.npy", "{'descr': '<f4', 'fortran_order': True, 'shape': (3, 5), }", floats)
npy(f"{out}/bigendian.npy", "{'descr': '>f4', 'fortran_order': False, 'shape': (3, 5), }", floats)
npy(f"{out}/complex.npy", "{'descr': '<c8', 'fortran_order': False, 'shape': (3, 5), }", floats * 2)
npy(f"{out}/nodescr.npy", "{'fortran_order': False, 'shape': (3, 5), }", floats)
npy(f"{out}/version9.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 5), }", floats, version=9)
npy(f"{out}/truncated.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 5), }", b"", length=4000)
npy(f"{out}/short.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 5), }", floats[:20])
npy(f"{out}/f16.npy", "{'descr': '<f2', 'fortran_order': False, 'shape': (3, 5), }", struct.pack("<15e", *range(15)))
