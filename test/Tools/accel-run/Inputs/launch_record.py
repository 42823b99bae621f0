#!/usr/bin/env python3
"""A stand-in for a GPU in nvptx-record-replay.test: "launches" every matmul
kernel of an `accel-run --record` folder by computing it with numpy from
the recorded buffers, and writes <function>.b<N>.result.bin for the buffers
the kernel writes, as bench/gpu/check.py's device step does on a GPU.
Handles a matmul's buffers: A [M, K], B ([N, K] for 8-bit inputs, else
[K, N]), the result; i8 -> i32 (wrapping), bf16/f16/f32 -> f32.

    launch_record.py FOLDER [--skip-last]   (leave the last element unwritten)
"""
import json
import os
import sys

import numpy as np


def load(folder, meta, i, name):
    arg = meta["arguments"][i]
    raw = np.fromfile(os.path.join(folder, name), np.uint8)
    if arg["dtype"] == "bf16":
        x = (raw.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
    else:
        x = raw.view({"i8": np.int8, "f16": np.float16, "f32": np.float32,
                      "i32": np.int32}[arg["dtype"]])
    return x.reshape(arg["shape"])


def main():
    folder, skip_last = sys.argv[1], "--skip-last" in sys.argv[2:]
    manifest = json.load(open(os.path.join(folder, "manifest.json")))
    for fn in manifest["functions"]:
        meta = json.load(open(os.path.join(folder, fn["metadata"])))
        a, b = (load(folder, meta, i, fn["buffers"][i]) for i in (0, 1))
        out = len(fn["buffers"]) - 1
        if a.dtype == np.int8:
            c = (a.astype(np.int64) @ b.astype(np.int64).T).astype(np.int32)
        else:
            c = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
        raw = bytearray(c.tobytes())
        if skip_last:
            raw[-4:] = b"\xff" * 4
        with open(os.path.join(folder, f"{fn['name']}.b{out}.result.bin"), "wb") as f:
            f.write(raw)


if __name__ == "__main__":
    main()
