//===- CpuSerializeNestedParallel.cpp - one level of parallel loops -------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel-cpu-serialize-nested-parallel: an scf.parallel inside another one,
// or one of a single iteration, becomes nested scf.for loops. The JIT's
// convert-scf-to-openmp makes every scf.parallel an omp.parallel region;
// inside a parallel task the runtime runs a nested region on one thread
// anyway, but pays for the region each time (a paged attention's tasks
// and its combine opened 44 of them a call and ran 4x slower on two
// threads than on one). The AOT libraries' accel-cpu-outline-parallel
// already keeps nested loops sequential.
//
//===----------------------------------------------------------------------===//

#include "accel/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELCPUSERIALIZENESTEDPARALLELPASS
#include "accel/Transforms/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;

/// Whether `op` runs exactly one iteration (every dimension's static trip
/// count is 1).
static bool singleIteration(scf::ParallelOp op) {
  for (auto [lb, ub, step] :
       llvm::zip(op.getLowerBound(), op.getUpperBound(), op.getStep())) {
    std::optional<int64_t> l = getConstantIntValue(lb),
                           u = getConstantIntValue(ub),
                           s = getConstantIntValue(step);
    if (!l || !u || !s || *s <= 0 || *u - *l > *s || *u <= *l)
      return false;
  }
  return true;
}

namespace {
struct AccelCpuSerializeNestedParallelPass
    : public accel::impl::AccelCpuSerializeNestedParallelPassBase<
          AccelCpuSerializeNestedParallelPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<scf::ParallelOp> serial;
    getOperation()->walk([&](scf::ParallelOp op) {
      if (op.getNumResults() == 0 &&
          (op->getParentOfType<scf::ParallelOp>() || singleIteration(op)))
        serial.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    // Innermost first (post-order walk): each rewrite leaves its ancestors.
    for (scf::ParallelOp op : serial) {
      rewriter.setInsertionPoint(op);
      if (failed(scf::parallelForToNestedFors(rewriter, op))) {
        op.emitOpError("accel-cpu-serialize-nested-parallel could not make "
                       "this loop sequential");
        return signalPassFailure();
      }
    }
  }
};
} // namespace
