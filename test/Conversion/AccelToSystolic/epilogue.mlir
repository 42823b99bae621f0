// RUN: accel-opt %s --convert-accel-to-systolic="dataflow=ws tile-m=16 tile-n=32 tile-k=32" | FileCheck %s
// RUN: accel-opt %s --convert-accel-to-systolic="dataflow=ws tile-m=16 tile-n=32 tile-k=32 fuse-epilogues=false" | FileCheck %s --check-prefix=SEPARATE
// RUN: accel-opt %s --convert-accel-to-systolic="dataflow=is" | FileCheck %s --check-prefix=IS
// RUN: accel-opt %s --convert-accel-to-systolic="dataflow=ws tile-m=16 tile-n=32 tile-k=32 acc-kib=5" | FileCheck %s --check-prefix=PIECES
// A matmul's epilogue applied to its C blocks in the accumulator
// (SystolicElementwise.h, matchSystolicEpilogue): after a strip's last
// compute, the epilogue's other inputs are moved in next to it, its
// vector program runs on the strip's rows, and mvout stores the result; C
// itself reaches DRAM only when something else reads it. With
// fuse-epilogues=false, and with IS (whose C blocks are transposed), the
// epilogue is a kernel of its own that moves C in again.

#id2 = affine_map<(i, j) -> (i, j)>
#col2 = affine_map<(i, j) -> (j)>

// accel-fuse-epilogues's in-place form: the body reads C through its
// output. Blocks of 16 rows x 32 columns (two strips of 16 columns) in
// accumulator rows 0-31 and 32-63; the bias's slot is 16 rows from 64 on,
// two sets alternating between strips; the sum takes the bias's slot.
// CHECK-LABEL: systolic.program @bias_relu
// CHECK-NOT: tmp
// CHECK: systolic.compute
// CHECK-NOT: systolic.mvout
// CHECK: systolic.mvin 2[0] stride 0 -> acc[64] rows 1 cols 16
// CHECK-NEXT: systolic.vector copy 65, 64 rows 1 cols 16
// CHECK-NEXT: systolic.vector copy 66, 64 rows 2 cols 16
// CHECK-NEXT: systolic.vector copy 68, 64 rows 4 cols 16
// CHECK-NEXT: systolic.vector copy 72, 64 rows 8 cols 16
// CHECK-NEXT: systolic.vector add 64, 0, 64 rows 16 cols 16
// CHECK-NEXT: systolic.vector max 64, 64 rows 16 cols 16 bcast scalar imm 0.000000e+00
// CHECK-NEXT: systolic.mvout acc[64] rows 16 cols 16 -> 3[0] stride 40
// The second strip: its columns 16-31, the other set of slots.
// CHECK-NEXT: systolic.mvin 2[16] stride 0 -> acc[80] rows 1 cols 16
// CHECK-COUNT-4: systolic.vector copy
// CHECK-NEXT: systolic.vector add 80, 16, 80 rows 16 cols 16
// CHECK-NEXT: systolic.vector max 80, 80 rows 16 cols 16
// CHECK-NEXT: systolic.mvout acc[80] rows 16 cols 16 -> 3[16] stride 40
// The next block of B's columns (32-39) in C's other half, the first set.
// CHECK-NEXT: systolic.mvin 1[32] stride 40 -> spad[128] rows 32 cols 8
// CHECK: systolic.vector add 64, 32, 64 rows 16 cols 8
// The last block: rows 16-19, columns 32-39.
// CHECK: systolic.vector add 80, 32, 80 rows 4 cols 8
// CHECK-NEXT: systolic.vector max 80, 80 rows 4 cols 8
// CHECK-NEXT: systolic.mvout acc[80] rows 4 cols 8 -> 3[672] stride 40
// CHECK-NEXT: systolic.fence
// CHECK-NEXT: }

// SEPARATE-LABEL: systolic.program @bias_relu
// SEPARATE-SAME: tmp0
// SEPARATE: systolic.mvout acc[0] rows 16 cols 16 -> 4[0] stride 40
// SEPARATE: systolic.mvin 4[0] stride 40 -> acc
// SEPARATE: systolic.vector max
// SEPARATE: systolic.mvout {{.*}} -> 3[0] stride 40

