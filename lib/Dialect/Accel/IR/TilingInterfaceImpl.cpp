//===- TilingInterfaceImpl.cpp - TilingInterface for accel ops ------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// TilingInterface for matmul, softmax and attention, so that upstream
// `scf::tileUsingSCF` and `transform.structured.tile_using_for` tile them.
//
// Iteration spaces:
//   matmul    [batch..., M, N, K]   K is a reduction; tiles of K accumulate
//   softmax   the input's dims      the softmax dim is a reduction kept whole
//   attention [B, Hq, Sq, Dv]       all parallel; Skv and D stay whole
//
//===----------------------------------------------------------------------===//

#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::accel;

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

/// Size of dimension `dim` of the ranked tensor `v`, as an attribute when
/// static and a `tensor.dim` otherwise.
static OpFoldResult dimOf(OpBuilder &b, Location loc, Value v, int64_t dim) {
  return tensor::getMixedSize(b, loc, v, dim);
}

/// Extracts the slice [offsets, offsets + sizes) with unit strides.
static tensor::ExtractSliceOp slice(OpBuilder &b, Location loc, Value source,
                                   ArrayRef<OpFoldResult> offsets,
                                   ArrayRef<OpFoldResult> sizes) {
  SmallVector<OpFoldResult> strides(offsets.size(), b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, source, offsets, sizes,
                                        strides);
}

/// Whether `size` provably equals dimension `dim` of `tensor`: both the same
/// constant, or `size` is a `tensor.dim` of that very dimension.
static bool isWholeDim(OpFoldResult size, Value tensor, int64_t dim) {
  int64_t staticSize = cast<RankedTensorType>(tensor.getType()).getDimSize(dim);
  if (std::optional<int64_t> c = getConstantIntValue(size))
    return !ShapedType::isDynamic(staticSize) && *c == staticSize;
  auto dimOp = dyn_cast_or_null<tensor::DimOp>(
      cast<Value>(size).getDefiningOp());
  if (!dimOp || dimOp.getSource() != tensor)
    return false;
  std::optional<int64_t> idx = dimOp.getConstantIndex();
  return idx && *idx == dim;
}

static bool isZero(OpFoldResult ofr) { return isConstantIntValue(ofr, 0); }

/// The iteration domain [0, size) with unit steps for each given size.
static SmallVector<Range> domainOf(OpBuilder &b,
                                   ArrayRef<OpFoldResult> sizes) {
  SmallVector<Range> ranges;
  for (OpFoldResult size : sizes)
    ranges.push_back(Range{b.getIndexAttr(0), size, b.getIndexAttr(1)});
  return ranges;
}

