//===- Raise.cpp - linalg and tosa matmuls to accel.matmul ----------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel-raise: linalg.matmul, linalg.batch_matmul and tosa.matmul become
// accel.matmul, and linalg.softmax accel.softmax, when the accel op expresses
// the same computation.
//
//===----------------------------------------------------------------------===//

#include "ApplyOrReport.h"
#include "MatchMatmul.h"
#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "accel/Transforms/Passes.h"
#include "accel/Transforms/Transforms.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELRAISEPASS
#include "accel/Transforms/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;
using namespace mlir::accel;

/// Whether `v` is a constant whose every element is zero.
static bool isZeroConstant(Value v) {
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr))) {
    if (auto c = v.getDefiningOp<tosa::ConstOp>())
      attr = c.getValues();
    else
      return false;
  }
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (!dense.isSplat())
      return false;
    attr = dense.getSplatValue<Attribute>();
  }
  if (auto f = dyn_cast<FloatAttr>(attr))
    return f.getValue().isZero();
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return i.getValue().isZero();
  return false;
}

/// Whether `maps` are (b.., m, k), (b.., k, n) or (b.., n, k), (b.., m, n)
/// over loops (b.., m, n, k); sets `transposeB` for the second form.
static bool isMatmulLayout(ArrayRef<AffineMap> maps, unsigned numLoops,
                           bool &transposeB) {
  if (maps.size() != 3 || numLoops < 3)
    return false;
  MLIRContext *ctx = maps[0].getContext();
  unsigned nb = numLoops - 3;
  auto mapOf = [&](unsigned x, unsigned y) {
    SmallVector<AffineExpr> r;
    for (unsigned i = 0; i < nb; ++i)
      r.push_back(getAffineDimExpr(i, ctx));
    r.push_back(getAffineDimExpr(x, ctx));
    r.push_back(getAffineDimExpr(y, ctx));
    return AffineMap::get(numLoops, 0, r, ctx);
  };
  unsigned m = nb, n = nb + 1, k = nb + 2;
  if (maps[0] != mapOf(m, k) || maps[2] != mapOf(m, n))
    return false;
  transposeB = maps[1] == mapOf(n, k);
  return transposeB || maps[1] == mapOf(k, n);
}

/// Whether `op`'s body is `out + ext(a) * ext(b)` in floats (each ext an
/// optional arith.extf), the scalar form of linalg.matmul's semantics.
static bool isFloatMulAddBody(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  if (body.getNumArguments() != 3)
    return false;
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (yield.getNumOperands() != 1)
    return false;
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value acc = body.getArgument(2), product;
  if (add.getLhs() == acc)
    product = add.getRhs();
  else if (add.getRhs() == acc)
    product = add.getLhs();
  auto mul = product ? product.getDefiningOp<arith::MulFOp>() : nullptr;
  if (!mul)
    return false;
  unsigned exts = 0;
  auto isArg = [&](Value v, unsigned i) {
    if (auto ext = v.getDefiningOp<arith::ExtFOp>()) {
      v = ext.getIn();
      ++exts;
    }
    return v == body.getArgument(i);
  };
  bool ab = isArg(mul.getLhs(), 0) && isArg(mul.getRhs(), 1);
  if (!ab) {
    exts = 0;
    ab = isArg(mul.getLhs(), 1) && isArg(mul.getRhs(), 0);
  }
  // Nothing else in the body: yield, addf, mulf and the extensions.
  return ab && body.getOperations().size() == 3 + exts;
}

FailureOr<LinalgMatmulForm> accel::matchLinalgMatmul(linalg::LinalgOp op,
                                                     StringRef &why) {
  if (!op.hasPureTensorSemantics())
    return why = "needs tensors", failure();
  if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation())) {
    if (generic.getNumDpsInputs() != 2 || generic.getNumDpsInits() != 1 ||
        !isFloatMulAddBody(generic))
      return why = "generic body is not a float multiply-add", failure();
    SmallVector<utils::IteratorType> iters = generic.getIteratorTypesArray();
    for (auto [i, it] : llvm::enumerate(iters))
      if ((it == utils::IteratorType::reduction) != (i + 1 == iters.size()))
        return why = "generic reduces over a loop other than k", failure();
  } else if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op)) {
    return why = "not a matmul", failure();
  }
  auto castFn = op->getAttrOfType<linalg::TypeFnAttr>("cast");
  if (castFn && castFn.getValue() != linalg::TypeFn::cast_signed)
    return why = "unsigned casts", failure();
  LinalgMatmulForm form;
  if (!isMatmulLayout(op.getIndexingMapsArray(), op.getNumLoops(),
                      form.transposeB))
    return why = "layout accel.matmul lacks", failure();
  form.lhs = op.getDpsInputs()[0];
  form.rhs = op.getDpsInputs()[1];
  form.init = op.getDpsInits()[0];
  if (!MatmulOp::isSupportedElementTypes(
          getElementTypeOrSelf(form.lhs.getType()),
          getElementTypeOrSelf(form.rhs.getType()),
          getElementTypeOrSelf(form.init.getType()), /*scaled=*/false))
    return why = "element types", failure();
  // linalg accumulates into its init; a zero fill means C = A·B.
  if (auto fill = form.init.getDefiningOp<linalg::FillOp>()) {
    if (isZeroConstant(fill.getInputs()[0])) {
      form.init = fill.getOutputs()[0];
      form.accumulate = false;
    }
  }
  return form;
}

