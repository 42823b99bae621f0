// REQUIRES: numpy
// The f32 attention kernel (FmaAttention.cpp: no matrix instruction, 4 lanes
// a query each holding a quarter of D and Dv, a reduce-scatter of the
// partial logits and an all-gather of P by xor shuffles, one shared buffer
// of K and V per 32 keys) run on the CPU by Inputs/emulate_kernels.py for
// NVIDIA (sm_80: warps of 32, ex2.approx) and AMD (gfx942: waves of 64,
// v_exp_f32; gfx1100's wave32 kernel is sm_80's with AMD's exp2): the
// functions of emulate-attention-amdgpu.mlir with f32 Q, K and V. O is compared with a
// float64 softmax(scale Q.K^T) V within docs/numerics.md's f32 attention
// gate; rows that keep no key must be exactly 0. This checks the shuffles'
// key ownership, the online softmax over the 4 lanes of a query, the band,
// the masks and the remainders; the race detector checks the two barriers
// around the shared store of each key block, and dropping the second one
// fails it.
// RUN: accel-opt %s --convert-accel-to-gpu=chip=sm_80 --mlir-print-op-generic -o %t.sm_80.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.sm_80.mlir | FileCheck %s
// RUN: accel-opt %s --convert-accel-to-gpu=chip=gfx942 --mlir-print-op-generic -o %t.gfx942.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.gfx942.mlir --seed 1 | FileCheck %s
// RUN: not %numpy_python %S/Inputs/emulate_kernels.py %t.sm_80.mlir --drop-barrier 1 | FileCheck %s --check-prefix=RACE

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
// RACE: FAILED: {{.*}}race

// Non-causal f16 with remainders along Sq and Skv, f32 O.
func.func @remainders(%q: tensor<1x2x70x64xf32>, %k: tensor<1x2x90x64xf32>, %v: tensor<1x2x90x64xf32>) -> tensor<1x2x70x64xf32> {
  %o = tensor.empty() : tensor<1x2x70x64xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x70x64xf32>, tensor<1x2x90x64xf32>, tensor<1x2x90x64xf32>) outs(%o : tensor<1x2x70x64xf32>) -> tensor<1x2x70x64xf32>
  return %0 : tensor<1x2x70x64xf32>
}

// Causal (bottom-right: Skv > Sq), GQA with 2 query heads per KV head, f16 O.
func.func @causal_gqa(%q: tensor<1x4x70x64xf32>, %k: tensor<1x2x90x64xf32>, %v: tensor<1x2x90x64xf32>) -> tensor<1x4x70x64xf32> {
  %o = tensor.empty() : tensor<1x4x70x64xf32>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<1x4x70x64xf32>, tensor<1x2x90x64xf32>, tensor<1x2x90x64xf32>) outs(%o : tensor<1x4x70x64xf32>) -> tensor<1x4x70x64xf32>
  return %0 : tensor<1x4x70x64xf32>
}

// bf16, D = 128 and Dv = 64, MQA, causal with Sq = Skv = 129: the last
// query block needs exactly one key of the third key block (the loop
// bound), bf16 O.
func.func @causal_mqa_d128(%q: tensor<1x2x129x128xf32>, %k: tensor<1x1x129x128xf32>, %v: tensor<1x1x129x64xf32>) -> tensor<1x2x129x64xf32> {
  %o = tensor.empty() : tensor<1x2x129x64xf32>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<1x2x129x128xf32>, tensor<1x1x129x128xf32>, tensor<1x1x129x64xf32>) outs(%o : tensor<1x2x129x64xf32>) -> tensor<1x2x129x64xf32>
  return %0 : tensor<1x2x129x64xf32>
}

// Causal with Sq > Skv: the first 53 query rows keep no key (0), the first
// query block visits one key block.
func.func @causal_sq_gt_skv(%q: tensor<2x1x130x64xf32>, %k: tensor<2x1x77x64xf32>, %v: tensor<2x1x77x64xf32>) -> tensor<2x1x130x64xf32> {
  %o = tensor.empty() : tensor<2x1x130x64xf32>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<2x1x130x64xf32>, tensor<2x1x77x64xf32>, tensor<2x1x77x64xf32>) outs(%o : tensor<2x1x130x64xf32>) -> tensor<2x1x130x64xf32>
  return %0 : tensor<2x1x130x64xf32>
}

// Non-causal, Skv a whole key block (no tail mask), D = 128, Dv = 64, an
// explicit scale.
func.func @wide_queries(%q: tensor<2x2x70x128xf32>, %k: tensor<2x1x64x128xf32>, %v: tensor<2x1x64x64xf32>) -> tensor<2x2x70x64xf32> {
  %o = tensor.empty() : tensor<2x2x70x64xf32>
  %0 = accel.attention scale(0.25) ins(%q, %k, %v : tensor<2x2x70x128xf32>, tensor<2x1x64x128xf32>, tensor<2x1x64x64xf32>) outs(%o : tensor<2x2x70x64xf32>) -> tensor<2x2x70x64xf32>
  return %0 : tensor<2x2x70x64xf32>
}

