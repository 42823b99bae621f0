// REQUIRES: numpy
// Runs the FlashAttention kernels of convert-accel-to-gpu on the CPU
// (Inputs/emulate_kernels.py: every block with its threads in lockstep,
// cp.async landing only at the waits, ldmatrix, mma.sync, xor shuffles
// across the lanes of a warp, ex2) and compares O with a float64 reference
// attention, within docs/numerics.md's attention gate plus the rounding of
// P to the input type; rows that keep no key must be exactly 0. No GPU is
// involved: this checks the index arithmetic, the online softmax, the
// register re-packing of P, the band and the remainders; the emulator's
// race detector (on by default, emulate-races.mlir) checks the barriers and
// waits of the Q copy and the K/V ring.
// RUN: accel-opt %s --convert-accel-to-gpu --mlir-print-op-generic -o %t.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.mlir | FileCheck %s
// A 3-deep K/V ring.
// RUN: accel-opt %s --convert-accel-to-gpu="stages=3" --mlir-print-op-generic -o %t.s3.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.s3.mlir --seed 1 | FileCheck %s
// sm_90a: the warpgroup-MMA kernel (256 threads) where D and Dv are
// multiples of 64, the mma.sync one elsewhere.
// RUN: accel-opt %s --convert-accel-to-gpu="chip=sm_90a" --mlir-print-op-generic -o %t.wg.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.wg.mlir --seed 2 > %t.wg.out
// RUN: FileCheck %s < %t.wg.out
// RUN: FileCheck %s --check-prefix=WG < %t.wg.out

// CHECK: @remainders_0: OK (B=1 Hq=2 Hkv=2 Sq=77 Skv=130 D=64 Dv=64, max error
// CHECK: @causal_gqa_0: OK (B=1 Hq=4 Hkv=2 Sq=77 Skv=130 D=64 Dv=64 causal(53), max error
// CHECK: @causal_mqa_d128_0: OK (B=1 Hq=2 Hkv=1 Sq=129 Skv=129 D=128 Dv=128 causal(0), max error
// CHECK: @causal_sq_gt_skv_0: OK (B=2 Hq=1 Hkv=1 Sq=130 Skv=77 D=64 Dv=64 causal(-53), max error
// CHECK: @wide_queries_0: OK (B=2 Hq=2 Hkv=1 Sq=130 Skv=64 D=128 Dv=128, max error
// CHECK: @diagonal_empty_rows_0: OK (B=1 Hq=1 Hkv=1 Sq=100 Skv=90 D=64 Dv=32 causal(-70), max error
// CHECK: @few_keys_0: OK (B=1 Hq=1 Hkv=1 Sq=16 Skv=10 D=16 Dv=16, max error
// CHECK: @no_keys_0: OK (B=1 Hq=2 Hkv=2 Sq=20 Skv=0 D=0 Dv=16, max error 0
// CHECK-NOT: FAILED

// Non-causal f16 with remainders along Sq and Skv, f32 O.
func.func @remainders(%q: tensor<1x2x77x64xf16>, %k: tensor<1x2x130x64xf16>, %v: tensor<1x2x130x64xf16>) -> tensor<1x2x77x64xf32> {
  %o = tensor.empty() : tensor<1x2x77x64xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x77x64xf16>, tensor<1x2x130x64xf16>, tensor<1x2x130x64xf16>) outs(%o : tensor<1x2x77x64xf32>) -> tensor<1x2x77x64xf32>
  return %0 : tensor<1x2x77x64xf32>
}

// Causal (bottom-right: Skv > Sq), GQA with 2 query heads per KV head, f16 O.
func.func @causal_gqa(%q: tensor<1x4x77x64xf16>, %k: tensor<1x2x130x64xf16>, %v: tensor<1x2x130x64xf16>) -> tensor<1x4x77x64xf16> {
  %o = tensor.empty() : tensor<1x4x77x64xf16>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<1x4x77x64xf16>, tensor<1x2x130x64xf16>, tensor<1x2x130x64xf16>) outs(%o : tensor<1x4x77x64xf16>) -> tensor<1x4x77x64xf16>
  return %0 : tensor<1x4x77x64xf16>
}

