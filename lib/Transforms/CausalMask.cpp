//===- CausalMask.cpp - a frontend's causal mask as the causal band -------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Frontends build the causal mask in the graph: a constant, or a generic
// that compares the query and key indices (torch's triu of a full tensor,
// JAX's iota compare-and-select) and selects 0 or -inf (or the type's
// lowest value, as Hugging Face does). accel.attention with such a mask
// computes every masked score and reads the mask; with `causal` it skips
// the blocks above the band and reads nothing. This pattern evaluates the
// mask (static, at most kMaxElements elements) and, when it is exactly a
// band `j <= i + d` on every slice, replaces it with `causal` and the
// diagonal d. accel-fuse-attention runs it after fusing.
//
//===----------------------------------------------------------------------===//

#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "accel/Transforms/Transforms.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include <cmath>
#include <optional>

using namespace mlir;
using namespace mlir::accel;

namespace {

/// Masks larger than this are left as they are (evaluating one costs a few
/// operations per element at compile time).
constexpr int64_t kMaxElements = int64_t(1) << 24;

/// A scalar constant's value (integers and booleans as exact doubles).
std::optional<double> scalarValue(Attribute a) {
  if (auto f = dyn_cast<FloatAttr>(a))
    return f.getValueAsDouble();
  if (auto b = dyn_cast<BoolAttr>(a))
    return b.getValue() ? 1.0 : 0.0;
  if (auto k = dyn_cast<IntegerAttr>(a))
    return k.getType().isInteger(1) ? double(k.getValue().getZExtValue())
                                    : double(k.getInt());
  return std::nullopt;
}

/// The values of `v`, a statically shaped tensor, in row-major order: a
/// dense constant, or a linalg.generic that reads no tensor (its init is
/// written, not read) and computes each element from its indices with
/// scalar arith. Integers and booleans are held as exact doubles. None when
/// `v` is anything else.
std::optional<std::vector<double>> evaluate(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.hasStaticShape() || type.getNumElements() > kMaxElements)
    return std::nullopt;
  int64_t n = type.getNumElements();
  DenseElementsAttr dense;
  if (matchPattern(v, m_Constant(&dense))) {
    std::vector<double> out;
    out.reserve(n);
    if (isa<FloatType>(type.getElementType())) {
      for (APFloat f : dense.getValues<APFloat>())
        out.push_back(f.convertToDouble());
    } else if (type.getElementType().isInteger(1)) {
      for (bool b : dense.getValues<bool>())
        out.push_back(b ? 1.0 : 0.0);
    } else {
      return std::nullopt;
    }
    return out;
  }
  auto g = v.getDefiningOp<linalg::GenericOp>();
  if (!g || g.getNumResults() != 1 || g.getNumDpsInputs() != 0 ||
      g.getNumParallelLoops() != g.getNumLoops() ||
      g.getNumLoops() != type.getRank() ||
      !g.getIndexingMapsArray().back().isIdentity())
    return std::nullopt;
  Block &body = g.getRegion().front();
  if (!body.getArgument(0).use_empty())
    return std::nullopt;
  std::vector<double> out(n);
  SmallVector<int64_t> index(type.getRank(), 0);
  llvm::DenseMap<Value, double> env;
  for (int64_t flat = 0; flat < n; ++flat) {
    for (int64_t d = type.getRank() - 1, rest = flat; d >= 0; --d) {
      index[d] = rest % type.getDimSize(d);
      rest /= type.getDimSize(d);
    }
    env.clear();
    for (Operation &op : body) {
      auto in = [&](unsigned i) -> std::optional<double> {
        Value operand = op.getOperand(i);
        auto it = env.find(operand);
        if (it != env.end())
          return it->second;
        // A scalar constant captured from outside the body.
        Attribute a;
        if (matchPattern(operand, m_Constant(&a)))
          return scalarValue(a);
        return std::nullopt;
      };
      std::optional<double> r;
      if (auto idx = dyn_cast<linalg::IndexOp>(op)) {
        r = double(index[idx.getDim()]);
      } else if (auto y = dyn_cast<linalg::YieldOp>(op)) {
        std::optional<double> x = in(0);
        if (!x)
          return std::nullopt;
        out[flat] = *x;
        break;
      } else if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
        r = scalarValue(cst.getValue());
      } else if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
                     arith::ExtUIOp, arith::SIToFPOp, arith::UIToFPOp,
                     arith::ExtFOp, arith::TruncFOp>(op)) {
        r = in(0);
      } else if (isa<arith::NegFOp>(op)) {
        if (auto x = in(0))
          r = -*x;
      } else if (isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::AndIOp,
                     arith::OrIOp, arith::XOrIOp>(op)) {
        auto a = in(0), b = in(1);
        if (!a || !b)
          return std::nullopt;
        auto x = int64_t(*a), y = int64_t(*b);
        r = double(isa<arith::AddIOp>(op)   ? x + y
                   : isa<arith::SubIOp>(op) ? x - y
                   : isa<arith::MulIOp>(op) ? x * y
                   : isa<arith::AndIOp>(op) ? (x & y)
                   : isa<arith::OrIOp>(op)  ? (x | y)
                                            : (x ^ y));
      } else if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
        auto a = in(0), b = in(1);
        if (!a || !b)
          return std::nullopt;
        // Indices and small integers: signed and unsigned agree on them
        // when both are non-negative, which is checked.
        auto x = int64_t(*a), y = int64_t(*b);
        bool isUnsigned = llvm::is_contained(
            {arith::CmpIPredicate::ult, arith::CmpIPredicate::ule,
             arith::CmpIPredicate::ugt, arith::CmpIPredicate::uge},
            cmp.getPredicate());
        if (isUnsigned && (x < 0 || y < 0))
          return std::nullopt;
        bool t;
        switch (cmp.getPredicate()) {
        case arith::CmpIPredicate::eq:
          t = x == y;
          break;
        case arith::CmpIPredicate::ne:
          t = x != y;
          break;
        case arith::CmpIPredicate::slt:
        case arith::CmpIPredicate::ult:
          t = x < y;
          break;
        case arith::CmpIPredicate::sle:
        case arith::CmpIPredicate::ule:
          t = x <= y;
          break;
        case arith::CmpIPredicate::sgt:
        case arith::CmpIPredicate::ugt:
          t = x > y;
          break;
        default:
          t = x >= y;
          break;
        }
        r = t ? 1.0 : 0.0;
      } else if (isa<arith::SelectOp>(op)) {
        auto c = in(0), a = in(1), b = in(2);
        if (!c || !a || !b)
          return std::nullopt;
        r = *c != 0 ? *a : *b;
      }
      if (!r)
        return std::nullopt;
      env[op.getResult(0)] = *r;
    }
  }
  return out;
}