/// The result tile of an iteration tile: the result is indexed by the
/// leading loops, all but the `reductionLoops` trailing ones.
static LogicalResult resultTileOf(ArrayRef<OpFoldResult> offsets,
                                  ArrayRef<OpFoldResult> sizes,
                                  unsigned reductionLoops,
                                  SmallVector<OpFoldResult> &resultOffsets,
                                  SmallVector<OpFoldResult> &resultSizes) {
  resultOffsets.assign(offsets.begin(), offsets.end() - reductionLoops);
  resultSizes.assign(sizes.begin(), sizes.end() - reductionLoops);
  return success();
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

SmallVector<utils::IteratorType> MatmulOp::getLoopIteratorTypes() {
  SmallVector<utils::IteratorType> types(getNumBatchDims() + 2,
                                         utils::IteratorType::parallel);
  types.push_back(utils::IteratorType::reduction);
  return types;
}

SmallVector<Range> MatmulOp::getIterationDomain(OpBuilder &b) {
  Location loc = getLoc();
  int64_t rank = getInit().getType().getRank();
  SmallVector<OpFoldResult> sizes;
  for (int64_t i = 0; i < rank; ++i)
    sizes.push_back(dimOf(b, loc, getInit(), i));
  sizes.push_back(dimOf(b, loc, getLhs(), rank - 1));
  return domainOf(b, sizes);
}

FailureOr<TilingResult>
MatmulOp::getTiledImplementation(OpBuilder &b, ArrayRef<OpFoldResult> offsets,
                                 ArrayRef<OpFoldResult> sizes) {
  Location loc = getLoc();
  int64_t nb = getNumBatchDims();
  ArrayRef<OpFoldResult> bOff = offsets.take_front(nb),
                         bSz = sizes.take_front(nb);
  OpFoldResult mOff = offsets[nb], nOff = offsets[nb + 1],
               kOff = offsets[nb + 2];
  OpFoldResult mSz = sizes[nb], nSz = sizes[nb + 1], kSz = sizes[nb + 2];

  auto concat = [&](ArrayRef<OpFoldResult> head, OpFoldResult x,
                    OpFoldResult y) {
    SmallVector<OpFoldResult> r(head);
    r.push_back(x);
    r.push_back(y);
    return r;
  };
  auto aSlice = slice(b, loc, getLhs(), concat(bOff, mOff, kOff),
                      concat(bSz, mSz, kSz));
  auto bSlice = getTransposeB()
                    ? slice(b, loc, getRhs(), concat(bOff, nOff, kOff),
                            concat(bSz, nSz, kSz))
                    : slice(b, loc, getRhs(), concat(bOff, kOff, nOff),
                            concat(bSz, kSz, nSz));
  auto cSlice = slice(b, loc, getInit(), concat(bOff, mOff, nOff),
                      concat(bSz, mSz, nSz));
  SmallVector<Operation *> slices = {aSlice, bSlice, cSlice};

  // A tile of K that starts past 0 adds to the partial sums of the earlier
  // tiles. Without `accumulate` the first K tile must not read C, so when
  // the offset is only known at run time, C is replaced by zeros for it.
  Value init = cSlice.getResult();
  bool accumulate = getAccumulate();
  int64_t kDim = getInit().getType().getRank() - 1;
  bool wholeK = isZero(kOff) && isWholeDim(kSz, getLhs(), kDim);
  int64_t staticK = getLhs().getType().getDimSize(kDim);
  if (!accumulate && !wholeK && (ShapedType::isDynamic(staticK) || staticK == 0)) {
    // With K = 0 the K loop never runs and C would stay uninitialised.
    emitOpError() << "cannot tile K of a matmul without 'accumulate' unless K "
                     "is static and positive (fill C and set 'accumulate' "
                     "to tile a dynamic K)";
    return failure();
  }
  if (!accumulate && !isZero(kOff)) {
    accumulate = true;
    if (!getConstantIntValue(kOff)) {
      auto cType = cast<RankedTensorType>(init.getType());
      Value zero = arith::ConstantOp::create(
          b, loc, b.getZeroAttr(cType.getElementType()));
      SmallVector<Value> dynSizes;
      for (int64_t i = 0; i < cType.getRank(); ++i)
        if (cType.isDynamicDim(i))
          dynSizes.push_back(tensor::DimOp::create(b, loc, init, i));
      Value zeros =
          tensor::SplatOp::create(b, loc, cType, zero, dynSizes).getResult();
      Value isFirst = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::eq,
          getValueOrCreateConstantIndexOp(b, loc, kOff),
          arith::ConstantIndexOp::create(b, loc, 0));
      init = arith::SelectOp::create(b, loc, isFirst, zeros, init);
    }
  }
  auto tiled = MatmulOp::create(b, loc, init.getType(), aSlice.getResult(),
                                bSlice.getResult(), getLhsScale(),
                                getRhsScale(), init, getTransposeB(),
                                accumulate);
  return TilingResult{{tiled}, {tiled.getResult()}, slices};
}

LogicalResult MatmulOp::getResultTilePosition(
    OpBuilder &b, unsigned resultNumber, ArrayRef<OpFoldResult> offsets,
    ArrayRef<OpFoldResult> sizes, SmallVector<OpFoldResult> &resultOffsets,
    SmallVector<OpFoldResult> &resultSizes) {
  // The result is indexed by every loop but K, the last.
  return resultTileOf(offsets, sizes, 1, resultOffsets, resultSizes);
}

FailureOr<TilingResult>
MatmulOp::generateResultTileValue(OpBuilder &b, unsigned resultNumber,
                                  ArrayRef<OpFoldResult> offsets,
                                  ArrayRef<OpFoldResult> sizes) {
  // A tile of the result needs the whole of K.
  SmallVector<OpFoldResult> loopOffsets(offsets), loopSizes(sizes);
  loopOffsets.push_back(b.getIndexAttr(0));
  loopSizes.push_back(
      dimOf(b, getLoc(), getLhs(), getInit().getType().getRank() - 1));
  return getTiledImplementation(b, loopOffsets, loopSizes);
}

//===----------------------------------------------------------------------===//
// SoftmaxOp
//===----------------------------------------------------------------------===//

