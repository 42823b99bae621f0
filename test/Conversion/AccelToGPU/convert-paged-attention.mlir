// RUN: accel-opt %s --convert-accel-to-gpu=chip=sm_80 | FileCheck %s
// The structure of accel.paged_attention's GPU kernels
// (PagedAttentionKernel.h) for GQA (8 query heads over 2 KV heads, one
// packed row each), bf16 16-token pages, 40 pages a sequence in two splits
// of 20 on sm_80; emulate-paged-attention.mlir checks their numerics.

// The split kernel writes the splits' states [B, Hkv, splits, rows, Dv + 2].
// CHECK-LABEL: gpu.func @gqa_paged0(
// CHECK-SAME: %[[Q:.*]]: memref<2x8x1x64xbf16>, %[[K:.*]]: memref<9x16x2x64xbf16>, %[[V:.*]]: memref<9x16x2x64xbf16>, %[[TABLE:.*]]: memref<2x40xi32>, %[[LEN:.*]]: memref<2xi32>, %[[PART:.*]]: memref<2x2x2x4x66xf32>)
// CHECK-SAME: grid = array<i64: 2, 2, 2>
// CHECK-SAME: kind = "paged", splits = 2
// Validity: the length in [0, 40 * 16], then the sequence's pages in
// [0, 9), the threads side by side, each warp's flag by shuffles.
// CHECK: %[[RAW:.*]] = memref.load %[[LEN]]
// CHECK: arith.cmpi sge, %[[RAW]], %c0_i32
// CHECK: arith.cmpi sle, %[[RAW]], %c640_i32
// CHECK: scf.for {{.*}} step %c128
// CHECK: %[[E:.*]] = memref.load %[[TABLE]]
// CHECK: arith.cmpi slt, %[[E]], %c0_i32
// CHECK: arith.cmpi sge, %[[E]], %c9_i32
// CHECK-COUNT-5: gpu.shuffle xor
// CHECK: gpu.barrier
// The four packed rows' Q runs (8 bf16 a lane), scaled.
// CHECK-COUNT-4: vector.load %[[Q]]{{.*}} vector<8xbf16>
// The key loop: 16 groups of 8 lanes, two keys each a step.
// CHECK: scf.for {{.*}} step %c32
// CHECK: %[[PAGE:.*]] = memref.load %[[TABLE]]
// CHECK: %[[P:.*]] = arith.index_castui %[[PAGE]]
// CHECK: vector.load %[[K]][%[[P]], {{.*}}] {alignment = 16 : i64} {{.*}} vector<8xbf16>
// CHECK: vector.load %[[V]][%[[P]], {{.*}}] {alignment = 16 : i64} {{.*}} vector<8xbf16>
// The butterfly over a group's 8 lanes, then exp2.
// CHECK: gpu.shuffle xor {{.*}}, %c1_i32
// CHECK: gpu.shuffle xor {{.*}}, %c2_i32
// CHECK: gpu.shuffle xor {{.*}}, %c4_i32
// CHECK-NOT: gpu.shuffle xor {{.*}}, %c8_i32
// CHECK: llvm.nvvm.ex2.approx.ftz.f32
// CHECK: loop_annotation
// The groups' states meet in shared memory and are merged.
// CHECK: gpu.barrier
// CHECK: scf.for {{.*}} = %c0 to %c16 step %c1
// CHECK: vector.store {{.*}}, %[[PART]]
// CHECK: gpu.return

// The combine: one thread an element of O.
// CHECK-LABEL: gpu.func @gqa_paged0_combine(
// CHECK-SAME: %[[PARTS:.*]]: memref<2x2x2x4x66xf32>, %[[O:.*]]: memref<2x8x1x64xbf16>)
// CHECK-SAME: kind = "paged_combine"
// CHECK: scf.for {{.*}} = %c0 to %c2 step %c1
// CHECK: arith.maximumf
// CHECK: scf.for {{.*}} = %c0 to %c2 step %c1
// CHECK: arith.divf
// CHECK: arith.truncf {{.*}} to bf16
// CHECK: memref.store {{.*}}, %[[O]]

func.func @gqa(%q: tensor<2x8x1x64xbf16>, %kc: tensor<9x16x2x64xbf16>, %vc: tensor<9x16x2x64xbf16>, %bt: tensor<2x40xi32>, %len: tensor<2xi32>) -> tensor<2x8x1x64xbf16> {
  %o = tensor.empty() : tensor<2x8x1x64xbf16>
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<2x8x1x64xbf16>, tensor<9x16x2x64xbf16>, tensor<9x16x2x64xbf16>) block_table(%bt : tensor<2x40xi32>) kv_lengths(%len : tensor<2xi32>) outs(%o : tensor<2x8x1x64xbf16>) -> tensor<2x8x1x64xbf16>
  return %r : tensor<2x8x1x64xbf16>
}
