//===- DecomposeAttention.cpp - FlashAttention-2 decomposition ------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel-decompose-attention: accel.attention as loops over query tiles with
// an online softmax over key/value tiles (see the pass description). The
// two products per tile stay accel.matmul ops, so the CPU pipeline's
// contraction kernel computes them.
//
//===----------------------------------------------------------------------===//

#include "LinalgBuilders.h"
#include "accel/Conversion/AccelToLinalg/AccelToLinalg.h"
#include "accel/Dialect/Accel/IR/AccelDialect.h"
#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include <cmath>

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELDECOMPOSEATTENTIONPASS
#include "accel/Conversion/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;
using namespace mlir::accel;
using namespace mlir::accel::builders;

namespace {
/// log2 of how far the running row max may lag the true one before the
/// accumulator is rescaled (see kvStep).
constexpr double kLazyRescaleLog2 = 8.0;

/// Builds the tile computations of one attention op.
struct TileBuilder {
  OpBuilder &b;
  Location loc;
  Type f32;

  Value cst(double v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(float(v)));
  }
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

  /// A rank-reducing slice [offsets, offsets + sizes) of `source` whose unit
  /// dimensions `dropped` are removed.
  Value slice(Value source, ArrayRef<OpFoldResult> offsets,
              ArrayRef<OpFoldResult> sizes, int64_t keepRank) {
    auto srcType = cast<RankedTensorType>(source.getType());
    SmallVector<OpFoldResult> strides(offsets.size(), b.getIndexAttr(1));
    SmallVector<int64_t> staticSizes;
    for (OpFoldResult s : sizes)
      staticSizes.push_back(
          getConstantIntValue(s).value_or(ShapedType::kDynamic));
    auto resultType = RankedTensorType::get(
        ArrayRef<int64_t>(staticSizes).take_back(keepRank),
        srcType.getElementType());
    return tensor::ExtractSliceOp::create(b, loc, resultType, source, offsets,
                                          sizes, strides);
  }

  /// A 2-D elementwise generic over [rows, cols] reading 2-D and 1-D (per
  /// row) operands, writing a new tensor of `elementType`.
  Value rowwise(ArrayRef<Value> inputs, ArrayRef<bool> perRow,
                ArrayRef<OpFoldResult> sizes, Type elementType,
                function_ref<Value(OpBuilder &, Location, ValueRange)> body,
                Value dest = Value()) {
    MLIRContext *ctx = b.getContext();
    AffineMap full = AffineMap::getMultiDimIdentityMap(2, ctx);
    AffineMap row = AffineMap::get(2, 0, {getAffineDimExpr(0, ctx)}, ctx);
    SmallVector<AffineMap> maps;
    for (bool r : perRow)
      maps.push_back(r ? row : full);
    maps.push_back(full);
    Value init =
        dest ? dest : tensor::EmptyOp::create(b, loc, sizes, elementType);
    return elementwise(inputs, init, maps, body);
  }

  /// A 1-D elementwise generic over rows.
  Value perRow(ArrayRef<Value> inputs, OpFoldResult rows,
               function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
    MLIRContext *ctx = b.getContext();
    AffineMap id = AffineMap::getMultiDimIdentityMap(1, ctx);
    SmallVector<AffineMap> maps(inputs.size() + 1, id);
    Value init =
        tensor::EmptyOp::create(b, loc, ArrayRef<OpFoldResult>{rows}, f32);
    return elementwise(inputs, init, maps, body);
  }

  /// An all-parallel generic writing `body` of `inputs` into `init`.
  Value
  elementwise(ArrayRef<Value> inputs, Value init, ArrayRef<AffineMap> maps,
              function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
    return linalg::GenericOp::create(
               b, loc, init.getType(), inputs, ValueRange{init}, maps,
               SmallVector<IteratorType>(maps.back().getNumDims(),
                                         IteratorType::parallel),
               [&](OpBuilder &nb, Location l, ValueRange args) {
                 yieldValue(nb, l, body(nb, l, args.drop_back()));
               })
        .getResult(0);
  }

  /// Row reduction of a [rows, cols] f32 tensor.
  Value reduceRows(Value x, OpFoldResult rows, TypedAttr init, bool isMax) {
    MLIRContext *ctx = b.getContext();
    AffineMap full = AffineMap::getMultiDimIdentityMap(2, ctx);
    AffineMap row = AffineMap::get(2, 0, {getAffineDimExpr(0, ctx)}, ctx);
    return reduceInto(
        b, loc, ValueRange{x}, {full, row},
        {IteratorType::parallel, IteratorType::reduction}, {rows}, init,
        [&](OpBuilder &nb, Location l, ValueRange in, Value acc) -> Value {
          if (isMax)
            return arith::MaximumFOp::create(nb, l, acc, in[0]);
          return arith::AddFOp::create(nb, l, acc, in[0]);
        });
  }
};

