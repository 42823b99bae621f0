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
// Each step may be spelled in accel ops or in linalg, as frontends emit it:
// the matmuls are accel.matmul or what accel-raise raises (linalg.matmul,
// linalg.batch_matmul, transposed-B indexing maps) or a multiply-add
// linalg.generic; Kᵀ is a transpose_b matmul or a linalg.transpose (or a
// transposing generic) of K; scale and mask are arith ops on tensors or
// linalg.generic bodies; the softmax is accel.softmax or linalg.softmax.
// The scores may be 2-D, 3-D ([B·H, S, S]) or 4-D; the matmuls may run on
// batch-collapsed copies (tensor.collapse_shape / expand_shape around a
// batch_matmul). The fused op works on the 4-D frame: operands get leading
// unit dims (and the scores' batch dims back) through tensor.expand_shape,
// and the result is collapsed to the P·V matmul's type.
//
//===----------------------------------------------------------------------===//

#include "ApplyOrReport.h"
#include "MatchMatmul.h"
#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "accel/Transforms/Passes.h"
#include "accel/Transforms/Transforms.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELFUSEATTENTIONPASS
#include "accel/Transforms/Passes.h.inc"
#include <cmath>
#include <limits>
} // namespace mlir::accel

using namespace mlir;
using namespace mlir::accel;

using Reassociation = SmallVector<ReassociationIndices>;

//===----------------------------------------------------------------------===//
// Constants, contractions, transposes, reshapes
//===----------------------------------------------------------------------===//

/// The value of `v` when it is a float constant: a scalar or a splat tensor.
static std::optional<APFloat> floatConstant(Value v) {
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  if (auto f = dyn_cast<FloatAttr>(attr))
    return f.getValue();
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  if (!dense || !dense.isSplat() || !isa<FloatType>(dense.getElementType()))
    return std::nullopt;
  return dense.getSplatValue<APFloat>();
}

static bool isNegInf(std::optional<APFloat> x) {
  return x && x->isInfinity() && x->isNegative();
}

namespace {
/// A product computed from zero: lhs · rhs, or lhs · rhsᵀ with transposeB.
struct Contraction {
  Value lhs, rhs, init;
  bool transposeB;
};
} // namespace

/// `v` as the result of a contraction that neither accumulates nor scales:
/// an accel.matmul, or a linalg contraction accel-raise would raise into a
/// non-accumulating one (a zero-filled init).
static FailureOr<Contraction> matchContraction(Value v, StringRef &why) {
  Operation *op = v.getDefiningOp();
  if (auto mm = dyn_cast_or_null<MatmulOp>(op)) {
    if (mm.getAccumulate())
      return why = "a matmul accumulates into its init", failure();
    if (mm.getLhsScale())
      return why = "a matmul is scaled", failure();
    return Contraction{mm.getLhs(), mm.getRhs(), mm.getInit(),
                       mm.getTransposeB()};
  }
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  if (!linalgOp)
    return why = "not a matmul", failure();
  FailureOr<LinalgMatmulForm> form = matchLinalgMatmul(linalgOp, why);
  if (failed(form))
    return failure();
  if (form->accumulate)
    return why = "a matmul accumulates into a non-zero init", failure();
  return Contraction{form->lhs, form->rhs, form->init, form->transposeB};
}

/// When `v` is made by a linalg.transpose on tensors (or a linalg.generic
/// that is one), its input, and whether the permutation swaps the last two
/// dimensions and keeps the others (the only transpose that turns
/// [.., S, D] into [.., D, S]).
static std::optional<std::pair<Value, bool>> transposeOf(Value v) {
  Value input;
  SmallVector<int64_t> perm;
  if (auto t = v.getDefiningOp<linalg::TransposeOp>()) {
    if (!t.hasPureTensorSemantics())
      return std::nullopt;
    input = t.getInput();
    perm.assign(t.getPermutation().begin(), t.getPermutation().end());
  } else if (auto g = v.getDefiningOp<linalg::GenericOp>()) {
    std::optional<SmallVector<int64_t>> p =
        g.hasPureTensorSemantics() ? linalg::isaTransposeOpInterface(g)
                                   : std::nullopt;
    if (!p)
      return std::nullopt;
    input = g.getDpsInputs()[0];
    perm = *p;
  } else {
    return std::nullopt;
  }
  int64_t r = perm.size();
  bool swapsLastTwo = r >= 2 && perm[r - 2] == r - 1 && perm[r - 1] == r - 2;
  for (int64_t i = 0; i + 2 < r; ++i)
    swapsLastTwo &= perm[i] == i;
  return std::make_pair(input, swapsLastTwo);
}

/// Whether a reshape between rank `rank` and `groups.size()` only merges or
/// splits batch dimensions: the last two (rows and columns) stay as they
/// are.
static bool isBatchOnly(ArrayRef<ReassociationIndices> groups, int64_t rank) {
  int64_t n = groups.size();
  return n >= 2 && rank >= 2 &&
         groups[n - 2] == ReassociationIndices{rank - 2} &&
         groups[n - 1] == ReassociationIndices{rank - 1};
}

