// Matmuls compiled for the systolic array and run on the simulator against
// the fp64 oracle: int8 bit-exact (with wrap-around at the extremes of
// --dist=exact's range), bf16/f32 within the contract. Shapes leave
// remainders in every dimension; every dataflow and small blocks (several K
// blocks, A reloaded) are exercised.
//
// RUN: accel-run %s --target=systolic --dist=exact | FileCheck %s
// RUN: accel-run %s --target=systolic --dist=exact --systolic-pipeline-options="dataflow=ws tile-m=16 tile-n=16 tile-k=16" | FileCheck %s
// RUN: accel-run %s --target=systolic --dist=exact --systolic-pipeline-options="dataflow=os" | FileCheck %s
// RUN: accel-run %s --target=systolic --dist=exact --systolic-pipeline-options="dataflow=os tile-m=24 tile-n=16 tile-k=16" | FileCheck %s
// RUN: accel-run %s --target=systolic --dist=exact --systolic-pipeline-options="dataflow=is" | FileCheck %s
// RUN: accel-run %s --target=systolic --dist=exact --systolic-pipeline-options="rows=8 cols=32 dataflow=is tile-m=20 tile-n=32 tile-k=8" | FileCheck %s
// RUN: accel-run %s --target=systolic --systolic-pipeline-options="rows=32 cols=8" | FileCheck %s
// CHECK: accel-run: 6 of 6 functions passed

func.func @i8(%a: tensor<40x70xi8>, %b: tensor<70x36xi8>) -> tensor<40x36xi32> {
  %c = tensor.empty() : tensor<40x36xi32>
  %0 = accel.matmul ins(%a, %b : tensor<40x70xi8>, tensor<70x36xi8>) outs(%c : tensor<40x36xi32>) -> tensor<40x36xi32>
  return %0 : tensor<40x36xi32>
}

func.func @i8_accumulate_batch_tb(%a: tensor<2x33x17xi8>, %b: tensor<2x19x17xi8>, %c: tensor<2x33x19xi32>) -> tensor<2x33x19xi32> {
  %0 = accel.matmul transpose_b accumulate ins(%a, %b : tensor<2x33x17xi8>, tensor<2x19x17xi8>) outs(%c : tensor<2x33x19xi32>) -> tensor<2x33x19xi32>
  return %0 : tensor<2x33x19xi32>
}

func.func @i8_extra_arg(%a: tensor<20x30xi8>, %b: tensor<30x50xi8>, %d: tensor<20x50xi32>) -> tensor<20x50xi32> {
  %c = tensor.empty() : tensor<20x50xi32>
  %0 = accel.matmul ins(%a, %b : tensor<20x30xi8>, tensor<30x50xi8>) outs(%c : tensor<20x50xi32>) -> tensor<20x50xi32>
  return %0 : tensor<20x50xi32>
}

func.func @single(%a: tensor<1x1xi8>, %b: tensor<1x1xi8>) -> tensor<1x1xi32> {
  %c = tensor.empty() : tensor<1x1xi32>
  %0 = accel.matmul ins(%a, %b : tensor<1x1xi8>, tensor<1x1xi8>) outs(%c : tensor<1x1xi32>) -> tensor<1x1xi32>
  return %0 : tensor<1x1xi32>
}

func.func @tall(%a: tensor<130x5xi8>, %b: tensor<5x3xi8>) -> tensor<130x3xi32> {
  %c = tensor.empty() : tensor<130x3xi32>
  %0 = accel.matmul ins(%a, %b : tensor<130x5xi8>, tensor<5x3xi8>) outs(%c : tensor<130x3xi32>) -> tensor<130x3xi32>
  return %0 : tensor<130x3xi32>
}

func.func @deep(%a: tensor<3x300xi8>, %b: tensor<300x2xi8>) -> tensor<3x2xi32> {
  %c = tensor.empty() : tensor<3x2xi32>
  %0 = accel.matmul ins(%a, %b : tensor<3x300xi8>, tensor<300x2xi8>) outs(%c : tensor<3x2xi32>) -> tensor<3x2xi32>
  return %0 : tensor<3x2xi32>
}
