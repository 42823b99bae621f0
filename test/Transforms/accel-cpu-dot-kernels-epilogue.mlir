// accel-cpu-dot-kernels with fuse-epilogues (the default): the cheap
// elementwise generic that reads C next is applied to the last K block's
// accumulators in registers before they are stored, and the whole-C
// generic goes; GELU (a math function) only with fuse-expensive-epilogues.
// RUN: accel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(accel-cpu-dot-kernels{features=avx512f,avx512bf16,avx512vnni}),canonicalize)' | FileCheck %s
// RUN: accel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(accel-cpu-dot-kernels{features=avx512f,avx512bf16,avx512vnni fuse-expensive-epilogues=true}),canonicalize)' | FileCheck %s --check-prefix=EXPENSIVE
// RUN: accel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(accel-cpu-dot-kernels{features=avx512f,avx512bf16,avx512vnni fuse-epilogues=false}),canonicalize)' | FileCheck %s --check-prefix=OFF

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// One 6-row tile of 20 columns (a full group and a masked group of 4), one
// K block: every accumulator gets bias + ReLU (the bias of the last group
// loaded masked) and is stored once, masked in the last group.
// CHECK-LABEL: func @in_place
// CHECK-SAME: %[[BIAS:[a-z0-9]+]]: memref<20xf32>, %[[C:[a-z0-9]+]]: memref<6x20xf32>)
// CHECK: %[[MASK:.+]] = vector.constant_mask [4] : vector<16xi1>
// CHECK: %[[ACC:.+]]:12 = scf.for
// CHECK: x86vector.avx512.dot
// CHECK: %[[B0:.+]] = vector.load %[[BIAS]][%c0] : memref<20xf32>, vector<16xf32>
// CHECK: %[[S0:.+]] = arith.addf %[[ACC]]#0, %[[B0]] : vector<16xf32>
// CHECK: %[[R0:.+]] = arith.maximumf %[[S0]], %{{.+}} : vector<16xf32>
// CHECK: vector.store %[[R0]], %[[C]][%c0, %c0]
// CHECK: %[[B1:.+]] = vector.maskedload %[[BIAS]][%c16], %[[MASK]]
// CHECK: %[[S1:.+]] = arith.addf %[[ACC]]#1, %[[B1]]
// CHECK: %[[R1:.+]] = arith.maximumf %[[S1]]
// CHECK: vector.maskedstore %[[C]][%c0, %c16], %[[MASK]], %[[R1]]
// CHECK-COUNT-5: vector.maskedstore %[[C]]
// CHECK-NOT: linalg.generic
// CHECK: return
// OFF-LABEL: func @in_place
// OFF-NOT: arith.maximumf {{.*}} : vector<16xf32>
// OFF: linalg.generic {{.*}} ins(%arg2 : memref<20xf32>) outs(%arg3 : memref<6x20xf32>)
func.func @in_place(%a: memref<6x8xbf16>, %b: memref<8x20xbf16>, %bias: memref<20xf32>, %c: memref<6x20xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%c : memref<6x20xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<6x8xbf16>, memref<8x20xbf16>) outs(%c : memref<6x20xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]} ins(%bias : memref<20xf32>) outs(%c : memref<6x20xf32>) {
  ^bb0(%bv: f32, %acc: f32):
    %s = arith.addf %acc, %bv : f32
    %r = arith.maximumf %s, %z : f32
    linalg.yield %r : f32
  }
  return
}

// -----

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// Out of place, C a temporary nothing reads afterwards, K = 16 in blocks of
// 4 (kc = 4 from the config): the first block starts from the fill, the
// loop's blocks store C but for the last, whose accumulators are rounded to
// bf16 into the output instead; C is then never read.
// CHECK-LABEL: func @cast_k_blocks
// CHECK: %[[D:.+]] = memref.alloc() {alignment = 64 : i64} : memref<6x16xbf16>
// CHECK: scf.for %[[KB:.+]] = %c2 to %c8 step %c2 {
// CHECK: %[[NEXT:.+]] = arith.addi %[[KB]], %c2
// CHECK: %[[LAST:.+]] = arith.cmpi sge, %[[NEXT]], %c8
// CHECK: scf.if %[[LAST]] {
// CHECK: %[[T:.+]] = arith.truncf %{{.+}} : vector<16xf32> to vector<16xbf16>
// CHECK: vector.store %[[T]], %[[D]][%c0, %c0]
// CHECK-NOT: vector.store {{.*}} memref<6x16xf32>
// CHECK: } else {
// CHECK: vector.store %{{.+}}, %{{.+}}[%c0, %c0] : memref<6x16xf32>, vector<16xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[D]]
func.func @cast_k_blocks(%a: memref<6x16xbf16>, %b: memref<16x16xbf16>) -> memref<6x16xbf16> {
  %z = arith.constant 0.0 : f32
  %c = memref.alloc() {alignment = 64 : i64} : memref<6x16xf32>
  linalg.fill ins(%z : f32) outs(%c : memref<6x16xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<6x16xbf16>, memref<16x16xbf16>) outs(%c : memref<6x16xf32>) attrs = {accel.lowering_config = #accel.lowering_config<kernel = "cpu-avx512bf16", tile = [6, 0, 4], mma = [6, 64, 2]>} {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  %d = memref.alloc() {alignment = 64 : i64} : memref<6x16xbf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : memref<6x16xf32>) outs(%d : memref<6x16xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  }
  memref.dealloc %c : memref<6x16xf32>
  return %d : memref<6x16xbf16>
}

// -----

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// GELU (erf): a separate pass by default; in registers with
// fuse-expensive-epilogues.
// CHECK-LABEL: func @gelu
// CHECK: x86vector.avx512.dot
// CHECK: linalg.generic
// CHECK: math.erf %{{.+}} : f32
// EXPENSIVE-LABEL: func @gelu
// EXPENSIVE: math.erf %{{.+}} : vector<16xf32>
// EXPENSIVE-NOT: linalg.generic
func.func @gelu(%a: memref<6x8xbf16>, %b: memref<8x16xbf16>, %c: memref<6x16xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%c : memref<6x16xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<6x8xbf16>, memref<8x16xbf16>) outs(%c : memref<6x16xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%c : memref<6x16xf32>) {
  ^bb0(%acc: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %t = arith.mulf %acc, %half : f32
    %f = math.erf %t : f32
    %p = arith.addf %f, %one : f32
    %g = arith.mulf %acc, %p : f32
    linalg.yield %g : f32
  }
  return
}
