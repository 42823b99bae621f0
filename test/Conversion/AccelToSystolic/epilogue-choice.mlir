// RUN: accel-opt %s --accel-systolic-configure | FileCheck %s --check-prefix=CONF64
// RUN: accel-opt %s --accel-systolic-configure | accel-opt --convert-accel-to-systolic | FileCheck %s --check-prefix=SEP
// RUN: accel-opt %s --accel-systolic-configure="acc-kib=80" | FileCheck %s --check-prefix=CONF80
// RUN: accel-opt %s --accel-systolic-configure="acc-kib=80" | accel-opt --convert-accel-to-systolic="acc-kib=80" | FileCheck %s --check-prefix=FUSED
// Whether an epilogue is applied to C's blocks is the configuration
// stage's choice (configureSystolicMatmul), made by the model: its other
// slots take accumulator rows, which may force smaller blocks. With a
// 64 KiB accumulator the matmul's best blocks (64 x 128, all 1024 rows)
// leave no room for the bias's slots; the fused program's best blocks
// (64 x 64) re-read A, and the model predicts the matmul plus the epilogue
// on its own faster (207,824 cycles against 264,040; simulated by accel-run
// --target=systolic: 211,386 against 269,567 with the fused program's
// blocks forced by tile-m=64 tile-n=64 tile-k=32). With
// 80 KiB the fused program keeps large blocks and wins. The conversion
// reads the configuration and makes the same choice.

// CONF64: tile = [64, 128, 16], dataflow = "ws"
// SEP: systolic.program @k_heavy {{.*}}"tmp0"
// CONF80: tile = [128, 64, 32], dataflow = "ws"
// FUSED: systolic.program @k_heavy
// FUSED-NOT: tmp0
// FUSED-SAME: attributes

#id2 = affine_map<(i, j) -> (i, j)>
#col2 = affine_map<(i, j) -> (j)>
func.func @k_heavy(%a: tensor<256x1024xf32>, %b: tensor<1024x128xf32>, %bias: tensor<128xf32>) -> tensor<256x128xf32> {
  %c = tensor.empty() : tensor<256x128xf32>
  %0 = accel.matmul ins(%a, %b : tensor<256x1024xf32>, tensor<1024x128xf32>) outs(%c : tensor<256x128xf32>) -> tensor<256x128xf32>
  %1 = linalg.generic {indexing_maps = [#col2, #id2], iterator_types = ["parallel", "parallel"]} ins(%bias : tensor<128xf32>) outs(%0 : tensor<256x128xf32>) {
  ^bb0(%y: f32, %x: f32):
    %s = arith.addf %x, %y : f32
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %s, %z : f32
    linalg.yield %r : f32
  } -> tensor<256x128xf32>
  return %1 : tensor<256x128xf32>
}