/// Whether the band removes some pair of the tile rows [q0, q0 + tq) x keys
/// [k0, k0 + tk): the tile then needs the index mask.
static Value bandCutsTile(OpBuilder &b, Location loc, const AttentionBand &band,
                          Value q0, OpFoldResult tq, Value k0,
                          OpFoldResult tk) {
  using P = arith::CmpIPredicate;
  Value tqV = getValueOrCreateConstantIndexOp(b, loc, tq);
  Value tkV = getValueOrCreateConstantIndexOp(b, loc, tk);
  Value kEnd = arith::AddIOp::create(b, loc, k0, tkV); // one past the last key
  Value qEnd = arith::AddIOp::create(b, loc, q0, tqV);
  Value cut = arith::ConstantIntOp::create(b, loc, 0, 1);
  auto either = [&](Value c) { cut = arith::OrIOp::create(b, loc, cut, c); };
  if (band.offset) {
    // The last key is past the first row's limit q0 + off.
    Value firstLimit = arith::AddIOp::create(b, loc, q0, band.offset);
    either(arith::CmpIOp::create(
        b, loc, P::sgt, kEnd,
        arith::AddIOp::create(b, loc, firstLimit,
                              arith::ConstantIndexOp::create(b, loc, 1))));
    if (band.window) {
      // The first key is at or below the last row's lower bound
      // (q0 + tq - 1) + off - W.
      Value lastLow = arith::SubIOp::create(
          b, loc, arith::AddIOp::create(b, loc, qEnd, band.offset),
          arith::ConstantIndexOp::create(b, loc, *band.window + 1));
      either(arith::CmpIOp::create(b, loc, P::sle, k0, lastLow));
    }
  }
  if (band.kvLength)
    either(arith::CmpIOp::create(b, loc, P::sgt, kEnd, band.kvLength));
  if (band.qLength)
    either(arith::CmpIOp::create(b, loc, P::sgt, qEnd, band.qLength));
  return cut;
}

} // namespace

