"""Helpers for the accel-sim tests. Standard library only (lit runs it with
%python; numpy may be missing).

  simtest.py exit CODE CMD...       runs CMD (its output passes through) and
                                    succeeds only if it exits with CODE
  simtest.py npy DTYPE SHAPE SEED OUT [VERSION]
                                    writes a random .npy (format VERSION, 1 by
                                    default): i1 over [-128, 127], i4 over
                                    [-1000, 1000], f4 and u2 (bf16 bits) the
                                    same multiples of 1/8 in [-2, 2] for one
                                    seed
  simtest.py npy-values DTYPE SHAPE V1,V2,... OUT
                                    writes those values
  simtest.py bad-npy KIND OUT [SHAPE]
                                    writes a malformed .npy (KIND below) of
                                    int8 (2x2 or SHAPE)
  simtest.py dump FILE              prints a .npy's dtype, shape and sum
  simtest.py check-matmul A B C [C0]
                                    checks C == A @ B (+ C0) exactly (int8
                                    inputs, int32 C and C0)
  simtest.py patch IN OUT KIND      writes the program binary IN with one
                                    change (KIND below) to OUT
"""

import ast
import random
import struct
import subprocess
import sys

FORMATS = {"i1": "b", "i4": "i", "f4": "f", "u2": "H"}


def npy_bytes(descr, shape, payload, version=1, extra="", fortran=False):
    dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
    header = (f"{{'descr': '{descr}', 'fortran_order': {fortran}, "
              f"'shape': ({dims}), {extra}}}")
    total = 10 + (2 if version > 1 else 0) + len(header) + 1
    header += " " * ((64 - total % 64) % 64) + "\n"
    size = struct.pack("<H" if version == 1 else "<I", len(header))
    return (b"\x93NUMPY" + bytes([version, 0]) + size + header.encode() +
            payload)


def read_npy(path):
    data = open(path, "rb").read()
    assert data[:6] == b"\x93NUMPY", "bad magic"
    if data[6] == 1:
        (hlen,) = struct.unpack_from("<H", data, 8)
        start = 10
    else:
        (hlen,) = struct.unpack_from("<I", data, 8)
        start = 12
    header = ast.literal_eval(data[start:start + hlen].decode())
    assert not header["fortran_order"]
    descr, shape = header["descr"], tuple(header["shape"])
    count = 1
    for d in shape:
        count *= d
    fmt = FORMATS[descr[1:]]
    payload = data[start + hlen:]
    assert len(payload) == count * struct.calcsize(fmt), "data size"
    return descr, shape, list(struct.unpack(f"<{count}{fmt}", payload))


def random_npy(dtype, shape, seed, out, version=1):
    shape = [int(d) for d in shape.split("x")]
    count = 1
    for d in shape:
        count *= d
    rng = random.Random(int(seed))
    if dtype == "i1":
        values = [rng.randint(-128, 127) for _ in range(count)]
        descr = "|i1"
    elif dtype == "i4":
        values = [rng.randint(-1000, 1000) for _ in range(count)]
        descr = "<i4"
    else:
        # k/8 for |k| <= 16 is exact in bf16, so the f4 and u2 files of one
        # seed hold the same numbers.
        floats = [rng.randint(-16, 16) / 8 for _ in range(count)]
        if dtype == "f4":
            values, descr = floats, "<f4"
        else:
            values = [struct.unpack("<I", struct.pack("<f", f))[0] >> 16
                      for f in floats]
            descr = "<u2"
    payload = struct.pack(f"<{count}{FORMATS[dtype]}", *values)
    open(out, "wb").write(npy_bytes(descr, shape, payload, int(version)))


def values_npy(dtype, shape, values, out):
    shape = [int(d) for d in shape.split("x")]
    conv = float if dtype == "f4" else int
    values = [conv(v) for v in values.split(",")]
    descr = ("|" if dtype == "i1" else "<") + dtype
    payload = struct.pack(f"<{len(values)}{FORMATS[dtype]}", *values)
    open(out, "wb").write(npy_bytes(descr, shape, payload))


