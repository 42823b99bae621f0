//===- ExpandF8Casts.cpp - fp8 casts as integer arithmetic ----------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel-expand-f8-casts: arith.truncf to and arith.extf from f8E4M3FN,
// f8E5M2, f8E4M3FNUZ and f8E5M2FNUZ on the f32 bit pattern, for back ends
// without fp8 types (LLVM on CPUs). Rounding is IEEE round to nearest even,
// with APFloat's overflow and special values for each format; the
// subnormal range is rounded by one f32 addition that aligns the value to
// the fp8 subnormal spacing (the float-to-half method of F. Giesen's
// "float_to_half_fast3_rtne").
//
//===----------------------------------------------------------------------===//

#include "accel/Transforms/Passes.h"
#include "accel/Transforms/Transforms.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include <cmath>
#include <cstring>

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELEXPANDF8CASTSPASS
#include "accel/Transforms/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;
using namespace mlir::accel;

namespace {
/// Where a format keeps its non-finite values.
enum class Specials {
  /// The all-ones exponent holds infinities and NaNs (f8E5M2).
  IEEE,
  /// Finite values and one NaN, S.1111.111, per sign (f8E4M3FN).
  AllOnesNaN,
  /// One NaN in the negative zero's place, 0x80, and no infinities or -0
  /// (the FNUZ formats).
  NegativeZeroNaN,
};

/// The constants of one fp8 format, on f32 bit patterns.
struct F8Format {
  unsigned mantissaBits;
  int bias;
  /// |x| bits at or above which the result is not finite.
  uint32_t overflowFrom;
  /// The encodings beyond the finite range (without the sign).
  uint32_t overflowCode, nanCode;
  /// |x| bits of the smallest normal value.
  uint32_t minNormal;
  Specials specials;
};
} // namespace

static std::optional<F8Format> formatOf(Type t) {
  // E5M2: 57344 is the largest finite value; 61440 (its midpoint with 2^16)
  // and above round to inf. E4M3FN: 448 is the largest; above 464 (the
  // midpoint with 480, which ties to 448) is NaN, its only non-finite value.
  if (isa<Float8E5M2Type>(t))
    return F8Format{2,
                    15,
                    0x47800000u /*65536*/,
                    0x7C,
                    0x7E,
                    0x38800000u /*2^-14*/,
                    Specials::IEEE};
  if (isa<Float8E4M3FNType>(t))
    return F8Format{3,
                    7,
                    0x43E80001u /*past 464*/,
                    0x7F,
                    0x7F,
                    0x3C800000u /*2^-6*/,
                    Specials::AllOnesNaN};
  // The FNUZ formats have no infinity, so APFloat turns what would round
  // past the largest finite value into their NaN, 0x80 (a NaN-only format's
  // overflow), whatever the sign. E4M3FNUZ: 240 (0x7F, odd) is the largest;
  // 248, its midpoint with 256, ties to even, so from 248 on is NaN.
  // E5M2FNUZ: 57344 (0x7F) is the largest, NaN from 61440 on.
  if (isa<Float8E4M3FNUZType>(t))
    return F8Format{3,
                    8,
                    0x43780000u /*248*/,
                    0x80,
                    0x80,
                    0x3C000000u /*2^-7*/,
                    Specials::NegativeZeroNaN};
  if (isa<Float8E5M2FNUZType>(t))
    return F8Format{2,
                    16,
                    0x47700000u /*61440*/,
                    0x80,
                    0x80,
                    0x38000000u /*2^-15*/,
                    Specials::NegativeZeroNaN};
  return std::nullopt;
}

/// `like`'s shape with element type `elementType` (scalar or vector).
static Type withElement(Type like, Type elementType) {
  if (auto v = dyn_cast<VectorType>(like))
    return v.clone(elementType);
  return elementType;
}

namespace {
/// Builds integer and float constants and ops on one scalar or vector shape.
struct BitsBuilder {
  OpBuilder &b;
  Location loc;
  Type shape;

