// Epilogues after bf16 and int8 matmuls on AMX tiles (accel-cpu-amx-kernels
// with fuse-epilogues): each C block's last K block goes to a scratch
// buffer and the epilogue writes C (in place) or the cast result (out of
// place) from it, one block behind (software-pipelined) along a panel's row
// blocks; a padded C applies it in the copy back. Checked against the fp64
// oracle evaluating the unfused program, NaN-prefilled outputs: full and
// remainder blocks along M and N, the pipelined row-block loop and its
// last block, two K blocks (the epilogue on the last only), configured
// tiles with M and K blocks, ragged (padded) C in place and out of place,
// an out-of-place cast whose C is also returned, int8 with a per-channel
// dequantisation, and two threads (each task its own scratch).
// REQUIRES: cpu-amx
// RUN: accel-run %s --repeat=0 | FileCheck %s
// RUN: accel-run %s --repeat=0 --dist=normal --seed=3 | FileCheck %s
// RUN: accel-run %s --repeat=0 --num-threads=2 --seed=4 | FileCheck %s
// The same without the fusion (the epilogue a second pass), as a control:
// RUN: accel-run %s --repeat=0 --seed=5 --cpu-pipeline-options=fuse-epilogues=false | FileCheck %s
// Every epilogue is fused: no whole-C generic is left after the kernels.
// RUN: accel-opt %s --accel-cpu-pipeline="cpu-features=+avx512f,+avx512bw,+avx512vl,+amx-tile,+amx-bf16,+amx-int8" --mlir-disable-threading --mlir-print-ir-after=accel-cpu-amx-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=IR

// CHECK-LABEL: @bias_gelu
// CHECK: PASS
// CHECK-LABEL: @relu_to_bf16
// CHECK: PASS
// CHECK-LABEL: @bias_residual_two_k_blocks
// CHECK: PASS
// CHECK-LABEL: @blocks
// CHECK: PASS
// CHECK-LABEL: @ragged_in_place
// CHECK: PASS
// CHECK-LABEL: @ragged_cast
// CHECK: PASS
// CHECK-LABEL: @cast_and_c
// CHECK: PASS
// CHECK-LABEL: @i8_dequant
// CHECK: PASS
// CHECK-LABEL: @threads_silu
// CHECK: PASS
// CHECK: accel-run: 9 of 9 functions passed

// IR-LABEL: func.func @bias_gelu
// IR: memref.alloc() {alignment = 64 : i64} : memref<2x32x32xf32>
// IR: memref.prefetch
// IR: scf.if
// IR: math.erf
// IR: amx.tile_store
// IR: math.erf
// IR-NOT: linalg.generic {{.*}} outs(%{{.*}} : memref<128x96xf32>)
// IR-LABEL: func.func @relu_to_bf16
// IR-LABEL: func.func @bias_residual_two_k_blocks
// IR-LABEL: func.func @blocks
// IR-LABEL: func.func @ragged_in_place
// IR-NOT: linalg.copy
// IR-LABEL: func.func @ragged_cast
// IR-LABEL: func.func @cast_and_c
// IR: linalg.generic
// IR-LABEL: func.func @i8_dequant
// IR: memref<2x32x32xi32>
// IR-LABEL: func.func @threads_silu

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// 128 x 96: four 32-row blocks per 32-column panel (the pipelined loop),
// three panels.
func.func @bias_gelu(%a: tensor<128x160xbf16>, %b: tensor<160x96xbf16>, %bias: tensor<96xf32>) -> tensor<128x96xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x96xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<128x96xf32>) -> tensor<128x96xf32>
  %mm = accel.matmul ins(%a, %b : tensor<128x160xbf16>, tensor<160x96xbf16>) outs(%o : tensor<128x96xf32>) -> tensor<128x96xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias : tensor<128x96xf32>, tensor<96xf32>) outs(%e : tensor<128x96xf32>) {
  ^bb0(%x: f32, %bv: f32, %o2: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %rs2 = arith.constant 0.707106769 : f32
    %s = arith.addf %x, %bv : f32
    %t = arith.mulf %s, %rs2 : f32
    %f = math.erf %t : f32
    %p = arith.addf %f, %one : f32
    %h = arith.mulf %s, %half : f32
    %g = arith.mulf %h, %p : f32
    linalg.yield %g : f32
  } -> tensor<128x96xf32>
  return %r : tensor<128x96xf32>
}

