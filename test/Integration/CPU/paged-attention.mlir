// accel.paged_attention (decode over a paged KV cache) on the CPU against
// the fp64 oracle, which gathers each sequence's keys through its block
// table and runs the attention: accel-run draws table entries from the
// whole pool (pages shared, out of order) and lengths from [0, N * T]
// (empty sequences, partial last pages, full tables), with NaN-prefilled
// outputs. MHA, GQA (query heads packed into one tile per KV head), MQA,
// causal speculative steps (Sq = 3, 4), f32/f16/bf16 caches and outputs,
// i32 and i64 tables, pages smaller than a step (gathered) and larger;
// through flash-decoding with the configuration stage's blocks (every KV
// head in one task), one page a step, three splits and one KV head a task
// on two threads (the combine), several pages a step with one split, and
// the reference lowering (gather + attention); pages of 32 keys with a
// causal step of two queries and a D of 48 (pages_of_32). P · V runs on
// each page in the configuration stage's register tile (4 x 64 with
// AVX-512; the AVX2 run below: 2 x 32), or through a copy of V for Dv = 5.
// RUN: accel-run %s --repeat=0 | FileCheck %s
// RUN: accel-run %s --repeat=0 --seed=6 --cpu-pipeline-options='cpu-features=avx2,fma' | FileCheck %s
// RUN: accel-run %s --repeat=0 --seed=3 --dist=normal --num-threads=2 --cpu-pipeline-options='paged-pages=1 paged-splits=3 paged-heads=1' | FileCheck %s
// RUN: accel-run %s --repeat=0 --seed=4 --cpu-pipeline-options='paged-pages=3 paged-splits=1' | FileCheck %s
// RUN: accel-run %s --repeat=0 --seed=5 --cpu-pipeline-options=decompose-attention=0 | FileCheck %s

// CHECK-LABEL: @mha_f32
// CHECK: PASS
// CHECK-LABEL: @gqa_bf16
// CHECK: PASS
// CHECK-LABEL: @mqa_f16_out
// CHECK: PASS
// CHECK-LABEL: @causal_f16
// CHECK: PASS
// CHECK-LABEL: @causal_gqa_bf16
// CHECK: PASS
// CHECK-LABEL: @small_pages
// CHECK: PASS
// CHECK-LABEL: @one_page_scaled
// CHECK: PASS
// CHECK-LABEL: @odd_head_dims
// CHECK: PASS
// CHECK-LABEL: @one_token_pages
// CHECK: PASS
// CHECK-LABEL: @no_pages
// CHECK: PASS
// CHECK-LABEL: @pages_of_32
// CHECK: PASS
// CHECK: accel-run: 11 of 11 functions passed

func.func @mha_f32(%q: tensor<3x4x1x32xf32>, %kc: tensor<12x4x4x32xf32>, %vc: tensor<12x4x4x32xf32>, %bt: tensor<3x6xi32>, %len: tensor<3xi32>) -> tensor<3x4x1x32xf32> {
  %o = tensor.empty() : tensor<3x4x1x32xf32>
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<3x4x1x32xf32>, tensor<12x4x4x32xf32>, tensor<12x4x4x32xf32>) block_table(%bt : tensor<3x6xi32>) kv_lengths(%len : tensor<3xi32>) outs(%o : tensor<3x4x1x32xf32>) -> tensor<3x4x1x32xf32>
  return %r : tensor<3x4x1x32xf32>
}

func.func @gqa_bf16(%q: tensor<2x8x1x64xbf16>, %kc: tensor<9x16x2x64xbf16>, %vc: tensor<9x16x2x64xbf16>, %bt: tensor<2x5xi32>, %len: tensor<2xi32>) -> tensor<2x8x1x64xf32> {
  %o = tensor.empty() : tensor<2x8x1x64xf32>
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<2x8x1x64xbf16>, tensor<9x16x2x64xbf16>, tensor<9x16x2x64xbf16>) block_table(%bt : tensor<2x5xi32>) kv_lengths(%len : tensor<2xi32>) outs(%o : tensor<2x8x1x64xf32>) -> tensor<2x8x1x64xf32>
  return %r : tensor<2x8x1x64xf32>
}

