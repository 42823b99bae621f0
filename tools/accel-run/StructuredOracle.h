//===- StructuredOracle.h - fp64 oracle for linalg and reshapes -*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// What frontends write around their matmuls (transposes, elementwise
// generics, linalg.softmax, batch reshapes), evaluated in fp64 for
// accel-run's oracle. Written independently of the compiler's matchers, so
// a rewrite that misreads one of these ops disagrees with the oracle.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_TOOLS_ACCEL_RUN_STRUCTUREDORACLE_H
#define ACCEL_TOOLS_ACCEL_RUN_STRUCTUREDORACLE_H

#include "accel/Reference/Reference.h"
#include "mlir/IR/Operation.h"
#include <functional>

namespace accel_run {

/// Whether `op` is a linalg.generic whose body is `out + ext(a) * ext(b)`
/// in floats (ext an optional arith.extf): a contraction with linalg's
/// matmul semantics, evaluated with the matmuls.
bool isMulAddGeneric(mlir::Operation &op);

/// Whether evaluateStructured models `op`: linalg.transpose, linalg.softmax,
/// tensor.expand_shape / collapse_shape, and linalg.generic with only
/// parallel loops (other generics are reported by evaluateStructured).
bool isStructured(mlir::Operation &op);

/// `op`'s result from its operands' (`lookup`). Data movement keeps the
/// operand's values and bounds; softmax uses the shared reference; a generic
/// runs its body in fp64 per element on exact operands, bounding the error
/// of each rounding it makes (one u·|r| per op, propagated to first order).
/// Ops or bodies it cannot evaluate are an error at the op.
/// With `drawRounding` (uniform in [-1, 1]; accel-run's program gate) the
/// operands are exact and each rounding is drawn instead of bounded: every
/// op of a generic's body moves its result by a draw within its own bound,
/// a sum rounds each partial sum by a draw within u·|s| of the output type
/// (in the loops' order), softmax draws as ref::softmax says; the result's
/// bound is then zero.
mlir::FailureOr<mlir::accel::ref::Result> evaluateStructured(
    mlir::Operation &op,
    llvm::function_ref<const mlir::accel::ref::Result &(mlir::Value)> lookup,
    const std::function<double()> &drawRounding = {});

/// A scalar as the oracle knows it: the kernel's value is within `err` of
/// `value`.
struct ScalarBound {
  double value = 0, err = 0;
};

/// One elementwise op of a generic body (arith and the math functions the
/// oracle models) on scalars known within their bounds: the exact result
/// and its bound (the operands' errors carried through, plus the op's own
/// rounding or implementation error). Failure for an op it does not model.
mlir::FailureOr<ScalarBound> evaluateScalar(mlir::Operation &op,
                                            llvm::ArrayRef<ScalarBound> in);

/// Point `n` of the iteration space `ranges` in row-major order (the
/// oracles walk a generic's loops this way).
inline void delinearize(int64_t n, llvm::ArrayRef<int64_t> ranges,
                        llvm::MutableArrayRef<int64_t> point) {
  for (int64_t d = int64_t(ranges.size()) - 1; d >= 0; --d) {
    point[d] = n % ranges[d];
    n /= ranges[d];
  }
}

} // namespace accel_run

#endif // ACCEL_TOOLS_ACCEL_RUN_STRUCTUREDORACLE_H