/// Whether `perm` swaps the last two dimensions and keeps the others.
static bool swapsLastTwo(ArrayRef<int64_t> perm) {
  size_t r = perm.size();
  if (r < 2 || perm[r - 1] != static_cast<int64_t>(r - 2) ||
      perm[r - 2] != static_cast<int64_t>(r - 1))
    return false;
  for (size_t i = 0; i + 2 < r; ++i)
    if (perm[i] != static_cast<int64_t>(i))
      return false;
  return true;
}

/// linalg.matmul / linalg.batch_matmul on tensors -> accel.matmul.
template <typename LinalgOpTy>
struct RaiseLinalgMatmul : public OpRewritePattern<LinalgOpTy> {
  using OpRewritePattern<LinalgOpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(LinalgOpTy op,
                                PatternRewriter &rewriter) const override {
    StringRef why;
    FailureOr<LinalgMatmulForm> form =
        matchLinalgMatmul(cast<linalg::LinalgOp>(op.getOperation()), why);
    if (failed(form))
      return rewriter.notifyMatchFailure(op, why);
    // B as a linalg.transpose of its last two dimensions (what torch-mlir
    // makes of nn.Linear: matmul(x, t(W)) with W [N, K]): the op reads W
    // itself, transpose_b toggled, so every target reads the weight in its
    // own layout instead of a transposed copy (the transpose stays for any
    // other user).
    Value rhs = form->rhs;
    bool transposeB = form->transposeB;
    if (auto t = rhs.getDefiningOp<linalg::TransposeOp>();
        t && swapsLastTwo(t.getPermutation())) {
      rhs = t.getInput();
      transposeB = !transposeB;
    }
    auto raised = MatmulOp::create(rewriter, op.getLoc(), form->init.getType(),
                                   form->lhs, rhs,
                                   /*lhs_scale=*/Value(), /*rhs_scale=*/Value(),
                                   form->init, transposeB, form->accumulate);
    rewriter.replaceOp(op, raised.getResult());
    return success();
  }
};

/// tosa.matmul with zero zero-points -> accel.matmul into a tensor.empty.
struct RaiseTosaMatmul : public OpRewritePattern<tosa::MatMulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tosa::MatMulOp op,
                                PatternRewriter &rewriter) const override {
    if (!isZeroConstant(op.getAZp()) || !isZeroConstant(op.getBZp()))
      return rewriter.notifyMatchFailure(op, "non-zero zero points");
    auto outType = dyn_cast<RankedTensorType>(op.getType());
    auto aType = dyn_cast<RankedTensorType>(op.getA().getType());
    auto bType = dyn_cast<RankedTensorType>(op.getB().getType());
    if (!outType || !aType || !bType)
      return rewriter.notifyMatchFailure(op, "unranked");
    if (!MatmulOp::isSupportedElementTypes(aType.getElementType(),
                                           bType.getElementType(),
                                           outType.getElementType(),
                                           /*scaled=*/false))
      return rewriter.notifyMatchFailure(op, "element types");
    Location loc = op.getLoc();
    // [N, H, W]: N and H from A, W from B.
    SmallVector<OpFoldResult> sizes = {
        tensor::getMixedSize(rewriter, loc, op.getA(), 0),
        tensor::getMixedSize(rewriter, loc, op.getA(), 1),
        tensor::getMixedSize(rewriter, loc, op.getB(), 2)};
    Value init = tensor::EmptyOp::create(rewriter, loc, sizes,
                                         outType.getElementType());
    if (init.getType() != outType)
      init = tensor::CastOp::create(rewriter, loc, outType, init);
    auto raised = MatmulOp::create(rewriter, loc, outType, op.getA(),
                                   op.getB(), Value(), Value(), init,
                                   /*transpose_b=*/false,
                                   /*accumulate=*/false);
    rewriter.replaceOp(op, raised.getResult());
    return success();
  }
};

/// Whether accel.softmax takes tensors of `type` (Accel_FloatTensor).
static bool isSoftmaxElementType(Type type) {
  return isa<Float32Type, Float16Type, BFloat16Type, Float8E4M3FNType,
             Float8E5M2Type>(type);
}

/// linalg.softmax on tensors -> accel.softmax over the same dimension. Both
/// subtract the maximum before exponentiating; accel.softmax also defines a
/// row of all -inf (zeros, where linalg's decomposition computes 0/0), the
/// convention accel-fuse-attention and the fp64 oracle already give
/// linalg.softmax.
struct RaiseLinalgSoftmax : public OpRewritePattern<linalg::SoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::SoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(op, "needs tensors");
    auto inType = dyn_cast<RankedTensorType>(op.getInput().getType());
    auto outType = dyn_cast<RankedTensorType>(op.getOutput().getType());
    if (!inType || !outType)
      return rewriter.notifyMatchFailure(op, "unranked");
    if (!isSoftmaxElementType(inType.getElementType()) ||
        !isSoftmaxElementType(outType.getElementType()))
      return rewriter.notifyMatchFailure(op, "element types");
    auto raised =
        SoftmaxOp::create(rewriter, op.getLoc(), outType, op.getInput(),
                          op.getOutput(), op.getDimension());
    rewriter.replaceOp(op, raised.getResult());
    return success();
  }
};

namespace {
struct AccelRaisePass
    : public accel::impl::AccelRaisePassBase<AccelRaisePass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(accel::applyOrReport(getOperation(),
                                    populateRaiseToAccelPatterns, "raising",
                                    getArgument(), maxIterations)))
      signalPassFailure();
  }
};
} // namespace

void accel::populateRaiseToAccelPatterns(RewritePatternSet &patterns) {
  patterns.add<RaiseLinalgMatmul<linalg::MatmulOp>,
               RaiseLinalgMatmul<linalg::BatchMatmulOp>, RaiseTosaMatmul,
               RaiseLinalgSoftmax>(patterns.getContext());
}
