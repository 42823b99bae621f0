"""Weight-only quantisation for `accel.dequant_matmul` (docs/quantization.md).

`quantize(w, bits, group)` turns float weights `[N, K]` (one row per output
channel, as a linear layer's weight) into the op's operands: the packed
bytes `[N, K * bits / 8]` (int4: weight k in the low nibble of byte k / 2
for even k, the high nibble for odd k), the scales and, for the asymmetric
(min/max, GPTQ/AWQ-style unsigned) form, the zero points `[N, K / group]`.
`dequantize` applies the op's rule, w = f32(f32(q - z) * s), exactly as the
kernels and the fp64 oracle do, so `A @ dequantize(...).T` is the matmul the
compiled kernel computes (summed in f32).

Round-to-nearest, no calibration: GPTQ/AWQ-style checkpoints already hold
these three arrays (convert their packing to this one); this is for tests,
examples and weights without a checkpoint of their own.
"""

from typing import NamedTuple, Optional

import numpy as np


class Quantized(NamedTuple):
    """The operands of accel.dequant_matmul for one weight matrix."""
    packed: np.ndarray                 # int8 [N, K * bits / 8]
    scales: np.ndarray                 # float32 [N, K / group]
    zero_points: Optional[np.ndarray]  # float32 [N, K / group], or None
    bits: int
    group: int
    unsigned: bool

    def dequantize(self) -> np.ndarray:
        return dequantize(self.packed, self.scales, self.zero_points,
                          self.bits, self.group, self.unsigned)


def _check(bits: int, group: int, k: int) -> None:
    if bits not in (4, 8):
        raise ValueError(f"bits must be 4 or 8, got {bits}")
    if group < 1 or k % group:
        raise ValueError(f"group {group} does not divide K = {k}")
    if bits == 4 and (k % 2 or group % 2):
        raise ValueError("bits=4 needs an even K and an even group (two "
                         "weights a byte, one group per byte)")


def quantize(w: np.ndarray, bits: int = 4, group: int = 128,
             symmetric: bool = False) -> Quantized:
    """Round-to-nearest quantisation of `w` [N, K] in groups of `group` K.

    symmetric: signed weights, s = max|w| / (2^(bits-1) - 1), no zero points.
    Otherwise unsigned weights with zero points (min/max): s = (max - min) /
    (2^bits - 1), z = round(-min / s), both stored as float32 (z integral).
    Scales are float32; pass them as bf16 or f16 to the op if you prefer
    (the op computes in f32 either way).
    """
    w = np.asarray(w, dtype=np.float32)
    if w.ndim != 2:
        raise ValueError(f"w must be [N, K], got shape {w.shape}")
    n, k = w.shape
    _check(bits, group, k)
    g = w.reshape(n, k // group, group)
    if symmetric:
        qmax = 2 ** (bits - 1) - 1
        s = np.abs(g).max(axis=2) / qmax
        s = np.where(s > 0, s, 1.0).astype(np.float32)
        q = np.clip(np.rint(g / s[:, :, None]), -qmax - 1, qmax)
        z = None
    else:
        qmax = 2 ** bits - 1
        lo = np.minimum(g.min(axis=2), 0.0)
        hi = np.maximum(g.max(axis=2), 0.0)
        s = ((hi - lo) / qmax).astype(np.float32)
        s = np.where(s > 0, s, 1.0).astype(np.float32)
        z = np.clip(np.rint(-lo / s), 0, qmax).astype(np.float32)
        q = np.clip(np.rint(g / s[:, :, None]) + z[:, :, None], 0, qmax)
    q = q.reshape(n, k).astype(np.int64)
    return Quantized(pack(q, bits), s, z, bits, group, not symmetric)


def pack(q: np.ndarray, bits: int) -> np.ndarray:
    """Integer weights [N, K] (each in the range of `bits` bits, signed or
    unsigned) as the op's bytes [N, K * bits / 8] (int8)."""
    q = np.asarray(q, dtype=np.int64)
    if bits == 8:
        return (q & 0xFF).astype(np.uint8).view(np.int8)
    if q.shape[1] % 2:
        raise ValueError("int4 weights need an even K")
    lo, hi = q[:, 0::2] & 0xF, q[:, 1::2] & 0xF
    return (lo | (hi << 4)).astype(np.uint8).view(np.int8)


def unpack(packed: np.ndarray, bits: int, unsigned: bool) -> np.ndarray:
    """The integer weights [N, K] of the op's bytes."""
    u = np.asarray(packed).view(np.uint8).astype(np.int64)
    if bits == 8:
        return u if unsigned else np.where(u >= 128, u - 256, u)
    q = np.empty((u.shape[0], 2 * u.shape[1]), dtype=np.int64)
    q[:, 0::2], q[:, 1::2] = u & 0xF, u >> 4
    return q if unsigned else np.where(q >= 8, q - 16, q)


def dequantize(packed: np.ndarray, scales: np.ndarray,
               zero_points: Optional[np.ndarray], bits: int, group: int,
               unsigned: bool) -> np.ndarray:
    """The op's dequantised weights [N, K], float32: f32(f32(q - z) * s)."""
    q = unpack(packed, bits, unsigned).astype(np.float32)
    k = q.shape[1]
    _check(bits, group, k)
    idx = np.arange(k) // group
    s = np.asarray(scales, dtype=np.float32)[:, idx]
    if zero_points is not None:
        q = (q - np.asarray(zero_points, dtype=np.float32)[:, idx]).astype(np.float32)
    return (q * s).astype(np.float32)
