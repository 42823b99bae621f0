// A matmul's epilogue applied to its C blocks in the accumulator
// (convert-accel-to-systolic, SystolicElementwise.h), against the fp64
// oracle: a chain of elementwise generics as torch-mlir emits it (bias,
// then ReLU; accel-fuse-epilogues makes them one in-place generic) over
// several blocks of C, C also returned (stored, then the epilogue), a
// batched matmul's residual, a bf16 GEMM into bf16 with a per-row scale,
// an in-place generic with no matmul (its initial value read from DRAM),
// a cast and residual over a reshape of C (applied to C's blocks) and a
// bias per head over one (a kernel of its own). Four machines: the default (WS), a 4 KiB accumulator with OS
// (where the bias and the residual are seeded: C's initial value in the
// accumulator; dropping the seed from the first preload's accumulate fails
// both at err/gate > 1e5), 8x8 with 4 lanes, the epilogues as kernels
// of their own, and an 80-row accumulator under blocks of 16 rows whose C
// blocks leave 16 rows: the epilogues' slots in pieces of 8 rows.
//
// RUN: accel-run %s --target=systolic | FileCheck %s
// RUN: accel-run %s --target=systolic --dist=normal --systolic-pipeline-options="acc-kib=4 dataflow=os" | FileCheck %s
// RUN: accel-run %s --target=systolic --systolic-pipeline-options="rows=8 cols=8 vector-lanes=4" | FileCheck %s
// RUN: accel-run %s --target=systolic --systolic-pipeline-options="fuse-epilogues=false" | FileCheck %s
// RUN: accel-run %s --target=systolic --systolic-pipeline-options="acc-kib=5 tile-m=16 tile-n=32 tile-k=32" | FileCheck %s
// CHECK: accel-run: 9 of 9 functions passed
//
// With fusion, no C of these programs reaches DRAM unless it is returned
// (no scratch buffer) or the epilogue cannot be applied to C's blocks (a
// bias per head after a reshape of C); without it each C (and the bias
// sum before the ReLU) is a scratch buffer.
// RUN: accel-opt %s --accel-systolic-pipeline | FileCheck %s --check-prefix=FUSED
// RUN: accel-opt %s --accel-systolic-pipeline="fuse-epilogues=false" | FileCheck %s --check-prefix=SEPARATE
// FUSED-NOT: "tmp
// FUSED: systolic.program @per_head_bias {{.*}}"tmp0"
// SEPARATE: systolic.program @bias_then_relu {{.*}}"tmp1"
// SEPARATE: systolic.program @batched_residual {{.*}}"tmp0"
// SEPARATE: systolic.program @bf16_row_scale {{.*}}"tmp0"

#id2 = affine_map<(i, j) -> (i, j)>
#col2 = affine_map<(i, j) -> (j)>
#row2 = affine_map<(i, j) -> (i)>
#id3 = affine_map<(b, i, j) -> (b, i, j)>

