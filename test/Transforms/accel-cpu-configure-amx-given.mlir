// RUN: accel-opt %s --accel-cpu-configure="features=avx512f,avx512bf16,avx512vnni,amx-tile,amx-bf16,amx-int8" | FileCheck %s

// A config naming AVX-512's dot kernel on an AMX CPU is kept; one naming
// AMX's is completed (its own tiles kept).
// CHECK-LABEL: func @given
// CHECK: kernel = "cpu-avx512bf16", tile = [132, 0, 2048], mma = [6, 64, 2]
// CHECK: kernel = "cpu-amx-bf16", tile = [64, 0, 128], mma = [48, 16, 32]
func.func @given(%a: tensor<64x32xbf16>, %b: tensor<32x48xbf16>, %c: tensor<64x48xf32>) -> (tensor<64x48xf32>, tensor<64x48xf32>) {
  %0 = accel.matmul ins(%a, %b : tensor<64x32xbf16>, tensor<32x48xbf16>) outs(%c : tensor<64x48xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-avx512bf16">} -> tensor<64x48xf32>
  %1 = accel.matmul ins(%a, %b : tensor<64x32xbf16>, tensor<32x48xbf16>) outs(%c : tensor<64x48xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-amx-bf16", tile = [64, 0, 128], mma = [48, 16, 32]>} -> tensor<64x48xf32>
  return %0, %1 : tensor<64x48xf32>, tensor<64x48xf32>
}
