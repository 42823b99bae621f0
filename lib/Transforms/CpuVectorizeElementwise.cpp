//===- CpuVectorizeElementwise.cpp - vector code for softmax-like ops -----===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel-cpu-vectorize-elementwise: statically shaped elementwise and
// row-reduction linalg ops on buffers become vector code (see the pass
// description); exp becomes a vectorizable polynomial.
//
//===----------------------------------------------------------------------===//

#include "ApplyOrReport.h"
#include "BufferAccess.h"
#include "DotGemm.h"
#include "accel/Dialect/Accel/IR/AccelAttrs.h"
#include "accel/Transforms/Passes.h"
#include "accel/Transforms/Transforms.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELCPUVECTORIZEELEMENTWISEPASS
#include "accel/Transforms/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;

/// Whether `op` is a candidate: buffers, not a contraction, static ranges,
/// projected-permutation maps, parallel but for the innermost loop.
static bool isCandidate(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || linalg::isaContractionOpInterface(op) ||
      op.getNumLoops() == 0 ||
      !isa<linalg::GenericOp, linalg::FillOp, linalg::CopyOp>(op))
    return false;
  if (llvm::any_of(op.getStaticLoopRanges(),
                   [](int64_t r) { return ShapedType::isDynamic(r); }))
    return false;
  // A boolean mask read as a vector would be garbage: those ops stay
  // scalar (hasBooleanBuffer).
  if (accel::hasBooleanBuffer(op))
    return false;
  // Broadcasts through constant indices (a size-1 mask dimension) are
  // left to scalar code: vectorizing them gave wrong reads.
  if (!op.hasOnlyProjectedPermutations())
    return false;
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  for (unsigned i = 0; i + 1 < iters.size(); ++i)
    if (iters[i] != utils::IteratorType::parallel)
      return false;
  return true;
}

namespace {
/// Collects the vector.reduction ops a rewrite creates (and forgets those
/// it erases again).
struct CollectReductions : public RewriterBase::Listener {
  llvm::SetVector<Operation *> created;
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    if (isa<vector::ReductionOp>(op))
      created.insert(op);
  }
  void notifyOperationErased(Operation *op) override { created.remove(op); }
};

