//===- AccelToLinalg.cpp - accel to the linalg reference lowering ---------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// convert-accel-to-linalg: the ops' semantics written out as linalg.generic
// on tensors. Statistics and attention are computed in f32. This is the
// baseline the optimised paths are checked against, so it favours being
// obviously right over being fast.
//
//===----------------------------------------------------------------------===//

#include "accel/Conversion/AccelToLinalg/AccelToLinalg.h"
#include "LinalgBuilders.h"
#include "accel/Dialect/Accel/IR/AccelDialect.h"
#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir::accel {
#define GEN_PASS_DEF_CONVERTACCELTOLINALGPASS
#define GEN_PASS_DEF_ACCELDECOMPOSESOFTMAXPASS
#include "accel/Conversion/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;
using namespace mlir::accel;

using utils::IteratorType;
using namespace mlir::accel::builders;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static SmallVector<AffineExpr> dims(MLIRContext *ctx,
                                    ArrayRef<unsigned> positions) {
  SmallVector<AffineExpr> exprs;
  for (unsigned p : positions)
    exprs.push_back(getAffineDimExpr(p, ctx));
  return exprs;
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

namespace {
struct MatmulToLinalg : public OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto cType = op.getInit().getType();
    int64_t rank = cType.getRank(), nb = rank - 2;
    unsigned nLoops = rank + 1;

    // Loops: batch..., M, N, K.
    SmallVector<AffineExpr> batch;
    for (int64_t i = 0; i < nb; ++i)
      batch.push_back(getAffineDimExpr(i, ctx));
    AffineExpr m = getAffineDimExpr(nb, ctx), n = getAffineDimExpr(nb + 1, ctx),
               k = getAffineDimExpr(nb + 2, ctx);
    auto mapOf = [&](AffineExpr x, AffineExpr y) {
      SmallVector<AffineExpr> results(batch);
      results.push_back(x);
      results.push_back(y);
      return AffineMap::get(nLoops, 0, results, ctx);
    };
    SmallVector<AffineMap> maps = {
        mapOf(m, k), op.getTransposeB() ? mapOf(n, k) : mapOf(k, n),
        mapOf(m, n)};
    SmallVector<IteratorType> iterators(nLoops - 1, IteratorType::parallel);
    iterators.push_back(IteratorType::reduction);

    // Unscaled f32/i32 C: accumulate straight into C (zeroed unless
    // `accumulate`). A 16-bit float C (f16, bf16) accumulates in f32 and is
    // rounded once at the end, as on the GPU and the systolic array (the
    // contract allows C's own precision; f32 is within it), so that no bf16
    // vector arithmetic is made: x86 has none, and LLVM's promotion of it
    // aborts on odd vector widths. Scaled: form the exact dot product first.
    Type cElt = cType.getElementType();
    Type aElt = op.getLhs().getType().getElementType();
    bool scaled = static_cast<bool>(op.getLhsScale());
    Type f32 = rewriter.getF32Type();
    bool narrowC = !scaled && (cElt.isF16() || cElt.isBF16());
    Type dotElt = narrowC                  ? f32
                  : !scaled                ? cElt
                  : isa<IntegerType>(aElt) ? Type(rewriter.getI32Type())
                                           : f32;
    Value dotInit;
    if (!scaled && !narrowC) {
      dotInit = op.getAccumulate() ? op.getInit()
                                   : zeroFilled(rewriter, loc, op.getInit());
    } else if (narrowC && op.getAccumulate()) {
      // C widened to f32.
      AffineMap id = rewriter.getMultiDimIdentityMap(rank);
      Value empty = tensor::EmptyOp::create(
          rewriter, loc, tensor::getMixedSizes(rewriter, loc, op.getInit()),
          f32);
      dotInit = linalg::GenericOp::create(
                    rewriter, loc, empty.getType(), ValueRange{op.getInit()},
                    ValueRange{empty}, SmallVector<AffineMap>{id, id},
                    SmallVector<IteratorType>(rank, IteratorType::parallel),
                    [&](OpBuilder &b, Location l, ValueRange args) {
                      yieldValue(b, l, cast(b, l, args[0], f32));
                    })
                    .getResult(0);
    } else {
      dotInit = filledTensor(rewriter, loc,
                             tensor::getMixedSizes(rewriter, loc, op.getInit()),
                             dotElt, rewriter.getZeroAttr(dotElt));
    }
    auto dot = linalg::GenericOp::create(
        rewriter, loc, dotInit.getType(), ValueRange{op.getLhs(), op.getRhs()},
        ValueRange{dotInit}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = cast(b, l, args[0], dotElt);
          Value y = cast(b, l, args[1], dotElt);
          Value r;
          if (isa<IntegerType>(dotElt))
            r = arith::AddIOp::create(b, l, args[2],
                                      arith::MulIOp::create(b, l, x, y));
          else
            r = arith::AddFOp::create(b, l, args[2],
                                      arith::MulFOp::create(b, l, x, y));
          yieldValue(b, l, r);
        });
    // The CPU configuration stage's choice for the matmul is the
    // contraction's (accel-cpu-dot-kernels and
    // accel-cpu-vectorize-contractions read it there).
    if (auto config = op->getAttrOfType<LoweringConfigAttr>(
            kLoweringConfigAttrName);
        config && config.getKernel().starts_with("cpu-"))
      dot->setAttr(kLoweringConfigAttrName, config);
    Value result = dot.getResult(0);

    if (narrowC) {
      // One rounding of the f32 sums to C's type.
      AffineMap id = rewriter.getMultiDimIdentityMap(rank);
      result = linalg::GenericOp::create(
                   rewriter, loc, cType, ValueRange{result},
                   ValueRange{op.getInit()}, SmallVector<AffineMap>{id, id},
                   SmallVector<IteratorType>(rank, IteratorType::parallel),
                   [&](OpBuilder &b, Location l, ValueRange args) {
                     yieldValue(b, l, cast(b, l, args[0], cElt));
                   })
                   .getResult(0);
    }
    if (scaled) {
      // C' = (accumulate ? C : 0) + sa * sb * dot, in f32.
      Value s = arith::MulFOp::create(rewriter, loc, op.getLhsScale(),
                                      op.getRhsScale());
      AffineMap id = rewriter.getMultiDimIdentityMap(rank);
      bool acc = op.getAccumulate();
      auto epilogue = linalg::GenericOp::create(
          rewriter, loc, cType, ValueRange{result}, ValueRange{op.getInit()},
          SmallVector<AffineMap>{id, id},
          SmallVector<IteratorType>(rank, IteratorType::parallel),
          [&](OpBuilder &b, Location l, ValueRange args) {
            Value v = arith::MulFOp::create(b, l, s, cast(b, l, args[0], f32));
            if (acc)
              v = arith::AddFOp::create(b, l, cast(b, l, args[1], f32), v);
            yieldValue(b, l, cast(b, l, v, cElt));
          });
      result = epilogue.getResult(0);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// SoftmaxOp
//===----------------------------------------------------------------------===//

struct SoftmaxToLinalg : public OpRewritePattern<SoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value x = op.getInput();
    int64_t rank = op.getInput().getType().getRank();
    int64_t dim = op.getDimension();
    Type f32 = rewriter.getF32Type();
    Type outElt = op.getInit().getType().getElementType();

    SmallVector<unsigned> keep;
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, x);
    SmallVector<OpFoldResult> reducedSizes;
    for (int64_t i = 0; i < rank; ++i) {
      if (i == dim)
        continue;
      keep.push_back(i);
      reducedSizes.push_back(sizes[i]);
    }
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    AffineMap reduced = AffineMap::get(rank, 0, dims(ctx, keep), ctx);
    SmallVector<IteratorType> reduceIters(rank, IteratorType::parallel);
    reduceIters[dim] = IteratorType::reduction;
    SmallVector<IteratorType> parallel(rank, IteratorType::parallel);

    // m = max over the row (NaN-propagating).
    Value max = reduceInto(
        rewriter, loc, ValueRange{x}, {id, reduced}, reduceIters, reducedSizes,
        negInfAttr(rewriter),
        [&](OpBuilder &b, Location l, ValueRange in, Value acc) -> Value {
          return arith::MaximumFOp::create(b, l, acc, cast(b, l, in[0], f32));
        });

    // s = sum over the row of exp(x - m).
    auto expShifted = [&](OpBuilder &b, Location l, Value v, Value m) {
      Value shifted =
          arith::SubFOp::create(b, l, cast(b, l, v, f32), safeMax(b, l, m));
      return math::ExpOp::create(b, l, shifted);
    };
    Value sum = reduceInto(
        rewriter, loc, ValueRange{x, max}, {id, reduced, reduced}, reduceIters,
        reducedSizes, rewriter.getF32FloatAttr(0.0f),
        [&](OpBuilder &b, Location l, ValueRange in, Value acc) -> Value {
          return arith::AddFOp::create(b, l, acc,
                                       expShifted(b, l, in[0], in[1]));
        });

    // y = exp(x - m) / s, 0 for an all -inf row.
    Value y = linalg::GenericOp::create(
                  rewriter, loc, op.getInit().getType(),
                  ValueRange{x, max, sum}, ValueRange{op.getInit()},
                  SmallVector<AffineMap>{id, reduced, reduced, id}, parallel,
                  [&](OpBuilder &b, Location l, ValueRange args) {
                    Value e = expShifted(b, l, args[0], args[1]);
                    Value q = safeDiv(b, l, e, args[2]);
                    yieldValue(b, l, cast(b, l, q, outElt));
                  })
                  .getResult(0);
    rewriter.replaceOp(op, y);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

struct AttentionToLinalg : public OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
    int64_t hq = op.getQuery().getType().getDimSize(1);
    int64_t hkv = op.getKey().getType().getDimSize(1);
    if (ShapedType::isDynamic(hq) || ShapedType::isDynamic(hkv))
      return rewriter.notifyMatchFailure(op, "needs static head counts");
    // No query heads (valid IR, with any Hkv, 0 included: the verifier
    // takes Hq = Hkv = 0): the output is empty. The generics below would
    // read K and V through an empty head loop, which linalg rejects.
    if (hq == 0) {
      rewriter.replaceOp(op, op.getInit());
      return success();
    }
    if (hkv == 0)
      return rewriter.notifyMatchFailure(op, "no key/value heads");
    int64_t group = hq / hkv;
    Type f32 = rewriter.getF32Type();
    Type outElt = op.getInit().getType().getElementType();

    SmallVector<OpFoldResult> qSizes = tensor::getMixedSizes(rewriter, loc, q);
    SmallVector<OpFoldResult> kSizes = tensor::getMixedSizes(rewriter, loc, k);
    SmallVector<OpFoldResult> oSizes =
        tensor::getMixedSizes(rewriter, loc, op.getInit());
    // [B, Hq, Sq, Skv] logits and [B, Hq, Sq] row statistics.
    SmallVector<OpFoldResult> sSizes = {qSizes[0], qSizes[1], qSizes[2],
                                        kSizes[2]};
    SmallVector<OpFoldResult> rowSizes = {qSizes[0], qSizes[1], qSizes[2]};

    AffineExpr b0 = getAffineDimExpr(0, ctx), h = getAffineDimExpr(1, ctx),
               i = getAffineDimExpr(2, ctx), j = getAffineDimExpr(3, ctx),
               d = getAffineDimExpr(4, ctx);
    AffineExpr kvHead = h.floorDiv(group);
    auto map = [&](unsigned n, ArrayRef<AffineExpr> results) {
      return AffineMap::get(n, 0, results, ctx);
    };
    auto par = IteratorType::parallel;
    auto red = IteratorType::reduction;

    TypedAttr zero = rewriter.getF32FloatAttr(0.0f);
    auto fma = [&](OpBuilder &b, Location l, ValueRange in,
                   Value acc) -> Value {
      Value prod = arith::MulFOp::create(b, l, cast(b, l, in[0], f32),
                                         cast(b, l, in[1], f32));
      return arith::AddFOp::create(b, l, acc, prod);
    };
    // S[b,h,i,j] = sum_d Q[b,h,i,d] * K[b,h/g,j,d]; loops (b,h,i,j,d).
    Value s = reduceInto(rewriter, loc, ValueRange{q, k},
                         {map(5, {b0, h, i, d}), map(5, {b0, kvHead, j, d}),
                          map(5, {b0, h, i, j})},
                         {par, par, par, par, red}, sSizes, zero, fma);
    // Elementwise results over [B, Hq, Sq, Skv] only write their outs.
    Value sEmpty = tensor::EmptyOp::create(rewriter, loc, sSizes, f32);

    // The scale: the attribute, or 1/sqrt(D) (1 when D = 0), computed at run
    // time when D is dynamic.
    Value scale;
    if (std::optional<double> value = op.getEffectiveScale()) {
      scale = arith::ConstantOp::create(
          rewriter, loc, rewriter.getF32FloatAttr(static_cast<float>(*value)));
    } else {
      Value dIdx = getValueOrCreateConstantIndexOp(rewriter, loc, qSizes[3]);
      Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
      Value dPos = arith::MaxSIOp::create(rewriter, loc, dIdx, one);
      Value dI64 = arith::IndexCastOp::create(rewriter, loc,
                                              rewriter.getI64Type(), dPos);
      Value dF = arith::SIToFPOp::create(rewriter, loc, f32, dI64);
      scale = math::RsqrtOp::create(rewriter, loc, dF);
    }
    // The band (causal, window, lengths) is evaluated per element: the
    // lengths are read per batch through the generic's maps.
    Value skvV = getValueOrCreateConstantIndexOp(rewriter, loc, kSizes[2]);
    Value sqV = getValueOrCreateConstantIndexOp(rewriter, loc, qSizes[2]);

    // L = scale * S (+ mask), -inf where the mask or the band removes a key.
    SmallVector<Value> logitInputs = {s};
    SmallVector<AffineMap> logitMaps = {map(4, {b0, h, i, j})};
    Value mask = op.getMask();
    if (mask) {
      // Broadcast [..] to [B, Hq, Sq, Skv], aligned right; static size-1
      // dimensions read index 0.
      auto mType = cast<RankedTensorType>(mask.getType());
      int64_t mr = mType.getRank();
      SmallVector<AffineExpr> mExprs;
      for (int64_t a = 0; a < mr; ++a)
        mExprs.push_back(mType.getDimSize(a) == 1
                             ? getAffineConstantExpr(0, ctx)
                             : getAffineDimExpr(a + 4 - mr, ctx));
      logitInputs.push_back(mask);
      logitMaps.push_back(map(4, mExprs));
    }
    int64_t kvLenArg = -1, qLenArg = -1;
    for (auto [lengths, pos] :
         {std::pair<Value, int64_t *>{op.getKvLengths(), &kvLenArg},
          {op.getQLengths(), &qLenArg}}) {
      if (!lengths)
        continue;
      *pos = logitInputs.size();
      logitInputs.push_back(lengths);
      logitMaps.push_back(map(4, {b0}));
    }
    logitMaps.push_back(map(4, {b0, h, i, j}));
    bool boolMask =
        mask &&
        cast<RankedTensorType>(mask.getType()).getElementType().isInteger(1);
    Value logits =
        linalg::GenericOp::create(
            rewriter, loc, sEmpty.getType(), logitInputs, ValueRange{sEmpty},
            logitMaps, SmallVector<IteratorType>(4, par),
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value x = arith::MulFOp::create(b, l, args[0], scale);
              Value negInf = arith::ConstantOp::create(b, l, negInfAttr(b));
              if (mask && !boolMask)
                x = arith::AddFOp::create(b, l, x, cast(b, l, args[1], f32));
              if (boolMask)
                x = arith::SelectOp::create(b, l, args[1], x, negInf);
              if (op.hasBand()) {
                AttentionBand band;
                auto len = [&](int64_t arg) -> Value {
                  if (arg < 0)
                    return Value();
                  return lengthIndex(b, l, args[arg]);
                };
                band.kvLength = len(kvLenArg);
                band.qLength = len(qLenArg);
                if (op.getCausal())
                  band.offset = bandOffset(b, l, op.getDiagonal(), sqV, skvV,
                                           band.qLength, band.kvLength);
                band.window = op.getWindow();
                Value row = linalg::IndexOp::create(b, l, 2);
                Value col = linalg::IndexOp::create(b, l, 3);
                Value keep = bandKeep(b, l, band, row, col);
                x = arith::SelectOp::create(b, l, keep, x, negInf);
              }
              yieldValue(b, l, x);
            })
            .getResult(0);

    // Row max, then P = exp(L - max) and its row sum.
    AffineMap full4 = map(4, {b0, h, i, j}), row4 = map(4, {b0, h, i});
    SmallVector<IteratorType> rowReduce = {par, par, par, red};
    Value max = reduceInto(
        rewriter, loc, ValueRange{logits}, {full4, row4}, rowReduce, rowSizes,
        negInfAttr(rewriter),
        [&](OpBuilder &b, Location l, ValueRange in, Value acc) -> Value {
          return arith::MaximumFOp::create(b, l, acc, in[0]);
        });
    Value p =
        linalg::GenericOp::create(
            rewriter, loc, sEmpty.getType(), ValueRange{logits, max},
            ValueRange{sEmpty}, SmallVector<AffineMap>{full4, row4, full4},
            SmallVector<IteratorType>(4, par),
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value shifted =
                  arith::SubFOp::create(b, l, args[0], safeMax(b, l, args[1]));
              yieldValue(b, l, math::ExpOp::create(b, l, shifted));
            })
            .getResult(0);
    Value sum = reduceInto(
        rewriter, loc, ValueRange{p}, {full4, row4}, rowReduce, rowSizes, zero,
        [&](OpBuilder &b, Location l, ValueRange in, Value acc) -> Value {
          return arith::AddFOp::create(b, l, acc, in[0]);
        });

    // O[b,h,i,e] = sum_j P[b,h,i,j] * V[b,h/g,j,e]; loops (b,h,i,e,j).
    AffineExpr e = getAffineDimExpr(3, ctx), jr = getAffineDimExpr(4, ctx);
    Value acc = reduceInto(rewriter, loc, ValueRange{p, v},
                           {map(5, {b0, h, i, jr}), map(5, {b0, kvHead, jr, e}),
                            map(5, {b0, h, i, e})},
                           {par, par, par, par, red}, oSizes, zero, fma);

    // Normalise; a row with no key left (sum 0) is exactly 0.
    Value out = linalg::GenericOp::create(
                    rewriter, loc, op.getInit().getType(), ValueRange{acc, sum},
                    ValueRange{op.getInit()},
                    SmallVector<AffineMap>{full4, row4, full4},
                    SmallVector<IteratorType>(4, par),
                    [&](OpBuilder &b, Location l, ValueRange args) {
                      Value r = safeDiv(b, l, args[0], args[1]);
                      yieldValue(b, l, cast(b, l, r, outElt));
                    })
                    .getResult(0);
    rewriter.replaceOp(op, out);
    return success();
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// linalg.softmax
//===----------------------------------------------------------------------===//