// An 80-row accumulator: C's blocks take 64 rows. The bias + ReLU is
// seeded there (its bias slot would not fit at full height): the bias
// moved into C's rows before the first compute. SwiGLU's two other slots
// (the gate's C from DRAM and a temporary) in two sets of 4 rows: each
// 16-row strip in four pieces.
// PIECES-LABEL: systolic.program @bias_relu
// PIECES-NEXT: systolic.config ws
// PIECES-NEXT: systolic.mvin 2[0] stride 0 -> acc[0] rows 1 cols 16
// PIECES: systolic.compute
// PIECES-NOT: systolic.vector add
// PIECES: systolic.vector max 0, 0 rows 16 cols 16
// PIECES-LABEL: systolic.program @swiglu
// PIECES: systolic.mvin 4[0] stride 40 -> acc[64] rows 4 cols 16
// PIECES-NEXT: systolic.vector mul 68, 64 rows 4 cols 16 bcast scalar imm -1.000000e+00
// PIECES: systolic.vector mul 0, 68, 0 rows 4 cols 16
// PIECES-NEXT: systolic.mvout acc[0] rows 4 cols 16 -> 3[0] stride 40
// PIECES-NEXT: systolic.mvin 4[160] stride 40 -> acc[72] rows 4 cols 16
// PIECES: systolic.vector mul 4, 76, 4 rows 4 cols 16
// PIECES-NEXT: systolic.mvout acc[4] rows 4 cols 16 -> 3[160] stride 40

