// accel-cpu-dequant-kernels on a cpu-dequant-amx config: int4 weights with
// zero points times bf16 A on AMX tiles, W the left operand of each
// tdpbf16ps; the table kernel (the config's mma) when the zero points are
// not integers in [0, 15] or, with unknown rows, for fewer rows than the
// config's tile[0].
// RUN: accel-opt %s -split-input-file --convert-accel-to-linalg --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --canonicalize --accel-cpu-dequant-kernels --canonicalize | FileCheck %s
// RUN: accel-opt %s -split-input-file --convert-accel-to-linalg --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --canonicalize --accel-cpu-dequant-kernels=threads=2 --canonicalize | FileCheck %s --check-prefix=THREADS

// 5 rows of A, 20 weight rows (a tile of 16 and one of 4), K 1024 in
// chunks of 128 (one group each: 8 chunks, chunk 0 before the loop).
// CHECK-LABEL: func @int4_amx
// The 16 values of the table: bf16 i - 16, indexed by q - z + 16.
// CHECK-DAG: %[[TABLE:.*]] = arith.constant dense<[-1.600000e+01, -1.500000e+01, {{.*}}, 1.400000e+01, 1.500000e+01]> : vector<32xbf16>
// CHECK-DAG: %[[NIBBLES:.*]] = arith.constant dense<983055> : vector<16xi32>
// CHECK-DAG: %[[STRIDES:.*]] = arith.constant dense<[0, 16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240]> : vector<16xi32>
// CHECK-DAG: %[[BOUND:.*]] = arith.constant dense<1.329228E+36> : vector<16xf32>
// The zero points, once a call: each clamped to [0, 15], through i32 and
// back, equal to itself.
// CHECK: %[[EACH:.*]] = scf.for %{{.*}} = %c0 to %c160 step %c16 iter_args(%{{.*}}) -> (vector<16xi1>) {
// CHECK: arith.maxnumf
// CHECK: arith.minnumf
// CHECK: arith.fptosi
// CHECK: arith.sitofp
// CHECK: arith.cmpf oeq
// CHECK: %[[ZOK:.*]] = vector.reduction <and>, %[[EACH]] : vector<16xi1> into i1
// And the scales: |s| <= 2^120 (no infinity, no NaN, no product that
// overflows).
// CHECK: math.absf %{{.*}} : vector<16xf32>
// CHECK: arith.cmpf ole, %{{.*}}, %[[BOUND]] : vector<16xf32>
// CHECK: %[[SOK:.*]] = vector.reduction <and>
// CHECK: %[[ALL:.*]] = arith.andi %[[ZOK]], %[[SOK]] : i1
// CHECK: scf.if %[[ALL]] {
// A in pairs, [blocks of 16 rows, K / 2, 32]: 16 x 16 transposes of 32-bit
// lanes as shuffles (the first round interleaves rows 0 and 1).
// CHECK: %[[PACKED:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x512x32xbf16>
// CHECK: scf.for %{{.*}} = %c0 to %c1024 step %c32 {
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 16, 1, 17, 4, 20, 5, 21, 8, 24, 9, 25, 12, 28, 13, 29] : vector<16xi32>, vector<16xi32>
// CHECK: vector.store %{{.*}}, %[[PACKED]]
// The tile's buffers: two chunks of 4 unpacked tiles, two f32 tiles, its
// zero point offsets and scales.
// CHECK: %[[WBUF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x4x16x32xbf16>
// CHECK: %[[PART:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x16x16xf32>
// CHECK: %[[OFFSETS:.*]] = memref.alloc() {alignment = 64 : i64} : memref<16x8xi16>
// CHECK: %[[SCALES:.*]] = memref.alloc() {alignment = 64 : i64} : memref<16x8xf32>
// CHECK: arith.fptosi %{{.*}} : f32 to i32
// CHECK: arith.subi %c16_i32, %{{.*}} : i32
// CHECK: arith.trunci %{{.*}} : i32 to i16
// Chunk 0: the next tile's rows into L2, each row's bytes spread to 16-bit
// nibble pairs, plus 16 - z, looked up (vpermw), stored.
// CHECK: %[[NEXT:.*]] = memref.subview %arg1[4, 0] [16, 512] [1, 1]
// CHECK: memref.prefetch %[[NEXT]][%c0, %c0], read, locality<2>, data
// CHECK: %[[OFFSET:.*]] = vector.broadcast %{{.*}} : i16 to vector<32xi16>
// CHECK: %[[BYTES:.*]] = vector.load %{{.*}}[%c0, %c0] : memref<16x512xi8, strided<[512, 1]>>, vector<16xi8>
// CHECK: %[[WIDE:.*]] = arith.extui %[[BYTES]] : vector<16xi8> to vector<16xi32>
// CHECK: %[[UP:.*]] = arith.shli %[[WIDE]], %{{.*}} : vector<16xi32>
// CHECK: %[[BOTH:.*]] = arith.ori %[[WIDE]], %[[UP]] : vector<16xi32>
// CHECK: %[[MASKED:.*]] = arith.andi %[[BOTH]], %[[NIBBLES]] : vector<16xi32>
// CHECK: %[[HALVES:.*]] = vector.bitcast %[[MASKED]] : vector<16xi32> to vector<32xi16>
// CHECK: %[[INDEX:.*]] = arith.addi %[[HALVES]], %[[OFFSET]] : vector<32xi16>
// CHECK: %[[PAIRS:.*]] = accel.x86_permute_i16 %{{.*}}, %[[INDEX]] : vector<32xi16>, vector<32xi16>
// CHECK: %[[W:.*]] = vector.bitcast %[[PAIRS]] : vector<32xi16> to vector<32xbf16>
// CHECK: vector.store %[[W]], %[[WBUF]][%c0, %c0, %c0, %c0]
// Chunk 0's products: 4 steps into a zeroed tile, stored at once.
// CHECK: amx.tile_zero : !amx.tile<16x16xf32>
// CHECK: amx.tile_load %[[WBUF]][%c0, %c0, %c0, %c0] : memref<2x4x16x32xbf16> into !amx.tile<16x32xbf16>
// CHECK: amx.tile_load %{{.*}}[%c0, %c0, %c0] : memref<?x512x32xbf16> into !amx.tile<16x32xbf16>
// CHECK: amx.tile_mulf
// CHECK-COUNT-3: amx.tile_mulf
// CHECK: amx.tile_store %[[PART]][%c0, %c0, %c0]
// The steady state (chunks 1-7, 16 accumulators): chunk t unpacked,
// multiplied and stored, then chunk t - 1's tile times its scales added.
// CHECK: scf.for %[[T:.*]] = %c1 to %c8 step %c1 iter_args({{.*}}) -> ({{(vector<16xf32>, )+}}vector<16xf32>) {
// CHECK: %[[PREV:.*]] = arith.subi %[[T]], %c1 : index
// CHECK: accel.x86_permute_i16
// CHECK: amx.tile_mulf
// CHECK: amx.tile_store %[[PART]]
// CHECK: %[[SLOT:.*]] = arith.remui %[[PREV]], %c2 : index
// CHECK: %[[SUM:.*]] = vector.load %[[PART]][%[[SLOT]], %c0, %c0]
// CHECK: %[[SCALE:.*]] = vector.broadcast %{{.*}} : f32 to vector<16xf32>
// CHECK: vector.fma %[[SUM]], %[[SCALE]], %{{.*}} : vector<16xf32>
// CHECK: scf.yield
// C-transposed accumulators to C: a gather of 16 per row of A.
// CHECK: scf.for %[[M:.*]] = %c0 to %c5 step %c1 {
// CHECK: %[[COL:.*]] = vector.gather %[[PART]][%c0, %c0, %[[M]]] [%[[STRIDES]]]
// CHECK: vector.store %[[COL]], %arg4[%[[M]], %c0] : memref<5x20xf32>, vector<16xf32>
// The last 4 weight rows: a tile of 4 valid rows, stored under a mask.
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<4x8xi16>
// CHECK: vector.maskedstore %arg4[%{{.*}}, %c16]
// CHECK: } else {
// CHECK: accel.x86_permute_f32
// CHECK-NOT: linalg.generic
// CHECK: return
// THREADS-LABEL: func @int4_amx
// THREADS: scf.if
// THREADS-NOT: scf.forall
// THREADS: amx.tile_mulf
// THREADS: } else {
func.func @int4_amx(%x: tensor<5x1024xbf16>, %w: tensor<20x512xi8>, %s: tensor<20x8xbf16>,
                    %z: tensor<20x8xbf16>, %c: tensor<5x20xf32>) -> tensor<5x20xf32> {
  %0 = accel.dequant_matmul bits(4) group(128) unsigned
         ins(%x, %w : tensor<5x1024xbf16>, tensor<20x512xi8>)
         scales(%s : tensor<20x8xbf16>) zero_points(%z : tensor<20x8xbf16>)
         outs(%c : tensor<5x20xf32>)
         {accel.lowering_config = #accel.lowering_config<kernel = "cpu-dequant-amx", tile = [3, 16], mma = [4, 4, 32]>}
         -> tensor<5x20xf32>
  return %0 : tensor<5x20xf32>
}

// -----

// Unknown rows, signed weights without zero points (only the scales to
// check), 64
// weight rows: with threads, the 4 tiles in 2 tasks; the rows decide.
// CHECK-LABEL: func @dynamic_rows
// CHECK-DAG: %[[TABLE:.*]] = arith.constant dense<[0.000000e+00, 1.000000e+00, {{.*}}, 7.000000e+00, -8.000000e+00, {{.*}}, -1.000000e+00, 0.000000e+00, {{.*}}, -1.000000e+00]> : vector<32xbf16>
// CHECK: %[[ROWS:.*]] = memref.dim %arg0, %c0
// CHECK: %[[ENOUGH:.*]] = arith.cmpi uge, %[[ROWS]], %c3 : index
// The scales are read only when the rows ask for the tiles.
// CHECK: %[[OK:.*]] = scf.if %[[ENOUGH]] -> (i1) {
// CHECK: math.absf
// CHECK: } else {
// CHECK: scf.yield %false : i1
// CHECK: scf.if %[[OK]] {
// CHECK: %[[BLOCKS:.*]] = arith.divui
// CHECK: memref.alloc(%[[BLOCKS]]) {alignment = 64 : i64} : memref<?x128x32xbf16>
// CHECK-NOT: arith.addi %{{.*}} : vector<32xi16>
// CHECK: accel.x86_permute_i16
// CHECK: amx.tile_mulf
// CHECK: } else {
// CHECK: accel.x86_permute_f32
// THREADS-LABEL: func @dynamic_rows
// THREADS: scf.forall (%{{.*}}) in (2) {
// THREADS: amx.tile_mulf
func.func @dynamic_rows(%x: tensor<?x256xbf16>, %w: tensor<64x128xi8>, %s: tensor<64x2xbf16>,
                        %c: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %0 = accel.dequant_matmul bits(4) group(128)
         ins(%x, %w : tensor<?x256xbf16>, tensor<64x128xi8>)
         scales(%s : tensor<64x2xbf16>) outs(%c : tensor<?x64xf32>)
         {accel.lowering_config = #accel.lowering_config<kernel = "cpu-dequant-amx", tile = [3, 16], mma = [1, 8, 32]>}
         -> tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}

// -----

// int8 with zero points (one tile of 16 weight rows, so its prefetches ask
// for its own rows): the zero points checked against [0, 255]; per row and
// chunk two 64-byte lines asked for; each 32 bytes zero-extended,
// converted, less z (f32, per row and group), rounded to bf16 (exact), into
// the tile; the converting kernel behind the check.
// CHECK-LABEL: func @int8_amx
// CHECK-DAG: %[[MAX:.*]] = arith.constant dense<2.550000e+02> : vector<16xf32>
// CHECK: arith.minnumf %{{.*}}, %[[MAX]] : vector<16xf32>
// CHECK: scf.if
// CHECK: %[[ZF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<16x4xf32>
// CHECK: memref.prefetch %arg1[%c0, %c0], read, locality<2>, data : memref<16x512xi8>
// CHECK: memref.prefetch %arg1[%c0, %c64], read, locality<2>, data : memref<16x512xi8>
// CHECK: %[[Z:.*]] = vector.broadcast %{{.*}} : f32 to vector<32xf32>
// CHECK: %[[Q:.*]] = vector.load %{{.*}} : memref<16x512xi8{{.*}}>, vector<32xi8>
// CHECK: %[[WIDE:.*]] = arith.extui %[[Q]] : vector<32xi8> to vector<32xi32>
// CHECK: %[[F:.*]] = arith.uitofp %[[WIDE]] : vector<32xi32> to vector<32xf32>
// CHECK: %[[D:.*]] = arith.subf %[[F]], %[[Z]] : vector<32xf32>
// CHECK: %[[B:.*]] = arith.truncf %[[D]] : vector<32xf32> to vector<32xbf16>
// CHECK: vector.store %[[B]]
// CHECK: amx.tile_mulf
// CHECK: } else {
// CHECK-NOT: accel.x86_permute
// CHECK: arith.uitofp %{{.*}} : vector<16xi8> to vector<16xf32>
// CHECK: return
func.func @int8_amx(%x: tensor<4x512xbf16>, %w: tensor<16x512xi8>, %s: tensor<16x4xbf16>,
                    %z: tensor<16x4xbf16>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = accel.dequant_matmul bits(8) group(128) unsigned
         ins(%x, %w : tensor<4x512xbf16>, tensor<16x512xi8>)
         scales(%s : tensor<16x4xbf16>) zero_points(%z : tensor<16x4xbf16>)
         outs(%c : tensor<4x16xf32>)
         {accel.lowering_config = #accel.lowering_config<kernel = "cpu-dequant-amx", tile = [3, 16], mma = [4, 4, 32]>}
         -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
