//===- LinalgBuilders.h - small builders shared by the lowerings -*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Builders used by convert-accel-to-linalg and accel-decompose-attention:
// filled tensors, casts (f8 decoded exactly), the guarded max and division
// of the fully-masked-row rule, and one reduction-into-new-tensor shape.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_CONVERSION_ACCELTOLINALG_LINALGBUILDERS_H
#define ACCEL_LIB_CONVERSION_ACCELTOLINALG_LINALGBUILDERS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::accel::builders {

using utils::IteratorType;

inline TypedAttr negInfAttr(OpBuilder &b) {
  return b.getF32FloatAttr(
      APFloat::getInf(APFloat::IEEEsingle(), /*Negative=*/true)
          .convertToFloat());
}

/// A new tensor of `sizes` x `elementType` filled with `value`.
inline Value filledTensor(OpBuilder &b, Location loc,
                          ArrayRef<OpFoldResult> sizes, Type elementType,
                          TypedAttr value) {
  Value empty = tensor::EmptyOp::create(b, loc, sizes, elementType);
  Value cst = arith::ConstantOp::create(b, loc, value);
  return linalg::FillOp::create(b, loc, cst, empty).getResult(0);
}

/// `dest` filled with zeros of its element type. A `dest` that is itself
/// a fill (a frontend's zero-initialized output) is filled in its place:
/// one fill, not two passes over the buffer.
inline Value zeroFilled(OpBuilder &b, Location loc, Value dest) {
  if (auto fill = dest.getDefiningOp<linalg::FillOp>())
    dest = fill.getDpsInitOperand(0)->get();
  Type elementType = cast<RankedTensorType>(dest.getType()).getElementType();
  Value zero =
      arith::ConstantOp::create(b, loc, b.getZeroAttr(elementType));
  return linalg::FillOp::create(b, loc, zero, dest).getResult(0);
}

/// The f32 value of an f8 scalar through a 256-entry table: exact, and it
/// needs no f8 support from the backend (LLVM has no f8 type on CPUs).
inline Value decodeF8(OpBuilder &b, Location loc, Value x) {
  auto type = cast<FloatType>(x.getType());
  SmallVector<float> table;
  for (unsigned bits = 0; bits < 256; ++bits)
    table.push_back(APFloat(type.getFloatSemantics(), APInt(8, bits))
                        .convertToFloat());
  auto tableType = RankedTensorType::get({256}, b.getF32Type());
  Value values = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(tableType, ArrayRef<float>(table)));
  Value raw = arith::BitcastOp::create(b, loc, b.getI8Type(), x);
  Value index = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), raw);
  return tensor::ExtractOp::create(b, loc, values, ValueRange{index});
}

/// `x` converted to `type` (sign-extending integers, decoding f8).
inline Value cast(OpBuilder &b, Location loc, Value x, Type type) {
  if (isa<Float8E4M3FNType, Float8E5M2Type, Float8E4M3FNUZType,
          Float8E5M2FNUZType>(x.getType()))
    x = decodeF8(b, loc, x);
  return convertScalarToDtype(b, loc, x, type, /*isUnsignedCast=*/false);
}

/// The maximum to subtract before exp: 0 instead of -inf, so a row whose
/// entries are all -inf gives exp(-inf) = 0 rather than exp(NaN).
inline Value safeMax(OpBuilder &b, Location loc, Value max) {
  Value negInf = arith::ConstantOp::create(b, loc, negInfAttr(b));
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  Value isNegInf = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                         max, negInf);
  return arith::SelectOp::create(b, loc, isNegInf, zero, max);
}

/// `num / den`, or 0 where `den` is 0 (a row with nothing left to weigh).
inline Value safeDiv(OpBuilder &b, Location loc, Value num, Value den) {
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  Value isZero = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, den,
                                       zero);
  Value quot = arith::DivFOp::create(b, loc, num, den);
  return arith::SelectOp::create(b, loc, isZero, zero, quot);
}

inline void yieldValue(OpBuilder &b, Location loc, Value v) {
  linalg::YieldOp::create(b, loc, ValueRange{v});
}

/// Folds `inputs` (read through the leading `maps`) into a new f32 tensor of
/// `sizes` that starts at `init` and is written through the last map; each
/// step yields `combine(inputs, acc)`. The row max and sum reductions and the
/// contractions below are all this one shape.
inline Value
reduceInto(OpBuilder &b, Location loc, ValueRange inputs,
           ArrayRef<AffineMap> maps, ArrayRef<IteratorType> iterators,
           ArrayRef<OpFoldResult> sizes, TypedAttr init,
           function_ref<Value(OpBuilder &, Location, ValueRange, Value)>
               combine) {
  Value start = filledTensor(b, loc, sizes, b.getF32Type(), init);
  return linalg::GenericOp::create(
             b, loc, start.getType(), inputs, ValueRange{start}, maps,
             iterators,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               yieldValue(nb, l,
                          combine(nb, l, args.drop_back(), args.back()));
             })
      .getResult(0);
}