/// FlashAttention-2's online softmax update for one key tile: the logits
/// `s` ([tq, tk] f32, masked; multiplied by `deferredScale` where it is
/// read when that is set), the value tile `vTile` ([tk, dv]) and the running
/// max m, sum l and accumulator acc give their next values. `roundP`: P
/// enters P·V in V's type (cpu-flash-amx), else V is widened to f32.
FlashState accel::builders::flashUpdate(OpBuilder &rewriter, Location loc,
                                        Value s, Value deferredScale,
                                        Value vTile, bool roundP,
                                        OpFoldResult tq, OpFoldResult tk,
                                        int64_t dv, FlashState state, PvFn pv) {
  TileBuilder tb{rewriter, loc, rewriter.getF32Type()};
  Type f32 = tb.f32;
  Type vElt =
      vTile ? llvm::cast<RankedTensorType>(vTile.getType()).getElementType()
            : f32;
  Value m = state.m, l = state.l, acc = state.acc;
  // Online softmax update. The row max may ignore or return a NaN
  // logit (kUnorderedMaxAttrName): either way the NaN reaches the
  // row's output through P = exp2(s - m).
  Value rowMax = tb.reduceRows(s, tq, negInfAttr(rewriter), /*isMax=*/true);
  rowMax.getDefiningOp()->setAttr(kUnorderedMaxAttrName,
                                  rewriter.getUnitAttr());
  if (deferredScale)
    rowMax =
        tb.perRow({rowMax}, tq, [&](OpBuilder &nb, Location l, ValueRange a) {
          return arith::MulFOp::create(nb, l, a[0], deferredScale);
        });
  // The running max moves only when a row's tile max exceeds it by
  // more than 2^kLazyRescaleLog2 (FlashAttention-4's conditional
  // rescale): below that, P = exp2(s - m) stays under 2^8 and the sum
  // and accumulator under 2^8 · Skv times their usual size, far from
  // f32's range, and the result acc / l is unchanged. Most key tiles
  // after the first then leave every row's max, and so skip the
  // rescale of the accumulator. A NaN tile max is not an increase (the
  // NaN still reaches the row through P).
  Value lazyMargin = tb.cst(kLazyRescaleLog2);
  Value mNew =
      tb.perRow({m, rowMax}, tq, [&](OpBuilder &nb, Location l, ValueRange a) {
        Value limit = arith::AddFOp::create(nb, l, a[0], lazyMargin);
        Value grows = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT,
                                            a[1], limit);
        return arith::SelectOp::create(nb, l, grows, a[1], a[0]);
      });
  // Whether some row's max moved (then the accumulator is rescaled).
  Value anyMoved;
  {
    MLIRContext *ctx = rewriter.getContext();
    AffineMap id = AffineMap::getMultiDimIdentityMap(1, ctx);
    AffineMap scalar = AffineMap::get(1, 0, {}, ctx);
    Value flag0 = tensor::EmptyOp::create(rewriter, loc, ArrayRef<int64_t>{},
                                          rewriter.getI1Type());
    Value no = arith::ConstantIntOp::create(rewriter, loc, 0, 1);
    flag0 = linalg::FillOp::create(rewriter, loc, no, flag0).result();
    Value flag =
        linalg::GenericOp::create(
            rewriter, loc, flag0.getType(), ValueRange{m, mNew},
            ValueRange{flag0}, SmallVector<AffineMap>{id, id, scalar},
            SmallVector<IteratorType>{IteratorType::reduction},
            [&](OpBuilder &nb, Location l, ValueRange a) {
              Value moved = arith::CmpFOp::create(
                  nb, l, arith::CmpFPredicate::ONE, a[0], a[1]);
              yieldValue(nb, l, arith::OrIOp::create(nb, l, a[2], moved));
            })
            .getResult(0);
    anyMoved = tensor::ExtractOp::create(rewriter, loc, flag, ValueRange{});
  }
  // P = exp2(s - m') and its row sums in one pass over the tile (one
  // generic with two outputs: P, written at every (row, key), and the
  // sum, reduced over the keys). When P enters P·V in V's type (roundP),
  // the pass writes it rounded: the sum adds the unrounded values, and P
  // never exists in f32 (no f32 tile written and read back to round it).
  // cpu-flash-amx compiles with bf16-subnormals=flush, and P lies in
  // [0, 2^8]: a P below 2^-126 flushed to zero changes the output by under
  // 2^-126 max|v|. The hardware conversion may do it.
  bool pRounded = roundP && vElt != f32 && !pv;
  Type pElt = pRounded ? vElt : f32;
  Value p, rowSum;
  {
    MLIRContext *ctx = rewriter.getContext();
    AffineMap full = AffineMap::getMultiDimIdentityMap(2, ctx);
    AffineMap row = AffineMap::get(2, 0, {getAffineDimExpr(0, ctx)}, ctx);
    Value pInit = tensor::EmptyOp::create(rewriter, loc,
                                          ArrayRef<OpFoldResult>{tq, tk}, pElt);
    Value sumInit =
        filledTensor(rewriter, loc, {tq}, f32, rewriter.getF32FloatAttr(0.0f));
    auto expSum = linalg::GenericOp::create(
        rewriter, loc, TypeRange{pInit.getType(), sumInit.getType()},
        ValueRange{s, mNew}, ValueRange{pInit, sumInit},
        SmallVector<AffineMap>{full, row, full, row},
        SmallVector<utils::IteratorType>{utils::IteratorType::parallel,
                                         utils::IteratorType::reduction},
        [&](OpBuilder &nb, Location l, ValueRange a) {
          Value shift = safeMax(nb, l, a[1]);
          Value shifted;
          if (deferredScale)
            shifted = math::FmaOp::create(nb, l, a[0], deferredScale,
                                          arith::NegFOp::create(nb, l, shift));
          else
            shifted = arith::SubFOp::create(nb, l, a[0], shift);
          // s - m' is at most 2^kLazyRescaleLog2 (or NaN): the vector exp2
          // needs no upper clamp. A P rounded to bf16 allows an exp2 error
          // of 2^-17 (1/256 of the rounding's 2^-9; the sum, of unrounded
          // values, then errs by under 2^-17 relative too): a shorter
          // polynomial.
          auto e = math::Exp2Op::create(nb, l, shifted);
          e->setAttr(kExp2BoundedAttrName, nb.getUnitAttr());
          if (pRounded && pElt.isBF16())
            e->setAttr(kExp2ToleranceAttrName, nb.getF64FloatAttr(0x1p-17));
          Value sum = arith::AddFOp::create(nb, l, a[3], e);
          Value pOut = e;
          if (pRounded) {
            pOut = builders::cast(nb, l, e, pElt);
            if (auto trunc = pOut.getDefiningOp<arith::TruncFOp>())
              trunc->setAttr(kBf16FlushAttrName, nb.getUnitAttr());
          }
          linalg::YieldOp::create(nb, l, ValueRange{pOut, sum});
        });
    p = expSum.getResult(0);
    rowSum = expSum.getResult(1);
  }
  Value corr = tb.perRow(
      {m, mNew}, tq, [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        // exp2(m - m'); 0 while nothing is kept (both -inf),
        // which is harmless: l and the accumulator are still 0.
        Value shifted =
            arith::SubFOp::create(nb, l, a[0], safeMax(nb, l, a[1]));
        return math::Exp2Op::create(nb, l, shifted);
      });
  Value lNew = tb.perRow({l, corr, rowSum}, tq,
                         [&](OpBuilder &nb, Location l2, ValueRange a) {
                           Value sc = arith::MulFOp::create(nb, l2, a[0], a[1]);
                           return arith::AddFOp::create(nb, l2, sc, a[2]);
                         });
  // acc ·= corr in place (acc is the generic's init, not an input,
  // so it bufferizes into the loop's own buffer), when a max moved.
  auto rescale =
      scf::IfOp::create(rewriter, loc, TypeRange{acc.getType()}, anyMoved,
                        /*withElseRegion=*/true);
  Value accScaled;
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(rescale.thenBlock());
    MLIRContext *ctx = rewriter.getContext();
    AffineMap full = AffineMap::getMultiDimIdentityMap(2, ctx);
    AffineMap row = AffineMap::get(2, 0, {getAffineDimExpr(0, ctx)}, ctx);
    accScaled =
        linalg::GenericOp::create(
            rewriter, loc, acc.getType(), ValueRange{corr}, ValueRange{acc},
            SmallVector<AffineMap>{row, full},
            SmallVector<IteratorType>(2, IteratorType::parallel),
            [&](OpBuilder &nb, Location l2, ValueRange a) {
              yieldValue(nb, l2, arith::MulFOp::create(nb, l2, a[1], a[0]));
            })
            .getResult(0);
    scf::YieldOp::create(rewriter, loc, accScaled);
    rewriter.setInsertionPointToStart(rescale.elseBlock());
    scf::YieldOp::create(rewriter, loc, acc);
  }
  accScaled = rescale.getResult(0);
  // P stays f32 (rounding it to V's type would cost the f32 output its
  // accuracy); a narrower V tile is widened instead. On AMX
  // (cpu-flash-amx) P is rounded to V's type instead, so that P·V is
  // a bf16 product on tiles (the oracle's gate then allows
  // u_bf16·max|v|).
  if (pv)
    return {mNew, lNew, pv(p, accScaled)};
  Value pIn = p, vIn = vTile;
  if (!pRounded && vElt != f32) {
    vIn = tb.rowwise({vTile}, {false}, {tk, rewriter.getIndexAttr(dv)}, f32,
                     [&](OpBuilder &nb, Location l2, ValueRange a) {
                       return builders::cast(nb, l2, a[0], f32);
                     });
  }
  Value accNew = MatmulOp::create(rewriter, loc, accScaled.getType(), pIn, vIn,
                                  Value(), Value(), accScaled,
                                  /*transpose_b=*/false,
                                  /*accumulate=*/true)
                     .getResult();
  return {mNew, lNew, accNew};
}