/// For each dimension of a mask read through `map` (scores loops -> mask
/// dims): the scores loop it runs along, or -1 for a unit dimension read at
/// 0. Failure when the mask is not a broadcast of the scores that
/// tensor.expand_shape can express (loops out of order, repeated, or
/// anything but a loop or 0).
static FailureOr<SmallVector<int64_t>> maskLoops(AffineMap map,
                                                 RankedTensorType type) {
  if (map.getNumSymbols() != 0 || map.getNumResults() != type.getRank())
    return failure();
  SmallVector<int64_t> loops;
  int64_t last = -1;
  for (auto [i, e] : llvm::enumerate(map.getResults())) {
    if (auto d = dyn_cast<AffineDimExpr>(e)) {
      if (int64_t(d.getPosition()) <= last)
        return failure();
      last = d.getPosition();
      loops.push_back(last);
    } else if (auto c = dyn_cast<AffineConstantExpr>(e);
               c && c.getValue() == 0 && type.getDimSize(i) == 1) {
      loops.push_back(-1);
    } else {
      return failure();
    }
  }
  return loops;
}

//===----------------------------------------------------------------------===//
// Scale and mask steps
//===----------------------------------------------------------------------===//

namespace {
/// One reading of an elementwise op between the logits and the softmax.
struct Step {
  /// The operand that brings the scores in.
  Value scores;
  std::optional<double> scale;
  /// The mask and how the scores' loops index it.
  Value mask;
  AffineMap maskMap;
};
} // namespace

/// Readings of an arith op on tensors: s * c, c * s, s / c (c a finite
/// constant splat), s + m, m + s, select(m, s, -inf).
static SmallVector<Step> arithSteps(Operation *op) {
  SmallVector<Step> steps;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type)
    return steps;
  AffineMap id =
      AffineMap::getMultiDimIdentityMap(type.getRank(), op->getContext());
  auto finite = [](Value c) -> std::optional<double> {
    std::optional<APFloat> x = floatConstant(c);
    if (!x || !x->isFinite())
      return std::nullopt;
    return x->convertToDouble();
  };
  if (auto mul = dyn_cast<arith::MulFOp>(op)) {
    if (std::optional<double> c = finite(mul.getRhs()))
      steps.push_back({mul.getLhs(), c, {}, {}});
    if (std::optional<double> c = finite(mul.getLhs()))
      steps.push_back({mul.getRhs(), c, {}, {}});
  } else if (auto div = dyn_cast<arith::DivFOp>(op)) {
    if (std::optional<double> c = finite(div.getRhs()); c && *c != 0.0)
      steps.push_back({div.getLhs(), 1.0 / *c, {}, {}});
  } else if (auto add = dyn_cast<arith::AddFOp>(op)) {
    steps.push_back({add.getLhs(), std::nullopt, add.getRhs(), id});
    steps.push_back({add.getRhs(), std::nullopt, add.getLhs(), id});
  } else if (auto sel = dyn_cast<arith::SelectOp>(op)) {
    if (isa<RankedTensorType>(sel.getCondition().getType()) &&
        isNegInf(floatConstant(sel.getFalseValue())))
      steps.push_back(
          {sel.getTrueValue(), std::nullopt, sel.getCondition(), id});
  }
  return steps;
}

