// C's blocks in one accumulator buffer (`stages = 1` in the
// lowering_config; the configuration stage picks it where it is clearly
// faster): each block twice the rows of the double-buffered form, its
// first computes waiting for the previous block's stores. Against the
// fp64 oracle with last blocks of every dimension, in WS, OS and IS, with
// an accumulating matmul (C's initial value moved into the rows the
// previous block's stores read), with a bias + ReLU fused (the bias in
// rows past the one C block) and seeded (C's [128, 128] block fills the
// accumulator: the bias is moved into C's rows right before the block's
// computes, after the previous block's stores), and the configuration
// stage's own choice for a skinny GEMM (128 rows: one buffer of
// [128, 128] blocks).
//
// RUN: accel-run %s --target=systolic | FileCheck %s
// RUN: accel-run %s --target=systolic --dist=normal --systolic-pipeline-options="rows=8 cols=8 vector-lanes=4" | FileCheck %s
// CHECK: accel-run: 8 of 8 functions passed

func.func @ws(%a: tensor<100x200xf32>, %b: tensor<200x72xf32>) -> tensor<100x72xf32> {
  %c = tensor.empty() : tensor<100x72xf32>
  %0 = accel.matmul ins(%a, %b : tensor<100x200xf32>, tensor<200x72xf32>) outs(%c : tensor<100x72xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "systolic", tile = [32, 32, 64], stages = 1, dataflow = "ws">} -> tensor<100x72xf32>
  return %0 : tensor<100x72xf32>
}

func.func @os(%a: tensor<100x200xbf16>, %b: tensor<200x72xbf16>) -> tensor<100x72xf32> {
  %c = tensor.empty() : tensor<100x72xf32>
  %0 = accel.matmul ins(%a, %b : tensor<100x200xbf16>, tensor<200x72xbf16>) outs(%c : tensor<100x72xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "systolic", tile = [32, 32, 64], stages = 1, dataflow = "os">} -> tensor<100x72xf32>
  return %0 : tensor<100x72xf32>
}

func.func @is(%a: tensor<100x200xf32>, %b: tensor<200x72xf32>) -> tensor<100x72xf32> {
  %c = tensor.empty() : tensor<100x72xf32>
  %0 = accel.matmul ins(%a, %b : tensor<100x200xf32>, tensor<200x72xf32>) outs(%c : tensor<100x72xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "systolic", tile = [32, 32, 64], stages = 1, dataflow = "is">} -> tensor<100x72xf32>
  return %0 : tensor<100x72xf32>
}

func.func @accumulate(%a: tensor<72x96xf32>, %b: tensor<96x40xf32>, %c0: tensor<72x40xf32>) -> tensor<72x40xf32> {
  %0 = accel.matmul accumulate ins(%a, %b : tensor<72x96xf32>, tensor<96x40xf32>) outs(%c0 : tensor<72x40xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "systolic", tile = [32, 16, 32], stages = 1, dataflow = "ws">} -> tensor<72x40xf32>
  return %0 : tensor<72x40xf32>
}

#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
func.func @epilogue(%a: tensor<48x64xf32>, %b: tensor<64x40xf32>, %bias: tensor<40xf32>) -> tensor<48x40xf32> {
  %c = tensor.empty() : tensor<48x40xf32>
  %0 = accel.matmul ins(%a, %b : tensor<48x64xf32>, tensor<64x40xf32>) outs(%c : tensor<48x40xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "systolic", tile = [16, 16, 32], stages = 1, dataflow = "ws">} -> tensor<48x40xf32>
  %1 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%0, %bias : tensor<48x40xf32>, tensor<40xf32>) outs(%c : tensor<48x40xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %s, %z : f32
    linalg.yield %r : f32
  } -> tensor<48x40xf32>
  return %1 : tensor<48x40xf32>
}

func.func @skinny(%a: tensor<128x512xf32>, %b: tensor<512x512xf32>) -> tensor<128x512xf32> {
  %c = tensor.empty() : tensor<128x512xf32>
  %0 = accel.matmul ins(%a, %b : tensor<128x512xf32>, tensor<512x512xf32>) outs(%c : tensor<128x512xf32>) -> tensor<128x512xf32>
  return %0 : tensor<128x512xf32>
}

func.func @seeded(%a: tensor<200x64xf32>, %b: tensor<64x256xf32>, %bias: tensor<256xf32>) -> tensor<200x256xf32> {
  %c = tensor.empty() : tensor<200x256xf32>
  %0 = accel.matmul ins(%a, %b : tensor<200x64xf32>, tensor<64x256xf32>) outs(%c : tensor<200x256xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "systolic", tile = [128, 128, 64], stages = 1, dataflow = "ws">} -> tensor<200x256xf32>
  %1 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%0, %bias : tensor<200x256xf32>, tensor<256xf32>) outs(%c : tensor<200x256xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %s, %z : f32
    linalg.yield %r : f32
  } -> tensor<200x256xf32>
  return %1 : tensor<200x256xf32>
}

// SiLU into bf16 fused on blocks 48 wide (not a power of two) in one
// buffer of C, with a last block of 4 columns and 36 rows (the widths the
// schedule itself picks are test/Conversion/AccelToSystolic/single-c.mlir's).
func.func @silu_wide(%a: tensor<100x64xf32>, %b: tensor<64x100xf32>) -> tensor<100x100xbf16> {
  %c = tensor.empty() : tensor<100x100xf32>
  %0 = accel.matmul ins(%a, %b : tensor<100x64xf32>, tensor<64x100xf32>) outs(%c : tensor<100x100xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "systolic", tile = [64, 48, 32], stages = 1, dataflow = "ws">} -> tensor<100x100xf32>
  %e = tensor.empty() : tensor<100x100xbf16>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<100x100xf32>) outs(%e : tensor<100x100xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %one = arith.constant 1.0 : f32
    %n = arith.negf %x : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %s = arith.divf %x, %d : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<100x100xbf16>
  return %1 : tensor<100x100xbf16>
}
