// RUN: accel-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of the accel ops. Each says why the rule
// exists.

// Batch dims are matched position by position, so ranks must agree.
func.func @matmul_rank_mismatch(%a: tensor<2x4x8xf32>, %b: tensor<8x16xf32>,
                                %c: tensor<2x4x16xf32>) -> tensor<2x4x16xf32> {
  // expected-error @+1 {{expected A, B and C to have the same rank, got A of rank 3, B of rank 2 and C of rank 3}}
  %0 = accel.matmul ins(%a, %b : tensor<2x4x8xf32>, tensor<8x16xf32>)
                    outs(%c : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  return %0 : tensor<2x4x16xf32>
}

// -----

// A matmul needs at least the M and K (K and N) dimensions.
func.func @matmul_rank1(%a: tensor<8xf32>, %b: tensor<8xf32>,
                        %c: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected operands of rank at least 2 ([batch..., M, K]), got rank 1}}
  %0 = accel.matmul ins(%a, %b : tensor<8xf32>, tensor<8xf32>)
                    outs(%c : tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @matmul_batch_mismatch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x16xf32>,
                                 %c: tensor<2x4x16xf32>) -> tensor<2x4x16xf32> {
  // expected-error @+1 {{batch dimension #0 mismatch: A has 2, B has 3, C has 2}}
  %0 = accel.matmul ins(%a, %b : tensor<2x4x8xf32>, tensor<3x8x16xf32>)
                    outs(%c : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  return %0 : tensor<2x4x16xf32>
}

// -----

func.func @matmul_k_mismatch(%a: tensor<4x8xf32>, %b: tensor<7x16xf32>,
                             %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{contraction dimension mismatch: A has K = 8, B has K = 7 (B is [K, N])}}
  %0 = accel.matmul ins(%a, %b : tensor<4x8xf32>, tensor<7x16xf32>)
                    outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// With transpose_b, K is B's last dimension.
func.func @matmul_k_mismatch_transposed(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>,
                                        %c: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{contraction dimension mismatch: A has K = 8, B has K = 16 (B is [N, K] with transpose_b)}}
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>)
                    outs(%c : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @matmul_m_mismatch(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>,
                             %c: tensor<5x16xf32>) -> tensor<5x16xf32> {
  // expected-error @+1 {{M mismatch: A has M = 4, C has M = 5}}
  %0 = accel.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>)
                    outs(%c : tensor<5x16xf32>) -> tensor<5x16xf32>
  return %0 : tensor<5x16xf32>
}

// -----

func.func @matmul_n_mismatch(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>,
                             %c: tensor<4x15xf32>) -> tensor<4x15xf32> {
  // expected-error @+1 {{N mismatch: B has N = 16, C has N = 15}}
  %0 = accel.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>)
                    outs(%c : tensor<4x15xf32>) -> tensor<4x15xf32>
  return %0 : tensor<4x15xf32>
}

// -----

// Mixed integer/float products have no hardware instruction and no agreed
// semantics.
func.func @matmul_mixed_types(%a: tensor<4x8xi8>, %b: tensor<8x16xf16>,
                              %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{A and B element types must match (or both be f8 of one family), got 'i8' and 'f16'; supported: f32, f16, bf16, i8, any mix of f8E4M3FN and f8E5M2, or any mix of f8E4M3FNUZ and f8E5M2FNUZ}}
  %0 = accel.matmul ins(%a, %b : tensor<4x8xi8>, tensor<8x16xf16>)
                    outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// The OCP and FNUZ fp8 families have different encodings (bias, NaN, zero):
// no instruction multiplies one by the other.
func.func @matmul_f8_families(%a: tensor<4x8xf8E4M3FN>, %b: tensor<8x16xf8E4M3FNUZ>,
                              %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{A and B element types must match (or both be f8 of one family), got 'f8E4M3FN' and 'f8E4M3FNUZ'}}
  %0 = accel.matmul ins(%a, %b : tensor<4x8xf8E4M3FN>, tensor<8x16xf8E4M3FNUZ>)
                    outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Accumulating in fewer bits than the inputs silently loses precision.
func.func @matmul_narrow_accumulator(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>,
                                     %c: tensor<4x16xf16>) -> tensor<4x16xf16> {
  // expected-error @+1 {{C element type 'f16' is not allowed for 'f32' inputs (the accumulator is narrower than the inputs); expected 'f32'}}
  %0 = accel.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>)
                    outs(%c : tensor<4x16xf16>) -> tensor<4x16xf16>
  return %0 : tensor<4x16xf16>
}

