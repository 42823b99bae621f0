//===- ApproximateMath.cpp - device-library-free math in GPU kernels ------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel-gpu-approximate-math: tanh, erf and rsqrt in a gpu.module become
// arith (upstream's polynomials; 1 / sqrt), so that the AMD lowering emits
// no OCML call and a code object needs no ROCm device library.
//
//===----------------------------------------------------------------------===//

#include "accel/Conversion/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELGPUAPPROXIMATEMATHPASS
#include "accel/Conversion/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;

namespace {

struct AccelGpuApproximateMathPass
    : public mlir::accel::impl::AccelGpuApproximateMathPassBase<
          AccelGpuApproximateMathPass> {
  using Base::Base;

  void runOnOperation() override {
    auto wanted = [](StringRef name) {
      return llvm::is_contained(
          {"tanh", "math.tanh", "erf", "math.erf", "rsqrt", "math.rsqrt"},
          name);
    };
    RewritePatternSet patterns(&getContext());
    // f16 / bf16 through f32, then the f32 polynomials; rsqrt as 1 / sqrt.
    populateMathF32ExpansionPatterns(patterns, wanted);
    populateMathPolynomialApproximationPatterns(patterns, wanted);
    math::populateExpansionPatterns(patterns, {"rsqrt"});
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // Anything left would become a library call the code object lacks.
    WalkResult left = getOperation().walk([&](Operation *op) {
      if (isa<math::TanhOp, math::ErfOp, math::RsqrtOp>(op)) {
        op->emitOpError("has no library-free lowering on this type (f16, "
                        "bf16 and f32 have one)");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (left.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