// Out of place: bias and ReLU rounded to bf16; N = 80: two 32-column panels
// and a 16-column rest; M = 64: two row blocks.
func.func @relu_to_bf16(%a: tensor<64x64xbf16>, %b: tensor<64x80xbf16>, %bias: tensor<80xf32>) -> tensor<64x80xbf16> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x80xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<64x80xf32>) -> tensor<64x80xf32>
  %mm = accel.matmul ins(%a, %b : tensor<64x64xbf16>, tensor<64x80xbf16>) outs(%o : tensor<64x80xf32>) -> tensor<64x80xf32>
  %e2 = tensor.empty() : tensor<64x80xbf16>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias : tensor<64x80xf32>, tensor<80xf32>) outs(%e2 : tensor<64x80xbf16>) {
  ^bb0(%x: f32, %bv: f32, %o2: bf16):
    %zero = arith.constant 0.0 : f32
    %s = arith.addf %x, %bv : f32
    %m = arith.maximumf %s, %zero : f32
    %t = arith.truncf %m : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<64x80xbf16>
  return %r : tensor<64x80xbf16>
}

// K = 2100: a 2048 block, then a padded rest; only the rest's blocks apply
// the epilogue (bias + residual, in place).
func.func @bias_residual_two_k_blocks(%a: tensor<96x2100xbf16>, %b: tensor<2100x64xbf16>, %bias: tensor<64xf32>, %res: tensor<96x64xf32>) -> tensor<96x64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<96x64xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<96x64xf32>) -> tensor<96x64xf32>
  %mm = accel.matmul ins(%a, %b : tensor<96x2100xbf16>, tensor<2100x64xbf16>) outs(%o : tensor<96x64xf32>) -> tensor<96x64xf32>
  %r = linalg.generic {indexing_maps = [#col, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%bias, %res : tensor<64xf32>, tensor<96x64xf32>) outs(%mm : tensor<96x64xf32>) {
  ^bb0(%bv: f32, %rv: f32, %x: f32):
    %s = arith.addf %x, %bv : f32
    %y = arith.addf %s, %rv : f32
    linalg.yield %y : f32
  } -> tensor<96x64xf32>
  return %r : tensor<96x64xf32>
}

// Configured tiles [mc 64, kc 64], blocks 48 x 16: M blocks of 64, 64 and
// 32 rows (a 48-row block and a 16-row rest each), K blocks of 64 (the last
// one, 300 - 256, padded), five 16-column panels; bias and ReLU in place.
func.func @blocks(%a: tensor<160x300xbf16>, %b: tensor<300x80xbf16>, %bias: tensor<80xf32>) -> tensor<160x80xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<160x80xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<160x80xf32>) -> tensor<160x80xf32>
  %mm = accel.matmul ins(%a, %b : tensor<160x300xbf16>, tensor<300x80xbf16>) outs(%o : tensor<160x80xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-amx-bf16", tile = [64, 0, 64], mma = [48, 16, 32]>} -> tensor<160x80xf32>
  %r = linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]} ins(%bias : tensor<80xf32>) outs(%mm : tensor<160x80xf32>) {
  ^bb0(%bv: f32, %x: f32):
    %zero = arith.constant 0.0 : f32
    %s = arith.addf %x, %bv : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<160x80xf32>
  return %r : tensor<160x80xf32>
}

