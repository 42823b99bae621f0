//===- RoundingOracle.h - ops the fp64 oracle replays exactly ---*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Casts to a narrower type (f32 -> bf16, fp8, int8), per-tensor scales and
// max-|x| reductions are what precision lowering puts in front of a matmul.
// Each of their operations is correctly rounded (IEEE +, -, *, /, casts,
// comparisons, min/max, round-to-even), so on exactly known operands the
// oracle can replay them bit for bit: the kernel's low-precision inputs are
// then known exactly, and the matmul's gate is the real precision's
// (numerics contract: the reference is computed on the inputs rounded to the
// kernel's input type). Written from the ops' definitions, independently of
// the compiler.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_TOOLS_ACCEL_RUN_ROUNDINGORACLE_H
#define ACCEL_TOOLS_ACCEL_RUN_ROUNDINGORACLE_H

#include "accel/Reference/Reference.h"
#include "mlir/IR/Operation.h"

namespace accel_run {

using Lookup =
    llvm::function_ref<const mlir::accel::ref::Result &(mlir::Value)>;

/// Whether evaluateReplayed models `op`: tensor.extract; scalar arith and
/// math ops that round correctly, on exact operands (bound 0); and
/// linalg.generics on tensors whose bodies only hold such ops and whose
/// reduction, if any, is a max or min (the only order-independent one).
/// A generic may read operands known within a bound (a matmul's result
/// converted back to f32) when its body has no comparison or
/// float-to-integer rounding, whose results would jump.
bool isReplayable(mlir::Operation &op, Lookup lookup);

/// `op`'s result. Each op on exact operands is replayed, rounded as the op
/// defines it (bound 0: bit-exact); an op on an operand known within a
/// bound gives the exact real result and a first-order bound (each
/// rounding adds u·|r|), as the structured oracle does. tensor.extract
/// keeps the element's value and bound.
mlir::FailureOr<mlir::accel::ref::Result> evaluateReplayed(mlir::Operation &op,
                                                           Lookup lookup);

} // namespace accel_run

#endif // ACCEL_TOOLS_ACCEL_RUN_ROUNDINGORACLE_H
