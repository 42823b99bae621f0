//===- AccelToLinalg.h - accel to linalg reference lowering -----*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_CONVERSION_ACCELTOLINALG_ACCELTOLINALG_H
#define ACCEL_CONVERSION_ACCELTOLINALG_ACCELTOLINALG_H

#include "mlir/Pass/Pass.h"
#include <cstdint>

namespace mlir {
class RewritePatternSet;
namespace accel {

#define GEN_PASS_DECL_CONVERTACCELTOLINALGPASS
#define GEN_PASS_DECL_ACCELDECOMPOSEATTENTIONPASS
#define GEN_PASS_DECL_ACCELDECOMPOSESOFTMAXPASS
#include "accel/Conversion/Passes.h.inc"

/// Patterns that rewrite accel.matmul, accel.softmax and accel.attention into
/// the linalg reference lowering (see the pass description).
void populateAccelToLinalgConversionPatterns(
    RewritePatternSet &patterns, llvm::StringRef indexFailureCallee = "");

/// The reference lowering of accel.dequant_matmul (part of the above): one
/// linalg.generic marked kDequantMatmulAttrName.
void populateAccelDequantMatmulToLinalgPatterns(RewritePatternSet &patterns);

/// The reference lowering of accel.paged_attention (part of the above):
/// the keys and values gathered from the pool, then accel.attention;
/// `indexFailureCallee` (if not empty) is called when a block table or
/// length is invalid.
void populateAccelPagedAttentionToLinalgPatterns(
    RewritePatternSet &patterns, llvm::StringRef indexFailureCallee = "");

/// accel.paged_attention -> flash-decoding (accel-decompose-attention):
/// `splits` ranges of steps of `pagesPerStep` pages, `headsPerTask` KV
/// heads a task (0: all), P · V in register tiles of `pvTile` = [rows,
/// columns], unless the op's cpu-paged-flash config says otherwise;
/// `indexFailureCallee` (if not empty) is called when a block table or
/// length is invalid.
void populateDecomposePagedAttentionPatterns(
    RewritePatternSet &patterns, int64_t pagesPerStep, int64_t splits,
    int64_t headsPerTask, llvm::ArrayRef<int64_t> pvTile,
    llvm::StringRef indexFailureCallee);

/// Only accel.softmax's pattern: a max reduction, a sum of exp(x - max) and
/// the quotient, as linalg.generic ops (the GPU row kernels take these).
void populateAccelSoftmaxToLinalgPatterns(RewritePatternSet &patterns);

/// accel.attention with static shapes -> FlashAttention-2 loops over query
/// tiles of `tileQ` rows and key/value tiles of `tileKV` keys
/// (accel-decompose-attention).
void populateDecomposeAttentionPatterns(RewritePatternSet &patterns,
                                        int64_t tileQ, int64_t tileKV);

/// The same for the accel.attention ops under `root` whose only user is an
/// elementwise generic (accel-decompose-attention's fuse-epilogues): the
/// generic is applied to each output tile as it is written, and goes. (A
/// rewrite that also replaces an op after the attention, so not a pattern
/// for the walk driver.)
void decomposeAttentionWithEpilogues(Operation *root, int64_t tileQ,
                                     int64_t tileKV);

} // namespace accel
} // namespace mlir

#endif // ACCEL_CONVERSION_ACCELTOLINALG_ACCELTOLINALG_H