func.func @bias_then_relu(%a: tensor<70x96xf32>, %b: tensor<96x50xf32>, %bias: tensor<50xf32>) -> tensor<70x50xf32> {
  %c = tensor.empty() : tensor<70x50xf32>
  %0 = accel.matmul ins(%a, %b : tensor<70x96xf32>, tensor<96x50xf32>) outs(%c : tensor<70x50xf32>) -> tensor<70x50xf32>
  %e = tensor.empty() : tensor<70x50xf32>
  %1 = linalg.generic {indexing_maps = [#id2, #col2, #id2], iterator_types = ["parallel", "parallel"]} ins(%0, %bias : tensor<70x50xf32>, tensor<50xf32>) outs(%e : tensor<70x50xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<70x50xf32>
  %e2 = tensor.empty() : tensor<70x50xf32>
  %2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%1 : tensor<70x50xf32>) outs(%e2 : tensor<70x50xf32>) {
  ^bb0(%x: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %cmp = arith.cmpf ugt, %x, %z : f32
    %r = arith.select %cmp, %x, %z : f32
    linalg.yield %r : f32
  } -> tensor<70x50xf32>
  return %2 : tensor<70x50xf32>
}

// C is also returned; the epilogue (x * sigmoid(x), into bf16) follows
// each strip's store.
func.func @also_returned(%a: tensor<33x40xf32>, %b: tensor<40x45xf32>) -> (tensor<33x45xf32>, tensor<33x45xbf16>) {
  %c = tensor.empty() : tensor<33x45xf32>
  %0 = accel.matmul ins(%a, %b : tensor<33x40xf32>, tensor<40x45xf32>) outs(%c : tensor<33x45xf32>) -> tensor<33x45xf32>
  %e = tensor.empty() : tensor<33x45xbf16>
  %1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<33x45xf32>) outs(%e : tensor<33x45xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %one = arith.constant 1.0 : f32
    %n = arith.negf %x : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %s = arith.divf %x, %d : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<33x45xbf16>
  return %0, %1 : tensor<33x45xf32>, tensor<33x45xbf16>
}

// A batched matmul plus a bf16 residual.
func.func @batched_residual(%a: tensor<3x17x24xf32>, %b: tensor<3x24x20xf32>, %res: tensor<3x17x20xbf16>) -> tensor<3x17x20xf32> {
  %c = tensor.empty() : tensor<3x17x20xf32>
  %0 = accel.matmul ins(%a, %b : tensor<3x17x24xf32>, tensor<3x24x20xf32>) outs(%c : tensor<3x17x20xf32>) -> tensor<3x17x20xf32>
  %e = tensor.empty() : tensor<3x17x20xf32>
  %1 = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%0, %res : tensor<3x17x20xf32>, tensor<3x17x20xbf16>) outs(%e : tensor<3x17x20xf32>) {
  ^bb0(%x: f32, %r: bf16, %o: f32):
    %rf = arith.extf %r : bf16 to f32
    %y = arith.addf %x, %rf : f32
    linalg.yield %y : f32
  } -> tensor<3x17x20xf32>
  return %1 : tensor<3x17x20xf32>
}

// bf16 inputs, f32 C, a per-row scale, the result rounded to bf16.
func.func @bf16_row_scale(%a: tensor<40x64xbf16>, %b: tensor<64x36xbf16>, %s: tensor<40xf32>) -> tensor<40x36xbf16> {
  %c = tensor.empty() : tensor<40x36xf32>
  %0 = accel.matmul ins(%a, %b : tensor<40x64xbf16>, tensor<64x36xbf16>) outs(%c : tensor<40x36xf32>) -> tensor<40x36xf32>
  %e = tensor.empty() : tensor<40x36xbf16>
  %1 = linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]} ins(%0, %s : tensor<40x36xf32>, tensor<40xf32>) outs(%e : tensor<40x36xbf16>) {
  ^bb0(%x: f32, %v: f32, %o: bf16):
    %m = arith.mulf %x, %v : f32
    %t = arith.truncf %m : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<40x36xbf16>
  return %1 : tensor<40x36xbf16>
}

