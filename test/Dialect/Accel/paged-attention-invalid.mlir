// RUN: accel-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of accel.paged_attention. Each says why the
// rule exists.

// Q needs its four dimensions [B, Hq, Sq, D].
func.func @rank(%q: tensor<2x4x8xf32>, %kc: tensor<3x4x2x8xf32>, %vc: tensor<3x4x2x8xf32>, %o: tensor<2x4x1x8xf32>, %bt: tensor<2x3xi32>, %len: tensor<2xi32>) -> tensor<2x4x1x8xf32> {
  // expected-error @+1 {{expected Q [B, Hq, Sq, D], key and value pools [P, T, Hkv, D] and O of rank 4, got ranks 3, 4, 4 and 4}}
  %0 = accel.paged_attention
         ins(%q, %kc, %vc : tensor<2x4x8xf32>, tensor<3x4x2x8xf32>, tensor<3x4x2x8xf32>)
         block_table(%bt : tensor<2x3xi32>) kv_lengths(%len : tensor<2xi32>)
         outs(%o : tensor<2x4x1x8xf32>) -> tensor<2x4x1x8xf32>
  return %0 : tensor<2x4x1x8xf32>
}

// -----

// The page size lays out the kernels' key tiles.
func.func @dynamic_page(%q: tensor<2x4x1x8xf32>, %kc: tensor<3x?x2x8xf32>, %vc: tensor<3x4x2x8xf32>, %o: tensor<2x4x1x8xf32>, %bt: tensor<2x3xi32>, %len: tensor<2xi32>) -> tensor<2x4x1x8xf32> {
  // expected-error @+1 {{the page size T (key pool dimension #1) must be static (only B and the pool's page count P may be dynamic)}}
  %0 = accel.paged_attention
         ins(%q, %kc, %vc : tensor<2x4x1x8xf32>, tensor<3x?x2x8xf32>, tensor<3x4x2x8xf32>)
         block_table(%bt : tensor<2x3xi32>) kv_lengths(%len : tensor<2xi32>)
         outs(%o : tensor<2x4x1x8xf32>) -> tensor<2x4x1x8xf32>
  return %0 : tensor<2x4x1x8xf32>
}

// -----

// Query heads are packed by KV head at compile time.
func.func @dynamic_heads(%q: tensor<2x?x1x8xf32>, %kc: tensor<3x4x2x8xf32>, %vc: tensor<3x4x2x8xf32>, %o: tensor<2x?x1x8xf32>, %bt: tensor<2x3xi32>, %len: tensor<2xi32>) -> tensor<2x?x1x8xf32> {
  // expected-error @+1 {{Hq (Q dimension #1) must be static}}
  %0 = accel.paged_attention
         ins(%q, %kc, %vc : tensor<2x?x1x8xf32>, tensor<3x4x2x8xf32>, tensor<3x4x2x8xf32>)
         block_table(%bt : tensor<2x3xi32>) kv_lengths(%len : tensor<2xi32>)
         outs(%o : tensor<2x?x1x8xf32>) -> tensor<2x?x1x8xf32>
  return %0 : tensor<2x?x1x8xf32>
}

// -----

// N lays out the splits of the keys.
func.func @dynamic_pages(%q: tensor<2x4x1x8xf32>, %kc: tensor<3x4x2x8xf32>, %vc: tensor<3x4x2x8xf32>, %o: tensor<2x4x1x8xf32>, %bt: tensor<2x?xi32>, %len: tensor<2xi32>) -> tensor<2x4x1x8xf32> {
  // expected-error @+1 {{N (block table dimension #1) must be static}}
  %0 = accel.paged_attention
         ins(%q, %kc, %vc : tensor<2x4x1x8xf32>, tensor<3x4x2x8xf32>, tensor<3x4x2x8xf32>)
         block_table(%bt : tensor<2x?xi32>) kv_lengths(%len : tensor<2xi32>)
         outs(%o : tensor<2x4x1x8xf32>) -> tensor<2x4x1x8xf32>
  return %0 : tensor<2x4x1x8xf32>
}

// -----

// One table row and one length per sequence.
func.func @batch(%q: tensor<2x4x1x8xf32>, %kc: tensor<3x4x2x8xf32>, %vc: tensor<3x4x2x8xf32>, %o: tensor<2x4x1x8xf32>, %bt: tensor<3x3xi32>, %len: tensor<2xi32>) -> tensor<2x4x1x8xf32> {
  // expected-error @+1 {{batch mismatch: Q has B = 2, O has 2, the block table has 3 rows and kv_lengths 2 entries}}
  %0 = accel.paged_attention
         ins(%q, %kc, %vc : tensor<2x4x1x8xf32>, tensor<3x4x2x8xf32>, tensor<3x4x2x8xf32>)
         block_table(%bt : tensor<3x3xi32>) kv_lengths(%len : tensor<2xi32>)
         outs(%o : tensor<2x4x1x8xf32>) -> tensor<2x4x1x8xf32>
  return %0 : tensor<2x4x1x8xf32>
}

