//===- Tile.cpp - target-driven multi-level tiling ------------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel-tile: two levels of tiling of accel ops through TilingInterface
// (upstream scf::tileUsingSCF), with the sizes of the cost model
// (accel/Target/CostModel.h, docs/tiling.md) or of the options.
//
//===----------------------------------------------------------------------===//

#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "accel/Target/Catalogue.h"
#include "accel/Target/CostModel.h"
#include "accel/Transforms/Passes.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/TilingInterface.h"

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELTILEPASS
#include "accel/Transforms/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;
using namespace mlir::accel;

/// Tiles `op` by `sizes` (0: not tiled) with loops of `loopType` and
/// replaces it; returns the tiled op. Pre: some size is positive.
static FailureOr<TilingInterface>
tileBy(RewriterBase &rewriter, TilingInterface op, ArrayRef<int64_t> sizes,
       scf::SCFTilingOptions::LoopType loopType) {
  SmallVector<OpFoldResult> ofrs;
  for (int64_t s : sizes)
    ofrs.push_back(rewriter.getIndexAttr(s));
  scf::SCFTilingOptions options;
  options.setTileSizes(ofrs).setLoopType(loopType);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled =
      scf::tileUsingSCF(rewriter, op, options);
  if (failed(tiled))
    return failure();
  rewriter.replaceOp(op, tiled->replacements);
  return cast<TilingInterface>(tiled->tiledOps.back());
}

/// A matmul that overwrites C becomes a zero fill of C and a matmul that
/// accumulates, so that every K tile accumulates: the first tile reads the
/// zeros instead of choosing between C and zeros at run time (a copy per
/// tile once bufferized).
static void accumulateIntoZeros(RewriterBase &rewriter, MatmulOp op) {
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  Type elementType = op.getInit().getType().getElementType();
  Value zero = arith::ConstantOp::create(rewriter, loc, elementType,
                                         rewriter.getZeroAttr(elementType));
  Value zeros =
      linalg::FillOp::create(rewriter, loc, zero, op.getInit()).getResult(0);
  rewriter.modifyOpInPlace(op, [&] {
    op.getInitMutable().assign(zeros);
    op.setAccumulate(true);
  });
}

/// Tiles `op` level by level as `plan` says: the outer level's parallel
/// loops as an scf.forall when `forall`, every other loop as scf.for.
static LogicalResult applyPlan(RewriterBase &rewriter, TilingInterface op,
                               const TilePlan &plan, bool forall) {
  SmallVector<utils::IteratorType> iterators = op.getLoopIteratorTypes();
  if (auto matmul = dyn_cast<MatmulOp>(op.getOperation());
      matmul && !matmul.getAccumulate() &&
      llvm::any_of(plan.levels,
                   [](const TileLevel &l) { return l.sizes.back() > 0; }))
    accumulateIntoZeros(rewriter, matmul);
  TilingInterface current = op;
  for (auto [index, level] : llvm::enumerate(plan.levels)) {
    SmallVector<int64_t> parallel(level.sizes), reduction(level.sizes.size());
    if (index == 0 && forall) {
      for (auto [i, it] : llvm::enumerate(iterators))
        if (it == utils::IteratorType::reduction)
          std::swap(parallel[i], reduction[i]);
    }
    auto any = [](ArrayRef<int64_t> s) {
      return llvm::any_of(s, [](int64_t v) { return v > 0; });
    };
    using LoopType = scf::SCFTilingOptions::LoopType;
    if (any(parallel)) {
      FailureOr<TilingInterface> tiled =
          tileBy(rewriter, current, parallel,
                 index == 0 && forall ? LoopType::ForallOp : LoopType::ForOp);
      if (failed(tiled))
        return failure();
      current = *tiled;
    }
    if (any(reduction)) {
      FailureOr<TilingInterface> tiled =
          tileBy(rewriter, current, reduction, LoopType::ForOp);
      if (failed(tiled))
        return failure();
      current = *tiled;
    }
  }
  return success();
}

namespace {
struct AccelTilePass : public accel::impl::AccelTilePassBase<AccelTilePass> {
  using Base::Base;

  /// The request for `op`'s kind from the options.
  TileRequest requestFor(Operation *op) const {
    TileRequest r;
    auto copy = [](const ListOption<int64_t> &o) {
      return SmallVector<int64_t>(o.begin(), o.end());
    };
    if (isa<MatmulOp>(op)) {
      r.outer = copy(matmulOuter);
      r.inner = copy(matmulInner);
    } else if (isa<AttentionOp>(op)) {
      r.outer = copy(attentionOuter);
      r.inner = copy(attentionInner);
    } else {
      r.outer = copy(softmaxOuter);
      r.inner = copy(softmaxInner);
    }
    r.numLevels = levels;
    r.stages = stages;
    return r;
  }

  /// Checks the options' shapes; reports the first bad one on `module`.
  LogicalResult verifyOptions(ModuleOp module) const {
    auto check = [&](const ListOption<int64_t> &o, StringRef name,
                     size_t expected, StringRef what) {
      if (o.empty() || (o.size() == expected &&
                        llvm::all_of(o, [](int64_t v) { return v >= 0; })))
        return true;
      mlir::emitError(module.getLoc())
          << "accel-tile: " << name << " needs " << expected
          << (expected == 1 ? " size" : " sizes") << " >= 0 " << what;
      return false;
    };
    if (!check(matmulOuter, "matmul-outer", 3, "[M, N, K]") ||
        !check(matmulInner, "matmul-inner", 3, "[M, N, K]") ||
        !check(attentionOuter, "attention-outer", 3, "[heads, Sq, Skv]") ||
        !check(attentionInner, "attention-inner", 3, "[heads, Sq, Skv]") ||
        !check(softmaxOuter, "softmax-outer", 1, "[rows]") ||
        !check(softmaxInner, "softmax-inner", 1, "[rows]"))
      return failure();
    if (levels != 1 && levels != 2) {
      mlir::emitError(module.getLoc())
          << "accel-tile: levels must be 1 or 2, got " << int64_t(levels);
      return failure();
    }
    if (stages < 0) {
      mlir::emitError(module.getLoc())
          << "accel-tile: stages must be >= 0, got " << int64_t(stages);
      return failure();
    }
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<TargetAttr> resolved =
        resolveTarget(module, targetName, "accel-tile", "x86-64-avx512");
    if (failed(resolved))
      return signalPassFailure();
    TargetAttr target = *resolved;
    if (failed(verifyOptions(module)))
      return signalPassFailure();

    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (!isa<MatmulOp, AttentionOp, SoftmaxOp>(op))
        return;
      if (cast<DestinationStyleOpInterface>(op).hasPureTensorSemantics())
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    bool failedAny = false;
    for (Operation *op : ops) {
      std::string reason;
      FailureOr<TilePlan> plan = planTiles(op, target, requestFor(op), &reason);
      if (failed(plan)) {
        op->emitError() << "accel-tile: " << reason;
        failedAny = true;
        continue;
      }
      if (!plan->problem.empty()) {
        if (plan->fatal) {
          op->emitError() << "accel-tile: " << plan->problem;
          failedAny = true;
          continue;
        }
        op->emitWarning() << "accel-tile: " << plan->problem;
      }
      // The op reports its own reason (e.g. a GQA head tile that does not
      // map onto whole key/value heads).
      if (failed(applyPlan(rewriter, cast<TilingInterface>(op), *plan, forall)))
        failedAny = true;
    }
    if (failedAny)
      signalPassFailure();
  }
};
} // namespace