// bf16, D = 128, MQA, causal with Sq = Skv = 129: the last query block
// needs exactly one key of the third key block (the loop bound).
func.func @causal_mqa_d128(%q: tensor<1x2x129x128xbf16>, %k: tensor<1x1x129x128xbf16>, %v: tensor<1x1x129x128xbf16>) -> tensor<1x2x129x128xbf16> {
  %o = tensor.empty() : tensor<1x2x129x128xbf16>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<1x2x129x128xbf16>, tensor<1x1x129x128xbf16>, tensor<1x1x129x128xbf16>) outs(%o : tensor<1x2x129x128xbf16>) -> tensor<1x2x129x128xbf16>
  return %0 : tensor<1x2x129x128xbf16>
}

// Causal with Sq > Skv: the first 53 query rows keep no key (0), the first
// query block visits one key block.
func.func @causal_sq_gt_skv(%q: tensor<2x1x130x64xbf16>, %k: tensor<2x1x77x64xbf16>, %v: tensor<2x1x77x64xbf16>) -> tensor<2x1x130x64xf32> {
  %o = tensor.empty() : tensor<2x1x130x64xf32>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<2x1x130x64xbf16>, tensor<2x1x77x64xbf16>, tensor<2x1x77x64xbf16>) outs(%o : tensor<2x1x130x64xf32>) -> tensor<2x1x130x64xf32>
  return %0 : tensor<2x1x130x64xf32>
}

// Non-causal, Sq > Skv, D = 128, an explicit scale.
func.func @wide_queries(%q: tensor<2x2x130x128xf16>, %k: tensor<2x1x64x128xf16>, %v: tensor<2x1x64x128xf16>) -> tensor<2x2x130x128xf32> {
  %o = tensor.empty() : tensor<2x2x130x128xf32>
  %0 = accel.attention scale(0.25) ins(%q, %k, %v : tensor<2x2x130x128xf16>, tensor<2x1x64x128xf16>, tensor<2x1x64x128xf16>) outs(%o : tensor<2x2x130x128xf32>) -> tensor<2x2x130x128xf32>
  return %0 : tensor<2x2x130x128xf32>
}

// An explicit diagonal: rows 0..69 keep no key and must be exactly 0; the
// first query block has no key block at all. Dv != D.
func.func @diagonal_empty_rows(%q: tensor<1x1x100x64xbf16>, %k: tensor<1x1x90x64xbf16>, %v: tensor<1x1x90x32xbf16>) -> tensor<1x1x100x32xf32> {
  %d = arith.constant -70 : index
  %o = tensor.empty() : tensor<1x1x100x32xf32>
  %0 = accel.attention causal diagonal(%d) ins(%q, %k, %v : tensor<1x1x100x64xbf16>, tensor<1x1x90x64xbf16>, tensor<1x1x90x32xbf16>) outs(%o : tensor<1x1x100x32xf32>) -> tensor<1x1x100x32xf32>
  return %0 : tensor<1x1x100x32xf32>
}

// 10 keys, D = 16: most of the only key block lies past Skv, so a key
// past the end that were not masked would weigh as much as a real one.
func.func @few_keys(%q: tensor<1x1x16x16xf16>, %k: tensor<1x1x10x16xf16>, %v: tensor<1x1x10x16xf16>) -> tensor<1x1x16x16xf32> {
  %o = tensor.empty() : tensor<1x1x16x16xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x16x16xf16>, tensor<1x1x10x16xf16>, tensor<1x1x10x16xf16>) outs(%o : tensor<1x1x16x16xf32>) -> tensor<1x1x16x16xf32>
  return %0 : tensor<1x1x16x16xf32>
}

// No keys at all: O = 0, and the kernel reads nothing.
func.func @no_keys(%q: tensor<1x2x20x64xf16>, %k: tensor<1x2x0x64xf16>, %v: tensor<1x2x0x16xf16>) -> tensor<1x2x20x16xf16> {
  %o = tensor.empty() : tensor<1x2x20x16xf16>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x20x64xf16>, tensor<1x2x0x64xf16>, tensor<1x2x0x16xf16>) outs(%o : tensor<1x2x20x16xf16>) -> tensor<1x2x20x16xf16>
  return %0 : tensor<1x2x20x16xf16>
}

// WG: @remainders_0: OK {{.*}} 256 threads)
// WG: @causal_gqa_0: OK {{.*}} 256 threads)
// WG: @causal_mqa_d128_0: OK {{.*}} 256 threads)
// WG: @causal_sq_gt_skv_0: OK {{.*}} 256 threads)
// WG: @wide_queries_0: OK {{.*}} 256 threads)
// WG: @diagonal_empty_rows_0: OK {{.*}} 128 threads)
