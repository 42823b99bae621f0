//===- QuantizeWeights.cpp - accel-lower-precision's weight-only mode ----===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel-lower-precision weight-only=int4|int8: a 2-D accel.matmul whose
// weights B are a constant becomes an accel.dequant_matmul whose weights
// are quantised at compile time, group-wise along K, by round to nearest
// (docs/quantization.md):
//
//   symmetric:  s = max|w| / (2^(bits-1) - 1), q = clamp(rint(w / s)),
//               signed, no zero points;
//   otherwise:  lo = min(min w, 0), hi = max(max w, 0),
//               s = (hi - lo) / (2^bits - 1), z = clamp(rint(-lo / s)),
//               q = clamp(rint(w / s) + z), unsigned, zero points z.
//
// Every step is the f32 arithmetic of python/accel/quant.py's quantize(),
// so both give the same bytes (test/Transforms/
// accel-lower-precision-weight-only.mlir checks them against it).
//
//===----------------------------------------------------------------------===//

#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "accel/Transforms/LowerPrecision.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/PatternMatch.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::accel;

namespace {

/// The quantised form of one weight matrix W [N, K].
struct QuantisedWeights {
  std::vector<int8_t> packed;
  std::vector<float> scales, zeroPoints;
};

QuantisedWeights quantiseWeights(ArrayRef<float> w, int64_t n, int64_t k,
                                 const WeightOnlyOptions &o) {
  int64_t group = o.group > 0 ? o.group : k, groups = k / group;
  QuantisedWeights out;
  out.scales.resize(n * groups);
  if (!o.symmetric)
    out.zeroPoints.resize(n * groups);
  std::vector<int64_t> q(n * k);
  for (int64_t r = 0; r < n; ++r)
    for (int64_t g = 0; g < groups; ++g) {
      const float *x = w.data() + r * k + g * group;
      float s, z = 0.f, lo = 0.f, hi = 0.f;
      int64_t qmin, qmax;
      if (o.symmetric) {
        float amax = 0.f;
        for (int64_t i = 0; i < group; ++i)
          amax = std::max(amax, std::fabs(x[i]));
        qmax = (int64_t(1) << (o.bits - 1)) - 1;
        qmin = -qmax - 1;
        s = amax / float(qmax);
      } else {
        for (int64_t i = 0; i < group; ++i) {
          lo = std::min(lo, x[i]);
          hi = std::max(hi, x[i]);
        }
        qmin = 0;
        qmax = (int64_t(1) << o.bits) - 1;
        s = (hi - lo) / float(qmax);
      }
      if (!(s > 0.f))
        s = 1.f;
      if (!o.symmetric)
        z = std::clamp(std::nearbyint(-lo / s), 0.f, float(qmax));
      out.scales[r * groups + g] = s;
      if (!o.symmetric)
        out.zeroPoints[r * groups + g] = z;
      for (int64_t i = 0; i < group; ++i) {
        float v = std::nearbyint(x[i] / s) + z;
        q[r * k + g * group + i] =
            int64_t(std::clamp(v, float(qmin), float(qmax)));
      }
    }
  if (o.bits == 8) {
    out.packed.resize(n * k);
    for (int64_t i = 0; i < n * k; ++i)
      out.packed[i] = int8_t(uint8_t(q[i] & 0xff));
  } else {
    out.packed.resize(n * k / 2);
    for (int64_t i = 0; i < n * k / 2; ++i)
      out.packed[i] =
          int8_t(uint8_t((q[2 * i] & 0xf) | ((q[2 * i + 1] & 0xf) << 4)));
  }
  return out;
}

struct QuantizeMatmulWeights : public OpRewritePattern<MatmulOp> {
  QuantizeMatmulWeights(MLIRContext *ctx, const WeightOnlyOptions &o)
      : OpRewritePattern(ctx), options(o) {}

  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    DenseFPElementsAttr weights;
    if (failed(checkWeightOnlyCandidate(op, options, &weights,
                                        /*diagnose=*/false)))
      return failure();
    auto bType = op.getRhs().getType();
    bool t = op.getTransposeB();
    int64_t k = op.getLhs().getType().getDimSize(1);
    int64_t n = t ? bType.getDimSize(0) : bType.getDimSize(1);
    // W [N, K] in f32 (f16/bf16 constants widen exactly).
    std::vector<float> w(n * k);
    int64_t i = 0;
    for (APFloat v : weights.getValues<APFloat>()) {
      bool lost;
      v.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven,
                &lost);
      int64_t row = i / bType.getDimSize(1), col = i % bType.getDimSize(1);
      w[t ? row * k + col : col * k + row] = v.convertToFloat();
      ++i;
    }
    QuantisedWeights qw = quantiseWeights(w, n, k, options);
    int64_t group = options.group > 0 ? options.group : k;
    Location loc = op.getLoc();
    Type i8 = rewriter.getI8Type(), f32 = rewriter.getF32Type();
    auto packedType = RankedTensorType::get({n, k * options.bits / 8}, i8);
    auto scaleType = RankedTensorType::get({n, k / group}, f32);
    Value packed = arith::ConstantOp::create(
        rewriter, loc,
        DenseElementsAttr::get(packedType, ArrayRef<int8_t>(qw.packed)));
    Value scales = arith::ConstantOp::create(
        rewriter, loc,
        DenseElementsAttr::get(scaleType, ArrayRef<float>(qw.scales)));
    Value zeroPoints;
    if (!options.symmetric)
      zeroPoints = arith::ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(scaleType, ArrayRef<float>(qw.zeroPoints)));
    rewriter.replaceOpWithNewOp<DequantMatmulOp>(
        op, op.getInit().getType(), op.getLhs(), packed, scales, zeroPoints,
        op.getInit(), rewriter.getI64IntegerAttr(options.bits),
        rewriter.getI64IntegerAttr(group),
        options.symmetric ? UnitAttr() : rewriter.getUnitAttr());
    return success();
  }

  WeightOnlyOptions options;
};
} // namespace

