// The attention kernel through the whole NVPTX pipeline of accel-opt
// (accel-nvptx-pipeline: convert-accel-to-gpu, NVVM lowering,
// gpu-module-to-binary) to PTX.
// RUN: accel-opt %s --accel-nvptx-pipeline="chip=sm_80" -o %t.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.mlir | FileCheck %s

// CHECK-LABEL: // gpu.binary @causal_kernels
// CHECK:       .target sm_80
// CHECK:       .visible .entry causal_0(
// CHECK-NEXT:    .param .u64 .ptr .align 1 causal_0_param_0,
// CHECK-NEXT:    .param .u64 .ptr .align 1 causal_0_param_1,
// CHECK-NEXT:    .param .u64 .ptr .align 1 causal_0_param_2,
// CHECK-NEXT:    .param .u64 .ptr .align 1 causal_0_param_3
// CHECK-NEXT:  )
// CHECK-NEXT:  .maxntid 128, 1, 1
// Q with zero-fill past row 77 (a register source size), one group; then
// K and V of block 0.
// CHECK:       cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK:       cp.async.commit_group;
// CHECK:       cp.async.cg.shared.global
// CHECK:       cp.async.commit_group;
// CHECK:       cp.async.wait_group 1;
// CHECK-NEXT:  bar.sync 0;
// CHECK:       ldmatrix.sync.aligned.m8n8.x4.shared.b16
// The key loop: wait, barrier, the next block's copies.
// CHECK:       cp.async.wait_group 0;
// CHECK-NEXT:  bar.sync 0;
// CHECK:       cp.async.commit_group;
// CHECK:       ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK:       mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK:       max.NaN.f32
// CHECK:       shfl.sync.bfly.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 1, 31, -1;
// CHECK:       max.NaN.f32
// CHECK:       shfl.sync.bfly.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 2, 31, -1;
// CHECK:       ex2.approx.ftz.f32
// P packed to f16 pairs in registers, V transposed by ldmatrix.
// CHECK:       cvt.rn.f16x2.f32
// CHECK:       ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK:       mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK:       cp.async.wait_group 0;
// The row sums over the quad, then the guarded stores.
// CHECK:       shfl.sync.bfly.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 1, 31, -1;
// CHECK:       shfl.sync.bfly.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 2, 31, -1;
// CHECK:       @%p{{[0-9]+}} bra
// CHECK:       st.global.b32
// CHECK:       ret;

// CHECK-LABEL: // gpu.binary @bf16_kernels
// CHECK:       .visible .entry bf16_0(
// CHECK:       mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK:       ex2.approx.ftz.f32
// CHECK:       cvt.rn.bf16x2.f32
// CHECK:       ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK:       mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK:       st.global.v2.b32

func.func @causal(%q: tensor<2x4x77x64xf16>, %k: tensor<2x2x130x64xf16>, %v: tensor<2x2x130x64xf16>) -> tensor<2x4x77x64xf16> {
  %o = tensor.empty() : tensor<2x4x77x64xf16>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<2x4x77x64xf16>, tensor<2x2x130x64xf16>, tensor<2x2x130x64xf16>) outs(%o : tensor<2x4x77x64xf16>) -> tensor<2x4x77x64xf16>
  return %0 : tensor<2x4x77x64xf16>
}

func.func @bf16(%q: tensor<1x1x128x32xbf16>, %k: tensor<1x1x128x32xbf16>, %v: tensor<1x1x128x32xbf16>) -> tensor<1x1x128x32xf32> {
  %o = tensor.empty() : tensor<1x1x128x32xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x128x32xbf16>, tensor<1x1x128x32xbf16>, tensor<1x1x128x32xbf16>) outs(%o : tensor<1x1x128x32xf32>) -> tensor<1x1x128x32xf32>
  return %0 : tensor<1x1x128x32xf32>
}
