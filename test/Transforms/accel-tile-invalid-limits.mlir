// RUN: accel-opt %s -split-input-file -verify-diagnostics --accel-tile="matmul-outer=2048,512,16 matmul-inner=256,512,0 softmax-outer=64"

// GPU limits besides shared memory, for given tiles. A warp's accumulators
// live in its registers: 256x512 f32 over 32 threads is 4096 registers per
// thread, and a thread has 255 (the block is over shared memory too).
module attributes {accel.target = #accel.target<name = "a100", kind = nvptx, chip = "sm_80", peak_f32 = 19.5, features = ["cp.async"], local_memory_kib = 164, matrix_unit = [16, 8, 16], warp_size = 32>} {
  func.func @registers(%a: tensor<4096x4096xf32>, %b: tensor<4096x4096xf32>, %c: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
    // expected-error @+1 {{accel-tile: matmul warp tile 256x512 (f32 accumulators) needs 4096 accumulator registers per thread; a thread has at most 255; matmul block tile 2048x512x16 (f32, 3 stages) needs 491520 B of shared memory; a100 has 166912 B per block}}
    %0 = accel.matmul ins(%a, %b : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%c : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
    return %0 : tensor<4096x4096xf32>
  }

  // A warp per softmax row: 64 rows are 2048 threads, a block has at most
  // 1024.
  func.func @threads(%x: tensor<4096x1024xf32>, %y: tensor<4096x1024xf32>) -> tensor<4096x1024xf32> {
    // expected-error @+1 {{accel-tile: softmax block tile 64 needs 2048 threads per block (limit 1024)}}
    %0 = accel.softmax dimension(1) ins(%x : tensor<4096x1024xf32>) outs(%y : tensor<4096x1024xf32>) -> tensor<4096x1024xf32>
    return %0 : tensor<4096x1024xf32>
  }
}

// -----

// tcgen05 accumulates in tensor memory (128 lanes x 512 columns x 4 B per
// SM): a 256x512 f32 tile is twice that.
module attributes {accel.target = #accel.target<name = "b200", kind = nvptx, chip = "sm_100a", peak_f32 = 75.0, features = ["tma", "tcgen05"], local_memory_kib = 228, matrix_unit = [128, 256, 16], warp_size = 32>} {
  func.func @tensor_memory(%a: tensor<4096x4096xf32>, %b: tensor<4096x4096xf32>, %c: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
    // expected-error @+1 {{accel-tile: matmul warpgroup tile 256x512 (f32 accumulators) needs 524288 B of tensor memory; an SM of b200 has 262144 B}}
    %0 = accel.matmul ins(%a, %b : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%c : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
    return %0 : tensor<4096x4096xf32>
  }
}
