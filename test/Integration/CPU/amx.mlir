// bf16 and int8 matmuls on AMX tiles (accel-cpu-amx-kernels) against the
// fp64 oracle, NaN-prefilled outputs: the JIT compiles for the host, whose
// AMX the configuration stage picks; ragged M, N and K (padded tiles), K
// across several K blocks, M across several M blocks, the remainder row
// tiles and column panels (small configured tiles), M = 1, an accumulating
// matmul (C loaded into the tiles), a fill that is not zero (kept, then
// loaded), int8 bit-exact; one and two threads (GEMMs of 2^26 multiply-adds
// and more: parallel packing, chunks of column panels as tasks, the
// narrower rest after them).
// REQUIRES: cpu-amx
// RUN: accel-run %s --repeat=0 | FileCheck %s
// RUN: accel-run %s --repeat=0 --num-threads=2 --seed=3 | FileCheck %s
// RUN: accel-run %s --repeat=0 --dist=exact | FileCheck %s --check-prefix=EXACT
// The kernels are AMX's:
// RUN: accel-opt %s --accel-cpu-pipeline="cpu-features=+avx512f,+avx512bw,+avx512vl,+amx-tile,+amx-bf16,+amx-int8" | FileCheck %s --check-prefix=IR
// IR-COUNT-9: llvm.x86.tdpb{{f16ps|ssd}}.internal
// IR-NOT: llvm.x86.avx512.vpdpbusd
// IR-NOT: llvm.x86.avx512bf16.dpbf16ps

// CHECK-LABEL: @square
// CHECK: PASS
// CHECK-LABEL: @ragged
// CHECK: PASS
// CHECK-LABEL: @blocks
// CHECK: PASS
// CHECK-LABEL: @gemv
// CHECK: PASS
// CHECK-LABEL: @accumulate
// CHECK: PASS
// CHECK-LABEL: @fill_one
// CHECK: PASS
// CHECK-LABEL: @i8_ragged
// CHECK: max abs err 0.00e+00
// CHECK-LABEL: @i8_blocks
// CHECK: max abs err 0.00e+00
// CHECK-LABEL: @i8_accumulate
// CHECK: max abs err 0.00e+00
// CHECK-LABEL: @threads_ragged
// CHECK: PASS
// CHECK-LABEL: @i8_threads
// CHECK: max abs err 0.00e+00
// CHECK-LABEL: @threads_own_panels
// CHECK: PASS
// CHECK-LABEL: @i8_threads_own_panels
// CHECK: max abs err 0.00e+00
// CHECK: accel-run: 13 of 13 functions passed
// EXACT-COUNT-13: max abs err 0.00e+00
// EXACT: accel-run: 13 of 13 functions passed

func.func @square(%a: tensor<128x128xbf16>, %b: tensor<128x128xbf16>) -> tensor<128x128xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x128xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
  %r = accel.matmul ins(%a, %b : tensor<128x128xbf16>, tensor<128x128xbf16>) outs(%o : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %r : tensor<128x128xf32>
}

// M, N, K = 61, 135, 37: no tile divides them.
func.func @ragged(%a: tensor<61x37xbf16>, %b: tensor<37x135xbf16>) -> tensor<61x135xf32> {
  %o = tensor.empty() : tensor<61x135xf32>
  %r = accel.matmul ins(%a, %b : tensor<61x37xbf16>, tensor<37x135xbf16>) outs(%o : tensor<61x135xf32>) -> tensor<61x135xf32>
  return %r : tensor<61x135xf32>
}

// Tiles [mc 64, kc 64], block 48 x 32: M blocks (two of 64 and 32 rows),
// K blocks (5, then the rest padded), 48-row tiles then a 16-row rest,
// 32-column panels then a 16-column rest.
func.func @blocks(%a: tensor<160x300xbf16>, %b: tensor<300x80xbf16>) -> tensor<160x80xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<160x80xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<160x80xf32>) -> tensor<160x80xf32>
  %r = accel.matmul ins(%a, %b : tensor<160x300xbf16>, tensor<300x80xbf16>) outs(%o : tensor<160x80xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-amx-bf16", tile = [64, 0, 64], mma = [48, 16, 32]>} -> tensor<160x80xf32>
  return %r : tensor<160x80xf32>
}

func.func @gemv(%a: tensor<1x4096xbf16>, %b: tensor<4096x256xbf16>) -> tensor<1x256xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x256xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<1x256xf32>) -> tensor<1x256xf32>
  %r = accel.matmul ins(%a, %b : tensor<1x4096xbf16>, tensor<4096x256xbf16>) outs(%o : tensor<1x256xf32>) -> tensor<1x256xf32>
  return %r : tensor<1x256xf32>
}