  Type type(Type element) const { return withElement(shape, element); }
  Value i32(uint32_t v) {
    Type t = type(b.getI32Type());
    return arith::ConstantOp::create(
        b, loc, t,
        isa<VectorType>(t)
            ? TypedAttr(DenseElementsAttr::get(cast<ShapedType>(t),
                                               ArrayRef<APInt>{APInt(32, v)}))
            : TypedAttr(b.getI32IntegerAttr(static_cast<int32_t>(v))));
  }
  Value f32(float v) {
    Type t = type(b.getF32Type());
    return arith::ConstantOp::create(
        b, loc, t,
        isa<VectorType>(t) ? TypedAttr(DenseElementsAttr::get(
                                 cast<ShapedType>(t), ArrayRef<float>{v}))
                           : TypedAttr(b.getF32FloatAttr(v)));
  }
  Value band(Value x, uint32_t m) {
    return arith::AndIOp::create(b, loc, x, i32(m));
  }
  Value shr(Value x, unsigned n) {
    return arith::ShRUIOp::create(b, loc, x, i32(n));
  }
  Value shl(Value x, unsigned n) {
    return arith::ShLIOp::create(b, loc, x, i32(n));
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value cmp(arith::CmpIPredicate p, Value x, uint32_t y) {
    return arith::CmpIOp::create(b, loc, p, x, i32(y));
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value bitcast(Value x, Type element) {
    return arith::BitcastOp::create(b, loc, type(element), x);
  }
};
} // namespace

/// The fp8 encoding (i8 bits) of the f32 `x`.
static Value encodeF8(OpBuilder &b, Location loc, Value x, const F8Format &f) {
  BitsBuilder bb{b, loc, x.getType()};
  Value bits = bb.bitcast(x, b.getI32Type());
  Value sign = bb.shr(bb.band(bits, 0x80000000u), 24);
  Value abs = bb.band(bits, 0x7FFFFFFFu);
  unsigned shift = 23 - f.mantissaBits;

  // Normal results: rebias the exponent and round the mantissa to nearest
  // even by adding half an ulp less one, plus the kept mantissa's last bit;
  // a carry moves into the exponent (up to the overflow encodings).
  Value odd = bb.band(bb.shr(abs, shift), 1);
  uint32_t rebias = static_cast<uint32_t>(f.bias - 127) << 23;
  Value normal = bb.shr(
      bb.add(bb.add(abs, bb.i32(rebias + ((1u << (shift - 1)) - 1))), odd),
      shift);

  // Subnormal results: adding 2^(24 - bias - mantissaBits), whose f32 ulp
  // is the fp8 subnormal spacing 2^(1 - bias - mantissaBits), makes the f32
  // addition do the rounding; the difference of the bit patterns is the
  // code (the smallest normal one when it rounds up).
  uint32_t magicBits =
      static_cast<uint32_t>(127 - f.bias + 23 - int(f.mantissaBits) + 1) << 23;
  float magic;
  std::memcpy(&magic, &magicBits, sizeof(magic));
  Value absF = bb.bitcast(abs, b.getF32Type());
  Value aligned = arith::AddFOp::create(b, loc, absF, bb.f32(magic));
  Value subnormal = arith::SubIOp::create(
      b, loc, bb.bitcast(aligned, b.getI32Type()), bb.i32(magicBits));

  Value code = bb.select(bb.cmp(arith::CmpIPredicate::ult, abs, f.minNormal),
                         subnormal, normal);
  Value beyond =
      f.nanCode == f.overflowCode
          ? bb.i32(f.nanCode)
          : bb.select(bb.cmp(arith::CmpIPredicate::ugt, abs, 0x7F800000u),
                      bb.i32(f.nanCode), bb.i32(f.overflowCode));
  code = bb.select(bb.cmp(arith::CmpIPredicate::uge, abs, f.overflowFrom),
                   beyond, code);
  // FNUZ has no -0: its code is the NaN. A negative value that rounds to
  // zero gives +0, as in APFloat (and 0x80 | sign stays the NaN).
  if (f.specials == Specials::NegativeZeroNaN)
    sign =
        bb.select(bb.cmp(arith::CmpIPredicate::eq, code, 0), bb.i32(0), sign);
  code = arith::OrIOp::create(b, loc, code, sign);
  return arith::TruncIOp::create(b, loc, bb.type(b.getI8Type()), code);
}

/// The f32 value of the fp8 encoding `raw` (i8 bits).
static Value decodeF8(OpBuilder &b, Location loc, Value raw,
                      const F8Format &f) {
  BitsBuilder bb{b, loc, raw.getType()};
  Value u = arith::ExtUIOp::create(b, loc, bb.type(b.getI32Type()), raw);
  Value sign = bb.shl(bb.band(u, 0x80), 24);
  Value mag = bb.band(u, 0x7F);
  Value exponent = bb.shr(mag, f.mantissaBits);
  Value mantissa = bb.band(mag, (1u << f.mantissaBits) - 1);

  Value normal = arith::OrIOp::create(
      b, loc,
      bb.shl(bb.add(exponent, bb.i32(static_cast<uint32_t>(127 - f.bias))), 23),
      bb.shl(mantissa, 23 - f.mantissaBits));
  // Subnormals: mantissa · 2^(1 - bias - mantissaBits), exact in f32.
  Value scaled = arith::MulFOp::create(
      b, loc,
      arith::UIToFPOp::create(b, loc, bb.type(b.getF32Type()), mantissa),
      bb.f32(std::ldexp(1.0f, 1 - f.bias - int(f.mantissaBits))));
  Value subnormal = bb.bitcast(scaled, b.getI32Type());
  Value bits = bb.select(bb.cmp(arith::CmpIPredicate::eq, exponent, 0),
                         subnormal, normal);
  uint32_t topExponent = (1u << (7 - f.mantissaBits)) - 1;
  switch (f.specials) {
  case Specials::IEEE: {
    Value special = bb.select(bb.cmp(arith::CmpIPredicate::eq, mantissa, 0),
                              bb.i32(0x7F800000u), bb.i32(0x7FC00000u));
    bits = bb.select(bb.cmp(arith::CmpIPredicate::eq, exponent, topExponent),
                     special, bits);
    break;
  }
  case Specials::AllOnesNaN:
    bits = bb.select(bb.cmp(arith::CmpIPredicate::eq, mag, 0x7F),
                     bb.i32(0x7FC00000u), bits);
    break;
  case Specials::NegativeZeroNaN:
    // The all-ones exponent is finite; 0x80 (sign, zero) is the NaN.
    bits = bb.select(bb.cmp(arith::CmpIPredicate::eq, u, 0x80),
                     bb.i32(0x7FC00000u), bits);
    break;
  }
  return bb.bitcast(arith::OrIOp::create(b, loc, bits, sign), b.getF32Type());
}

namespace {
struct ExpandTruncToF8 : public OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    Type outType = op.getType();
    std::optional<F8Format> format = formatOf(getElementTypeOrSelf(outType));
    if (!format)
      return rewriter.notifyMatchFailure(op, "not a cast to an fp8 format");
    if (isa<VectorType>(outType) && cast<VectorType>(outType).isScalable())
      return rewriter.notifyMatchFailure(op, "scalable vectors");
    if (auto mode = op.getRoundingmode();
        mode && *mode != arith::RoundingMode::to_nearest_even)
      return rewriter.notifyMatchFailure(op, "rounding other than to nearest "
                                             "even");
    Location loc = op.getLoc();
    Value in = op.getIn();
    Type inElement = getElementTypeOrSelf(in.getType());
    // f16 and bf16 widen exactly; f64 would round twice.
    if (inElement.isF16() || inElement.isBF16())
      in = arith::ExtFOp::create(
          rewriter, loc, withElement(in.getType(), rewriter.getF32Type()), in);
    else if (!inElement.isF32())
      return rewriter.notifyMatchFailure(op, "source wider than f32");
    Value raw = encodeF8(rewriter, loc, in, *format);
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, outType, raw);
    return success();
  }
};

