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
#include "BlockEpilogue.h"
#include "BufferAccess.h"
#include "DotGemm.h"
#include "accel/Transforms/CpuConfig.h"
#include "accel/Transforms/Passes.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"
#include <limits>
#include <variant>

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELCPUVECTORIZECONTRACTIONSPASS
#include "accel/Transforms/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;
using accel::accessesOtherThan;
using accel::initializingFill;
using accel::rootBuffer;

/// Marks the register-level tiles between tiling and vectorization.
static constexpr llvm::StringLiteral kRegisterTileAttr =
    "__accel_register_tile__";
/// Marks the transposes whose copy of B a contraction's panels were packed
/// without (packRhsBlockFromNK), to erase once nothing reads the copy.
static constexpr llvm::StringLiteral kPackedFromAttr =
    "__accel_packed_from_source__";
/// Marks the fills that start a register tile's C block, with the block's
/// vector shape bound.
static constexpr llvm::StringLiteral kRegisterFillAttr =
    "__accel_register_fill__";

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

/// The M block for `threads` threads sharing a packed B: the multiple of
/// `mr` from `mc` down to 8 mr that gives every thread at least 2 blocks and
/// the most even work, the threads taking contiguous runs of blocks (as
/// OpenMP's static schedule hands out the scf.forall's iterations) and a
/// partial register tile costing a whole one; the larger block on a tie. 0
/// when none gives 2 blocks a thread. With mc = 132 and mr = 6, 2048 rows
/// on 2 threads get 114 (171 register tiles each) instead of 132 (176 and
/// 166: the last block is 68 rows).
static int64_t balancedBlockRows(int64_t m, int64_t mc, int64_t mr,
                                 int64_t threads) {
  int64_t best = 0, bestLoad = std::numeric_limits<int64_t>::max();
  for (int64_t c = mc / mr * mr; c >= 8 * mr; c -= mr) {
    int64_t blocks = llvm::divideCeilSigned(m, c);
    if (blocks < 2 * threads)
      continue;
    int64_t maxLoad = 0, block = 0;
    for (int64_t t = 0; t < threads; ++t) {
      int64_t load = 0;
      for (int64_t n = blocks / threads + (t < blocks % threads ? 1 : 0);
           n > 0; --n, ++block)
        load += llvm::divideCeilSigned(std::min(c, m - block * c), mr);
      maxLoad = std::max(maxLoad, load);
    }
    if (maxLoad < bestLoad) {
      best = c;
      bestLoad = maxLoad;
    }
  }
  return best;
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

/// Runs every canonicalization pattern: after peeling, it turns the full
/// tiles' affine.min sizes into constants and their subviews static.
static LogicalResult canonicalize(func::FuncOp func, StringRef pass,
                                  unsigned maxIterations) {
  MLIRContext *ctx = func.getContext();
  RewritePatternSet patterns(ctx);
  for (Dialect *dialect : ctx->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName op : ctx->getRegisteredOperations())
    op.getCanonicalizationPatterns(patterns, ctx);
  return accel::applyOrReport(func, std::move(patterns), "canonicalization",
                              pass, maxIterations);
}

/// Keeps register tiles of C in registers across the loops that only
/// accumulate into them: a vector.transfer_read and a vector.transfer_write
/// of the same buffer, indices, mask and vector type in a loop body, all
/// operands defined outside the loop, and no other access in the loop to any
/// view of the same buffer, become a read before the loop, a loop-carried
/// value and a write after it. Upstream's hoistRedundantVectorTransfers
/// gives up as soon as the buffer has a view-like user anywhere, e.g. the
/// subviews of a remainder tile elsewhere in the function; this only looks
/// inside the loop. Distinct function arguments are assumed not to alias
/// (the pass's contract). Returns whether anything moved.
static bool hoistAccumulators(RewriterBase &rewriter, func::FuncOp func) {
  bool changed = false;
  bool again = true;
  while (again) {
    again = false;
    func.walk([](LoopLikeOpInterface loop) { moveLoopInvariantCode(loop); });
    func.walk([&](vector::TransferReadOp read) {
      auto loop = dyn_cast<scf::ForOp>(read->getParentOp());
      if (!loop || !isa<MemRefType>(read.getShapedType()))
        return WalkResult::advance();
      for (Value operand : read->getOperands())
        if (!loop.isDefinedOutsideOfLoop(operand))
          return WalkResult::advance();
      vector::TransferWriteOp write;
      for (Operation &op : *loop.getBody()) {
        auto candidate = dyn_cast<vector::TransferWriteOp>(&op);
        if (!candidate || candidate.getBase() != read.getBase() ||
            candidate.getIndices() != read.getIndices() ||
            candidate.getVectorType() != read.getVectorType() ||
            candidate.getPermutationMap() != read.getPermutationMap() ||
            candidate.getMask() != read.getMask() ||
            candidate.getInBoundsAttr() != read.getInBoundsAttr())
          continue;
        if (write)
          return WalkResult::advance();
        write = candidate;
      }
      if (!write || !read->isBeforeInBlock(write))
        return WalkResult::advance();
      Value root = rootBuffer(read.getBase());
      for (Operation &op : *loop.getBody())
        if (accessesOtherThan(&op, root, read, write))
          return WalkResult::advance();
      loop.moveOutOfLoop(read);
      rewriter.moveOpAfter(write, loop);
      NewYieldValuesFn yieldFn = [&](OpBuilder &, Location,
                                     ArrayRef<BlockArgument>) {
        return SmallVector<Value>{write.getVector()};
      };
      FailureOr<LoopLikeOpInterface> newLoop =
          cast<LoopLikeOpInterface>(loop.getOperation())
              .replaceWithAdditionalYields(rewriter, read.getVector(),
                                           /*replaceInitOperandUsesInLoop=*/
                                           true, yieldFn);
      if (failed(newLoop))
        return WalkResult::interrupt();
      write.getValueToStoreMutable().assign(
          newLoop->getOperation()->getResults().back());
      changed = again = true;
      return WalkResult::interrupt();
    });
  }
  return changed;
}

/// The vector shape bound of a register tile's C block: per dimension of
/// C, the register tile's size along M or N, 1 along batch dimensions.
static SmallVector<int64_t> cTileBounds(linalg::LinalgOp op, const Roles &roles,
                                        ArrayRef<int64_t> reg) {
  SmallVector<int64_t> bounds;
  AffineMap map = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  for (AffineExpr e : map.getResults()) {
    unsigned d = cast<AffineDimExpr>(e).getPosition();
    bounds.push_back(d == roles.m ? reg[0] : d == roles.n ? reg[1] : 1);
  }
  return bounds;
}

/// The first K block's register tile starts from the fill value: a
/// linalg.fill of the tile's C block right before its K loop (marked with
/// the C block's vector bound for vectorization). After vectorization and
/// hoisting, the fill's vector store forwards to the C read before the K
/// loop and dies under the write after it, so C is written once and never
/// read. Fails (changing nothing) when the C block is computed inside the
/// K loop.
static LogicalResult startFromFill(RewriterBase &rewriter,
                                   scf::SCFTilingResult &micro, Value value,
                                   ArrayRef<int64_t> bounds) {
  auto kLoop = dyn_cast<scf::ForOp>(micro.loops.back().getOperation());
  if (!kLoop || micro.tiledOps.size() != 1)
    return failure();
  auto tileOp = cast<linalg::LinalgOp>(micro.tiledOps.front());
  // The C block's subview is loop-invariant: take it out of the K loop.
  moveLoopInvariantCode(cast<LoopLikeOpInterface>(kLoop.getOperation()));
  Value cTile = tileOp.getDpsInitOperand(0)->get();
  if (!kLoop.isDefinedOutsideOfLoop(cTile))
    return failure();
  rewriter.setInsertionPoint(kLoop);
  auto fill = linalg::FillOp::create(rewriter, kLoop.getLoc(),
                                     ValueRange{value}, ValueRange{cTile});
  fill->setAttr(kRegisterFillAttr, rewriter.getDenseI64ArrayAttr(bounds));
  return success();
}

/// Forwards a vector.transfer_write of a C block to the vector.transfer_read
/// of the same block that follows it in the block (in bounds, same indices,
/// type and mask, no other access to the buffer between; lanes a mask turns
/// off read the padding, which may be anything), and erases a
/// transfer_write that a later one to the same block overwrites with no
/// access to the buffer between: what startFromFill's fills become.
///
/// A write to a buffer of `deadAfterLastRead` (a C whose last reader was a
/// fused out-of-place epilogue) that forwarded to a read is the last K
/// block's, whose values only the epilogue read: it goes too.
static void
forwardAndEraseDeadWrites(func::FuncOp func,
                          const llvm::DenseSet<Value> &deadAfterLastRead = {}) {
  auto same = [](vector::TransferWriteOp w, auto other) {
    return w.getBase() == other.getBase() &&
           w.getIndices() == other.getIndices() &&
           w.getVectorType() == other.getVectorType() &&
           w.getPermutationMap() == other.getPermutationMap() &&
           w.getMask() == other.getMask() && !w.hasOutOfBoundsDim() &&
           !other.hasOutOfBoundsDim();
  };
  SmallVector<vector::TransferWriteOp> writes;
  func.walk([&](vector::TransferWriteOp w) { writes.push_back(w); });
  for (vector::TransferWriteOp write : writes) {
    if (!isa<MemRefType>(write.getShapedType()))
      continue;
    Value root = rootBuffer(write.getBase());
    bool overwritten = false, forwarded = false;
    Operation *next = write->getNextNode();
    while (next) {
      Operation *after = next->getNextNode();
      if (auto read = dyn_cast<vector::TransferReadOp>(next)) {
        if (same(write, read)) {
          read.getResult().replaceAllUsesWith(write.getVector());
          read->erase();
          forwarded = true;
          next = after;
          continue;
        }
      }
      if (auto later = dyn_cast<vector::TransferWriteOp>(next)) {
        if (same(write, later)) {
          overwritten = true;
          break;
        }
      }
      if (accessesOtherThan(next, root, nullptr, nullptr))
        break;
      next = after;
    }
    if (overwritten || (forwarded && deadAfterLastRead.contains(root)))
      write->erase();
  }
}

/// Whether nothing reads C's buffer (an allocation of this function) after
/// `epilogue`, the out-of-place epilogue of `gemm`: its users are the GEMM,
/// ops before it, the epilogue and deallocations.
static bool deadAfterEpilogue(linalg::LinalgOp gemm, linalg::GenericOp epilogue,
                              Value c) {
  Value root = rootBuffer(c);
  if (epilogue.getDpsInitOperand(0)->get() == c ||
      !root.getDefiningOp<memref::AllocOp>())
    return false;
  SmallVector<Value> worklist{root};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (auto view = dyn_cast<ViewLikeOpInterface>(user);
          view && view.getViewSource() == v) {
        worklist.push_back(view.getViewDest());
        continue;
      }
      if (user == gemm.getOperation() || user == epilogue.getOperation() ||
          isa<memref::DeallocOp>(user))
        continue;
      if (user->getBlock() == gemm->getBlock() && user->isBeforeInBlock(gemm))
        continue;
      return false;
    }
  }
  return true;
}