SmallVector<utils::IteratorType> SoftmaxOp::getLoopIteratorTypes() {
  SmallVector<utils::IteratorType> types(getInput().getType().getRank(),
                                         utils::IteratorType::parallel);
  types[getDimension()] = utils::IteratorType::reduction;
  return types;
}

SmallVector<Range> SoftmaxOp::getIterationDomain(OpBuilder &b) {
  // Sizes from the input: tiling replaces the init by a loop-carried value,
  // and the whole-dimension check below compares against the same operand.
  SmallVector<OpFoldResult> sizes;
  for (int64_t i = 0, e = getInput().getType().getRank(); i < e; ++i)
    sizes.push_back(dimOf(b, getLoc(), getInput(), i));
  return domainOf(b, sizes);
}

FailureOr<TilingResult>
SoftmaxOp::getTiledImplementation(OpBuilder &b, ArrayRef<OpFoldResult> offsets,
                                  ArrayRef<OpFoldResult> sizes) {
  int64_t dim = getDimension();
  if (!isZero(offsets[dim]) || !isWholeDim(sizes[dim], getInput(), dim)) {
    emitOpError() << "cannot tile the softmax dimension " << dim
                  << ": a tile must cover it whole (use tile size 0 for that "
                     "loop)";
    return failure();
  }
  Location loc = getLoc();
  auto inSlice = slice(b, loc, getInput(), offsets, sizes);
  auto outSlice = slice(b, loc, getInit(), offsets, sizes);
  auto tiled = SoftmaxOp::create(b, loc, outSlice.getType(),
                                 inSlice.getResult(), outSlice.getResult(),
                                 dim);
  return TilingResult{
      {tiled}, {tiled.getResult()}, {inSlice, outSlice}};
}

LogicalResult SoftmaxOp::getResultTilePosition(
    OpBuilder &b, unsigned resultNumber, ArrayRef<OpFoldResult> offsets,
    ArrayRef<OpFoldResult> sizes, SmallVector<OpFoldResult> &resultOffsets,
    SmallVector<OpFoldResult> &resultSizes) {
  return resultTileOf(offsets, sizes, 0, resultOffsets, resultSizes);
}

FailureOr<TilingResult>
SoftmaxOp::generateResultTileValue(OpBuilder &b, unsigned resultNumber,
                                   ArrayRef<OpFoldResult> offsets,
                                   ArrayRef<OpFoldResult> sizes) {
  return getTiledImplementation(b, offsets, sizes);
}

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

SmallVector<utils::IteratorType> AttentionOp::getLoopIteratorTypes() {
  return SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel);
}

SmallVector<Range> AttentionOp::getIterationDomain(OpBuilder &b) {
  // [B, Hq, Sq] from Q and Dv from V: inputs stay the same values in the
  // clone that tiling hands to getTiledImplementation, the init does not.
  Location loc = getLoc();
  return domainOf(b, {dimOf(b, loc, getQuery(), 0), dimOf(b, loc, getQuery(), 1),
                      dimOf(b, loc, getQuery(), 2), dimOf(b, loc, getValue(), 3)});
}

/// The key/value heads that query heads [hOff, hOff + hSz) read, or failure
/// when the tile does not map onto whole key/value heads. Offsets that are
/// not constants are trusted to be multiples of the tile size (as tiling
/// loops produce) only when `trustOffsets` is set.
static FailureOr<std::pair<OpFoldResult, OpFoldResult>>
kvHeadTile(OpBuilder &b, AttentionOp op, OpFoldResult hOff, OpFoldResult hSz,
           bool trustOffsets) {
  Location loc = op.getLoc();
  Value q = op.getQuery(), k = op.getKey();
  if (isZero(hOff) && isWholeDim(hSz, q, 1))
    return std::make_pair(hOff, dimOf(b, loc, k, 1));
  int64_t hq = op.getQuery().getType().getDimSize(1);
  int64_t hkv = op.getKey().getType().getDimSize(1);
  if (ShapedType::isDynamic(hkv))
    hkv = op.getValue().getType().getDimSize(1);
  if (ShapedType::isDynamic(hq) || ShapedType::isDynamic(hkv) || hq == 0 ||
      hkv == 0)
    return failure();
  int64_t group = hq / hkv;
  if (group == 1)
    return std::make_pair(hOff, hSz);
  std::optional<int64_t> t = getConstantIntValue(hSz);
  if (!t || *t <= 0 || (group % *t != 0 && *t % group != 0))
    return failure();
  // The tile must start on a boundary of its own size (within a group) or of
  // a group (spanning groups).
  int64_t align = std::min(*t, group);
  if (std::optional<int64_t> off = getConstantIntValue(hOff)) {
    if (*off % align != 0)
      return failure();
  } else if (!trustOffsets) {
    return failure();
  }
  AffineExpr d0 = b.getAffineDimExpr(0);
  OpFoldResult kvOff = affine::makeComposedFoldedAffineApply(
      b, loc, d0.floorDiv(group), {hOff});
  OpFoldResult kvSz = b.getIndexAttr(std::max<int64_t>(1, *t / group));
  return std::make_pair(kvOff, kvSz);
}