/// Readings of an elementwise linalg.generic whose body yields
/// mask(scale(s)): scale(s) is s * c, c * s, s / c or s; mask(x) is x + m,
/// m + x, select(m, x, -inf) or x. `s` reads the scores operand through the
/// identity; `c` is a finite constant (captured, defined in the body, or an
/// operand that is a constant scalar or splat); `m` reads a mask operand
/// through a broadcast tensor.expand_shape can express. A body that does
/// neither (a copy) or anything else has no reading.
static SmallVector<Step> genericSteps(linalg::GenericOp g) {
  SmallVector<Step> steps;
  if (!g.hasPureTensorSemantics() || g.getNumDpsInits() != 1 ||
      g.getNumLoops() != g.getNumParallelLoops() ||
      !g.getIndexingMapMatchingResult(g->getResult(0)).isIdentity())
    return steps;
  Block &body = g.getRegion().front();
  // The init is only a destination.
  if (!g.getMatchingBlockArgument(g.getDpsInitOperand(0)).use_empty())
    return steps;
  auto inputOf = [&](Value x) -> OpOperand * {
    auto arg = dyn_cast<BlockArgument>(x);
    if (!arg || arg.getOwner() != &body ||
        arg.getArgNumber() >= g.getNumDpsInputs())
      return nullptr;
    OpOperand *in = g.getDpsInputOperand(arg.getArgNumber());
    return isa<RankedTensorType>(in->get().getType()) ||
                   floatConstant(in->get())
               ? in
               : nullptr;
  };
  auto constant = [&](Value x) {
    if (OpOperand *in = inputOf(x))
      return floatConstant(in->get());
    return floatConstant(x);
  };
  auto scoresIn = [&](Value x) -> OpOperand * {
    OpOperand *in = inputOf(x);
    return in && isa<RankedTensorType>(in->get().getType()) &&
                   g.getMatchingIndexingMap(in).isIdentity()
               ? in
               : nullptr;
  };
  auto maskIn = [&](Value x) -> OpOperand * {
    OpOperand *in = inputOf(x);
    auto type = in ? dyn_cast<RankedTensorType>(in->get().getType()) : nullptr;
    return type && succeeded(maskLoops(g.getMatchingIndexingMap(in), type))
               ? in
               : nullptr;
  };
  auto inBody = [&](Value x) -> Operation * {
    Operation *def = x.getDefiningOp();
    return def && def->getBlock() == &body ? def : nullptr;
  };

  // scale(x) on top of `mask`: appends the readings.
  auto addScaled = [&](Value x, OpOperand *mask) {
    auto push = [&](OpOperand *s, std::optional<double> scale) {
      if (!s || s == mask || (!scale && !mask))
        return;
      Step step{s->get(), scale, {}, {}};
      if (mask) {
        step.mask = mask->get();
        step.maskMap = g.getMatchingIndexingMap(mask);
      }
      steps.push_back(step);
    };
    auto finite = [](std::optional<APFloat> c) -> std::optional<double> {
      if (!c || !c->isFinite())
        return std::nullopt;
      return c->convertToDouble();
    };
    push(scoresIn(x), std::nullopt);
    Operation *def = inBody(x);
    if (auto mul = dyn_cast_or_null<arith::MulFOp>(def)) {
      if (std::optional<double> c = finite(constant(mul.getRhs())))
        push(scoresIn(mul.getLhs()), c);
      if (std::optional<double> c = finite(constant(mul.getLhs())))
        push(scoresIn(mul.getRhs()), c);
    } else if (auto div = dyn_cast_or_null<arith::DivFOp>(def)) {
      std::optional<double> c = finite(constant(div.getRhs()));
      if (c && *c != 0.0)
        push(scoresIn(div.getLhs()), 1.0 / *c);
    }
  };

  Value y = cast<linalg::YieldOp>(body.getTerminator()).getOperand(0);
  Operation *def = inBody(y);
  if (auto add = dyn_cast_or_null<arith::AddFOp>(def)) {
    if (OpOperand *m = maskIn(add.getRhs()))
      addScaled(add.getLhs(), m);
    if (OpOperand *m = maskIn(add.getLhs()))
      addScaled(add.getRhs(), m);
  } else if (auto sel = dyn_cast_or_null<arith::SelectOp>(def)) {
    OpOperand *m = maskIn(sel.getCondition());
    if (m && isNegInf(constant(sel.getFalseValue())))
      addScaled(sel.getTrueValue(), m);
  }
  addScaled(y, /*mask=*/nullptr);
  return steps;
}

//===----------------------------------------------------------------------===//
// The chain
//===----------------------------------------------------------------------===//

namespace {
/// What the walk from the softmax down to Q·Kᵀ found.
struct Chain {
  /// Q [.., Sq, D] and K [.., Skv, D] in the logits' frame.
  Value q, k;
  /// Set when K was transposed before its batch dims were collapsed (K is
  /// then in the scores' frame): the collapse's groups.
  std::optional<Reassociation> kCollapse;
  /// When the logits are a batch-collapsed product expanded back.
  tensor::ExpandShapeOp logitsExpand;
  std::optional<double> scale;
  Value mask;
  AffineMap maskMap;
};
} // namespace

/// Whether `l` is Q·Kᵀ: a transpose_b product, a product with a transposed
/// K (maybe batch-collapsed after the transpose: `kCollapse`), or (when
/// `swapOk`) the transpose of K·Qᵀ.
static LogicalResult matchQKt(Value l, Value &q, Value &k,
                              std::optional<Reassociation> &kCollapse,
                              bool swapOk, StringRef &why) {
  if (std::optional<std::pair<Value, bool>> t = transposeOf(l)) {
    if (!swapOk || !t->second)
      return why = "logits transposed other than Sᵀ -> S", failure();
    if (!t->first.hasOneUse())
      return why = "an intermediate has another user", failure();
    LogicalResult swapped =
        matchQKt(t->first, k, q, kCollapse, /*swapOk=*/false, why);
    if (succeeded(swapped) && kCollapse)
      return why = "transposed logits of a batch-collapsed product", failure();
    return swapped;
  }
  FailureOr<Contraction> qk = matchContraction(l, why);
  if (failed(qk))
    return failure();
  q = qk->lhs;
  kCollapse.reset();
  if (qk->transposeB) {
    k = qk->rhs;
    return success();
  }
  Value kt = qk->rhs;
  if (auto collapse = kt.getDefiningOp<tensor::CollapseShapeOp>();
      collapse && transposeOf(collapse.getSrc())) {
    kCollapse = collapse.getReassociationIndices();
    kt = collapse.getSrc();
    if (!isBatchOnly(*kCollapse, collapse.getSrcType().getRank()))
      return why = "K reshaped beyond its batch dimensions", failure();
  }
  std::optional<std::pair<Value, bool>> transposed = transposeOf(kt);
  if (!transposed || !transposed->second)
    return why = "K is not transposed in its last two dimensions", failure();
  k = transposed->first;
  return success();
}

