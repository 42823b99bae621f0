//===- ApplyOrReport.h - greedy rewrites that never fail silently ---------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_TRANSFORMS_APPLYORREPORT_H
#define ACCEL_LIB_TRANSFORMS_APPLYORREPORT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::accel {

/// Applies `patterns` greedily to `func`; when they do not converge, says so
/// at `func`, naming the `stage` of `pass`, so a pass never fails without a
/// diagnostic.
inline LogicalResult applyOrReport(func::FuncOp func,
                                   RewritePatternSet &&patterns,
                                   StringRef stage, StringRef pass) {
  if (succeeded(applyPatternsGreedily(func, std::move(patterns))))
    return success();
  return func.emitError() << "pattern rewrites did not converge in the "
                          << stage << " stage of " << pass;
}

} // namespace mlir::accel

#endif // ACCEL_LIB_TRANSFORMS_APPLYORREPORT_H
