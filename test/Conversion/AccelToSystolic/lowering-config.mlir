// convert-accel-to-systolic obeys an op's #accel.lowering_config: the
// dataflow written by hand (output-stationary here, where the model takes
// another) is the one the program configures, over the pass options.
//
// RUN: accel-opt %s --convert-accel-to-systolic="dataflow=ws" | FileCheck %s

// CHECK-LABEL: systolic.program @os
// CHECK: systolic.config os
// CHECK-NOT: systolic.config ws
// CHECK-LABEL: systolic.program @ws
func.func @os(%a: tensor<64x64xi8>, %b: tensor<64x64xi8>) -> tensor<64x64xi32> {
  %c = tensor.empty() : tensor<64x64xi32>
  %0 = accel.matmul ins(%a, %b : tensor<64x64xi8>, tensor<64x64xi8>) outs(%c : tensor<64x64xi32>)
         {accel.lowering_config = #accel.lowering_config<kernel = "systolic", tile = [32, 32, 32], dataflow = "os">} -> tensor<64x64xi32>
  return %0 : tensor<64x64xi32>
}

// Without a config, the option's dataflow.
// CHECK: systolic.config ws
func.func @ws(%a: tensor<64x64xi8>, %b: tensor<64x64xi8>) -> tensor<64x64xi32> {
  %c = tensor.empty() : tensor<64x64xi32>
  %0 = accel.matmul ins(%a, %b : tensor<64x64xi8>, tensor<64x64xi8>) outs(%c : tensor<64x64xi32>) -> tensor<64x64xi32>
  return %0 : tensor<64x64xi32>
}