namespace {
/// linalg.softmax that accel-raise left on tensors (element types
/// accel.softmax lacks, such as f64): upstream's decomposition into a max,
/// an exp(x - max), a sum and a quotient in its own element type. Nothing
/// after this pass lowers the aggregate op.
struct DecomposeLinalgSoftmax : public OpRewritePattern<linalg::SoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::SoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(op, "needs tensors");
    FailureOr<SmallVector<Value>> parts = op.decomposeOperation(rewriter);
    if (failed(parts))
      return rewriter.notifyMatchFailure(op, "upstream did not decompose it");
    rewriter.replaceOp(op, *parts);
    return success();
  }
};
} // namespace

void mlir::accel::populateAccelToLinalgConversionPatterns(
    RewritePatternSet &patterns, StringRef indexFailureCallee) {
  patterns.add<MatmulToLinalg, SoftmaxToLinalg, AttentionToLinalg>(
      patterns.getContext());
  populateAccelDequantMatmulToLinalgPatterns(patterns);
  populateAccelPagedAttentionToLinalgPatterns(patterns, indexFailureCallee);
}

void mlir::accel::populateAccelSoftmaxToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<SoftmaxToLinalg>(patterns.getContext());
}

namespace {
struct AccelDecomposeSoftmaxPass
    : public accel::impl::AccelDecomposeSoftmaxPassBase<
          AccelDecomposeSoftmaxPass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateAccelSoftmaxToLinalgPatterns(patterns);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};
} // namespace

