// RUN: accel-opt %s --convert-accel-to-gpu | FileCheck %s
// RUN: accel-opt %s --convert-accel-to-gpu="chip=sm_90a mma=mma.sync stages=3" | FileCheck %s --check-prefix=S3

// The FlashAttention-2 kernel of a causal GQA f16 attention with remainders
// (Sq = 77, Skv = 130): grid (ceil(77/64), Hq, B), 4 warps, Q [64][64+8]
// and 2 stages of K and V [64][64+8] in shared memory.
// CHECK-LABEL: gpu.module @causal_kernels
// CHECK:       gpu.func @causal_0(%[[Q:.*]]: memref<2x4x77x64xf16>, %[[K:.*]]: memref<2x2x130x64xf16>, %[[V:.*]]: memref<2x2x130x64xf16>, %[[O:.*]]: memref<2x4x77x64xf16>) kernel
// CHECK-SAME:    accel.launch = {access = ["in", "in", "in", "out"], args = ["arg0", "arg1", "arg2", "result0"], block = array<i64: 128, 1, 1>, causal_offset = 53 : i64, chip = "sm_80", dynamic_shared_memory = 46080 : i64, grid = array<i64: 2, 4, 2>, kind = "attention", mma = "mma.sync", scale = 1.250000e-01 : f64, stages = 2 : i64, tile = array<i64: 64, 64>}
// CHECK:         %[[LOG2E_SCALE:.*]] = arith.constant 0.180336878 : f32
// CHECK:         %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[BX:.*]] = gpu.block_id  x
// CHECK:         %[[M0:.*]] = arith.muli %[[BX]], %c64
// CHECK:         %[[HEAD:.*]] = gpu.block_id  y
// CHECK:         %[[BATCH:.*]] = gpu.block_id  z
// GQA: KV head = query head / 2.
// CHECK:         %[[KVHEAD:.*]] = arith.divui %[[HEAD]], %c2
// CHECK:         %[[SQ:.*]] = memref.view {{.*}}[%c0][] {{.*}} to memref<64x72xf16, #gpu.address_space<workgroup>>
// CHECK:         %[[SK:.*]] = memref.view {{.*}}[%c9216][] {{.*}} to memref<2x64x72xf16, #gpu.address_space<workgroup>>
// CHECK:         %[[SV:.*]] = memref.view {{.*}}[%c27648][] {{.*}} to memref<2x64x72xf16, #gpu.address_space<workgroup>>
// The causal loop bound: the keys up to the band of the block's last row,
// kvEnd = max(0, min(130, min(m0 + 63, 76) + 53 + 1)).
// CHECK:         %[[LAST:.*]] = arith.minsi %{{.*}}, %c76
// CHECK:         %[[END0:.*]] = arith.addi %[[LAST]], %c54
// CHECK:         %[[END1:.*]] = arith.minsi %c130, %[[END0]]
// CHECK:         %[[KVEND:.*]] = arith.maxsi %c0, %[[END1]]
// CHECK:         %[[NB0:.*]] = arith.addi %[[KVEND]], %c63
// CHECK:         %[[NBLOCKS:.*]] = arith.divui %[[NB0]], %c64
// Q (zero-filled past row 77), then key block 0, each one group.
// CHECK:         nvgpu.device_async_copy %[[Q]][%[[BATCH]], %[[HEAD]], {{.*}}], %[[SQ]][{{.*}}], 8, %{{.*}} {bypassL1}
// CHECK:         %[[QGROUP:.*]] = nvgpu.device_async_create_group
// CHECK:         nvgpu.device_async_copy %[[K]][%[[BATCH]], %[[KVHEAD]], {{.*}}], %[[SK]][%c0, {{.*}}], 8, %{{.*}} {bypassL1}
// CHECK:         nvgpu.device_async_copy %[[V]][%[[BATCH]], %[[KVHEAD]], {{.*}}], %[[SV]][%c0, {{.*}}], 8, %{{.*}} {bypassL1}
// CHECK:         nvgpu.device_async_create_group
// CHECK:         nvgpu.device_async_wait %[[QGROUP]] {numGroups = 1 : i32}
// CHECK-NEXT:    gpu.barrier
// Q fragments in registers, once: D / 16 = 4 ldmatrix x4.
// CHECK-COUNT-4: nvgpu.ldmatrix %[[SQ]]{{.*}} {numTiles = 4 : i32, transpose = false}
// The key loops carry 8 O fragments (Dv / 8), the row max and the row sum
// of rows g and g + 8. The key blocks in which no row removes a key come
// first, without the band's and the tail's compares (unmaskedKeyBlocks);
// the diagonal and partial ones follow, from where the first loop ends.
// CHECK:         %[[FIRST:.*]]:12 = scf.for %{{.*}} = %c0 to %[[NFULL:.*]] step %c1 iter_args({{.*}}) -> (vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, f32, f32, f32, f32)
// CHECK-NOT:       arith.cmpi sle
// CHECK-NOT:       %c130
// CHECK:           gpu.shuffle  xor
// CHECK:         scf.yield
// CHECK:         scf.for %[[J:.*]] = %[[NFULL]] to %[[NBLOCKS]] step %c1 iter_args(%{{.*}} = %[[FIRST]]#0,
// CHECK:           nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// CHECK-NEXT:      gpu.barrier
// CHECK:           nvgpu.device_async_copy %[[K]]
// CHECK:           nvgpu.device_async_create_group
// S = Q.K^T: K rows through ldmatrix without .trans.
// CHECK:           nvgpu.ldmatrix %[[SK]]{{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK-COUNT-8:   nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// Scaled by scale * log2(e); keys past Skv and above the band are -inf.
// Key n0 + 2 (lane % 4) + c of row r is kept when n0 + 2 (lane % 4) <
// 130 - c and n0 + 2 (lane % 4) - r <= 53 + 8h - c.
// CHECK:           %[[DIAG:.*]] = arith.subi %[[COL:.*]], %{{.*}} : index
// CHECK:           arith.mulf %{{.*}}, %[[LOG2E_SCALE]] : f32
// CHECK-NEXT:      %[[TAIL:.*]] = arith.cmpi slt, %[[COL]], %c130 : index
// CHECK-NEXT:      %[[BAND:.*]] = arith.cmpi sle, %[[DIAG]], %c53 : index
// CHECK-NEXT:      %[[KEEP:.*]] = arith.andi %[[TAIL]], %[[BAND]] : i1
// CHECK-NEXT:      arith.select %[[KEEP]], %{{.*}}, %[[NEG_INF]] : f32
// CHECK:           arith.cmpi slt, %[[COL]], %c129 : index
// CHECK-NEXT:      arith.cmpi sle, %[[DIAG]], %c52 : index
// Row g + 8:
// CHECK:           arith.cmpi slt, %[[COL]], %c130 : index
// CHECK-NEXT:      arith.cmpi sle, %[[DIAG]], %c61 : index
// The row max over the quad: xor shuffles 1 and 2.
// CHECK:           %[[X1:.*]], %{{.*}} = gpu.shuffle  xor %[[MX0:.*]], %c1_i32{{.*}}, %c32_i32{{.*}} : f32
// CHECK:           %[[MX1:.*]] = arith.maximumf %[[MX0]], %[[X1]] : f32
// CHECK:           %[[X2:.*]], %{{.*}} = gpu.shuffle  xor %[[MX1]], %c2_i32{{.*}}, %c32_i32{{.*}} : f32
// CHECK:           %[[MX2:.*]] = arith.maximumf %[[MX1]], %[[X2]] : f32
// CHECK:           %[[MNEW:.*]] = arith.maximumf %{{.*}}, %[[MX2]] : f32
// CHECK:           %[[EMPTY:.*]] = arith.cmpf oeq, %[[MNEW]], %[[NEG_INF]] : f32
// CHECK:           %[[BASE:.*]] = arith.select %[[EMPTY]], %{{.*}}, %[[MNEW]] : f32
// CHECK:           %[[DM:.*]] = arith.subf %{{.*}}, %[[BASE]] : f32
// CHECK:           llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%[[DM]]) : (f32) -> f32
// CHECK:           llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// The O accumulators rescaled by the correction of both rows.
// CHECK:           %[[CORR:.*]] = vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<2x2xf32>
// CHECK-COUNT-8:   arith.mulf %{{.*}}, %[[CORR]] : vector<2x2xf32>
// P re-packed into A fragments in registers, V through ldmatrix .trans.
// CHECK:           %[[PF32:.*]] = vector.from_elements {{.*}} : vector<4x2xf32>
// CHECK:           %[[P:.*]] = arith.truncf %[[PF32]] : vector<4x2xf32> to vector<4x2xf16>
// CHECK:           nvgpu.ldmatrix %[[SV]]{{.*}} {numTiles = 4 : i32, transpose = true}
// CHECK:           nvgpu.mma.sync(%[[P]], {{.*}}) {mmaShape = [16, 8, 16]}
// CHECK:           scf.yield
// CHECK:         nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// The quad's row sums; 0 for a row that kept no key; guarded f16 stores.
// CHECK:         gpu.shuffle  xor
// CHECK:         gpu.shuffle  xor
// CHECK:         %[[NONE:.*]] = arith.cmpf oeq
// CHECK:         arith.divf
// CHECK:         arith.select %[[NONE]]
// CHECK:         scf.if
// CHECK:           arith.truncf %{{.*}} : vector<2xf32> to vector<2xf16>
// CHECK:           vector.store %{{.*}}, %[[O]][%[[BATCH]], %[[HEAD]], {{.*}}] {alignment = 4 : i64} : memref<2x4x77x64xf16>, vector<2xf16>
// CHECK:         gpu.return
// CHECK-NOT:   func.func

