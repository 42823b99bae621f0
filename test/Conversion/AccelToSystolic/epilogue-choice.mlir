// RUN: accel-opt %s --accel-systolic-configure="c-buffers=2" | FileCheck %s --check-prefix=CONF
// RUN: accel-opt %s --accel-systolic-configure="c-buffers=2" | accel-opt --convert-accel-to-systolic | FileCheck %s
// RUN: accel-opt %s --accel-systolic-configure="acc-kib=80 c-buffers=2" | FileCheck %s --check-prefix=CONF80
// RUN: accel-opt %s --accel-systolic-configure | FileCheck %s --check-prefix=ONE
// How an epilogue runs is the configuration stage's choice
// (configureSystolicMatmul), made by the model, and the conversion makes
// the same one from the written configuration. The epilogue's slots take
// accumulator rows: with the default 64 KiB accumulator and two buffers of
// C (c-buffers=2) the matmul's best blocks (64 x 128 of a 256x1024x128
// f32 matmul, all 1024 rows) leave no room for them.
//
// - A bias + ReLU is seeded: the bias becomes C's initial value (one row
//   moved into each strip and doubled by copies, a block ahead; the first
//   preload accumulates onto it) and the ReLU alone runs on C's rows: no
//   slot of its own, blocks of 128 x 64 (simulated: 198,971 cycles; the
//   matmul alone 198,519; as a kernel of its own 209,466).
// - SiLU into bf16 needs a second slot: fused, its blocks would be 64 x 64
//   (A read twice), so it runs as a kernel of its own after the matmul
//   (C in a scratch buffer).
// - With 80 KiB the bias + ReLU keeps 128 x 64 blocks without seeding; the
//   seeded form is then not chosen (it adds the seed's latency to each
//   block, which the model does not see).
// - Free to keep one buffer of C, the model takes [128, 128] blocks in one
//   buffer (all 1024 rows; each weight read once): the bias + ReLU seeded
//   (the bias moved into C's rows right before each block's computes),
//   SiLU as a kernel of its own (simulated: 138,678 and 155,619 cycles,
//   against 198,971 and 216,739 with two buffers; the matmul alone
//   137,399).

// ONE: @bias_relu
// ONE: tile = [128, 128, {{[0-9]+}}], stages = 1, dataflow = "ws"
// ONE: @silu
// ONE: tile = [128, 128, {{[0-9]+}}], stages = 1, dataflow = "ws"

// CONF: @bias_relu
// CONF: tile = [128, 64, 32], dataflow = "ws"
// CONF: @silu
// CONF: tile = [64, 128, 16], dataflow = "ws"
// CONF80: @bias_relu
// CONF80: tile = [128, 64, 32], dataflow = "ws"

// CHECK-LABEL: systolic.program @bias_relu
// CHECK-NOT: tmp0
// CHECK-SAME: attributes
// CHECK-NEXT: systolic.config ws
// CHECK-NEXT: systolic.mvin 2[0] stride 0 -> acc[0] rows 1 cols 16
// CHECK-NEXT: systolic.vector copy 1, 0 rows 1 cols 16
// CHECK-COUNT-6: systolic.vector copy
// CHECK-NEXT: systolic.mvin 2[16] stride 0 -> acc[128] rows 1 cols 16
// CHECK: systolic.preload weights spad[512] to acc[0] m 128 k 16 n 16 accumulate
// The next block's bias, before this block's ReLUs.
// CHECK: systolic.mvin 2[64] stride 0 -> acc[512] rows 1 cols 16
// CHECK: systolic.vector max 0, 0 rows 128 cols 16 bcast scalar imm 0.000000e+00
// CHECK-NEXT: systolic.mvout acc[0] rows 128 cols 16 -> 3[0] stride 128
// CHECK-NOT: systolic.vector add

// CHECK-LABEL: systolic.program @silu
// CHECK-SAME: "tmp0"
// CHECK: systolic.mvout acc[0] rows 64 cols 16 -> 3[0] stride 128
// CHECK: systolic.vector exp

#id2 = affine_map<(i, j) -> (i, j)>
#col2 = affine_map<(i, j) -> (j)>
func.func @bias_relu(%a: tensor<256x1024xf32>, %b: tensor<1024x128xf32>, %bias: tensor<128xf32>) -> tensor<256x128xf32> {
  %c = tensor.empty() : tensor<256x128xf32>
  %0 = accel.matmul ins(%a, %b : tensor<256x1024xf32>, tensor<1024x128xf32>) outs(%c : tensor<256x128xf32>) -> tensor<256x128xf32>
  %1 = linalg.generic {indexing_maps = [#col2, #id2], iterator_types = ["parallel", "parallel"]} ins(%bias : tensor<128xf32>) outs(%0 : tensor<256x128xf32>) {
  ^bb0(%y: f32, %x: f32):
    %s = arith.addf %x, %y : f32
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %s, %z : f32
    linalg.yield %r : f32
  } -> tensor<256x128xf32>
  return %1 : tensor<256x128xf32>
}

func.func @silu(%a: tensor<256x1024xf32>, %b: tensor<1024x128xf32>) -> tensor<256x128xbf16> {
  %c = tensor.empty() : tensor<256x128xf32>
  %0 = accel.matmul ins(%a, %b : tensor<256x1024xf32>, tensor<1024x128xf32>) outs(%c : tensor<256x128xf32>) -> tensor<256x128xf32>
  %e = tensor.empty() : tensor<256x128xbf16>
  %1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<256x128xf32>) outs(%e : tensor<256x128xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %one = arith.constant 1.0 : f32
    %n = arith.negf %x : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %s = arith.divf %x, %d : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<256x128xbf16>
  return %1 : tensor<256x128xbf16>
}
