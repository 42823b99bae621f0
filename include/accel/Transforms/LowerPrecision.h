//===- LowerPrecision.h - accel-lower-precision policy ----------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// What accel-lower-precision does with an op, for the pass, its patterns
// (populateLowerPrecisionPatterns in Transforms.h) and tools that lower a
// function in several precisions.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_TRANSFORMS_LOWERPRECISION_H
#define ACCEL_TRANSFORMS_LOWERPRECISION_H

#include "accel/Dialect/Accel/IR/AccelAttrs.h"
#include <optional>

namespace mlir {
class Operation;
class RewriterBase;
class Value;
namespace accel {

/// The choices of accel-lower-precision that are not per op.
struct LowerPrecisionOptions {
  /// The policy of ops without an accel.precision attribute; none: those ops
  /// are left alone.
  std::optional<PrecisionPolicy> policy;
  /// The target whose legality rules apply; null: no check.
  TargetAttr target;
  /// Where the target or the op lacks the precision: round the inputs and
  /// compute in f32 (true), or refuse (false).
  bool emulate = false;
  /// Test only (`debug-scale-error`): the last input's dequantisation scale
  /// is multiplied by 1 + this, a deliberate scale error for the tests that
  /// show accel-run --precision-report catches one. 0: none.
  double debugScaleError = 0.0;
};

/// What becomes of one op.
struct PrecisionPlan {
  PrecisionPolicy policy;
  /// Quantise and dequantise the inputs around an f32 op.
  bool emulate = false;
  /// LowerPrecisionOptions::debugScaleError (test only; 0: none).
  double debugScaleError = 0.0;
};

/// The plan for `op` (an accel.matmul or accel.attention); nullopt when the
/// op stays as it is. A policy that cannot apply to the op (or on the
/// target, unless emulating) is a failure, reported at the op when
/// `diagnose`, which also warns about f16/bf16 accumulation over a long K.
FailureOr<std::optional<PrecisionPlan>>
planLowerPrecision(Operation *op, const LowerPrecisionOptions &options,
                   bool diagnose);

/// Rewrites `op` (an f32 accel.matmul or accel.attention) as `plan` says
/// and returns the f32 value that replaces its result. Pre: `plan` came
/// from planLowerPrecision for `op`.
Value lowerPrecision(RewriterBase &rewriter, Operation *op,
                     const PrecisionPlan &plan);

} // namespace accel
} // namespace mlir

#endif // ACCEL_TRANSFORMS_LOWERPRECISION_H