/// The elementwise generic that `op`'s result feeds alone, which the
/// decomposition applies to each output tile (the pass description says
/// which): null when there is none.
static linalg::GenericOp attentionEpilogue(AttentionOp op) {
  Value result = op.getResult();
  if (result.use_empty())
    return {};
  auto g = dyn_cast<linalg::GenericOp>(result.use_begin()->getOwner());
  if (!g || !g.hasPureTensorSemantics() || g.getNumResults() != 1 ||
      g.getNumDpsInits() != 1 || g.getNumLoops() != 4 ||
      g.getNumParallelLoops() != 4 || g->getBlock() != op->getBlock() ||
      !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity() ||
      cast<RankedTensorType>(g.getResult(0).getType()).getShape() !=
          cast<RankedTensorType>(result.getType()).getShape())
    return {};
  for (OpOperand &use : result.getUses())
    if (use.getOwner() != g.getOperation() || g.isDpsInit(&use) ||
        !g.getMatchingIndexingMap(&use).isIdentity())
      return {};
  for (OpOperand *in : g.getDpsInputOperands()) {
    if (!isa<RankedTensorType>(in->get().getType()))
      return {};
    for (AffineExpr e : g.getMatchingIndexingMap(in).getResults())
      if (!isa<AffineDimExpr, AffineConstantExpr>(e))
        return {};
  }
  bool plain = true;
  g.getRegion().walk([&](Operation *inner) {
    if (isa<linalg::IndexOp>(inner) || !isMemoryEffectFree(inner))
      plain = false;
  });
  return plain ? g : linalg::GenericOp();
}

namespace {
struct DecomposeAttention : public OpRewritePattern<AttentionOp> {
  DecomposeAttention(MLIRContext *ctx, int64_t tileQ, int64_t tileKV,
                     bool fuseEpilogues)
      : OpRewritePattern(ctx), tileQ(tileQ), tileKV(tileKV),
        fuseEpilogues(fuseEpilogues) {}

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    for (Value v : op->getOperands())
      if (auto t = dyn_cast<RankedTensorType>(v.getType());
          t && !t.hasStaticShape())
        return rewriter.notifyMatchFailure(op, "needs static shapes");
    auto qT = op.getQuery().getType(), kT = op.getKey().getType(),
         vT = op.getValue().getType(), oT = op.getInit().getType();
    Type vElt = vT.getElementType();
    if (!isa<FloatType>(vElt))
      return rewriter.notifyMatchFailure(op, "needs a float V");
    int64_t nB = qT.getDimSize(0), hq = qT.getDimSize(1), sq = qT.getDimSize(2),
            d = qT.getDimSize(3), hkv = kT.getDimSize(1),
            skv = kT.getDimSize(2), dv = vT.getDimSize(3);
    // Empty operands are the reference lowering's (convert-accel-to-linalg)
    // business. With D = 0 or Dv = 0 the Q/K or V/O tiles below would be
    // empty along their last dimension, and a static slice at offset 0 of
    // an empty dimension does not verify ("offset 3 is out-of-bounds: 0 >=
    // 0"); D = 0 still has a result (every logit is 0: each row of O is
    // the mean of the kept V rows), which that lowering computes.
    // B = 0 too: the per-tile slices of K below would start at offset 0 of
    // an empty dimension.
    if (nB == 0 || hkv == 0 || hq == 0 || sq == 0 || d == 0 || dv == 0)
      return rewriter.notifyMatchFailure(
          op, "empty batch, heads, queries, head dimension or values");
    int64_t group = hq / hkv;
    Location loc = op.getLoc();
    // The elementwise consumer applied to each output tile: the loops go
    // where it is (after every operand of both) and write its output.
    linalg::GenericOp epilogue =
        fuseEpilogues ? attentionEpilogue(op) : linalg::GenericOp();
    if (epilogue)
      rewriter.setInsertionPoint(epilogue);
    Value outInit =
        epilogue ? epilogue.getDpsInitOperand(0)->get() : op.getInit();
    TileBuilder tb{rewriter, loc, rewriter.getF32Type()};
    Type f32 = tb.f32;
    // exp2 domain: log2(e) folded into the scale (and the additive mask).
    double log2e = 1.4426950408889634;
    double scale = *op.getEffectiveScale() * log2e;
    Value mask = op.getMask();
    auto maskT =
        mask ? cast<RankedTensorType>(mask.getType()) : RankedTensorType();
    bool boolMask = mask && maskT.getElementType().isInteger(1);