// -----

// Keys and values live in the same pages.
func.func @pools(%q: tensor<2x4x1x8xf32>, %kc: tensor<3x4x2x8xf32>, %vc: tensor<3x8x2x8xf32>, %o: tensor<2x4x1x8xf32>, %bt: tensor<2x3xi32>, %len: tensor<2xi32>) -> tensor<2x4x1x8xf32> {
  // expected-error @+1 {{the key pool [P, T, Hkv] = [3, 4, 2] and the value pool's [3, 8, 2] differ}}
  %0 = accel.paged_attention
         ins(%q, %kc, %vc : tensor<2x4x1x8xf32>, tensor<3x4x2x8xf32>, tensor<3x8x2x8xf32>)
         block_table(%bt : tensor<2x3xi32>) kv_lengths(%len : tensor<2xi32>)
         outs(%o : tensor<2x4x1x8xf32>) -> tensor<2x4x1x8xf32>
  return %0 : tensor<2x4x1x8xf32>
}

// -----

// Q·Kᵀ contracts D.
func.func @head_dim(%q: tensor<2x4x1x8xf32>, %kc: tensor<3x4x2x16xf32>, %vc: tensor<3x4x2x8xf32>, %o: tensor<2x4x1x8xf32>, %bt: tensor<2x3xi32>, %len: tensor<2xi32>) -> tensor<2x4x1x8xf32> {
  // expected-error @+1 {{head dimension mismatch: Q has D = 8, the key pool has 16}}
  %0 = accel.paged_attention
         ins(%q, %kc, %vc : tensor<2x4x1x8xf32>, tensor<3x4x2x16xf32>, tensor<3x4x2x8xf32>)
         block_table(%bt : tensor<2x3xi32>) kv_lengths(%len : tensor<2xi32>)
         outs(%o : tensor<2x4x1x8xf32>) -> tensor<2x4x1x8xf32>
  return %0 : tensor<2x4x1x8xf32>
}

// -----

// O has V's head dimension.
func.func @out_shape(%q: tensor<2x4x1x8xf32>, %kc: tensor<3x4x2x8xf32>, %vc: tensor<3x4x2x4xf32>, %o: tensor<2x4x1x8xf32>, %bt: tensor<2x3xi32>, %len: tensor<2xi32>) -> tensor<2x4x1x8xf32> {
  // expected-error @+1 {{expected O of shape [B, Hq, Sq, Dv] = [2, 4, 1, 4], got 'tensor<2x4x1x8xf32>'}}
  %0 = accel.paged_attention
         ins(%q, %kc, %vc : tensor<2x4x1x8xf32>, tensor<3x4x2x8xf32>, tensor<3x4x2x4xf32>)
         block_table(%bt : tensor<2x3xi32>) kv_lengths(%len : tensor<2xi32>)
         outs(%o : tensor<2x4x1x8xf32>) -> tensor<2x4x1x8xf32>
  return %0 : tensor<2x4x1x8xf32>
}

// -----

// A page holds at least one token.
func.func @empty_page(%q: tensor<2x4x1x8xf32>, %kc: tensor<3x0x2x8xf32>, %vc: tensor<3x0x2x8xf32>, %o: tensor<2x4x1x8xf32>, %bt: tensor<2x3xi32>, %len: tensor<2xi32>) -> tensor<2x4x1x8xf32> {
  // expected-error @+1 {{the page size T, Hkv, D and Dv must be at least 1, got T = 0, Hkv = 2, D = 8, Dv = 8}}
  %0 = accel.paged_attention
         ins(%q, %kc, %vc : tensor<2x4x1x8xf32>, tensor<3x0x2x8xf32>, tensor<3x0x2x8xf32>)
         block_table(%bt : tensor<2x3xi32>) kv_lengths(%len : tensor<2xi32>)
         outs(%o : tensor<2x4x1x8xf32>) -> tensor<2x4x1x8xf32>
  return %0 : tensor<2x4x1x8xf32>
}

// -----

// Each query head reads one KV head.
func.func @gqa(%q: tensor<2x3x1x8xf32>, %kc: tensor<3x4x2x8xf32>, %vc: tensor<3x4x2x8xf32>, %o: tensor<2x3x1x8xf32>, %bt: tensor<2x3xi32>, %len: tensor<2xi32>) -> tensor<2x3x1x8xf32> {
  // expected-error @+1 {{query heads (Hq = 3) must be a multiple of key/value heads (Hkv = 2)}}
  %0 = accel.paged_attention
         ins(%q, %kc, %vc : tensor<2x3x1x8xf32>, tensor<3x4x2x8xf32>, tensor<3x4x2x8xf32>)
         block_table(%bt : tensor<2x3xi32>) kv_lengths(%len : tensor<2xi32>)
         outs(%o : tensor<2x3x1x8xf32>) -> tensor<2x3x1x8xf32>
  return %0 : tensor<2x3x1x8xf32>
}