// An explicit diagonal: rows 0..69 keep no key and must be exactly 0; the
// first query block has no key block at all. Dv != D.
func.func @diagonal_empty_rows(%q: tensor<1x1x100x64xf32>, %k: tensor<1x1x90x64xf32>, %v: tensor<1x1x90x32xf32>) -> tensor<1x1x100x32xf32> {
  %d = arith.constant -70 : index
  %o = tensor.empty() : tensor<1x1x100x32xf32>
  %0 = accel.attention causal diagonal(%d) ins(%q, %k, %v : tensor<1x1x100x64xf32>, tensor<1x1x90x64xf32>, tensor<1x1x90x32xf32>) outs(%o : tensor<1x1x100x32xf32>) -> tensor<1x1x100x32xf32>
  return %0 : tensor<1x1x100x32xf32>
}

// 10 keys, D = 16: most of the only key block lies past Skv, so a key
// past the end that were not masked would weigh as much as a real one.
func.func @few_keys(%q: tensor<1x1x16x16xf32>, %k: tensor<1x1x10x16xf32>, %v: tensor<1x1x10x16xf32>) -> tensor<1x1x16x16xf32> {
  %o = tensor.empty() : tensor<1x1x16x16xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x16x16xf32>, tensor<1x1x10x16xf32>, tensor<1x1x10x16xf32>) outs(%o : tensor<1x1x16x16xf32>) -> tensor<1x1x16x16xf32>
  return %0 : tensor<1x1x16x16xf32>
}

// No keys at all: O = 0, and the kernel reads nothing.
func.func @no_keys(%q: tensor<1x2x20x64xf32>, %k: tensor<1x2x0x64xf32>, %v: tensor<1x2x0x16xf32>) -> tensor<1x2x20x16xf32> {
  %o = tensor.empty() : tensor<1x2x20x16xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x20x64xf32>, tensor<1x2x0x64xf32>, tensor<1x2x0x16xf32>) outs(%o : tensor<1x2x20x16xf32>) -> tensor<1x2x20x16xf32>
  return %0 : tensor<1x2x20x16xf32>
}

// A full-shape bool mask (the emulator drops 30 % of the keys and every
// key of mask row 0: query row 0 of each head must be exactly 0).
func.func @bool_full(%q: tensor<1x2x70x64xf32>, %k: tensor<1x2x90x64xf32>, %v: tensor<1x2x90x64xf32>, %m: tensor<1x2x70x90xi1>) -> tensor<1x2x70x64xf32> {
  %o = tensor.empty() : tensor<1x2x70x64xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x70x64xf32>, tensor<1x2x90x64xf32>, tensor<1x2x90x64xf32>) mask(%m : tensor<1x2x70x90xi1>) outs(%o : tensor<1x2x70x64xf32>) -> tensor<1x2x70x64xf32>
  return %0 : tensor<1x2x70x64xf32>
}

// An additive f32 mask of shape [Sq, Skv] under the causal band, GQA, bf16
// O: biases, -inf for a tenth of the keys and for every key of mask row 0
// (query row 0 keeps no key: exactly 0).
func.func @add_rows_causal_gqa(%q: tensor<2x4x70x32xf32>, %k: tensor<2x2x90x32xf32>, %v: tensor<2x2x90x32xf32>, %m: tensor<70x90xf32>) -> tensor<2x4x70x32xf32> {
  %o = tensor.empty() : tensor<2x4x70x32xf32>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<2x4x70x32xf32>, tensor<2x2x90x32xf32>, tensor<2x2x90x32xf32>) mask(%m : tensor<70x90xf32>) outs(%o : tensor<2x4x70x32xf32>) -> tensor<2x4x70x32xf32>
  return %0 : tensor<2x4x70x32xf32>
}

// A bool mask of shape [1, 1, Sq, Skv] shared by the heads, MQA, D = 16,
// three key blocks (the last one partial), f16 O.
func.func @bool_bcast_mqa(%q: tensor<1x2x65x16xf32>, %k: tensor<1x1x130x16xf32>, %v: tensor<1x1x130x16xf32>, %m: tensor<1x1x65x130xi1>) -> tensor<1x2x65x16xf32> {
  %o = tensor.empty() : tensor<1x2x65x16xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x65x16xf32>, tensor<1x1x130x16xf32>, tensor<1x1x130x16xf32>) mask(%m : tensor<1x1x65x130xi1>) outs(%o : tensor<1x2x65x16xf32>) -> tensor<1x2x65x16xf32>
  return %0 : tensor<1x2x65x16xf32>
}

// An additive bf16 mask over the keys only, 4 key blocks for 16 queries.
func.func @add_bf16_keys(%q: tensor<1x2x16x64xf32>, %k: tensor<1x2x200x64xf32>, %v: tensor<1x2x200x64xf32>, %m: tensor<1x1x1x200xbf16>) -> tensor<1x2x16x64xf32> {
  %o = tensor.empty() : tensor<1x2x16x64xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x16x64xf32>, tensor<1x2x200x64xf32>, tensor<1x2x200x64xf32>) mask(%m : tensor<1x1x1x200xbf16>) outs(%o : tensor<1x2x16x64xf32>) -> tensor<1x2x16x64xf32>
  return %0 : tensor<1x2x16x64xf32>
}
