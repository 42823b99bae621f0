//===- MatchMatmul.h - linalg contractions as accel.matmul ------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The matcher behind accel-raise, shared with accel-fuse-attention: which
// linalg contractions on tensors accel.matmul expresses, and how.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_TRANSFORMS_MATCHMATMUL_H
#define ACCEL_LIB_TRANSFORMS_MATCHMATMUL_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::accel {

/// A linalg contraction in accel.matmul's terms.
struct LinalgMatmulForm {
  Value lhs, rhs;
  /// The destination; for a contraction into a zero fill, the fill's
  /// destination (and `accumulate` is false).
  Value init;
  bool transposeB = false;
  bool accumulate = true;
};

/// `op` as an accel.matmul: linalg.matmul, linalg.batch_matmul or (float
/// only) a linalg.generic whose body is `out + ext(a) * ext(b)`, on tensors,
/// with signed casts, indexing maps (b.., m, k) x (b.., k, n) or
/// (b.., n, k) -> (b.., m, n) and element types accel.matmul takes. On
/// failure `why` says what does not fit.
FailureOr<LinalgMatmulForm> matchLinalgMatmul(linalg::LinalgOp op,
                                              StringRef &why);

} // namespace mlir::accel

#endif // ACCEL_LIB_TRANSFORMS_MATCHMATMUL_H