// -----

// One element type for the products.
func.func @types(%q: tensor<2x4x1x8xf32>, %kc: tensor<3x4x2x8xf16>, %vc: tensor<3x4x2x8xf32>, %o: tensor<2x4x1x8xf32>, %bt: tensor<2x3xi32>, %len: tensor<2xi32>) -> tensor<2x4x1x8xf32> {
  // expected-error @+1 {{Q and the key and value pools must share one element type, got 'f32', 'f16' and 'f32'}}
  %0 = accel.paged_attention
         ins(%q, %kc, %vc : tensor<2x4x1x8xf32>, tensor<3x4x2x8xf16>, tensor<3x4x2x8xf32>)
         block_table(%bt : tensor<2x3xi32>) kv_lengths(%len : tensor<2xi32>)
         outs(%o : tensor<2x4x1x8xf32>) -> tensor<2x4x1x8xf32>
  return %0 : tensor<2x4x1x8xf32>
}

// -----

// A NaN or infinite scale makes every logit meaningless.
func.func @scale(%q: tensor<2x4x1x8xf32>, %kc: tensor<3x4x2x8xf32>, %vc: tensor<3x4x2x8xf32>, %o: tensor<2x4x1x8xf32>, %bt: tensor<2x3xi32>, %len: tensor<2xi32>) -> tensor<2x4x1x8xf32> {
  // expected-error @+1 {{scale must be finite, got INF}}
  %0 = accel.paged_attention scale(0x7F800000)
         ins(%q, %kc, %vc : tensor<2x4x1x8xf32>, tensor<3x4x2x8xf32>, tensor<3x4x2x8xf32>)
         block_table(%bt : tensor<2x3xi32>) kv_lengths(%len : tensor<2xi32>)
         outs(%o : tensor<2x4x1x8xf32>) -> tensor<2x4x1x8xf32>
  return %0 : tensor<2x4x1x8xf32>
}

// -----

// Keys and values are read with the same page numbers: one P.
func.func @pool_sizes(%q: tensor<2x4x1x8xf32>, %kc: tensor<?x4x2x8xf32>, %vc: tensor<3x4x2x8xf32>, %o: tensor<2x4x1x8xf32>, %bt: tensor<2x3xi32>, %len: tensor<2xi32>) -> tensor<2x4x1x8xf32> {
  // expected-error @+1 {{the key pool [P, T, Hkv] = [?, 4, 2] and the value pool's [3, 4, 2] differ}}
  %0 = accel.paged_attention
         ins(%q, %kc, %vc : tensor<2x4x1x8xf32>, tensor<?x4x2x8xf32>, tensor<3x4x2x8xf32>)
         block_table(%bt : tensor<2x3xi32>) kv_lengths(%len : tensor<2xi32>)
         outs(%o : tensor<2x4x1x8xf32>) -> tensor<2x4x1x8xf32>
  return %0 : tensor<2x4x1x8xf32>
}

// -----

// The kernels fold log2(e) into the scale in f32.
func.func @scale_overflow(%q: tensor<2x4x1x8xf32>, %kc: tensor<3x4x2x8xf32>, %vc: tensor<3x4x2x8xf32>, %o: tensor<2x4x1x8xf32>, %bt: tensor<2x3xi32>, %len: tensor<2xi32>) -> tensor<2x4x1x8xf32> {
  // expected-error @+1 {{times log2(e) overflows f32}}
  %0 = accel.paged_attention scale(3.0e38)
         ins(%q, %kc, %vc : tensor<2x4x1x8xf32>, tensor<3x4x2x8xf32>, tensor<3x4x2x8xf32>)
         block_table(%bt : tensor<2x3xi32>) kv_lengths(%len : tensor<2xi32>)
         outs(%o : tensor<2x4x1x8xf32>) -> tensor<2x4x1x8xf32>
  return %0 : tensor<2x4x1x8xf32>
}

// -----

