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
#include "llvm/ADT/ArrayRef.h"
#include <functional>
#include <optional>
#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace mlir {
class Operation;
namespace func {
class FuncOp;
} // namespace func
namespace accel {
struct CpuKernelCalibration;

/// What an accel op (matmul, softmax, attention) with static shapes must
/// do: its FLOPs, the bytes it moves at least (each operand read once, each
/// result written once) and the precision whose peak applies. None for
/// other ops and dynamic shapes.
struct RooflineCost {
  double flops = 0, bytes = 0;
  Type precision;
  /// The softmax elements among the FLOPs (attention's kept logits, a
  /// softmax's inputs): what a calibrated time model prices apart
  /// (exponentials, row statistics; CpuKernelCalibration).
  double scores = 0;
};
std::optional<RooflineCost> getRooflineCost(Operation *op);
/// The work the kernel of the op's lowering_config executes, which a
/// calibrated time model prices: as getRooflineCost, except that a causal
/// attention on a cpu-flash kernel counts every pair of the key tiles it
/// visits (whole tiles of its config's [query, key] tile, the keys past
/// the band masked, not skipped).
std::optional<RooflineCost> getKernelCost(Operation *op);

/// The bytes of a shaped type's elements (sub-byte types count as bytes).
double getRooflineBytes(Type shaped);

/// max(FLOPs / peak, bytes / bandwidth) in seconds on `target`; none when
/// the target has no peak for the cost's precision.
std::optional<double> getRooflineSeconds(const RooflineCost &cost,
                                         TargetAttr target);

/// The calibrated time in seconds of an op of `cost` (getKernelCost) run
/// on `threads` cores of the CPU `target` by the kernel `cal` describes:
/// its fitted terms, and no less than the bytes at the cores' bandwidth
/// when they exceed the cores' L2 (the calibration's samples run with
/// their operands in cache, as a call after the op that wrote them does).
double getCalibratedSeconds(const RooflineCost &cost,
                            const CpuKernelCalibration &cal, TargetAttr target,
                            int64_t threads);
/// One point of a roofline plot: its work, the model's time and, when it was
/// run, the time it took.
struct RooflinePoint {
  std::string label;
  RooflineCost cost;
  double predictedSeconds = 0;
  std::optional<double> measuredSeconds;
};

/// A function's point on `target`: the FLOPs of its accel ops summed, the
/// bytes of its arguments and results (what it must read and write at
/// least), the precision of its op with the most FLOPs, and the sum of its
/// ops' predicted times. None when no op has a static cost with a peak on
/// the target.
std::optional<RooflinePoint> getFunctionRoofline(func::FuncOp func,
                                                 TargetAttr target);

/// The roofs of a plot: a name, the memory bandwidth and the peak of each
/// precision, in G(FL)OP/s (0: none).
struct RooflineRoofs {
  std::string name;
  double bandwidthGBps = 0;
  std::function<double(Type)> peakGflops;
  /// How the figures were obtained, printed beside the name.
  std::string source;
};

/// `target`'s catalogue figures times `scale` (the cores a run used).
RooflineRoofs getCatalogueRoofs(TargetAttr target, double scale = 1.0);

/// A log-log roofline SVG with `points`: a roof per peak the points'
/// precisions have (min(peak, bandwidth x intensity)), each point's
/// predicted performance as a hollow circle (class "model") and, when
/// measured, its measured performance as a filled one (class "measured")
/// on the same intensity, joined by a line, and a legend with each point's
/// FLOPs, intensity, predicted and measured FLOP/s, the fraction of the
/// roof reached and measured ÷ predicted time. `note` goes under the title.
void writeRooflineSvg(llvm::raw_ostream &os, const RooflineRoofs &roofs,
                      llvm::ArrayRef<RooflinePoint> points,
                      llvm::StringRef note = "");

} // namespace accel
} // namespace mlir

#endif // ACCEL_TRANSFORMS_ROOFLINE_H
