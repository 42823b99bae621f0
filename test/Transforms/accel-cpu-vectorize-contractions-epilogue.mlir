// RUN: accel-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(accel-cpu-vectorize-contractions{cache-tile=64,32,32 register-tile=4,16,1 pack-rhs=0 prefetch-c=0}))" | FileCheck %s
// RUN: accel-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(accel-cpu-vectorize-contractions{cache-tile=64,32,32 register-tile=4,16,1 pack-rhs=0 prefetch-c=0 fuse-epilogues=0}))" | FileCheck %s --check-prefix=OFF
// RUN: accel-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(accel-cpu-vectorize-contractions{cache-tile=64,32,32 register-tile=4,16,1 pack-rhs=0 prefetch-c=0 fuse-expensive-epilogues=1}))" | FileCheck %s --check-prefix=EXPENSIVE

// An in-place epilogue (bias, ReLU) after C = 0; C += A B with K = 64 in
// two K blocks of 32: the first block's tiles start from zero and store C,
// the last block (peeled off the K loop) keeps its tile in registers
// through the K loop, adds the bias row, takes the max and stores C once.
// The generic is gone.
// CHECK-LABEL: func @bias_relu
// CHECK-SAME: (%[[A:.+]]: memref<32x64xf32>, %[[B:.+]]: memref<64x32xf32>, %[[BIAS:.+]]: memref<32xf32>, %[[C:.+]]: memref<32x32xf32>)
// CHECK-NOT: linalg.generic
// First K block: no epilogue.
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[FIRST:.+]] = scf.for {{.*}} -> (vector<4x16xf32>)
// CHECK-NOT: arith.maximumf
// CHECK: vector.transfer_write %[[FIRST]], %[[C]]
// Last K block: C read once, accumulated, the epilogue on the registers.
// CHECK: scf.for %[[N:.+]] = %c0 to %c32 step %c16
// CHECK: scf.for %[[M:.+]] = %c0 to %c32 step %c4
// CHECK: %[[C0:.+]] = vector.transfer_read %[[C]][%[[M]], %[[N]]]
// CHECK: %[[ACC:.+]] = scf.for {{.*}} iter_args(%{{.+}} = %[[C0]]) -> (vector<4x16xf32>)
// CHECK: }
// CHECK-NOT: vector.transfer_write
// CHECK: vector.load %[[BIAS]][%[[N]]] : memref<32xf32>, vector<16xf32>
// CHECK: %[[SUM:.+]] = arith.addf %[[ACC]], %{{.+}} : vector<4x16xf32>
// CHECK: %[[RELU:.+]] = arith.maximumf %[[SUM]], %{{.+}} : vector<4x16xf32>
// CHECK-NEXT: vector.transfer_write %[[RELU]], %[[C]][%[[M]], %[[N]]]
// CHECK-NOT: vector.transfer_write
// CHECK: return
// OFF-LABEL: func @bias_relu
// OFF: linalg.generic
// OFF-NOT: arith.maximumf
// OFF-SAME: ins(%{{.+}} : memref<32xf32>) outs(%{{.+}} : memref<32x32xf32>)
func.func @bias_relu(%a: memref<32x64xf32>, %b: memref<64x32xf32>, %bias: memref<32xf32>, %c: memref<32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<32x32xf32>)
  linalg.matmul ins(%a, %b : memref<32x64xf32>, memref<64x32xf32>) outs(%c : memref<32x32xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%bias : memref<32xf32>) outs(%c : memref<32x32xf32>) {
  ^bb0(%bv: f32, %acc: f32):
    %s = arith.addf %acc, %bv : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// One K block, remainder tiles (30 = 7 x 4 + 2 rows, 20 = 16 + 4 columns):
// every register tile, the masked remainders included, applies the
// epilogue (ReLU) before its only store.
// CHECK-LABEL: func @one_block_remainders
// CHECK-NOT: linalg.generic
// CHECK: %[[T0:.+]] = arith.maximumf {{.*}} : vector<4x16xf32>
// CHECK-NEXT: vector.transfer_write %[[T0]], {{.*}} : vector<4x16xf32>, memref<30x20xf32>
// CHECK: %[[T1:.+]] = arith.maximumf {{.*}} : vector<2x16xf32>
// CHECK-NEXT: vector.transfer_write %[[T1]], {{.*}} : vector<2x16xf32>, memref<30x20xf32>
// The column remainder (4 of 16 lanes) is masked like the contraction's,
// so its zero start, the K loop and the epilogue share registers: one
// masked store per tile.
// CHECK-NOT: vector.transfer_write %cst
// CHECK: %[[T2:.+]] = arith.maximumf {{.*}} : vector<4x16xf32>
// CHECK-NEXT: vector.transfer_write %[[T2]], {{.*}}, %{{.+}} {in_bounds = [true, true]} : vector<4x16xf32>, memref<30x20xf32>
// CHECK-NOT: vector.transfer_write %cst
// CHECK: %[[T3:.+]] = arith.maximumf {{.*}} : vector<2x16xf32>
// CHECK-NEXT: vector.transfer_write %[[T3]], {{.*}}, %{{.+}} {in_bounds = [true, true]} : vector<2x16xf32>, memref<30x20xf32>
// CHECK-NOT: arith.maximumf
// CHECK-NOT: vector.transfer_write
// CHECK: return
func.func @one_block_remainders(%a: memref<30x24xf32>, %b: memref<24x20xf32>, %c: memref<30x20xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<30x20xf32>)
  linalg.matmul ins(%a, %b : memref<30x24xf32>, memref<24x20xf32>) outs(%c : memref<30x20xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%c : memref<30x20xf32>) {
  ^bb0(%acc: f32):
    %r = arith.maximumf %acc, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A math function (tanh) makes the epilogue expensive: by default it stays
// a separate pass; with fuse-expensive-epilogues each tile applies it.
// CHECK-LABEL: func @expensive_stays_separate
// CHECK: linalg.generic
// CHECK: math.tanh %{{.+}} : f32
// EXPENSIVE-LABEL: func @expensive_stays_separate
// EXPENSIVE-NOT: linalg.generic
// EXPENSIVE: %[[T:.+]] = math.tanh {{.*}} : vector<4x16xf32>
// EXPENSIVE-NEXT: vector.transfer_write %[[T]]
func.func @expensive_stays_separate(%a: memref<32x24xf32>, %b: memref<24x32xf32>, %c: memref<32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<32x32xf32>)
  linalg.matmul ins(%a, %b : memref<32x24xf32>, memref<24x32xf32>) outs(%c : memref<32x32xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%c : memref<32x32xf32>) {
  ^bb0(%acc: f32):
    %t = math.tanh %acc : f32
    linalg.yield %t : f32
  }
  return
}

// -----

// C is read between the matmul and the generic: no fusion (the generic
// would see the finished C).
// CHECK-LABEL: func @read_between
// CHECK: memref.copy
// CHECK: linalg.generic
func.func @read_between(%a: memref<32x64xf32>, %b: memref<64x32xf32>, %c: memref<32x32xf32>, %d: memref<32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<32x32xf32>)
  linalg.matmul ins(%a, %b : memref<32x64xf32>, memref<64x32xf32>) outs(%c : memref<32x32xf32>)
  memref.copy %c, %d : memref<32x32xf32> to memref<32x32xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%c : memref<32x32xf32>) {
  ^bb0(%acc: f32):
    %n = arith.negf %acc : f32
    linalg.yield %n : f32
  }
  return
}