struct ExpandExtFromF8 : public OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::ExtFOp op,
                                PatternRewriter &rewriter) const override {
    Value in = op.getIn();
    std::optional<F8Format> format =
        formatOf(getElementTypeOrSelf(in.getType()));
    if (!format)
      return rewriter.notifyMatchFailure(op, "not a cast from an fp8 format");
    if (isa<VectorType>(in.getType()) &&
        cast<VectorType>(in.getType()).isScalable())
      return rewriter.notifyMatchFailure(op, "scalable vectors");
    Location loc = op.getLoc();
    Value raw = arith::BitcastOp::create(
        rewriter, loc, withElement(in.getType(), rewriter.getI8Type()), in);
    Value f32 = decodeF8(rewriter, loc, raw, *format);
    Type outType = op.getType();
    Type outElement = getElementTypeOrSelf(outType);
    if (outElement.isF32())
      rewriter.replaceOp(op, f32);
    else if (outElement.getIntOrFloatBitWidth() > 32)
      rewriter.replaceOpWithNewOp<arith::ExtFOp>(op, outType, f32);
    else // f16 and bf16 hold every fp8 value exactly.
      rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, outType, f32);
    return success();
  }
};
/// f32 -> tf32 -> f32 (accel-lower-precision's compute = tf32): the f32
/// value rounded to TF32's 10 stored mantissa bits, to nearest even, on the
/// bit pattern. TF32 has f32's exponent, so one rule covers normal and
/// subnormal values; a carry out of the mantissa moves into the exponent
/// (past the largest TF32 value: inf), and a NaN becomes a quiet NaN of
/// the same sign with its top payload bits. The
/// TF32 value never exists in memory (LLVM has no such type): the truncf
/// is left without uses and erased by the pass.
struct ExpandTf32RoundTrip : public OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::ExtFOp op,
                                PatternRewriter &rewriter) const override {
    auto trunc = op.getIn().getDefiningOp<arith::TruncFOp>();
    if (!trunc || !isa<FloatTF32Type>(getElementTypeOrSelf(trunc.getType())))
      return rewriter.notifyMatchFailure(op, "not an extf of a truncf to tf32");
    Value in = trunc.getIn();
    if (!getElementTypeOrSelf(in.getType()).isF32() ||
        !getElementTypeOrSelf(op.getType()).isF32())
      return rewriter.notifyMatchFailure(op, "not f32 -> tf32 -> f32");
    if (isa<VectorType>(in.getType()) &&
        cast<VectorType>(in.getType()).isScalable())
      return rewriter.notifyMatchFailure(op, "scalable vectors");
    if (auto mode = trunc.getRoundingmode();
        mode && *mode != arith::RoundingMode::to_nearest_even)
      return rewriter.notifyMatchFailure(op, "rounding other than to nearest "
                                             "even");
    BitsBuilder bb{rewriter, op.getLoc(), in.getType()};
    Value bits = bb.bitcast(in, rewriter.getI32Type());
    // Half an ulp less one, plus the kept mantissa's last bit: ties go to
    // the even neighbour.
    Value odd = bb.band(bb.shr(bits, 13), 1);
    Value rounded =
        bb.band(bb.add(bb.add(bits, bb.i32(0xFFFu)), odd), 0xFFFFE000u);
    // NaN: a quiet NaN with TF32's bits only (a payload in the low 13 bits
    // alone would read as inf on TF32 hardware).
    Value isNaN = bb.cmp(arith::CmpIPredicate::ugt, bb.band(bits, 0x7FFFFFFFu),
                         0x7F800000u);
    Value nan = bb.band(
        arith::OrIOp::create(rewriter, op.getLoc(), bits, bb.i32(0x00400000u)),
        0xFFFFE000u);
    rewriter.replaceOp(
        op, bb.bitcast(bb.select(isNaN, nan, rounded), rewriter.getF32Type()));
    return success();
  }
};
} // namespace

void accel::populateExpandF8CastsPatterns(RewritePatternSet &patterns) {
  patterns.add<ExpandTruncToF8, ExpandExtFromF8, ExpandTf32RoundTrip>(
      patterns.getContext());
}

namespace {
struct AccelExpandF8CastsPass
    : public accel::impl::AccelExpandF8CastsPassBase<AccelExpandF8CastsPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateExpandF8CastsPatterns(patterns);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
    // The truncf of each expanded tf32 round trip, now without uses.
    getOperation()->walk([](arith::TruncFOp op) {
      if (op->use_empty() &&
          isa<FloatTF32Type>(getElementTypeOrSelf(op.getType())))
        op->erase();
    });
  }
};
} // namespace
