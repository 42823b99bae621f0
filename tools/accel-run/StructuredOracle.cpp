//===- StructuredOracle.cpp - the fp64 oracle for linalg and reshapes -----===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "StructuredOracle.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include <cmath>

using namespace mlir;
using namespace mlir::accel;

bool accel_run::isMulAddGeneric(Operation &op) {
  auto g = dyn_cast<linalg::GenericOp>(op);
  if (!g || g.getNumDpsInputs() != 2 || g.getNumDpsInits() != 1)
    return false;
  Block &body = g.getRegion().front();
  auto add = body.getTerminator()->getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value acc = body.getArgument(2);
  Value product = add.getLhs() == acc   ? add.getRhs()
                  : add.getRhs() == acc ? add.getLhs()
                                        : Value();
  auto mul = product ? product.getDefiningOp<arith::MulFOp>() : nullptr;
  if (!mul)
    return false;
  unsigned ops = 3; // yield, addf, mulf
  auto arg = [&](Value v) -> int64_t {
    if (auto ext = v.getDefiningOp<arith::ExtFOp>()) {
      ++ops;
      v = ext.getIn();
    }
    auto a = dyn_cast<BlockArgument>(v);
    return a && a.getOwner() == &body ? int64_t(a.getArgNumber()) : -1;
  };
  int64_t x = arg(mul.getLhs()), y = arg(mul.getRhs());
  return ((x == 0 && y == 1) || (x == 1 && y == 0)) &&
         body.getOperations().size() == ops;
}

bool accel_run::isStructured(Operation &op) {
  return isa<linalg::TransposeOp, linalg::SoftmaxOp, linalg::GenericOp,
             tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op);
}

namespace {
/// A scalar in a generic's body: its exact value and a bound on how far the
/// kernel's value may be from it.
struct Scalar {
  double value = 0, err = 0;
};
} // namespace

/// `r` as the kernel holds it in `type`: past the type's range it is,
/// correctly, ±inf (and then exact).
static Scalar rounded(double r, double err, Type type) {
  if (std::isfinite(r) && std::isinf(ref::roundTo(r, type)))
    return {ref::roundTo(r, type), 0.0};
  if (!std::isfinite(r))
    return {r, 0.0};
  return {r, err + ref::unitRoundoff(type) * std::fabs(r)};
}

/// One body op on scalars; failure for an op the oracle does not model.
static FailureOr<Scalar> evaluateScalar(Operation &op, ArrayRef<Scalar> in) {
  Type type = op.getResult(0).getType();
  if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
    if (auto f = dyn_cast<FloatAttr>(cst.getValue()))
      return Scalar{f.getValueAsDouble(), 0.0};
    if (auto i = dyn_cast<IntegerAttr>(cst.getValue()))
      return Scalar{i.getType().isInteger(1)
                        ? double(i.getValue().getZExtValue())
                        : double(i.getValue().getSExtValue()),
                    0.0};
    return failure();
  }
  if (isa<arith::MulFOp>(op))
    return rounded(in[0].value * in[1].value,
                   std::fabs(in[0].value) * in[1].err +
                       std::fabs(in[1].value) * in[0].err +
                       in[0].err * in[1].err,
                   type);
  if (isa<arith::DivFOp>(op)) {
    double r = in[0].value / in[1].value;
    double denom = std::fabs(in[1].value) - in[1].err;
    double err = in[0].err == 0 && in[1].err == 0 ? 0.0
                 : denom > 0 ? (in[0].err + std::fabs(r) * in[1].err) / denom
                             : std::numeric_limits<double>::infinity();
    return rounded(r, err, type);
  }
  if (isa<arith::AddFOp>(op))
    return rounded(in[0].value + in[1].value, in[0].err + in[1].err, type);
  if (isa<arith::SubFOp>(op))
    return rounded(in[0].value - in[1].value, in[0].err + in[1].err, type);
  if (isa<arith::NegFOp>(op))
    return Scalar{-in[0].value, in[0].err};
  if (isa<arith::MaximumFOp, arith::MinimumFOp>(op)) {
    double a = in[0].value, b = in[1].value;
    if (std::isnan(a) || std::isnan(b))
      return Scalar{std::nan(""), 0.0};
    bool max = isa<arith::MaximumFOp>(op);
    return Scalar{max ? std::max(a, b) : std::min(a, b),
                  std::max(in[0].err, in[1].err)};
  }
  if (isa<arith::SelectOp>(op))
    return in[0].value != 0.0 ? in[1] : in[2];
  if (isa<arith::ExtFOp>(op))
    return in[0];
  if (isa<arith::TruncFOp>(op))
    return rounded(in[0].value, in[0].err, type);
  return failure();
}

/// Row-major strides of `shape`.
static SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