// -----

// int8 products accumulate in int32 (VNNI, IMMA, MFMA i8 all do).
func.func @matmul_i8_float_acc(%a: tensor<4x8xi8>, %b: tensor<8x16xi8>,
                               %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{C element type 'f32' is not allowed for 'i8' inputs without scales; expected 'i32'}}
  %0 = accel.matmul ins(%a, %b : tensor<4x8xi8>, tensor<8x16xi8>)
                    outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// With scales, i8 is dequantised: an integer C could not hold sa * sb * dot.
func.func @matmul_i8_scaled_int_acc(%a: tensor<4x8xi8>, %b: tensor<8x16xi8>, %s: f32,
                                    %c: tensor<4x16xi32>) -> tensor<4x16xi32> {
  // expected-error @+1 {{C element type 'i32' is not allowed for 'i8' inputs with scales (the dequantised result is a float); expected 'f32' or 'f16' or 'bf16'}}
  %0 = accel.matmul ins(%a, %b : tensor<4x8xi8>, tensor<8x16xi8>) scales(%s, %s)
                    outs(%c : tensor<4x16xi32>) -> tensor<4x16xi32>
  return %0 : tensor<4x16xi32>
}

// -----

// bf16 inputs cannot accumulate in f16 (a different exponent range).
func.func @matmul_bf16_f16_acc(%a: tensor<4x8xbf16>, %b: tensor<8x16xbf16>,
                               %c: tensor<4x16xf16>) -> tensor<4x16xf16> {
  // expected-error @+1 {{C element type 'f16' is not allowed for 'bf16' inputs; expected 'f32' or 'bf16'}}
  %0 = accel.matmul ins(%a, %b : tensor<4x8xbf16>, tensor<8x16xbf16>)
                    outs(%c : tensor<4x16xf16>) -> tensor<4x16xf16>
  return %0 : tensor<4x16xf16>
}

// -----

// The type constraint rejects f64 before the verifier runs.
func.func @matmul_f64(%a: tensor<4x8xf64>, %b: tensor<8x16xf64>,
                      %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type or f8E4M3FN type or f8E5M2 type or f8E4M3FNUZ type or f8E5M2FNUZ type or 8-bit signless integer values}}
  %0 = accel.matmul ins(%a, %b : tensor<4x8xf64>, tensor<8x16xf64>)
                    outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Scales dequantise f8/i8 operands; on f32 they are a user error.
func.func @matmul_scales_on_f32(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>,
                                %s: f32, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{per-tensor scales are only allowed with f8 or i8 inputs, got 'f32'}}
  %0 = accel.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>)
                    scales(%s, %s) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// The generic form can give one scale; the semantics need both.
func.func @matmul_one_scale(%a: tensor<4x8xi8>, %b: tensor<8x16xi8>,
                            %s: f32, %c: tensor<4x16xi32>) -> tensor<4x16xi32> {
  // expected-error @+1 {{per-tensor scales come in pairs: give both A's and B's scale (use 1.0 for an unscaled operand)}}
  %0 = "accel.matmul"(%a, %b, %s, %c) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 1>}>
         : (tensor<4x8xi8>, tensor<8x16xi8>, f32, tensor<4x16xi32>) -> tensor<4x16xi32>
  return %0 : tensor<4x16xi32>
}

// -----

// The result is the updated C.
func.func @matmul_result_type(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>,
                              %c: tensor<4x16xf32>) -> tensor<4x?xf32> {
  // expected-error @+1 {{failed to verify that all of {init, result} have same type}}
  %0 = "accel.matmul"(%a, %b, %c) <{operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>}>
         : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}

// -----

// Shape arithmetic in every later pass assumes element counts fit in int64.
func.func @matmul_count_overflow(%a: tensor<4611686018427387904x2xf32>,
                                 %b: tensor<2x16xf32>,
                                 %c: tensor<4611686018427387904x16xf32>)
    -> tensor<4611686018427387904x16xf32> {
  // expected-error @+1 {{operand #0 of type 'tensor<4611686018427387904x2xf32>' has an element count that overflows int64}}
  %0 = accel.matmul ins(%a, %b : tensor<4611686018427387904x2xf32>, tensor<2x16xf32>)
                    outs(%c : tensor<4611686018427387904x16xf32>)
                    -> tensor<4611686018427387904x16xf32>
  return %0 : tensor<4611686018427387904x16xf32>
}