def bad_npy(kind, out, shape="2x2"):
    shape = [int(d) for d in shape.split("x")]
    count = 1
    for d in shape:
        count *= d
    good = npy_bytes("|i1", shape, bytes(count))
    data = {
        "magic": b"NUMPY\x01\x00" + b"\0" * 60,
        "version": good[:6] + b"\x07\x00" + b"\0" * 60,
        "truncated": good[:40],
        "no-shape": good.replace(b"'shape'", b"'shapes'"),
        "fortran": npy_bytes("|i1", shape, bytes(count), fortran=True),
        "short": good[:-1],
    }[kind]
    open(out, "wb").write(data)


def shortest(v):
    """The shortest '%g' spelling that reads back as v, as accel-sim prints
    its checksums."""
    for precision in range(1, 18):
        text = "%.*g" % (precision, v)
        if float(text) == v:
            return text
    return text


def dump(path):
    descr, shape, values = read_npy(path)
    print(f"descr '{descr}' shape {shape} sum {shortest(sum(values))}")


def check_matmul(a_path, b_path, c_path, c0_path=None):
    _, (m, k), a = read_npy(a_path)
    _, (k2, n), b = read_npy(b_path)
    descr, shape, c = read_npy(c_path)
    assert k == k2 and descr == "<i4" and shape == (m, n), (descr, shape)
    c0 = read_npy(c0_path)[2] if c0_path else [0] * (m * n)
    bad = 0
    for i in range(m):
        for j in range(n):
            want = c0[i * n + j] + sum(a[i * k + x] * b[x * n + j]
                                       for x in range(k))
            if c[i * n + j] != want:
                bad += 1
    print(f"matmul {m}x{k}x{n}: {bad} wrong, sum {sum(c)}")
    sys.exit(1 if bad else 0)


def layout(data):
    """([(offset, rank, name_len)], instructions_offset) of a binary
    (docs/systolic-binary.md)."""
    (name_len,) = struct.unpack_from("<I", data, 60)
    pos = 64 + (name_len + 7) // 8 * 8
    (count,) = struct.unpack_from("<I", data, 52)
    buffers = []
    for _ in range(count):
        rank, blen = struct.unpack_from("<II", data, pos + 8)
        buffers.append((pos, rank, blen))
        pos += 16 + 8 * rank + (blen + 7) // 8 * 8
    return buffers, pos


def patch(src, dst, kind):
    data = bytearray(open(src, "rb").read())
    buffers, insts = layout(data)
    if kind == "magic":
        data[3] = ord("X")
    elif kind == "truncate":
        data = data[:-1]
    elif kind == "dup-name":          # buffer 1 takes buffer 0's name
        (o0, r0, l0), (o1, r1, l1) = buffers[0], buffers[1]
        assert l0 == l1
        n0, n1 = o0 + 16 + 8 * r0, o1 + 16 + 8 * r1
        data[n1:n1 + l1] = data[n0:n0 + l0]
    elif kind == "dup-position":      # buffer 1 (an argument) at position 0
        data[buffers[1][0] + 4:buffers[1][0] + 8] = struct.pack("<I", 0)
    elif kind == "mvin-rows":         # instruction 1 (an mvin): rows 1000
        data[insts + 32 + 24:insts + 32 + 28] = struct.pack("<I", 1000)
    else:
        sys.exit(f"unknown patch {kind}")
    open(dst, "wb").write(bytes(data))


def main(argv):
    cmd = argv[1]
    if cmd == "exit":
        code = subprocess.call(argv[3:])
        if code != int(argv[2]):
            sys.stderr.write(f"simtest.py: exit code {code}, expected "
                             f"{argv[2]}\n")
            sys.exit(1)
    elif cmd == "npy":
        random_npy(*argv[2:])
    elif cmd == "npy-values":
        values_npy(*argv[2:])
    elif cmd == "bad-npy":
        bad_npy(*argv[2:])
    elif cmd == "dump":
        dump(argv[2])
    elif cmd == "check-matmul":
        check_matmul(*argv[2:])
    elif cmd == "patch":
        patch(*argv[2:5])
    else:
        sys.exit(f"unknown command {cmd}")


if __name__ == "__main__":
    main(sys.argv)