    // Kᵀ once, tile by tile: the whole key tiles as [B, Hkv, Skv / Tk, D,
    // Tk], so that each is one contiguous [D, Tk] block the contraction
    // kernel streams along keys without packing it (a [D, Skv] layout puts
    // its rows Skv apart, which the kernel would copy for every query
    // tile); the remainder tile as [B, Hkv, D, Skv mod Tk].
    // Every tile has a static shape (the contraction kernel vectorizes
    // static shapes only): whole tiles in loops, then one remainder tile of
    // queries (and of keys) peeled off.
    // The blocks: the CPU configuration stage's (accel-cpu-configure),
    // else the pass's options.
    int64_t tileQ = this->tileQ, tileKV = this->tileKV;
    // cpu-flash-amx: both tile products on AMX, so P enters P·V in V's type
    // (bf16), as FlashAttention does on GPUs.
    bool roundP = false;
    if (auto config = op->getAttrOfType<LoweringConfigAttr>(
            kLoweringConfigAttrName);
        config &&
        (config.getKernel() == "cpu-flash" ||
         config.getKernel() == "cpu-flash-amx") &&
        config.getTile().size() == 2) {
      tileQ = config.getTile()[0];
      tileKV = config.getTile()[1];
      roundP = config.getKernel() == "cpu-flash-amx";
    }
    int64_t remQ = sq % tileQ, fullQ = sq - remQ;
    int64_t remKV = skv % tileKV, fullKV = skv - remKV;
    Type kElt = kT.getElementType();
    OpFoldResult zero = rewriter.getIndexAttr(0),
                 one = rewriter.getIndexAttr(1);
    auto idxA = [&](int64_t v) -> OpFoldResult {
      return rewriter.getIndexAttr(v);
    };
    Value keysBlocked, keysRestT;
    if (fullKV > 0) {
      Value whole =
          remKV == 0
              ? op.getKey()
              : tb.slice(op.getKey(), {zero, zero, zero, zero},
                         {idxA(nB), idxA(hkv), idxA(fullKV), idxA(d)}, 4);
      auto blockedType =
          RankedTensorType::get({nB, hkv, fullKV / tileKV, tileKV, d}, kElt);
      Value expanded = tensor::ExpandShapeOp::create(
          rewriter, loc, blockedType, whole,
          SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}, {4}});
      Value init = tensor::EmptyOp::create(
          rewriter, loc, ArrayRef<int64_t>{nB, hkv, fullKV / tileKV, d, tileKV},
          kElt);
      keysBlocked =
          linalg::TransposeOp::create(rewriter, loc, expanded, init,
                                      ArrayRef<int64_t>{0, 1, 2, 4, 3})
              .getResult()[0];
    }
    if (remKV > 0) {
      Value rest = tb.slice(op.getKey(), {zero, zero, idxA(fullKV), zero},
                            {idxA(nB), idxA(hkv), idxA(remKV), idxA(d)}, 4);
      Value init = tensor::EmptyOp::create(
          rewriter, loc, ArrayRef<int64_t>{nB, hkv, d, remKV}, kElt);
      keysRestT = linalg::TransposeOp::create(rewriter, loc, rest, init,
                                              ArrayRef<int64_t>{0, 1, 3, 2})
                      .getResult()[0];
    }

    Value c0 = tb.index(0);
    // (batch, query head) pairs are independent: an scf.forall (threads
    // when the pipeline has them), each owning its [Sq, Dv] slice of O.
    auto heads =
        scf::ForallOp::create(rewriter, loc,
                              ArrayRef<OpFoldResult>{rewriter.getIndexAttr(nB),
                                                     rewriter.getIndexAttr(hq)},
                              ValueRange{outInit}, std::nullopt);
    rewriter.setInsertionPointToStart(heads.getBody());
    Value bi = heads.getInductionVar(0), hi = heads.getInductionVar(1);
    Value hk = arith::DivUIOp::create(rewriter, loc, hi, tb.index(group));
    // This batch element's band: lengths, and the causal offset.
    AttentionBand band;
    if (Value lengths = op.getKvLengths())
      band.kvLength = lengthAt(rewriter, loc, lengths, bi);
    if (Value lengths = op.getQLengths())
      band.qLength = lengthAt(rewriter, loc, lengths, bi);
    if (op.getCausal())
      band.offset = bandOffset(rewriter, loc, op.getDiagonal(), tb.index(sq),
                               tb.index(skv), band.qLength, band.kvLength);
    band.window = op.getWindow();
    SmallVector<OpFoldResult> headOffsets = {bi, hi, zero, zero};
    SmallVector<OpFoldResult> headSizes = {one, one, rewriter.getIndexAttr(sq),
                                           rewriter.getIndexAttr(dv)};
    Value headOut =
        tb.slice(heads.getRegionIterArgs()[0], headOffsets, headSizes, 2);

    // One query tile of `tqS` rows at q0; returns `dest` ([Sq, Dv]) with
    // the tile's rows of O written.
    auto emitQueryTile = [&](Value q0, int64_t tqS, Value dest) -> Value {
      OpFoldResult tq = rewriter.getIndexAttr(tqS);
      Value qTile = tb.slice(op.getQuery(), {bi, hi, q0, zero},
                             {one, one, tq, rewriter.getIndexAttr(d)}, 2);

      // The key loop covers the keys some row of the tile keeps: it ends
      // after the last key of the tile's last row (causal band, key length)
      // and starts at the first key of the first row's window; a tile past
      // the query length has none.
      Value kvStart = c0, kvEnd = tb.index(skv);
      if (band.offset || band.kvLength) {
        Value last = band.kvLength ? band.kvLength : kvEnd;
        if (band.offset) {
          Value end = arith::AddIOp::create(
              rewriter, loc, getValueOrCreateConstantIndexOp(rewriter, loc, tq),
              arith::AddIOp::create(rewriter, loc, q0, band.offset));
          last = arith::MinSIOp::create(rewriter, loc, last, end);
        }
        last = arith::MaxSIOp::create(rewriter, loc, last, c0);
        // Whole tiles only (their keys outside the band are masked by
        // index), so the key tile keeps a static size.
        Value t = tb.index(tileKV);
        Value up =
            arith::AddIOp::create(rewriter, loc, last, tb.index(tileKV - 1));
        last = arith::MulIOp::create(
            rewriter, loc, arith::DivUIOp::create(rewriter, loc, up, t), t);
        kvEnd = arith::MinSIOp::create(rewriter, loc, kvEnd, last);
      }
      if (band.offset && band.window) {
        Value first = arith::AddIOp::create(
            rewriter, loc, q0,
            arith::SubIOp::create(rewriter, loc, band.offset,
                                  tb.index(*band.window - 1)));
        first = arith::MaxSIOp::create(rewriter, loc, first, c0);
        Value t = tb.index(tileKV);
        first = arith::MulIOp::create(
            rewriter, loc, arith::DivUIOp::create(rewriter, loc, first, t), t);
        kvStart = arith::MinSIOp::create(rewriter, loc, first, kvEnd);
      }
      if (band.qLength) {
        Value past = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::sge, q0, band.qLength);
        kvEnd = arith::SelectOp::create(rewriter, loc, past, kvStart, kvEnd);
      }
      Value m0 = filledTensor(rewriter, loc, {tq}, f32, negInfAttr(rewriter));
      Value l0 = filledTensor(rewriter, loc, {tq}, f32,
                              rewriter.getF32FloatAttr(0.0f));
      Value acc0 = filledTensor(rewriter, loc, {tq, rewriter.getIndexAttr(dv)},
                                f32, rewriter.getF32FloatAttr(0.0f));
      // One key tile of `tkS` keys at k0: the online softmax update of the
      // running max m, sum l and accumulator acc.
      auto kvStep = [&](Value k0, int64_t tkS, Value m, Value l,
                        Value acc) -> SmallVector<Value> {
        OpFoldResult tk = rewriter.getIndexAttr(tkS);
        Value kTile;
        if (tkS == tileKV) {
          Value block =
              arith::DivUIOp::create(rewriter, loc, k0, tb.index(tileKV));
          kTile = tb.slice(keysBlocked, {bi, hk, block, zero, zero},
                           {one, one, one, rewriter.getIndexAttr(d), tk}, 2);
        } else {
          kTile = tb.slice(keysRestT, {bi, hk, zero, zero},
                           {one, one, rewriter.getIndexAttr(d), tk}, 2);
        }
        Value vTile = tb.slice(op.getValue(), {bi, hk, k0, zero},
                               {one, one, tk, rewriter.getIndexAttr(dv)}, 2);

        // S = Q_t · (Kᵀ)_j in f32.
        Value sInit = tensor::EmptyOp::create(rewriter, loc, {tq, tk}, f32);
        Value s =
            MatmulOp::create(rewriter, loc, sInit.getType(), qTile, kTile,
                             Value(), Value(), sInit, /*transpose_b=*/false,
                             /*accumulate=*/false)
                .getResult();
        // Scale, mask, causal band (indices are tile-local: add q0, k0).
        Value deferredScale;
        if (mask) {
          int64_t mr = maskT.getRank();
          SmallVector<OpFoldResult> mOff, mSz;
          Value full[4] = {bi, hi, q0, k0};
          OpFoldResult tileSz[4] = {one, one, tq, tk};
          for (int64_t a = 0; a < mr; ++a) {
            bool bcast = maskT.getDimSize(a) == 1;
            mOff.push_back(bcast ? zero : OpFoldResult(full[a + 4 - mr]));
            mSz.push_back(bcast ? one : tileSz[a + 4 - mr]);
          }
          // The mask tile as [rows, cols] (size-1 broadcast dims stay 1 and
          // are broadcast by the map below).
          Value mTile = tb.slice(mask, mOff, mSz, mr);
          int64_t rowsDim = mr - 2, colsDim = mr - 1;
          MLIRContext *ctx = rewriter.getContext();
          SmallVector<AffineExpr> exprs;
          for (int64_t a = 0; a < mr; ++a) {
            if (maskT.getDimSize(a) == 1 || (a != rowsDim && a != colsDim))
              exprs.push_back(rewriter.getAffineConstantExpr(0));
            else
              exprs.push_back(getAffineDimExpr(a == rowsDim ? 0 : 1, ctx));
          }
          AffineMap mMap = AffineMap::get(2, 0, exprs, ctx);
          AffineMap full2 = AffineMap::getMultiDimIdentityMap(2, ctx);
          Value init = tensor::EmptyOp::create(rewriter, loc, {tq, tk}, f32);
          Value negInf = tb.cst(-INFINITY);
          Value scaleV = tb.cst(scale), log2eV = tb.cst(log2e);
          s = linalg::GenericOp::create(
                  rewriter, loc, init.getType(), ValueRange{s, mTile},
                  ValueRange{init}, SmallVector<AffineMap>{full2, mMap, full2},
                  SmallVector<IteratorType>(2, IteratorType::parallel),
                  [&](OpBuilder &nb, Location l, ValueRange args) {
                    Value x = arith::MulFOp::create(nb, l, args[0], scaleV);
                    if (boolMask) {
                      x = arith::SelectOp::create(nb, l, args[1], x, negInf);
                    } else {
                      Value add = arith::MulFOp::create(
                          nb, l, builders::cast(nb, l, args[1], f32), log2eV);
                      x = arith::AddFOp::create(nb, l, x, add);
                    }
                    yieldValue(nb, l, x);
                  })
                  .getResult(0);
        } else {
          Value scaleV = tb.cst(scale);
          // A positive scale commutes with the row max and the band's -inf,
          // so it is applied where the logits are read instead of in a pass
          // of its own: max(c·s) = c·max(s) (rounding is monotonic) and
          // exp2(c·s − m) as one fma.
          if (scale > 0)
            deferredScale = scaleV;
          else
            s = tb.rowwise(
                {s}, {false}, {tq, tk}, f32,
                [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                  return arith::MulFOp::create(nb, l, a[0], scaleV);
                });
        }
        if (op.hasBand()) {
          // Only the tiles the band cuts (across the diagonal, the window's
          // start or a length) are masked by index, in place; the others are
          // kept whole.
          Value cut = bandCutsTile(rewriter, loc, band, q0, tq, k0, tk);
          auto ifOp =
              scf::IfOp::create(rewriter, loc, TypeRange{s.getType()}, cut,
                                /*withElseRegion=*/true);
          {
            OpBuilder::InsertionGuard guard(rewriter);
            rewriter.setInsertionPointToStart(ifOp.thenBlock());
            Value negInf = tb.cst(-INFINITY);
            MLIRContext *ctx = rewriter.getContext();
            AffineMap id2 = AffineMap::getMultiDimIdentityMap(2, ctx);
            Value masked =
                linalg::GenericOp::create(
                    rewriter, loc, s.getType(), ValueRange{}, ValueRange{s},
                    SmallVector<AffineMap>{id2},
                    SmallVector<IteratorType>(2, IteratorType::parallel),
                    [&](OpBuilder &nb, Location l, ValueRange a) {
                      Value i = arith::AddIOp::create(
                          nb, l, linalg::IndexOp::create(nb, l, 0), q0);
                      Value j = arith::AddIOp::create(
                          nb, l, linalg::IndexOp::create(nb, l, 1), k0);
                      Value keep = bandKeep(nb, l, band, i, j);
                      yieldValue(
                          nb, l,
                          arith::SelectOp::create(nb, l, keep, a[0], negInf));
                    })
                    .getResult(0);
            scf::YieldOp::create(rewriter, loc, masked);
            rewriter.setInsertionPointToStart(ifOp.elseBlock());
            scf::YieldOp::create(rewriter, loc, s);
          }
          s = ifOp.getResult(0);
        }

        FlashState next = flashUpdate(rewriter, loc, s, deferredScale, vTile,
                                      roundP, tq, tk, dv, {m, l, acc});
        return SmallVector<Value>{next.m, next.l, next.acc};
      };

      // Whole key tiles in [kvStart, min(kvEnd, fullKV)), then the remainder
      // tile [fullKV, Skv) when the range reaches it.
      SmallVector<Value> state = {m0, l0, acc0};
      if (fullKV > 0) {
        Value end = remKV == 0 ? kvEnd
                               : arith::MinSIOp::create(rewriter, loc, kvEnd,
                                                        tb.index(fullKV))
                                     .getResult();
        auto kvLoop = scf::ForOp::create(rewriter, loc, kvStart, end,
                                         tb.index(tileKV), state);
        rewriter.setInsertionPointToStart(kvLoop.getBody());
        SmallVector<Value> next = kvStep(
            kvLoop.getInductionVar(), tileKV, kvLoop.getRegionIterArgs()[0],
            kvLoop.getRegionIterArgs()[1], kvLoop.getRegionIterArgs()[2]);
        scf::YieldOp::create(rewriter, loc, next);
        rewriter.setInsertionPointAfter(kvLoop);
        state = SmallVector<Value>(kvLoop.getResults());
      }
      if (remKV > 0) {
        Value reaches = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::sgt, kvEnd, tb.index(fullKV));
        auto rest =
            scf::IfOp::create(rewriter, loc, ValueRange(state).getTypes(),
                              reaches, /*withElseRegion=*/true);
        rewriter.setInsertionPointToStart(rest.thenBlock());
        SmallVector<Value> next =
            kvStep(tb.index(fullKV), remKV, state[0], state[1], state[2]);
        scf::YieldOp::create(rewriter, loc, next);
        rewriter.setInsertionPointToStart(rest.elseBlock());
        scf::YieldOp::create(rewriter, loc, state);
        rewriter.setInsertionPointAfter(rest);
        state = SmallVector<Value>(rest.getResults());
      }

      // O_t = acc / l, 0 where nothing was kept; written into its slice of O
      // (extract + insert of the same slice bufferizes in place).
      Value oSlice =
          tb.slice(dest, {q0, zero}, {tq, rewriter.getIndexAttr(dv)}, 2);
      Value oTile;
      if (!epilogue) {
        oTile = tb.rowwise(
            {state[2], state[1]}, {false, true},
            {tq, rewriter.getIndexAttr(dv)}, oT.getElementType(),
            [&](OpBuilder &nb, Location l2, ValueRange a) -> Value {
              return builders::cast(nb, l2, safeDiv(nb, l2, a[0], a[1]),
                                    oT.getElementType());
            },
            oSlice);
      } else {
        oTile = epilogueTile(rewriter, loc, epilogue, op.getResult(), state[2],
                             state[1], {bi, hi, q0}, tqS, dv,
                             oT.getElementType(), oSlice);
      }
      SmallVector<OpFoldResult> strides2(2, one);
      Value inserted = tensor::InsertSliceOp::create(
          rewriter, loc, oTile, dest, ArrayRef<OpFoldResult>{q0, zero},
          ArrayRef<OpFoldResult>{tq, rewriter.getIndexAttr(dv)}, strides2);
      return inserted;
    };

    Value out = headOut;
    if (fullQ > 0) {
      auto qLoop = scf::ForOp::create(rewriter, loc, c0, tb.index(fullQ),
                                      tb.index(tileQ), ValueRange{out});
      rewriter.setInsertionPointToStart(qLoop.getBody());
      Value next = emitQueryTile(qLoop.getInductionVar(), tileQ,
                                 qLoop.getRegionIterArgs()[0]);
      scf::YieldOp::create(rewriter, loc, next);
      rewriter.setInsertionPointAfter(qLoop);
      out = qLoop.getResult(0);
    }
    if (remQ > 0)
      out = emitQueryTile(tb.index(fullQ), remQ, out);
    rewriter.setInsertionPointToStart(heads.getTerminator().getBody());
    SmallVector<OpFoldResult> strides4(4, one);
    tensor::ParallelInsertSliceOp::create(rewriter, loc, out,
                                          heads.getRegionIterArgs()[0],
                                          headOffsets, headSizes, strides4);
    if (epilogue) {
      rewriter.replaceOp(epilogue, heads.getResult(0));
      rewriter.eraseOp(op);
    } else {
      rewriter.replaceOp(op, heads.getResult(0));
    }
    return success();
  }

  /// One output tile ([tq, dv] at query row q0 of head (bi, hi)) with
  /// `epilogue` applied: O = acc / l in the op's element type `oElt`, then
  /// the generic's body on it and on the tile's slices of its other
  /// inputs, written into `dest` (the tile's slice of the generic's
  /// output, which the body may read).
  static Value epilogueTile(OpBuilder &b, Location loc,
                            linalg::GenericOp epilogue, Value attention,
                            Value acc, Value l, ArrayRef<Value> at, int64_t tq,
                            int64_t dv, Type oElt, Value dest) {
    MLIRContext *ctx = b.getContext();
    AffineMap full = AffineMap::getMultiDimIdentityMap(2, ctx);
    AffineMap row = AffineMap::get(2, 0, {getAffineDimExpr(0, ctx)}, ctx);
    SmallVector<Value> inputs{acc, l};
    SmallVector<AffineMap> maps{full, row};
    // Each other input's slice where the tile lies: loops 0 and 1 (batch,
    // head) and constant indices give size-1 dimensions, dropped; loops 2
    // and 3 the tile's rows and columns, the tile loops i and j.
    SmallVector<int64_t> inputIndex(epilogue.getNumDpsInputs(), -1);
    for (OpOperand *in : epilogue.getDpsInputOperands()) {
      if (in->get() == attention)
        continue;
      auto type = cast<RankedTensorType>(in->get().getType());
      SmallVector<OpFoldResult> offsets, sizes,
          strides(type.getRank(), b.getIndexAttr(1));
      SmallVector<int64_t> kept;
      SmallVector<AffineExpr> exprs;
      for (AffineExpr e : epilogue.getMatchingIndexingMap(in).getResults()) {
        if (auto c = dyn_cast<AffineConstantExpr>(e)) {
          offsets.push_back(b.getIndexAttr(c.getValue()));
          sizes.push_back(b.getIndexAttr(1));
          continue;
        }
        unsigned loop = cast<AffineDimExpr>(e).getPosition();
        if (loop < 2) {
          offsets.push_back(at[loop]);
          sizes.push_back(b.getIndexAttr(1));
          continue;
        }
        int64_t extent = loop == 2 ? tq : dv;
        // A size-1 dimension broadcast along the loop stays at 0.
        bool broadcast = type.getDimSize(offsets.size()) == 1 && extent != 1;
        offsets.push_back(broadcast   ? OpFoldResult(b.getIndexAttr(0))
                          : loop == 2 ? OpFoldResult(at[2])
                                      : OpFoldResult(b.getIndexAttr(0)));
        sizes.push_back(b.getIndexAttr(broadcast ? 1 : extent));
        if (broadcast)
          continue;
        kept.push_back(extent);
        exprs.push_back(getAffineDimExpr(loop - 2, ctx));
      }
      auto sliceType = RankedTensorType::get(kept, type.getElementType());
      inputIndex[in->getOperandNumber()] = inputs.size();
      inputs.push_back(tensor::ExtractSliceOp::create(
          b, loc, sliceType, in->get(), offsets, sizes, strides));
      maps.push_back(AffineMap::get(2, 0, exprs, ctx));
    }
    maps.push_back(full);
    Block &body = epilogue.getRegion().front();
    return linalg::GenericOp::create(
               b, loc, dest.getType(), inputs, ValueRange{dest}, maps,
               SmallVector<IteratorType>(2, IteratorType::parallel),
               [&](OpBuilder &nb, Location l2, ValueRange args) {
                 Value o = builders::cast(
                     nb, l2, safeDiv(nb, l2, args[0], args[1]), oElt);
                 IRMapping mapping;
                 for (OpOperand *in : epilogue.getDpsInputOperands()) {
                   BlockArgument arg = body.getArgument(in->getOperandNumber());
                   int64_t k = inputIndex[in->getOperandNumber()];
                   mapping.map(arg, k < 0 ? o : args[k]);
                 }
                 mapping.map(body.getArguments().back(), args.back());
                 for (Operation &inner : body.without_terminator())
                   nb.clone(inner, mapping);
                 yieldValue(
                     nb, l2,
                     mapping.lookup(body.getTerminator()->getOperand(0)));
               })
        .getResult(0);
  }

  int64_t tileQ, tileKV;
  bool fuseEpilogues;
};

