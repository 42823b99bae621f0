// RUN: accel-opt %s --convert-accel-to-systolic --split-input-file | FileCheck %s

// accel.paged_attention on the array (docs/systolic.md, "Paged
// attention"): the sequence's length into register 0 (the machine stops
// unless it is in [0, N * T]); per KV head, its query heads stacked into
// one block of rows (2 heads x 1 query: m 2); each page's table entry
// into a page register just before the page's first load, no range
// check (entries past the length are never used); the page's Kᵀ and V
// through that register (page stride T * Hkv * D = 1024), their lines
// from the strip's first key cut at the length; the scores past the
// length masked (mask_keys: key j of the strip at key0 is dropped when
// j > length - 1 - key0).

// CHECK-LABEL: systolic.program @decode
// CHECK:      systolic.sload 4[0] range 0 to 48 -> reg 0
// CHECK:      systolic.mvin 0[0] stride 32 -> spad[0] rows 2 cols 16
// CHECK:      systolic.sload 3[0] range -2147483648 to 2147483647 -> reg 2
// CHECK-NEXT: systolic.mvin 1[0] stride 64 -> spad[{{[0-9]+}}] rows 16 cols 16 transpose page reg 2 stride 1024 bound reg 0 base 0
// CHECK-NEXT: systolic.mvin 1[16] stride 64 -> spad[{{[0-9]+}}] rows 16 cols 16 transpose page reg 2 stride 1024 bound reg 0 base 0
// CHECK-NEXT: systolic.mvin 2[0] stride 64 -> spad[{{[0-9]+}}] rows 16 cols 16 page reg 2 stride 1024 bound reg 0 base 0
// CHECK-NEXT: systolic.mvin 2[16] stride 64 -> spad[{{[0-9]+}}] rows 16 cols 16 page reg 2 stride 1024 bound reg 0 base 0
// CHECK-NEXT: systolic.sload 3[1] range -2147483648 to 2147483647 -> reg 3
// CHECK-NEXT: systolic.mvin 1[0] stride 64 -> spad[{{[0-9]+}}] rows 16 cols 16 transpose page reg 3 stride 1024 bound reg 0 base 16
// CHECK:      systolic.sload 3[2] range -2147483648 to 2147483647 -> reg 4
// CHECK:      systolic.compute preloaded spad[0] m 2 k 16 n 16
// CHECK:      systolic.vector mask_keys 0, 0 rows 2 cols 16 offset -1 plus reg 0
// CHECK:      systolic.vector mask_keys 2, 2 rows 2 cols 16 offset -17 plus reg 0
// CHECK:      systolic.vector mask_keys 4, 4 rows 2 cols 16 offset -33 plus reg 0
// The second KV head: its queries (rows 2-3 of Q), the pages again.
// CHECK:      systolic.mvin 0[64] stride 32 -> spad[{{[0-9]+}}] rows 2 cols 16
// CHECK:      systolic.sload 3[0] range -2147483648 to 2147483647 -> reg 2
// CHECK-NEXT: systolic.mvin 1[32] stride 64
// CHECK-NOT:  systolic.sload 4
// CHECK:      systolic.fence
func.func @decode(%q: tensor<1x4x1x32xbf16>, %kc: tensor<6x16x2x32xbf16>, %vc: tensor<6x16x2x32xbf16>, %bt: tensor<1x3xi32>, %len: tensor<1xi32>) -> tensor<1x4x1x32xf32> {
  %o = tensor.empty() : tensor<1x4x1x32xf32>
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<1x4x1x32xbf16>, tensor<6x16x2x32xbf16>, tensor<6x16x2x32xbf16>) block_table(%bt : tensor<1x3xi32>) kv_lengths(%len : tensor<1xi32>) outs(%o : tensor<1x4x1x32xf32>) -> tensor<1x4x1x32xf32>
  return %r : tensor<1x4x1x32xf32>
}

// -----

// Causal queries (3 a head, 2 heads a KV head: rows 0-2 and 3-5): query i
// of a head keeps keys j <= length - 3 + i, a mask_causal per head's rows
// (offset i - Sq - key0 plus the length). 8-token pages on a 16-wide
// array: strips of 8 keys, one page each; two sequences alternate their
// length registers.

