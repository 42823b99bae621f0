// RUN: accel-opt %s --split-input-file --accel-systolic-configure | FileCheck %s --check-prefix=CONFIG
// RUN: accel-opt %s --split-input-file --convert-accel-to-systolic | FileCheck %s
// C's blocks in one accumulator buffer (`stages = 1`).

// A skinny GEMM (128 rows, as a prefill chunk's projection): the
// configuration stage picks one buffer of [128, 128] blocks (all 1024
// accumulator rows of the default machine): each weight is read once, where
// two buffers of [64, 128] read every weight twice.
// CONFIG-LABEL: func @skinny
// CONFIG: tile = [128, 128, {{[0-9]+}}], stages = 1, dataflow = "ws"
// A square one keeps two buffers (no stages in its config).
// CONFIG-LABEL: func @square
// CONFIG: #accel.lowering_config<kernel = "systolic", tile = [{{[0-9]+}}, {{[0-9]+}}, {{[0-9]+}}], dataflow = "{{[a-z]+}}">
func.func @skinny(%a: tensor<128x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<128x1024xf32> {
  %c = tensor.empty() : tensor<128x1024xf32>
  %0 = accel.matmul ins(%a, %b : tensor<128x1024xf32>, tensor<1024x1024xf32>) outs(%c : tensor<128x1024xf32>) -> tensor<128x1024xf32>
  return %0 : tensor<128x1024xf32>
}
func.func @square(%a: tensor<256x256xbf16>, %b: tensor<256x256xbf16>) -> tensor<256x256xf32> {
  %c = tensor.empty() : tensor<256x256xf32>
  %0 = accel.matmul ins(%a, %b : tensor<256x256xbf16>, tensor<256x256xbf16>) outs(%c : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}

// -----

// SiLU into bf16 needs a second slot beside C: on a 512^3 f32 GEMM the
// blocks that leave it room in one buffer are 112 columns wide (7 strips of
// 128 rows), not a power of two; the epilogue stays fused (simulated
// 593,683 cycles, against 669,251 as a kernel of its own): C never reaches
// DRAM.
// CONFIG-LABEL: func @silu_wide
// CONFIG: tile = [128, 112, {{[0-9]+}}], stages = 1, dataflow = "ws"
// CHECK-LABEL: systolic.program @silu_wide
// CHECK-SAME: buffers [#systolic.buffer<"arg0", arg 0, tensor<512x512xf32>>, #systolic.buffer<"arg1", arg 1, tensor<512x512xf32>>, #systolic.buffer<"result0", result 0, tensor<512x512xbf16>>]
// CHECK: systolic.vector exp
// CHECK: systolic.mvout acc[{{[0-9]+}}] rows {{[0-9]+}} cols 16 -> 2[{{[0-9]+}}] stride 512
#id = affine_map<(i, j) -> (i, j)>
func.func @silu_wide(%a: tensor<512x512xf32>, %b: tensor<512x512xf32>) -> tensor<512x512xbf16> {
  %c = tensor.empty() : tensor<512x512xf32>
  %0 = accel.matmul ins(%a, %b : tensor<512x512xf32>, tensor<512x512xf32>) outs(%c : tensor<512x512xf32>) -> tensor<512x512xf32>
  %e = tensor.empty() : tensor<512x512xbf16>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<512x512xf32>) outs(%e : tensor<512x512xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %n = arith.negf %x : f32
    %ex = math.exp %n : f32
    %one = arith.constant 1.0 : f32
    %d = arith.addf %ex, %one : f32
    %s = arith.divf %x, %d : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<512x512xbf16>
  return %1 : tensor<512x512xbf16>
}

// -----

// Both blocks of C use accumulator rows 0-63; the second block's first
// preload comes after the first block's stores.
// CONFIG-LABEL: func @two_blocks
// CHECK-LABEL: systolic.program @two_blocks
// CHECK: systolic.preload weights spad[{{[0-9]+}}] to acc[0] m 32 k 16 n 16
// CHECK: systolic.preload weights spad[{{[0-9]+}}] to acc[32] m 32 k 16 n 16
// CHECK: systolic.mvout acc[0] rows 32 cols 16 -> 2[0] stride 64
// CHECK-NEXT: systolic.mvout acc[32] rows 32 cols 16 -> 2[16] stride 64
// CHECK-NOT: acc[64]
// CHECK: systolic.preload weights spad[{{[0-9]+}}] to acc[0] m 32 k 16 n 16
// CHECK: systolic.preload weights spad[{{[0-9]+}}] to acc[32] m 32 k 16 n 16
// CHECK: systolic.mvout acc[0] rows 32 cols 16 -> 2[32] stride 64
// CHECK-NEXT: systolic.mvout acc[32] rows 32 cols 16 -> 2[48] stride 64
func.func @two_blocks(%a: tensor<32x32xf32>, %b: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %c = tensor.empty() : tensor<32x64xf32>
  %0 = accel.matmul ins(%a, %b : tensor<32x32xf32>, tensor<32x64xf32>) outs(%c : tensor<32x64xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "systolic", tile = [32, 32, 32], stages = 1, dataflow = "ws">} -> tensor<32x64xf32>
  return %0 : tensor<32x64xf32>
}