// 3 stages: the loop waits for all but the newest group; 56 KiB more
// shared memory.
// S3-LABEL: gpu.func @causal_0
// S3-SAME:    chip = "sm_90a", dynamic_shared_memory = 64512 : i64
// S3-SAME:    stages = 3 : i64
// S3:         nvgpu.device_async_wait %{{.*}} {numGroups = 2 : i32}
// S3:         scf.for
// S3:           nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
func.func @causal(%q: tensor<2x4x77x64xf16>, %k: tensor<2x2x130x64xf16>, %v: tensor<2x2x130x64xf16>) -> tensor<2x4x77x64xf16> {
  %o = tensor.empty() : tensor<2x4x77x64xf16>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<2x4x77x64xf16>, tensor<2x2x130x64xf16>, tensor<2x2x130x64xf16>) outs(%o : tensor<2x4x77x64xf16>) -> tensor<2x4x77x64xf16>
  return %0 : tensor<2x4x77x64xf16>
}

// bf16, non-causal, no remainder: nvvm.mma.sync on packed bf16 registers,
// no masking, the loop bound a constant, unguarded stores.
// CHECK-LABEL: gpu.func @bf16_0(
// CHECK-SAME:    grid = array<i64: 2, 1, 1>
// CHECK-NOT:     causal_offset
// CHECK:         scf.for %{{.*}} = %c0 to %c2 step %c1
// CHECK-NOT:       arith.cmpi sle
// CHECK:           nvvm.mma.sync {{.*}} {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
// CHECK:           arith.truncf %{{.*}} : vector<4x2xf32> to vector<4x2xbf16>
// CHECK:         scf.yield
// CHECK-NOT:     scf.if
// CHECK:         vector.store %{{.*}} : memref<1x1x128x32xf32>, vector<2xf32>
func.func @bf16(%q: tensor<1x1x128x32xbf16>, %k: tensor<1x1x128x32xbf16>, %v: tensor<1x1x128x32xbf16>) -> tensor<1x1x128x32xf32> {
  %o = tensor.empty() : tensor<1x1x128x32xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x128x32xbf16>, tensor<1x1x128x32xbf16>, tensor<1x1x128x32xbf16>) outs(%o : tensor<1x1x128x32xf32>) -> tensor<1x1x128x32xf32>
  return %0 : tensor<1x1x128x32xf32>
}