/// Marks the epilogue tiles, with their C tile's vector shape bound.
static constexpr llvm::StringLiteral kRegisterEpilogueAttr =
    "__accel_register_epilogue__";
/// The contraction an epilogue tile belongs to (a number per pass run), so
/// that every copy of it (peeling copies tiles) can be found again.
static constexpr llvm::StringLiteral kEpilogueOfAttr = "__accel_epilogue_of__";

/// Whether `g` is an elementwise epilogue of C (`c`) the register tiles can
/// take: buffers, every loop parallel over C's shape, one init indexed by
/// the identity, no linalg.index and no side effects in the body; and
/// either in place (accel-fuse-epilogues's form: the init is `c`, other
/// inputs in other buffers) or out of place (a cast to bf16, a quantisation:
/// `c` read through the identity, the init another buffer than C and than
/// every other input). Inputs other than `c` are indexed by loop dimensions
/// only.
static bool isTileEpilogue(linalg::GenericOp g, Value c) {
  auto cType = dyn_cast<MemRefType>(c.getType());
  if (!cType || !g.hasPureBufferSemantics() || g.getNumDpsInits() != 1 ||
      g.getNumParallelLoops() != g.getNumLoops() || g.hasIndexSemantics() ||
      g.getNumLoops() != static_cast<unsigned>(cType.getRank()) ||
      !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity())
    return false;
  if (g.getStaticLoopRanges() != SmallVector<int64_t>(cType.getShape()))
    return false;
  // A boolean mask read as a vector would be garbage (hasBooleanBuffer).
  if (accel::hasBooleanBuffer(g))
    return false;
  Value init = g.getDpsInitOperand(0)->get();
  bool inPlace = init == c;
  Value root = rootBuffer(c), outRoot = rootBuffer(init);
  if (!inPlace && (outRoot == root || !isa<MemRefType>(init.getType())))
    return false;
  bool readsC = false;
  for (OpOperand *in : g.getDpsInputOperands()) {
    if (!inPlace && in->get() == c) {
      if (!g.getMatchingIndexingMap(in).isIdentity())
        return false;
      readsC = true;
      continue;
    }
    if (!isa<MemRefType>(in->get().getType()) ||
        rootBuffer(in->get()) == root || rootBuffer(in->get()) == outRoot)
      return false;
    for (AffineExpr e : g.getMatchingIndexingMap(in).getResults())
      if (!isa<AffineDimExpr>(e))
        return false;
  }
  if (!inPlace && !readsC)
    return false;
  for (Operation &op : g.getRegion().front().without_terminator())
    if (!isMemoryEffectFree(&op))
      return false;
  return true;
}

/// The epilogue of `op`: the next op in the block that may touch C's
/// buffer, when it is one (isTileEpilogue) and no op between touches the
/// buffers it reads or, out of place, the one it writes (its tiles run
/// before those ops).
static linalg::GenericOp findEpilogue(linalg::LinalgOp op) {
  Value c = op.getDpsInitOperand(0)->get();
  Value root = rootBuffer(c);
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode()) {
    auto g = dyn_cast<linalg::GenericOp>(next);
    if (g && isTileEpilogue(g, c)) {
      SmallVector<Value> touched;
      for (Value in : g.getDpsInputs())
        if (in != c)
          touched.push_back(rootBuffer(in));
      if (g.getDpsInitOperand(0)->get() != c)
        touched.push_back(rootBuffer(g.getDpsInitOperand(0)->get()));
      for (Operation *between = op->getNextNode(); between != next;
           between = between->getNextNode())
        for (Value buffer : touched)
          if (accessesOtherThan(between, buffer, nullptr, nullptr))
            return {};
      // What it uses must exist where the contraction is (the out-of-place
      // result is often allocated after it): allocations and constants
      // between them move up.
      std::optional<SmallVector<Operation *>> hoist =
          accel::hoistableBefore(g, op);
      if (!hoist)
        return {};
      for (Operation *def : *hoist)
        def->moveBefore(op);
      return g;
    }
    if (accessesOtherThan(next, root, nullptr, nullptr))
      return {};
  }
  return {};
}

/// Peels the last iteration off `loop` (a static trip count and step): the
/// loop stops before it and a copy of the body with the induction variable
/// at the last value follows. Returns the contractions of the copy; none
/// (and nothing changed) when the loop runs once.
static FailureOr<SmallVector<linalg::LinalgOp>>
peelLastIteration(RewriterBase &rewriter, scf::ForOp loop) {
  std::optional<APInt> trips = loop.getStaticTripCount();
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!trips || !step || *step <= 0 || loop.getNumResults() != 0 ||
      trips->isZero())
    return failure();
  if (trips->isOne())
    return SmallVector<linalg::LinalgOp>();
  Location loc = loop.getLoc();
  // Before the loop: it becomes the loop's upper bound.
  rewriter.setInsertionPoint(loop);
  MLIRContext *ctx = rewriter.getContext();
  Value lastIv = affine::makeComposedAffineApply(
      rewriter, loc,
      getAffineDimExpr(0, ctx) + (trips->getSExtValue() - 1) * *step,
      {loop.getLowerBound()});
  rewriter.setInsertionPointAfter(loop);
  IRMapping mapping;
  mapping.map(loop.getInductionVar(), lastIv);
  SmallVector<linalg::LinalgOp> clones;
  for (Operation &op : loop.getBody()->without_terminator()) {
    Operation *clone = rewriter.clone(op, mapping);
    clone->walk([&](linalg::LinalgOp l) {
      if (linalg::isaContractionOpInterface(l))
        clones.push_back(l);
    });
  }
  rewriter.modifyOpInPlace(loop, [&] { loop.setUpperBound(lastIv); });
  return clones;
}

