// REQUIRES: numpy
// The AMD FlashAttention kernel of convert-accel-to-gpu (emitLds: 4 waves
// of 64 lanes, S^T = K.Q^T and O^T = V^T.P^T with amdgpu.mfma 16x16x16,
// K and V^T in LDS, the next key block in registers) run on the CPU by
// Inputs/emulate_kernels.py: the MFMA operand layouts of the CDNA2 / CDNA3
// ISA documents, xor shuffles across a wave of 64, llvm.amdgcn.exp2 (exact
// exp2, exp2(-inf) = 0, no subnormals). O is compared with a float64
// softmax(scale Q.K^T) V within docs/numerics.md's attention gate plus the
// rounding of P to the input type; rows that keep no key must be exactly
// 0. This checks the reuse of the S^T accumulators as the B operand P^T,
// the transposed V store, the online softmax over the 4 lanes of a query,
// the band, the masks and the remainders; the race detector (waves of 64)
// checks the two barriers around the LDS store of each key block.
// RUN: accel-opt %s --convert-accel-to-gpu=chip=gfx942 --mlir-print-op-generic -o %t.gfx942.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.gfx942.mlir | FileCheck %s
// RUN: accel-opt %s --convert-accel-to-gpu=chip=gfx90a --mlir-print-op-generic -o %t.gfx90a.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.gfx90a.mlir --seed 1 | FileCheck %s
// RDNA3 (WMMA, wave32): P reaches the B operand through a half-wave
// exchange, and with D + Dv > 128 neither Q nor the next key block is held
// in registers.
// RUN: accel-opt %s --convert-accel-to-gpu=chip=gfx1100 --mlir-print-op-generic -o %t.gfx1100.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.gfx1100.mlir --seed 2 | FileCheck %s

// CHECK: @remainders_0: OK (B=1 Hq=2 Hkv=2 Sq=70 Skv=90 D=64 Dv=64, max error
// CHECK: @causal_gqa_0: OK (B=1 Hq=4 Hkv=2 Sq=70 Skv=90 D=64 Dv=64 causal(20), max error
// CHECK: @causal_mqa_d128_0: OK (B=1 Hq=2 Hkv=1 Sq=129 Skv=129 D=128 Dv=64 causal(0), max error
// CHECK: @causal_sq_gt_skv_0: OK (B=2 Hq=1 Hkv=1 Sq=130 Skv=77 D=64 Dv=64 causal(-53), max error
// CHECK: @wide_queries_0: OK (B=2 Hq=2 Hkv=1 Sq=70 Skv=64 D=128 Dv=64, max error
// CHECK: @diagonal_empty_rows_0: OK (B=1 Hq=1 Hkv=1 Sq=100 Skv=90 D=64 Dv=32 causal(-70), max error
// CHECK: @few_keys_0: OK (B=1 Hq=1 Hkv=1 Sq=16 Skv=10 D=16 Dv=16, max error
// CHECK: @no_keys_0: OK (B=1 Hq=2 Hkv=2 Sq=20 Skv=0 D=0 Dv=16, max error 0
// CHECK: @bool_full_0: OK (B=1 Hq=2 Hkv=2 Sq=70 Skv=90 D=64 Dv=64 bool mask 1x2x70x90,
// CHECK: @add_rows_causal_gqa_0: OK (B=2 Hq=4 Hkv=2 Sq=70 Skv=90 D=32 Dv=32 causal(20) additive mask 70x90,
// CHECK: @bool_bcast_mqa_0: OK (B=1 Hq=2 Hkv=1 Sq=65 Skv=130 D=16 Dv=16 bool mask 1x1x65x130,
// CHECK: @add_bf16_keys_0: OK (B=1 Hq=2 Hkv=2 Sq=16 Skv=200 D=64 Dv=64 additive mask 1x1x1x200,
// CHECK-NOT: FAILED

// Non-causal f16 with remainders along Sq and Skv, f32 O.
func.func @remainders(%q: tensor<1x2x70x64xf16>, %k: tensor<1x2x90x64xf16>, %v: tensor<1x2x90x64xf16>) -> tensor<1x2x70x64xf32> {
  %o = tensor.empty() : tensor<1x2x70x64xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x70x64xf16>, tensor<1x2x90x64xf16>, tensor<1x2x90x64xf16>) outs(%o : tensor<1x2x70x64xf32>) -> tensor<1x2x70x64xf32>
  return %0 : tensor<1x2x70x64xf32>
}

// Causal (bottom-right: Skv > Sq), GQA with 2 query heads per KV head, f16 O.
func.func @causal_gqa(%q: tensor<1x4x70x64xf16>, %k: tensor<1x2x90x64xf16>, %v: tensor<1x2x90x64xf16>) -> tensor<1x4x70x64xf16> {
  %o = tensor.empty() : tensor<1x4x70x64xf16>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<1x4x70x64xf16>, tensor<1x2x90x64xf16>, tensor<1x2x90x64xf16>) outs(%o : tensor<1x4x70x64xf16>) -> tensor<1x4x70x64xf16>
  return %0 : tensor<1x4x70x64xf16>
}