// CHECK-LABEL: systolic.program @spec
// CHECK:      systolic.sload 4[0] range 0 to 16 -> reg 0
// CHECK:      systolic.mvin 1[0] stride 32 -> spad[{{[0-9]+}}] rows 16 cols 8 transpose page reg 2 stride 256 bound reg 0 base 0
// CHECK-NEXT: systolic.mvin 2[0] stride 32 -> spad[{{[0-9]+}}] rows 8 cols 16 page reg 2 stride 256 bound reg 0 base 0
// CHECK:      systolic.mvin 1[0] stride 32 -> spad[{{[0-9]+}}] rows 16 cols 8 transpose page reg 3 stride 256 bound reg 0 base 8
// CHECK:      systolic.vector mask_causal 0, 0 rows 3 cols 8 offset -3 plus reg 0
// CHECK-NEXT: systolic.vector mask_causal 3, 3 rows 3 cols 8 offset -3 plus reg 0
// CHECK:      systolic.vector mask_causal 6, 6 rows 3 cols 8 offset -11 plus reg 0
// CHECK-NEXT: systolic.vector mask_causal 9, 9 rows 3 cols 8 offset -11 plus reg 0
// CHECK-NOT:  mask_keys
// CHECK:      systolic.sload 4[1] range 0 to 16 -> reg 1
// CHECK:      mask_causal {{.*}} plus reg 1
func.func @spec(%q: tensor<2x4x3x16xf32>, %kc: tensor<4x8x2x16xf32>, %vc: tensor<4x8x2x16xf32>, %bt: tensor<2x2xi32>, %len: tensor<2xi32>) -> tensor<2x4x3x16xf32> {
  %o = tensor.empty() : tensor<2x4x3x16xf32>
  %r = accel.paged_attention causal ins(%q, %kc, %vc : tensor<2x4x3x16xf32>, tensor<4x8x2x16xf32>, tensor<4x8x2x16xf32>) block_table(%bt : tensor<2x2xi32>) kv_lengths(%len : tensor<2xi32>) outs(%o : tensor<2x4x3x16xf32>) -> tensor<2x4x3x16xf32>
  return %r : tensor<2x4x3x16xf32>
}

// -----

// Two key blocks of 64 (8 pages of 16): the second block's loads and
// scores, and its softmax and P.V, are each a run skipped when the length
// is at most 64; its page registers are loaded ahead, after the first
// block's loads.

// CHECK-LABEL: systolic.program @long
// CHECK:      systolic.sload 3[3] range -2147483648 to 2147483647 -> reg 5
// CHECK-NEXT: systolic.mvin 1[0] stride 16 -> spad[{{[0-9]+}}] rows 16 cols 16 transpose page reg 5 stride 256 bound reg 0 base 48
// CHECK-NEXT: systolic.mvin 2[0] stride 16
// CHECK-NEXT: systolic.sload 3[4] range -2147483648 to 2147483647 -> reg 6
// CHECK-NEXT: systolic.sload 3[5]
// CHECK-NEXT: systolic.sload 3[6]
// CHECK-NEXT: systolic.sload 3[7] range -2147483648 to 2147483647 -> reg 9
// CHECK:      systolic.skip 16 if reg 0 le 64
// CHECK-NEXT: systolic.mvin 1[0] stride 16 -> spad[{{[0-9]+}}] rows 16 cols 16 transpose page reg 6 stride 256 bound reg 0 base 64
// CHECK:      systolic.skip 41 if reg 0 le 64
// CHECK:      systolic.vector mask_keys 4, 4 rows 1 cols 16 offset -65 plus reg 0
func.func @long(%q: tensor<1x1x1x16xf32>, %kc: tensor<8x16x1x16xf32>, %vc: tensor<8x16x1x16xf32>, %bt: tensor<1x8xi32>, %len: tensor<1xi32>) -> tensor<1x1x1x16xf32> {
  %o = tensor.empty() : tensor<1x1x1x16xf32>
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<1x1x1x16xf32>, tensor<8x16x1x16xf32>, tensor<8x16x1x16xf32>) block_table(%bt : tensor<1x8xi32>) kv_lengths(%len : tensor<1xi32>) outs(%o : tensor<1x1x1x16xf32>) -> tensor<1x1x1x16xf32>
  return %r : tensor<1x1x1x16xf32>
}

