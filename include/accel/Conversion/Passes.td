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
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

#endif // ACCEL_CONVERSION_PASSES_TD