namespace {
struct ConvertAccelToLinalgPass
    : public accel::impl::ConvertAccelToLinalgPassBase<
          ConvertAccelToLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    // Say why an op cannot be lowered before the driver reports only that
    // it failed to legalize it.
    WalkResult walk = getOperation()->walk([](AttentionOp op) {
      auto q = op.getQuery().getType(), k = op.getKey().getType();
      if (q.isDynamicDim(1) || k.isDynamicDim(1)) {
        op.emitOpError() << "the linalg lowering needs static head counts "
                            "(Hq and Hkv) to map query heads to key/value "
                            "heads; got "
                         << q << " and " << k;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    walk = getOperation()->walk([](linalg::SoftmaxOp op) {
      if (op.hasPureTensorSemantics())
        return WalkResult::advance();
      op.emitOpError() << "on buffers cannot be lowered (upstream's "
                          "decomposition builds tensors); give it tensors";
      return WalkResult::interrupt();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();

    RewritePatternSet patterns(&getContext());
    populateAccelToLinalgConversionPatterns(patterns, indexFailureCallee);
    patterns.add<DecomposeLinalgSoftmax>(&getContext());
    ConversionTarget target(getContext());
    target.addIllegalDialect<AccelDialect>();
    target.addIllegalOp<linalg::SoftmaxOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