// A bias, then SiLU (a second slot besides C's: seeded, the bias is C's
// initial value and SiLU works on C's rows and one more slot).
func.func @bias_silu(%a: tensor<48x40xf32>, %b: tensor<40x72xf32>, %bias: tensor<72xf32>) -> tensor<48x72xf32> {
  %c = tensor.empty() : tensor<48x72xf32>
  %0 = accel.matmul ins(%a, %b : tensor<48x40xf32>, tensor<40x72xf32>) outs(%c : tensor<48x72xf32>) -> tensor<48x72xf32>
  %e = tensor.empty() : tensor<48x72xf32>
  %1 = linalg.generic {indexing_maps = [#id2, #col2, #id2], iterator_types = ["parallel", "parallel"]} ins(%0, %bias : tensor<48x72xf32>, tensor<72xf32>) outs(%e : tensor<48x72xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %one = arith.constant 1.0 : f32
    %n = arith.negf %s : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %r = arith.divf %s, %d : f32
    linalg.yield %r : f32
  } -> tensor<48x72xf32>
  return %1 : tensor<48x72xf32>
}

// C returned beside its bias + ReLU: never seeded (C would be stored as
// C + bias; the last machine seeds the bias of @bias_then_relu).
func.func @bias_relu_c_returned(%a: tensor<40x24xf32>, %b: tensor<24x48xf32>, %bias: tensor<48xf32>) -> (tensor<40x48xf32>, tensor<40x48xf32>) {
  %c = tensor.empty() : tensor<40x48xf32>
  %0 = accel.matmul ins(%a, %b : tensor<40x24xf32>, tensor<24x48xf32>) outs(%c : tensor<40x48xf32>) -> tensor<40x48xf32>
  %e = tensor.empty() : tensor<40x48xf32>
  %1 = linalg.generic {indexing_maps = [#id2, #col2, #id2], iterator_types = ["parallel", "parallel"]} ins(%0, %bias : tensor<40x48xf32>, tensor<48xf32>) outs(%e : tensor<40x48xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %s, %z : f32
    linalg.yield %r : f32
  } -> tensor<40x48xf32>
  return %0, %1 : tensor<40x48xf32>, tensor<40x48xf32>
}

// No matmul: the body reads its output's initial value, an argument.
func.func @init_read(%x: tensor<9x30xf32>, %acc: tensor<9x30xf32>) -> tensor<9x30xf32> {
  %1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<9x30xf32>) outs(%acc : tensor<9x30xf32>) {
  ^bb0(%v: f32, %o: f32):
    %two = arith.constant 2.0 : f32
    %m = arith.mulf %o, %two : f32
    %s = arith.subf %v, %m : f32
    linalg.yield %s : f32
  } -> tensor<9x30xf32>
  return %1 : tensor<9x30xf32>
}

// An epilogue over a reshape of C (the head split above the cast after a
// projection, as reshape propagation leaves it): applied to C's blocks;
// the reshape is also returned, so C is stored as well. And a bias per
// head, which stays a kernel of its own.
#last3 = affine_map<(s, h, d) -> (d)>
func.func @cast_through_expand(%a: tensor<37x48xf32>, %b: tensor<48x40xf32>, %res: tensor<37x5x8xf32>) -> (tensor<37x5x8xbf16>, tensor<37x5x8xf32>) {
  %c = tensor.empty() : tensor<37x40xf32>
  %0 = accel.matmul ins(%a, %b : tensor<37x48xf32>, tensor<48x40xf32>) outs(%c : tensor<37x40xf32>) -> tensor<37x40xf32>
  %x = tensor.expand_shape %0 [[0], [1, 2]] output_shape [37, 5, 8] : tensor<37x40xf32> into tensor<37x5x8xf32>
  %e = tensor.empty() : tensor<37x5x8xbf16>
  %1 = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %res : tensor<37x5x8xf32>, tensor<37x5x8xf32>) outs(%e : tensor<37x5x8xbf16>) {
  ^bb0(%v: f32, %r: f32, %o: bf16):
    %s = arith.addf %v, %r : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<37x5x8xbf16>
  return %1, %x : tensor<37x5x8xbf16>, tensor<37x5x8xf32>
}

func.func @per_head_bias(%a: tensor<20x32xf32>, %b: tensor<32x40xf32>, %bias: tensor<8xf32>) -> tensor<20x5x8xf32> {
  %c = tensor.empty() : tensor<20x40xf32>
  %0 = accel.matmul ins(%a, %b : tensor<20x32xf32>, tensor<32x40xf32>) outs(%c : tensor<20x40xf32>) -> tensor<20x40xf32>
  %x = tensor.expand_shape %0 [[0], [1, 2]] output_shape [20, 5, 8] : tensor<20x40xf32> into tensor<20x5x8xf32>
  %e = tensor.empty() : tensor<20x5x8xf32>
  %1 = linalg.generic {indexing_maps = [#id3, #last3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %bias : tensor<20x5x8xf32>, tensor<8xf32>) outs(%e : tensor<20x5x8xf32>) {
  ^bb0(%v: f32, %bb: f32, %o: f32):
    %s = arith.addf %v, %bb : f32
    linalg.yield %s : f32
  } -> tensor<20x5x8xf32>
  return %1 : tensor<20x5x8xf32>
}
