//===- ApplyOrReport.h - greedy rewrites that never fail silently ---------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_TRANSFORMS_APPLYORREPORT_H
#define ACCEL_LIB_TRANSFORMS_APPLYORREPORT_H

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::accel {

/// The greedy driver's configuration for a pass's `max-iterations` option
/// (Passes.td, MaxIterationsOption).
inline GreedyRewriteConfig greedyConfig(unsigned maxIterations) {
  GreedyRewriteConfig config;
  config.setMaxIterations(maxIterations);
  return config;
}

/// Says at `op` that the greedy rewrites of the `stage` of `pass` did not
/// converge within `config`'s sweeps, and fails: a pass never fails
/// without a diagnostic. (A driver that stops at its sweep limit returns
/// failure; the limit is what keeps an oscillating pattern set from
/// hanging.)
inline LogicalResult reportNotConverged(Operation *op, StringRef stage,
                                        StringRef pass,
                                        const GreedyRewriteConfig &config) {
  InFlightDiagnostic diag = op->emitError()
                            << "pattern rewrites did not converge in the "
                            << stage << " stage of " << pass << " within ";
  // Op-list drivers (applyOpPatternsGreedily) ignore the sweep limit and
  // are bounded by a number of rewrites instead.
  int64_t limit = config.getMaxNumRewrites();
  if (limit != GreedyRewriteConfig::kNoLimit)
    return diag << limit << (limit == 1 ? " rewrite" : " rewrites");
  limit = config.getMaxIterations();
  return diag << limit << (limit == 1 ? " sweep" : " sweeps");
}

/// Applies `patterns` greedily to the regions of `op`; when they do not
/// converge, says so at `op`, naming the `stage` of `pass`. A limit of 0
/// sweeps, which would make the driver return at once having done nothing,
/// is an error too.
inline LogicalResult applyOrReport(Operation *op, RewritePatternSet &&patterns,
                                   StringRef stage, StringRef pass,
                                   const GreedyRewriteConfig &config) {
  if (config.getMaxIterations() == 0)
    return op->emitError() << pass << ": max-iterations must be at least 1";
  if (succeeded(applyPatternsGreedily(op, std::move(patterns), config)))
    return success();
  return reportNotConverged(op, stage, pass, config);
}

/// As above, within `maxIterations` sweeps (a pass's max-iterations
/// option).
inline LogicalResult applyOrReport(Operation *op, RewritePatternSet &&patterns,
                                   StringRef stage, StringRef pass,
                                   unsigned maxIterations) {
  return applyOrReport(op, std::move(patterns), stage, pass,
                       greedyConfig(maxIterations));
}

/// Applies the patterns `populate` adds to the regions of `op` greedily,
/// within `maxIterations` sweeps; reports as above.
inline LogicalResult
applyOrReport(Operation *op, function_ref<void(RewritePatternSet &)> populate,
              StringRef stage, StringRef pass, unsigned maxIterations) {
  RewritePatternSet patterns(op->getContext());
  populate(patterns);
  return applyOrReport(op, std::move(patterns), stage, pass, maxIterations);
}

} // namespace mlir::accel

#endif // ACCEL_LIB_TRANSFORMS_APPLYORREPORT_H
