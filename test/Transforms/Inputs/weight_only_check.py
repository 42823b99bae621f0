"""accel-lower-precision weight-only=int4|int8 against python/accel/quant.py
(accel-lower-precision-weight-only.test).

  make BITS SYM OUT.mlir   a matmul of f32 A [3, 128] and constant weights
                           B [128, 6] (as hex, exact), and the same weights
                           transposed (transpose_b)
  check BITS SYM GROUP     reads accel-opt's output (hex constants) on stdin
                           and compares the packed bytes, scales and zero
                           points of both matmuls with quant.quantize()
"""
import re
import sys

import numpy as np

sys.path.insert(0, sys.argv[-1])  # the repository's python/
from accel import quant  # noqa: E402

K, N = 128, 6


def weights(bits, sym):
    rng = np.random.default_rng(10 * bits + sym)
    w = rng.standard_normal((N, K)).astype(np.float32)
    w[0, :32] = 0.0           # an all-zero group: scale 1
    w[1, 32:64] = np.abs(w[1, 32:64])  # a group without negatives: z = 0
    return w


def hexdense(a):
    return '"0x' + a.tobytes().hex().upper() + '"'


def main():
    mode, bits, sym = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    w = weights(bits, sym)
    if mode == "make":
        text = f"""
func.func @plain(%a: tensor<3x{K}xf32>) -> tensor<3x{N}xf32> {{
  %b = arith.constant dense<{hexdense(np.ascontiguousarray(w.T))}> : tensor<{K}x{N}xf32>
  %c = tensor.empty() : tensor<3x{N}xf32>
  %0 = accel.matmul ins(%a, %b : tensor<3x{K}xf32>, tensor<{K}x{N}xf32>) outs(%c : tensor<3x{N}xf32>) -> tensor<3x{N}xf32>
  return %0 : tensor<3x{N}xf32>
}}
func.func @transposed(%a: tensor<3x{K}xf32>) -> tensor<3x{N}xf32> {{
  %b = arith.constant dense<{hexdense(w)}> : tensor<{N}x{K}xf32>
  %c = tensor.empty() : tensor<3x{N}xf32>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<3x{K}xf32>, tensor<{N}x{K}xf32>) outs(%c : tensor<3x{N}xf32>) -> tensor<3x{N}xf32>
  return %0 : tensor<3x{N}xf32>
}}
"""
        open(sys.argv[4], "w").write(text)
        return
    group = int(sys.argv[4])
    qw = quant.quantize(w, bits, group if group else K, symmetric=bool(sym))
    text = sys.stdin.read()
    # Constants in order, as hex (--mlir-print-elementsattrs-with-hex-if-larger=0)
    # or, when every element is the same, as a splat.
    consts = re.findall(r'dense<("0x[0-9A-F]+"|[-+0-9.e]+)> : tensor<(\d+)x(\d+)x(\w+)>',
                        text)

    def value(v, r, c, t):
        shape = (int(r), int(c))
        dtype = np.int8 if t == "i8" else np.float32
        if v.startswith('"'):
            return np.frombuffer(bytes.fromhex(v[3:-1]), dtype).reshape(shape)
        return np.full(shape, float(v), dtype)

    packed = [value(*x).tobytes() for x in consts if x[3] == "i8"]
    floats = [value(*x) for x in consts
              if x[3] == "f32" and int(x[1]) == N and int(x[2]) != K]
    per_op = 2 if qw.zero_points is not None else 1
    ok = len(packed) == 2 and len(floats) == 2 * per_op
    for i in range(len(packed)):
        ok &= packed[i] == qw.packed.tobytes()
        ok &= np.array_equal(floats[i * per_op], qw.scales)
        if qw.zero_points is not None:
            ok &= np.array_equal(floats[i * per_op + 1], qw.zero_points)
    print(f"int{bits} {'symmetric' if sym else 'zero points'}: {len(packed)} "
          f"matmuls, {'the same' if ok else 'NOT the same'} bytes, scales and "
          f"zero points as quant.quantize")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