func.func @mqa_f16_out(%q: tensor<2x6x2x16xf16>, %kc: tensor<5x8x1x16xf16>, %vc: tensor<5x8x1x8xf16>, %bt: tensor<2x7xi64>, %len: tensor<2xi64>) -> tensor<2x6x2x8xf16> {
  %o = tensor.empty() : tensor<2x6x2x8xf16>
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<2x6x2x16xf16>, tensor<5x8x1x16xf16>, tensor<5x8x1x8xf16>) block_table(%bt : tensor<2x7xi64>) kv_lengths(%len : tensor<2xi64>) outs(%o : tensor<2x6x2x8xf16>) -> tensor<2x6x2x8xf16>
  return %r : tensor<2x6x2x8xf16>
}

func.func @causal_f16(%q: tensor<2x4x3x16xf16>, %kc: tensor<6x8x2x16xf16>, %vc: tensor<6x8x2x24xf16>, %bt: tensor<2x4xi64>, %len: tensor<2xi64>) -> tensor<2x4x3x24xf16> {
  %o = tensor.empty() : tensor<2x4x3x24xf16>
  %r = accel.paged_attention causal ins(%q, %kc, %vc : tensor<2x4x3x16xf16>, tensor<6x8x2x16xf16>, tensor<6x8x2x24xf16>) block_table(%bt : tensor<2x4xi64>) kv_lengths(%len : tensor<2xi64>) outs(%o : tensor<2x4x3x24xf16>) -> tensor<2x4x3x24xf16>
  return %r : tensor<2x4x3x24xf16>
}

func.func @causal_gqa_bf16(%q: tensor<1x8x4x32xbf16>, %kc: tensor<10x16x2x32xbf16>, %vc: tensor<10x16x2x32xbf16>, %bt: tensor<1x10xi32>, %len: tensor<1xi32>) -> tensor<1x8x4x32xbf16> {
  %o = tensor.empty() : tensor<1x8x4x32xbf16>
  %r = accel.paged_attention causal ins(%q, %kc, %vc : tensor<1x8x4x32xbf16>, tensor<10x16x2x32xbf16>, tensor<10x16x2x32xbf16>) block_table(%bt : tensor<1x10xi32>) kv_lengths(%len : tensor<1xi32>) outs(%o : tensor<1x8x4x32xbf16>) -> tensor<1x8x4x32xbf16>
  return %r : tensor<1x8x4x32xbf16>
}

// Pages of 3 tokens: a step gathers six of them (16 keys or more).
func.func @small_pages(%q: tensor<2x2x1x16xf32>, %kc: tensor<20x3x2x16xf32>, %vc: tensor<20x3x2x16xf32>, %bt: tensor<2x13xi32>, %len: tensor<2xi32>) -> tensor<2x2x1x16xf32> {
  %o = tensor.empty() : tensor<2x2x1x16xf32>
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<2x2x1x16xf32>, tensor<20x3x2x16xf32>, tensor<20x3x2x16xf32>) block_table(%bt : tensor<2x13xi32>) kv_lengths(%len : tensor<2xi32>) outs(%o : tensor<2x2x1x16xf32>) -> tensor<2x2x1x16xf32>
  return %r : tensor<2x2x1x16xf32>
}