/// Applies `epilogue` to the C block of `tileOp` right after `after`: a
/// copy of the generic on that block (the same value the tile writes, so
/// its vectorized read forwards from the tile's write) and on the matching
/// tiles of its other inputs, marked with the C block's vector `bounds`.
/// Null when the block is not a chain of unit-stride subviews of the
/// epilogue's output or is not available after `after`.
static Operation *insertEpilogueTile(RewriterBase &rewriter,
                                     linalg::GenericOp epilogue,
                                     linalg::LinalgOp tileOp, Value c,
                                     Operation *after,
                                     ArrayRef<int64_t> bounds) {
  Value cTile = tileOp.getDpsInitOperand(0)->get();
  // C's block of the tile (a chain of subviews of C); an out-of-place
  // epilogue writes the same block of its own output.
  Value target = c;
  Value out = epilogue.getDpsInitOperand(0)->get();
  if (!accel::definedBefore(cTile, after, /*orByOp=*/true))
    return nullptr;
  SmallVector<memref::SubViewOp> chain;
  for (Value v = cTile; v != target;) {
    auto view = v.getDefiningOp<memref::SubViewOp>();
    if (!view || view.getSourceType().getRank() != view.getType().getRank() ||
        !view.hasUnitStride())
      return nullptr;
    chain.push_back(view);
    v = view.getSource();
  }
  Location loc = tileOp.getLoc();
  rewriter.setInsertionPointAfter(after);
  MLIRContext *ctx = rewriter.getContext();
  unsigned rank = cast<MemRefType>(target.getType()).getRank();
  SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0)), sizes;
  if (chain.empty())
    sizes = memref::getMixedSizes(rewriter, loc, target);
  else
    sizes = chain.front().getMixedSizes();
  AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx);
  for (memref::SubViewOp view : llvm::reverse(chain))
    for (auto [d, offset] : llvm::enumerate(view.getMixedOffsets()))
      offsets[d] = affine::makeComposedFoldedAffineApply(
          rewriter, loc, d0 + d1, {offsets[d], offset});
  SmallVector<Value> operands;
  for (OpOperand &operand : epilogue->getOpOperands()) {
    if (operand.get() == c) {
      operands.push_back(cTile);
      continue;
    }
    if (epilogue.isDpsInit(&operand)) {
      SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
      operands.push_back(memref::SubViewOp::create(rewriter, loc, out, offsets,
                                                   sizes, strides));
      continue;
    }
    SmallVector<OpFoldResult> inOffsets, inSizes;
    for (AffineExpr e : epilogue.getMatchingIndexingMap(&operand).getResults()) {
      unsigned d = cast<AffineDimExpr>(e).getPosition();
      inOffsets.push_back(offsets[d]);
      inSizes.push_back(sizes[d]);
    }
    SmallVector<OpFoldResult> strides(inOffsets.size(),
                                      rewriter.getIndexAttr(1));
    operands.push_back(memref::SubViewOp::create(rewriter, loc, operand.get(),
                                                 inOffsets, inSizes, strides));
  }
  Operation *clone = rewriter.clone(*epilogue);
  clone->setOperands(operands);
  clone->setAttr(kEpilogueOfAttr, epilogue->getAttr(kEpilogueOfAttr));
  clone->setAttr(kRegisterEpilogueAttr, rewriter.getDenseI64ArrayAttr(bounds));
  return clone;
}

/// A packed copy of a cache block of B (GotoBLAS): `panels` is
/// [ceil(Nc / nr), Kc, nr], panel j holding columns [j nr, (j + 1) nr) of
/// the block row after row, so a register tile's K loop reads B at a stride
/// of nr elements instead of N (power-of-two N aliased cache sets and each
/// k step touched another page).
struct PackedRhs {
  Value block;  // the cache block of B that was copied
  Value panels; // the copy
};

/// Runs `copyPanel(b, loc, j)` for the panels' first columns j = 0, nr, ..
/// below `nc`: an scf.forall when `parallel` (threads copy disjoint panels),
/// else an scf.for.
static void
forEachPanel(RewriterBase &rewriter, Location loc, Value nc, int64_t nr,
             bool parallel,
             function_ref<void(OpBuilder &, Location, Value)> copyPanel) {
  Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value cNr = arith::ConstantIndexOp::create(rewriter, loc, nr);
  if (parallel)
    scf::ForallOp::create(
        rewriter, loc, ArrayRef<OpFoldResult>{c0}, ArrayRef<OpFoldResult>{nc},
        ArrayRef<OpFoldResult>{cNr}, ValueRange{}, std::nullopt,
        [&](OpBuilder &b, Location loc, ValueRange ivs) {
          copyPanel(b, loc, ivs[0]);
          scf::InParallelOp::create(b, loc);
        });
  else
    scf::ForOp::create(rewriter, loc, c0, nc, cNr, ValueRange{},
                       [&](OpBuilder &b, Location loc, Value j, ValueRange) {
                         copyPanel(b, loc, j);
                         scf::YieldOp::create(b, loc);
                       });
}

/// Copies the cache block `block` ([kc, nc] of a [K, N] B) into panels of
/// `nr` columns, before `anchor` (the M cache loop: once for all the M
/// tiles that use the block). Columns past nc in the last panel are zero.
/// `parallel`: the panels are an scf.forall (threads copy disjoint panels).
static PackedRhs packRhsBlock(RewriterBase &rewriter, Operation *anchor,
                              Value block, int64_t kcMax, int64_t ncMax,
                              int64_t nr, bool parallel) {
  Location loc = anchor->getLoc();
  rewriter.setInsertionPoint(anchor);
  auto type = cast<MemRefType>(block.getType());
  Type elt = type.getElementType();
  int64_t numPanels = llvm::divideCeil(ncMax, nr);
  auto panelsType = MemRefType::get({numPanels, kcMax, nr}, elt);
  Value panels = memref::AllocOp::create(rewriter, loc, panelsType,
                                         rewriter.getI64IntegerAttr(64));
  Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value kc = memref::DimOp::create(rewriter, loc, block, 0);
  Value nc = memref::DimOp::create(rewriter, loc, block, 1);
  Value pad =
      arith::ConstantOp::create(rewriter, loc, rewriter.getZeroAttr(elt));
  auto vecType = VectorType::get({nr}, elt);
  MLIRContext *ctx = rewriter.getContext();
  AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx);
  auto copyPanel = [&](OpBuilder &b, Location loc, Value j) {
        Value width = affine::makeComposedAffineMin(
            b, loc,
            AffineMap::get(2, 0, {d1 - d0, getAffineConstantExpr(nr, ctx)},
                           ctx),
            ArrayRef<OpFoldResult>{j, nc});
        Value panel = affine::AffineApplyOp::create(
            b, loc, AffineMap::get(1, 0, d0.floorDiv(nr)), ValueRange{j});
        Value mask = vector::CreateMaskOp::create(
            b, loc, VectorType::get({nr}, b.getI1Type()), ValueRange{width});
        scf::ForOp::create(
            b, loc, c0, kc, c1, ValueRange{},
            [&](OpBuilder &b, Location loc, Value k, ValueRange) {
              AffineMap identity = b.getMultiDimIdentityMap(2);
              Value row = vector::TransferReadOp::create(
                  b, loc, vecType, block, ValueRange{k, j},
                  AffineMapAttr::get(identity.getMinorIdentityMap(2, 1, ctx)),
                  pad, mask, b.getBoolArrayAttr({true}));
              vector::TransferWriteOp::create(
                  b, loc, row, panels, ValueRange{panel, k, c0},
                  /*inBounds=*/ArrayRef<bool>{true});
              scf::YieldOp::create(b, loc);
            });
  };
  forEachPanel(rewriter, loc, nc, nr, parallel, copyPanel);
  return {block, panels};
}