// -----

// accel.attention with kv_lengths: the same registers without pages. The
// length, unchecked (any i32 is valid); K's and V's moves bounded by it;
// mask_keys and the causal band offset by it (diagonal - Skv = -2); the
// key block past 64 skipped.

// CHECK-LABEL: systolic.program @padded
// CHECK:      systolic.sload 3[0] range -2147483648 to 2147483647 -> reg 0
// CHECK:      systolic.mvin 1[0] stride 16 -> spad[{{[0-9]+}}] rows 16 cols 16 transpose bound reg 0 base 0
// CHECK-NEXT: systolic.mvin 1[256] stride 16 -> spad[{{[0-9]+}}] rows 16 cols 16 transpose bound reg 0 base 16
// CHECK:      systolic.mvin 2[0] stride 16 -> spad[{{[0-9]+}}] rows 64 cols 16 bound reg 0 base 0
// CHECK:      systolic.skip 4 if reg 0 le 64
// CHECK-NEXT: systolic.mvin 1[1024] stride 16 -> spad[{{[0-9]+}}] rows 16 cols 16 transpose bound reg 0 base 64
// CHECK:      systolic.vector mask_keys 0, 0 rows 2 cols 16 offset -1 plus reg 0
// CHECK-NEXT: systolic.vector mask_causal 0, 0 rows 2 cols 16 offset -2 plus reg 0
// CHECK:      systolic.skip 15 if reg 0 le 64
func.func @padded(%q: tensor<1x1x2x16xf32>, %k: tensor<1x1x80x16xf32>, %v: tensor<1x1x80x16xf32>, %len: tensor<1xi32>) -> tensor<1x1x2x16xf32> {
  %o = tensor.empty() : tensor<1x1x2x16xf32>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<1x1x2x16xf32>, tensor<1x1x80x16xf32>, tensor<1x1x80x16xf32>) kv_lengths(%len : tensor<1xi32>) outs(%o : tensor<1x1x2x16xf32>) -> tensor<1x1x2x16xf32>
  return %0 : tensor<1x1x2x16xf32>
}

// -----

// Both lengths, causal, a window: off = (diagonal - Skv + Sq) + (kvlen -
// qlen) = 0 + r4, r4 = r0 - r2 (ssub). Each key block is skipped when the
// query block is past the query length (r2 <= q0), the block past the key
// length (r0 <= k0, not for block 0), past the band of the query block's
// last row (r4 <= k0 - q0 - 16), or wholly below the window for its first
// row (r6 = -off <= -(k0 + 15 - q0 + 8)); mask_rows drops the rows past
// the query length, mask_lower the keys below the window.
// (Blocks of 16 x 16 through its lowering_config.)

