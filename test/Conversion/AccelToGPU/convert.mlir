// RUN: accel-opt %s -split-input-file --convert-accel-to-gpu | FileCheck %s

// f16 with remainders along M (100 = 64 + 36) and N (72 = 64 + 8): the
// small-problem tile 64x64x32, 4 warps as 2x2, 3 stages.

// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK-NOT:   func.func
// CHECK:       gpu.module @mm_kernels
// CHECK:       gpu.func @mm_0(%[[A:.*]]: memref<100x64xf16>, %[[B:.*]]: memref<64x72xf16>, %[[C:.*]]: memref<100x72xf32>) kernel
// CHECK-SAME:    accel.launch = {access = ["in", "in", "out"], args = ["arg0", "arg1", "result0"], block = array<i64: 128, 1, 1>, chip = "sm_80",
// CHECK-SAME:    dynamic_shared_memory = 29184 : i64, grid = array<i64: 2, 2, 1>, mma = "mma.sync", stages = 3 : i64, tile = array<i64: 64, 64, 32>, warps = array<i64: 2, 2>}
// CHECK-SAME:    known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 2, 2, 1>
// CHECK:       %[[DYN:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// 3 x 64 x (32 + 8) f16 for A, then 3 x 32 x (64 + 8) for B at 15360 bytes.
// CHECK:       %[[SA:.*]] = memref.view %[[DYN]][%c0][] : {{.*}} to memref<3x64x40xf16, #gpu.address_space<workgroup>>
// CHECK:       %[[SB:.*]] = memref.view %[[DYN]][%c15360][] : {{.*}} to memref<3x32x72xf16, #gpu.address_space<workgroup>>
// Prologue: slices 0 and 1; each copy of A checks its row against M and its
// column against K, and reads 8 or 0 elements from a clamped address.
// CHECK:       %[[ROK:.*]] = arith.cmpi ult, %{{.*}}, %c100 : index
// CHECK:       %[[KOK:.*]] = arith.cmpi ult, %{{.*}}, %c64 : index
// CHECK:       %[[OK:.*]] = arith.andi %[[ROK]], %[[KOK]] : i1
// CHECK:       %[[N:.*]] = arith.select %[[OK]], %c8, %c0 : index
// CHECK:       %[[R:.*]] = arith.select %[[OK]], %{{.*}}, %c0 : index
// CHECK:       %[[K:.*]] = arith.select %[[OK]], %{{.*}}, %c0 : index
// CHECK:       nvgpu.device_async_copy %[[A]][%[[R]], %[[K]]], %[[SA]][%c0, %{{.*}}, %{{.*}}], 8, %[[N]] {bypassL1}
// CHECK:       nvgpu.device_async_copy %[[B]][{{.*}}], %[[SB]][%c0, {{.*}}], 8, %{{.*}} {bypassL1}
// CHECK:       nvgpu.device_async_create_group
// CHECK:       nvgpu.device_async_copy %[[A]][{{.*}}], %[[SA]][%c1, {{.*}}], 8
// CHECK:       %[[G1:.*]] = nvgpu.device_async_create_group
// Main loop over the 2 K-slices, 8 accumulator fragments (2 x 4 per warp).
// CHECK:       %[[ACC:.*]]:8 = scf.for %[[KT:.*]] = %c0 to %c2 step %c1 iter_args({{.*}}) -> (vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>)
// CHECK-NEXT:    nvgpu.device_async_wait %[[G1]] {numGroups = 1 : i32}
// CHECK-NEXT:    gpu.barrier
// Refill the buffer of slice kt + 2 (= kt - 1 mod 3) ...
// CHECK-NEXT:    %[[NEXT:.*]] = arith.addi %[[KT]], %c2 : index
// CHECK-NEXT:    %[[NS:.*]] = arith.remui %[[NEXT]], %c3 : index
// CHECK:         nvgpu.device_async_copy %[[A]][{{.*}}], %[[SA]][%[[NS]], {{.*}}]
// CHECK:         nvgpu.device_async_create_group
// ... while the warps multiply slice kt: A x4, B x4.trans, 2 k-steps of 8 mma.
// CHECK:         %[[S:.*]] = arith.remui %[[KT]], %c3 : index
// CHECK:         nvgpu.ldmatrix %[[SA]][%[[S]], {{.*}}] {numTiles = 4 : i32, transpose = false} : memref<3x64x40xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK:         nvgpu.ldmatrix %[[SB]][%[[S]], {{.*}}] {numTiles = 4 : i32, transpose = true} : memref<3x32x72xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK-COUNT-8: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK:         nvgpu.ldmatrix %[[SA]]
// CHECK-COUNT-8: nvgpu.mma.sync
// CHECK-NOT:     nvgpu.mma.sync
// CHECK:         scf.yield
// CHECK:       nvgpu.device_async_wait %[[G1]] {numGroups = 0 : i32}
// Epilogue: pairs of f32, guarded by row < 100 and column < 72.
// CHECK:       %[[IR:.*]] = arith.cmpi ult, %[[ROW:.*]], %c100 : index
// CHECK:       %[[V:.*]] = vector.extract %[[ACC]]#0[0] : vector<2xf32> from vector<2x2xf32>
// CHECK:       %[[IC:.*]] = arith.cmpi ult, %[[COL:.*]], %c72 : index
// CHECK:       %[[IN:.*]] = arith.andi %[[IR]], %[[IC]] : i1
// CHECK:       scf.if %[[IN]] {
// CHECK-NEXT:    vector.store %[[V]], %[[C]][%[[ROW]], %[[COL]]] {alignment = 8 : i64} : memref<100x72xf32>, vector<2xf32>
// CHECK-COUNT-15: vector.store
// CHECK-NOT:   vector.store
// CHECK:       gpu.return
func.func @mm(%a: tensor<100x64xf16>, %b: tensor<64x72xf16>) -> tensor<100x72xf32> {
  %c = tensor.empty() : tensor<100x72xf32>
  %0 = accel.matmul ins(%a, %b : tensor<100x64xf16>, tensor<64x72xf16>) outs(%c : tensor<100x72xf32>) -> tensor<100x72xf32>
  return %0 : tensor<100x72xf32>
}

