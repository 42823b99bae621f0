// compute = tf32: accel-lower-precision rounds a matmul's A and B to TF32
// values held in f32 (an elementwise truncf to tf32 and extf back), keeps
// the matmul in f32 and marks it accel.tf32_inputs (the GPU configuration
// puts it on TF32 tensor cores); attention's Q, K and V are rounded the
// same way, with the same mark (the GPUs' TF32 / xf32 attention kernels,
// which round P to TF32 too). No target refuses it (every target multiplies
// TF32 values exactly in f32). accel-expand-f8-casts turns the round trip
// into integer arithmetic on the f32 bits (round to nearest even, NaN
// kept), with no tf32 value left.
// RUN: accel-opt %s --accel-lower-precision="compute=tf32" | FileCheck %s
// RUN: accel-opt %s --accel-lower-precision="compute=tf32 target=x86-64-avx2" | FileCheck %s
// RUN: accel-opt %s --accel-lower-precision="compute=tf32" --accel-expand-f8-casts | FileCheck %s --check-prefix=EXPAND
// Policies tf32 cannot take:
// RUN: not accel-opt %s --accel-lower-precision="compute=tf32 accumulate=bf16" 2>&1 | FileCheck %s --check-prefix=ACC
// RUN: not accel-opt %s --accel-lower-precision="compute=tf32 scales=dynamic" 2>&1 | FileCheck %s --check-prefix=SCALES

// CHECK-LABEL: func.func @matmul
// CHECK: %[[A:.+]] = linalg.generic {{.*}} ins(%arg0 : tensor<16x32xf32>)
// CHECK: arith.truncf %{{.+}} : f32 to tf32
// CHECK: arith.extf %{{.+}} : tf32 to f32
// CHECK: %[[B:.+]] = linalg.generic {{.*}} ins(%arg1 : tensor<32x8xf32>)
// CHECK: arith.truncf %{{.+}} : f32 to tf32
// CHECK: accel.matmul ins(%[[A]], %[[B]] : tensor<16x32xf32>, tensor<32x8xf32>) outs(%{{.+}} : tensor<16x8xf32>) {accel.precision = #accel.precision<compute = f32>, accel.tf32_inputs}
// CHECK-LABEL: func.func @attention
// CHECK-COUNT-3: arith.truncf %{{.+}} : f32 to tf32
// CHECK: accel.attention
// CHECK-SAME: {accel.precision = #accel.precision<compute = f32>, accel.tf32_inputs}

// EXPAND-LABEL: func.func @matmul
// EXPAND-NOT: tf32
// EXPAND: arith.bitcast %{{.+}} : f32 to i32
// EXPAND: arith.shrui
// EXPAND: arith.addi
// EXPAND: arith.andi %{{.+}}, %{{.+}} : i32
// EXPAND: arith.cmpi ugt
// EXPAND: arith.ori
// EXPAND: arith.select
// EXPAND-NOT: tf32
// EXPAND: accel.matmul {{.*}}accel.tf32_inputs

// ACC: accumulate = bf16 is not allowed with compute = tf32; expected f32
// SCALES: scales = dynamic needs compute = f8E4M3FN, f8E5M2 or i8, got tf32

func.func @matmul(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>, %c: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %r = accel.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x8xf32>) outs(%c : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}

func.func @attention(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %o: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %r = accel.attention ins(%q, %k, %v : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%o : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %r : tensor<1x2x8x16xf32>
}