// CHECK-LABEL: systolic.program @lengths_window
// CHECK:      systolic.sload 3[0] range -2147483648 to 2147483647 -> reg 0
// CHECK-NEXT: systolic.sload 4[0] range -2147483648 to 2147483647 -> reg 2
// CHECK-NEXT: systolic.ssub reg 0 - reg 2 -> reg 4
// CHECK-NEXT: systolic.ssub - reg 4 -> reg 6
// CHECK:      systolic.skip 6 if reg 2 le 0
// CHECK-NEXT: systolic.skip 5 if reg 4 le -16
// CHECK-NEXT: systolic.skip 4 if reg 6 le -23
// CHECK:      systolic.skip 7 if reg 2 le 0
// CHECK-NEXT: systolic.skip 6 if reg 0 le 16
// CHECK-NEXT: systolic.skip 5 if reg 4 le 0
// CHECK-NEXT: systolic.skip 4 if reg 6 le -39
// CHECK:      systolic.vector mask_keys 0, 0 rows 16 cols 16 offset -1 plus reg 0
// CHECK-NEXT: systolic.vector mask_rows 0, 0 rows 16 cols 16 offset -1 plus reg 2
// CHECK-NEXT: systolic.vector mask_causal 0, 0 rows 16 cols 16 offset 0 plus reg 4
// CHECK-NEXT: systolic.vector mask_lower 0, 0 rows 16 cols 16 offset -8 plus reg 4
// The second sequence: the other set of registers.
// CHECK:      systolic.sload 3[1] range -2147483648 to 2147483647 -> reg 1
// CHECK-NEXT: systolic.sload 4[1] range -2147483648 to 2147483647 -> reg 3
// CHECK-NEXT: systolic.ssub reg 1 - reg 3 -> reg 5
// CHECK-NEXT: systolic.ssub - reg 5 -> reg 7
func.func @lengths_window(%q: tensor<2x1x20x16xf32>, %k: tensor<2x1x40x16xf32>, %v: tensor<2x1x40x16xf32>, %len: tensor<2xi32>, %ql: tensor<2xi32>) -> tensor<2x1x20x16xf32> {
  %o = tensor.empty() : tensor<2x1x20x16xf32>
  %0 = accel.attention causal window(8) ins(%q, %k, %v : tensor<2x1x20x16xf32>, tensor<2x1x40x16xf32>, tensor<2x1x40x16xf32>) kv_lengths(%len : tensor<2xi32>) q_lengths(%ql : tensor<2xi32>) outs(%o : tensor<2x1x20x16xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "systolic", tile = [16, 16]>} -> tensor<2x1x20x16xf32>
  return %0 : tensor<2x1x20x16xf32>
}

// -----

// accel.attention with GQA and no mask stacks a KV head's query heads in
// the rows, as paged attention does: Q of heads 0-1 (1 query each) in one
// block of 2 rows, K and V read once for both; causal masks per head's
// run of rows (Sq 3: rows 0-2 and 3-5, offset 17 - 16 for the last strip).

// CHECK-LABEL: systolic.program @gqa_decode
// CHECK:      systolic.mvin 0[0] stride 32 -> spad[0] rows 2 cols 16
// CHECK-NEXT: systolic.mvin 0[16] stride 32 -> spad[2] rows 2 cols 16
// CHECK:      systolic.compute preloaded spad[0] m 2 k 16 n 16
// CHECK:      systolic.mvout acc[{{[0-9]+}}] rows 2 cols 16 -> 3[0] stride 32
// CHECK:      systolic.mvin 0[64] stride 32 -> spad[{{[0-9]+}}] rows 2 cols 16
func.func @gqa_decode(%q: tensor<1x4x1x32xbf16>, %k: tensor<1x2x48x32xbf16>, %v: tensor<1x2x48x32xbf16>) -> tensor<1x4x1x32xf32> {
  %o = tensor.empty() : tensor<1x4x1x32xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x4x1x32xbf16>, tensor<1x2x48x32xbf16>, tensor<1x2x48x32xbf16>) outs(%o : tensor<1x4x1x32xf32>) -> tensor<1x4x1x32xf32>
  return %0 : tensor<1x4x1x32xf32>
}

// CHECK-LABEL: systolic.program @gqa_causal
// CHECK:      systolic.mvin 0[0] stride 16 -> spad[0] rows 6 cols 16
// CHECK:      systolic.vector mask_causal 6, 6 rows 3 cols 4 offset 1
// CHECK-NEXT: systolic.vector mask_causal 9, 9 rows 3 cols 4 offset 1
// CHECK:      systolic.mvout acc[{{[0-9]+}}] rows 6 cols 16 -> 3[0] stride 16
func.func @gqa_causal(%q: tensor<1x4x3x16xf32>, %k: tensor<1x2x20x16xf32>, %v: tensor<1x2x20x16xf32>) -> tensor<1x4x3x16xf32> {
  %o = tensor.empty() : tensor<1x4x3x16xf32>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<1x4x3x16xf32>, tensor<1x2x20x16xf32>, tensor<1x2x20x16xf32>) outs(%o : tensor<1x4x3x16xf32>) -> tensor<1x4x3x16xf32>
  return %0 : tensor<1x4x3x16xf32>
}

