// RUN: accel-opt %s -split-input-file -verify-diagnostics --convert-accel-to-gpu
// The K/V ring and the chip's shared memory.
// RUN: not accel-opt %s -split-input-file --convert-accel-to-gpu="stages=1" 2>&1 | FileCheck %s --check-prefix=STAGES
// RUN: not accel-opt %s -split-input-file --convert-accel-to-gpu="chip=sm_86 stages=4" 2>&1 | FileCheck %s --check-prefix=SMEM
// Q [64][136] and 4 stages of K and V [64][136] fit sm_80's 163 KiB (the
// first function compiles; the later ones still fail, hence `not`).
// RUN: not accel-opt %s -split-input-file --convert-accel-to-gpu="chip=sm_80 stages=4" 2>/dev/null | FileCheck %s --check-prefix=FITS

// STAGES: error: 'accel.attention' op needs at least 2 stages (one key block copied while the warps work on another), got 1
// SMEM: error: 'accel.attention' op needs 156672 bytes of shared memory (Q [64][128 + 8] and 4 stages of K [64][128 + 8] and V [64][128 + 8]); sm_86 has 101376 per block
// FITS: gpu.func @d128_0
// FITS-SAME: dynamic_shared_memory = 156672

func.func @d128(%q: tensor<1x1x64x128xf16>, %k: tensor<1x1x64x128xf16>, %v: tensor<1x1x64x128xf16>) -> tensor<1x1x64x128xf32> {
  %o = tensor.empty() : tensor<1x1x64x128xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x64x128xf16>, tensor<1x1x64x128xf16>, tensor<1x1x64x128xf16>) outs(%o : tensor<1x1x64x128xf32>) -> tensor<1x1x64x128xf32>
  return %0 : tensor<1x1x64x128xf32>
}

// -----

func.func @dynamic(%q: tensor<1x1x?x64xf16>, %k: tensor<1x1x64x64xf16>, %v: tensor<1x1x64x64xf16>, %o: tensor<1x1x?x64xf32>) -> tensor<1x1x?x64xf32> {
  // expected-error @below {{'accel.attention' op needs static shapes on the GPU target}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x?x64xf16>, tensor<1x1x64x64xf16>, tensor<1x1x64x64xf16>) outs(%o : tensor<1x1x?x64xf32>) -> tensor<1x1x?x64xf32>
  return %0 : tensor<1x1x?x64xf32>
}

// -----

// A mask is read from global memory: it must be a kernel buffer.
func.func @constant_mask(%q: tensor<1x1x64x64xf16>, %k: tensor<1x1x64x64xf16>, %v: tensor<1x1x64x64xf16>) -> tensor<1x1x64x64xf32> {
  %m = arith.constant dense<true> : tensor<1x1x64x64xi1>
  %o = tensor.empty() : tensor<1x1x64x64xf32>
  // expected-error @below {{'accel.attention' op reads a value that is not a kernel buffer (a function argument or the result of another kernel)}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x64x64xf16>, tensor<1x1x64x64xf16>, tensor<1x1x64x64xf16>) mask(%m : tensor<1x1x64x64xi1>) outs(%o : tensor<1x1x64x64xf32>) -> tensor<1x1x64x64xf32>
  return %0 : tensor<1x1x64x64xf32>
}

// -----

func.func @dynamic_mask(%q: tensor<1x1x64x64xf16>, %k: tensor<1x1x64x64xf16>, %v: tensor<1x1x64x64xf16>, %m: tensor<?x64xi1>) -> tensor<1x1x64x64xf32> {
  %o = tensor.empty() : tensor<1x1x64x64xf32>
  // expected-error @below {{'accel.attention' op needs a statically shaped mask on the GPU target}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x64x64xf16>, tensor<1x1x64x64xf16>, tensor<1x1x64x64xf16>) mask(%m : tensor<?x64xi1>) outs(%o : tensor<1x1x64x64xf32>) -> tensor<1x1x64x64xf32>
  return %0 : tensor<1x1x64x64xf32>
}

// -----

func.func @lengths(%q: tensor<2x1x64x64xf16>, %k: tensor<2x1x64x64xf16>, %v: tensor<2x1x64x64xf16>, %l: tensor<2xi32>) -> tensor<2x1x64x64xf32> {
  %o = tensor.empty() : tensor<2x1x64x64xf32>
  // expected-error @below {{'accel.attention' op with kv_lengths or q_lengths has no GPU lowering yet (the attention kernel takes fixed sequence lengths only)}}
  %0 = accel.attention ins(%q, %k, %v : tensor<2x1x64x64xf16>, tensor<2x1x64x64xf16>, tensor<2x1x64x64xf16>) kv_lengths(%l : tensor<2xi32>) outs(%o : tensor<2x1x64x64xf32>) -> tensor<2x1x64x64xf32>
  return %0 : tensor<2x1x64x64xf32>
}