func.func @accumulate(%a: tensor<40x70xbf16>, %b: tensor<70x50xbf16>, %c: tensor<40x50xf32>) -> tensor<40x50xf32> {
  %r = accel.matmul accumulate ins(%a, %b : tensor<40x70xbf16>, tensor<70x50xbf16>) outs(%c : tensor<40x50xf32>) -> tensor<40x50xf32>
  return %r : tensor<40x50xf32>
}

func.func @fill_one(%a: tensor<32x64xbf16>, %b: tensor<64x48xbf16>) -> tensor<32x48xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<32x48xf32>
  %o = linalg.fill ins(%one : f32) outs(%e : tensor<32x48xf32>) -> tensor<32x48xf32>
  %r = accel.matmul accumulate ins(%a, %b : tensor<32x64xbf16>, tensor<64x48xbf16>) outs(%o : tensor<32x48xf32>) -> tensor<32x48xf32>
  return %r : tensor<32x48xf32>
}

func.func @i8_ragged(%a: tensor<70x130xi8>, %b: tensor<130x33xi8>) -> tensor<70x33xi32> {
  %o = tensor.empty() : tensor<70x33xi32>
  %r = accel.matmul ins(%a, %b : tensor<70x130xi8>, tensor<130x33xi8>) outs(%o : tensor<70x33xi32>) -> tensor<70x33xi32>
  return %r : tensor<70x33xi32>
}

// K blocks of 128 (two, then a padded rest), 16 x 48 blocks.
func.func @i8_blocks(%a: tensor<48x300xi8>, %b: tensor<300x100xi8>) -> tensor<48x100xi32> {
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<48x100xi32>
  %o = linalg.fill ins(%z : i32) outs(%e : tensor<48x100xi32>) -> tensor<48x100xi32>
  %r = accel.matmul ins(%a, %b : tensor<48x300xi8>, tensor<300x100xi8>) outs(%o : tensor<48x100xi32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-amx-int8", tile = [0, 0, 128], mma = [16, 48, 64]>} -> tensor<48x100xi32>
  return %r : tensor<48x100xi32>
}

func.func @i8_accumulate(%a: tensor<30x70xi8>, %b: tensor<70x50xi8>, %c: tensor<30x50xi32>) -> tensor<30x50xi32> {
  %r = accel.matmul accumulate ins(%a, %b : tensor<30x70xi8>, tensor<70x50xi8>) outs(%c : tensor<30x50xi32>) -> tensor<30x50xi32>
  return %r : tensor<30x50xi32>
}

// 520 x 520 x 260 (above 2^26): 16 full 32-column panels in the parallel
// region, then a 16-column rest (N padded to 528); rows padded to 528.
func.func @threads_ragged(%a: tensor<520x260xbf16>, %b: tensor<260x520xbf16>) -> tensor<520x520xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<520x520xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<520x520xf32>) -> tensor<520x520xf32>
  %r = accel.matmul ins(%a, %b : tensor<520x260xbf16>, tensor<260x520xbf16>) outs(%o : tensor<520x520xf32>) -> tensor<520x520xf32>
  return %r : tensor<520x520xf32>
}

func.func @i8_threads(%a: tensor<520x260xi8>, %b: tensor<260x520xi8>, %c: tensor<520x520xi32>) -> tensor<520x520xi32> {
  %r = accel.matmul accumulate ins(%a, %b : tensor<520x260xi8>, tensor<260x520xi8>) outs(%c : tensor<520x520xi32>) -> tensor<520x520xi32>
  return %r : tensor<520x520xi32>
}

// N a whole number of 32-column panels: on two threads each task packs its
// own panels of B. 480 = 15 panels: tasks of 8 and 7 (the last task's
// smaller packing); K = 520 (padded to whole tile steps).
func.func @threads_own_panels(%a: tensor<512x520xbf16>, %b: tensor<520x480xbf16>) -> tensor<512x480xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x480xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<512x480xf32>) -> tensor<512x480xf32>
  %r = accel.matmul ins(%a, %b : tensor<512x520xbf16>, tensor<520x480xbf16>) outs(%o : tensor<512x480xf32>) -> tensor<512x480xf32>
  return %r : tensor<512x480xf32>
}

func.func @i8_threads_own_panels(%a: tensor<512x300xi8>, %b: tensor<300x512xi8>, %c: tensor<512x512xi32>) -> tensor<512x512xi32> {
  %r = accel.matmul accumulate ins(%a, %b : tensor<512x300xi8>, tensor<300x512xi8>) outs(%c : tensor<512x512xi32>) -> tensor<512x512xi32>
  return %r : tensor<512x512xi32>
}
