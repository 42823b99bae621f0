// RUN: accel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(accel-cpu-amx-kernels{features=amx-tile,amx-bf16,amx-int8}))' | FileCheck %s
// The AVX512-BF16 and VNNI dot kernels (no AMX) pack B from [N, K] the
// same way (int8's column sums come from the packed panels).
// RUN: accel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(accel-cpu-dot-kernels{features=avx512f,avx512bf16,avx512vnni}))' | FileCheck %s --check-prefix=DOT
// B made by a linalg.transpose of a buffer stored [N, K] (what
// accel-cpu-transpose-rhs makes of a linear layer's weight): the AMX
// kernel packs from that buffer and the transpose and its copy go. A group
// of a column (2 bf16, 4 i8) is one 32-bit word of the weight's row, so per
// 16 columns and 16 groups: 16 row loads of 64 bytes, a 16 x 16 transpose
// of words lowered to shuffles (Shuffle16x16: unpacks, then lane permutes),
// 16 panels stored; groups and columns past the last whole 16 one by one
// (memref.load of the weight at [column, k]). A transpose whose input may
// change before the GEMM stays.

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

// K 100 (50 groups: 48 in blocks, 2 one by one), N 40 (32 and 8).
// CHECK-LABEL: func @linear_bf16
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<24x100xbf16>, %[[W:[a-z0-9_]+]]: memref<40x100xbf16>, %[[C:[a-z0-9_]+]]: memref<24x40xf32>)
// CHECK-NOT: linalg.transpose
// CHECK-NOT: memref.alloc() {{.*}} : memref<100x40xbf16>
// CHECK: %[[BP:[a-z0-9_]+]] = memref.alloc() {alignment = 64 : i64} : memref<3x64x32xbf16>
// CHECK: scf.for %{{.+}} = %c0{{.*}} to %c3 step %c1{{.*}} {
// CHECK: scf.for %{{.+}} = %c0{{.*}} to %c32{{.*}} step %c16{{.*}} {
// CHECK-COUNT-16: vector.load %[[W]][%{{.+}}, %{{.+}}] : memref<40x100xbf16>, vector<32xbf16>
// CHECK: vector.shuffle {{.*}} [0, 16, 1, 17, 4, 20, 5, 21, 8, 24, 9, 25, 12, 28, 13, 29] : vector<16xi32>, vector<16xi32>
// CHECK-NOT: vector.transpose
// CHECK-COUNT-16: vector.store %{{.+}}, %[[BP]][%{{.+}}, %{{.+}}, %{{.+}}] : memref<3x64x32xbf16>, vector<32xbf16>
// CHECK: memref.load %[[W]][%{{.+}}, %{{.+}}] : memref<40x100xbf16>
// CHECK: amx.tile_mulf
// DOT-LABEL: func @linear_bf16
// DOT-NOT: linalg.transpose
// DOT: vector.load %arg1[%{{.+}}, %{{.+}}] : memref<40x100xbf16>, vector<32xbf16>
// DOT: vector.shuffle {{.*}} : vector<16xi32>, vector<16xi32>
// DOT: x86vector.avx512.dot
// DOT-NOT: linalg.transpose
func.func @linear_bf16(%a: memref<24x100xbf16>, %w: memref<40x100xbf16>, %c: memref<24x40xf32>) {
  %t = memref.alloc() : memref<100x40xbf16>
  linalg.transpose ins(%w : memref<40x100xbf16>) outs(%t : memref<100x40xbf16>) permutation = [1, 0]
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %t : memref<24x100xbf16>, memref<100x40xbf16>) outs(%c : memref<24x40xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

// One M block, K a multiple of 32 and N of 16: B packed piece by piece in
// the loops, each piece from rows of the weight (a subview [columns, k]).
// CHECK-LABEL: func @linear_bf16_in_loop
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<8x256xbf16>, %[[W:[a-z0-9_]+]]: memref<48x256xbf16>,
// CHECK-NOT: linalg.transpose
// CHECK: %[[PIECE:[a-z0-9_]+]] = memref.subview %[[W]][%{{.+}}, %{{.+}}] [32, 256] [1, 1] : memref<48x256xbf16> to memref<32x256xbf16, strided<[256, 1], offset: ?>>
// CHECK: vector.load %[[PIECE]]
// CHECK: amx.tile_mulf
func.func @linear_bf16_in_loop(%a: memref<8x256xbf16>, %w: memref<48x256xbf16>, %c: memref<8x48xf32>) {
  %t = memref.alloc() : memref<256x48xbf16>
  linalg.transpose ins(%w : memref<48x256xbf16>) outs(%t : memref<256x48xbf16>) permutation = [1, 0]
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %t : memref<8x256xbf16>, memref<256x48xbf16>) outs(%c : memref<8x48xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

// int8: four k values a word (vector<64xi8> rows).
// CHECK-LABEL: func @linear_i8
// CHECK-NOT: linalg.transpose
// CHECK: vector.load %{{.+}}[%{{.+}}, %{{.+}}] : memref<32x128xi8{{.*}}>, vector<64xi8>
// CHECK: amx.tile_muli
// DOT-LABEL: func @linear_i8
// DOT-NOT: linalg.transpose
// DOT: vector.load %arg1[%{{.+}}, %{{.+}}] : memref<32x128xi8>, vector<64xi8>
// DOT: accel.x86_dot_u8s8
func.func @linear_i8(%a: memref<16x128xi8>, %w: memref<32x128xi8>, %c: memref<16x32xi32>) {
  %t = memref.alloc() : memref<128x32xi8>
  linalg.transpose ins(%w : memref<32x128xi8>) outs(%t : memref<128x32xi8>) permutation = [1, 0]
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %t : memref<16x128xi8>, memref<128x32xi8>) outs(%c : memref<16x32xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xi = arith.extsi %x : i8 to i32
    %yi = arith.extsi %y : i8 to i32
    %p = arith.muli %xi, %yi : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}

// -----

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

// The weight is written between the transpose and the GEMM: the GEMM must
// read the copy, which stays.
// CHECK-LABEL: func @written_between
// CHECK: linalg.transpose
// DOT-LABEL: func @written_between
// DOT: linalg.transpose
// CHECK: linalg.fill {{.*}} outs(%arg1 : memref<32x64xbf16>)
// CHECK: amx.tile_mulf
func.func @written_between(%a: memref<16x64xbf16>, %w: memref<32x64xbf16>, %c: memref<16x32xf32>) {
  %t = memref.alloc() : memref<64x32xbf16>
  linalg.transpose ins(%w : memref<32x64xbf16>) outs(%t : memref<64x32xbf16>) permutation = [1, 0]
  %zero = arith.constant 0.0 : bf16
  linalg.fill ins(%zero : bf16) outs(%w : memref<32x64xbf16>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %t : memref<16x64xbf16>, memref<64x32xbf16>) outs(%c : memref<16x32xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

// The weight is an allocation the function filled, then zeroed after the
// transpose: the GEMM must read the copy (the fill writes the transpose's
// input, whatever the buffer).
// CHECK-LABEL: func @allocated_weight_written_between
// CHECK: linalg.transpose
// CHECK: amx.tile_mulf
func.func @allocated_weight_written_between(%a: memref<16x64xbf16>, %w0: memref<32x64xbf16>, %c: memref<16x32xf32>) {
  %w = memref.alloc() : memref<32x64xbf16>
  memref.copy %w0, %w : memref<32x64xbf16> to memref<32x64xbf16>
  %t = memref.alloc() : memref<64x32xbf16>
  linalg.transpose ins(%w : memref<32x64xbf16>) outs(%t : memref<64x32xbf16>) permutation = [1, 0]
  %zero = arith.constant 0.0 : bf16
  %view = memref.subview %w[0, 0] [16, 64] [1, 1] : memref<32x64xbf16> to memref<16x64xbf16, strided<[64, 1]>>
  linalg.fill ins(%zero : bf16) outs(%view : memref<16x64xbf16, strided<[64, 1]>>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %t : memref<16x64xbf16>, memref<64x32xbf16>) outs(%c : memref<16x32xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