// -----

// The generic's other input is written between them: no fusion (the tiles
// would read it before the write).
// CHECK-LABEL: func @input_written_between
// CHECK: linalg.fill
// CHECK: linalg.generic
func.func @input_written_between(%a: memref<32x64xf32>, %b: memref<64x32xf32>, %bias: memref<32xf32>, %c: memref<32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<32x32xf32>)
  linalg.matmul ins(%a, %b : memref<32x64xf32>, memref<64x32xf32>) outs(%c : memref<32x32xf32>)
  linalg.fill ins(%one : f32) outs(%bias : memref<32xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%bias : memref<32xf32>) outs(%c : memref<32x32xf32>) {
  ^bb0(%bv: f32, %acc: f32):
    %s = arith.addf %acc, %bv : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// An integer division never runs on register tiles, even when expensive
// epilogues are allowed: masked remainder lanes would divide padding, and a
// zero divisor traps.
// CHECK-LABEL: func @int_division
// CHECK: linalg.generic
// CHECK: arith.divsi %{{.+}}, %{{.+}} : i32
// EXPENSIVE-LABEL: func @int_division
// EXPENSIVE: linalg.generic
// EXPENSIVE: arith.divsi %{{.+}}, %{{.+}} : i32
func.func @int_division(%a: memref<32x24xi32>, %b: memref<24x32xi32>, %c: memref<32x32xi32>) {
  %zero = arith.constant 0 : i32
  %three = arith.constant 3 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<32x32xi32>)
  linalg.matmul ins(%a, %b : memref<32x24xi32>, memref<24x32xi32>) outs(%c : memref<32x32xi32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%c : memref<32x32xi32>) {
  ^bb0(%acc: i32):
    %q = arith.divsi %acc, %three : i32
    linalg.yield %q : i32
  }
  return
}

