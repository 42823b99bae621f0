"""Reads and corrupts systolic program binaries (docs/systolic-binary.md).

  sysbin.py dump FILE           prints the header, buffers and instruction
                                words, parsed independently of the C++ code
  sysbin.py corrupt IN OUT KIND writes IN with one defect to OUT

Standard library only (lit runs it with %python).
"""

import struct
import sys


def layout(data):
    """(name_end, [(offset, rank, name_len)], instructions_offset)."""
    (name_len,) = struct.unpack_from("<I", data, 60)
    pos = 64 + (name_len + 7) // 8 * 8
    (count,) = struct.unpack_from("<I", data, 52)
    buffers = []
    for _ in range(count):
        rank, blen = struct.unpack_from("<II", data, pos + 8)
        buffers.append((pos, rank, blen))
        pos += 16 + 8 * rank + (blen + 7) // 8 * 8
    return buffers, pos


def dump(path):
    data = open(path, "rb").read()
    magic, version, rows, cols, inp, acc = struct.unpack_from(
        "<4sHxxIIBB", data, 0)
    print(f"magic {magic.decode()} version {version}")
    print(f"array {rows}x{cols} input {inp} acc {acc}")
    sr, sb, ar, ab, lat, bpc, lanes, nbuf, ninst, nlen = struct.unpack_from(
        "<IIIIIdIIII", data, 20)
    print(f"spad {sr}/{sb} acc {ar}/{ab} latency {lat} bpc {bpc!r} "
          f"lanes {lanes}")
    print(f"name {data[64:64 + nlen].decode()} buffers {nbuf} "
          f"instructions {ninst}")
    buffers, pos = layout(data)
    for off, rank, blen in buffers:
        role, ty, pos_ = struct.unpack_from("<BBxxI", data, off)
        dims = struct.unpack_from(f"<{rank}q", data, off + 16)
        name = data[off + 16 + 8 * rank:off + 16 + 8 * rank + blen].decode()
        print(f"buffer {name} role {role} position {pos_} type {ty} "
              f"shape {list(dims)}")
    for i in range(ninst):
        word = data[pos + 32 * i:pos + 32 * (i + 1)]
        print(f"inst {i}: " + word.hex(" ", 4))
    print(f"size {len(data)} end {pos + 32 * ninst}")


def corrupt(src, dst, kind):
    data = bytearray(open(src, "rb").read())
    _, insts = layout(data)
    if kind == "truncate":          # the last instruction loses a byte
        data = data[:-1]
    elif kind == "short-header":
        data = data[:40]
    elif kind == "magic":
        data[3] = ord("X")
    elif kind == "version":
        data[4:6] = struct.pack("<H", 2)
    elif kind == "opcode":          # instruction 1
        data[insts + 32] = 12
    elif kind == "mvin-no-registers":   # instruction 1 as opcode 9, no regs
        data[insts + 32] = 9
        data[insts + 32 + 6:insts + 32 + 8] = b"\xff\xff"
    elif kind == "sload-register":  # instruction 1 as an sload of r16
        data[insts + 32] = 8
        data[insts + 32 + 1] = 16
    elif kind == "unpack":          # byte 3 of an mvin word (instruction 1)
        data[insts + 32 + 3] = 9
    elif kind == "unused":          # byte 17 of instruction 0 (a config)
        data[insts + 17] = 0x80
    elif kind == "input-type":
        data[16] = 1               # i32 is no input type
    elif kind == "buffer-count":
        data[52:56] = struct.pack("<I", 0xFFFFFFFF)
    elif kind == "instruction-count":
        data[56:60] = struct.pack("<I", 0x7FFFFFFF)
    elif kind == "trailing":
        data += b"\0" * 32 + b"\1"
    elif kind == "rank":           # buffer 0
        buffers, _ = layout(data)
        data[buffers[0][0] + 8:buffers[0][0] + 12] = struct.pack(
            "<I", 0xFFFFFFFF)
    elif kind == "name-char":      # buffer 0's name
        off, rank, _ = layout(data)[0][0]
        data[off + 16 + 8 * rank] = ord(" ")
    elif kind == "mvin-rows":      # instruction 1 (an mvin): rows 1000
        data[insts + 32 + 24:insts + 32 + 28] = struct.pack("<I", 1000)
    else:
        sys.exit(f"unknown corruption {kind}")
    open(dst, "wb").write(bytes(data))


if __name__ == "__main__":
    if sys.argv[1] == "dump":
        dump(sys.argv[2])
    else:
        corrupt(sys.argv[2], sys.argv[3], sys.argv[4])