// -----

// The count fits but the size in bits does not.
func.func @matmul_bits_overflow(%a: tensor<1152921504606846976x2xf32>,
                                %b: tensor<2x2xf32>,
                                %c: tensor<1152921504606846976x2xf32>)
    -> tensor<1152921504606846976x2xf32> {
  // expected-error @+1 {{operand #0 of type 'tensor<1152921504606846976x2xf32>' has a size in bits that overflows int64}}
  %0 = accel.matmul ins(%a, %b : tensor<1152921504606846976x2xf32>, tensor<2x2xf32>)
                    outs(%c : tensor<1152921504606846976x2xf32>)
                    -> tensor<1152921504606846976x2xf32>
  return %0 : tensor<1152921504606846976x2xf32>
}

// -----

func.func @softmax_rank0(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{expected an input of rank at least 1}}
  %0 = accel.softmax dimension(0) ins(%x : tensor<f32>) outs(%x : tensor<f32>)
                     -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @softmax_rank_mismatch(%x: tensor<4x8xf32>, %y: tensor<32xf32>)
    -> tensor<32xf32> {
  // expected-error @+1 {{expected input and output of the same rank, got 2 and 1}}
  %0 = accel.softmax dimension(0) ins(%x : tensor<4x8xf32>)
                     outs(%y : tensor<32xf32>) -> tensor<32xf32>
  return %0 : tensor<32xf32>
}

// -----

func.func @softmax_shape_mismatch(%x: tensor<4x8xf32>, %y: tensor<4x9xf32>)
    -> tensor<4x9xf32> {
  // expected-error @+1 {{input and output differ in dimension #1: 8 vs 9}}
  %0 = accel.softmax dimension(1) ins(%x : tensor<4x8xf32>)
                     outs(%y : tensor<4x9xf32>) -> tensor<4x9xf32>
  return %0 : tensor<4x9xf32>
}

// -----

