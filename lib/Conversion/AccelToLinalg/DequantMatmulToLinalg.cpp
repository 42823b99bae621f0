//===- DequantMatmulToLinalg.cpp - accel.dequant_matmul to linalg ---------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The reference lowering of accel.dequant_matmul: one linalg.generic over
// (M, N, K) that unpacks each weight from its byte, dequantises it in f32 by
// the op's rule and sums A·w in f32, then one rounding to C's type. Batch
// dimensions of A and C are collapsed into M. The generic carries
// kDequantMatmulAttrName (and the CPU configuration's choice), which
// accel-cpu-dequant-kernels replaces with its vectorised kernel; anything
// else lowers it to loops.
//
//===----------------------------------------------------------------------===//

#include "LinalgBuilders.h"
#include "accel/Conversion/AccelToLinalg/AccelToLinalg.h"
#include "accel/Dialect/Accel/IR/AccelDialect.h"
#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::accel;
using namespace mlir::accel::builders;
using utils::IteratorType;

/// The `bits`-bit weight of the generic's K index (loop 2) in its byte
/// `byte` (i8), as an f32: the low nibble for even K, the high one for odd
/// K (int4); two's complement unless `isUnsigned`.
static Value unpackWeight(OpBuilder &b, Location loc, Value byte,
                          int64_t bits, bool isUnsigned) {
  Type i8 = b.getI8Type(), f32 = b.getF32Type();
  auto c8 = [&](int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(i8, v));
  };
  Value q = byte;
  if (bits == 4) {
    Value high = isUnsigned ? Value(arith::ShRUIOp::create(b, loc, byte, c8(4)))
                            : Value(arith::ShRSIOp::create(b, loc, byte, c8(4)));
    Value low = isUnsigned
                    ? Value(arith::AndIOp::create(b, loc, byte, c8(0xf)))
                    : Value(arith::ShRSIOp::create(
                          b, loc, arith::ShLIOp::create(b, loc, byte, c8(4)),
                          c8(4)));
    Value k = linalg::IndexOp::create(b, loc, 2);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value odd = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne,
        arith::AndIOp::create(b, loc, k, one),
        arith::ConstantIndexOp::create(b, loc, 0));
    q = arith::SelectOp::create(b, loc, odd, high, low);
  }
  return isUnsigned ? Value(arith::UIToFPOp::create(b, loc, f32, q))
                    : Value(arith::SIToFPOp::create(b, loc, f32, q));
}

namespace {
struct DequantMatmulToLinalg : public OpRewritePattern<DequantMatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(DequantMatmulOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Type f32 = rewriter.getF32Type();
    auto aType = op.getLhs().getType();
    auto cType = op.getInit().getType();
    int64_t rank = aType.getRank();
    int64_t bits = op.getBits(), group = op.getGroup();
    bool isUnsigned = op.getIsUnsigned();
    bool zeroPoints = static_cast<bool>(op.getZeroPoints());

    // [batch..., M, K] -> [rows, K] (and C likewise).
    Value a = op.getLhs(), c = op.getInit();
    SmallVector<ReassociationIndices> collapse;
    if (rank > 2) {
      ReassociationIndices lead;
      for (int64_t d = 0; d < rank - 1; ++d)
        lead.push_back(d);
      collapse = {lead, {rank - 1}};
      a = tensor::CollapseShapeOp::create(rewriter, loc, a, collapse);
      c = tensor::CollapseShapeOp::create(rewriter, loc, c, collapse);
    }

    // Loops (m, n, k); W read at (n, k / 2) for int4, scales and zero
    // points at (n, k / group).
    AffineExpr m = getAffineDimExpr(0, ctx), n = getAffineDimExpr(1, ctx),
               k = getAffineDimExpr(2, ctx);
    auto map = [&](AffineExpr x, AffineExpr y) {
      return AffineMap::get(3, 0, {x, y}, ctx);
    };
    SmallVector<AffineMap> maps = {map(m, k),
                                   map(n, bits == 4 ? k.floorDiv(2) : k),
                                   map(n, k.floorDiv(group))};
    SmallVector<Value> inputs = {a, op.getWeights(), op.getScales()};
    if (zeroPoints) {
      maps.push_back(map(n, k.floorDiv(group)));
      inputs.push_back(op.getZeroPoints());
    }
    maps.push_back(map(m, n));

    bool f32C = cType.getElementType().isF32();
    Value init = f32C ? zeroFilled(rewriter, loc, c)
                      : filledTensor(rewriter, loc,
                                     tensor::getMixedSizes(rewriter, loc, c),
                                     f32, rewriter.getZeroAttr(f32));
    auto dot = linalg::GenericOp::create(
        rewriter, loc, init.getType(), inputs, ValueRange{init}, maps,
        {IteratorType::parallel, IteratorType::parallel,
         IteratorType::reduction},
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value q = unpackWeight(b, l, args[1], bits, isUnsigned);
          Value s = cast(b, l, args[2], f32);
          Value w = q;
          if (zeroPoints)
            w = arith::SubFOp::create(b, l, w, cast(b, l, args[3], f32));
          w = arith::MulFOp::create(b, l, w, s);
          Value x = cast(b, l, args[0], f32);
          Value acc = args.back();
          yieldValue(b, l,
                     arith::AddFOp::create(
                         b, l, acc, arith::MulFOp::create(b, l, x, w)));
        });
    dot->setAttr(kDequantMatmulAttrName,
                 rewriter.getDictionaryAttr({
                     rewriter.getNamedAttr("bits",
                                           rewriter.getI64IntegerAttr(bits)),
                     rewriter.getNamedAttr("group",
                                           rewriter.getI64IntegerAttr(group)),
                     rewriter.getNamedAttr("unsigned",
                                           rewriter.getBoolAttr(isUnsigned)),
                     rewriter.getNamedAttr("zero_points",
                                           rewriter.getBoolAttr(zeroPoints)),
                 }));
    if (auto config =
            op->getAttrOfType<LoweringConfigAttr>(kLoweringConfigAttrName))
      dot->setAttr(kLoweringConfigAttrName, config);
    Value result = dot.getResult(0);
    if (!f32C) {
      // One rounding of the f32 sums to C's type.
      AffineMap id = rewriter.getMultiDimIdentityMap(2);
      result = linalg::GenericOp::create(
                   rewriter, loc, c.getType(), ValueRange{result},
                   ValueRange{c}, SmallVector<AffineMap>{id, id},
                   SmallVector<IteratorType>(2, IteratorType::parallel),
                   [&](OpBuilder &b, Location l, ValueRange args) {
                     yieldValue(b, l,
                                cast(b, l, args[0], cType.getElementType()));
                   })
                   .getResult(0);
    }
    if (rank > 2)
      result = tensor::ExpandShapeOp::create(
          rewriter, loc, cType, result, collapse,
          tensor::getMixedSizes(rewriter, loc, op.getInit()));
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

void mlir::accel::populateAccelDequantMatmulToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<DequantMatmulToLinalg>(patterns.getContext());
}