/// packRhsBlock for a B that is a transposed copy `copy` ([K, N]) of
/// `source` ([N, K] with unit inner stride: a linear layer's weight), read
/// from `source` itself so the copy can go: per panel, 16 rows of the
/// source (16 columns of B) at a time along the block's K, each 16 x 16
/// square of 32-bit words loaded row by row (K contiguous), transposed in
/// registers (vector.transpose, lowered by lowerWordTransposes) and stored
/// as 16 panel rows. The panels' K extent is rounded up to 16 (rows past
/// the block's K are zeros, never read). `block` is `copy` or a subview of
/// it; null when it is neither.
static std::optional<PackedRhs>
packRhsBlockFromNK(RewriterBase &rewriter, Operation *anchor, Value block,
                   Value copy, Value source, int64_t kcMax, int64_t ncMax,
                   int64_t nr, bool parallel) {
  constexpr int64_t sq = 16;
  auto blockType = cast<MemRefType>(block.getType());
  Type elt = blockType.getElementType();
  if (nr % sq != 0 || !elt.isIntOrFloat() || elt.getIntOrFloatBitWidth() != 32)
    return std::nullopt;
  Location loc = anchor->getLoc();
  rewriter.setInsertionPoint(anchor);
  // The block's [k0, n0] offsets in `copy` (summed along a chain of 2-D
  // unit-stride subviews: the threads' blocks, then the K blocks) and its
  // [kc, nc] sizes, swapped onto source.
  Value srcView = source;
  if (block != copy) {
    MLIRContext *ctx = rewriter.getContext();
    AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx);
    SmallVector<OpFoldResult> offsets(2, rewriter.getIndexAttr(0)), sizes;
    for (Value v = block; v != copy;) {
      auto view = v.getDefiningOp<memref::SubViewOp>();
      if (!view || !view.hasUnitStride() ||
          view.getSourceType().getRank() != 2 || view.getType().getRank() != 2)
        return std::nullopt;
      if (sizes.empty())
        sizes = view.getMixedSizes();
      for (auto [i, o] : llvm::enumerate(view.getMixedOffsets()))
        offsets[i] = affine::makeComposedFoldedAffineApply(
            rewriter, loc, d0 + d1, {offsets[i], o});
      v = view.getSource();
    }
    std::swap(offsets[0], offsets[1]);
    std::swap(sizes[0], sizes[1]);
    srcView = memref::SubViewOp::create(
        rewriter, loc, source, offsets, sizes,
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1),
                               rewriter.getIndexAttr(1)});
  }
  int64_t numPanels = llvm::divideCeil(ncMax, nr);
  auto panelsType = MemRefType::get(
      {numPanels, static_cast<int64_t>(llvm::alignTo(kcMax, sq)), nr}, elt);
  Value panels = memref::AllocOp::create(rewriter, loc, panelsType,
                                         rewriter.getI64IntegerAttr(64));
  auto idx = [&](OpBuilder &b, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value c0 = idx(rewriter, 0), c1 = idx(rewriter, 1);
  Value kc = memref::DimOp::create(rewriter, loc, srcView, 1);
  Value nc = memref::DimOp::create(rewriter, loc, srcView, 0);
  Value pad =
      arith::ConstantOp::create(rewriter, loc, rewriter.getZeroAttr(elt));
  auto rowType = VectorType::get({sq}, elt);
  auto maskType = VectorType::get({sq}, rewriter.getI1Type());
  MLIRContext *ctx = rewriter.getContext();
  AffineMap rowMap = AffineMap::get(2, 0, {getAffineDimExpr(1, ctx)}, ctx);
  // One 16 x 16 square: source rows [n, n + 16) (clamped to nc - 1 past
  // it, masked off) along K from k, into panel `panel`'s rows k.. at lanes
  // [lane, lane + 16). `full`: no row past nc and no k past kc.
  auto square = [&](OpBuilder &b, Location loc, Value panel, Value lane,
                    Value n, Value k, bool full) {
    SmallVector<Value> rows;
    Value kLeft, lastRow;
    if (!full) {
      kLeft = arith::MinSIOp::create(
          b, loc, arith::SubIOp::create(b, loc, kc, k), idx(b, sq));
      lastRow = arith::SubIOp::create(b, loc, nc, c1);
    }
    for (int64_t r = 0; r < sq; ++r) {
      Value row = arith::AddIOp::create(b, loc, n, idx(b, r));
      Value v;
      if (full) {
        v = vector::LoadOp::create(b, loc, rowType, srcView,
                                   ValueRange{row, k});
      } else {
        Value inN =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, row, nc);
        Value width = arith::SelectOp::create(b, loc, inN, kLeft, c0);
        Value at = arith::MinSIOp::create(b, loc, row, lastRow);
        Value mask =
            vector::CreateMaskOp::create(b, loc, maskType, ValueRange{width});
        v = vector::TransferReadOp::create(
            b, loc, rowType, srcView, ValueRange{at, k},
            AffineMapAttr::get(rowMap), pad, mask, b.getBoolArrayAttr({true}));
      }
      rows.push_back(v);
    }
    for (auto [j, column] :
         llvm::enumerate(accel::transposeWords(b, loc, rows)))
      vector::StoreOp::create(
          b, loc, vector::BitCastOp::create(b, loc, rowType, column), panels,
          ValueRange{panel, arith::AddIOp::create(b, loc, k, idx(b, j)), lane});
  };
  // Panel j: for each 16 of its columns (16 source rows, read along K as
  // 16 streams), the squares along K; whole squares unmasked.
  auto copyPanel = [&](OpBuilder &b, Location loc, Value j) {
    Value panel = affine::AffineApplyOp::create(
        b, loc, AffineMap::get(1, 0, getAffineDimExpr(0, ctx).floorDiv(nr)),
        ValueRange{j});
    Value kWhole = arith::MulIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, kc, idx(b, sq)), idx(b, sq));
    for (int64_t lane = 0; lane < nr; lane += sq) {
      Value n = arith::AddIOp::create(b, loc, j, idx(b, lane));
      Value laneIdx = idx(b, lane);
      Value rowsIn = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::sle,
          arith::AddIOp::create(b, loc, n, idx(b, sq)), nc);
      auto ifFull = scf::IfOp::create(b, loc, TypeRange{}, rowsIn,
                                      /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(ifFull.thenBlock());
        scf::ForOp::create(
            b, loc, c0, kWhole, idx(b, sq), ValueRange{},
            [&](OpBuilder &b, Location loc, Value k, ValueRange) {
              // The same rows two squares ahead (the block's last whole
              // square at most).
              Value ahead = arith::MinSIOp::create(
                  b, loc, arith::AddIOp::create(b, loc, k, idx(b, 2 * sq)),
                  arith::SubIOp::create(b, loc, kWhole, idx(b, sq)));
              for (int64_t r = 0; r < sq; ++r)
                memref::PrefetchOp::create(
                    b, loc, srcView,
                    ValueRange{arith::AddIOp::create(b, loc, n, idx(b, r)),
                               ahead},
                    /*isWrite=*/false, /*localityHint=*/3,
                    /*isDataCache=*/true);
              square(b, loc, panel, laneIdx, n, k, /*full=*/true);
              scf::YieldOp::create(b, loc);
            });
        scf::ForOp::create(
            b, loc, kWhole, kc, idx(b, sq), ValueRange{},
            [&](OpBuilder &b, Location loc, Value k, ValueRange) {
              square(b, loc, panel, laneIdx, n, k, /*full=*/false);
              scf::YieldOp::create(b, loc);
            });
        b.setInsertionPointToStart(ifFull.elseBlock());
        // The last panel's columns past nc: masked rows, zeros.
        scf::ForOp::create(
            b, loc, c0, kc, idx(b, sq), ValueRange{},
            [&](OpBuilder &b, Location loc, Value k, ValueRange) {
              square(b, loc, panel, laneIdx, n, k, /*full=*/false);
              scf::YieldOp::create(b, loc);
            });
      }
    }
  };
  forEachPanel(rewriter, loc, nc, nr, parallel, copyPanel);
  return PackedRhs{block, panels};
}

/// Makes the register tile `tileOp` read its B operand (a subview of
/// `packed.block` at [k, n], n a multiple of `nr`) from the panels.
static LogicalResult readPackedRhs(RewriterBase &rewriter,
                                   linalg::LinalgOp tileOp,
                                   const PackedRhs &packed, int64_t nr) {
  OpOperand *rhs = tileOp.getDpsInputOperand(1);
  auto view = rhs->get().getDefiningOp<memref::SubViewOp>();
  if (!view || view.getSource() != packed.block || !view.hasUnitStride())
    return failure();
  SmallVector<OpFoldResult> offsets = view.getMixedOffsets();
  SmallVector<OpFoldResult> sizes = view.getMixedSizes();
  Location loc = view.getLoc();
  rewriter.setInsertionPoint(view);
  MLIRContext *ctx = rewriter.getContext();
  OpFoldResult panel = affine::makeComposedFoldedAffineApply(
      rewriter, loc, getAffineDimExpr(0, ctx).floorDiv(nr), {offsets[1]});
  SmallVector<OpFoldResult> pOffsets = {panel, offsets[0],
                                        rewriter.getIndexAttr(0)};
  SmallVector<OpFoldResult> pSizes = {rewriter.getIndexAttr(1), sizes[0],
                                      sizes[1]};
  SmallVector<OpFoldResult> pStrides(3, rewriter.getIndexAttr(1));
  auto oldType = cast<MemRefType>(view.getType());
  auto resultType = memref::SubViewOp::inferRankReducedResultType(
      oldType.getShape(), cast<MemRefType>(packed.panels.getType()), pOffsets,
      pSizes, pStrides);
  Value replacement =
      memref::SubViewOp::create(rewriter, loc, cast<MemRefType>(resultType),
                                packed.panels, pOffsets, pSizes, pStrides);
  rewriter.modifyOpInPlace(tileOp, [&] { rhs->set(replacement); });
  return success();
}

