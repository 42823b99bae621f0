// RUN: accel-opt %s --accel-roofline -verify-diagnostics -o /dev/null

// Without target=, the module's accel.target is used (here the systolic
// array's 0.512 TOPS of int8 and 16 GB/s).
module attributes {accel.target = #accel.target<name = "array", kind = systolic, chip = "gemmini", peak_i8 = 0.512, memory_gbps = 16.0, matrix_unit = [16, 16, 1]>} {
  func.func @mm(%a: tensor<256x256xi8>, %b: tensor<256x256xi8>, %c: tensor<256x256xi32>) -> tensor<256x256xi32> {
    // The target gives no SRAM sizes: only the array pass is known.
    // expected-note @+2 {{tiles on array: sram 256x256x256 (the target gives no scratchpad size: not tiled); array 16x16x16 (one pass of the 16x16 array}}
    // expected-remark @+1 {{roofline on array: 33.55 MFLOP, 393.22 KB, 85.3 FLOP/B, compute-bound (ridge 32.0 FLOP/B), predicted 65.54 us at 512.00 GFLOP/s}}
    %0 = accel.matmul ins(%a, %b : tensor<256x256xi8>, tensor<256x256xi8>) outs(%c : tensor<256x256xi32>) -> tensor<256x256xi32>
    return %0 : tensor<256x256xi32>
  }
}
