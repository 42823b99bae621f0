//===- FuseSlices.cpp - slices into the generics that read them -----------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel-fuse-slices: RoPE as frontends write it (the halves of x through
// tensor.extract_slice, rotated by two elementwise generics, put together
// by tensor.concat; or the pairs x[2i], x[2i+1] through stride-2 slices and
// stride-2 tensor.insert_slice) becomes one elementwise linalg.generic over
// the whole result that reads x through affine maps: no slice, copy or
// concatenation is left, and a GPU computes it as one elementwise kernel.
//
//===----------------------------------------------------------------------===//

#include "accel/Transforms/Passes.h"
#include "accel/Transforms/Transforms.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELFUSESLICESPASS
#include "accel/Transforms/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;

namespace {

/// A slice with static offsets, sizes and strides that keeps its rank.
static bool isStaticSlice(OffsetSizeAndStrideOpInterface op,
                          RankedTensorType small, RankedTensorType big) {
  return small && big && small.hasStaticShape() && big.hasStaticShape() &&
         small.getRank() == big.getRank() &&
         !ShapedType::isDynamicShape(op.getStaticOffsets()) &&
         !ShapedType::isDynamicShape(op.getStaticSizes()) &&
         !ShapedType::isDynamicShape(op.getStaticStrides()) &&
         llvm::equal(op.getStaticSizes(), small.getShape());
}

/// A generic reading a static slice of a tensor reads the tensor itself:
/// its map becomes offset + stride * (the old map).
struct FoldExtractSlice : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp g,
                                PatternRewriter &rewriter) const override {
    if (!g.hasPureTensorSemantics())
      return failure();
    SmallVector<AffineMap> maps = g.getIndexingMapsArray();
    SmallVector<std::pair<OpOperand *, Value>> replace;
    for (OpOperand *in : g.getDpsInputOperands()) {
      auto slice = in->get().getDefiningOp<tensor::ExtractSliceOp>();
      if (!slice || !isStaticSlice(slice, slice.getType(),
                                   slice.getSourceType()))
        continue;
      AffineMap m = maps[in->getOperandNumber()];
      SmallVector<AffineExpr> exprs;
      for (auto [i, e] : llvm::enumerate(m.getResults()))
        exprs.push_back(e * slice.getStaticStrides()[i] +
                        slice.getStaticOffsets()[i]);
      maps[in->getOperandNumber()] =
          AffineMap::get(m.getNumDims(), 0, exprs, g.getContext());
      replace.push_back({in, slice.getSource()});
    }
    if (replace.empty())
      return failure();
    // The loops must still be read off the maps (a reduction whose only
    // pure dimension was the slice's: (d0, d1 + 64) and (d0)).
    if (!inversePermutation(concatAffineMaps(maps, g.getContext())))
      return failure();
    rewriter.modifyOpInPlace(g, [&] {
      for (auto [operand, source] : replace)
        operand->set(source);
      g.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
    return success();
  }
};

/// An elementwise generic whose value only a concat or an insert reads, and
/// whose body reads neither its output nor the index of `dim`.
static linalg::GenericOp pieceGeneric(Value v, int64_t dim) {
  auto g = v.getDefiningOp<linalg::GenericOp>();
  if (!g || !v.hasOneUse() || !g.hasPureTensorSemantics() ||
      g.getNumResults() != 1 || g.getNumDpsInits() != 1 ||
      g.getNumParallelLoops() != g.getNumLoops() ||
      !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity() ||
      !g.getMatchingBlockArgument(g.getDpsInitOperand(0)).use_empty())
    return {};
  bool usesDim = false;
  g.getRegion().walk([&](linalg::IndexOp index) {
    usesDim |= int64_t(index.getDim()) == dim;
  });
  return usesDim ? linalg::GenericOp() : g;
}

/// One part of the result: a generic's values land at offset + stride * j
/// along `dim` (j < size), everywhere along the other dimensions.
struct Piece {
  linalg::GenericOp generic;
  int64_t offset, stride, size;
};

/// The generic over all of `type` that computes each element with the
/// piece it lies in: every piece's body on inputs read through maps that
/// stay in bounds for every element (the piece's index mod its size), its
/// value chosen by where the element is.
static Value fusePieces(PatternRewriter &rewriter, Location loc,
                        RankedTensorType type, int64_t dim,
                        ArrayRef<Piece> pieces) {
  MLIRContext *ctx = rewriter.getContext();
  unsigned rank = type.getRank();
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  // Per piece, per input operand of its generic: the fused input's index.
  SmallVector<SmallVector<unsigned>> inputOf(pieces.size());
  for (auto [p, piece] : llvm::enumerate(pieces)) {
    // The piece's own index along `dim` for an element at d: for d =
    // offset + stride * j, d floordiv stride = j + offset floordiv stride,
    // so j = (d floordiv stride + c) mod size with c the non-negative
    // constant that cancels offset floordiv stride. Elsewhere it is some
    // index in [0, size): every read in bounds, never negative, and the
    // pieces of one split read their inputs through the same maps.
    AffineExpr d = getAffineDimExpr(dim, ctx);
    int64_t q = piece.offset / piece.stride;
    int64_t c = (piece.size - q % piece.size) % piece.size;
    AffineExpr local = piece.stride == 1 ? d : d.floorDiv(piece.stride);
    if (!(piece.offset == 0 && piece.stride == 1 &&
          piece.size == type.getDimSize(dim)))
      local = (local + c) % piece.size;
    SmallVector<AffineExpr> sub;
    for (unsigned i = 0; i < rank; ++i)
      sub.push_back(int64_t(i) == dim ? local : getAffineDimExpr(i, ctx));
    AffineMap toPiece = AffineMap::get(rank, 0, sub, ctx);
    linalg::GenericOp g = piece.generic;
    for (OpOperand *in : g.getDpsInputOperands()) {
      AffineMap m = g.getMatchingIndexingMap(in).compose(toPiece);
      unsigned at = inputs.size();
      for (unsigned i = 0; i < inputs.size(); ++i)
        if (inputs[i] == in->get() && maps[i] == m)
          at = i;
      if (at == inputs.size()) {
        inputs.push_back(in->get());
        maps.push_back(m);
      }
      inputOf[p].push_back(at);
    }
  }
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                       type.getElementType());
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto fused = linalg::GenericOp::create(
      rewriter, loc, type, inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value d = linalg::IndexOp::create(b, l, dim);
        Value chosen;
        // The last piece is what remains; the others are chosen where the
        // element is theirs.
        for (int64_t p = pieces.size() - 1; p >= 0; --p) {
          const Piece &piece = pieces[p];
          linalg::GenericOp g = piece.generic;
          Block &body = g.getRegion().front();
          IRMapping map;
          for (auto [i, at] : llvm::enumerate(inputOf[p]))
            map.map(body.getArgument(i), args[at]);
          for (Operation &op : body.without_terminator())
            b.clone(op, map);
          Value v = map.lookupOrDefault(
              cast<linalg::YieldOp>(body.getTerminator()).getOperand(0));
          if (!chosen) {
            chosen = v;
            continue;
          }
          auto cst = [&](int64_t c) {
            return arith::ConstantIndexOp::create(b, l, c);
          };
          Value in = arith::CmpIOp::create(
              b, l, arith::CmpIPredicate::ult, d,
              cst(piece.offset + piece.stride * (piece.size - 1) + 1));
          if (piece.offset > 0)
            in = arith::AndIOp::create(
                b, l,
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::uge, d,
                                      cst(piece.offset)),
                in);
          if (piece.stride != 1) {
            Value rem =
                arith::RemUIOp::create(b, l, d, cst(piece.stride));
            in = arith::AndIOp::create(
                b, l, in,
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, rem,
                                      cst(piece.offset % piece.stride)));
          }
          chosen = arith::SelectOp::create(b, l, in, v, chosen);
        }
        linalg::YieldOp::create(b, l, chosen);
      });
  return fused.getResult(0);
}