// -----

// bf16, batched, transpose_b, accumulate, bf16 C: nvvm.mma.sync on i32
// registers, B read with non-transposed ldmatrix from [n][k] rows, C read
// and rounded back to bf16.

// CHECK-LABEL: gpu.module @bt_kernels
// CHECK:       gpu.func @bt_0(%[[A:.*]]: memref<2x40x48xbf16>, %[[B:.*]]: memref<2x36x48xbf16>, %[[CIN:.*]]: memref<2x40x36xbf16>, %[[C:.*]]: memref<2x40x36xbf16>) kernel
// CHECK-SAME:    access = ["in", "in", "in", "out"], args = ["arg0", "arg1", "arg2", "result0"]
// CHECK-SAME:    grid = array<i64: 1, 1, 2>
// CHECK:       %[[Z:.*]] = gpu.block_id z
// CHECK:       memref.view {{.*}} to memref<3x64x40xbf16, #gpu.address_space<workgroup>>
// CHECK:       memref.view {{.*}} to memref<3x64x40xbf16, #gpu.address_space<workgroup>>
// CHECK:       scf.if %{{.*}} -> (vector<2xf32>) {
// CHECK-NEXT:    %[[LD:.*]] = vector.load %[[CIN]][%[[Z]], %{{.*}}, %{{.*}}] {alignment = 4 : i64} : memref<2x40x36xbf16>, vector<2xbf16>
// CHECK-NEXT:    %[[EXT:.*]] = arith.extf %[[LD]] : vector<2xbf16> to vector<2xf32>
// CHECK-NEXT:    scf.yield %[[EXT]] : vector<2xf32>
// CHECK-NEXT:  } else {
// CHECK-NEXT:    scf.yield %cst{{.*}} : vector<2xf32>
// CHECK:       nvgpu.device_async_copy %[[A]][%[[Z]], {{.*}}], {{.*}}, 8, %{{.*}} {bypassL1} : memref<2x40x48xbf16> to memref<3x64x40xbf16, #gpu.address_space<workgroup>>
// CHECK:       nvgpu.device_async_copy %[[B]][%[[Z]], {{.*}}], {{.*}}, 8, %{{.*}} {bypassL1} : memref<2x36x48xbf16> to memref<3x64x40xbf16, #gpu.address_space<workgroup>>
// CHECK:       scf.for
// CHECK:         nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false} : memref<3x64x40xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK-NOT:     transpose = true
// CHECK:         %[[W:.*]] = vector.bitcast %{{.*}} : vector<2xbf16> to vector<1xi32>
// CHECK-NEXT:    vector.extract %[[W]][0] : i32 from vector<1xi32>
// CHECK:         %[[D:.*]] = nvvm.mma.sync A[{{.*}}, {{.*}}, {{.*}}, {{.*}}] B[{{.*}}, {{.*}}] C[{{.*}}, {{.*}}, {{.*}}, {{.*}}]
// CHECK-SAME:      multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>
// CHECK-SAME:      (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK:         llvm.extractvalue %[[D]][3] : !llvm.struct<(f32, f32, f32, f32)>
// CHECK:         vector.from_elements {{.*}} : vector<2x2xf32>
// CHECK:       arith.truncf %{{.*}} : vector<2xf32> to vector<2xbf16>
// CHECK:       vector.store %{{.*}}, %[[C]][%[[Z]], %{{.*}}, %{{.*}}] {alignment = 4 : i64} : memref<2x40x36xbf16>, vector<2xbf16>
func.func @bt(%a: tensor<2x40x48xbf16>, %b: tensor<2x36x48xbf16>, %c: tensor<2x40x36xbf16>) -> tensor<2x40x36xbf16> {
  %0 = accel.matmul transpose_b accumulate ins(%a, %b : tensor<2x40x48xbf16>, tensor<2x36x48xbf16>) outs(%c : tensor<2x40x36xbf16>) -> tensor<2x40x36xbf16>
  return %0 : tensor<2x40x36xbf16>
}

