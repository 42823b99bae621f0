//===- CpuTransposeRhs.cpp - contractions read B as [K, N] ----------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel-cpu-transpose-rhs: a linalg contraction on tensors whose right-hand
// side is indexed (.., n, k) reads a transposed copy indexed (.., k, n).
//
//===----------------------------------------------------------------------===//

#include "ApplyOrReport.h"
#include "accel/Transforms/Passes.h"
#include "accel/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELCPUTRANSPOSERHSPASS
#include "accel/Transforms/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;

namespace {
/// (.., n, k) on B becomes (.., k, n) on linalg.transpose(B).
struct TransposeRhs : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
        !linalg::isaContractionOpInterface(op))
      return rewriter.notifyMatchFailure(op, "not a tensor contraction");
    FailureOr<linalg::ContractionDimensions> dims =
        linalg::inferContractionDims(op);
    if (failed(dims) || dims->n.size() != 1 || dims->k.size() != 1)
      return rewriter.notifyMatchFailure(op, "needs one N and one K dim");
    OpOperand *rhs = op.getDpsInputOperand(1);
    AffineMap map = op.getMatchingIndexingMap(rhs);
    unsigned rank = map.getNumResults();
    if (rank < 2)
      return rewriter.notifyMatchFailure(op, "rhs of rank < 2");
    auto last = dyn_cast<AffineDimExpr>(map.getResult(rank - 1));
    auto second = dyn_cast<AffineDimExpr>(map.getResult(rank - 2));
    if (!last || !second || last.getPosition() != dims->k[0] ||
        second.getPosition() != dims->n[0])
      return rewriter.notifyMatchFailure(op, "rhs is not (.., n, k)");

    Location loc = op.getLoc();
    Value b = rhs->get();
    SmallVector<int64_t> perm;
    for (unsigned i = 0; i + 2 < rank; ++i)
      perm.push_back(i);
    perm.push_back(rank - 1);
    perm.push_back(rank - 2);
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, b);
    std::swap(sizes[rank - 1], sizes[rank - 2]);
    Value init = tensor::EmptyOp::create(
        rewriter, loc, sizes, getElementTypeOrSelf(b.getType()));
    Value transposed =
        linalg::TransposeOp::create(rewriter, loc, b, init, perm)
            .getResult()[0];
    SmallVector<AffineExpr> results(map.getResults());
    std::swap(results[rank - 1], results[rank - 2]);
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    maps[rhs->getOperandNumber()] =
        AffineMap::get(map.getNumDims(), 0, results, op.getContext());
    rewriter.modifyOpInPlace(op, [&] {
      rhs->set(transposed);
      op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
    return success();
  }
};

struct AccelCpuTransposeRhsPass
    : public accel::impl::AccelCpuTransposeRhsPassBase<
          AccelCpuTransposeRhsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(accel::applyOrReport(
            getOperation(), accel::populateCpuTransposeRhsPatterns,
            "transposition", getArgument(), maxIterations)))
      signalPassFailure();
  }
};
} // namespace

void accel::populateCpuTransposeRhsPatterns(RewritePatternSet &patterns) {
  patterns.add<TransposeRhs>(patterns.getContext());
}