/// The tiled attention for [offsets, offsets + sizes) of [B, Hq, Sq, Dv].
static FailureOr<TilingResult> tileAttention(AttentionOp op, OpBuilder &b,
                                             ArrayRef<OpFoldResult> offsets,
                                             ArrayRef<OpFoldResult> sizes,
                                             bool trustOffsets);

FailureOr<TilingResult>
AttentionOp::getTiledImplementation(OpBuilder &b,
                                    ArrayRef<OpFoldResult> offsets,
                                    ArrayRef<OpFoldResult> sizes) {
  // Tiling loops start at 0 and step by the tile size.
  return tileAttention(*this, b, offsets, sizes, /*trustOffsets=*/true);
}

static FailureOr<TilingResult> tileAttention(AttentionOp op, OpBuilder &b,
                                             ArrayRef<OpFoldResult> offsets,
                                             ArrayRef<OpFoldResult> sizes,
                                             bool trustOffsets) {
  Location loc = op.getLoc();
  OpFoldResult zero = b.getIndexAttr(0);
  Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
  FailureOr<std::pair<OpFoldResult, OpFoldResult>> kvHeads =
      kvHeadTile(b, op, offsets[1], sizes[1], trustOffsets);
  if (failed(kvHeads)) {
    op.emitOpError() << "cannot tile query heads: with grouped-query "
                        "attention the head tile must be static, divide or be "
                        "a multiple of the group size Hq / Hkv, and start on "
                        "a multiple of its size (head counts must be static "
                        "and non-zero)";
    return failure();
  }
  auto [kvOff, kvSz] = *kvHeads;
  OpFoldResult skv = dimOf(b, loc, k, 2), d = dimOf(b, loc, q, 3);

  auto qSlice = slice(b, loc, q, {offsets[0], offsets[1], offsets[2], zero},
                      {sizes[0], sizes[1], sizes[2], d});
  auto kSlice = slice(b, loc, k, {offsets[0], kvOff, zero, zero},
                      {sizes[0], kvSz, skv, d});
  auto vSlice = slice(b, loc, v, {offsets[0], kvOff, zero, offsets[3]},
                      {sizes[0], kvSz, skv, sizes[3]});
  auto oSlice = slice(b, loc, op.getInit(), offsets, sizes);
  SmallVector<Operation *> slices = {qSlice, kSlice, vSlice, oSlice};

  // The mask broadcasts to [B, Hq, Sq, Skv] aligned right: a static size-1
  // dimension stays whole, the others follow the tile (Skv is never tiled).
  Value maskTile;
  if (Value mask = op.getMask()) {
    auto mT = cast<RankedTensorType>(mask.getType());
    int64_t mr = mT.getRank();
    SmallVector<OpFoldResult> mOff, mSz;
    for (int64_t i = 0; i < mr; ++i) {
      int64_t full = i + 4 - mr;
      if (mT.getDimSize(i) == 1 || full == 3) {
        mOff.push_back(zero);
        mSz.push_back(dimOf(b, loc, mask, i));
      } else {
        mOff.push_back(offsets[full]);
        mSz.push_back(sizes[full]);
      }
    }
    auto mSlice = slice(b, loc, mask, mOff, mSz);
    slices.push_back(mSlice);
    maskTile = mSlice.getResult();
  }

  // Sequence lengths are per batch: the tile takes its batches' entries.
  auto lengthsTile = [&](Value lengths) -> Value {
    if (!lengths)
      return Value();
    auto lSlice = slice(b, loc, lengths, {offsets[0]}, {sizes[0]});
    slices.push_back(lSlice);
    return lSlice.getResult();
  };
  Value kvLengths = lengthsTile(op.getKvLengths());
  Value qLengths = lengthsTile(op.getQLengths());

  // A tile of queries starting at m0 keeps the band of the whole op: key j
  // is visible to its row i when j <= i + off + m0 (see the op's
  // description for off).
  Value diagonal = op.getDiagonal();
  bool queryTiled = !(isZero(offsets[2]) && isWholeDim(sizes[2], q, 2));
  if (queryTiled && qLengths) {
    // With q_lengths the tile's rows are valid below q_lengths - m0, and
    // off = diagonal + (kvlen - Skv) - (qlen - Sq) stays the whole op's
    // when the tile's diagonal is diagonal + Sq - Sq_tile (the default,
    // Skv - Sq_tile, when the op has none).
    auto lT = cast<RankedTensorType>(qLengths.getType());
    Type elt = lT.getElementType();
    SmallVector<Value> dynExtents;
    if (lT.isDynamicDim(0))
      dynExtents.push_back(tensor::DimOp::create(b, loc, qLengths, 0));
    Value m0 = getValueOrCreateConstantIndexOp(b, loc, offsets[2]);
    Value src = qLengths;
    qLengths = tensor::GenerateOp::create(
        b, loc, lT, dynExtents,
        [&](OpBuilder &nb, Location l, ValueRange idx) {
          // The op clamps lengths to [-2^31, 2^31]; a length at or below
          // 0 keeps no row whatever the shift. So the tile's length is
          // clamp(len, 0, 2^31) - m0: it cannot wrap, and the tile's own
          // clamp leaves it as it is.
          Value len = arith::MaxSIOp::create(
              nb, l, tensor::ExtractOp::create(nb, l, src, idx),
              arith::ConstantOp::create(nb, l, nb.getZeroAttr(elt)));
          if (elt.getIntOrFloatBitWidth() > 32)
            len = arith::MinSIOp::create(
                nb, l, len,
                arith::ConstantOp::create(
                    nb, l, nb.getIntegerAttr(elt, int64_t(1) << 31)));
          Value shift = arith::IndexCastOp::create(nb, l, elt, m0);
          tensor::YieldOp::create(nb, l,
                                  arith::SubIOp::create(nb, l, len, shift)
                                      .getResult());
        });
    if (op.getCausal() && diagonal) {
      AffineExpr d0, d1, d2;
      bindDims(b.getContext(), d0, d1, d2);
      diagonal = getValueOrCreateConstantIndexOp(
          b, loc,
          affine::makeComposedFoldedAffineApply(
              b, loc, d0 + d1 - d2,
              {diagonal, dimOf(b, loc, q, 2), sizes[2]}));
    }
  } else if (queryTiled && op.getCausal()) {
    AffineExpr d0, d1, d2;
    bindDims(b.getContext(), d0, d1, d2);
    OpFoldResult base;
    if (diagonal) {
      base = affine::makeComposedFoldedAffineApply(b, loc, d0 + d1,
                                                   {diagonal, offsets[2]});
    } else {
      base = affine::makeComposedFoldedAffineApply(
          b, loc, d0 - d1 + d2,
          {skv, dimOf(b, loc, q, 2), offsets[2]});
    }
    diagonal = getValueOrCreateConstantIndexOp(b, loc, base);
  }

  auto tiled = AttentionOp::create(
      b, loc, oSlice.getType(), qSlice.getResult(), kSlice.getResult(),
      vSlice.getResult(), maskTile, kvLengths, qLengths, diagonal,
      oSlice.getResult(), op.getScaleAttr(), op.getCausalAttr(),
      op.getWindowAttr());
  return TilingResult{{tiled}, {tiled.getResult()}, slices};
}

LogicalResult AttentionOp::getResultTilePosition(
    OpBuilder &b, unsigned resultNumber, ArrayRef<OpFoldResult> offsets,
    ArrayRef<OpFoldResult> sizes, SmallVector<OpFoldResult> &resultOffsets,
    SmallVector<OpFoldResult> &resultSizes) {
  return resultTileOf(offsets, sizes, 0, resultOffsets, resultSizes);
}

FailureOr<TilingResult>
AttentionOp::generateResultTileValue(OpBuilder &b, unsigned resultNumber,
                                     ArrayRef<OpFoldResult> offsets,
                                     ArrayRef<OpFoldResult> sizes) {
  // A consumer may ask for any slice: head offsets must be provably aligned.
  return tileAttention(*this, b, offsets, sizes, /*trustOffsets=*/false);
}