struct AccelDecomposeAttentionPass
    : public accel::impl::AccelDecomposeAttentionPassBase<
          AccelDecomposeAttentionPass> {
  using Base::Base;
  void runOnOperation() override {
    if (tileQ <= 0 || tileKV <= 0) {
      mlir::emitError(getOperation()->getLoc())
          << "accel-decompose-attention: tile-q and tile-kv must be positive";
      return signalPassFailure();
    }
    if (pagesPerStep <= 0 || splits <= 0 || headsPerTask < 0) {
      mlir::emitError(getOperation()->getLoc())
          << "accel-decompose-attention: pages and splits must be positive "
             "and heads not negative";
      return signalPassFailure();
    }
    SmallVector<int64_t> pv = {4, 64};
    if (!pvTile.empty()) {
      if (pvTile.size() != 2 ||
          llvm::any_of(pvTile, [](int64_t v) { return v <= 0; })) {
        mlir::emitError(getOperation()->getLoc())
            << "accel-decompose-attention: pv-tile takes 2 positive sizes "
               "[rows, columns]";
        return signalPassFailure();
      }
      pv.assign(pvTile.begin(), pvTile.end());
    }
    RewritePatternSet patterns(&getContext());
    if (fuseEpilogues)
      decomposeAttentionWithEpilogues(getOperation(), tileQ, tileKV);
    populateDecomposeAttentionPatterns(patterns, tileQ, tileKV);
    populateDecomposePagedAttentionPatterns(
        patterns, pagesPerStep, splits, headsPerTask, pv, indexFailureCallee);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};
} // namespace

void accel::populateDecomposeAttentionPatterns(RewritePatternSet &patterns,
                                               int64_t tileQ, int64_t tileKV) {
  patterns.add<DecomposeAttention>(patterns.getContext(), tileQ, tileKV,
                                   /*fuseEpilogues=*/false);
}

void accel::decomposeAttentionWithEpilogues(Operation *root, int64_t tileQ,
                                            int64_t tileKV) {
  SmallVector<AttentionOp> ops;
  root->walk([&](AttentionOp op) {
    if (attentionEpilogue(op))
      ops.push_back(op);
  });
  DecomposeAttention pattern(root->getContext(), tileQ, tileKV,
                             /*fuseEpilogues=*/true);
  PatternRewriter rewriter(root->getContext());
  for (AttentionOp op : ops) {
    rewriter.setInsertionPoint(op);
    (void)pattern.matchAndRewrite(op, rewriter);
  }
}
