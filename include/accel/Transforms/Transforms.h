//===- Transforms.h - accel rewrite patterns --------------------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Pattern sets behind the accel passes, for use outside of them, and the
// CPU feature-list query the passes and the JIT runner share.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_TRANSFORMS_TRANSFORMS_H
#define ACCEL_TRANSFORMS_TRANSFORMS_H

#include "llvm/ADT/StringRef.h"

namespace mlir {
class DialectRegistry;
class RewritePatternSet;
namespace accel {
struct LowerPrecisionOptions;

/// Contractions on tensors with a (.., n, k) right-hand side read a
/// transposed copy (.., k, n) (accel-cpu-transpose-rhs).
void populateCpuTransposeRhsPatterns(RewritePatternSet &patterns);

/// linalg.matmul / linalg.batch_matmul / tosa.matmul -> accel.matmul and
/// linalg.softmax -> accel.softmax where the accel op expresses the same
/// computation (accel-raise).
void populateRaiseToAccelPatterns(RewritePatternSet &patterns);

/// matmul(Q, Kᵀ) -> [constant scale] -> [mask] -> softmax -> matmul(P, V),
/// written in accel ops or in linalg (named or generic matmuls, transposes,
/// elementwise generics, linalg.softmax), 2-D to 4-D -> accel.attention
/// (accel-fuse-attention).
void populateFuseAttentionPatterns(RewritePatternSet &patterns);

/// An accel.attention whose mask is a constant or an index-computed generic
/// that removes exactly the keys above a diagonal -> `causal` with that
/// diagonal and no mask (CausalMask.cpp; part of accel-fuse-attention).
void populateCausalMaskPatterns(RewritePatternSet &patterns);

/// accel-fuse-slices: static slices into the generics that read them, and
/// elementwise generics joined by tensor.concat or covering insert_slices
/// into one generic (RoPE).
void populateAccelFuseSlicesPatterns(RewritePatternSet &patterns);

/// f32 accel.matmul / accel.attention -> the same op on inputs rounded (or
/// quantised with per-tensor scales) to bf16, f16, fp8 or int8, as the op's
/// accel.precision or `options` say (accel-lower-precision; the options are
/// in accel/Transforms/LowerPrecision.h). Ops whose policy cannot apply are
/// left alone; the pass reports them.
void populateLowerPrecisionPatterns(RewritePatternSet &patterns,
                                    const LowerPrecisionOptions &options);

/// arith.truncf to and arith.extf from f8E4M3FN / f8E5M2 / f8E4M3FNUZ /
/// f8E5M2FNUZ -> integer arithmetic on the bit patterns
/// (accel-expand-f8-casts).
void populateExpandF8CastsPatterns(RewritePatternSet &patterns);

/// math.exp2 on vectors of f32 -> 15 x86 instructions (a degree-6
/// polynomial of the fraction and the exponent assembled from the rounding
/// of a magic-number add), under 2 ulp; +inf above 128, exactly 0 at or
/// below -127, NaN kept (accel-cpu-vectorize-elementwise; lib/Transforms/
/// FastExp2.cpp says how).
void populateFastExp2Patterns(RewritePatternSet &patterns);

/// Whether a comma-separated CPU feature list (entries with or without a
/// leading '+', as LLVM writes them) has `name`.
bool hasCpuFeature(llvm::StringRef features, llvm::StringRef name);

/// Declares the buffer effects of the mpi dialect's communication ops
/// (upstream leaves them undeclared), so buffer deallocation accepts the
/// code accel-lower-shard-to-mpi produces.
void registerMpiMemoryEffects(DialectRegistry &registry);

} // namespace accel
} // namespace mlir

#endif // ACCEL_TRANSFORMS_TRANSFORMS_H
