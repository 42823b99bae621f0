// Epilogues after bf16 and int8 matmuls on the AVX512-BF16 / VNNI dot
// kernels (accel-cpu-dot-kernels with fuse-epilogues: the last K block's
// accumulators take the epilogue in registers before they are stored),
// against the fp64 oracle evaluating the unfused program, NaN-prefilled
// outputs: M not a multiple of the 6-row tile, N with a masked last
// 16-column group (bias loads and the store masked), K over three 2048-value
// blocks (only the last applies it), M over two 132-row blocks, in place
// (bias + ReLU, residual, per-row scale) and out of place (a bf16 cast, a
// cast whose C is also returned, int8 dequantisation), GELU when the
// expensive epilogues go to registers too, and two threads.
// REQUIRES: cpu-avx512bf16
// RUN: accel-run %s --repeat=0 --cpu-pipeline-options=cpu-features=+avx2,+fma,+f16c,+avx512f,+avx512bw,+avx512vl,+avx512dq,+avx512bf16,+avx512vnni | FileCheck %s
// RUN: accel-run %s --repeat=0 --seed=3 --dist=normal --num-threads=2 --cpu-pipeline-options=cpu-features=+avx2,+fma,+f16c,+avx512f,+avx512bw,+avx512vl,+avx512dq,+avx512bf16,+avx512vnni | FileCheck %s
// RUN: accel-run %s --repeat=0 --seed=4 --cpu-pipeline-options="fuse-expensive-epilogues=1 cpu-features=+avx2,+fma,+f16c,+avx512f,+avx512bw,+avx512vl,+avx512dq,+avx512bf16,+avx512vnni" | FileCheck %s
// The same with the epilogues as a second pass, as a control:
// RUN: accel-run %s --repeat=0 --seed=5 --cpu-pipeline-options="fuse-epilogues=0 cpu-features=+avx2,+fma,+f16c,+avx512f,+avx512bw,+avx512vl,+avx512dq,+avx512bf16,+avx512vnni" | FileCheck %s
// The cheap epilogues are applied in the kernels (no whole-C generic left
// after them); GELU only with fuse-expensive-epilogues:
// RUN: accel-opt %s --accel-cpu-pipeline="cpu-features=+avx512f,+avx512bw,+avx512vl,+avx512bf16,+avx512vnni" --mlir-disable-threading --mlir-print-ir-after=accel-cpu-dot-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=IR

// CHECK-LABEL: @bias_relu
// CHECK: PASS
// CHECK-LABEL: @residual_three_k_blocks
// CHECK: PASS
// CHECK-LABEL: @row_scale_m_blocks
// CHECK: PASS
// CHECK-LABEL: @cast_bf16
// CHECK: PASS
// CHECK-LABEL: @cast_and_c
// CHECK: PASS
// CHECK-LABEL: @i8_dequant
// CHECK: PASS
// CHECK-LABEL: @gelu
// CHECK: PASS
// CHECK: accel-run: 7 of 7 functions passed

// IR-LABEL: func.func @bias_relu
// IR: x86vector.avx512.dot
// IR: vector.maskedload %arg2
// IR: arith.maximumf {{.*}} : vector<16xf32>
// IR: vector.maskedstore
// IR-NOT: linalg.generic
// IR-LABEL: func.func @residual_three_k_blocks
// IR: scf.if
// IR-LABEL: func.func @row_scale_m_blocks
// IR: vector.broadcast
// IR-LABEL: func.func @cast_bf16
// IR: arith.truncf {{.*}} : vector<16xf32> to vector<16xbf16>
// IR-LABEL: func.func @cast_and_c
// IR-LABEL: func.func @i8_dequant
// IR: arith.sitofp {{.*}} : vector<16xi32> to vector<16xf32>
// IR-LABEL: func.func @gelu
// IR: linalg.generic
// IR-SAME: outs(%{{.+}} : memref<30x40xf32>)

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>

// M = 50 (8 six-row tiles and 2 rows), N = 70 (64 + a masked group of 6).
func.func @bias_relu(%a: tensor<50x96xbf16>, %b: tensor<96x70xbf16>, %bias: tensor<70xf32>) -> tensor<50x70xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<50x70xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<50x70xf32>) -> tensor<50x70xf32>
  %mm = accel.matmul ins(%a, %b : tensor<50x96xbf16>, tensor<96x70xbf16>) outs(%o : tensor<50x70xf32>) -> tensor<50x70xf32>
  %r = linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]} ins(%bias : tensor<70xf32>) outs(%mm : tensor<50x70xf32>) {
  ^bb0(%bv: f32, %x: f32):
    %zero = arith.constant 0.0 : f32
    %s = arith.addf %x, %bv : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<50x70xf32>
  return %r : tensor<50x70xf32>
}