func.func @softmax_negative_dim(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{dimension -1 is out of range for an input of rank 2 (expected 0 <= dimension < 2)}}
  %0 = accel.softmax dimension(-1) ins(%x : tensor<4x8xf32>)
                     outs(%x : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @softmax_dim_too_large(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{dimension 2 is out of range for an input of rank 2 (expected 0 <= dimension < 2)}}
  %0 = accel.softmax dimension(2) ins(%x : tensor<4x8xf32>)
                     outs(%x : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @attention_rank3(%q: tensor<8x128x64xf32>, %o: tensor<8x128x64xf32>)
    -> tensor<8x128x64xf32> {
  // expected-error @+1 {{expected Q, K, V and O of rank 4 ([B, H, S, D]), got ranks 3, 3, 3 and 3}}
  %0 = accel.attention ins(%q, %q, %q : tensor<8x128x64xf32>, tensor<8x128x64xf32>,
                                         tensor<8x128x64xf32>)
                       outs(%o : tensor<8x128x64xf32>) -> tensor<8x128x64xf32>
  return %0 : tensor<8x128x64xf32>
}

// -----

func.func @attention_batch_mismatch(%q: tensor<2x4x16x8xf32>, %k: tensor<3x4x16x8xf32>,
                                    %o: tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32> {
  // expected-error @+1 {{batch mismatch: Q has B = 2, K has 3, V has 3, O has 2}}
  %0 = accel.attention ins(%q, %k, %k : tensor<2x4x16x8xf32>, tensor<3x4x16x8xf32>,
                                         tensor<3x4x16x8xf32>)
                       outs(%o : tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  return %0 : tensor<2x4x16x8xf32>
}

// -----

func.func @attention_kv_heads_mismatch(%q: tensor<1x4x16x8xf32>, %k: tensor<1x2x16x8xf32>,
                                       %v: tensor<1x4x16x8xf32>, %o: tensor<1x4x16x8xf32>)
    -> tensor<1x4x16x8xf32> {
  // expected-error @+1 {{key/value head count mismatch: K has Hkv = 2, V has Hkv = 4}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x4x16x8xf32>, tensor<1x2x16x8xf32>,
                                         tensor<1x4x16x8xf32>)
                       outs(%o : tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32>
  return %0 : tensor<1x4x16x8xf32>
}

// -----

// GQA maps query head h to key/value head h / (Hq / Hkv): Hkv must divide Hq.
func.func @attention_gqa_not_divisible(%q: tensor<1x12x16x8xf32>, %k: tensor<1x5x16x8xf32>,
                                       %o: tensor<1x12x16x8xf32>) -> tensor<1x12x16x8xf32> {
  // expected-error @+1 {{query heads (Hq = 12) must be a multiple of key/value heads (Hkv = 5)}}
  %0 = accel.attention ins(%q, %k, %k : tensor<1x12x16x8xf32>, tensor<1x5x16x8xf32>,
                                         tensor<1x5x16x8xf32>)
                       outs(%o : tensor<1x12x16x8xf32>) -> tensor<1x12x16x8xf32>
  return %0 : tensor<1x12x16x8xf32>
}

// -----

func.func @attention_zero_kv_heads(%q: tensor<1x4x16x8xf32>, %k: tensor<1x0x16x8xf32>,
                                   %o: tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32> {
  // expected-error @+1 {{query heads (Hq = 4) must be a multiple of key/value heads (Hkv = 0)}}
  %0 = accel.attention ins(%q, %k, %k : tensor<1x4x16x8xf32>, tensor<1x0x16x8xf32>,
                                         tensor<1x0x16x8xf32>)
                       outs(%o : tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32>
  return %0 : tensor<1x4x16x8xf32>
}

// -----

func.func @attention_head_dim_mismatch(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x32xf32>,
                                       %o: tensor<1x4x16x32xf32>) -> tensor<1x4x16x32xf32> {
  // expected-error @+1 {{head dimension mismatch: Q has D = 64, K has D = 32}}
  %0 = accel.attention ins(%q, %k, %k : tensor<1x4x16x64xf32>, tensor<1x4x16x32xf32>,
                                         tensor<1x4x16x32xf32>)
                       outs(%o : tensor<1x4x16x32xf32>) -> tensor<1x4x16x32xf32>
  return %0 : tensor<1x4x16x32xf32>
}

// -----

func.func @attention_seq_mismatch(%q: tensor<1x4x16x8xf32>, %k: tensor<1x4x32x8xf32>,
                                  %v: tensor<1x4x31x8xf32>, %o: tensor<1x4x16x8xf32>)
    -> tensor<1x4x16x8xf32> {
  // expected-error @+1 {{key/value sequence length mismatch: K has Skv = 32, V has Skv = 31}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x4x16x8xf32>, tensor<1x4x32x8xf32>,
                                         tensor<1x4x31x8xf32>)
                       outs(%o : tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32>
  return %0 : tensor<1x4x16x8xf32>
}

// -----

func.func @attention_output_shape(%q: tensor<1x4x16x8xf32>, %v: tensor<1x4x32x8xf32>,
                                  %o: tensor<1x4x32x8xf32>) -> tensor<1x4x32x8xf32> {
  // expected-error @+1 {{expected O of shape [B, Hq, Sq, Dv] = [1, 4, 16, 8], got 'tensor<1x4x32x8xf32>'}}
  %0 = accel.attention ins(%q, %v, %v : tensor<1x4x16x8xf32>, tensor<1x4x32x8xf32>,
                                         tensor<1x4x32x8xf32>)
                       outs(%o : tensor<1x4x32x8xf32>) -> tensor<1x4x32x8xf32>
  return %0 : tensor<1x4x32x8xf32>
}

// -----

func.func @attention_mixed_types(%q: tensor<1x4x16x8xf16>, %k: tensor<1x4x16x8xf32>,
                                 %o: tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32> {
  // expected-error @+1 {{Q, K and V must share one element type, got 'f16', 'f32' and 'f32'}}
  %0 = accel.attention ins(%q, %k, %k : tensor<1x4x16x8xf16>, tensor<1x4x16x8xf32>,
                                         tensor<1x4x16x8xf32>)
                       outs(%o : tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32>
  return %0 : tensor<1x4x16x8xf32>
}

// -----

func.func @attention_mask_rank5(%q: tensor<1x4x16x8xf32>, %m: tensor<1x1x4x16x16xi1>,
                                %o: tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32> {
  // expected-error @+1 {{mask of rank 5 does not broadcast to [B, Hq, Sq, Skv]}}
  %0 = accel.attention ins(%q, %q, %q : tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>,
                                         tensor<1x4x16x8xf32>)
                       mask(%m : tensor<1x1x4x16x16xi1>)
                       outs(%o : tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32>
  return %0 : tensor<1x4x16x8xf32>
}

// -----

func.func @attention_mask_not_broadcastable(%q: tensor<1x4x16x8xf32>, %k: tensor<1x4x32x8xf32>,
                                            %m: tensor<16x16xi1>, %o: tensor<1x4x16x8xf32>)
    -> tensor<1x4x16x8xf32> {
  // expected-error @+1 {{mask 'tensor<16x16xi1>' does not broadcast to [B, Hq, Sq, Skv] = [1, 4, 16, 32]: mask dimension #1 has size 16, expected 1 or 32}}
  %0 = accel.attention ins(%q, %k, %k : tensor<1x4x16x8xf32>, tensor<1x4x32x8xf32>,
                                         tensor<1x4x32x8xf32>)
                       mask(%m : tensor<16x16xi1>)
                       outs(%o : tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32>
  return %0 : tensor<1x4x16x8xf32>
}

// -----

// An i32 mask is neither a keep-mask (i1) nor an additive bias (float).
func.func @attention_mask_type(%q: tensor<1x4x16x8xf32>, %m: tensor<16x16xi32>,
                               %o: tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32> {
  // expected-error @+1 {{operand #3 must be ranked tensor of 1-bit signless integer or 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<16x16xi32>'}}
  %0 = accel.attention ins(%q, %q, %q : tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>,
                                         tensor<1x4x16x8xf32>)
                       mask(%m : tensor<16x16xi32>)
                       outs(%o : tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32>
  return %0 : tensor<1x4x16x8xf32>
}

// -----

func.func @attention_infinite_scale(%q: tensor<1x4x16x8xf32>, %o: tensor<1x4x16x8xf32>)
    -> tensor<1x4x16x8xf32> {
  // expected-error @+1 {{scale must be finite, got INF}}
  %0 = accel.attention scale(0x7F800000)
                       ins(%q, %q, %q : tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>,
                                         tensor<1x4x16x8xf32>)
                       outs(%o : tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32>
  return %0 : tensor<1x4x16x8xf32>
}

// -----

// The kernels fold log2(e) into the scale: it must stay within f32.
func.func @attention_scale_overflow(%q: tensor<1x4x16x8xf32>, %o: tensor<1x4x16x8xf32>)
    -> tensor<1x4x16x8xf32> {
  // expected-error @+1 {{scale 3.000000e+38 times log2(e) overflows f32}}
  %0 = accel.attention scale(3.0e38)
                       ins(%q, %q, %q : tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>,
                                         tensor<1x4x16x8xf32>)
                       outs(%o : tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32>
  return %0 : tensor<1x4x16x8xf32>
}

// -----

func.func @attention_diagonal_without_causal(%q: tensor<1x4x16x8xf32>, %d: index,
                                             %o: tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32> {
  // expected-error @+1 {{'diagonal' is only meaningful with 'causal'}}
  %0 = accel.attention diagonal(%d)
                       ins(%q, %q, %q : tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>,
                                         tensor<1x4x16x8xf32>)
                       outs(%o : tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32>
  return %0 : tensor<1x4x16x8xf32>
}

// -----

func.func @attention_window_without_causal(%q: tensor<1x4x16x8xf32>,
                                           %o: tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32> {
  // expected-error @+1 {{'window' needs 'causal' (a window is the last W keys of the causal band)}}
  %0 = accel.attention window(4)
                       ins(%q, %q, %q : tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>,
                                         tensor<1x4x16x8xf32>)
                       outs(%o : tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32>
  return %0 : tensor<1x4x16x8xf32>
}

// -----

func.func @attention_window_zero(%q: tensor<1x4x16x8xf32>,
                                 %o: tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32> {
  // expected-error @+1 {{window must be in [1, 2^31], got 0}}
  %0 = accel.attention causal window(0)
                       ins(%q, %q, %q : tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>,
                                         tensor<1x4x16x8xf32>)
                       outs(%o : tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32>
  return %0 : tensor<1x4x16x8xf32>
}

// -----

func.func @attention_kv_lengths_batch(%q: tensor<2x4x16x8xf32>, %l: tensor<3xi32>,
                                      %o: tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32> {
  // expected-error @+1 {{kv_lengths has 3 entries, expected one per batch (B = 2)}}
  %0 = accel.attention
                       ins(%q, %q, %q : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>,
                                         tensor<2x4x16x8xf32>)
                       kv_lengths(%l : tensor<3xi32>)
                       outs(%o : tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  return %0 : tensor<2x4x16x8xf32>
}

// -----

func.func @attention_q_lengths_batch(%q: tensor<?x4x16x8xf32>, %l: tensor<1xi64>,
                                     %o: tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32> {
  // expected-error @+1 {{q_lengths has 1 entries, expected one per batch (B = 2)}}
  %0 = accel.attention causal
                       ins(%q, %q, %q : tensor<?x4x16x8xf32>, tensor<?x4x16x8xf32>,
                                         tensor<?x4x16x8xf32>)
                       q_lengths(%l : tensor<1xi64>)
                       outs(%o : tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  return %0 : tensor<2x4x16x8xf32>
}

// -----

func.func @attention_lengths_type(%q: tensor<2x4x16x8xf32>, %l: tensor<2xf32>,
                                  %o: tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32> {
  // expected-error @+1 {{operand #3 must be 1D tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = accel.attention
                       ins(%q, %q, %q : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>,
                                         tensor<2x4x16x8xf32>)
                       kv_lengths(%l : tensor<2xf32>)
                       outs(%o : tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  return %0 : tensor<2x4x16x8xf32>
}

// -----

func.func @attention_count_overflow(%q: tensor<4294967296x4294967296x2x8xf16>,
                                    %k: tensor<4294967296x1x16x8xf16>,
                                    %o: tensor<4294967296x4294967296x2x8xf32>)
    -> tensor<4294967296x4294967296x2x8xf32> {
  // expected-error @+1 {{operand #0 of type 'tensor<4294967296x4294967296x2x8xf16>' has an element count that overflows int64}}
  %0 = accel.attention ins(%q, %k, %k : tensor<4294967296x4294967296x2x8xf16>,
                                         tensor<4294967296x1x16x8xf16>,
                                         tensor<4294967296x1x16x8xf16>)
                       outs(%o : tensor<4294967296x4294967296x2x8xf32>)
                       -> tensor<4294967296x4294967296x2x8xf32>
  return %0 : tensor<4294967296x4294967296x2x8xf32>
}

// -----

// A dynamic Q batch does not hide a static conflict between K and O.
func.func @attention_batch_mismatch_behind_dynamic(%q: tensor<?x4x16x8xf32>, %k: tensor<2x4x16x8xf32>,
                                                   %o: tensor<3x4x16x8xf32>) -> tensor<3x4x16x8xf32> {
  // expected-error @+1 {{batch mismatch: Q has B = ?, K has 2, V has 2, O has 3}}
  %0 = accel.attention ins(%q, %k, %k : tensor<?x4x16x8xf32>, tensor<2x4x16x8xf32>,
                                         tensor<2x4x16x8xf32>)
                       outs(%o : tensor<3x4x16x8xf32>) -> tensor<3x4x16x8xf32>
  return %0 : tensor<3x4x16x8xf32>
}

// -----

// Hq is known from O when Q's is dynamic.
func.func @attention_gqa_from_output(%q: tensor<1x?x16x8xf32>, %k: tensor<1x4x16x8xf32>,
                                     %o: tensor<1x6x16x8xf32>) -> tensor<1x6x16x8xf32> {
  // expected-error @+1 {{query heads (Hq = 6) must be a multiple of key/value heads (Hkv = 4)}}
  %0 = accel.attention ins(%q, %k, %k : tensor<1x?x16x8xf32>, tensor<1x4x16x8xf32>,
                                         tensor<1x4x16x8xf32>)
                       outs(%o : tensor<1x6x16x8xf32>) -> tensor<1x6x16x8xf32>
  return %0 : tensor<1x6x16x8xf32>
}

// -----

// The mask is checked against Sq from O and Skv from V when Q and K are
// dynamic there.
func.func @attention_mask_behind_dynamic(%q: tensor<1x4x?x8xf32>, %k: tensor<1x4x?x8xf32>,
                                         %v: tensor<1x4x16x8xf32>, %m: tensor<5x7xi1>,
                                         %o: tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32> {
  // expected-error @+1 {{mask 'tensor<5x7xi1>' does not broadcast to [B, Hq, Sq, Skv] = [1, 4, 16, 16]: mask dimension #0 has size 5, expected 1 or 16}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x4x?x8xf32>, tensor<1x4x?x8xf32>,
                                         tensor<1x4x16x8xf32>)
                       mask(%m : tensor<5x7xi1>)
                       outs(%o : tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32>
  return %0 : tensor<1x4x16x8xf32>
}