// bf16, D = 128 and Dv = 64, MQA, causal with Sq = Skv = 129: the last
// query block needs exactly one key of the third key block (the loop
// bound), bf16 O.
func.func @causal_mqa_d128(%q: tensor<1x2x129x128xbf16>, %k: tensor<1x1x129x128xbf16>, %v: tensor<1x1x129x64xbf16>) -> tensor<1x2x129x64xbf16> {
  %o = tensor.empty() : tensor<1x2x129x64xbf16>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<1x2x129x128xbf16>, tensor<1x1x129x128xbf16>, tensor<1x1x129x64xbf16>) outs(%o : tensor<1x2x129x64xbf16>) -> tensor<1x2x129x64xbf16>
  return %0 : tensor<1x2x129x64xbf16>
}

// Causal with Sq > Skv: the first 53 query rows keep no key (0), the first
// query block visits one key block.
func.func @causal_sq_gt_skv(%q: tensor<2x1x130x64xbf16>, %k: tensor<2x1x77x64xbf16>, %v: tensor<2x1x77x64xbf16>) -> tensor<2x1x130x64xf32> {
  %o = tensor.empty() : tensor<2x1x130x64xf32>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<2x1x130x64xbf16>, tensor<2x1x77x64xbf16>, tensor<2x1x77x64xbf16>) outs(%o : tensor<2x1x130x64xf32>) -> tensor<2x1x130x64xf32>
  return %0 : tensor<2x1x130x64xf32>
}

// Non-causal, Skv a whole key block (no tail mask), D = 128, Dv = 64, an
// explicit scale.
func.func @wide_queries(%q: tensor<2x2x70x128xf16>, %k: tensor<2x1x64x128xf16>, %v: tensor<2x1x64x64xf16>) -> tensor<2x2x70x64xf32> {
  %o = tensor.empty() : tensor<2x2x70x64xf32>
  %0 = accel.attention scale(0.25) ins(%q, %k, %v : tensor<2x2x70x128xf16>, tensor<2x1x64x128xf16>, tensor<2x1x64x64xf16>) outs(%o : tensor<2x2x70x64xf32>) -> tensor<2x2x70x64xf32>
  return %0 : tensor<2x2x70x64xf32>
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

// A full-shape bool mask (the emulator drops 30 % of the keys and every
// key of mask row 0: query row 0 of each head must be exactly 0).
func.func @bool_full(%q: tensor<1x2x70x64xf16>, %k: tensor<1x2x90x64xf16>, %v: tensor<1x2x90x64xf16>, %m: tensor<1x2x70x90xi1>) -> tensor<1x2x70x64xf32> {
  %o = tensor.empty() : tensor<1x2x70x64xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x70x64xf16>, tensor<1x2x90x64xf16>, tensor<1x2x90x64xf16>) mask(%m : tensor<1x2x70x90xi1>) outs(%o : tensor<1x2x70x64xf32>) -> tensor<1x2x70x64xf32>
  return %0 : tensor<1x2x70x64xf32>
}

// An additive f32 mask of shape [Sq, Skv] under the causal band, GQA, bf16
// O: biases, -inf for a tenth of the keys and for every key of mask row 0
// (query row 0 keeps no key: exactly 0).
func.func @add_rows_causal_gqa(%q: tensor<2x4x70x32xbf16>, %k: tensor<2x2x90x32xbf16>, %v: tensor<2x2x90x32xbf16>, %m: tensor<70x90xf32>) -> tensor<2x4x70x32xbf16> {
  %o = tensor.empty() : tensor<2x4x70x32xbf16>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<2x4x70x32xbf16>, tensor<2x2x90x32xbf16>, tensor<2x2x90x32xbf16>) mask(%m : tensor<70x90xf32>) outs(%o : tensor<2x4x70x32xbf16>) -> tensor<2x4x70x32xbf16>
  return %0 : tensor<2x4x70x32xbf16>
}

// A bool mask of shape [1, 1, Sq, Skv] shared by the heads, MQA, D = 16,
// three key blocks (the last one partial), f16 O.
func.func @bool_bcast_mqa(%q: tensor<1x2x65x16xf16>, %k: tensor<1x1x130x16xf16>, %v: tensor<1x1x130x16xf16>, %m: tensor<1x1x65x130xi1>) -> tensor<1x2x65x16xf16> {
  %o = tensor.empty() : tensor<1x2x65x16xf16>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x65x16xf16>, tensor<1x1x130x16xf16>, tensor<1x1x130x16xf16>) mask(%m : tensor<1x1x65x130xi1>) outs(%o : tensor<1x2x65x16xf16>) -> tensor<1x2x65x16xf16>
  return %0 : tensor<1x2x65x16xf16>
}

// An additive bf16 mask over the keys only, 4 key blocks for 16 queries.
func.func @add_bf16_keys(%q: tensor<1x2x16x64xbf16>, %k: tensor<1x2x200x64xbf16>, %v: tensor<1x2x200x64xbf16>, %m: tensor<1x1x1x200xbf16>) -> tensor<1x2x16x64xf32> {
  %o = tensor.empty() : tensor<1x2x16x64xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x16x64xbf16>, tensor<1x2x200x64xbf16>, tensor<1x2x200x64xbf16>) mask(%m : tensor<1x1x1x200xbf16>) outs(%o : tensor<1x2x16x64xf32>) -> tensor<1x2x16x64xf32>
  return %0 : tensor<1x2x16x64xf32>
}
