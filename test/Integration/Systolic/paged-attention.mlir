// accel.paged_attention on the systolic array against the fp64 oracle:
// the lengths and the block table are run-time data (accel-run draws
// lengths in [0, N * T] and pages of the pool), read by scalar loads; a
// page's keys and values come in through its page register, the keys past
// a sequence's length are neither read nor kept. GQA heads stacked on one
// KV head, MHA, MQA, causal speculative decoding (Sq > 1), pages smaller
// than, equal to and larger than the array's strip, d > the array, f32 and
// bf16, bf16 outputs; several machines and block sizes.
//
// RUN: accel-run %s --target=systolic | FileCheck %s
// RUN: accel-run %s --target=systolic --seed=7 --systolic-pipeline-options="attention-tile-q=3 attention-tile-kv=16" | FileCheck %s
// RUN: accel-run %s --target=systolic --dist=normal --systolic-pipeline-options="rows=8 cols=16 vector-lanes=4" | FileCheck %s
// RUN: accel-run %s --target=systolic --seed=3 --systolic-pipeline-options="rows=32 cols=16 spad-kib=64 acc-kib=16" | FileCheck %s
// CHECK: accel-run: 7 of 7 functions passed

// Llama-style decode: 4 query heads a KV head, 16-token pages.
func.func @decode_gqa(%q: tensor<2x8x1x32xbf16>, %kc: tensor<12x16x2x32xbf16>, %vc: tensor<12x16x2x32xbf16>, %bt: tensor<2x5xi32>, %len: tensor<2xi32>) -> tensor<2x8x1x32xf32> {
  %o = tensor.empty() : tensor<2x8x1x32xf32>
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<2x8x1x32xbf16>, tensor<12x16x2x32xbf16>, tensor<12x16x2x32xbf16>) block_table(%bt : tensor<2x5xi32>) kv_lengths(%len : tensor<2xi32>) outs(%o : tensor<2x8x1x32xf32>) -> tensor<2x8x1x32xf32>
  return %r : tensor<2x8x1x32xf32>
}

// Pages of 4 tokens (strips of 4 keys), f32, Dv != D, a scale.
func.func @small_pages(%q: tensor<3x4x1x16xf32>, %kc: tensor<9x4x1x16xf32>, %vc: tensor<9x4x1x24xf32>, %bt: tensor<3x7xi32>, %len: tensor<3xi32>) -> tensor<3x4x1x24xf32> {
  %o = tensor.empty() : tensor<3x4x1x24xf32>
  %r = accel.paged_attention scale(0.7) ins(%q, %kc, %vc : tensor<3x4x1x16xf32>, tensor<9x4x1x16xf32>, tensor<9x4x1x24xf32>) block_table(%bt : tensor<3x7xi32>) kv_lengths(%len : tensor<3xi32>) outs(%o : tensor<3x4x1x24xf32>) -> tensor<3x4x1x24xf32>
  return %r : tensor<3x4x1x24xf32>
}

// Speculative decoding: 3 causal queries a head, 2 heads a KV head, bf16
// out; 24-token pages (strips of 8 keys on 16-wide arrays).
func.func @causal_spec(%q: tensor<2x4x3x32xbf16>, %kc: tensor<7x24x2x32xbf16>, %vc: tensor<7x24x2x32xbf16>, %bt: tensor<2x3xi32>, %len: tensor<2xi32>) -> tensor<2x4x3x32xbf16> {
  %o = tensor.empty() : tensor<2x4x3x32xbf16>
  %r = accel.paged_attention causal ins(%q, %kc, %vc : tensor<2x4x3x32xbf16>, tensor<7x24x2x32xbf16>, tensor<7x24x2x32xbf16>) block_table(%bt : tensor<2x3xi32>) kv_lengths(%len : tensor<2xi32>) outs(%o : tensor<2x4x3x32xbf16>) -> tensor<2x4x3x32xbf16>
  return %r : tensor<2x4x3x32xbf16>
}