// One 64-token page a sequence, a negative scale.
func.func @one_page_scaled(%q: tensor<4x2x1x8xf32>, %kc: tensor<3x64x2x8xf32>, %vc: tensor<3x64x2x8xf32>, %bt: tensor<4x1xi32>, %len: tensor<4xi32>) -> tensor<4x2x1x8xf32> {
  %o = tensor.empty() : tensor<4x2x1x8xf32>
  %r = accel.paged_attention scale(-0.5) ins(%q, %kc, %vc : tensor<4x2x1x8xf32>, tensor<3x64x2x8xf32>, tensor<3x64x2x8xf32>) block_table(%bt : tensor<4x1xi32>) kv_lengths(%len : tensor<4xi32>) outs(%o : tensor<4x2x1x8xf32>) -> tensor<4x2x1x8xf32>
  return %r : tensor<4x2x1x8xf32>
}

// D = 17, Dv = 5 (no whole vector), causal, 3-token pages.
func.func @odd_head_dims(%q: tensor<2x4x2x17xf32>, %kc: tensor<7x3x2x17xf32>, %vc: tensor<7x3x2x5xf32>, %bt: tensor<2x4xi32>, %len: tensor<2xi32>) -> tensor<2x4x2x5xf32> {
  %o = tensor.empty() : tensor<2x4x2x5xf32>
  %r = accel.paged_attention causal ins(%q, %kc, %vc : tensor<2x4x2x17xf32>, tensor<7x3x2x17xf32>, tensor<7x3x2x5xf32>) block_table(%bt : tensor<2x4xi32>) kv_lengths(%len : tensor<2xi32>) outs(%o : tensor<2x4x2x5xf32>) -> tensor<2x4x2x5xf32>
  return %r : tensor<2x4x2x5xf32>
}
// One-token pages: 16 a step.
func.func @one_token_pages(%q: tensor<1x2x1x8xbf16>, %kc: tensor<40x1x1x8xbf16>, %vc: tensor<40x1x1x8xbf16>, %bt: tensor<1x33xi64>, %len: tensor<1xi64>) -> tensor<1x2x1x8xbf16> {
  %o = tensor.empty() : tensor<1x2x1x8xbf16>
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<1x2x1x8xbf16>, tensor<40x1x1x8xbf16>, tensor<40x1x1x8xbf16>) block_table(%bt : tensor<1x33xi64>) kv_lengths(%len : tensor<1xi64>) outs(%o : tensor<1x2x1x8xbf16>) -> tensor<1x2x1x8xbf16>
  return %r : tensor<1x2x1x8xbf16>
}
// A table of no pages: every sequence is empty (zeros).
func.func @no_pages(%q: tensor<2x2x1x8xf32>, %kc: tensor<3x4x1x8xf32>, %vc: tensor<3x4x1x8xf32>, %bt: tensor<2x0xi32>, %len: tensor<2xi32>) -> tensor<2x2x1x8xf32> {
  %o = tensor.empty() : tensor<2x2x1x8xf32>
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<2x2x1x8xf32>, tensor<3x4x1x8xf32>, tensor<3x4x1x8xf32>) block_table(%bt : tensor<2x0xi32>) kv_lengths(%len : tensor<2xi32>) outs(%o : tensor<2x2x1x8xf32>) -> tensor<2x2x1x8xf32>
  return %r : tensor<2x2x1x8xf32>
}

func.func @pages_of_32(%q: tensor<2x4x2x48xf32>, %kc: tensor<7x32x2x48xf32>, %vc: tensor<7x32x2x16xf32>, %bt: tensor<2x3xi32>, %len: tensor<2xi32>) -> tensor<2x4x2x16xf32> {
  %o = tensor.empty() : tensor<2x4x2x16xf32>
  %r = accel.paged_attention causal ins(%q, %kc, %vc : tensor<2x4x2x48xf32>, tensor<7x32x2x48xf32>, tensor<7x32x2x16xf32>) block_table(%bt : tensor<2x3xi32>) kv_lengths(%len : tensor<2xi32>) outs(%o : tensor<2x4x2x16xf32>) -> tensor<2x4x2x16xf32>
  return %r : tensor<2x4x2x16xf32>
}