// -----

// No remainder along M or N: no guards in the epilogue and no row checks
// in the copies (the K check stays: the last iterations copy past K).

// CHECK-LABEL: gpu.module @exact_kernels
// CHECK-SAME:  {
// CHECK-NOT:   arith.cmpi ult, %{{.*}}, %c128 : index
// CHECK-NOT:   scf.if
// CHECK:       arith.cmpi ult, %{{.*}}, %c64 : index
// CHECK-NOT:   scf.if
// CHECK:       vector.store
// CHECK-NOT:   scf.if
// CHECK:       gpu.return
func.func @exact(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>) -> tensor<128x128xf32> {
  %c = tensor.empty() : tensor<128x128xf32>
  %0 = accel.matmul ins(%a, %b : tensor<128x64xf16>, tensor<64x128xf16>) outs(%c : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %0 : tensor<128x128xf32>
}

// -----

// Large problems (13 x 12 blocks of 128x128 >= 108 multiprocessors of an
// A100) get the large tile: 8 warps as 2x4 (64x32 each), 3 stages, 56832
// bytes of dynamic shared memory.

// CHECK-LABEL: gpu.module @large_kernels
// CHECK:       block = array<i64: 256, 1, 1>
// CHECK-SAME:  dynamic_shared_memory = 56832 : i64, grid = array<i64: 13, 12, 1>, mma = "mma.sync", stages = 3 : i64, tile = array<i64: 128, 128, 32>, warps = array<i64: 2, 4>
// CHECK:       scf.for {{.*}} -> (vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>)
func.func @large(%a: tensor<1536x64xf16>, %b: tensor<64x1544xf16>) -> tensor<1536x1544xf32> {
  %c = tensor.empty() : tensor<1536x1544xf32>
  %0 = accel.matmul ins(%a, %b : tensor<1536x64xf16>, tensor<64x1544xf16>) outs(%c : tensor<1536x1544xf32>) -> tensor<1536x1544xf32>
  return %0 : tensor<1536x1544xf32>
}

// -----

// Odd N (transpose_b keeps the rows of B K long): single-element guarded
// stores. K = 36 is no multiple of 8: copies of 4 elements (8 bytes, .ca).

// CHECK-LABEL: gpu.module @odd_kernels
// CHECK:       gpu.func @odd_0(%[[A:.*]]: memref<50x36xf16>, %[[B:.*]]: memref<37x36xf16>, %[[C:.*]]: memref<50x37xf32>)
// CHECK:       nvgpu.device_async_copy %[[A]][{{.*}}], %{{.*}}[{{.*}}], 4, %{{.*}} : memref<50x36xf16>
// CHECK-NOT:   bypassL1
// CHECK:       scf.if %{{.*}} {
// CHECK-NEXT:    %[[E:.*]] = vector.extract %{{.*}}[0] : f32 from vector<2xf32>
// CHECK-NEXT:    memref.store %[[E]], %[[C]][%{{.*}}, %{{.*}}] : memref<50x37xf32>
// CHECK:       scf.if %{{.*}} {
// CHECK-NEXT:    %[[E1:.*]] = vector.extract %{{.*}}[1] : f32 from vector<2xf32>
// CHECK-NEXT:    memref.store %[[E1]], %[[C]]
// CHECK-NOT:   vector.store
// CHECK:       gpu.return
func.func @odd(%a: tensor<50x36xf16>, %b: tensor<37x36xf16>) -> tensor<50x37xf32> {
  %c = tensor.empty() : tensor<50x37xf32>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<50x36xf16>, tensor<37x36xf16>) outs(%c : tensor<50x37xf32>) -> tensor<50x37xf32>
  return %0 : tensor<50x37xf32>
}