// -----

// Out of place: a bias and a cast to bf16 into another buffer. The last K
// block's register tile adds the bias and writes the bf16 tile of D; C's
// tile is still stored (C may be read later); the generic is gone.
// CHECK-LABEL: func @bias_cast_out_of_place
// CHECK-SAME: (%[[A:.+]]: memref<32x64xf32>, %[[B:.+]]: memref<64x32xf32>, %[[BIAS:.+]]: memref<32xf32>, %[[C:.+]]: memref<32x32xf32>, %[[D:.+]]: memref<32x32xbf16>)
// CHECK-NOT: linalg.generic
// First K block: no epilogue.
// CHECK: %[[FIRST:.+]] = scf.for {{.*}} -> (vector<4x16xf32>)
// CHECK-NOT: arith.truncf
// CHECK: vector.transfer_write %[[FIRST]], %[[C]]
// Last K block: C's tile stored, then the bias and the cast into D.
// CHECK: scf.for %[[N:.+]] = %c0 to %c32 step %c16
// CHECK: scf.for %[[M:.+]] = %c0 to %c32 step %c4
// CHECK: %[[ACC:.+]] = scf.for {{.*}} -> (vector<4x16xf32>)
// CHECK: vector.transfer_write %[[ACC]], %[[C]][%[[M]], %[[N]]]
// CHECK: %[[SUM:.+]] = arith.addf %[[ACC]], %{{.+}} : vector<4x16xf32>
// CHECK: %[[T:.+]] = arith.truncf %[[SUM]] : vector<4x16xf32> to vector<4x16xbf16>
// CHECK: vector.transfer_write %[[T]], %[[D]][%[[M]], %[[N]]]
// CHECK-NOT: linalg.generic
// CHECK: return
// OFF-LABEL: func @bias_cast_out_of_place
// OFF: linalg.generic
// OFF-SAME: outs(%{{.+}} : memref<32x32xbf16>)
func.func @bias_cast_out_of_place(%a: memref<32x64xf32>, %b: memref<64x32xf32>, %bias: memref<32xf32>, %c: memref<32x32xf32>, %d: memref<32x32xbf16>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<32x32xf32>)
  linalg.matmul ins(%a, %b : memref<32x64xf32>, memref<64x32xf32>) outs(%c : memref<32x32xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : memref<32x32xf32>, memref<32xf32>) outs(%d : memref<32x32xbf16>) {
  ^bb0(%x: f32, %bv: f32, %o: bf16):
    %s = arith.addf %x, %bv : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  }
  return
}

// -----

