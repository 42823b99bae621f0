// mma=wgmma on an attention the warpgroup-MMA kernel cannot take is a
// located error naming the reason (the default and mma=auto fall back to
// the mma.sync kernel instead: convert-attention-wgmma.mlir).
// RUN: accel-opt %s -split-input-file -verify-diagnostics --convert-accel-to-gpu="chip=sm_90a mma=wgmma"
// RUN: not accel-opt %S/Inputs/attention-d128.mlir --convert-accel-to-gpu="chip=sm_80 mma=wgmma" 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not accel-opt %S/Inputs/attention-d128.mlir --convert-accel-to-gpu="chip=sm_90a stages=4" 2>&1 | FileCheck %s --check-prefix=SMEM
// RUN: accel-opt %S/Inputs/attention-d128.mlir --convert-accel-to-gpu="chip=sm_90a stages=3" | FileCheck %s --check-prefix=FITS

// CHIP: error: 'accel.attention' op cannot use wgmma (mma=wgmma): wgmma needs sm_90a (the arch-specific Hopper target); sm_80 has mma.sync only
// SMEM: error: 'accel.attention' op needs 295936 bytes of shared memory (Q [128][128] and 4 stages of K [128][128] and V [128][128], plus 1 KiB of alignment); sm_90a has 232448 per block
// FITS: mma = "wgmma"
// FITS-SAME: stages = 3

func.func @d32(%q: tensor<1x1x64x32xbf16>, %k: tensor<1x1x64x32xbf16>, %v: tensor<1x1x64x32xbf16>) -> tensor<1x1x64x32xf32> {
  %o = tensor.empty() : tensor<1x1x64x32xf32>
  // expected-error @+1 {{cannot use wgmma (mma=wgmma): head dimensions D = 32 and Dv = 32 must be multiples of 64: the wgmma kernel reads Q, K and V in rows of 128 bytes (the 128-byte swizzle)}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x64x32xbf16>, tensor<1x1x64x32xbf16>, tensor<1x1x64x32xbf16>) outs(%o : tensor<1x1x64x32xf32>) -> tensor<1x1x64x32xf32>
  return %0 : tensor<1x1x64x32xf32>
}

// -----

func.func @dv96(%q: tensor<1x1x64x64xf16>, %k: tensor<1x1x64x64xf16>, %v: tensor<1x1x64x96xf16>) -> tensor<1x1x64x96xf16> {
  %o = tensor.empty() : tensor<1x1x64x96xf16>
  // expected-error @+1 {{cannot use wgmma (mma=wgmma): head dimensions D = 64 and Dv = 96 must be multiples of 64}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x64x64xf16>, tensor<1x1x64x64xf16>, tensor<1x1x64x96xf16>) outs(%o : tensor<1x1x64x96xf16>) -> tensor<1x1x64x96xf16>
  return %0 : tensor<1x1x64x96xf16>
}
