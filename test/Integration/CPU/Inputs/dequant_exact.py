"""Bit-exact dequantisation of accel.dequant_matmul (dequant-exact.test).

  make DIR       writes the inputs of Inputs/dequant-exact.mlir's functions:
                 A = the identity, weights covering every nibble / byte,
                 scales and zero points with full f32 / f16 significands
  check OUT REF BITS  compares the saved result OUT (C = I·wᵀ = wᵀ) with this
                 script's own dequantisation, w = f32(f32(q - z) * s), bit
                 for bit, and with the oracle's REF

Independent of the compiler and of the oracle: numpy's float32 arithmetic
rounds each of the two steps as the op's rule says.
"""
import sys

import numpy as np

K, N = 64, 16


def inputs(bits, scale_type):
    rng = np.random.default_rng(bits)
    groups = K // 32
    row_bytes = K * bits // 8
    # Every byte value appears: rows of consecutive bytes from a random start.
    start = rng.integers(0, 256, size=(N, 1))
    w = ((start + np.arange(row_bytes)) % 256).astype(np.uint8).view(np.int8)
    s = rng.uniform(0.01, 2.0, size=(N, groups)).astype(scale_type)
    z = rng.uniform(-3.0, 18.0, size=(N, groups)).astype(scale_type)
    return w, s, z


def dequant(w, s, z, bits):
    u = w.view(np.uint8).astype(np.int64)
    if bits == 4:
        q = np.empty((N, K), dtype=np.int64)
        q[:, 0::2] = u & 15
        q[:, 1::2] = u >> 4
    else:
        q = np.where(u >= 128, u - 256, u)
    g = np.arange(K) // 32
    s32 = s.astype(np.float32)[:, g]
    z32 = z.astype(np.float32)[:, g]
    diff = (q.astype(np.float32) - z32).astype(np.float32)
    return (diff * s32).astype(np.float32)


def main():
    if sys.argv[1] == "make":
        d = sys.argv[2]
        np.save(f"{d}/eye.npy", np.eye(K, dtype=np.float32))
        for bits, st in ((4, np.float32), (8, np.float16)):
            w, s, z = inputs(bits, st)
            np.save(f"{d}/w{bits}.npy", w)
            np.save(f"{d}/s{bits}.npy", s.astype(np.float32))
            np.save(f"{d}/z{bits}.npy", z.astype(np.float32))
        return
    out, ref, bits = np.load(sys.argv[2]), np.load(sys.argv[3]), int(sys.argv[4])
    w, s, z = inputs(bits, np.float32 if bits == 4 else np.float16)
    want = dequant(w, s, z, bits).T.astype(np.float64)
    bad = int(np.count_nonzero(out != want))
    bad_ref = int(np.count_nonzero(ref != want))
    print(f"bits {bits}: {out.size} weights, {bad} differ from numpy's "
          f"dequantisation, the oracle's {bad_ref}")
    sys.exit(0 if bad == 0 and bad_ref == 0 else 1)


if __name__ == "__main__":
    main()
