//===- CpuVectorizeContractions.cpp - CPU matmul codegen ------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel-cpu-vectorize-contractions: two levels of tiling through the
// TilingInterface (upstream scf::tileUsingSCF) and linalg vectorization of
// the register tile, then hoisting of the C tile out of the K loop.
//
//===----------------------------------------------------------------------===//

#include "ApplyOrReport.h"
#include "accel/Transforms/Passes.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELCPUVECTORIZECONTRACTIONSPASS
#include "accel/Transforms/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;

namespace {
/// The loop positions of a contraction with one M, N and K dimension.
struct Roles {
  SmallVector<unsigned> batch;
  unsigned m, n, k;
};
} // namespace

static std::optional<Roles> rolesOf(linalg::LinalgOp op) {
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
      dims->k.size() != 1)
    return std::nullopt;
  Roles roles{SmallVector<unsigned>(dims->batch.begin(), dims->batch.end()),
              dims->m[0], dims->n[0], dims->k[0]};
  return roles;
}

/// Tile sizes over all loops: 1 for batch loops, the given sizes for M, N, K.
static SmallVector<OpFoldResult> sizesFor(Builder &b, const Roles &roles,
                                          unsigned numLoops, int64_t m,
                                          int64_t n, int64_t k) {
  SmallVector<OpFoldResult> sizes(numLoops, b.getIndexAttr(1));
  sizes[roles.m] = b.getIndexAttr(m);
  sizes[roles.n] = b.getIndexAttr(n);
  sizes[roles.k] = b.getIndexAttr(k);
  return sizes;
}

/// Loop order: batch loops outermost, then `order` (positions of M/N/K).
static SmallVector<int64_t> interchangeFor(const Roles &roles,
                                           ArrayRef<unsigned> order) {
  SmallVector<int64_t> perm(roles.batch.begin(), roles.batch.end());
  perm.append(order.begin(), order.end());
  return perm;
}

/// Tiles `op` with `sizes` in loop order `interchange`; the original op is
/// erased.
static FailureOr<scf::SCFTilingResult>
tile(RewriterBase &rewriter, linalg::LinalgOp op, ArrayRef<OpFoldResult> sizes,
     ArrayRef<int64_t> interchange, bool forall = false) {
  scf::SCFTilingOptions options;
  options.setTileSizes(sizes).setInterchange(interchange);
  if (forall)
    options.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(op.getOperation()), options);
  if (failed(tiled))
    return failure();
  rewriter.eraseOp(op);
  return tiled;
}

namespace {
/// Forwards to upstream's folding of a vector.transfer_read through a view,
/// except for a read of a memref.expand_shape that upstream cannot fold: one
/// with more vector dims than the expand_shape's source has (a register
/// tile's leading unit dims on a reshaped function argument) or with a map
/// that is not a minor identity. Upstream (LLVM 22) builds the source
/// indices before it checks those and then reports no match; the index ops
/// it leaves behind count as a change, so the greedy driver never converges.
/// Such a read stays on the view, which later lowering handles.
class FoldableTransferReadPattern : public RewritePattern {
public:
  explicit FoldableTransferReadPattern(std::unique_ptr<RewritePattern> inner)
      : RewritePattern(vector::TransferReadOp::getOperationName(),
                       inner->getBenefit(), inner->getContext()),
        inner(std::move(inner)) {
    setDebugName(this->inner->getDebugName());
    setHasBoundedRewriteRecursion(this->inner->hasBoundedRewriteRecursion());
  }

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    auto read = cast<vector::TransferReadOp>(op);
    if (auto expand = read.getBase().getDefiningOp<memref::ExpandShapeOp>())
      if (!read.getPermutationMap().isMinorIdentity() ||
          read.getVectorType().getRank() > expand.getSrcType().getRank())
        return rewriter.notifyMatchFailure(
            op, "a read of an expand_shape upstream cannot fold");
    return inner->matchAndRewrite(op, rewriter);
  }

private:
  std::unique_ptr<RewritePattern> inner;
};
} // namespace