// -----

// Two matmuls: one kernel each, the intermediate result a `tmp` buffer.
// K = 0 needs neither A nor B (nor shared memory); an empty C no kernel.
// Private functions stay.

// CHECK-LABEL: gpu.module @chain_kernels
// CHECK:       gpu.func @chain_0({{.*}}: memref<64x32xf16>, {{.*}}: memref<32x48xf16>, {{.*}}: memref<64x48xf16>)
// CHECK-SAME:    args = ["arg0", "arg1", "tmp0"]
// CHECK:       gpu.func @chain_1({{.*}}: memref<64x48xf16>, {{.*}}: memref<48x16xf16>, {{.*}}: memref<64x16xf32>)
// CHECK-SAME:    args = ["tmp0", "arg2", "result0"]
// CHECK-LABEL: gpu.module @kzero_kernels
// CHECK:       gpu.func @kzero_0(%[[CIN:.*]]: memref<20x24xf32>, %[[C:.*]]: memref<20x24xf32>)
// CHECK-SAME:    access = ["in", "out"], args = ["arg2", "result0"]
// CHECK-SAME:    dynamic_shared_memory = 0 : i64
// CHECK-NOT:     nvgpu
// CHECK:       vector.load %[[CIN]]
// CHECK:       vector.store %{{.*}}, %[[C]]
// CHECK:       gpu.return
// CHECK-NOT:   gpu.func @kzero_1
// CHECK:       func.func private @helper
func.func @chain(%a: tensor<64x32xf16>, %b: tensor<32x48xf16>, %d: tensor<48x16xf16>) -> tensor<64x16xf32> {
  %c = tensor.empty() : tensor<64x48xf16>
  %0 = accel.matmul ins(%a, %b : tensor<64x32xf16>, tensor<32x48xf16>) outs(%c : tensor<64x48xf16>) -> tensor<64x48xf16>
  %e = tensor.empty() : tensor<64x16xf32>
  %1 = accel.matmul ins(%0, %d : tensor<64x48xf16>, tensor<48x16xf16>) outs(%e : tensor<64x16xf32>) -> tensor<64x16xf32>
  return %1 : tensor<64x16xf32>
}
func.func @kzero(%a: tensor<20x0xf16>, %b: tensor<0x24xf16>, %c: tensor<20x24xf32>) -> (tensor<20x24xf32>, tensor<0x24xf32>) {
  %0 = accel.matmul accumulate ins(%a, %b : tensor<20x0xf16>, tensor<0x24xf16>) outs(%c : tensor<20x24xf32>) -> tensor<20x24xf32>
  %a0 = tensor.empty() : tensor<0x0xf16>
  %e = tensor.empty() : tensor<0x24xf32>
  %1 = accel.matmul ins(%a0, %b : tensor<0x0xf16>, tensor<0x24xf16>) outs(%e : tensor<0x24xf32>) -> tensor<0x24xf32>
  return %0, %1 : tensor<20x24xf32>, tensor<0x24xf32>
}
func.func private @helper(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  return %a : tensor<4x4xf32>
}