/// Matches the scores `v` down to Q·Kᵀ through at most one mask above at
/// most one scale (`maskOk` / `scaleOk`: which may still come). Every value
/// on the way has one user.
static LogicalResult matchScores(Value v, bool maskOk, bool scaleOk,
                                 Chain &chain, StringRef &why) {
  if (!v.hasOneUse())
    return why = "an intermediate has another user", failure();
  Value l = v;
  tensor::ExpandShapeOp expand = v.getDefiningOp<tensor::ExpandShapeOp>();
  if (expand) {
    l = expand.getSrc();
    if (!isBatchOnly(expand.getReassociationIndices(),
                     expand.getResultType().getRank()))
      return why = "logits reshaped beyond their batch dimensions", failure();
    if (!l.hasOneUse())
      return why = "an intermediate has another user", failure();
  }
  if (succeeded(matchQKt(l, chain.q, chain.k, chain.kCollapse,
                         /*swapOk=*/true, why))) {
    // K collapsed after its transpose must be collapsed like the logits.
    if (chain.kCollapse &&
        (!expand || *chain.kCollapse != expand.getReassociationIndices()))
      return why = "K's batch collapse is not the logits'", failure();
    // K then stands in the scores' frame as it is: its batch sizes must be
    // the scores' (known equal: static on both sides).
    if (chain.kCollapse) {
      SmallVector<OpFoldResult> frame = expand.getMixedOutputShape();
      ArrayRef<int64_t> kShape =
          cast<RankedTensorType>(chain.k.getType()).getShape();
      for (int64_t d = 0; d + 2 < int64_t(kShape.size()); ++d) {
        std::optional<int64_t> f = getConstantIntValue(frame[d]);
        if (!f || ShapedType::isDynamic(kShape[d]) || *f != kShape[d])
          return why = "K's batch sizes are not the scores'", failure();
      }
    }
    chain.logitsExpand = expand;
    return success();
  }
  Operation *op = v.getDefiningOp();
  SmallVector<Step> steps;
  if (auto g = dyn_cast_or_null<linalg::GenericOp>(op))
    steps = genericSteps(g);
  else if (isa_and_nonnull<arith::MulFOp, arith::DivFOp, arith::AddFOp,
                           arith::SelectOp>(op))
    steps = arithSteps(op);
  for (const Step &step : steps) {
    // A mask under a scale would be scaled too.
    if ((step.mask && !maskOk) || (step.scale && !scaleOk))
      continue;
    Chain below;
    if (failed(matchScores(step.scores, maskOk && !step.mask && !step.scale,
                           scaleOk && !step.scale, below, why)))
      continue;
    chain = below;
    if (step.scale)
      chain.scale = step.scale;
    if (step.mask) {
      chain.mask = step.mask;
      chain.maskMap = step.maskMap;
    }
    return success();
  }
  if (!steps.empty())
    return failure();
  return why = op ? "logits are not Q·Kᵀ behind a constant scale and a mask"
                  : "logits are not computed",
         failure();
}

namespace {
/// How one operand reaches the attention's 4-D frame [B, H, S, D].
struct ToFrame {
  Value value;
  /// Set when the operand's batch dims are the scores' batch dims collapsed
  /// (the groups are over the scores' dims).
  std::optional<Reassociation> batchGroups;
};

/// The rewrite, from a matched chain.
class AttentionBuilder {
public:
  AttentionBuilder(int64_t scoresRank, ArrayRef<int64_t> batchShape)
      : lead(4 - scoresRank), batchShape(batchShape) {}

  /// The groups that expand `x` (rank r) to 4-D.
  Reassociation groups(const ToFrame &x) const {
    Reassociation g;
    if (x.batchGroups) {
      for (const ReassociationIndices &grp : *x.batchGroups) {
        g.emplace_back();
        for (int64_t d : grp)
          g.back().push_back(d + lead);
      }
    } else {
      int64_t r = cast<RankedTensorType>(x.value.getType()).getRank();
      for (int64_t d = 0; d < r; ++d)
        g.push_back({d + lead});
    }
    for (int64_t d = lead - 1; d >= 0; --d)
      g.front().insert(g.front().begin(), d);
    return g;
  }

