// bf16 and int8 GEMMs of one M block on AMX (M <= 256: a prefill, a decode
// step against a weight) pack B piece by piece in the loops, each (K block,
// 256 columns) piece right before the row tiles of its 32-column panels use
// it, instead of packing all of B first (accel-cpu-amx-kernels,
// packsInLoop). Against the
// fp64 oracle, NaN-prefilled outputs: several K blocks and a rest K block
// (each piece indexed from its block's start), full panels and a 16-column
// rest panel, rows padded to 16 (C through a padded copy), a bias + cast
// epilogue, int8 bit-exact, decode steps (M 1 and 8; N below one piece and
// one panel); one, two and three threads (the panels in tasks, each task
// its own piece buffer; on three the last task has fewer panels, and each
// task's panels end in a piece narrower than 256 columns).
// REQUIRES: cpu-amx
// RUN: accel-run %s --repeat=0 | FileCheck %s
// RUN: accel-run %s --repeat=0 --num-threads=2 --seed=3 | FileCheck %s
// RUN: accel-run %s --repeat=0 --num-threads=3 --seed=5 | FileCheck %s
// The pieces: [16 blocks of 16 columns, 1024 pairs of k, 32] for bf16 (kc
// 2048), [16, 1024 quads, 64] for int8 (kc 4096); no whole packed B.
// RUN: accel-opt %s --accel-cpu-pipeline="cpu-features=+avx512f,+avx512bw,+avx512vl,+amx-tile,+amx-bf16,+amx-int8" --mlir-disable-threading --mlir-print-ir-after=accel-cpu-amx-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=IR
// IR-LABEL: func.func @prefill
// IR: memref.alloc() {alignment = 64 : i64} : memref<16x1024x32xbf16>
// IR-NOT: memref.alloc() {{.*}} : memref<{{[0-9]+}}x1056x32xbf16>
// IR-LABEL: func.func @prefill_bias_bf16
// IR: memref.alloc() {alignment = 64 : i64} : memref<16x1024x32xbf16>
// IR-LABEL: func.func @i8_prefill
// IR: memref.alloc() {alignment = 64 : i64} : memref<16x1024x64xi8>
// IR-NOT: memref.alloc() {{.*}} : memref<{{[0-9]+}}x1056x64xi8>

// CHECK-LABEL: @prefill
// CHECK: PASS
// CHECK-LABEL: @prefill_bias_bf16
// CHECK: PASS
// CHECK-LABEL: @i8_prefill
// CHECK: max abs err 0.00e+00
// CHECK-LABEL: @decode
// CHECK: PASS
// CHECK-LABEL: @decode8
// CHECK: PASS
// CHECK: accel-run: 5 of 5 functions passed

// M 200 (padded to 208), K 2112 (a K block of 2048 and a rest of 64), N
// 1040 (32 full panels and a 16-column rest); 439 M multiply-adds: the
// panels run as tasks (on three threads 11, 11 and 10 panels: a piece of
// 256 columns, then one of 96 or 64).
func.func @prefill(%a: tensor<200x2112xbf16>, %b: tensor<2112x1040xbf16>) -> tensor<200x1040xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<200x1040xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<200x1040xf32>) -> tensor<200x1040xf32>
  %r = accel.matmul ins(%a, %b : tensor<200x2112xbf16>, tensor<2112x1040xbf16>) outs(%o : tensor<200x1040xf32>) -> tensor<200x1040xf32>
  return %r : tensor<200x1040xf32>
}

// A projection as torch-mlir writes it in bf16: f32 sums, + bias, rounded
// to bf16 (the epilogue on the last K block's tiles).
func.func @prefill_bias_bf16(%a: tensor<128x2112xbf16>, %b: tensor<2112x528xbf16>, %bias: tensor<528xf32>) -> tensor<128x528xbf16> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x528xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<128x528xf32>) -> tensor<128x528xf32>
  %r = linalg.matmul ins(%a, %b : tensor<128x2112xbf16>, tensor<2112x528xbf16>) outs(%o : tensor<128x528xf32>) -> tensor<128x528xf32>
  %e2 = tensor.empty() : tensor<128x528xbf16>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%r, %bias : tensor<128x528xf32>, tensor<528xf32>) outs(%e2 : tensor<128x528xbf16>) {
  ^bb0(%c: f32, %bv: f32, %out: bf16):
    %s = arith.addf %c, %bv : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<128x528xbf16>
  return %y : tensor<128x528xbf16>
}

// K 4224 (a K block of 4096 and a rest of 128), N 528.
func.func @i8_prefill(%a: tensor<96x4224xi8>, %b: tensor<4224x528xi8>) -> tensor<96x528xi32> {
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<96x528xi32>
  %o = linalg.fill ins(%z : i32) outs(%e : tensor<96x528xi32>) -> tensor<96x528xi32>
  %r = accel.matmul ins(%a, %b : tensor<96x4224xi8>, tensor<4224x528xi8>) outs(%o : tensor<96x528xi32>) -> tensor<96x528xi32>
  return %r : tensor<96x528xi32>
}

// A decode step: one row (padded to 16), K 4096 (two K blocks), N 48 (one
// 32-column panel, then a 16-column rest; pieces of 32 and 16 columns).
func.func @decode(%a: tensor<1x4096xbf16>, %b: tensor<4096x48xbf16>) -> tensor<1x48xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x48xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<1x48xf32>) -> tensor<1x48xf32>
  %r = accel.matmul ins(%a, %b : tensor<1x4096xbf16>, tensor<4096x48xbf16>) outs(%o : tensor<1x48xf32>) -> tensor<1x48xf32>
  return %r : tensor<1x48xf32>
}

// Eight rows against a [2048, 1008] weight: three pieces of 256 columns,
// one of 224 (seven 32-column panels), then the 16-column rest.
func.func @decode8(%a: tensor<8x2048xbf16>, %b: tensor<2048x1008xbf16>) -> tensor<8x1008xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x1008xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<8x1008xf32>) -> tensor<8x1008xf32>
  %r = accel.matmul ins(%a, %b : tensor<8x2048xbf16>, tensor<2048x1008xbf16>) outs(%o : tensor<8x1008xf32>) -> tensor<8x1008xf32>
  return %r : tensor<8x1008xf32>
}
