// The i8 and f8 kernels (B as [N, K]): 8-bit shared rings padded by 16
// bytes, ldmatrix x4 on bytes, mma.sync m16n8k32 (s8 wrapping into i32; f8
// as inline PTX, f32 sums), i32 / converted epilogue.
// RUN: accel-opt %s --convert-accel-to-gpu=chip=sm_89 | FileCheck %s

// CHECK-LABEL: gpu.func @i8_0(
// CHECK-SAME:    %{{.*}}: memref<100x64xi8>, %{{.*}}: memref<72x64xi8>, %{{.*}}: memref<100x72xi32>, %{{.*}}: memref<100x72xi32>)
// 64x64x64 tile, 2 stages: (64 + 64) x (64 + 16) x 2 bytes.
// CHECK-SAME:    dynamic_shared_memory = 20480 : i64
// CHECK-SAME:    tile = array<i64: 64, 64, 64>
// CHECK:         memref.view %{{.*}}[%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<2x64x80xi8, #gpu.address_space<workgroup>>
// i32 accumulators, read from C (accumulate).
// CHECK:         vector.load %{{.*}} : memref<100x72xi32>, vector<2xi32>
// CHECK:         nvgpu.device_async_copy %{{.*}}, 16{{.*}} {bypassL1} : memref<100x64xi8> to memref<2x64x80xi8
// CHECK:         scf.for {{.*}} -> (vector<2x2xi32>,
// CHECK:           nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false} : memref<2x64x80xi8, #gpu.address_space<workgroup>> -> vector<4x4xi8>
// CHECK:           vector.bitcast %{{.*}} : vector<4xi8> to vector<1xi32>
// CHECK:           nvvm.mma.sync {{.*}} {intOverflowBehavior = #nvvm.mma_int_overflow<wrapped>, layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<s8>, multiplicandBPtxType = #nvvm.mma_type<s8>, shape = #nvvm.shape<m = 16, n = 8, k = 32>} : (i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK-NOT:     nvgpu.mma.sync
// CHECK:         vector.store %{{.*}} : memref<100x72xi32>, vector<2xi32>

// f8: rings of the inputs' types for cp.async, i8 views of the same bytes
// for ldmatrix.
// CHECK-LABEL: gpu.func @f8_0(
// CHECK-SAME:    memref<100x64xf8E4M3FN>, %{{.*}}: memref<72x64xf8E5M2>, %{{.*}}: memref<100x72xbf16>)
// CHECK:         %[[A:.*]] = memref.view %[[DYN:.*]][%[[C0:.*]]][] : {{.*}} to memref<2x64x80xf8E4M3FN, #gpu.address_space<workgroup>>
// CHECK:         %[[B:.*]] = memref.view %[[DYN]][%[[OFF:.*]]][] : {{.*}} to memref<2x64x80xf8E5M2, #gpu.address_space<workgroup>>
// CHECK:         %[[LA:.*]] = memref.view %[[DYN]][%[[C0]]][] : {{.*}} to memref<2x64x80xi8, #gpu.address_space<workgroup>>
// CHECK:         %[[LB:.*]] = memref.view %[[DYN]][%[[OFF]]][] : {{.*}} to memref<2x64x80xi8, #gpu.address_space<workgroup>>
// CHECK:         nvgpu.device_async_copy {{.*}}, %[[A]][{{.*}}], 16{{.*}} {bypassL1} : memref<100x64xf8E4M3FN> to
// CHECK:         scf.for {{.*}} -> (vector<2x2xf32>,
// CHECK:           nvgpu.ldmatrix %[[LA]]
// CHECK:           nvgpu.ldmatrix %[[LB]]
// CHECK:           llvm.inline_asm asm_dialect = att "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 {$0,$1,$2,$3}, {$4,$5,$6,$7}, {$8,$9}, {$10,$11,$12,$13};", "=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f" {{.*}} : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK:         arith.truncf %{{.*}} : vector<2xf32> to vector<2xbf16>

func.func @i8(%a: tensor<100x64xi8>, %b: tensor<72x64xi8>, %c: tensor<100x72xi32>) -> tensor<100x72xi32> {
  %0 = accel.matmul transpose_b accumulate ins(%a, %b : tensor<100x64xi8>, tensor<72x64xi8>) outs(%c : tensor<100x72xi32>) -> tensor<100x72xi32>
  return %0 : tensor<100x72xi32>
}

func.func @f8(%a: tensor<100x64xf8E4M3FN>, %b: tensor<72x64xf8E5M2>) -> tensor<100x72xbf16> {
  %c = tensor.empty() : tensor<100x72xbf16>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<100x64xf8E4M3FN>, tensor<72x64xf8E5M2>) outs(%c : tensor<100x72xbf16>) -> tensor<100x72xbf16>
  return %0 : tensor<100x72xbf16>
}