LogicalResult accel::checkWeightOnlyCandidate(MatmulOp op,
                                              const WeightOnlyOptions &o,
                                              DenseFPElementsAttr *weights,
                                              bool diagnose) {
  // Only matmuls whose weights are a constant are candidates; the others
  // are left as they are, without a word.
  DenseFPElementsAttr cst;
  if (!matchPattern(op.getRhs(), m_Constant(&cst)))
    return failure();
  auto refuse = [&](const Twine &why) {
    if (diagnose)
      op.emitOpError("cannot quantise its constant weights (weight-only=int")
          << o.bits << "): " << why;
    return failure();
  };
  auto aType = op.getLhs().getType(), bType = op.getRhs().getType();
  auto cType = op.getInit().getType();
  if (aType.getRank() != 2 || !aType.hasStaticShape() ||
      !bType.hasStaticShape() || !cType.hasStaticShape())
    return refuse("it needs a 2-D matmul of static shapes");
  // (C is then f32 or A's type, as accel.dequant_matmul takes it: the
  // matmul's verifier allows no other C for these inputs.)
  Type aElt = aType.getElementType();
  if (!(aElt.isF32() || aElt.isF16() || aElt.isBF16()))
    return refuse("it needs f32, f16 or bf16 activations");
  if (op.getAccumulate() || op.getLhsScale())
    return refuse("it does not accumulate into C or take scales");
  int64_t k = aType.getDimSize(1);
  int64_t group = o.group > 0 ? o.group : k;
  if (k == 0 || k % group != 0)
    return refuse("the group " + Twine(group) + " does not divide K = " +
                  Twine(k));
  if (o.bits == 4 && (k % 2 != 0 || group % 2 != 0))
    return refuse("int4 needs an even K and an even group (two weights a "
                  "byte), got K = " +
                  Twine(k) + " and group " + Twine(group));
  if (weights)
    *weights = cst;
  return success();
}

void accel::populateAccelWeightOnlyPatterns(RewritePatternSet &patterns,
                                            const WeightOnlyOptions &options) {
  patterns.add<QuantizeMatmulWeights>(patterns.getContext(), options);
}