  /// The static 4-D shape of `x`, or failure when it cannot be reshaped
  /// (a collapsed batch size that is not the product of the scores').
  FailureOr<SmallVector<int64_t>> shape(const ToFrame &x) const {
    ArrayRef<int64_t> s = cast<RankedTensorType>(x.value.getType()).getShape();
    SmallVector<int64_t> out(lead, 1);
    if (!x.batchGroups) {
      llvm::append_range(out, s);
      return out;
    }
    for (auto [i, grp] : llvm::enumerate(*x.batchGroups)) {
      if (i + 2 >= x.batchGroups->size())
        break;
      bool dynamic = false, overflow = false;
      int64_t product = 1;
      for (int64_t d : grp) {
        dynamic |= ShapedType::isDynamic(batchShape[d]);
        if (!dynamic)
          overflow |= llvm::MulOverflow(product, batchShape[d], product);
        out.push_back(batchShape[d]);
      }
      if (overflow || (!dynamic && sizesConflict(product, s[i])))
        return failure();
    }
    out.push_back(s[s.size() - 2]);
    out.push_back(s.back());
    return out;
  }

  /// `x` in the 4-D frame: itself, or a tensor.expand_shape of it.
  Value expand(OpBuilder &b, Location loc, const ToFrame &x,
               ArrayRef<OpFoldResult> batchSizes) const {
    auto type = cast<RankedTensorType>(x.value.getType());
    if (lead == 0 && !x.batchGroups)
      return x.value;
    SmallVector<OpFoldResult> sizes(lead, b.getIndexAttr(1));
    if (x.batchGroups) {
      llvm::append_range(sizes, batchSizes);
      sizes.push_back(
          tensor::getMixedSize(b, loc, x.value, type.getRank() - 2));
      sizes.push_back(
          tensor::getMixedSize(b, loc, x.value, type.getRank() - 1));
    } else {
      llvm::append_range(sizes, tensor::getMixedSizes(b, loc, x.value));
    }
    return tensor::ExpandShapeOp::create(b, loc, frameType(sizes, type),
                                         x.value, groups(x), sizes);
  }

  /// The mask read through `map` as a 4-D tensor that broadcasts to
  /// [B, H, Sq, Skv]: unit dims read at 0 collapsed away, then unit dims
  /// inserted for the loops it does not run along.
  Value expandMask(OpBuilder &b, Location loc, Value mask,
                   AffineMap map) const {
    auto type = cast<RankedTensorType>(mask.getType());
    SmallVector<int64_t> loops = *maskLoops(map, type);
    if (lead == 0 && map.isIdentity())
      return mask;
    if (llvm::is_contained(loops, -1)) {
      Reassociation drop;
      ReassociationIndices pending;
      for (auto [i, loop] : llvm::enumerate(loops)) {
        pending.push_back(i);
        if (loop >= 0) {
          drop.push_back(pending);
          pending.clear();
        }
      }
      if (!drop.empty())
        llvm::append_range(drop.back(), pending);
      mask = tensor::CollapseShapeOp::create(b, loc, mask, drop);
      llvm::erase(loops, -1);
    }
    Reassociation g;
    SmallVector<OpFoldResult> sizes(4, b.getIndexAttr(1));
    int64_t next = 0;
    for (auto [i, loop] : llvm::enumerate(loops)) {
      g.emplace_back();
      for (; next <= loop + lead; ++next)
        g.back().push_back(next);
      sizes[loop + lead] = tensor::getMixedSize(b, loc, mask, i);
    }
    for (; !g.empty() && next < 4; ++next)
      g.back().push_back(next);
    return tensor::ExpandShapeOp::create(
        b, loc, frameType(sizes, cast<RankedTensorType>(mask.getType())), mask,
        g, sizes);
  }

  /// The static 4-D shape expandMask gives.
  SmallVector<int64_t> maskShape(Value mask, AffineMap map) const {
    auto type = cast<RankedTensorType>(mask.getType());
    SmallVector<int64_t> out(4, 1);
    for (auto [i, loop] : llvm::enumerate(*maskLoops(map, type)))
      if (loop >= 0)
        out[loop + lead] = type.getDimSize(i);
    return out;
  }

private:
  static RankedTensorType frameType(ArrayRef<OpFoldResult> sizes,
                                    RankedTensorType like) {
    SmallVector<int64_t> shape;
    for (OpFoldResult s : sizes)
      shape.push_back(getConstantIntValue(s).value_or(ShapedType::kDynamic));
    return RankedTensorType::get(shape, like.getElementType());
  }

  int64_t lead;
  SmallVector<int64_t> batchShape;
};
} // namespace