// Sequence lengths are at most 2^31, as accel.attention's.
func.func @capacity(%q: tensor<2x4x1x8xf32>, %kc: tensor<3x4x2x8xf32>, %vc: tensor<3x4x2x8xf32>, %o: tensor<2x4x1x8xf32>, %bt: tensor<2x1073741824xi32>, %len: tensor<2xi32>) -> tensor<2x4x1x8xf32> {
  // expected-error @+1 {{a sequence may hold N * T = 1073741824 * 4 tokens, more than 2^31}}
  %0 = accel.paged_attention
         ins(%q, %kc, %vc : tensor<2x4x1x8xf32>, tensor<3x4x2x8xf32>, tensor<3x4x2x8xf32>)
         block_table(%bt : tensor<2x1073741824xi32>) kv_lengths(%len : tensor<2xi32>)
         outs(%o : tensor<2x4x1x8xf32>) -> tensor<2x4x1x8xf32>
  return %0 : tensor<2x4x1x8xf32>
}

// -----

// A constant length longer than the table's pages hold.
func.func @length(%q: tensor<2x4x1x8xf32>, %kc: tensor<3x4x2x8xf32>, %vc: tensor<3x4x2x8xf32>, %o: tensor<2x4x1x8xf32>, %bt: tensor<2x3xi32>) -> tensor<2x4x1x8xf32> {
  %len = arith.constant dense<[3, 13]> : tensor<2xi32>
  // expected-error @+1 {{kv_lengths[1] = 13 is outside [0, N * T] = [0, 12] (3 pages of 4 tokens)}}
  %0 = accel.paged_attention
         ins(%q, %kc, %vc : tensor<2x4x1x8xf32>, tensor<3x4x2x8xf32>, tensor<3x4x2x8xf32>)
         block_table(%bt : tensor<2x3xi32>) kv_lengths(%len : tensor<2xi32>)
         outs(%o : tensor<2x4x1x8xf32>) -> tensor<2x4x1x8xf32>
  return %0 : tensor<2x4x1x8xf32>
}

// -----

// A negative constant length.
func.func @negative_length(%q: tensor<2x4x1x8xf32>, %kc: tensor<3x4x2x8xf32>, %vc: tensor<3x4x2x8xf32>, %o: tensor<2x4x1x8xf32>, %bt: tensor<2x3xi32>) -> tensor<2x4x1x8xf32> {
  %len = arith.constant dense<[-1, 3]> : tensor<2xi32>
  // expected-error @+1 {{kv_lengths[0] = -1 is outside [0, N * T] = [0, 12]}}
  %0 = accel.paged_attention
         ins(%q, %kc, %vc : tensor<2x4x1x8xf32>, tensor<3x4x2x8xf32>, tensor<3x4x2x8xf32>)
         block_table(%bt : tensor<2x3xi32>) kv_lengths(%len : tensor<2xi32>)
         outs(%o : tensor<2x4x1x8xf32>) -> tensor<2x4x1x8xf32>
  return %0 : tensor<2x4x1x8xf32>
}

// -----

// A constant table entry outside a pool of static size, on a page that holds keys.
func.func @page(%q: tensor<2x4x1x8xf32>, %kc: tensor<3x4x2x8xf32>, %vc: tensor<3x4x2x8xf32>, %o: tensor<2x4x1x8xf32>) -> tensor<2x4x1x8xf32> {
  %bt = arith.constant dense<[[0, 9, 9], [1, 3, 2]]> : tensor<2x3xi32>
  %len = arith.constant dense<[4, 5]> : tensor<2xi32>
  // expected-error @+1 {{block_table[1, 1] = 3 is outside the pool's 3 pages}}
  %0 = accel.paged_attention
         ins(%q, %kc, %vc : tensor<2x4x1x8xf32>, tensor<3x4x2x8xf32>, tensor<3x4x2x8xf32>)
         block_table(%bt : tensor<2x3xi32>) kv_lengths(%len : tensor<2xi32>)
         outs(%o : tensor<2x4x1x8xf32>) -> tensor<2x4x1x8xf32>
  return %0 : tensor<2x4x1x8xf32>
}

// -----

// Without constant lengths every entry may be read.
func.func @page_no_lengths(%q: tensor<2x4x1x8xf32>, %kc: tensor<3x4x2x8xf32>, %vc: tensor<3x4x2x8xf32>, %o: tensor<2x4x1x8xf32>, %len: tensor<2xi32>) -> tensor<2x4x1x8xf32> {
  %bt = arith.constant dense<[[0, 1, -1], [1, 2, 2]]> : tensor<2x3xi32>
  // expected-error @+1 {{block_table[0, 2] = -1 is outside the pool's 3 pages}}
  %0 = accel.paged_attention
         ins(%q, %kc, %vc : tensor<2x4x1x8xf32>, tensor<3x4x2x8xf32>, tensor<3x4x2x8xf32>)
         block_table(%bt : tensor<2x3xi32>) kv_lengths(%len : tensor<2xi32>)
         outs(%o : tensor<2x4x1x8xf32>) -> tensor<2x4x1x8xf32>
  return %0 : tensor<2x4x1x8xf32>
}
