//===- FuseAttention.cpp - unfused attention chains to accel.attention ----===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel-fuse-attention: matmul(Q, Kᵀ) -> scale -> [mask] -> softmax ->
// matmul(P, V) becomes one accel.attention. Matched from the end (the P·V
// matmul) backwards; every step checks that the chain means exactly what
// the fused op computes.
//
//===----------------------------------------------------------------------===//

#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "accel/Transforms/Passes.h"
#include "accel/Transforms/Transforms.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include <cmath>

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELFUSEATTENTIONPASS
#include "accel/Transforms/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;
using namespace mlir::accel;

/// The finite value of a float splat constant, if `v` is one.
static std::optional<double> splatValue(Value v) {
  DenseElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)) || !attr.isSplat() ||
      !isa<FloatType>(attr.getElementType()))
    return std::nullopt;
  double x = attr.getSplatValue<APFloat>().convertToDouble();
  if (!std::isfinite(x))
    return std::nullopt;
  return x;
}

static bool isNegInfSplat(Value v) {
  DenseElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)) || !attr.isSplat() ||
      !isa<FloatType>(attr.getElementType()))
    return false;
  APFloat x = attr.getSplatValue<APFloat>();
  return x.isInfinity() && x.isNegative();
}

namespace {
struct FuseAttentionChain : public OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MatmulOp pv,
                                PatternRewriter &rewriter) const override {
    auto plain = [](MatmulOp mm) {
      return !mm.getAccumulate() && !mm.getLhsScale() &&
             mm.getInit().getType().getRank() == 4;
    };
    if (!plain(pv) || pv.getTransposeB())
      return rewriter.notifyMatchFailure(pv, "P·V must be a plain 4-D matmul");
    auto softmax = pv.getLhs().getDefiningOp<SoftmaxOp>();
    if (!softmax || !softmax->hasOneUse())
      return rewriter.notifyMatchFailure(pv, "P is not a single-use softmax");
    if (softmax.getDimension() != 3)
      return rewriter.notifyMatchFailure(pv, "softmax not over the keys");

    // Optional mask, then the scale, walking up from the softmax input.
    Value s = softmax.getInput();
    Value mask;
    if (auto add = s.getDefiningOp<arith::AddFOp>()) {
      if (!add->hasOneUse())
        return rewriter.notifyMatchFailure(pv, "masked logits reused");
      mask = add.getRhs();
      s = add.getLhs();
    } else if (auto sel = s.getDefiningOp<arith::SelectOp>()) {
      if (!sel->hasOneUse() || !isNegInfSplat(sel.getFalseValue()) ||
          !isa<ShapedType>(sel.getCondition().getType()))
        return rewriter.notifyMatchFailure(pv, "select is not a keep-mask");
      mask = sel.getCondition();
      s = sel.getTrueValue();
    }
    std::optional<double> scale;
    if (auto mul = s.getDefiningOp<arith::MulFOp>()) {
      scale = splatValue(mul.getRhs());
      s = mul.getLhs();
      if (!scale || !mul->hasOneUse())
        return rewriter.notifyMatchFailure(pv, "scale is not a constant");
    } else if (auto div = s.getDefiningOp<arith::DivFOp>()) {
      std::optional<double> c = splatValue(div.getRhs());
      if (!c || *c == 0.0 || !div->hasOneUse())
        return rewriter.notifyMatchFailure(pv, "scale is not a constant");
      scale = 1.0 / *c;
      s = div.getLhs();
    } else {
      return rewriter.notifyMatchFailure(pv, "no constant scale");
    }
    auto qk = s.getDefiningOp<MatmulOp>();
    if (!qk || !qk->hasOneUse() || !plain(qk) || !qk.getTransposeB())
      return rewriter.notifyMatchFailure(pv, "logits are not Q·Kᵀ");

    Value q = qk.getLhs(), k = qk.getRhs(), v = pv.getRhs();
    Type elt = getElementTypeOrSelf(q.getType());
    if (getElementTypeOrSelf(k.getType()) != elt ||
        getElementTypeOrSelf(v.getType()) != elt ||
        !isa<FloatType>(elt) ||
        !isa<Float32Type, Float16Type, BFloat16Type>(
            pv.getInit().getType().getElementType()))
      return rewriter.notifyMatchFailure(pv, "element types");
    // The two verified matmuls already tie the shapes together: Q and K
    // share B, H and D; P (hence the mask) is [B, H, Sq, Skv]; V is
    // [B, H, Skv, Dv]. So the fused op verifies.
    auto fused = AttentionOp::create(
        rewriter, pv.getLoc(), pv.getInit().getType(), q, k, v, mask,
        /*kv_lengths=*/Value(), /*q_lengths=*/Value(),
        /*diagonal=*/Value(), pv.getInit(),
        rewriter.getF32FloatAttr(static_cast<float>(*scale)),
        /*causal=*/nullptr, /*window=*/nullptr);
    rewriter.replaceOp(pv, fused.getResult());
    return success();
  }
};

struct AccelFuseAttentionPass
    : public accel::impl::AccelFuseAttentionPassBase<AccelFuseAttentionPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateFuseAttentionPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void accel::populateFuseAttentionPatterns(RewritePatternSet &patterns) {
  patterns.add<FuseAttentionChain>(patterns.getContext());
}