/// Before each register tile's K loop, prefetches (for writing) the C lines
/// of the next tile down the M register loop, so the tile after this one
/// finds its C block in cache: with a short K (Q K^T at d = 64) a tile is
/// only a few hundred cycles of FMAs, and missing C lines (first touch of a
/// large C) otherwise stall its stores. Rows past C's end are clamped to
/// its last row.
static void prefetchNextTiles(RewriterBase &rewriter, func::FuncOp func) {
  SmallVector<vector::TransferWriteOp> writes;
  func.walk([&](vector::TransferWriteOp w) { writes.push_back(w); });
  MLIRContext *ctx = func.getContext();
  for (vector::TransferWriteOp write : writes) {
    // The K loop whose accumulators the write stores, directly or through
    // an epilogue's elementwise ops in the same block.
    scf::ForOp kLoop;
    {
      SmallVector<Value> work = {write.getVector()};
      llvm::SmallPtrSet<Operation *, 16> seen;
      while (!work.empty() && !kLoop && seen.size() < 256) {
        Operation *def = work.pop_back_val().getDefiningOp();
        if (!def || def->getBlock() != write->getBlock() ||
            !seen.insert(def).second)
          continue;
        if (auto loop = dyn_cast<scf::ForOp>(def)) {
          if (loop.getNumResults() == 1 &&
              isa<VectorType>(loop.getResult(0).getType()))
            kLoop = loop;
          continue;
        }
        if (isa<vector::TransferReadOp>(def))
          continue;
        llvm::append_range(work, def->getOperands());
      }
    }
    auto mLoop = dyn_cast<scf::ForOp>(write->getParentOp());
    auto type = dyn_cast<MemRefType>(write.getShapedType());
    VectorType vec = write.getVectorType();
    if (!kLoop || !mLoop || kLoop->getBlock() != write->getBlock() || !type ||
        type.getRank() != 2 || vec.getRank() != 2 || write.getMask() ||
        !write.getPermutationMap().isMinorIdentity() ||
        !type.getElementType().isIntOrFloat())
      continue;
    // The row index advances with the M loop's induction variable.
    Value row = write.getIndices()[0];
    if (row != mLoop.getInductionVar()) {
      auto apply = row.getDefiningOp<affine::AffineApplyOp>();
      if (!apply ||
          !llvm::is_contained(apply.getOperands(), mLoop.getInductionVar()))
        continue;
    }
    int64_t lineElems =
        std::max<int64_t>(1, 512 / type.getElementTypeBitWidth());
    Location loc = write.getLoc();
    rewriter.setInsertionPoint(kLoop);
    Value lastRow = affine::makeComposedAffineApply(
        rewriter, loc, getAffineDimExpr(0, ctx) - 1,
        {memref::DimOp::create(rewriter, loc, write.getBase(), 0).getResult()});
    for (int64_t r = 0; r < vec.getDimSize(0); ++r) {
      AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx),
                 d2 = getAffineDimExpr(2, ctx);
      // min(row + step + r, last): the next tile's row r.
      Value next = affine::makeComposedAffineMin(
          rewriter, loc, AffineMap::get(3, 0, {d0 + d1 + r, d2}, ctx),
          {row, mLoop.getStep(), lastRow});
      for (int64_t c = 0; c < vec.getDimSize(1); c += lineElems) {
        Value col = affine::makeComposedAffineApply(
            rewriter, loc, getAffineDimExpr(0, ctx) + c,
            {write.getIndices()[1]});
        memref::PrefetchOp::create(
            rewriter, loc, write.getBase(), ValueRange{next, col},
            rewriter.getBoolAttr(true), rewriter.getI32IntegerAttr(3),
            rewriter.getBoolAttr(true));
      }
    }
  }
}

/// The most iterations `loop` runs: its trip count, or with an upper bound
/// min(c, ...) (a cache tile's K loop: min(Kc, K - k)) and constant lower
/// bound and step, those of c; none when unbounded.
static std::optional<int64_t> maxTripCount(scf::ForOp loop) {
  if (std::optional<APInt> trips = loop.getStaticTripCount())
    return trips->getSExtValue();
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  auto min = loop.getUpperBound().getDefiningOp<affine::AffineMinOp>();
  if (!lb || !step || *step <= 0 || !min)
    return std::nullopt;
  std::optional<int64_t> ub;
  for (AffineExpr e : min.getAffineMap().getResults())
    if (auto c = dyn_cast<AffineConstantExpr>(e))
      ub = std::min(ub.value_or(c.getValue()), c.getValue());
  if (!ub)
    return std::nullopt;
  return llvm::divideCeil(std::max<int64_t>(0, *ub - *lb), *step);
}

/// In each register tile's K loop, prefetches the row of B (a row of nr
/// lanes, one line or more) the loop reads `steps` iterations ahead,
/// clamped to B's last row, when the loop reads more than `minBytes` of B
/// (or an unknown amount): a panel streaming from L2 into every M tile.
/// Reads whose K index is the last (contiguous) dimension are not rows.
static void prefetchRhsRows(RewriterBase &rewriter, func::FuncOp func,
                            int64_t steps, int64_t minBytes) {
  if (steps <= 0)
    return;
  SmallVector<std::pair<scf::ForOp, vector::TransferReadOp>> reads;
  func.walk([&](vector::ContractionOp contract) {
    Operation *parent = contract->getParentOp();
    if (isa_and_nonnull<vector::MaskOp>(parent))
      parent = parent->getParentOp();
    auto kLoop = dyn_cast_or_null<scf::ForOp>(parent);
    if (!kLoop)
      return;
    auto read = contract.getRhs().getDefiningOp<vector::TransferReadOp>();
    if (!read || read->getParentOp() != kLoop.getOperation())
      return;
    auto type = dyn_cast<MemRefType>(read.getShapedType());
    VectorType vec = read.getVectorType();
    AffineMap map = read.getPermutationMap();
    if (!type || !type.getElementType().isIntOrFloat() ||
        map.getNumResults() == 0 ||
        map.getResults().back() !=
            getAffineDimExpr(type.getRank() - 1, read.getContext()) ||
        vec.getShape().back() * type.getElementTypeBitWidth() < 512 ||
        llvm::any_of(vec.getShape().drop_back(),
                     [](int64_t d) { return d != 1; }))
      return;
    std::optional<int64_t> trips = maxTripCount(kLoop);
    int64_t rowBytes = vec.getNumElements() * type.getElementTypeBitWidth() / 8;
    if (trips && *trips * rowBytes <= minBytes)
      return;
    reads.emplace_back(kLoop, read);
  });
  MLIRContext *ctx = func.getContext();
  for (auto [kLoop, read] : reads) {
    // The one index that moves with the loop: B's row.
    Value iv = kLoop.getInductionVar();
    std::optional<unsigned> axis;
    bool several = false;
    for (auto [i, index] : llvm::enumerate(read.getIndices())) {
      bool uses = index == iv;
      if (auto apply = index.getDefiningOp<affine::AffineApplyOp>())
        uses |= llvm::is_contained(apply.getOperands(), iv);
      if (!uses)
        continue;
      several |= axis.has_value();
      axis = i;
    }
    if (!axis || several || *axis + 1 == read.getIndices().size())
      continue;
    auto type = cast<MemRefType>(read.getShapedType());
    int64_t lineElems =
        std::max<int64_t>(1, 512 / type.getElementTypeBitWidth());
    Location loc = read.getLoc();
    AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx),
               d2 = getAffineDimExpr(2, ctx);
    if (kLoop.isDefinedOutsideOfLoop(read.getBase()))
      rewriter.setInsertionPoint(kLoop);
    else
      rewriter.setInsertionPoint(read);
    Value last = affine::makeComposedAffineApply(
        rewriter, loc, d0 - 1,
        {memref::DimOp::create(rewriter, loc, read.getBase(), *axis)
             .getResult()});
    rewriter.setInsertionPoint(read);
    // min(k + steps * step, last row).
    Value ahead = affine::makeComposedAffineMin(
        rewriter, loc, AffineMap::get(3, 0, {d0 + d1 * steps, d2}, ctx),
        {read.getIndices()[*axis], kLoop.getStep(), last});
    // Every line of an in-bounds row; a masked row's first line only (the
    // lanes past it may lie past B's columns).
    int64_t lanes = read.getMask() ? 1 : read.getVectorType().getShape().back();
    for (int64_t c = 0; c < lanes; c += lineElems) {
      SmallVector<Value> indices(read.getIndices());
      indices[*axis] = ahead;
      indices.back() = affine::makeComposedAffineApply(
          rewriter, loc, d0 + c, {read.getIndices().back()});
      memref::PrefetchOp::create(
          rewriter, loc, read.getBase(), indices, rewriter.getBoolAttr(false),
          rewriter.getI32IntegerAttr(3), rewriter.getBoolAttr(true));
    }
  }
}