/// What a mask value does to its key: keep it (0 added, or true) or
/// remove it (-inf, the type's lowest finite value, or false); anything
/// else changes the scores and is no band.
enum class Effect { Keep, Remove, Other };

struct CausalMaskToBand : public OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    Value mask = op.getMask();
    if (!mask || op.getCausal() || op.getWindow() || op.getKvLengths() ||
        op.getQLengths() || op.getDiagonal())
      return failure();
    auto qType = cast<RankedTensorType>(op.getQuery().getType());
    auto kType = cast<RankedTensorType>(op.getKey().getType());
    auto maskType = cast<RankedTensorType>(mask.getType());
    int64_t sq = qType.getDimSize(2), skv = kType.getDimSize(2);
    int64_t rank = maskType.getRank();
    if (ShapedType::isDynamic(sq) || ShapedType::isDynamic(skv) || rank < 2 ||
        maskType.getDimSize(rank - 2) != sq ||
        maskType.getDimSize(rank - 1) != skv || sq == 0 || skv == 0)
      return failure();
    // Through the reshapes fusion adds (they keep the row-major order).
    Value source = mask;
    while (Operation *def = source.getDefiningOp()) {
      if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
        break;
      source = def->getOperand(0);
    }
    std::optional<std::vector<double>> values = evaluate(source);
    if (!values || int64_t(values->size()) != maskType.getNumElements())
      return failure();
    Type elem = maskType.getElementType();
    bool additive = isa<FloatType>(elem);
    double lowest = 0;
    if (auto f = dyn_cast<FloatType>(elem))
      lowest = APFloat::getLargest(f.getFloatSemantics(), /*Negative=*/true)
                   .convertToDouble();
    bool finiteRemoval = false;
    auto effect = [&](double x) {
      if (!additive)
        return x != 0 ? Effect::Keep : Effect::Remove;
      if (x == 0)
        return Effect::Keep;
      if (std::isinf(x) && x < 0)
        return Effect::Remove;
      if (x == lowest) {
        finiteRemoval = true;
        return Effect::Remove;
      }
      return Effect::Other;
    };
    // Every slice: row i keeps exactly the keys j <= i + d (a prefix of
    // length clamp(i + d + 1, 0, Skv)), with one d for all.
    std::optional<int64_t> diagonal;
    SmallVector<int64_t> kept(sq);
    int64_t slices = maskType.getNumElements() / (sq * skv);
    for (int64_t s = 0; s < slices; ++s) {
      for (int64_t i = 0; i < sq; ++i) {
        const double *row = values->data() + (s * sq + i) * skv;
        int64_t prefix = 0;
        while (prefix < skv && effect(row[prefix]) == Effect::Keep)
          ++prefix;
        for (int64_t j = prefix; j < skv; ++j)
          if (effect(row[j]) != Effect::Remove)
            return failure();
        if (s > 0 && kept[i] != prefix)
          return failure();
        kept[i] = prefix;
        if (prefix > 0 && prefix < skv) {
          int64_t d = prefix - 1 - i;
          if (diagonal && *diagonal != d)
            return failure();
          diagonal = d;
        }
      }
    }
    // A mask that removes nothing, or whose band no row shows, is left.
    if (!diagonal)
      return failure();
    for (int64_t i = 0; i < sq; ++i)
      if (kept[i] != std::clamp<int64_t>(i + *diagonal + 1, 0, skv))
        return failure();
    // A finite "removal" leaves a row whose keys are all removed a uniform
    // softmax where the band gives 0: only bands that keep a key in every
    // row are the same.
    if (finiteRemoval && llvm::is_contained(kept, 0))
      return failure();
    Value diag;
    if (*diagonal != skv - sq)
      diag = arith::ConstantIndexOp::create(rewriter, op.getLoc(), *diagonal);
    auto band = AttentionOp::create(
        rewriter, op.getLoc(), op.getType(), op.getQuery(), op.getKey(),
        op.getValue(), /*mask=*/Value(), /*kv_lengths=*/Value(),
        /*q_lengths=*/Value(), diag, op.getInit(), op.getScaleAttr(),
        rewriter.getUnitAttr(), /*window=*/nullptr);
    band->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    rewriter.replaceOp(op, band.getResult());
    return success();
  }
};

} // namespace

void accel::populateCausalMaskPatterns(RewritePatternSet &patterns) {
  patterns.add<CausalMaskToBand>(patterns.getContext());
}