// -----

func.func @window(%q: tensor<1x1x64x64xf16>, %k: tensor<1x1x64x64xf16>, %v: tensor<1x1x64x64xf16>) -> tensor<1x1x64x64xf32> {
  %o = tensor.empty() : tensor<1x1x64x64xf32>
  // expected-error @below {{'accel.attention' op with a sliding window has no GPU lowering yet}}
  %0 = accel.attention causal window(16) ins(%q, %k, %v : tensor<1x1x64x64xf16>, tensor<1x1x64x64xf16>, tensor<1x1x64x64xf16>) outs(%o : tensor<1x1x64x64xf32>) -> tensor<1x1x64x64xf32>
  return %0 : tensor<1x1x64x64xf32>
}

// -----

func.func @diagonal(%q: tensor<1x1x64x64xf16>, %k: tensor<1x1x64x64xf16>, %v: tensor<1x1x64x64xf16>, %d: index) -> tensor<1x1x64x64xf32> {
  %o = tensor.empty() : tensor<1x1x64x64xf32>
  // expected-error @below {{'accel.attention' op needs a constant diagonal on the GPU target (the band is compiled into the kernel)}}
  %0 = accel.attention causal diagonal(%d) ins(%q, %k, %v : tensor<1x1x64x64xf16>, tensor<1x1x64x64xf16>, tensor<1x1x64x64xf16>) outs(%o : tensor<1x1x64x64xf32>) -> tensor<1x1x64x64xf32>
  return %0 : tensor<1x1x64x64xf32>
}

// -----

func.func @f8(%q: tensor<1x1x64x64xf8E4M3FN>, %k: tensor<1x1x64x64xf8E4M3FN>, %v: tensor<1x1x64x64xf8E4M3FN>) -> tensor<1x1x64x64xf32> {
  %o = tensor.empty() : tensor<1x1x64x64xf32>
  // expected-error @below {{'accel.attention' op of 'f8E4M3FN' inputs has no GPU lowering: the attention kernels take f16 or bf16 Q, K and V (matrix instructions) or f32 (the fma kernel, or TF32 / xf32 matrix instructions for TF32 values)}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>) outs(%o : tensor<1x1x64x64xf32>) -> tensor<1x1x64x64xf32>
  return %0 : tensor<1x1x64x64xf32>
}

// -----

func.func @d40(%q: tensor<1x1x64x40xf16>, %k: tensor<1x1x64x40xf16>, %v: tensor<1x1x64x64xf16>) -> tensor<1x1x64x64xf32> {
  %o = tensor.empty() : tensor<1x1x64x64xf32>
  // expected-error @below {{'accel.attention' op head dimension D = 40 has no GPU lowering: the attention kernel needs a multiple of 16 (mma.sync k16, ldmatrix x4) up to 128 (the O accumulators and Q fragments live in registers)}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x64x40xf16>, tensor<1x1x64x40xf16>, tensor<1x1x64x64xf16>) outs(%o : tensor<1x1x64x64xf32>) -> tensor<1x1x64x64xf32>
  return %0 : tensor<1x1x64x64xf32>
}

// -----

func.func @dv256(%q: tensor<1x1x64x64xf16>, %k: tensor<1x1x64x64xf16>, %v: tensor<1x1x64x256xf16>) -> tensor<1x1x64x256xf32> {
  %o = tensor.empty() : tensor<1x1x64x256xf32>
  // expected-error @below {{'accel.attention' op head dimension Dv = 256 has no GPU lowering}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x64x64xf16>, tensor<1x1x64x64xf16>, tensor<1x1x64x256xf16>) outs(%o : tensor<1x1x64x256xf32>) -> tensor<1x1x64x256xf32>
  return %0 : tensor<1x1x64x256xf32>
}

// -----

func.func @heads(%q: tensor<1x70000x16x16xf16>, %k: tensor<1x1x16x16xf16>, %v: tensor<1x1x16x16xf16>) -> tensor<1x70000x16x16xf32> {
  %o = tensor.empty() : tensor<1x70000x16x16xf32>
  // expected-error @below {{'accel.attention' op needs a grid of 1 x 70000 x 1 blocks; sm_80 allows at most 2147483647 x 65535 x 65535}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x70000x16x16xf16>, tensor<1x1x16x16xf16>, tensor<1x1x16x16xf16>) outs(%o : tensor<1x70000x16x16xf32>) -> tensor<1x70000x16x16xf32>
  return %0 : tensor<1x70000x16x16xf32>
}

