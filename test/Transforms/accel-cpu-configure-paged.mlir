// The configuration stage's choice for accel.paged_attention
// (cpu-paged-flash, tile [pages per step, splits, KV heads per task]): one
// page a step when a page holds 16 keys or more, else the pages of 16
// keys; every KV head in one task; the keys split only on several threads
// when the tasks are fewer than two a thread, never into more splits than
// steps; options and a given config outrank the model. Its mma is P · V's
// register tile [rows, columns]: 4 x 64 (16 zmm accumulators) with
// AVX-512, 2 x 32 (8 ymm) without.
// RUN: accel-opt %s -split-input-file --accel-cpu-configure="features=avx512f threads=1" | FileCheck %s --check-prefix=ONE
// RUN: accel-opt %s -split-input-file --accel-cpu-configure="features=avx512f threads=16" | FileCheck %s --check-prefix=MANY
// RUN: accel-opt %s -split-input-file --accel-cpu-configure="features=avx512f paged-pages=3 paged-splits=5 paged-heads=2" | FileCheck %s --check-prefix=OPTS
// RUN: accel-opt %s -split-input-file --accel-cpu-configure="features=avx2,fma" | FileCheck %s --check-prefix=AVX2

// ONE-LABEL:  func @decode16
// ONE:        #accel.lowering_config<kernel = "cpu-paged-flash", tile = [1, 1, 8], mma = [4, 64]>
// AVX2-LABEL: func @decode16
// AVX2:       #accel.lowering_config<kernel = "cpu-paged-flash", tile = [1, 1, 8], mma = [2, 32]>
// 16 threads, one task of all 8 KV heads a split: 32 splits.
// MANY-LABEL: func @decode16
// MANY:       #accel.lowering_config<kernel = "cpu-paged-flash", tile = [1, 32, 8], mma = [4, 64]>
// OPTS-LABEL: func @decode16
// OPTS:       #accel.lowering_config<kernel = "cpu-paged-flash", tile = [3, 5, 2], mma = [4, 64]>
func.func @decode16(%q: tensor<1x32x1x128xbf16>, %kc: tensor<?x16x8x128xbf16>, %vc: tensor<?x16x8x128xbf16>, %bt: tensor<1x64xi32>, %len: tensor<1xi32>, %o: tensor<1x32x1x128xf32>) -> tensor<1x32x1x128xf32> {
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<1x32x1x128xbf16>, tensor<?x16x8x128xbf16>, tensor<?x16x8x128xbf16>) block_table(%bt : tensor<1x64xi32>) kv_lengths(%len : tensor<1xi32>) outs(%o : tensor<1x32x1x128xf32>) -> tensor<1x32x1x128xf32>
  return %r : tensor<1x32x1x128xf32>
}

// -----

// Pages of 5 tokens: 4 a step (20 keys); 3 steps bound the splits.
// ONE-LABEL:  func @small_pages
// ONE:        tile = [4, 1, 1]
// MANY-LABEL: func @small_pages
// MANY:       tile = [4, 3, 1]
// OPTS-LABEL: func @small_pages
// OPTS:       tile = [3, 4, 1]
func.func @small_pages(%q: tensor<1x2x1x8xf32>, %kc: tensor<40x5x1x8xf32>, %vc: tensor<40x5x1x8xf32>, %bt: tensor<1x10xi32>, %len: tensor<1xi32>, %o: tensor<1x2x1x8xf32>) -> tensor<1x2x1x8xf32> {
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<1x2x1x8xf32>, tensor<40x5x1x8xf32>, tensor<40x5x1x8xf32>) block_table(%bt : tensor<1x10xi32>) kv_lengths(%len : tensor<1xi32>) outs(%o : tensor<1x2x1x8xf32>) -> tensor<1x2x1x8xf32>
  return %r : tensor<1x2x1x8xf32>
}

// -----

// A given config keeps its tile and mma; a third entry left out is chosen.
// ONE-LABEL:  func @given
// ONE:        tile = [2, 2, 1], mma = [1, 8]>
func.func @given(%q: tensor<1x2x1x8xf32>, %kc: tensor<40x5x1x8xf32>, %vc: tensor<40x5x1x8xf32>, %bt: tensor<1x10xi32>, %len: tensor<1xi32>, %o: tensor<1x2x1x8xf32>) -> tensor<1x2x1x8xf32> {
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<1x2x1x8xf32>, tensor<40x5x1x8xf32>, tensor<40x5x1x8xf32>) block_table(%bt : tensor<1x10xi32>) kv_lengths(%len : tensor<1xi32>) outs(%o : tensor<1x2x1x8xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-paged-flash", tile = [2, 2], mma = [1, 8]>} -> tensor<1x2x1x8xf32>
  return %r : tensor<1x2x1x8xf32>
}
