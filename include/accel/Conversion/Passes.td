//===- Passes.td - accel conversion passes -----------------*- tablegen -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_CONVERSION_PASSES_TD
#define ACCEL_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertAccelToLinalgPass : Pass<"convert-accel-to-linalg"> {
  let summary = "Lower accel ops to a straightforward linalg reference";
  let description = [{
    Rewrites `accel.matmul`, `accel.softmax` and `accel.attention` into
    `linalg.generic`/`linalg.fill` on tensors, following the ops' semantics
    literally. This is the correctness baseline every target is compared
    with, not a fast path:

    - matmul: one contraction generic over `[batch..., M, N, K]` computing in
      the type of C (products of the inputs extended to it); without
      `accumulate` C is first filled with zeros. With scales, the exact dot
      product (i32 for i8, f32 for f8) is formed first, then
      `C' = (accumulate ? C : 0) + sa * sb * dot` in f32.
    - softmax: row maximum, sum of `exp(x - max)`, quotient, all in f32; a row
      of `-inf` gives zeros.
    - attention: `S = Q·Kᵀ` (query head h reads KV head h floordiv (Hq/Hkv)),
      scale, additive or i1 mask, causal band `j <= i + diagonal`, row max,
      `P = exp(S - max)`, `O = P·V / sum(P)`, all in f32; a row with every key
      removed gives zeros. GQA needs static head counts.

    `linalg.softmax` on tensors that `accel-raise` did not raise (element
    types accel.softmax lacks, such as f64) is decomposed too, by upstream's
    decomposition in its own element type (a row of all `-inf` gives NaN
    there), since nothing after this pass lowers it; on buffers it is an
    error.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def AccelDecomposeAttentionPass : Pass<"accel-decompose-attention"> {
  let summary = "FlashAttention-2: accel.attention as an online softmax "
                "over key/value tiles";
  let description = [{
    Rewrites each statically shaped `accel.attention` into loops over batch,
    query heads and query tiles of `tile-q` rows; inside, a loop over key /
    value tiles of `tile-kv` keys keeps the running row maximum `m`, the
    running sum `l` and the output accumulator in f32 (FlashAttention-2):

    ```
    S    = (Q_t · K_jᵀ) · scale · log2(e)        (accel.matmul, f32)
    S    = -inf where the mask, the causal band, the window or the
           sequence lengths remove a key (indices are global)
    m'   = max(m, rowmax(S));  P = exp2(S - m')
    c    = exp2(m - m');       l = c·l + rowsum(P)
    acc  = c·acc + P · V_j                        (accel.matmul accumulate)
    O_t  = acc / l   (0 where l = 0: a row with no key left)
    ```

    The score matrix never exists beyond one tile. log2(e) is folded into
    the scale so the exponentials are exp2. Key tiles no row of the query
    tile keeps are never visited: the key loop stops at the last key the
    tile's last query sees (causal band, `kv_lengths`) and starts at the
    first key of the first query's window (`window`); a query tile at or
    past `q_lengths` visits none. Partially kept tiles are masked by
    index. The lengths are read once per (batch, head). K is transposed once per K/V head
    ([B, Hkv, D, Skv]); the query heads of a GQA group read that shared
    copy and V in place. A running max of -inf (nothing kept yet) subtracts 0, so fully
    masked rows give 0, not NaN.
  }];
  let options = [
    Option<"tileQ", "tile-q", "int64_t", "64", "Query rows per tile">,
    Option<"tileKV", "tile-kv", "int64_t", "64", "Keys per tile">
  ];
  let dependentDialects = ["::mlir::accel::AccelDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

#endif // ACCEL_CONVERSION_PASSES_TD