// -----

func.func @other(%q: tensor<1x1x64x64xf16>, %k: tensor<1x1x64x64xf16>, %v: tensor<1x1x64x64xf16>) -> tensor<1x1x64x64xf32> {
  %o = tensor.empty() : tensor<1x1x64x64xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x64x64xf16>, tensor<1x1x64x64xf16>, tensor<1x1x64x64xf16>) outs(%o : tensor<1x1x64x64xf32>) -> tensor<1x1x64x64xf32>
  %e = tensor.empty() : tensor<1x1x64x64xf32>
  // expected-error @below {{'accel.softmax' op has no GPU lowering (convert-accel-to-gpu compiles functions of accel.matmul ops, each with an optional elementwise epilogue on its result, accel.dequant_matmul, accel.attention and accel.paged_attention ops, elementwise linalg.generic ops, and row reductions with the ops around them; accel-decompose-softmax makes accel.softmax those)}}
  %1 = accel.softmax dimension(3) ins(%0 : tensor<1x1x64x64xf32>) outs(%e : tensor<1x1x64x64xf32>) -> tensor<1x1x64x64xf32>
  return %1 : tensor<1x1x64x64xf32>
}

// -----

func.func @returns_arg(%q: tensor<1x1x64x64xf16>, %k: tensor<1x1x64x64xf16>, %v: tensor<1x1x64x64xf16>) -> (tensor<1x1x64x64xf32>, tensor<1x1x64x64xf16>) {
  %o = tensor.empty() : tensor<1x1x64x64xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x64x64xf16>, tensor<1x1x64x64xf16>, tensor<1x1x64x64xf16>) outs(%o : tensor<1x1x64x64xf32>) -> tensor<1x1x64x64xf32>
  // expected-error @below {{'func.return' op result #1 is not computed by an accel.matmul, accel.dequant_matmul, accel.attention, accel.paged_attention, accel.softmax or linalg.generic; the GPU kernels only return what they compute}}
  return %0, %q : tensor<1x1x64x64xf32>, tensor<1x1x64x64xf16>
}

// -----

func.func @twice(%q: tensor<1x1x64x64xf16>, %k: tensor<1x1x64x64xf16>, %v: tensor<1x1x64x64xf16>) -> (tensor<1x1x64x64xf32>, tensor<1x1x64x64xf32>) {
  %o = tensor.empty() : tensor<1x1x64x64xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x64x64xf16>, tensor<1x1x64x64xf16>, tensor<1x1x64x64xf16>) outs(%o : tensor<1x1x64x64xf32>) -> tensor<1x1x64x64xf32>
  // expected-error @below {{'func.return' op returns the value of result #1 twice; each result is its own buffer}}
  return %0, %0 : tensor<1x1x64x64xf32>, tensor<1x1x64x64xf32>
}

// -----

func.func @constant_q(%k: tensor<1x1x64x64xf16>, %v: tensor<1x1x64x64xf16>) -> tensor<1x1x64x64xf32> {
  %q = arith.constant dense<1.0> : tensor<1x1x64x64xf16>
  %o = tensor.empty() : tensor<1x1x64x64xf32>
  // expected-error @below {{'accel.attention' op reads a value that is not a kernel buffer (a function argument or the result of another kernel)}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x64x64xf16>, tensor<1x1x64x64xf16>, tensor<1x1x64x64xf16>) outs(%o : tensor<1x1x64x64xf32>) -> tensor<1x1x64x64xf32>
  return %0 : tensor<1x1x64x64xf32>
}

// -----

gpu.module @taken_kernels {
}

// expected-error @below {{'func.func' op cannot place its kernels: the symbol @taken_kernels already exists}}
func.func @taken(%q: tensor<1x1x64x64xf16>, %k: tensor<1x1x64x64xf16>, %v: tensor<1x1x64x64xf16>) -> tensor<1x1x64x64xf32> {
  %o = tensor.empty() : tensor<1x1x64x64xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x64x64xf16>, tensor<1x1x64x64xf16>, tensor<1x1x64x64xf16>) outs(%o : tensor<1x1x64x64xf32>) -> tensor<1x1x64x64xf32>
  return %0 : tensor<1x1x64x64xf32>
}
