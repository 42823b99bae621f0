// RUN: accel-opt %s -split-input-file -verify-diagnostics --convert-accel-to-gpu=chip=sm_80
// RUN: accel-opt %s -split-input-file -verify-diagnostics --accel-gpu-configure=chip=sm_80
// What the GPU kernels of accel.paged_attention (PagedAttentionKernel.h)
// do not take, each a located error of the configuration stage
// (planGpuPagedAttention), which both passes report: a batch or pool sized
// at run time, a hand-written lowering_config (the stage alone configures
// the kernels), a table of no pages or a pool of no keys (nothing to read:
// the CPU's kernels take them), the shared memory of a Dv too long, and
// more sequences than the chip's grid holds (one a block along z).

func.func @dynamic_pool(%q: tensor<2x4x1x16xf32>, %kc: tensor<?x4x2x16xf32>, %vc: tensor<?x4x2x16xf32>, %bt: tensor<2x3xi32>, %len: tensor<2xi32>) -> tensor<2x4x1x16xf32> {
  %o = tensor.empty() : tensor<2x4x1x16xf32>
  // expected-error @below {{'accel.paged_attention' op needs static shapes on the GPU target (the key pool is 'tensor<?x4x2x16xf32>'; the GPU kernels take the batch and the pool's pages as compiled)}}
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<2x4x1x16xf32>, tensor<?x4x2x16xf32>, tensor<?x4x2x16xf32>) block_table(%bt : tensor<2x3xi32>) kv_lengths(%len : tensor<2xi32>) outs(%o : tensor<2x4x1x16xf32>) -> tensor<2x4x1x16xf32>
  return %r : tensor<2x4x1x16xf32>
}

// -----

func.func @config(%q: tensor<2x4x1x16xf32>, %kc: tensor<6x4x2x16xf32>, %vc: tensor<6x4x2x16xf32>, %bt: tensor<2x3xi32>, %len: tensor<2xi32>) -> tensor<2x4x1x16xf32> {
  %o = tensor.empty() : tensor<2x4x1x16xf32>
  // expected-error @below {{'accel.paged_attention' op has a lowering_config; the GPU kernels of a paged_attention are configured by the stage alone}}
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<2x4x1x16xf32>, tensor<6x4x2x16xf32>, tensor<6x4x2x16xf32>) block_table(%bt : tensor<2x3xi32>) kv_lengths(%len : tensor<2xi32>) outs(%o : tensor<2x4x1x16xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "fma", tile = [64, 64, 32]>} -> tensor<2x4x1x16xf32>
  return %r : tensor<2x4x1x16xf32>
}

// -----

func.func @no_pages(%q: tensor<2x2x1x8xf32>, %kc: tensor<3x4x1x8xf32>, %vc: tensor<3x4x1x8xf32>, %bt: tensor<2x0xi32>, %len: tensor<2xi32>) -> tensor<2x2x1x8xf32> {
  %o = tensor.empty() : tensor<2x2x1x8xf32>
  // expected-error @below {{'accel.paged_attention' op has a block table of no pages; its GPU kernels read at least one page (every sequence would be empty)}}
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<2x2x1x8xf32>, tensor<3x4x1x8xf32>, tensor<3x4x1x8xf32>) block_table(%bt : tensor<2x0xi32>) kv_lengths(%len : tensor<2xi32>) outs(%o : tensor<2x2x1x8xf32>) -> tensor<2x2x1x8xf32>
  return %r : tensor<2x2x1x8xf32>
}

// -----

func.func @empty_pool(%q: tensor<2x2x1x8xf32>, %kc: tensor<0x4x1x8xf32>, %vc: tensor<0x4x1x8xf32>, %bt: tensor<2x3xi32>, %len: tensor<2xi32>) -> tensor<2x2x1x8xf32> {
  %o = tensor.empty() : tensor<2x2x1x8xf32>
  // expected-error @below {{'accel.paged_attention' op has a pool of no keys; its GPU kernels read at least one page (every sequence would be empty)}}
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<2x2x1x8xf32>, tensor<0x4x1x8xf32>, tensor<0x4x1x8xf32>) block_table(%bt : tensor<2x3xi32>) kv_lengths(%len : tensor<2xi32>) outs(%o : tensor<2x2x1x8xf32>) -> tensor<2x2x1x8xf32>
  return %r : tensor<2x2x1x8xf32>
}

// -----

func.func @long_dv(%q: tensor<1x2x1x16xf32>, %kc: tensor<3x4x1x16xf32>, %vc: tensor<3x4x1x16384xf32>, %bt: tensor<1x3xi32>, %len: tensor<1xi32>) -> tensor<1x2x1x16384xf32> {
  %o = tensor.empty() : tensor<1x2x1x16384xf32>
  // expected-error @below {{'accel.paged_attention' op needs 262192 bytes of shared memory for Dv = 16384 on sm_80, which has 166912 a block}}
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<1x2x1x16xf32>, tensor<3x4x1x16xf32>, tensor<3x4x1x16384xf32>) block_table(%bt : tensor<1x3xi32>) kv_lengths(%len : tensor<1xi32>) outs(%o : tensor<1x2x1x16384xf32>) -> tensor<1x2x1x16384xf32>
  return %r : tensor<1x2x1x16384xf32>
}

// -----

func.func @grid(%q: tensor<70000x1x1x8xf32>, %kc: tensor<3x4x1x8xf32>, %vc: tensor<3x4x1x8xf32>, %bt: tensor<70000x3xi32>, %len: tensor<70000xi32>) -> tensor<70000x1x1x8xf32> {
  %o = tensor.empty() : tensor<70000x1x1x8xf32>
  // expected-error @below {{'accel.paged_attention' op needs a grid of 1 x 1 x 70000 blocks; sm_80 allows at most 2147483647 x 65535 x 65535}}
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<70000x1x1x8xf32>, tensor<3x4x1x8xf32>, tensor<3x4x1x8xf32>) block_table(%bt : tensor<70000x3xi32>) kv_lengths(%len : tensor<70000xi32>) outs(%o : tensor<70000x1x1x8xf32>) -> tensor<70000x1x1x8xf32>
  return %r : tensor<70000x1x1x8xf32>
}
