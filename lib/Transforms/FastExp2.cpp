//===- FastExp2.cpp - a short vector exp2 for f32 ------------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// `math.exp2` on f32 vectors in 13 x86 instructions (17 arith/math ops,
// compare-and-select pairs folding into vmaxps/vminps), for the online
// softmax of the CPU attention kernel (every logit goes through one exp2).
// Upstream's route (exp2 -> exp(x * ln 2) -> the polynomial of
// MathPolynomialApproximation) costs ~25 operations: a multiply, two
// clamps, Cody-Waite range reduction, a floor, a degree-7 polynomial and
// the exponent assembly. exp2 needs no range reduction by ln 2, so:
//
//   xc = min(max(x, -126), 128)           a NaN passes both (see below)
//   t  = xc + (1.5 * 2^23 + 126)          rounds xc to an integer n in the
//   n  = t - (1.5 * 2^23 + 126)           low mantissa bits of t (exact:
//                                         t is in [2^23, 2^24), ulp 1)
//   f  = xc - n                           in [-0.5, 0.5]
//   p  = c0 + f (c1 + f (... c6))         2^(1 + f), degree 6, Horner FMAs
//   s  = bitcast(bitcast_i32(t) << 23)    2^(n - 1): n + 126 is in t's low
//                                         9 bits, which the shift moves to
//                                         the exponent field (sign bit 0)
//   r  = p * s
//
// The clamps are `x < -126 ? -126 : x` and `xc > 128 ? 128 : xc`: x86's
// vmaxps/vminps return their second operand when either is NaN, and LLVM
// orders the operands so that it is x, so a NaN passes the clamps, and
// every step after it (t, n, f, p: NaN; r = NaN * s) keeps it NaN with no
// compare and blend at the end.
//
// 2^(1 + f) * 2^(n - 1) rather than 2^f * 2^n: n reaches 128 for x in
// [127.5, 128), whose results are finite but whose 2^n is not.
//
// Accuracy: the polynomial is twice a relative-minimax fit of 2^f on
// [-0.5, 0.5] (2.1e-9 in exact arithmetic; doubling is exact); evaluated in
// f32 with FMAs its error is below 2 ulp (test/Integration/CPU/
// fast-exp2.mlir measures it against libm over [-125, 128)). Ranges:
// exp2(x >= 128) and exp2(+inf) are +inf; exp2(x <= -125.5) and exp2(-inf)
// are exactly 0 (n = -126 gives a zero exponent field), so fully masked
// logits keep their 0 weight and results below 2^-125.5 flush to 0, like
// FTZ arithmetic (38 orders of magnitude below any sum of softmax weights,
// which is at least 1); a NaN stays NaN.
//
// The rounding trick needs the default rounding mode (nearest-even) and no
// reassociation of (xc + M) - M: the arith ops carry no fast-math flags.
//
// Two attributes on the math.exp2 shorten it (the online softmax of
// FlashAttention sets them, DecomposeAttention.cpp): accel.exp2_bounded
// (the operand is at most 128 or NaN: s - m' is at most 8) drops the upper
// clamp, and accel.exp2_tolerance (the relative error the users allow:
// 2^-17 where P is rounded to bf16 next) takes a polynomial of degree 4
// (2.6e-6 relative; test/Integration/CPU/fast-exp2.mlir measures it) when
// it is within the tolerance: 10 instructions instead of 13.
//
//===----------------------------------------------------------------------===//

#include "accel/Dialect/Accel/IR/AccelAttrs.h"
#include "accel/Transforms/Transforms.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace {
/// The degree-4 polynomial's worst relative error evaluated in f32 with FMAs
/// over [-0.5, 0.5] (2.6e-6 in exact arithmetic; test/Integration/CPU/
/// fast-exp2.mlir measures it through the whole exp2).
constexpr double kDegree4Error = 3.0e-6;

struct FastExp2 : public OpRewritePattern<math::Exp2Op> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::Exp2Op op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<VectorType>(op.getType());
    if (!type || !type.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "not a vector of f32");
    Location loc = op.getLoc();
    auto i32Type = type.clone(rewriter.getI32Type());
    auto splat = [&](float v) -> Value {
      return arith::ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(type, rewriter.getF32FloatAttr(v)));
    };
    Value x = op.getOperand();
    // max/min as compare and select, one vmaxps/vminps each on x86, which
    // a NaN passes (the comparison is false: the select takes x). An
    // operand known to be at most 128 (kExp2BoundedAttrName) needs no
    // upper clamp.
    Value lo = splat(-126.0f), hi = splat(128.0f);
    Value xc = arith::SelectOp::create(
        rewriter, loc,
        arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OLT, x, lo),
        lo, x);
    if (!op->hasAttr(accel::kExp2BoundedAttrName))
      xc = arith::SelectOp::create(
          rewriter, loc,
          arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OGT, xc,
                                hi),
          hi, xc);
    // 1.5 * 2^23 + 126 = 12583038: t's mantissa holds 2^22 + 126 + n.
    Value magic = splat(12583038.0f);
    Value t = arith::AddFOp::create(rewriter, loc, xc, magic);
    Value n = arith::SubFOp::create(rewriter, loc, t, magic);
    Value f = arith::SubFOp::create(rewriter, loc, xc, n);
    // Twice the relative-minimax coefficients of 2^f on [-0.5, 0.5]: 2^(1+f)
    // (the highest power's first). Degree 6 by default; degree 4 where the
    // users allow its error (kExp2ToleranceAttrName).
    static constexpr float degree6[] = {2 * 1.5349587192758918e-4f,
                                        2 * 1.3401419855654240e-3f,
                                        2 * 9.6184872090816500e-3f,
                                        2 * 5.5503245443105700e-2f,
                                        2 * 2.4022646248340607e-1f,
                                        2 * 6.9314718246459960e-1f,
                                        2.0f};
    static constexpr float degree4[] = {
        2 * 0.009570101911169622f, 2 * 0.055917860319387246f,
        2 * 0.24024744827863667f, 2 * 0.6931218147366893f,
        2 * 0.9999992614457123f};
    ArrayRef<float> coefficients = degree6;
    if (auto tol = op->getAttrOfType<FloatAttr>(accel::kExp2ToleranceAttrName);
        tol && tol.getValueAsDouble() >= kDegree4Error)
      coefficients = degree4;
    Value p = splat(coefficients.front());
    for (float c : coefficients.drop_front())
      p = math::FmaOp::create(rewriter, loc, p, f, splat(c));
    Value bits = arith::BitcastOp::create(rewriter, loc, i32Type, t);
    Value exponent = arith::ShLIOp::create(
        rewriter, loc, bits,
        arith::ConstantOp::create(
            rewriter, loc,
            DenseElementsAttr::get(i32Type, rewriter.getI32IntegerAttr(23))));
    Value scale = arith::BitcastOp::create(rewriter, loc, type, exponent);
    rewriter.replaceOpWithNewOp<arith::MulFOp>(op, p, scale);
    return success();
  }
};
} // namespace

void mlir::accel::populateFastExp2Patterns(RewritePatternSet &patterns) {
  // Above upstream's exp2 -> exp expansion (benefit 1), which also matches.
  patterns.add<FastExp2>(patterns.getContext(), /*benefit=*/2);
}