// K = 4200: three K blocks (the first from the fill, then the loop's two,
// of which only the last applies the epilogue); bias and a residual.
func.func @residual_three_k_blocks(%a: tensor<20x4200xbf16>, %b: tensor<4200x48xbf16>, %bias: tensor<48xf32>, %res: tensor<20x48xf32>) -> tensor<20x48xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<20x48xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<20x48xf32>) -> tensor<20x48xf32>
  %mm = accel.matmul ins(%a, %b : tensor<20x4200xbf16>, tensor<4200x48xbf16>) outs(%o : tensor<20x48xf32>) -> tensor<20x48xf32>
  %r = linalg.generic {indexing_maps = [#col, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%bias, %res : tensor<48xf32>, tensor<20x48xf32>) outs(%mm : tensor<20x48xf32>) {
  ^bb0(%bv: f32, %rv: f32, %x: f32):
    %s = arith.addf %x, %bv : f32
    %y = arith.addf %s, %rv : f32
    linalg.yield %y : f32
  } -> tensor<20x48xf32>
  return %r : tensor<20x48xf32>
}

// M = 140: M blocks of 132 and 8 rows; a scale per row (broadcast).
func.func @row_scale_m_blocks(%a: tensor<140x64xbf16>, %b: tensor<64x32xbf16>, %scale: tensor<140xf32>) -> tensor<140x32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<140x32xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<140x32xf32>) -> tensor<140x32xf32>
  %mm = accel.matmul ins(%a, %b : tensor<140x64xbf16>, tensor<64x32xbf16>) outs(%o : tensor<140x32xf32>) -> tensor<140x32xf32>
  %r = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]} ins(%scale : tensor<140xf32>) outs(%mm : tensor<140x32xf32>) {
  ^bb0(%sv: f32, %x: f32):
    %y = arith.mulf %x, %sv : f32
    linalg.yield %y : f32
  } -> tensor<140x32xf32>
  return %r : tensor<140x32xf32>
}

// Out of place: bias, rounded to bf16 (N = 40: a masked last group).
func.func @cast_bf16(%a: tensor<30x64xbf16>, %b: tensor<64x40xbf16>, %bias: tensor<40xf32>) -> tensor<30x40xbf16> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<30x40xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<30x40xf32>) -> tensor<30x40xf32>
  %mm = accel.matmul ins(%a, %b : tensor<30x64xbf16>, tensor<64x40xbf16>) outs(%o : tensor<30x40xf32>) -> tensor<30x40xf32>
  %e2 = tensor.empty() : tensor<30x40xbf16>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias : tensor<30x40xf32>, tensor<40xf32>) outs(%e2 : tensor<30x40xbf16>) {
  ^bb0(%x: f32, %bv: f32, %o2: bf16):
    %s = arith.addf %x, %bv : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<30x40xbf16>
  return %r : tensor<30x40xbf16>
}

// C returned as well as its cast: C stored too.
func.func @cast_and_c(%a: tensor<30x64xbf16>, %b: tensor<64x40xbf16>) -> (tensor<30x40xf32>, tensor<30x40xbf16>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<30x40xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<30x40xf32>) -> tensor<30x40xf32>
  %mm = accel.matmul ins(%a, %b : tensor<30x64xbf16>, tensor<64x40xbf16>) outs(%o : tensor<30x40xf32>) -> tensor<30x40xf32>
  %e2 = tensor.empty() : tensor<30x40xbf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<30x40xf32>) outs(%e2 : tensor<30x40xbf16>) {
  ^bb0(%x: f32, %o2: bf16):
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<30x40xbf16>
  return %mm, %r : tensor<30x40xf32>, tensor<30x40xbf16>
}

// int8 -> i32, then i32 to f32 times the channel's scale (N = 100: a
// masked group of 4).
func.func @i8_dequant(%a: tensor<33x130xi8>, %b: tensor<130x100xi8>, %scale: tensor<100xf32>) -> tensor<33x100xf32> {
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<33x100xi32>
  %o = linalg.fill ins(%z : i32) outs(%e : tensor<33x100xi32>) -> tensor<33x100xi32>
  %mm = accel.matmul ins(%a, %b : tensor<33x130xi8>, tensor<130x100xi8>) outs(%o : tensor<33x100xi32>) -> tensor<33x100xi32>
  %e2 = tensor.empty() : tensor<33x100xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm, %scale : tensor<33x100xi32>, tensor<100xf32>) outs(%e2 : tensor<33x100xf32>) {
  ^bb0(%x: i32, %sv: f32, %o2: f32):
    %f = arith.sitofp %x : i32 to f32
    %y = arith.mulf %f, %sv : f32
    linalg.yield %y : f32
  } -> tensor<33x100xf32>
  return %r : tensor<33x100xf32>
}

// GELU (erf): a separate pass unless fuse-expensive-epilogues.
func.func @gelu(%a: tensor<30x64xbf16>, %b: tensor<64x40xbf16>, %bias: tensor<40xf32>) -> tensor<30x40xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<30x40xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<30x40xf32>) -> tensor<30x40xf32>
  %mm = accel.matmul ins(%a, %b : tensor<30x64xbf16>, tensor<64x40xbf16>) outs(%o : tensor<30x40xf32>) -> tensor<30x40xf32>
  %r = linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]} ins(%bias : tensor<40xf32>) outs(%mm : tensor<30x40xf32>) {
  ^bb0(%bv: f32, %x: f32):
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
  } -> tensor<30x40xf32>
  return %r : tensor<30x40xf32>
}