// -----

// GQA with an additive mask stacks the heads too: Q of heads 0-1 in one
// block of 6 rows, K and V read once for both; the mask (broadcast over the
// heads, 3 rows) moved per head's run of rows, with the block's K and V,
// into the block's mask slot (acc 48: after S, O, m, l and t), then added.
// CHECK-LABEL: systolic.program @gqa_mask_runs
// CHECK:      systolic.mvin 0[0] stride 16 -> spad[0] rows 6 cols 16
// CHECK:      systolic.mvin 3[0] stride 20 -> acc[48] rows 3 cols 16
// CHECK-NEXT: systolic.mvin 3[0] stride 20 -> acc[51] rows 3 cols 16
// CHECK-NEXT: systolic.mvin 3[16] stride 20 -> acc[54] rows 3 cols 4
// CHECK-NEXT: systolic.mvin 3[16] stride 20 -> acc[57] rows 3 cols 4
// CHECK-NEXT: systolic.mvin 1[0] stride 16 -> spad[{{[0-9]+}}] rows 16 cols 16 transpose
// CHECK:      systolic.vector add 0, 0, 48 rows 6 cols 16
// CHECK:      systolic.vector add 6, 6, 54 rows 6 cols 4
// CHECK:      systolic.mvin 1[320] stride 16 -> spad[{{[0-9]+}}] rows 16 cols 16 transpose
// CHECK-NEXT: systolic.mvin 1[576] stride 16 -> spad[{{[0-9]+}}] rows 16 cols 4 transpose
// CHECK-NOT:  systolic.mvin 1[
func.func @gqa_mask_runs(%q: tensor<1x4x3x16xf32>, %k: tensor<1x2x20x16xf32>, %v: tensor<1x2x20x16xf32>, %m: tensor<1x1x3x20xf32>) -> tensor<1x4x3x16xf32> {
  %o = tensor.empty() : tensor<1x4x3x16xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x4x3x16xf32>, tensor<1x2x20x16xf32>, tensor<1x2x20x16xf32>) mask(%m : tensor<1x1x3x20xf32>) outs(%o : tensor<1x4x3x16xf32>) -> tensor<1x4x3x16xf32>
  return %0 : tensor<1x4x3x16xf32>
}

// -----

// The same with a boolean mask (i1, true keeps): its argument is a buffer
// of bytes (i8), and each move reads them as the additive mask they mean
// (`unpack mask`: 0 or -inf), into the same slots; the softmax adds it.
// CHECK-LABEL: systolic.program @gqa_bool_mask_runs
// CHECK-SAME: #systolic.buffer<"arg3", arg 3, tensor<1x1x3x20xi8>>
// CHECK:      systolic.mvin 3[0] stride 20 -> acc[48] rows 3 cols 16 unpack mask
// CHECK-NEXT: systolic.mvin 3[0] stride 20 -> acc[51] rows 3 cols 16 unpack mask
// CHECK-NEXT: systolic.mvin 3[16] stride 20 -> acc[54] rows 3 cols 4 unpack mask
// CHECK-NEXT: systolic.mvin 3[16] stride 20 -> acc[57] rows 3 cols 4 unpack mask
// CHECK:      systolic.vector add 0, 0, 48 rows 6 cols 16
// CHECK:      systolic.vector add 6, 6, 54 rows 6 cols 4
func.func @gqa_bool_mask_runs(%q: tensor<1x4x3x16xf32>, %k: tensor<1x2x20x16xf32>, %v: tensor<1x2x20x16xf32>, %m: tensor<1x1x3x20xi1>) -> tensor<1x4x3x16xf32> {
  %o = tensor.empty() : tensor<1x4x3x16xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x4x3x16xf32>, tensor<1x2x20x16xf32>, tensor<1x2x20x16xf32>) mask(%m : tensor<1x1x3x20xi1>) outs(%o : tensor<1x4x3x16xf32>) -> tensor<1x4x3x16xf32>
  return %0 : tensor<1x4x3x16xf32>
}