struct AccelCpuVectorizeElementwisePass
    : public accel::impl::AccelCpuVectorizeElementwisePassBase<
          AccelCpuVectorizeElementwisePass> {
  using Base::Base;

  /// Lowers the multi-reductions of row maxima that may ignore NaNs
  /// (kUnorderedMaxAttrName) to vector.reduction ops with fastmath nnan nsz:
  /// LLVM then reduces with plain `vmaxps` instead of ordering NaNs and
  /// signed zeros around every step (about 17 % of a bf16 attention on
  /// AMX, docs/cpu-performance.md).
  LogicalResult lowerUnorderedMaxima(ArrayRef<Operation *> ops) {
    RewritePatternSet patterns(&getContext());
    vector::populateVectorMultiReductionLoweringPatterns(
        patterns, vector::VectorMultiReductionLowering::InnerReduction);
    CollectReductions collect;
    GreedyRewriteConfig config = accel::greedyConfig(maxIterations);
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    config.setListener(&collect);
    config.setMaxNumRewrites(int64_t(maxIterations) * 64 * int64_t(ops.size()));
    if (failed(applyOpPatternsGreedily(ops, std::move(patterns), config)))
      return accel::reportNotConverged(getOperation(), "unordered row max",
                                       getArgument(), config);
    for (Operation *op : collect.created) {
      auto r = cast<vector::ReductionOp>(op);
      if (r.getKind() == vector::CombiningKind::MAXIMUMF)
        r.setFastmath(r.getFastmath() | arith::FastMathFlags::nnan |
                      arith::FastMathFlags::nsz);
    }
    return success();
  }

  void runOnOperation() override {
    if (width <= 0 || maxRow <= 0) {
      getOperation().emitError() << "accel-cpu-vectorize-elementwise: width "
                                    "and max-row must be positive";
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::LinalgOp> targets;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isCandidate(op))
        targets.push_back(op);
    });
    for (linalg::LinalgOp op : targets) {
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      unsigned n = ranges.size();
      bool innerReduction = op.getIteratorTypesArray().back() ==
                            utils::IteratorType::reduction;
      if (innerReduction && ranges.back() > maxRow)
        continue;
      // With threads, a large op outside any parallel loop runs its rows
      // (every loop but the innermost) as an scf.forall: OpenMP's static
      // schedule gives each thread a contiguous share. Inside a parallel
      // loop (attention's heads) it stays sequential.
      int64_t rows = 1, elements = 1;
      for (unsigned i = 0; i < n; ++i) {
        elements *= ranges[i];
        if (i + 1 < n)
          rows *= ranges[i];
      }
      if (threads > 1 && n > 1 && rows >= threads &&
          elements >= minParallelElements &&
          !accel::insideParallelLoop(op)) {
        SmallVector<OpFoldResult> rowSizes(n, rewriter.getIndexAttr(1));
        rowSizes.back() = rewriter.getIndexAttr(0);
        scf::SCFTilingOptions rowOptions;
        rowOptions.setTileSizes(rowSizes);
        rowOptions.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
        rewriter.setInsertionPoint(op);
        FailureOr<scf::SCFTilingResult> byRows = scf::tileUsingSCF(
            rewriter, cast<TilingInterface>(op.getOperation()), rowOptions);
        if (succeeded(byRows) && byRows->tiledOps.size() == 1) {
          rewriter.eraseOp(op);
          op = cast<linalg::LinalgOp>(byRows->tiledOps.front());
        }
      }
      int64_t inner = innerReduction ? 0 : width; // 0: the whole row
      SmallVector<OpFoldResult> sizes(n, rewriter.getIndexAttr(1));
      sizes.back() = rewriter.getIndexAttr(inner);
      scf::SCFTilingOptions options;
      options.setTileSizes(sizes);
      rewriter.setInsertionPoint(op);
      FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
          rewriter, cast<TilingInterface>(op.getOperation()), options);
      if (failed(tiled))
        continue;
      rewriter.eraseOp(op);
      // Peel the innermost loop so every tile but the last is static.
      if (!innerReduction && !tiled->loops.empty())
        if (auto forOp =
                dyn_cast<scf::ForOp>(tiled->loops.back().getOperation())) {
          scf::ForOp partial;
          (void)scf::peelForLoopAndSimplifyBounds(rewriter, forOp, partial);
        }
    }
    // Full tiles now have static shapes: canonicalize, then vectorize them.
    {
      RewritePatternSet patterns(&getContext());
      for (Dialect *dialect : getContext().getLoadedDialects())
        dialect->getCanonicalizationPatterns(patterns);
      for (RegisteredOperationName op : getContext().getRegisteredOperations())
        op.getCanonicalizationPatterns(patterns, &getContext());
      if (failed(accel::applyOrReport(getOperation(), std::move(patterns),
                                      "canonicalization", getArgument(),
                                      maxIterations)))
        return signalPassFailure();
    }
    SmallVector<linalg::LinalgOp> tiles;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (!isCandidate(op))
        return;
      int64_t elements = 1;
      for (int64_t r : op.getStaticLoopRanges())
        elements *= r;
      if (elements > 0 && elements <= std::max<int64_t>(width, maxRow))
        tiles.push_back(op);
    });
    // Row maxima marked kUnorderedMaxAttrName: their vector reductions.
    SmallVector<Operation *> unorderedMaxima;
    for (linalg::LinalgOp op : tiles) {
      rewriter.setInsertionPoint(op);
      Operation *before = op->getPrevNode();
      Block *block = op->getBlock();
      if (failed(linalg::vectorize(rewriter, op)))
        continue;
      if (op->hasAttr(accel::kUnorderedMaxAttrName))
        for (Operation *it = before ? before->getNextNode() : &block->front();
             it != op.getOperation(); it = it->getNextNode())
          if (auto r = dyn_cast<vector::MultiDimReductionOp>(it);
              r && r.getKind() == vector::CombiningKind::MAXIMUMF)
            unorderedMaxima.push_back(r);
      rewriter.eraseOp(op);
    }
    if (!unorderedMaxima.empty() &&
        failed(lowerUnorderedMaxima(unorderedMaxima)))
      return signalPassFailure();
    // Vector exp2 -> exp -> polynomial, and tanh and erf (activations in
    // matmul epilogues) to upstream's f32 polynomials. Only vectors (made
    // above or by accel-cpu-vectorize-contractions's epilogues): the
    // approximation patterns also match scalars, and scalar exps elsewhere
    // (the reference lowering's softmax) keep libm's.
    SmallVector<Operation *> vectorExps;
    getOperation().walk([&](Operation *op) {
      if (isa<math::ExpOp, math::Exp2Op, math::TanhOp, math::ErfOp>(op) &&
          isa<VectorType>(op->getResult(0).getType()))
        vectorExps.push_back(op);
    });
    if (!vectorExps.empty()) {
      RewritePatternSet expPatterns(&getContext());
      // f32 exp2 (the attention kernel's softmax) directly; other exp2s
      // through exp and upstream's polynomial. The benefit makes ours win
      // where both match.
      accel::populateFastExp2Patterns(expPatterns);
      math::populateExpansionPatterns(expPatterns, {"exp2"});
      populateMathPolynomialApproximationPatterns(
          expPatterns,
          [](StringRef name) {
            return llvm::is_contained({"exp", "math.exp", "tanh", "math.tanh",
                                       "erf", "math.erf"},
                                      name);
          });
      GreedyRewriteConfig config = accel::greedyConfig(maxIterations);
      config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
      // This driver works through a list of ops and ignores the sweep
      // limit: an exp takes a handful of rewrites, so max-iterations x 64
      // per exp bounds the stage instead.
      config.setMaxNumRewrites(int64_t(maxIterations) * 64 *
                               int64_t(vectorExps.size()));
      if (failed(applyOpPatternsGreedily(vectorExps, std::move(expPatterns),
                                         config))) {
        (void)accel::reportNotConverged(getOperation(), "exp approximation",
                                        getArgument(), config);
        return signalPassFailure();
      }
    }
    // Reductions to 1-D, transfers and broadcasts to what LLVM lowers.
    llvm::SmallPtrSet<Operation *, 8> earlierReductions;
    getOperation().walk(
        [&](vector::ReductionOp r) { earlierReductions.insert(r); });
    RewritePatternSet patterns(&getContext());
    vector::populateVectorMultiReductionLoweringPatterns(
        patterns, vector::VectorMultiReductionLowering::InnerReduction);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateVectorBroadcastLoweringPatterns(patterns);
    if (failed(accel::applyOrReport(getOperation(), std::move(patterns),
                                    "vector-lowering", getArgument(),
                                    maxIterations)))
      return signalPassFailure();
    // The float sums and products of the rows vectorized here may be
    // reassociated: without `reassoc`, LLVM keeps the sequential order and
    // a 128-element row sum is a chain of 128 dependent scalar adds (about
    // 8 % of a d = 128 attention kernel); with it, vector adds and a
    // log2-step tree. Every gate on such a sum (numerics.md) bounds any
    // summation order; min and max are exact in any order anyway.
    getOperation().walk([&](vector::ReductionOp r) {
      if (earlierReductions.contains(r) ||
          !isa<FloatType>(r.getDest().getType()) ||
          !llvm::is_contained({vector::CombiningKind::ADD,
                               vector::CombiningKind::MUL},
                              r.getKind()))
        return;
      r.setFastmath(r.getFastmath() | arith::FastMathFlags::reassoc);
    });
  }
};
} // namespace