/// Upstream's patterns that move loads and stores from views (subview,
/// expand_shape, collapse_shape) onto their sources, with the reads guarded
/// by FoldableTransferReadPattern.
static void populateFoldAliasPatterns(RewritePatternSet &patterns) {
  RewritePatternSet upstream(patterns.getContext());
  memref::populateFoldMemRefAliasOpPatterns(upstream);
  for (std::unique_ptr<RewritePattern> &pattern :
       upstream.getNativePatterns()) {
    std::optional<OperationName> root = pattern->getRootKind();
    if (root &&
        root->getStringRef() == vector::TransferReadOp::getOperationName())
      patterns.add(
          std::make_unique<FoldableTransferReadPattern>(std::move(pattern)));
    else
      patterns.add(std::move(pattern));
  }
}

/// The shared reporting helper, with this pass's name.
static LogicalResult applyOrReport(func::FuncOp func,
                                   RewritePatternSet &&patterns,
                                   StringRef stage) {
  return accel::applyOrReport(func, std::move(patterns), stage,
                              "accel-cpu-vectorize-contractions");
}

/// Runs every canonicalization pattern: after peeling, it turns the full
/// tiles' affine.min sizes into constants and their subviews static.
static LogicalResult canonicalize(func::FuncOp func) {
  MLIRContext *ctx = func.getContext();
  RewritePatternSet patterns(ctx);
  for (Dialect *dialect : ctx->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName op : ctx->getRegisteredOperations())
    op.getCanonicalizationPatterns(patterns, ctx);
  return applyOrReport(func, std::move(patterns), "canonicalization");
}

namespace {
struct AccelCpuVectorizeContractionsPass
    : public accel::impl::AccelCpuVectorizeContractionsPassBase<
          AccelCpuVectorizeContractionsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<int64_t> cache(cacheTile.begin(), cacheTile.end());
    SmallVector<int64_t> reg(registerTile.begin(), registerTile.end());
    // Defaults measured on Zen 5 (AVX-512) for f32, 1024^3: 6 x 64 keeps 24
    // accumulators in zmm registers; see bench/README.md.
    if (cache.empty())
      cache = {256, 512, 256};
    if (reg.empty())
      reg = {6, 64, 1};
    if (cache.size() != 3 || llvm::any_of(cache, [](int64_t s) {
          return s < 0;
        })) {
      getOperation().emitError() << "accel-cpu-vectorize-contractions: "
                                    "cache-tile needs 3 sizes >= 0 [Mc, Nc, "
                                    "Kc]";
      return signalPassFailure();
    }
    if (reg.size() != 3 ||
        llvm::any_of(reg, [](int64_t s) { return s <= 0; })) {
      getOperation().emitError() << "accel-cpu-vectorize-contractions: "
                                    "register-tile needs 3 positive sizes "
                                    "[mr, nr, kr]";
      return signalPassFailure();
    }