namespace {
struct AccelCpuVectorizeContractionsPass
    : public accel::impl::AccelCpuVectorizeContractionsPassBase<
          AccelCpuVectorizeContractionsPass> {
  using Base::Base;

  void runOnOperation() override {
    // Tiles for contractions without a configuration stage's cpu-fma
    // accel.lowering_config: the options, else the stage's choice.
    if ((!cacheTile.empty() && cacheTile.size() != 3) ||
        llvm::any_of(cacheTile, [](int64_t s) { return s < 0; })) {
      getOperation().emitError() << "accel-cpu-vectorize-contractions: "
                                    "cache-tile needs 3 sizes >= 0 [Mc, Nc, "
                                    "Kc]";
      return signalPassFailure();
    }
    if ((!registerTile.empty() && registerTile.size() != 3) ||
        llvm::any_of(registerTile, [](int64_t s) { return s <= 0; })) {
      getOperation().emitError() << "accel-cpu-vectorize-contractions: "
                                    "register-tile needs 3 positive sizes "
                                    "[mr, nr, kr]";
      return signalPassFailure();
    }
    accel::CpuConfigOverrides overrides;
    overrides.cacheTile.assign(cacheTile.begin(), cacheTile.end());
    overrides.registerTile.assign(registerTile.begin(), registerTile.end());
    const accel::CpuFmaTiles unconfigured = accel::chooseCpuFmaTiles(
        accel::CpuIsa::resolve(features, getOperation()), overrides);
    if (std::string why = accel::checkCpuFmaTiles(unconfigured);
        !why.empty()) {
      getOperation().emitError()
          << "accel-cpu-vectorize-contractions: " << why;
      return signalPassFailure();
    }

    SmallVector<linalg::LinalgOp> targets;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics() && linalg::isaContractionOpInterface(op))
        targets.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    int64_t epilogueCount = 0;
    // C buffers whose last reader was a fused out-of-place epilogue.
    llvm::DenseSet<Value> deadAfterLastRead;
    for (linalg::LinalgOp op : targets) {
      std::optional<Roles> roles = rolesOf(op);
      if (!roles)
        continue;
      // This contraction's tiles: its cpu-fma config's, else the default.
      accel::CpuFmaTiles tiles = unconfigured;
      if (auto config = op->getAttrOfType<accel::LoweringConfigAttr>(
              accel::kLoweringConfigAttrName))
        if (std::optional<accel::CpuFmaTiles> t =
                accel::getCpuFmaTiles(config)) {
          tiles = *t;
          tiles.packRhsMinRowBytes = unconfigured.packRhsMinRowBytes;
        }
      if (std::string why = accel::checkCpuFmaTiles(tiles); !why.empty()) {
        op->emitOpError("cannot use cpu-fma: ") << why;
        return signalPassFailure();
      }
      ArrayRef<int64_t> cache = tiles.cache, reg = tiles.registers;
      linalg::FillOp fill = initializingFill(op);
      // An in-place elementwise epilogue to apply to the last K block's
      // register tiles.
      linalg::GenericOp epilogue;
      // C itself, which an out-of-place epilogue reads; whether nothing
      // reads it after that epilogue (its last K block's stores go then).
      Value c = op.getDpsInitOperand(0)->get();
      bool deadC = false;
      if (fuseEpilogues) {
        epilogue = findEpilogue(op);
        if (epilogue &&
            ((!accel::isCheapEpilogue(epilogue) && !fuseExpensiveEpilogues) ||
             accel::dividesIntegers(epilogue)))
          epilogue = {};
        deadC = epilogue && deadAfterEpilogue(op, epilogue, c);
      }
      unsigned numLoops = op.getNumLoops();
      SmallVector<int64_t> staticRanges = op.getStaticLoopRanges();
      // An empty loop (K = 0: C keeps its value; M or N = 0: no C) leaves
      // nothing to tile; upstream's tiling of it into an scf.forall crashes.
      if (llvm::is_contained(staticRanges, 0))
        continue;
      int64_t kExtent = staticRanges[roles->k];
      // B's row stride in bytes (unknown: max): packing pays above 2 KiB
      // (rows on separate pages, power-of-two strides aliasing cache sets:
      // 1000^3, 1024^3 and up); at 2 KiB and below B read in place measured
      // as fast or faster (256^3, 512^3, 128^3).
      int64_t rhsRowStrideBytes = std::numeric_limits<int64_t>::max();
      if (auto rhsType =
              dyn_cast<MemRefType>(op.getDpsInputOperand(1)->get().getType());
          rhsType && rhsType.getRank() >= 2 &&
          rhsType.getElementType().isIntOrFloat()) {
        SmallVector<int64_t> strides;
        int64_t offset;
        if (succeeded(rhsType.getStridesAndOffset(strides, offset)) &&
            !ShapedType::isDynamic(strides[strides.size() - 2]))
          rhsRowStrideBytes = strides[strides.size() - 2] *
                              rhsType.getElementTypeBitWidth() / 8;
      }
      bool rhsIsKN = false;
      if (auto rhsMap = op.getMatchingIndexingMap(op.getDpsInputOperand(1));
          rhsMap.getNumResults() == 2) {
        auto k = dyn_cast<AffineDimExpr>(rhsMap.getResult(0));
        auto n = dyn_cast<AffineDimExpr>(rhsMap.getResult(1));
        rhsIsKN = k && n && k.getPosition() == roles->k &&
                  n.getPosition() == roles->n;
      }
      SmallVector<int64_t> bounds = cTileBounds(op, *roles, reg);
      // Packing B pays when at least 4 register tiles of A rows share each
      // panel, B's rows are wider than a panel and further apart than the
      // configuration's threshold (2 KiB with AVX-512, 256 B without).
      int64_t mExtent = staticRanges[roles->m],
              nExtent = staticRanges[roles->n];
      int64_t kcMax = cache[2] ? cache[2] : kExtent;
      int64_t ncMax = cache[1] ? cache[1] : nExtent;
      if (!ShapedType::isDynamic(kExtent))
        kcMax = std::min(kcMax, kExtent);
      if (!ShapedType::isDynamic(nExtent))
        ncMax = std::min(ncMax, nExtent);
      // B a transposed copy of a [N, K] buffer (a linear layer's weight,
      // accel-cpu-transpose-rhs's copy): packed from [N, K] itself, and the
      // copy goes when every tile reads the panels. Packing then pays
      // whatever B's shape (the copy costs more than the packing).
      linalg::TransposeOp transposeB;
      if (packRhs && roles->batch.empty() && rhsIsKN && reg[1] % 16 == 0)
        transposeB =
            accel::matchTransposeInto(op, op.getDpsInputOperand(1)->get());
      // C in W's buffer (accumulating into the weight), or a fused epilogue
      // writing it: a block packed from W would read what earlier blocks
      // wrote; the copy (made before) stays.
      if (transposeB) {
        Value w = rootBuffer(transposeB.getInput());
        bool writesW = rootBuffer(op.getDpsInitOperand(0)->get()) == w;
        if (epilogue)
          for (Value out : epilogue.getDpsInits())
            writesW |= rootBuffer(out) == w;
        if (writesW)
          transposeB = {};
      }
      bool pack = packRhs && roles->batch.empty() && rhsIsKN &&
                  (transposeB ||
                   (rhsRowStrideBytes > tiles.packRhsMinRowBytes &&
                    (ShapedType::isDynamic(mExtent) || mExtent >= 4 * reg[0]) &&
                    (ShapedType::isDynamic(nExtent) || nExtent > reg[1]))) &&
                  !ShapedType::isDynamic(kcMax) &&
                  !ShapedType::isDynamic(ncMax) && kcMax > 0;
      // In parallel with a packed B: N and K cache loops sequential, the
      // threads copy disjoint panels of each B block, then share it, an
      // scf.forall over the M blocks computing C's block row (BLIS's
      // parallel ic loop). Taken when M alone gives every thread at least
      // 2 blocks (balancedBlockRows); otherwise B is read in place.
      int64_t sharedPanelsMc = 0;
      if (threads > 1 && pack && cache[0] > 0 &&
          !ShapedType::isDynamic(mExtent))
        sharedPanelsMc = balancedBlockRows(mExtent, cache[0], reg[0], threads);
      // Otherwise the threads take disjoint blocks of C. When M is one
      // cache block (a prefill of 128 tokens against 4096-wide weights),
      // every task owns whole columns of C and packs its own block of B,
      // which no other task reads: packing stays (B read in place with rows
      // 16 KiB apart made two threads slower than one, the Llama block at
      // S 128). With several M blocks, tasks sharing a B block would each
      // pack it: B is read in place.
      bool oneRowBlock = !ShapedType::isDynamic(mExtent) && cache[0] > 0 &&
                         mExtent <= cache[0];
      if (threads > 1 && !sharedPanelsMc && !oneRowBlock)
        pack = false;
      if (!pack)
        transposeB = {};
      else if (transposeB)
        transposeB->setAttr(kPackedFromAttr, rewriter.getUnitAttr());
      // Cache level: N, K, M; or, in parallel, an scf.forall over the M and
      // N tiles (disjoint blocks of C) and the K tiles sequential inside, or
      // (sharedPanelsMc) N and K sequential with an scf.forall over M inside.
      FailureOr<scf::SCFTilingResult> outer;
      if (sharedPanelsMc) {
        outer = tile(rewriter, op,
                     sizesFor(rewriter, *roles, numLoops, 0, cache[1],
                              cache[2]),
                     interchangeFor(*roles, {roles->n, roles->k, roles->m}));
      } else if (threads > 1) {
        // Enough blocks of C for the threads: halve the M block (keeping it
        // a multiple of mr) while there are fewer than 2 blocks a thread and
        // it has at least 8 mr rows (batch dimensions count as blocks). A 256^3
        // product is otherwise one block and runs on one thread.
        int64_t mc = cache[0];
        int64_t mExt = staticRanges[roles->m], nExt = staticRanges[roles->n];
        if (mc > 0 && !ShapedType::isDynamic(mExt) &&
            !ShapedType::isDynamic(nExt)) {
          int64_t batchBlocks = 1;
          for (unsigned d : roles->batch)
            batchBlocks *= ShapedType::isDynamic(staticRanges[d])
                               ? threads * 2
                               : staticRanges[d];
          auto count = [&](int64_t m) {
            return batchBlocks * llvm::divideCeilSigned(mExt, m) *
                   (cache[1] > 0 ? llvm::divideCeilSigned(nExt, cache[1]) : 1);
          };
          while (count(mc) < 2 * threads && mc >= 8 * reg[0])
            mc = llvm::alignTo(mc / 2, reg[0]);
        }
        FailureOr<scf::SCFTilingResult> blocks = tile(
            rewriter, op, sizesFor(rewriter, *roles, numLoops, mc, cache[1], 0),
            interchangeFor(*roles, {roles->n, roles->m, roles->k}),
            /*forall=*/true);
        if (failed(blocks))
          continue;
        outer = tile(rewriter, cast<linalg::LinalgOp>(blocks->tiledOps.back()),
                     sizesFor(rewriter, *roles, numLoops, 0, 0, cache[2]),
                     interchangeFor(*roles, {roles->n, roles->k, roles->m}));
      } else {
        outer = tile(
            rewriter, op,
            sizesFor(rewriter, *roles, numLoops, cache[0], cache[1], cache[2]),
            interchangeFor(*roles, {roles->n, roles->k, roles->m}));
      }
      if (failed(outer))
        continue;
      // C = fill; C += A B, with a static K > 0: the first K block's register
      // tiles start from the fill value instead of reading it back, and the
      // fill of the whole C goes. The first K block is peeled off the K
      // cache loop for that.
      SmallVector<linalg::LinalgOp> firstK, laterK;
      auto inner = cast<linalg::LinalgOp>(outer->tiledOps.back());
      bool zeroStart = fill && !ShapedType::isDynamic(kExtent) && kExtent > 0;
      // The K cache loop: the loop whose induction variable offsets A's tile
      // along K; none when A's tile starts at K = 0 (one K block).
      std::optional<std::variant<scf::ForOp, bool>> kLoop;
      if (zeroStart || epilogue) {
        OpOperand *lhs = inner.getDpsInputOperand(0);
        auto view = lhs->get().getDefiningOp<memref::SubViewOp>();
        std::optional<unsigned> pos =
            inner.getMatchingIndexingMap(lhs).getResultPosition(
                getAffineDimExpr(roles->k, &getContext()));
        if (view && pos) {
          OpFoldResult offset = view.getMixedOffsets()[*pos];
          if (isZeroInteger(offset))
            kLoop = true;
          for (LoopLikeOpInterface loop : outer->loops)
            if (auto forOp = dyn_cast<scf::ForOp>(loop.getOperation()))
              if (dyn_cast<Value>(offset) == forOp.getInductionVar())
                kLoop = forOp;
        }
      }
      if (!kLoop || !zeroStart) {
        zeroStart = false;
      } else if (std::holds_alternative<bool>(*kLoop)) {
        firstK.push_back(inner);
      } else {
        scf::ForOp loop = std::get<scf::ForOp>(*kLoop), first;
        std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()),
                               ub = getConstantIntValue(loop.getUpperBound()),
                               step = getConstantIntValue(loop.getStep());
        if (lb && ub && step && *ub > *lb && *ub - *lb <= *step) {
          // One K block (upstream's peeling refuses a single iteration).
          firstK.push_back(inner);
        } else if (failed(
                       scf::peelForLoopFirstIteration(rewriter, loop, first))) {
          zeroStart = false;
        } else if (first == loop) {
          firstK.push_back(inner);
        } else {
          first.walk([&](linalg::LinalgOp clone) {
            if (linalg::isaContractionOpInterface(clone))
              firstK.push_back(clone);
          });
          laterK.push_back(inner);
          zeroStart = firstK.size() == 1;
        }
      }
      if (!zeroStart) {
        firstK.clear();
        laterK.assign({inner});
      }
      // The register tiles of the last K block take the epilogue: every
      // tile when A's tile starts at K = 0 (one block) or is a first-K tile
      // (its K loop has one iteration); otherwise the last iteration of the
      // K cache loop is peeled off and its tiles take it.
      llvm::SmallPtrSet<Operation *, 4> lastK;
      bool epilogueOk = static_cast<bool>(epilogue) && kLoop.has_value();
      if (epilogueOk && std::holds_alternative<bool>(*kLoop)) {
        for (linalg::LinalgOp t : firstK)
          lastK.insert(t.getOperation());
        for (linalg::LinalgOp t : laterK)
          lastK.insert(t.getOperation());
      } else if (epilogueOk) {
        scf::ForOp loop = std::get<scf::ForOp>(*kLoop);
        SmallVector<linalg::LinalgOp> inLoop;
        bool firstInLoop = false;
        for (SmallVector<linalg::LinalgOp> *ops : {&firstK, &laterK})
          for (linalg::LinalgOp t : *ops)
            if (loop->isAncestor(t)) {
              inLoop.push_back(t);
              firstInLoop |= ops == &firstK;
            }
        if (inLoop.empty()) {
          // The first block (peeled off) was the only one: the loop is
          // empty or gone.
          for (linalg::LinalgOp t : firstK)
            lastK.insert(t.getOperation());
        } else if (firstInLoop) {
          for (linalg::LinalgOp t : inLoop)
            lastK.insert(t.getOperation());
        } else {
          FailureOr<SmallVector<linalg::LinalgOp>> clones =
              peelLastIteration(rewriter, loop);
          if (succeeded(clones) && clones->empty()) {
            for (linalg::LinalgOp t : inLoop)
              lastK.insert(t.getOperation());
          } else if (failed(clones) || clones->size() != 1) {
            epilogueOk = false;
          } else {
            laterK.push_back(clones->front());
            lastK.insert(clones->front().getOperation());
          }
        }
      }
      if (sharedPanelsMc) {
        bool tiledAll = true;
        for (SmallVector<linalg::LinalgOp> *ops : {&firstK, &laterK})
          for (linalg::LinalgOp &t : *ops) {
            FailureOr<scf::SCFTilingResult> blocks =
                tile(rewriter, t,
                     sizesFor(rewriter, *roles, numLoops, sharedPanelsMc, 0, 0),
                     interchangeFor(*roles, {roles->m, roles->n, roles->k}),
                     /*forall=*/true);
            if (failed(blocks)) {
              tiledAll = false;
              break;
            }
            bool last = lastK.erase(t.getOperation());
            t = cast<linalg::LinalgOp>(blocks->tiledOps.back());
            if (last)
              lastK.insert(t.getOperation());
          }
        if (!tiledAll)
          continue;
      }
      Value fillValue = zeroStart ? fill.getInputs()[0] : Value();
      bool allStarted = true;
      SmallVector<Operation *> epilogueTiles;
      if (epilogue)
        epilogue->setAttr(kEpilogueOfAttr,
                          rewriter.getI64IntegerAttr(++epilogueCount));
      unsigned lastTiles = 0;
      auto microTile = [&](linalg::LinalgOp tileOp, bool start) {
        bool last = epilogueOk && lastK.contains(tileOp.getOperation());
        lastTiles += last;
        std::optional<PackedRhs> packed;
        if (pack) {
          // Once per block of B: before the M cache loop when the block
          // does not depend on it.
          Value block = tileOp.getDpsInputOperand(1)->get();
          Operation *anchor = tileOp;
          Operation *parent = tileOp->getParentOp();
          if (isa<scf::ForOp, scf::ForallOp>(parent) && cache[0] != 0) {
            auto mLoop = cast<LoopLikeOpInterface>(parent);
            moveLoopInvariantCode(mLoop);
            if (mLoop.isDefinedOutsideOfLoop(block))
              anchor = parent;
          }
          if (transposeB)
            packed = packRhsBlockFromNK(
                rewriter, anchor, block, transposeB.getInit(),
                transposeB.getInput(), kcMax, ncMax, reg[1],
                /*parallel=*/sharedPanelsMc != 0);
          if (!packed)
            packed = packRhsBlock(rewriter, anchor, block, kcMax, ncMax, reg[1],
                                  /*parallel=*/sharedPanelsMc != 0);
        }
        // Register level: N, M, then K innermost.
        FailureOr<scf::SCFTilingResult> micro =
            tile(rewriter, tileOp,
                 sizesFor(rewriter, *roles, numLoops, reg[0], reg[1], reg[2]),
                 interchangeFor(*roles, {roles->n, roles->m, roles->k}));
        if (failed(micro)) {
          allStarted &= !start;
          // The epilogue on this tile's C block, after it.
          if (last)
            if (Operation *e = insertEpilogueTile(rewriter, epilogue, tileOp, c,
                                                  tileOp, bounds))
              epilogueTiles.push_back(e);
          return;
        }
        // Marks the register tiles (peeling's copies keep the mark): their
        // sizes are bounded by the register tile even where unknown.
        for (Operation *t : micro->tiledOps)
          t->setAttr(kRegisterTileAttr, rewriter.getDenseI64ArrayAttr(reg));
        if (packed)
          for (Operation *t : micro->tiledOps)
            (void)readPackedRhs(rewriter, cast<linalg::LinalgOp>(t), *packed,
                                reg[1]);
        if (start && failed(startFromFill(rewriter, *micro, fillValue, bounds)))
          allStarted = false;
        // The epilogue on the register tile's C block, after its K loop
        // (the C block's subview taken out of the loop first), before the
        // peeling below copies the tile.
        if (last && micro->tiledOps.size() == 1) {
          Operation *kReg = micro->loops.back().getOperation();
          auto regTile = cast<linalg::LinalgOp>(micro->tiledOps.front());
          if (kReg->isAncestor(regTile) && kReg != regTile) {
            moveLoopInvariantCode(cast<LoopLikeOpInterface>(kReg));
            if (Operation *e = insertEpilogueTile(rewriter, epilogue, regTile,
                                                  c, kReg, bounds))
              epilogueTiles.push_back(e);
          }
        }
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
      };
      for (linalg::LinalgOp t : firstK)
        microTile(t, /*start=*/true);
      for (linalg::LinalgOp t : laterK)
        microTile(t, /*start=*/false);
      // Every first-K register tile starts from the fill value: the whole
      // fill is redundant.
      if (zeroStart && allStarted)
        rewriter.eraseOp(fill);
      // Every last-K tile applies the epilogue: the generic goes. Otherwise
      // no tile does (the generic runs after the contraction as before).
      if (epilogue) {
        if (epilogueOk && lastTiles > 0 && epilogueTiles.size() == lastTiles) {
          if (deadC)
            deadAfterLastRead.insert(rootBuffer(c));
          rewriter.eraseOp(epilogue);
        } else {
          // Every copy, the peeled remainder tiles' included.
          Attribute id = epilogue->getAttr(kEpilogueOfAttr);
          SmallVector<Operation *> copies;
          getOperation().walk([&](linalg::GenericOp g) {
            if (g != epilogue && g->getAttr(kEpilogueOfAttr) == id)
              copies.push_back(g);
          });
          for (Operation *e : copies)
            rewriter.eraseOp(e);
          epilogue->removeAttr(kEpilogueOfAttr);
        }
      }
    }
    // The panels' 16 x 16 transposes (packRhsBlockFromNK's) become shuffles
    // before canonicalization folds them into element-by-element moves.
    if (failed(accel::lowerWordTransposes(getOperation())))
      return signalPassFailure();
    if (failed(canonicalize(getOperation(), getArgument(), maxIterations)))
      return signalPassFailure();
    // A copy of B that nothing reads any more (every tile reads the panels
    // packed from its source) goes, with its transpose (marked, and found
    // again after canonicalization).
    SmallVector<linalg::TransposeOp> packedFrom;
    getOperation().walk([&](linalg::TransposeOp t) {
      if (t->hasAttr(kPackedFromAttr))
        packedFrom.push_back(t);
    });
    for (linalg::TransposeOp t : packedFrom) {
      t->removeAttr(kPackedFromAttr);
      if (llvm::all_of(t.getInit().getUsers(),
                       [&](Operation *user) { return user == t; }))
        accel::eraseTransposeOfB(t);
    }

