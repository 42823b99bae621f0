// The chip figures the GPU plan depends on come from one place: the target
// catalogue's entry for the chip, or the module's #accel.target when it
// describes the GPU. One figure changed, the plan changes: a 1024x1024 GEMM
// gives 8 x 4 = 32 blocks of 128 x 256, too few for the 132 SMs of an H100
// (128 x 128 tiles, 64 blocks), enough for a part with 16.
//
// RUN: accel-opt %s --split-input-file --accel-gpu-configure="chip=sm_90a" | FileCheck %s

// The catalogue's h100 (132 SMs).
// CHECK-LABEL: func.func @catalogue
// CHECK: #accel.lowering_config<kernel = "wgmma", tile = [128, 128, 64]
func.func @catalogue(%a: tensor<1024x1024xbf16>, %b: tensor<1024x1024xbf16>) -> tensor<1024x1024xf32> {
  %c = tensor.empty() : tensor<1024x1024xf32>
  %0 = accel.matmul ins(%a, %b : tensor<1024x1024xbf16>, tensor<1024x1024xbf16>) outs(%c : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}

// -----

// A Hopper part with 16 SMs.
// CHECK-LABEL: func.func @sixteen_sms
// CHECK: #accel.lowering_config<kernel = "wgmma", tile = [128, 256, 64]
module attributes {accel.target = #accel.target<name = "small-hopper", kind = nvptx, chip = "sm_90a", compute_units = 16, peak_bf16 = 100.0, local_memory_kib = 228, warp_size = 32>} {
  func.func @sixteen_sms(%a: tensor<1024x1024xbf16>, %b: tensor<1024x1024xbf16>) -> tensor<1024x1024xf32> {
    %c = tensor.empty() : tensor<1024x1024xf32>
    %0 = accel.matmul ins(%a, %b : tensor<1024x1024xbf16>, tensor<1024x1024xbf16>) outs(%c : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
    return %0 : tensor<1024x1024xf32>
  }
}

// -----

// Less shared memory: the wgmma ring drops from 4 stages to 3
// (3 x (128 + 128) x 128 B + 1 KiB = 97 KiB fits 99, 4 stages do not).
// CHECK-LABEL: func.func @less_shared_memory
// CHECK: #accel.lowering_config<kernel = "wgmma", tile = [128, 128, 64], warps = [8, 1], mma = [64, 128, 16], stages = 3>
module attributes {accel.target = #accel.target<name = "small-smem", kind = nvptx, chip = "sm_90a", compute_units = 132, peak_bf16 = 100.0, local_memory_kib = 100, warp_size = 32>} {
  func.func @less_shared_memory(%a: tensor<1024x1024xbf16>, %b: tensor<1024x1024xbf16>) -> tensor<1024x1024xf32> {
    %c = tensor.empty() : tensor<1024x1024xf32>
    %0 = accel.matmul ins(%a, %b : tensor<1024x1024xbf16>, tensor<1024x1024xbf16>) outs(%c : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
    return %0 : tensor<1024x1024xf32>
  }
}