    SmallVector<linalg::LinalgOp> targets;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics() && linalg::isaContractionOpInterface(op))
        targets.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : targets) {
      std::optional<Roles> roles = rolesOf(op);
      if (!roles)
        continue;
      unsigned numLoops = op.getNumLoops();
      // Cache level: N, K, M; or, in parallel, an scf.forall over the M and
      // N tiles (disjoint blocks of C) and the K tiles sequential inside.
      FailureOr<scf::SCFTilingResult> outer;
      if (threads > 1) {
        FailureOr<scf::SCFTilingResult> blocks = tile(
            rewriter, op,
            sizesFor(rewriter, *roles, numLoops, cache[0], cache[1], 0),
            interchangeFor(*roles, {roles->n, roles->m, roles->k}),
            /*forall=*/true);
        if (failed(blocks))
          continue;
        outer = tile(rewriter,
                     cast<linalg::LinalgOp>(blocks->tiledOps.back()),
                     sizesFor(rewriter, *roles, numLoops, 0, 0, cache[2]),
                     interchangeFor(*roles, {roles->n, roles->k, roles->m}));
      } else {
        outer = tile(rewriter, op,
                     sizesFor(rewriter, *roles, numLoops, cache[0], cache[1],
                              cache[2]),
                     interchangeFor(*roles, {roles->n, roles->k, roles->m}));
      }
      if (failed(outer))
        continue;
      // Register level: N, M, then K innermost.
      auto inner = cast<linalg::LinalgOp>(outer->tiledOps.back());
      FailureOr<scf::SCFTilingResult> micro =
          tile(rewriter, inner,
               sizesFor(rewriter, *roles, numLoops, reg[0], reg[1], reg[2]),
               interchangeFor(*roles, {roles->n, roles->m, roles->k}));
      if (failed(micro))
        continue;
      // Peel the M and N register loops (M first: peeling N then copies
      // both M parts), so every tile but the last has a static shape, and
      // the last one has one too when the sizes are static.
      unsigned nLoop = roles->batch.size(), mLoop = nLoop + 1;
      for (unsigned l : {mLoop, nLoop}) {
        if (l >= micro->loops.size())
          continue;
        auto forOp = dyn_cast<scf::ForOp>(micro->loops[l].getOperation());
        scf::ForOp partial;
        if (forOp)
          (void)scf::peelForLoopAndSimplifyBounds(rewriter, forOp, partial);
      }
    }
    if (failed(canonicalize(getOperation())))
      return signalPassFailure();

    // Vectorize the register tiles that have a static shape; a tile of
    // unknown size stays scalar (it becomes loops).
    int64_t maxElements = reg[0] * reg[1] * reg[2];
    SmallVector<linalg::LinalgOp> tiles;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (!op.hasPureBufferSemantics() ||
          !linalg::isaContractionOpInterface(op) || !rolesOf(op))
        return;
      int64_t elements = 1;
      for (int64_t r : op.getStaticLoopRanges()) {
        if (ShapedType::isDynamic(r))
          return;
        elements *= r;
      }
      if (elements > 0 && elements <= maxElements)
        tiles.push_back(op);
    });
    for (linalg::LinalgOp op : tiles) {
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::VectorizationResult> vectorized = linalg::vectorize(
          rewriter, op, /*inputVectorSizes=*/{}, /*inputScalableVecDims=*/{},
          /*vectorizeNDExtract=*/false, /*flatten1DDepthwiseConv=*/false,
          /*assumeDynamicDimsMatchVecSizes=*/false,
          /*createNamedContraction=*/false);
      if (succeeded(vectorized))
        rewriter.eraseOp(op);
    }
    MLIRContext *ctx = &getContext();
    // The vectorizer's broadcast * broadcast + multi_reduction becomes a
    // vector.contract reading A and B directly.
    {
      RewritePatternSet patterns(ctx);
      vector::populateVectorReductionToContractPatterns(patterns);
      vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
      vector::populateSinkVectorOpsPatterns(patterns);
      // Transfers on the base buffers: hoisting refuses views.
      populateFoldAliasPatterns(patterns);
      vector::TransferReadOp::getCanonicalizationPatterns(patterns, ctx);
      vector::TransferWriteOp::getCanonicalizationPatterns(patterns, ctx);
      if (failed(applyOrReport(getOperation(), std::move(patterns),
                               "contraction-forming")))
        return signalPassFailure();
    }
    // Keep the C tile in registers across the K loop (hoisting matches the
    // read and the write by their index values: CSE them first).
    {
      DominanceInfo dominance(getOperation());
      eliminateCommonSubExpressions(rewriter, dominance, getOperation());
    }
    linalg::hoistRedundantVectorTransfers(getOperation());
    // Down to 1-D vectors: the contraction as outer products (one FMA per
    // row of the C tile per k), transfers as loads and stores.
    {
      RewritePatternSet patterns(ctx);
      vector::populateVectorContractLoweringPatterns(
          patterns, vector::VectorContractLowering::OuterProduct);
      vector::populateVectorOuterProductLoweringPatterns(patterns);
      vector::populateVectorMultiReductionLoweringPatterns(
          patterns, vector::VectorMultiReductionLowering::InnerParallel);
      vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
      vector::populateVectorTransferLoweringPatterns(patterns,
                                                     /*maxTransferRank=*/1);
      vector::populateVectorBroadcastLoweringPatterns(patterns);
      vector::populateVectorShapeCastLoweringPatterns(patterns);
      vector::populateVectorTransposeLoweringPatterns(
          patterns, vector::VectorTransposeLowering::EltWise);
      if (failed(applyOrReport(getOperation(), std::move(patterns),
                               "vector-lowering")))
        return signalPassFailure();
    }
  }
};
} // namespace