    // Vectorize the register tiles: static ones as they are, remainder tiles
    // of unknown size (at most the register tile: peeled loops of unknown
    // trip count) masked to the register tile's vector shape. Contractions
    // that were not tiled stay scalar unless small and static.
    ArrayRef<int64_t> defaultReg = unconfigured.registers;
    SmallVector<std::pair<linalg::LinalgOp, SmallVector<int64_t>>> tiles;
    getOperation().walk([&](linalg::LinalgOp op) {
      // startFromFill's fills and the epilogue tiles: to their C block's
      // vector shape, a static N remainder that is not whole vectors masked
      // to the register tile's width as the contraction's is, so that the
      // fill's write and the epilogue's read match the tile's read and
      // write of C and forward to them.
      for (StringRef mark : {kRegisterFillAttr, kRegisterEpilogueAttr}) {
        auto bound = op->getAttrOfType<DenseI64ArrayAttr>(mark);
        if (!bound)
          continue;
        op->removeAttr(mark);
        op->removeAttr(kEpilogueOfAttr);
        SmallVector<int64_t> ranges = op.getStaticLoopRanges();
        if (ranges.size() != static_cast<size_t>(bound.size()))
          return;
        // Lanes of the widest element type it touches: C's (f32), also
        // when it writes a narrower output (an out-of-place cast).
        int64_t lanes = 0;
        for (Value operand : op->getOperands()) {
          Type elt = getElementTypeOrSelf(operand);
          int64_t n =
              elt.isIntOrFloat()
                  ? std::max<int64_t>(1, 512 / elt.getIntOrFloatBitWidth())
                  : 1;
          lanes = lanes ? std::min(lanes, n) : n;
        }
        SmallVector<int64_t> vectorSizes;
        bool dynamic = false;
        for (auto [r, b] : llvm::zip(ranges, bound.asArrayRef())) {
          bool masked = ShapedType::isDynamic(r) ||
                        (r < b && r % lanes != 0 && b % lanes == 0);
          dynamic |= masked;
          vectorSizes.push_back(masked ? b : r);
        }
        if (!dynamic)
          vectorSizes.clear();
        tiles.emplace_back(op, std::move(vectorSizes));
        return;
      }
      if (!op.hasPureBufferSemantics() ||
          !linalg::isaContractionOpInterface(op))
        return;
      std::optional<Roles> roles = rolesOf(op);
      if (!roles)
        return;
      // A register tile's sizes bound it; an untiled contraction is
      // vectorized whole when no larger than the default register tile.
      auto tileMark = op->getAttrOfType<DenseI64ArrayAttr>(kRegisterTileAttr);
      bool registerTile = static_cast<bool>(tileMark);
      ArrayRef<int64_t> reg = tileMark ? tileMark.asArrayRef() : defaultReg;
      int64_t maxElements = reg[0] * reg[1] * reg[2];
      op->removeAttr(kRegisterTileAttr);
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      SmallVector<int64_t> vectorSizes;
      int64_t elements = 1;
      bool dynamic = false;
      // A static remainder of N that is not a whole number of 512-bit
      // vectors (300 = 4 x 64 + 44) is masked to the register tile's width
      // too: LLVM splits a 44-lane vector into pieces and ran such a tile
      // ~20x slower than a full one (200x300x100 at 0.26 of oneDNN).
      Type cElt = getElementTypeOrSelf(op.getDpsInitOperand(0)->get());
      int64_t lanes =
          cElt.isIntOrFloat()
              ? std::max<int64_t>(1, 512 / cElt.getIntOrFloatBitWidth())
              : 1;
      for (auto [loop, r] : llvm::enumerate(ranges)) {
        int64_t bound = r;
        if (registerTile && loop == roles->n && !ShapedType::isDynamic(r) &&
            r < reg[1] && r % lanes != 0) {
          dynamic = true;
          bound = reg[1];
        } else if (ShapedType::isDynamic(r)) {
          if (!registerTile)
            return;
          dynamic = true;
          if (loop == roles->m)
            bound = reg[0];
          else if (loop == roles->n)
            bound = reg[1];
          else if (loop == roles->k)
            bound = reg[2];
          else
            return;
        }
        vectorSizes.push_back(bound);
        elements *= bound;
      }
      if (elements <= 0 || elements > maxElements)
        return;
      if (!dynamic)
        vectorSizes.clear();
      tiles.emplace_back(op, std::move(vectorSizes));
    });
    for (auto &[op, vectorSizes] : tiles) {
      rewriter.setInsertionPoint(op);
      // (Upstream needs one scalable flag per vector size: with none, the
      // masks it builds get a malformed type.)
      SmallVector<bool> scalable(vectorSizes.size(), false);
      FailureOr<linalg::VectorizationResult> vectorized = linalg::vectorize(
          rewriter, op, /*inputVectorSizes=*/vectorSizes,
          /*inputScalableVecDims=*/scalable,
          /*vectorizeNDExtract=*/false, /*flatten1DDepthwiseConv=*/false,
          /*assumeDynamicDimsMatchVecSizes=*/false,
          /*createNamedContraction=*/false);
      if (succeeded(vectorized))
        rewriter.replaceOp(op, vectorized->replacements);
    }
    MLIRContext *ctx = &getContext();
    // Remainder tiles: vector.mask { transfer } as masked transfers.
    {
      RewritePatternSet patterns(ctx);
      vector::populateVectorMaskLoweringPatternsForSideEffectingOps(patterns);
      if (failed(accel::applyOrReport(getOperation(), std::move(patterns),
                                      "mask-lowering", getArgument(),
                                      maxIterations)))
        return signalPassFailure();
    }
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
      if (failed(accel::applyOrReport(getOperation(), std::move(patterns),
                                      "contraction-forming", getArgument(),
                                      maxIterations)))
        return signalPassFailure();
    }
    // Keep the C tile in registers across the K loop (hoisting matches the
    // read and the write by their index values: CSE them first).
    {
      DominanceInfo dominance(getOperation());
      eliminateCommonSubExpressions(rewriter, dominance, getOperation());
    }
    hoistAccumulators(rewriter, getOperation());
    // Hoisting took loop-invariant masks out of the loops: equal ones must
    // be one value for a masked tile's write to forward to its epilogue's
    // read.
    {
      DominanceInfo dominance(getOperation());
      eliminateCommonSubExpressions(rewriter, dominance, getOperation());
    }
    forwardAndEraseDeadWrites(getOperation(), deadAfterLastRead);
    if (prefetchC)
      prefetchNextTiles(rewriter, getOperation());
    if (prefetchB)
      prefetchRhsRows(rewriter, getOperation(), unconfigured.prefetchRhsSteps,
                      unconfigured.prefetchRhsMinBytes);
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
      if (failed(accel::applyOrReport(getOperation(), std::move(patterns),
                                      "vector-lowering", getArgument(),
                                      maxIterations)))
        return signalPassFailure();
    }
  }
};
} // namespace