/// Fuses the chain that ends in `root`, the P·V product.
static LogicalResult fuseChain(Operation *root, PatternRewriter &rewriter) {
  // A linalg matmul on buffers has no result; it is not a chain on tensors.
  if (root->getNumResults() != 1)
    return rewriter.notifyMatchFailure(root, "P·V has no tensor result");
  StringRef why;
  FailureOr<Contraction> pv = matchContraction(root->getResult(0), why);
  if (failed(pv))
    return rewriter.notifyMatchFailure(root, why);
  if (pv->transposeB)
    return rewriter.notifyMatchFailure(root, "P·V reads V transposed");
  // P, maybe batch-collapsed for a batch_matmul.
  Value p = pv->lhs;
  std::optional<Reassociation> pvGroups;
  if (auto collapse = p.getDefiningOp<tensor::CollapseShapeOp>()) {
    if (!p.hasOneUse() || !isBatchOnly(collapse.getReassociationIndices(),
                                       collapse.getSrcType().getRank()))
      return rewriter.notifyMatchFailure(root, "P reshaped or reused");
    pvGroups = collapse.getReassociationIndices();
    p = collapse.getSrc();
  }
  if (!p.hasOneUse())
    return rewriter.notifyMatchFailure(root, "P has another user");
  Value s;
  int64_t dim;
  if (auto sm = p.getDefiningOp<SoftmaxOp>()) {
    s = sm.getInput();
    dim = sm.getDimension();
  } else if (auto sm = p.getDefiningOp<linalg::SoftmaxOp>();
             sm && sm.hasPureTensorSemantics()) {
    s = sm.getInput();
    dim = sm.getDimension();
  } else {
    return rewriter.notifyMatchFailure(root, "P is not a softmax");
  }
  auto sType = cast<RankedTensorType>(s.getType());
  int64_t rank = sType.getRank();
  if (rank < 2 || rank > 4)
    return rewriter.notifyMatchFailure(root, "scores not of rank 2, 3 or 4");
  if (dim != rank - 1)
    return rewriter.notifyMatchFailure(root, "softmax not over the keys");
  Chain chain;
  if (failed(matchScores(s, /*maskOk=*/true, /*scaleOk=*/true, chain, why)))
    return rewriter.notifyMatchFailure(root, why);
  // accel.attention's verifier: the kernels fold log2(e) into the scale.
  if (chain.scale && std::fabs(*chain.scale) * 1.4426950408889634 >
                         double(std::numeric_limits<float>::max()))
    return rewriter.notifyMatchFailure(root,
                                       "the scale times log2(e) overflows f32");

  Value v = pv->rhs, init = pv->init;
  Type elt = getElementTypeOrSelf(chain.q.getType());
  if (getElementTypeOrSelf(chain.k.getType()) != elt ||
      getElementTypeOrSelf(v.getType()) != elt ||
      !isa<Float32Type, Float16Type, BFloat16Type, Float8E4M3FNType,
           Float8E5M2Type>(elt) ||
      !isa<Float32Type, Float16Type, BFloat16Type>(
          getElementTypeOrSelf(init.getType())))
    return rewriter.notifyMatchFailure(root, "element types");
  if (chain.mask &&
      !isa<Float32Type, Float16Type, BFloat16Type>(
          getElementTypeOrSelf(chain.mask.getType())) &&
      !getElementTypeOrSelf(chain.mask.getType()).isInteger(1))
    return rewriter.notifyMatchFailure(root, "mask element type");

  // The 4-D frame: the scores' batch dims, from the logits' frame.
  ToFrame q{chain.q, std::nullopt}, k{chain.k, std::nullopt}, vf{v, pvGroups},
      o{init, pvGroups};
  ArrayRef<int64_t> batchShape =
      (chain.logitsExpand ? chain.logitsExpand.getResultType()
                          : cast<RankedTensorType>(chain.q.getType()))
          .getShape()
          .take_front(rank - 2);
  if (chain.logitsExpand) {
    q.batchGroups = chain.logitsExpand.getReassociationIndices();
    if (!chain.kCollapse)
      k.batchGroups = q.batchGroups;
  } else if (cast<RankedTensorType>(chain.q.getType()).getRank() != rank) {
    return rewriter.notifyMatchFailure(root, "logits of another rank");
  }
  AttentionBuilder frame(rank, batchShape);
  FailureOr<SmallVector<int64_t>> qs = frame.shape(q), ks = frame.shape(k),
                                  vs = frame.shape(vf), os = frame.shape(o);
  if (failed(qs) || failed(ks) || failed(vs) || failed(os))
    return rewriter.notifyMatchFailure(root, "shapes disagree");
  // What accel.attention's verifier checks, on the 4-D shapes.
  ArrayRef<int64_t> Q = *qs, K = *ks, V = *vs, O = *os;
  if (anySizesConflict({Q[0], K[0], V[0], O[0]}) ||
      anySizesConflict({Q[1], K[1], V[1], O[1]}) ||
      anySizesConflict({Q[2], O[2]}) || anySizesConflict({K[2], V[2]}) ||
      anySizesConflict({Q[3], K[3]}) || anySizesConflict({V[3], O[3]}))
    return rewriter.notifyMatchFailure(root, "shapes disagree");
  if (chain.mask) {
    SmallVector<int64_t> m = frame.maskShape(chain.mask, chain.maskMap);
    int64_t full[4] = {Q[0], Q[1], Q[2], K[2]};
    for (int64_t i = 0; i < 4; ++i)
      if (m[i] != 1 && sizesConflict(m[i], full[i]))
        return rewriter.notifyMatchFailure(root, "mask shape disagrees");
  }

  Location loc = root->getLoc();
  SmallVector<OpFoldResult> batchSizes;
  if (chain.logitsExpand) {
    SmallVector<OpFoldResult> out = chain.logitsExpand.getMixedOutputShape();
    batchSizes.assign(out.begin(), out.begin() + rank - 2);
  } else {
    for (int64_t i = 0; i < rank - 2; ++i)
      batchSizes.push_back(tensor::getMixedSize(rewriter, loc, chain.q, i));
  }
  Value q4 = frame.expand(rewriter, loc, q, batchSizes);
  Value k4 = frame.expand(rewriter, loc, k, batchSizes);
  Value v4 = frame.expand(rewriter, loc, vf, batchSizes);
  Value o4 = frame.expand(rewriter, loc, o, batchSizes);
  Value mask4 = chain.mask
                    ? frame.expandMask(rewriter, loc, chain.mask, chain.maskMap)
                    : Value();
  auto fused = AttentionOp::create(
      rewriter, loc, o4.getType(), q4, k4, v4, mask4,
      /*kv_lengths=*/Value(), /*q_lengths=*/Value(), /*diagonal=*/Value(), o4,
      rewriter.getF32FloatAttr(static_cast<float>(chain.scale.value_or(1.0))),
      /*causal=*/nullptr, /*window=*/nullptr);
  Value result = fused.getResult();
  if (o4 != init)
    result = tensor::CollapseShapeOp::create(rewriter, loc, init.getType(),
                                             result, frame.groups(o));
  rewriter.replaceOp(root, result);
  return success();
}