/// tensor.concat of elementwise generics: one generic.
struct FuseConcat : OpRewritePattern<tensor::ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ConcatOp concat,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(concat.getType());
    if (!type || !type.hasStaticShape())
      return failure();
    int64_t dim = concat.getDim();
    SmallVector<Piece> pieces;
    int64_t offset = 0;
    for (Value v : concat.getInputs()) {
      linalg::GenericOp g = pieceGeneric(v, dim);
      if (!g)
        return rewriter.notifyMatchFailure(concat,
                                           "an input is no elementwise "
                                           "generic used only here");
      int64_t size = cast<RankedTensorType>(v.getType()).getDimSize(dim);
      if (ShapedType::isDynamic(size) || size < 1)
        return rewriter.notifyMatchFailure(concat, "an input is empty or of "
                                                   "dynamic size");
      pieces.push_back({g, offset, 1, size});
      offset += size;
    }
    if (pieces.size() < 2)
      return failure();
    Value fused = fusePieces(rewriter, concat.getLoc(), type, dim, pieces);
    rewriter.replaceOp(concat, fused);
    return success();
  }
};

/// tensor.insert_slice of elementwise generics into a tensor.empty, one
/// after another, that together write every element once: one generic.
struct FuseInserts : OpRewritePattern<tensor::InsertSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::InsertSliceOp last,
                                PatternRewriter &rewriter) const override {
    RankedTensorType type = last.getDestType();
    if (!type.hasStaticShape())
      return failure();
    // Only the last insert of a chain: not one another insert consumes.
    for (Operation *user : last->getUsers())
      if (auto next = dyn_cast<tensor::InsertSliceOp>(user))
        if (next.getDest() == last.getResult())
          return failure();
    SmallVector<tensor::InsertSliceOp> chain;
    Value dest = last.getResult();
    while (auto insert = dest.getDefiningOp<tensor::InsertSliceOp>()) {
      if (insert != last && !insert->hasOneUse())
        return failure();
      chain.push_back(insert);
      dest = insert.getDest();
    }
    if (chain.size() < 2 || !dest.getDefiningOp<tensor::EmptyOp>())
      return failure();
    // The dimension the pieces split: the one where they do not cover
    // everything with stride 1 (the same for all).
    int64_t dim = -1;
    for (tensor::InsertSliceOp insert : chain) {
      if (!isStaticSlice(insert, insert.getSourceType(), type))
        return failure();
      for (int64_t i = 0; i < type.getRank(); ++i) {
        bool whole = insert.getStaticOffsets()[i] == 0 &&
                     insert.getStaticStrides()[i] == 1 &&
                     insert.getStaticSizes()[i] == type.getDimSize(i);
        if (whole)
          continue;
        if (dim >= 0 && dim != i)
          return rewriter.notifyMatchFailure(last, "the inserts split "
                                                   "two dimensions");
        dim = i;
      }
    }
    if (dim < 0)
      return failure();
    // Every element of `dim` written exactly once.
    std::vector<int> written(type.getDimSize(dim), 0);
    SmallVector<Piece> pieces;
    for (tensor::InsertSliceOp insert : llvm::reverse(chain)) {
      linalg::GenericOp g = pieceGeneric(insert.getSource(), dim);
      if (!g)
        return rewriter.notifyMatchFailure(last, "an inserted value is no "
                                                 "elementwise generic used "
                                                 "only there");
      Piece p{g, insert.getStaticOffsets()[dim],
              insert.getStaticStrides()[dim], insert.getStaticSizes()[dim]};
      if (p.stride < 1 || p.size < 1 || p.offset < 0 ||
          p.offset + p.stride * (p.size - 1) >= type.getDimSize(dim))
        return failure();
      for (int64_t j = 0; j < p.size; ++j)
        ++written[p.offset + p.stride * j];
      pieces.push_back(p);
    }
    if (llvm::any_of(written, [](int n) { return n != 1; }))
      return rewriter.notifyMatchFailure(last, "the inserts do not write "
                                               "every element once");
    Value fused = fusePieces(rewriter, last.getLoc(), type, dim, pieces);
    rewriter.replaceOp(last, fused);
    return success();
  }
};

/// A linalg.transpose is a generic reading its input through the
/// permutation: an elementwise kernel on a GPU, and a producer or consumer
/// upstream's elementwise fusion can fold.
struct GeneralizeTranspose : OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return failure();
    return linalg::generalizeNamedOp(rewriter, op);
  }
};

struct AccelFuseSlicesPass
    : accel::impl::AccelFuseSlicesPassBase<AccelFuseSlicesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    accel::populateAccelFuseSlicesPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::accel::populateAccelFuseSlicesPatterns(RewritePatternSet &patterns) {
  patterns.add<FoldExtractSlice, FuseConcat, FuseInserts, GeneralizeTranspose>(
      patterns.getContext());
}