// MHA with 32-token pages and d = 40 (three strips of d on 16 rows).
func.func @mha(%q: tensor<2x3x2x40xf32>, %kc: tensor<5x32x3x40xf32>, %vc: tensor<5x32x3x40xf32>, %bt: tensor<2x3xi32>, %len: tensor<2xi32>) -> tensor<2x3x2x40xf32> {
  %o = tensor.empty() : tensor<2x3x2x40xf32>
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<2x3x2x40xf32>, tensor<5x32x3x40xf32>, tensor<5x32x3x40xf32>) block_table(%bt : tensor<2x3xi32>) kv_lengths(%len : tensor<2xi32>) outs(%o : tensor<2x3x2x40xf32>) -> tensor<2x3x2x40xf32>
  return %r : tensor<2x3x2x40xf32>
}

// MQA: 6 heads on one KV head, 5 causal queries each, d 128.
func.func @mqa_causal(%q: tensor<1x6x5x128xbf16>, %kc: tensor<6x16x1x128xbf16>, %vc: tensor<6x16x1x128xbf16>, %bt: tensor<1x4xi32>, %len: tensor<1xi32>) -> tensor<1x6x5x128xf32> {
  %o = tensor.empty() : tensor<1x6x5x128xf32>
  %r = accel.paged_attention causal ins(%q, %kc, %vc : tensor<1x6x5x128xbf16>, tensor<6x16x1x128xbf16>, tensor<6x16x1x128xbf16>) block_table(%bt : tensor<1x4xi32>) kv_lengths(%len : tensor<1xi32>) outs(%o : tensor<1x6x5x128xf32>) -> tensor<1x6x5x128xf32>
  return %r : tensor<1x6x5x128xf32>
}

// More pages a sequence than page registers (14): 40 pages of 2 tokens
// (a register is loaded ahead only once its last page was read).
func.func @many_pages(%q: tensor<4x2x1x16xf32>, %kc: tensor<50x2x1x16xf32>, %vc: tensor<50x2x1x16xf32>, %bt: tensor<4x40xi32>, %len: tensor<4xi32>) -> tensor<4x2x1x16xf32> {
  %o = tensor.empty() : tensor<4x2x1x16xf32>
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<4x2x1x16xf32>, tensor<50x2x1x16xf32>, tensor<50x2x1x16xf32>) block_table(%bt : tensor<4x40xi32>) kv_lengths(%len : tensor<4xi32>) outs(%o : tensor<4x2x1x16xf32>) -> tensor<4x2x1x16xf32>
  return %r : tensor<4x2x1x16xf32>
}

// Q and O through a transpose (heads not stacked: one query head at a
// time) next to a matmul that produces the queries.
func.func @projected(%x: tensor<4x32xf32>, %w: tensor<32x64xf32>, %kc: tensor<6x16x2x32xf32>, %vc: tensor<6x16x2x32xf32>, %bt: tensor<1x3xi32>, %len: tensor<1xi32>) -> tensor<1x2x4x32xf32> {
  %c = tensor.empty() : tensor<4x64xf32>
  %p = accel.matmul ins(%x, %w : tensor<4x32xf32>, tensor<32x64xf32>) outs(%c : tensor<4x64xf32>) -> tensor<4x64xf32>
  %e = tensor.expand_shape %p [[0, 1], [2, 3]] output_shape [1, 4, 2, 32] : tensor<4x64xf32> into tensor<1x4x2x32xf32>
  %t = tensor.empty() : tensor<1x2x4x32xf32>
  %qh = linalg.transpose ins(%e : tensor<1x4x2x32xf32>) outs(%t : tensor<1x2x4x32xf32>) permutation = [0, 2, 1, 3]
  %o = tensor.empty() : tensor<1x2x4x32xf32>
  %r = accel.paged_attention causal ins(%qh, %kc, %vc : tensor<1x2x4x32xf32>, tensor<6x16x2x32xf32>, tensor<6x16x2x32xf32>) block_table(%bt : tensor<1x3xi32>) kv_lengths(%len : tensor<1xi32>) outs(%o : tensor<1x2x4x32xf32>) -> tensor<1x2x4x32xf32>
  return %r : tensor<1x2x4x32xf32>
}