//===----------------------------------------------------------------------===//
// GQA's repeated key/value heads
//===----------------------------------------------------------------------===//

/// Whether `g` only copies its one input (its body yields the input).
static bool yieldsInput(linalg::GenericOp g) {
  if (!g.hasPureTensorSemantics() || g.getNumDpsInputs() != 1 ||
      g.getNumDpsInits() != 1 ||
      g.getNumLoops() != g.getNumParallelLoops())
    return false;
  auto yield = cast<linalg::YieldOp>(g.getBody()->getTerminator());
  return yield.getNumOperands() == 1 &&
         yield.getOperand(0) == g.getBody()->getArgument(0) &&
         g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity();
}

/// When `v` [B, H, S, D] repeats each head of a [B, H / r, S, D] tensor r
/// times in a row (GQA's repeat_kv, as frontends emit it), that tensor and
/// r. Two spellings:
///  - a copy through (b, h, s, d) -> (b, h floordiv r, s, d);
///  - tensor.collapse_shape [[0], [1, 2], [3], [4]] of a broadcast
///    [B, H / r, r, S, D] (linalg.broadcast, or a copying generic that
///    reads (b, h, s, d) or the unit dimension at 0) of [B, H / r, S, D]
///    or of [B, H / r, 1, S, D].
static std::optional<std::pair<Value, int64_t>> headRepeatOf(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || type.getRank() != 4 || !type.hasStaticShape())
    return std::nullopt;
  auto staticType = [](Value x, int64_t rank) {
    auto t = dyn_cast<RankedTensorType>(x.getType());
    return t && t.getRank() == rank && t.hasStaticShape() ? t
                                                          : RankedTensorType();
  };
  auto dimIs = [](AffineExpr e, unsigned pos) {
    auto d = dyn_cast<AffineDimExpr>(e);
    return d && d.getPosition() == pos;
  };
  if (auto g = v.getDefiningOp<linalg::GenericOp>()) {
    if (!yieldsInput(g))
      return std::nullopt;
    Value in = g.getDpsInputs()[0];
    RankedTensorType it = staticType(in, 4);
    AffineMap map = g.getMatchingIndexingMap(g.getDpsInputOperand(0));
    if (!it || map.getNumResults() != 4 || !dimIs(map.getResult(0), 0) ||
        !dimIs(map.getResult(2), 2) || !dimIs(map.getResult(3), 3))
      return std::nullopt;
    auto div = dyn_cast<AffineBinaryOpExpr>(map.getResult(1));
    if (!div || div.getKind() != AffineExprKind::FloorDiv ||
        !dimIs(div.getLHS(), 1))
      return std::nullopt;
    auto r = dyn_cast<AffineConstantExpr>(div.getRHS());
    if (!r || r.getValue() < 1 || it.getDimSize(1) * r.getValue() !=
                                      type.getDimSize(1) ||
        it.getDimSize(0) != type.getDimSize(0) ||
        it.getShape().drop_front(2) != type.getShape().drop_front(2))
      return std::nullopt;
    return std::make_pair(in, int64_t(r.getValue()));
  }
  auto collapse = v.getDefiningOp<tensor::CollapseShapeOp>();
  if (!collapse || collapse.getReassociationIndices() !=
                       SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}})
    return std::nullopt;
  Value wide = collapse.getSrc();
  RankedTensorType wt = staticType(wide, 5);
  if (!wt)
    return std::nullopt;
  Value in;
  if (auto bc = wide.getDefiningOp<linalg::BroadcastOp>()) {
    if (!bc.hasPureTensorSemantics() ||
        bc.getDimensions() != ArrayRef<int64_t>{2})
      return std::nullopt;
    in = bc.getInput();
  } else if (auto g = wide.getDefiningOp<linalg::GenericOp>()) {
    if (!yieldsInput(g))
      return std::nullopt;
    in = g.getDpsInputs()[0];
    AffineMap map = g.getMatchingIndexingMap(g.getDpsInputOperand(0));
    SmallVector<AffineExpr> r(map.getResults());
    auto zero = r.size() == 5 ? dyn_cast<AffineConstantExpr>(r[2])
                              : AffineConstantExpr();
    bool ok = (r.size() == 4 && dimIs(r[0], 0) && dimIs(r[1], 1) &&
               dimIs(r[2], 3) && dimIs(r[3], 4)) ||
              (r.size() == 5 && dimIs(r[0], 0) && dimIs(r[1], 1) && zero &&
               zero.getValue() == 0 && dimIs(r[3], 3) && dimIs(r[4], 4));
    if (!ok)
      return std::nullopt;
  } else {
    return std::nullopt;
  }
  // [B, H / r, 1, S, D] is read as [B, H / r, S, D].
  if (RankedTensorType t5 = staticType(in, 5)) {
    if (t5.getDimSize(2) != 1)
      return std::nullopt;
    if (auto expand = in.getDefiningOp<tensor::ExpandShapeOp>();
        expand && expand.getReassociationIndices() ==
                      SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}})
      in = expand.getSrc();
    else
      return std::nullopt;
  }
  RankedTensorType it = staticType(in, 4);
  if (!it || it.getDimSize(0) != wt.getDimSize(0) ||
      it.getDimSize(1) != wt.getDimSize(1) ||
      it.getShape().drop_front(2) != wt.getShape().drop_front(3))
    return std::nullopt;
  return std::make_pair(in, wt.getDimSize(2));
}