static FailureOr<ref::Result>
evaluateGeneric(linalg::GenericOp g,
                function_ref<const ref::Result &(Value)> lookup) {
  if (!g.hasPureTensorSemantics() || g.getNumResults() != 1)
    return g.emitOpError("the fp64 oracle models generics on tensors with "
                         "one result only");
  if (g.getNumParallelLoops() != g.getNumLoops())
    return g.emitOpError("the fp64 oracle models elementwise generics (all "
                         "loops parallel) and matmul-like multiply-adds only");
  SmallVector<int64_t> ranges = g.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return g.emitOpError("the fp64 oracle needs static shapes");
  auto outType = cast<RankedTensorType>(g->getResult(0).getType());
  Block &body = g.getRegion().front();
  SmallVector<AffineMap> maps = g.getIndexingMapsArray();
  SmallVector<SmallVector<int64_t>> strides;
  for (OpOperand &operand : g->getOpOperands()) {
    ArrayRef<int64_t> shape = lookup(operand.get()).value.shape;
    strides.push_back(stridesOf(shape));
  }
  // Values from outside the body must be scalars the oracle evaluated
  // (captured constants).
  for (Operation &op : body)
    for (Value v : op.getOperands())
      if (v.getParentBlock() != &body && lookup(v).value.numElements() != 1)
        return g.emitOpError("the fp64 oracle models captured scalars only");

  ref::Tensor out(outType.getShape()), bound(outType.getShape());
  // NaN is correct where an operand element may be NaN (elementwise ops
  // propagate it).
  std::vector<bool> nanAllowed;
  int64_t points = 1;
  for (int64_t r : ranges)
    points *= r;
  SmallVector<int64_t> point(ranges.size(), 0);
  DenseMap<Value, Scalar> scalars;
  for (int64_t n = 0; n < points; ++n) {
    accel_run::delinearize(n, ranges, point);
    scalars.clear();
    int64_t outIndex = 0;
    bool mayBeNaN = false;
    for (auto [i, operand] : llvm::enumerate(g->getOpOperands())) {
      const ref::Result &operandResult = lookup(operand.get());
      const ref::Tensor &t = operandResult.value;
      SmallVector<int64_t> idx = maps[i].compose(point);
      int64_t flat = 0;
      for (auto [d, x] : llvm::enumerate(idx)) {
        if (x < 0 || x >= t.shape[d])
          return g.emitOpError("the fp64 oracle found an index out of bounds");
        flat += x * strides[i][d];
      }
      mayBeNaN |= !g.isDpsInit(&operand) && operandResult.mayBeNaN(flat);
      scalars[body.getArgument(i)] = Scalar{t.data[flat], 0.0};
      if (g.isDpsInit(&operand))
        outIndex = flat;
    }
    for (Operation &op : body.without_terminator()) {
      SmallVector<Scalar> in;
      for (Value v : op.getOperands()) {
        auto it = scalars.find(v);
        in.push_back(it != scalars.end()
                         ? it->second
                         : Scalar{lookup(v).value.data[0], 0.0});
      }
      FailureOr<Scalar> r = evaluateScalar(op, in);
      if (failed(r))
        return op.emitOpError("is not modelled by the fp64 oracle in a "
                              "linalg.generic body");
      scalars[op.getResult(0)] = *r;
    }
    Value yielded = body.getTerminator()->getOperand(0);
    auto it = scalars.find(yielded);
    Scalar y = it != scalars.end() ? it->second
                                   : Scalar{lookup(yielded).value.data[0], 0.0};
    out.data[outIndex] = y.value;
    bound.data[outIndex] = y.err;
    if (mayBeNaN) {
      if (nanAllowed.empty())
        nanAllowed.assign(out.data.size(), false);
      nanAllowed[outIndex] = true;
    }
  }
  return ref::Result{std::move(out), std::move(bound), std::move(nanAllowed)};
}

FailureOr<ref::Result>
accel_run::evaluateStructured(Operation &op,
                              function_ref<const ref::Result &(Value)> lookup) {
  if (!isa<RankedTensorType>(op.getResult(0).getType()) ||
      !cast<RankedTensorType>(op.getResult(0).getType()).hasStaticShape())
    return op.emitOpError("the fp64 oracle needs static shapes");
  auto outType = cast<RankedTensorType>(op.getResult(0).getType());
  if (auto g = dyn_cast<linalg::GenericOp>(op))
    return evaluateGeneric(g, lookup);
  if (auto sm = dyn_cast<linalg::SoftmaxOp>(op))
    return ref::softmax(lookup(sm.getInput()).value, sm.getDimension(),
                        outType.getElementType());
  const ref::Result &in = lookup(op.getOperand(0));
  ref::Result r{ref::Tensor(outType.getShape()),
                ref::Tensor(outType.getShape())};
  if (auto t = dyn_cast<linalg::TransposeOp>(op)) {
    // result[i...] = input[j...] with j[perm[d]] = i[d].
    ArrayRef<int64_t> perm = t.getPermutation();
    SmallVector<int64_t> inStrides = stridesOf(in.value.shape);
    SmallVector<int64_t> idx(perm.size(), 0);
    for (int64_t n = 0; n < r.value.numElements(); ++n) {
      int64_t rem = n, flat = 0;
      for (int64_t d = int64_t(perm.size()) - 1; d >= 0; --d) {
        idx[d] = rem % outType.getDimSize(d);
        rem /= outType.getDimSize(d);
        flat += idx[d] * inStrides[perm[d]];
      }
      r.value.data[n] = in.value.data[flat];
      r.bound.data[n] = in.bound.data[flat];
      if (in.mayBeNaN(flat))
        r.allowNaN(n);
    }
    return r;
  }
  // Reshapes keep the row-major order.
  r.value.data = in.value.data;
  r.bound.data = in.bound.data;
  r.nanAllowed = in.nanAllowed;
  return r;
}