// M, N, K = 50, 40, 37: C through a padded copy; the epilogue reads it and
// writes C (no copy back).
func.func @ragged_in_place(%a: tensor<50x37xbf16>, %b: tensor<37x40xbf16>, %scale: tensor<40xf32>) -> tensor<50x40xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<50x40xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<50x40xf32>) -> tensor<50x40xf32>
  %mm = accel.matmul ins(%a, %b : tensor<50x37xbf16>, tensor<37x40xbf16>) outs(%o : tensor<50x40xf32>) -> tensor<50x40xf32>
  %r = linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]} ins(%scale : tensor<40xf32>) outs(%mm : tensor<50x40xf32>) {
  ^bb0(%sv: f32, %x: f32):
    %y = arith.mulf %x, %sv : f32
    linalg.yield %y : f32
  } -> tensor<50x40xf32>
  return %r : tensor<50x40xf32>
}

// Ragged and out of place: the cast reads the padded copy.
func.func @ragged_cast(%a: tensor<50x37xbf16>, %b: tensor<37x40xbf16>) -> tensor<50x40xbf16> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<50x40xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<50x40xf32>) -> tensor<50x40xf32>
  %mm = accel.matmul ins(%a, %b : tensor<50x37xbf16>, tensor<37x40xbf16>) outs(%o : tensor<50x40xf32>) -> tensor<50x40xf32>
  %e2 = tensor.empty() : tensor<50x40xbf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<50x40xf32>) outs(%e2 : tensor<50x40xbf16>) {
  ^bb0(%x: f32, %o2: bf16):
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<50x40xbf16>
  return %r : tensor<50x40xbf16>
}

// C is returned as well as its cast: C is written in full and the cast
// applied per row strip from it.
func.func @cast_and_c(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>) -> (tensor<64x64xf32>, tensor<64x64xbf16>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %mm = accel.matmul ins(%a, %b : tensor<64x64xbf16>, tensor<64x64xbf16>) outs(%o : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e2 = tensor.empty() : tensor<64x64xbf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<64x64xf32>) outs(%e2 : tensor<64x64xbf16>) {
  ^bb0(%x: f32, %o2: bf16):
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<64x64xbf16>
  return %mm, %r : tensor<64x64xf32>, tensor<64x64xbf16>
}

// int8 x int8 -> i32, then a per-channel dequantisation to f32 (out of
// place: i32 to f32 times the channel's scale).
func.func @i8_dequant(%a: tensor<64x192xi8>, %b: tensor<192x96xi8>, %scale: tensor<96xf32>) -> tensor<64x96xf32> {
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<64x96xi32>
  %o = linalg.fill ins(%z : i32) outs(%e : tensor<64x96xi32>) -> tensor<64x96xi32>
  %mm = accel.matmul ins(%a, %b : tensor<64x192xi8>, tensor<192x96xi8>) outs(%o : tensor<64x96xi32>) -> tensor<64x96xi32>
  %e2 = tensor.empty() : tensor<64x96xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm, %scale : tensor<64x96xi32>, tensor<96xf32>) outs(%e2 : tensor<64x96xf32>) {
  ^bb0(%x: i32, %sv: f32, %o2: f32):
    %f = arith.sitofp %x : i32 to f32
    %y = arith.mulf %f, %sv : f32
    linalg.yield %y : f32
  } -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}

// 512 x 256 x 512 = 2^26 multiply-adds: two threads run chunks of column
// panels, each with its own scratch; bias and SiLU in place.
func.func @threads_silu(%a: tensor<512x512xbf16>, %b: tensor<512x256xbf16>, %bias: tensor<256xf32>) -> tensor<512x256xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x256xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<512x256xf32>) -> tensor<512x256xf32>
  %mm = accel.matmul ins(%a, %b : tensor<512x512xbf16>, tensor<512x256xbf16>) outs(%o : tensor<512x256xf32>) -> tensor<512x256xf32>
  %r = linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]} ins(%bias : tensor<256xf32>) outs(%mm : tensor<512x256xf32>) {
  ^bb0(%bv: f32, %x: f32):
    %one = arith.constant 1.0 : f32
    %s = arith.addf %x, %bv : f32
    %n = arith.negf %s : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %y = arith.divf %s, %d : f32
    linalg.yield %y : f32
  } -> tensor<512x256xf32>
  return %r : tensor<512x256xf32>
}