// IS-LABEL: systolic.program @bias_relu
// IS-SAME: tmp0
// IS: systolic.mvin 4[0] stride 40 -> acc
func.func @bias_relu(%a: tensor<20x32xf32>, %b: tensor<32x40xf32>, %bias: tensor<40xf32>) -> tensor<20x40xf32> {
  %c = tensor.empty() : tensor<20x40xf32>
  %0 = accel.matmul ins(%a, %b : tensor<20x32xf32>, tensor<32x40xf32>) outs(%c : tensor<20x40xf32>) -> tensor<20x40xf32>
  %1 = linalg.generic {indexing_maps = [#col2, #id2], iterator_types = ["parallel", "parallel"]} ins(%bias : tensor<40xf32>) outs(%0 : tensor<20x40xf32>) {
  ^bb0(%y: f32, %x: f32):
    %s = arith.addf %x, %y : f32
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %s, %z : f32
    linalg.yield %r : f32
  } -> tensor<20x40xf32>
  return %1 : tensor<20x40xf32>
}

// C is also returned: each strip stored as C, then the epilogue (a
// scale by 2 into bf16; the result takes C's own slot).
// CHECK-LABEL: systolic.program @also_returned
// CHECK-NOT: tmp
// CHECK: systolic.mvout acc[0] rows 16 cols 16 -> 2[0] stride 40
// CHECK-NEXT: systolic.vector mul 0, 0 rows 16 cols 16 bcast scalar imm 2.000000e+00
// CHECK-NEXT: systolic.mvout acc[0] rows 16 cols 16 -> 3[0] stride 40
func.func @also_returned(%a: tensor<20x32xf32>, %b: tensor<32x40xf32>) -> (tensor<20x40xf32>, tensor<20x40xbf16>) {
  %c = tensor.empty() : tensor<20x40xf32>
  %0 = accel.matmul ins(%a, %b : tensor<20x32xf32>, tensor<32x40xf32>) outs(%c : tensor<20x40xf32>) -> tensor<20x40xf32>
  %e = tensor.empty() : tensor<20x40xbf16>
  %1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<20x40xf32>) outs(%e : tensor<20x40xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %two = arith.constant 2.0 : f32
    %m = arith.mulf %x, %two : f32
    %t = arith.truncf %m : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<20x40xbf16>
  return %0, %1 : tensor<20x40xf32>, tensor<20x40xbf16>
}

// SwiGLU: silu(gate) * up reads two matmuls; it is applied to the second
// one's blocks, the first's C (tmp0) moved in from DRAM next to it.
// CHECK-LABEL: systolic.program @swiglu
// CHECK-SAME: tmp0
// CHECK-NOT: tmp1
// CHECK: systolic.mvout acc[0] rows 16 cols 16 -> 4[0] stride 40
// CHECK: systolic.mvin 4[0] stride 40 -> acc[64] rows 16 cols 16
// CHECK: systolic.vector exp
// CHECK: systolic.mvout {{.*}} -> 3[0] stride 40
func.func @swiglu(%x: tensor<20x32xf32>, %wg: tensor<32x40xf32>, %wu: tensor<32x40xf32>) -> tensor<20x40xf32> {
  %c = tensor.empty() : tensor<20x40xf32>
  %g = accel.matmul ins(%x, %wg : tensor<20x32xf32>, tensor<32x40xf32>) outs(%c : tensor<20x40xf32>) -> tensor<20x40xf32>
  %u = accel.matmul ins(%x, %wu : tensor<20x32xf32>, tensor<32x40xf32>) outs(%c : tensor<20x40xf32>) -> tensor<20x40xf32>
  %e = tensor.empty() : tensor<20x40xf32>
  %1 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%g, %u : tensor<20x40xf32>, tensor<20x40xf32>) outs(%e : tensor<20x40xf32>) {
  ^bb0(%gv: f32, %uv: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %n = arith.negf %gv : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %s = arith.divf %gv, %d : f32
    %p = arith.mulf %s, %uv : f32
    linalg.yield %p : f32
  } -> tensor<20x40xf32>
  return %1 : tensor<20x40xf32>
}

// An epilogue over a reshape of C (reshape propagation moves a frontend's
// head split above the cast after a projection): a pointwise kernel whose
// inputs and output are contiguous pairs C's elements with its own in the
// same order, so it runs on C's blocks, the residual read as a 20x40
// matrix; no C in DRAM.
// CHECK-LABEL: systolic.program @through_expand
// CHECK-NOT: tmp
// CHECK: systolic.mvin 2[0] stride 40 -> acc[64] rows 16 cols 16
// CHECK-NEXT: systolic.vector add 64, 0, 64 rows 16 cols 16
// CHECK-NEXT: systolic.mvout acc[64] rows 16 cols 16 -> 3[0] stride 40
#id3 = affine_map<(s, h, d) -> (s, h, d)>
#last3 = affine_map<(s, h, d) -> (d)>
func.func @through_expand(%a: tensor<20x32xf32>, %b: tensor<32x40xf32>, %res: tensor<20x5x8xf32>) -> tensor<20x5x8xbf16> {
  %c = tensor.empty() : tensor<20x40xf32>
  %0 = accel.matmul ins(%a, %b : tensor<20x32xf32>, tensor<32x40xf32>) outs(%c : tensor<20x40xf32>) -> tensor<20x40xf32>
  %x = tensor.expand_shape %0 [[0], [1, 2]] output_shape [20, 5, 8] : tensor<20x40xf32> into tensor<20x5x8xf32>
  %e = tensor.empty() : tensor<20x5x8xbf16>
  %1 = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %res : tensor<20x5x8xf32>, tensor<20x5x8xf32>) outs(%e : tensor<20x5x8xbf16>) {
  ^bb0(%v: f32, %r: f32, %o: bf16):
    %s = arith.addf %v, %r : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<20x5x8xbf16>
  return %1 : tensor<20x5x8xbf16>
}

// A bias per head (broadcast along the split dimension) does not pair up
// with C's columns: the kernel stays one of its own, C in DRAM (tmp0).
// CHECK-LABEL: systolic.program @per_head_bias
// CHECK-SAME: "tmp0"
// CHECK: systolic.mvout acc[0] rows 16 cols 16 -> 4[0] stride 40
// CHECK: systolic.mvin 4[0] stride 8 -> acc[0] rows 5 cols 8
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
