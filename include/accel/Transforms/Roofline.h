//===- Roofline.h - an accel op's work on a target's roofline ---*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
// The roofline model accel-roofline reports and accel-scale-model sums
// (docs/roofline.md, docs/distributed.md): one definition of an op's work.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_TRANSFORMS_ROOFLINE_H
#define ACCEL_TRANSFORMS_ROOFLINE_H

#include "accel/Dialect/Accel/IR/AccelAttrs.h"
#include "mlir/IR/Types.h"
#include <optional>

namespace mlir {
class Operation;
namespace accel {

/// What an accel op (matmul, softmax, attention) with static shapes must
/// do: its FLOPs, the bytes it moves at least (each operand read once, each
/// result written once) and the precision whose peak applies. None for
/// other ops and dynamic shapes.
struct RooflineCost {
  double flops = 0, bytes = 0;
  Type precision;
};
std::optional<RooflineCost> getRooflineCost(Operation *op);

/// The bytes of a shaped type's elements (sub-byte types count as bytes).
double getRooflineBytes(Type shaped);

/// max(FLOPs / peak, bytes / bandwidth) in seconds on `target`; none when
/// the target has no peak for the cost's precision.
std::optional<double> getRooflineSeconds(const RooflineCost &cost,
                                         TargetAttr target);

} // namespace accel
} // namespace mlir

#endif // ACCEL_TRANSFORMS_ROOFLINE_H