// Out of place, but D aliases an input of the epilogue (a view of the bias
// buffer's root): not fused.
// CHECK-LABEL: func @out_aliases_input
// CHECK: linalg.generic
func.func @out_aliases_input(%a: memref<32x64xf32>, %b: memref<64x32xf32>, %c: memref<32x32xf32>, %e: memref<2x32x32xf32>) {
  %r = memref.subview %e[0, 0, 0] [1, 32, 32] [1, 1, 1] : memref<2x32x32xf32> to memref<32x32xf32, strided<[32, 1]>>
  %d = memref.subview %e[1, 0, 0] [1, 32, 32] [1, 1, 1] : memref<2x32x32xf32> to memref<32x32xf32, strided<[32, 1], offset: 1024>>
  linalg.matmul ins(%a, %b : memref<32x64xf32>, memref<64x32xf32>) outs(%c : memref<32x32xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%c, %r : memref<32x32xf32>, memref<32x32xf32, strided<[32, 1]>>) outs(%d : memref<32x32xf32, strided<[32, 1], offset: 1024>>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The out-of-place result allocated after the matmul (as bufferization
// leaves it): the allocation moves before the matmul, and the register
// tiles write it.
// CHECK-LABEL: func @output_allocated_after
// CHECK: %[[D:.+]] = memref.alloc() {alignment = 64 : i64} : memref<32x32xbf16>
// CHECK: scf.for
// CHECK: arith.truncf %{{.+}} : vector<4x16xf32> to vector<4x16xbf16>
// CHECK: vector.transfer_write %{{.+}}, %[[D]]
// CHECK-NOT: linalg.generic
// CHECK: return %[[D]]
func.func @output_allocated_after(%a: memref<32x64xf32>, %b: memref<64x32xf32>, %c: memref<32x32xf32>) -> memref<32x32xbf16> {
  linalg.matmul ins(%a, %b : memref<32x64xf32>, memref<64x32xf32>) outs(%c : memref<32x32xf32>)
  %d = memref.alloc() {alignment = 64 : i64} : memref<32x32xbf16>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<32x32xf32>) outs(%d : memref<32x32xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  }
  return %d : memref<32x32xbf16>
}

// -----

// C a temporary that nothing reads after the out-of-place epilogue (a
// frontend's Linear in bf16): the last K block's register tiles write only
// the bf16 result; the first K block still stores C for the second.
// CHECK-LABEL: func @temporary_c
// CHECK: %[[C:.+]] = memref.alloc() {alignment = 64 : i64} : memref<32x32xf32>
// CHECK: %[[FIRST:.+]] = scf.for {{.*}} -> (vector<4x16xf32>)
// CHECK: vector.transfer_write %[[FIRST]], %[[C]]
// CHECK: %[[ACC:.+]] = scf.for {{.*}} -> (vector<4x16xf32>)
// CHECK-NOT: vector.transfer_write %{{.+}}, %[[C]]
// CHECK: arith.truncf %[[ACC]] : vector<4x16xf32> to vector<4x16xbf16>
// CHECK: vector.transfer_write
// CHECK-NOT: vector.transfer_write %{{.+}}, %[[C]]
// CHECK: return
func.func @temporary_c(%a: memref<32x64xf32>, %b: memref<64x32xf32>, %d: memref<32x32xbf16>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() {alignment = 64 : i64} : memref<32x32xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<32x32xf32>)
  linalg.matmul ins(%a, %b : memref<32x64xf32>, memref<64x32xf32>) outs(%c : memref<32x32xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<32x32xf32>) outs(%d : memref<32x32xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  }
  memref.dealloc %c : memref<32x32xf32>
  return
}

// -----

// Out of place with a boolean mask (an attention's masked logits): an i1
// buffer is a byte per element, but a vector of i1 loads as packed bits,
// so the generic stays a separate (scalar) pass.
// CHECK-LABEL: func @i1_mask_stays
// CHECK: linalg.generic {{.+}} ins(%{{.+}}, %{{.+}} : memref<32x32xf32>, memref<32x32xi1>)
func.func @i1_mask_stays(%a: memref<32x64xf32>, %b: memref<64x32xf32>, %c: memref<32x32xf32>, %m: memref<32x32xi1>, %d: memref<32x32xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  linalg.matmul ins(%a, %b : memref<32x64xf32>, memref<64x32xf32>) outs(%c : memref<32x32xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%c, %m : memref<32x32xf32>, memref<32x32xi1>) outs(%d : memref<32x32xf32>) {
  ^bb0(%x: f32, %k: i1, %o: f32):
    %s = arith.select %k, %x, %ninf : f32
    linalg.yield %s : f32
  }
  return
}
