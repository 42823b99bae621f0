// bf16 and f32 matmuls on the systolic array (f32 accumulation; results
// stored as f32 or rounded to bf16 by mvout) against the fp64 oracle.
//
// RUN: accel-run %s --target=systolic | FileCheck %s
// RUN: accel-run %s --target=systolic --dist=normal --systolic-pipeline-options="dataflow=os tile-m=24 tile-n=16 tile-k=16" | FileCheck %s
// RUN: accel-run %s --target=systolic --systolic-pipeline-options="dataflow=is rows=8 cols=16" | FileCheck %s
// RUN: accel-run %s --target=systolic --systolic-pipeline-options="dataflow=ws tile-m=8 tile-n=16 tile-k=16" | FileCheck %s
// CHECK: accel-run: 4 of 4 functions passed

func.func @bf16(%a: tensor<37x45xbf16>, %b: tensor<45x29xbf16>) -> tensor<37x29xf32> {
  %c = tensor.empty() : tensor<37x29xf32>
  %0 = accel.matmul ins(%a, %b : tensor<37x45xbf16>, tensor<45x29xbf16>) outs(%c : tensor<37x29xf32>) -> tensor<37x29xf32>
  return %0 : tensor<37x29xf32>
}

func.func @bf16_out(%a: tensor<2x21x70xbf16>, %b: tensor<2x33x70xbf16>, %c: tensor<2x21x33xbf16>) -> tensor<2x21x33xbf16> {
  %0 = accel.matmul transpose_b accumulate ins(%a, %b : tensor<2x21x70xbf16>, tensor<2x33x70xbf16>) outs(%c : tensor<2x21x33xbf16>) -> tensor<2x21x33xbf16>
  return %0 : tensor<2x21x33xbf16>
}

func.func @f32(%a: tensor<50x40xf32>, %b: tensor<40x60xf32>) -> tensor<50x60xf32> {
  %c = tensor.empty() : tensor<50x60xf32>
  %0 = accel.matmul ins(%a, %b : tensor<50x40xf32>, tensor<40x60xf32>) outs(%c : tensor<50x60xf32>) -> tensor<50x60xf32>
  return %0 : tensor<50x60xf32>
}

func.func @f32_chain(%a: tensor<17x23xf32>, %b: tensor<23x31xf32>, %d: tensor<31x9xf32>) -> tensor<17x9xf32> {
  %c = tensor.empty() : tensor<17x31xf32>
  %0 = accel.matmul ins(%a, %b : tensor<17x23xf32>, tensor<23x31xf32>) outs(%c : tensor<17x31xf32>) -> tensor<17x31xf32>
  %e = tensor.empty() : tensor<17x9xf32>
  %1 = accel.matmul ins(%0, %d : tensor<17x31xf32>, tensor<31x9xf32>) outs(%e : tensor<17x9xf32>) -> tensor<17x9xf32>
  return %1 : tensor<17x9xf32>
}