namespace {
/// accel.attention reading K and V through the same repeat of their heads
/// reads the unrepeated K and V instead: grouped-query attention maps
/// query head h to key/value head h / (Hq / Hkv) itself, so the repeated
/// copies are never materialised.
struct FoldHeadRepeat : public OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(op, "not on tensors");
    // A module split over a device grid keeps the repeated heads: accel-
    // shard splits K's and V's heads as the queries' (after the fold they
    // would have to divide Hkv instead).
    if (auto module = op->getParentOfType<ModuleOp>();
        module && !module.getOps<shard::GridOp>().empty())
      return rewriter.notifyMatchFailure(op, "the module is sharded");
    std::optional<std::pair<Value, int64_t>> k = headRepeatOf(op.getKey()),
                                             v = headRepeatOf(op.getValue());
    if (!k || !v || k->second != v->second || k->second == 1)
      return rewriter.notifyMatchFailure(
          op, "K and V are not the same repeat of their heads");
    rewriter.modifyOpInPlace(op, [&] {
      op.getKeyMutable().assign(k->first);
      op.getValueMutable().assign(v->first);
    });
    return success();
  }
};

/// Fuses the chain ending in an `OpTy` P·V product.
template <typename OpTy>
struct FuseAttentionChain : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    return fuseChain(op, rewriter);
  }
};

struct AccelFuseAttentionPass
    : public accel::impl::AccelFuseAttentionPassBase<AccelFuseAttentionPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(accel::applyOrReport(getOperation(),
                                    populateFuseAttentionPatterns, "fusion",
                                    getArgument(), maxIterations)))
      signalPassFailure();
  }
};
} // namespace

void accel::populateFuseAttentionPatterns(RewritePatternSet &patterns) {
  patterns
      .add<FuseAttentionChain<MatmulOp>, FuseAttentionChain<linalg::MatmulOp>,
           FuseAttentionChain<linalg::BatchMatmulOp>,
           FuseAttentionChain<linalg::GenericOp>, FoldHeadRepeat>(
          patterns.getContext());
  // The fused op's mask, when it is a causal band in disguise.
  populateCausalMaskPatterns(patterns);
}
