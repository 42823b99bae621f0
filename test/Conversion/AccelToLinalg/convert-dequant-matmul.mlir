// RUN: accel-opt %s --convert-accel-to-linalg | FileCheck %s

// accel.dequant_matmul's reference lowering: batch dimensions collapsed into
// M, one generic over (m, n, k) reading W at (n, k floordiv 2) for int4 and
// the scales and zero points at (n, k floordiv group), the weight unpacked
// from its byte (the low nibble for even k), dequantised as
// f32(f32(q - z) * s), summed in f32 and rounded once to C's type; the
// generic is marked for accel-cpu-dequant-kernels and keeps the CPU
// configuration's choice.

// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[W4:.*]] = affine_map<(d0, d1, d2) -> (d1, d2 floordiv 2)>
// CHECK-DAG: #[[G32:.*]] = affine_map<(d0, d1, d2) -> (d1, d2 floordiv 32)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[W8:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[G64:.*]] = affine_map<(d0, d1, d2) -> (d1, d2 floordiv 64)>

// CHECK-LABEL: func.func @int4
// CHECK: %[[X:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<2x3x64xbf16> into tensor<6x64xbf16>
// CHECK: %[[CC:.*]] = tensor.collapse_shape %arg4 {{\[\[}}0, 1], [2]] : tensor<2x3x8xbf16> into tensor<6x8xbf16>
// CHECK: %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<6x8xf32>)
// CHECK: %[[DOT:.*]] = linalg.generic {indexing_maps = [#[[A]], #[[W4]], #[[G32]], #[[G32]], #[[C]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[X]], %arg1, %arg2, %arg3 : tensor<6x64xbf16>, tensor<8x32xi8>, tensor<8x2xbf16>, tensor<8x2xbf16>) outs(%[[ZERO]] : tensor<6x8xf32>)
// CHECK-SAME: accel.dequant_matmul = {bits = 4 : i64, group = 32 : i64, unsigned = false, zero_points = true}
// CHECK-SAME: accel.lowering_config = #accel.lowering_config<kernel = "cpu-dequant-lut"
// CHECK: ^bb0(%[[IN:.*]]: bf16, %[[BYTE:.*]]: i8, %[[S:.*]]: bf16, %[[Z:.*]]: bf16, %[[ACC:.*]]: f32):
// CHECK: %[[HI:.*]] = arith.shrsi %[[BYTE]], %{{.*}} : i8
// CHECK: %[[SHL:.*]] = arith.shli %[[BYTE]], %{{.*}} : i8
// CHECK: %[[LO:.*]] = arith.shrsi %[[SHL]], %{{.*}} : i8
// CHECK: %[[K:.*]] = linalg.index 2 : index
// CHECK: %[[BIT:.*]] = arith.andi %[[K]], %{{.*}} : index
// CHECK: %[[ODD:.*]] = arith.cmpi ne, %[[BIT]], %{{.*}} : index
// CHECK: %[[Q:.*]] = arith.select %[[ODD]], %[[HI]], %[[LO]] : i8
// CHECK: %[[QF:.*]] = arith.sitofp %[[Q]] : i8 to f32
// CHECK: %[[SF:.*]] = arith.extf %[[S]] : bf16 to f32
// CHECK: %[[ZF:.*]] = arith.extf %[[Z]] : bf16 to f32
// CHECK: %[[D:.*]] = arith.subf %[[QF]], %[[ZF]] : f32
// CHECK: %[[WV:.*]] = arith.mulf %[[D]], %[[SF]] : f32
// CHECK: %[[XF:.*]] = arith.extf %[[IN]] : bf16 to f32
// CHECK: %[[P:.*]] = arith.mulf %[[XF]], %[[WV]] : f32
// CHECK: %[[SUM:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK: linalg.yield %[[SUM]] : f32
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[DOT]] : tensor<6x8xf32>) outs(%[[CC]] : tensor<6x8xbf16>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: tensor.expand_shape %[[R]] {{\[\[}}0, 1], [2]] output_shape [2, 3, 8] : tensor<6x8xbf16> into tensor<2x3x8xbf16>
func.func @int4(%x: tensor<2x3x64xbf16>, %w: tensor<8x32xi8>, %s: tensor<8x2xbf16>,
                %z: tensor<8x2xbf16>, %c: tensor<2x3x8xbf16>) -> tensor<2x3x8xbf16> {
  %0 = accel.dequant_matmul bits(4) group(32)
         ins(%x, %w : tensor<2x3x64xbf16>, tensor<8x32xi8>)
         scales(%s : tensor<8x2xbf16>) zero_points(%z : tensor<8x2xbf16>)
         outs(%c : tensor<2x3x8xbf16>)
         {accel.lowering_config = #accel.lowering_config<kernel = "cpu-dequant-lut", mma = [1, 8, 32]>}
         -> tensor<2x3x8xbf16>
  return %0 : tensor<2x3x8xbf16>
}

// Unsigned int8, no zero points, f32 C: C itself is zeroed and summed into.
// CHECK-LABEL: func.func @int8
// CHECK: %[[ZERO8:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%arg3 : tensor<4x8xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[W8]], #[[G64]], #[[C]]]
// CHECK-SAME: outs(%[[ZERO8]] : tensor<4x8xf32>)
// CHECK-SAME: accel.dequant_matmul = {bits = 8 : i64, group = 64 : i64, unsigned = true, zero_points = false}
// CHECK-NOT: linalg.index
// CHECK: %[[Q8:.*]] = arith.uitofp %{{.*}} : i8 to f32
// CHECK: arith.mulf %[[Q8]], %{{.*}} : f32
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @int8(%x: tensor<4x64xf32>, %w: tensor<8x64xi8>, %s: tensor<8x1xf32>,
                %c: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = accel.dequant_matmul bits(8) group(64) unsigned
         ins(%x, %w : tensor<4x64xf32>, tensor<8x64xi8>)
         scales(%s : tensor<8x1xf32>) outs(%c : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
