// RUN: accel-opt %s -split-input-file -verify-diagnostics --convert-accel-to-systolic

func.func @scaled(%a: tensor<4x4xi8>, %b: tensor<4x4xi8>, %s: f32, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @below {{with scales has no systolic lowering}}
  %0 = accel.matmul ins(%a, %b : tensor<4x4xi8>, tensor<4x4xi8>) scales(%s, %s) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @f16(%a: tensor<4x4xf16>, %b: tensor<4x4xf16>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @below {{of 'f16' x 'f16' -> 'f32' has no systolic lowering: the array multiplies i8 (into i32), bf16 or f32}}
  %0 = accel.matmul ins(%a, %b : tensor<4x4xf16>, tensor<4x4xf16>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @dynamic(%a: tensor<?x4xf32>, %b: tensor<4x4xf32>, %c: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @below {{needs static shapes on the systolic target}}
  %0 = accel.matmul ins(%a, %b : tensor<?x4xf32>, tensor<4x4xf32>) outs(%c : tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----


// -----

func.func @masked(%q: tensor<1x1x4x8xf32>, %k: tensor<1x1x4x8xf32>, %v: tensor<1x1x4x8xf32>, %m: tensor<4x4xf16>, %o: tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32> {
  // expected-error @below {{with a 'f16' mask has no systolic lowering (boolean i1 and additive f32 or bf16 masks do: the DMA widens them into the accumulator)}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>) mask(%m : tensor<4x4xf16>) outs(%o : tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32>
  return %0 : tensor<1x1x4x8xf32>
}

// -----

func.func @attention_f16(%q: tensor<1x1x4x8xf16>, %k: tensor<1x1x4x8xf16>, %v: tensor<1x1x4x8xf16>, %o: tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32> {
  // expected-error @below {{of 'f16' -> 'f32' has no systolic lowering: attention runs on bf16 or f32 inputs}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x4x8xf16>, tensor<1x1x4x8xf16>, tensor<1x1x4x8xf16>) outs(%o : tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32>
  return %0 : tensor<1x1x4x8xf32>
}

// -----

func.func @attention_dynamic(%q: tensor<1x1x?x8xf32>, %k: tensor<1x1x4x8xf32>, %v: tensor<1x1x4x8xf32>, %o: tensor<1x1x?x8xf32>) -> tensor<1x1x?x8xf32> {
  // expected-error @below {{needs static shapes on the systolic target}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x?x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>) outs(%o : tensor<1x1x?x8xf32>) -> tensor<1x1x?x8xf32>
  return %0 : tensor<1x1x?x8xf32>
}

// -----

func.func @diagonal(%q: tensor<1x1x4x8xf32>, %k: tensor<1x1x4x8xf32>, %v: tensor<1x1x4x8xf32>, %o: tensor<1x1x4x8xf32>, %d: index) -> tensor<1x1x4x8xf32> {
  // expected-error @below {{with a non-constant diagonal has no systolic lowering}}
  %0 = accel.attention causal diagonal(%d) ins(%q, %k, %v : tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>) outs(%o : tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32>
  return %0 : tensor<1x1x4x8xf32>
}

// -----

func.func @head_dim_0(%q: tensor<1x1x4x0xf32>, %k: tensor<1x1x4x0xf32>, %v: tensor<1x1x4x8xf32>, %o: tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32> {
  // expected-error @below {{with an empty head dimension has no systolic lowering}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x4x0xf32>, tensor<1x1x4x0xf32>, tensor<1x1x4x8xf32>) outs(%o : tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32>
  return %0 : tensor<1x1x4x8xf32>
}

// -----

func.func @other_op(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{has no systolic lowering (a systolic program holds accel.matmul, accel.dequant_matmul, accel.attention, accel.paged_attention and accel.softmax ops and elementwise linalg.generic and linalg.fill ops)}}
  %0 = arith.addf %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @mixed(%a: tensor<4x4xi8>, %b: tensor<4x4xi8>, %x: tensor<4x4xf32>) -> (tensor<4x4xi32>, tensor<4x4xf32>) {
  %c = tensor.empty() : tensor<4x4xi32>
  %0 = accel.matmul ins(%a, %b : tensor<4x4xi8>, tensor<4x4xi8>) outs(%c : tensor<4x4xi32>) -> tensor<4x4xi32>
  %e = tensor.empty() : tensor<4x4xf32>
  // expected-error @below {{takes 'f32' inputs but an earlier op of @mixed takes i8: a systolic program has one input type}}
  %1 = accel.matmul ins(%x, %x : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0, %1 : tensor<4x4xi32>, tensor<4x4xf32>
}

// -----

// expected-error @below {{has no accel.matmul, accel.attention, accel.softmax or elementwise op to compile for the systolic array}}
func.func @nothing(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// expected-error @below {{argument #2 of type 'index' cannot be a systolic DRAM buffer (static tensors of i1, i8, i32, bf16 or f32)}}
func.func @index_arg(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %i: index) -> tensor<4x4xf32> {
  %c = tensor.empty() : tensor<4x4xf32>
  %0 = accel.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @returns_arg(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %c = tensor.empty() : tensor<4x4xf32>
  %0 = accel.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  // expected-error @below {{result #1 is not computed by an accel op; a systolic program only returns what it computes}}
  return %0, %a : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

func.func @returns_twice(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %c = tensor.empty() : tensor<4x4xf32>
  %0 = accel.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  // expected-error @below {{returns the value of result #1 twice; a systolic program writes each once}}
  return %0, %0 : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

func.func @constant_input(%b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %a = arith.constant dense<1.0> : tensor<4x4xf32>
  %c = tensor.empty() : tensor<4x4xf32>
  // expected-error @below {{reads a value that is not in DRAM (a function argument or an accel op's result)}}
  %0 = accel.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @accumulate_empty(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %c = tensor.empty() : tensor<4x4xf32>
  // expected-error @below {{accumulates into a value that is not in DRAM}}
  %0 = accel.matmul accumulate ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @attention_constant(%k: tensor<1x1x4x8xf32>, %v: tensor<1x1x4x8xf32>, %o: tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32> {
  %q = arith.constant dense<1.0> : tensor<1x1x4x8xf32>
  // expected-error @below {{reads a value that is not in DRAM (a function argument or an accel op's result)}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>) outs(%o : tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32>
  return %0 : tensor<1x1x4x8xf32>
}

// -----

func.func @constant_mask(%q: tensor<1x1x4x8xf32>, %k: tensor<1x1x4x8xf32>, %v: tensor<1x1x4x8xf32>, %o: tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32> {
  %m = arith.constant dense<1.0> : tensor<4x4xf32>
  // expected-error @below {{reads a value that is not in DRAM (a function argument or an accel op's result)}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>) mask(%m : tensor<4x4xf32>) outs(%o : tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32>
  return %0 : tensor<1x1x4x8xf32>
}

// -----

// accel.dequant_matmul: the array and the DMA take bf16 and f32.
func.func @dequant_f16(%x: tensor<1x64xf16>, %w: tensor<8x32xi8>, %s: tensor<8x2xf16>) -> tensor<1x8xf32> {
  %c = tensor.empty() : tensor<1x8xf32>
  // expected-error @below {{with 'f16' activations has no systolic lowering (the array takes bf16 and f32)}}
  %y = accel.dequant_matmul bits(4) group(32) ins(%x, %w : tensor<1x64xf16>, tensor<8x32xi8>) scales(%s : tensor<8x2xf16>) outs(%c : tensor<1x8xf32>) -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

func.func @dequant_f16_scales(%x: tensor<1x64xbf16>, %w: tensor<8x32xi8>, %s: tensor<8x2xf16>) -> tensor<1x8xf32> {
  %c = tensor.empty() : tensor<1x8xf32>
  // expected-error @below {{with 'f16' operands has no systolic lowering (the array and the DMA take bf16 and f32)}}
  %y = accel.dequant_matmul bits(4) group(32) ins(%x, %w : tensor<1x64xbf16>, tensor<8x32xi8>) scales(%s : tensor<8x2xf16>) outs(%c : tensor<1x8xf32>) -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

// A program has one input type: a bf16 matmul beside an f32 dequant.
func.func @dequant_mixed(%x: tensor<1x64xf32>, %w: tensor<8x32xi8>, %s: tensor<8x2xf32>, %a: tensor<4x4xbf16>) -> (tensor<1x8xf32>, tensor<4x4xf32>) {
  %c = tensor.empty() : tensor<1x8xf32>
  %y = accel.dequant_matmul bits(4) group(32) ins(%x, %w : tensor<1x64xf32>, tensor<8x32xi8>) scales(%s : tensor<8x2xf32>) outs(%c : tensor<1x8xf32>) -> tensor<1x8xf32>
  %c2 = tensor.empty() : tensor<4x4xf32>
  // expected-error @below {{takes 'bf16' inputs but an earlier op of @dequant_mixed takes f32: a systolic program has one input type}}
  %m = accel.matmul ins(%a, %a : tensor<4x4xbf16>, tensor<4x4xbf16>) outs(%c2 : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %y, %m : tensor<1x8xf32>, tensor<4x4xf32>
}

// -----

// Paged attention: bf16 or f32, static shapes, i32 tables and lengths.
func.func @paged_f16(%q: tensor<1x2x1x16xf16>, %kc: tensor<4x8x1x16xf16>, %vc: tensor<4x8x1x16xf16>, %bt: tensor<1x2xi32>, %len: tensor<1xi32>) -> tensor<1x2x1x16xf32> {
  %o = tensor.empty() : tensor<1x2x1x16xf32>
  // expected-error @below {{of 'f16' -> 'f32' has no systolic lowering: attention runs on bf16 or f32 inputs with f32 or bf16 outputs}}
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<1x2x1x16xf16>, tensor<4x8x1x16xf16>, tensor<4x8x1x16xf16>) block_table(%bt : tensor<1x2xi32>) kv_lengths(%len : tensor<1xi32>) outs(%o : tensor<1x2x1x16xf32>) -> tensor<1x2x1x16xf32>
  return %r : tensor<1x2x1x16xf32>
}

// -----

func.func @paged_dynamic_pool(%q: tensor<1x2x1x16xf32>, %kc: tensor<?x8x1x16xf32>, %vc: tensor<?x8x1x16xf32>, %bt: tensor<1x2xi32>, %len: tensor<1xi32>) -> tensor<1x2x1x16xf32> {
  %o = tensor.empty() : tensor<1x2x1x16xf32>
  // expected-error @below {{needs static shapes on the systolic target (the batch and the pool's pages included)}}
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<1x2x1x16xf32>, tensor<?x8x1x16xf32>, tensor<?x8x1x16xf32>) block_table(%bt : tensor<1x2xi32>) kv_lengths(%len : tensor<1xi32>) outs(%o : tensor<1x2x1x16xf32>) -> tensor<1x2x1x16xf32>
  return %r : tensor<1x2x1x16xf32>
}

// -----

func.func @paged_i64(%q: tensor<1x2x1x16xf32>, %kc: tensor<4x8x1x16xf32>, %vc: tensor<4x8x1x16xf32>, %bt: tensor<1x2xi64>, %len: tensor<1xi64>) -> tensor<1x2x1x16xf32> {
  %o = tensor.empty() : tensor<1x2x1x16xf32>
  // expected-error @below {{with an i64 block table or lengths has no systolic lowering (the machine's scalar loads read i32)}}
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<1x2x1x16xf32>, tensor<4x8x1x16xf32>, tensor<4x8x1x16xf32>) block_table(%bt : tensor<1x2xi64>) kv_lengths(%len : tensor<1xi64>) outs(%o : tensor<1x2x1x16xf32>) -> tensor<1x2x1x16xf32>
  return %r : tensor<1x2x1x16xf32>
}

// -----

// Pages are addressed from the pool buffer's start: a pool that is a
// slice of a larger value is not.
func.func @paged_pool_view(%q: tensor<1x2x1x16xf32>, %pool: tensor<2x4x8x1x16xf32>, %bt: tensor<1x2xi32>, %len: tensor<1xi32>) -> tensor<1x2x1x16xf32> {
  %kc = tensor.extract_slice %pool[1, 0, 0, 0, 0] [1, 4, 8, 1, 16] [1, 1, 1, 1, 1] : tensor<2x4x8x1x16xf32> to tensor<4x8x1x16xf32>
  %o = tensor.empty() : tensor<1x2x1x16xf32>
  // expected-error @below {{reads a cache pool through a view (pages are addressed in the pool's own row-major buffer)}}
  %r = accel.paged_attention ins(%q, %kc, %kc : tensor<1x2x1x16xf32>, tensor<4x8x1x16xf32>, tensor<4x8x1x16xf32>) block_table(%bt : tensor<1x2xi32>) kv_lengths(%len : tensor<1xi32>) outs(%o : tensor<1x2x1x16xf32>) -> tensor<1x2x1x16xf32>
  return %r : tensor<1x2x1x16xf32>
}

// -----

func.func @key_lengths_i64(%q: tensor<1x1x4x8xf32>, %k: tensor<1x1x4x8xf32>, %v: tensor<1x1x4x8xf32>, %kl: tensor<1xi64>, %o: tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32> {
  // expected-error @below {{with i64 sequence lengths has no systolic lowering (the machine's scalar loads read i32)}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>) kv_lengths(%kl : tensor<1xi64>) outs(%o : tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32>
  return %0 : tensor<1x1x4x8xf32>
}

// -----

// A pool that is the first pages of a larger buffer: a table entry past
// them would read the rest, so it is refused too.
func.func @paged_pool_prefix(%q: tensor<1x2x1x16xf32>, %pool: tensor<8x8x1x16xf32>, %bt: tensor<1x2xi32>, %len: tensor<1xi32>) -> tensor<1x2x1x16xf32> {
  %kc = tensor.extract_slice %pool[0, 0, 0, 0] [4, 8, 1, 16] [1, 1, 1, 1] : tensor<8x8x1x16xf32> to tensor<4x8x1x16xf32>
  %o = tensor.empty() : tensor<1x2x1x16xf32>
  // expected-error @below {{reads a cache pool through a view (pages are addressed in the pool's own row-major buffer)}}
  %r = accel.paged_attention ins(%q, %kc, %kc : tensor<1x2x1x16xf32>, tensor<4x8x1x16xf32>, tensor<4x8x1x16xf32>) block_table(%bt : tensor<1x2xi32>) kv_lengths(%len : tensor<1xi32>) outs(%o : tensor<1x2x1x16xf32>) -> tensor<1x2x1x16xf32>
  return %r : tensor<1x2x1x16xf32>
}

// -----

// The register form of mvin takes pages of fewer than 2^16 tokens.
func.func @paged_huge_pages(%q: tensor<1x1x1x1xf32>, %kc: tensor<1x65536x1x1xf32>, %vc: tensor<1x65536x1x1xf32>, %bt: tensor<1x1xi32>, %len: tensor<1xi32>) -> tensor<1x1x1x1xf32> {
  %o = tensor.empty() : tensor<1x1x1x1xf32>
  // expected-error @below {{has pages of 65536 elements and 65536 tokens; the systolic array's paged moves take pages below 2^32 elements and 2^16 tokens}}
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<1x1x1x1xf32>, tensor<1x65536x1x1xf32>, tensor<1x65536x1x1xf32>) block_table(%bt : tensor<1x1xi32>) kv_lengths(%len : tensor<1xi32>) outs(%o : tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32>
  return %r : tensor<1x1x1x1xf32>
}

// -----

// Key lengths bound K's and V's moves, whose register form takes buffers
// below 2^32 elements.
func.func @key_lengths_huge(%q: tensor<1x1x1x1xf32>, %k: tensor<1x1x4294967296x1xf32>, %v: tensor<1x1x4294967296x1xf32>, %kl: tensor<1xi32>) -> tensor<1x1x1x1xf32> {
  %o = tensor.empty() : tensor<1x1x1x1xf32>
  // expected-error @below {{with key lengths reads K and V through bounded moves, which take buffers below 2^32 elements and blocks below 2^16 keys}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x1x1xf32>, tensor<1x1x4294967296x1xf32>, tensor<1x1x4294967296x1xf32>) kv_lengths(%kl : tensor<1xi32>) outs(%o : tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32>
  return %0 : tensor<1x1x1x1xf32>
}

// -----

// Lengths bound the moves' rows of keys: K read key-contiguous (a
// transposed view) is refused.
func.func @key_lengths_transposed_k(%q: tensor<1x1x4x8xf32>, %kt: tensor<1x1x8x16xf32>, %v: tensor<1x1x16x8xf32>, %kl: tensor<1xi32>) -> tensor<1x1x4x8xf32> {
  %e = tensor.empty() : tensor<1x1x16x8xf32>
  %k = linalg.transpose ins(%kt : tensor<1x1x8x16xf32>) outs(%e : tensor<1x1x16x8xf32>) permutation = [0, 1, 3, 2]
  %o = tensor.empty() : tensor<1x1x4x8xf32>
  // expected-error @below {{with key lengths reads K and V through views whose keys are contiguous; the bounded moves take rows of keys}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x4x8xf32>, tensor<1x1x16x8xf32>, tensor<1x1x16x8xf32>) kv_lengths(%kl : tensor<1xi32>) outs(%o : tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32>
  return %0 : tensor<1x1x4x8xf32>
}
