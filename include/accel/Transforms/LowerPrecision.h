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
class DenseFPElementsAttr;
class Operation;
class RewritePatternSet;
class RewriterBase;
class Value;
namespace accel {
class MatmulOp;

/// accel-lower-precision's weight-only mode (weight-only=int4|int8):
/// matmuls whose weights are constants become accel.dequant_matmul with
/// the weights quantised at compile time (lib/Transforms/QuantizeWeights.cpp,
/// docs/quantization.md).
struct WeightOnlyOptions {
  int64_t bits = 4;
  /// K values a scale covers; 0: the whole row (per channel).
  int64_t group = 128;
  /// Signed weights without zero points (else unsigned with zero points).
  bool symmetric = false;
};

/// Whether `op`'s weights are a constant the weight-only mode quantises
/// (returned in `weights` when not null); failure for other matmuls,
/// reported at the op when `diagnose` and the weights are a constant that
/// the mode cannot take (a group that does not divide K, 3-D, ...).
LogicalResult checkWeightOnlyCandidate(MatmulOp op,
                                       const WeightOnlyOptions &options,
                                       DenseFPElementsAttr *weights,
                                       bool diagnose);

/// The weight-only mode's rewrite of each candidate matmul.
void populateAccelWeightOnlyPatterns(RewritePatternSet &patterns,
                                     const WeightOnlyOptions &options);

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