/// The keys an accel.attention keeps for a query row apart from its mask,
/// for one batch element (see the op's description). Index values.
struct AttentionBand {
  /// Causal: keep j <= i + offset. Null when the op is not causal.
  Value offset;
  /// With `offset`: keep j > i + offset - window.
  std::optional<int64_t> window;
  /// Keep j < kvLength / i < qLength. Null: the whole dimension.
  Value kvLength, qLength;
};

/// A sequence length as an index, clamped to [-2^31, 2^31] as the op
/// defines it (so the band arithmetic cannot overflow).
inline Value lengthIndex(OpBuilder &b, Location loc, Value len) {
  Value i = arith::IndexCastOp::create(b, loc, b.getIndexType(), len);
  Value lo = arith::ConstantIndexOp::create(b, loc, -(int64_t(1) << 31));
  Value hi = arith::ConstantIndexOp::create(b, loc, int64_t(1) << 31);
  return arith::MinSIOp::create(b, loc,
                                arith::MaxSIOp::create(b, loc, i, lo), hi);
}

/// `lengths[batch]` as a clamped index (lengthIndex).
inline Value lengthAt(OpBuilder &b, Location loc, Value lengths, Value batch) {
  Value len = tensor::ExtractOp::create(b, loc, lengths, ValueRange{batch});
  return lengthIndex(b, loc, len);
}

/// off = diagonal + (kvLen - skv) - (qLen - sq), the diagonal defaulting to
/// skv - sq (so off = kvLen - qLen); absent lengths are the whole dimension.
inline Value bandOffset(OpBuilder &b, Location loc, Value diagonal, Value sq,
                        Value skv, Value qLen, Value kvLen) {
  if (!diagonal)
    return arith::SubIOp::create(b, loc, kvLen ? kvLen : skv,
                                 qLen ? qLen : sq);
  Value off = diagonal;
  if (kvLen)
    off = arith::AddIOp::create(b, loc, off,
                                arith::SubIOp::create(b, loc, kvLen, skv));
  if (qLen)
    off = arith::SubIOp::create(b, loc, off,
                                arith::SubIOp::create(b, loc, qLen, sq));
  return off;
}

/// Whether query row `i` keeps key `j` (global indices) under `band`; null
/// when the band keeps everything.
inline Value bandKeep(OpBuilder &b, Location loc, const AttentionBand &band,
                      Value i, Value j) {
  Value keep;
  auto both = [&](Value c) {
    keep = keep ? arith::AndIOp::create(b, loc, keep, c).getResult() : c;
  };
  using P = arith::CmpIPredicate;
  if (band.offset) {
    Value limit = arith::AddIOp::create(b, loc, i, band.offset);
    both(arith::CmpIOp::create(b, loc, P::sle, j, limit));
    if (band.window) {
      Value w = arith::ConstantIndexOp::create(b, loc, *band.window);
      Value low = arith::SubIOp::create(b, loc, limit, w);
      both(arith::CmpIOp::create(b, loc, P::sgt, j, low));
    }
  }
  if (band.kvLength)
    both(arith::CmpIOp::create(b, loc, P::slt, j, band.kvLength));
  if (band.qLength)
    both(arith::CmpIOp::create(b, loc, P::slt, i, band.qLength));
  return keep;
}

/// FlashAttention-2's running row max, row sum and [rows, Dv] f32
/// accumulator.
struct FlashState {
  Value m, l, acc;
};

/// acc + P · V for a tile's probabilities P ([tq, tk] f32) and the
/// rescaled accumulator: what a caller computes instead of one product
/// with a V tile (a paged attention's V lies in pages).
using PvFn = llvm::function_ref<Value(Value p, Value acc)>;

/// The online softmax update for one key tile (DecomposeAttention.cpp):
/// `s` are the tile's [tq, tk] f32 logits, masked, and multiplied by
/// `deferredScale` (when set) where they are read; `vTile` is [tk, dv], or
/// null when `pv` computes acc + P · V.
FlashState flashUpdate(OpBuilder &b, Location loc, Value s, Value deferredScale,
                       Value vTile, bool roundP, OpFoldResult tq,
                       OpFoldResult tk, int64_t dv, FlashState state,
                       PvFn pv = nullptr);

} // namespace mlir::accel::builders

#endif // ACCEL_LIB_CONVERSION_ACCELTOLINALG_LINALGBUILDERS_H
