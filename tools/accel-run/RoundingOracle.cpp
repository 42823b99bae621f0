//===- RoundingOracle.cpp - ops the fp64 oracle replays exactly -----------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A binary operation on doubles rounded once to f32 (or f16, bf16) gives the
// correctly rounded result of the narrower type: double has more than twice
// their precision plus two bits, so rounding twice is innocuous for +, -, *
// and / (Figueroa, "When is double rounding innocuous?", 1995).
//
//===----------------------------------------------------------------------===//

#include "RoundingOracle.h"
#include "StructuredOracle.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include <cmath>

using namespace mlir;
using namespace mlir::accel;

static const double kNaN = std::numeric_limits<double>::quiet_NaN();

/// IEEE 754-2019 maximum / minimum: NaN wins, -0 < +0.
static double maximum(double a, double b, bool max) {
  if (std::isnan(a) || std::isnan(b))
    return kNaN;
  if (a == b)
    return (std::signbit(a) == max) ? b : a;
  return max ? std::max(a, b) : std::min(a, b);
}

/// maxNum / minNum: a NaN operand is ignored.
static double maximumNumber(double a, double b, bool max) {
  if (std::isnan(a))
    return b;
  if (std::isnan(b))
    return a;
  return maximum(a, b, max);
}

static bool compare(arith::CmpFPredicate p, double a, double b) {
  bool unordered = std::isnan(a) || std::isnan(b);
  using P = arith::CmpFPredicate;
  switch (p) {
  case P::AlwaysFalse:
    return false;
  case P::AlwaysTrue:
    return true;
  case P::OEQ:
    return !unordered && a == b;
  case P::OGT:
    return !unordered && a > b;
  case P::OGE:
    return !unordered && a >= b;
  case P::OLT:
    return !unordered && a < b;
  case P::OLE:
    return !unordered && a <= b;
  case P::ONE:
    return !unordered && a != b;
  case P::ORD:
    return !unordered;
  case P::UEQ:
    return unordered || a == b;
  case P::UGT:
    return unordered || a > b;
  case P::UGE:
    return unordered || a >= b;
  case P::ULT:
    return unordered || a < b;
  case P::ULE:
    return unordered || a <= b;
  case P::UNE:
    return unordered || a != b;
  case P::UNO:
    return unordered;
  }
  return false;
}

/// Whether `replay` models `op` (a scalar op, in or out of a generic body).
static bool isReplayableScalar(Operation &op) {
  if (auto cst = dyn_cast<arith::ConstantOp>(op))
    return isa<FloatAttr, IntegerAttr>(cst.getValue());
  if (auto trunc = dyn_cast<arith::TruncFOp>(op))
    return !trunc.getRoundingmode() ||
           *trunc.getRoundingmode() == arith::RoundingMode::to_nearest_even;
  return isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp,
             arith::NegFOp, arith::MaximumFOp, arith::MinimumFOp,
             arith::MaxNumFOp, arith::MinNumFOp, arith::CmpFOp, arith::SelectOp,
             arith::ExtFOp, arith::FPToSIOp, arith::SIToFPOp, math::AbsFOp,
             math::RoundEvenOp>(op);
}

namespace {
/// A scalar as the oracle knows it: the kernel's value is within `err` of
/// `value` (0: it is `value`, bit for bit).
struct Scalar {
  double value = 0, err = 0;
};
} // namespace

/// `op` on exact operands, rounded to its result type as the op defines it.
static double replay(Operation &op, ArrayRef<double> in) {
  Type type = op.getResult(0).getType();
  auto round = [&](double v) { return ref::roundTo(v, type); };
  if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
    if (auto f = dyn_cast<FloatAttr>(cst.getValue()))
      return f.getValueAsDouble();
    auto i = cast<IntegerAttr>(cst.getValue());
    return i.getType().isInteger(1) ? double(i.getValue().getZExtValue())
                                    : double(i.getValue().getSExtValue());
  }
  if (isa<arith::AddFOp>(op))
    return round(in[0] + in[1]);
  if (isa<arith::SubFOp>(op))
    return round(in[0] - in[1]);
  if (isa<arith::MulFOp>(op))
    return round(in[0] * in[1]);
  if (isa<arith::DivFOp>(op))
    return round(in[0] / in[1]);
  if (isa<arith::NegFOp>(op))
    return -in[0];
  if (isa<arith::MaximumFOp, arith::MinimumFOp>(op))
    return maximum(in[0], in[1], isa<arith::MaximumFOp>(op));
  if (isa<arith::MaxNumFOp, arith::MinNumFOp>(op))
    return maximumNumber(in[0], in[1], isa<arith::MaxNumFOp>(op));
  if (auto cmp = dyn_cast<arith::CmpFOp>(op))
    return compare(cmp.getPredicate(), in[0], in[1]) ? 1.0 : 0.0;
  if (isa<arith::SelectOp>(op))
    return in[0] != 0.0 ? in[1] : in[2];
  if (isa<arith::ExtFOp>(op))
    return in[0];
  if (isa<arith::TruncFOp, arith::SIToFPOp>(op))
    return round(in[0]);
  if (isa<arith::FPToSIOp>(op))
    // Out of range is poison in the op; in range it truncates.
    return round(std::isnan(in[0]) ? 0.0 : std::trunc(in[0]));
  if (isa<math::AbsFOp>(op))
    return std::fabs(in[0]);
  // math.roundeven: nearbyint rounds half to even in the default mode.
  return std::nearbyint(in[0]);
}

/// Ops whose result jumps when an operand moves slightly: with an operand
/// known only within a bound, the result is not bounded.
static bool isDiscontinuous(Operation &op) {
  return isa<arith::CmpFOp, arith::FPToSIOp, math::RoundEvenOp>(op);
}

/// `op` on `in`: replayed when every operand is exact, else the exact
/// real result with a first-order bound (each rounding adds u·|r|, and a
/// result beyond the type's range is, correctly, ±inf). Pre: no operand
/// of a discontinuous op is inexact.
static Scalar evaluateScalar(Operation &op, ArrayRef<Scalar> in) {
  if (llvm::all_of(in, [](const Scalar &s) { return s.err == 0.0; })) {
    SmallVector<double> values;
    for (const Scalar &s : in)
      values.push_back(s.value);
    return Scalar{replay(op, values), 0.0};
  }
  Type type = op.getResult(0).getType();
  auto rounded = [&](double r, double err) {
    if (!std::isfinite(r))
      return Scalar{r, 0.0};
    // Past the type's range: inf, or NaN for the types without infinities
    // (f8E4M3FN and the FNUZ types), as the rounding defines it.
    if (!std::isfinite(ref::roundTo(r, type)))
      return Scalar{ref::roundTo(r, type), 0.0};
    return Scalar{r, err + ref::unitRoundoff(type) * (std::fabs(r) + err) +
                         ref::underflowError(type)};
  };
  double a = in[0].value, ea = in[0].err;
  if (isa<arith::AddFOp, arith::SubFOp>(op))
    return rounded(isa<arith::AddFOp>(op) ? a + in[1].value : a - in[1].value,
                   ea + in[1].err);
  if (isa<arith::MulFOp>(op))
    return rounded(a * in[1].value, std::fabs(a) * in[1].err +
                                        std::fabs(in[1].value) * ea +
                                        ea * in[1].err);
  if (isa<arith::DivFOp>(op)) {
    double r = a / in[1].value;
    double denom = std::fabs(in[1].value) - in[1].err;
    return rounded(r, denom > 0 ? (ea + std::fabs(r) * in[1].err) / denom
                                : std::numeric_limits<double>::infinity());
  }
  if (isa<arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
          arith::MinNumFOp>(op)) {
    SmallVector<double> values = {a, in[1].value};
    return Scalar{replay(op, values), std::max(ea, in[1].err)};
  }
  if (isa<arith::SelectOp>(op))
    return in[0].value != 0.0 ? in[1] : in[2];
  if (isa<arith::NegFOp>(op))
    return Scalar{-a, ea};
  if (isa<math::AbsFOp>(op))
    return Scalar{std::fabs(a), ea};
  if (isa<arith::ExtFOp>(op))
    return in[0];
  // truncf, sitofp.
  return rounded(a, ea);
}

static bool isExact(const ref::Result &r) {
  return llvm::all_of(r.bound.data, [](double b) { return b == 0.0; });
}

/// Whether the generic's reduction (if any) is a max or min of the init's
/// element and a value that does not depend on it.
static bool isOrderFreeReduction(linalg::GenericOp g) {
  if (g.getNumReductionLoops() == 0)
    return true;
  Block &body = g.getRegion().front();
  BlockArgument acc = body.getArguments().back();
  if (!acc.hasOneUse())
    return false;
  Operation *combine = *acc.getUsers().begin();
  if (!isa<arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
           arith::MinNumFOp>(combine))
    return false;
  return body.getTerminator()->getOperand(0) == combine->getResult(0);
}

bool accel_run::isReplayable(Operation &op, Lookup lookup) {
  if (isa<tensor::ExtractOp>(op))
    return true;
  auto exact = [&](Value v) { return isExact(lookup(v)); };
  if (op.getNumResults() == 1 && op.getResult(0).getType().isIntOrFloat())
    return isReplayableScalar(op) && llvm::all_of(op.getOperands(), exact);
  auto g = dyn_cast<linalg::GenericOp>(op);
  if (!g || !g.hasPureTensorSemantics() || g.getNumResults() != 1 ||
      g.getNumDpsInits() != 1 || !isOrderFreeReduction(g) ||
      llvm::any_of(g.getStaticLoopRanges(), ShapedType::isDynamic))
    return false;
  // Operands known within a bound are fine for the continuous ops only.
  bool allExact = llvm::all_of(op.getOperands(), exact);
  Block &body = g.getRegion().front();
  for (Operation &inner : body.without_terminator()) {
    if (!isReplayableScalar(inner) || (!allExact && isDiscontinuous(inner)))
      return false;
    // Captured values are scalars the oracle holds exactly.
    for (Value v : inner.getOperands())
      if (v.getParentBlock() != &body &&
          (lookup(v).value.numElements() != 1 || !exact(v)))
        return false;
  }
  return true;
}

/// Row-major strides of `shape`.
static SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

static FailureOr<ref::Result> replayGeneric(linalg::GenericOp g,
                                            accel_run::Lookup lookup) {
  Block &body = g.getRegion().front();
  SmallVector<AffineMap> maps = g.getIndexingMapsArray();
  SmallVector<int64_t> ranges = g.getStaticLoopRanges();
  SmallVector<SmallVector<int64_t>> strides;
  for (OpOperand &operand : g->getOpOperands())
    strides.push_back(stridesOf(lookup(operand.get()).value.shape));

  // linalg's semantics, in loop order: the output starts as the init and
  // each point updates its element.
  ref::Tensor out = lookup(g.getDpsInits()[0]).value;
  ref::Tensor bound = lookup(g.getDpsInits()[0]).bound;
  // NaN is correct where an input element may be NaN (the ops replayed
  // here propagate it); a max/min reduction carries its init's too.
  std::vector<bool> nanAllowed = lookup(g.getDpsInits()[0]).nanAllowed;
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
      bool init = g.isDpsInit(&operand);
      const ref::Tensor &t = init ? out : lookup(operand.get()).value;
      const ref::Tensor &e = init ? bound : lookup(operand.get()).bound;
      SmallVector<int64_t> idx = maps[i].compose(point);
      int64_t flat = 0;
      for (auto [d, x] : llvm::enumerate(idx)) {
        if (x < 0 || x >= t.shape[d])
          return g.emitOpError("the fp64 oracle found an index out of bounds");
        flat += x * strides[i][d];
      }
      scalars[body.getArgument(i)] = Scalar{t.data[flat], e.data[flat]};
      if (init)
        outIndex = flat;
      else
        mayBeNaN |= lookup(operand.get()).mayBeNaN(flat);
    }
    SmallVector<Scalar> in;
    for (Operation &op : body.without_terminator()) {
      in.clear();
      for (Value v : op.getOperands()) {
        auto it = scalars.find(v);
        in.push_back(it != scalars.end()
                         ? it->second
                         : Scalar{lookup(v).value.data[0], 0.0});
      }
      scalars[op.getResult(0)] = evaluateScalar(op, in);
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

FailureOr<ref::Result> accel_run::evaluateReplayed(Operation &op,
                                                   Lookup lookup) {
  if (auto extract = dyn_cast<tensor::ExtractOp>(op)) {
    const ref::Result &t = lookup(extract.getTensor());
    SmallVector<int64_t> strides = stridesOf(t.value.shape);
    int64_t flat = 0;
    for (auto [d, index] : llvm::enumerate(extract.getIndices())) {
      int64_t x = static_cast<int64_t>(lookup(index).value.data[0]);
      if (x < 0 || x >= t.value.shape[d])
        return op.emitOpError("the fp64 oracle found an index out of bounds");
      flat += x * strides[d];
    }
    ref::Result r{ref::Tensor({}, t.value.data[flat]),
                  ref::Tensor({}, t.bound.data[flat])};
    if (t.mayBeNaN(flat))
      r.allowNaN(0);
    return r;
  }
  if (auto g = dyn_cast<linalg::GenericOp>(op))
    return replayGeneric(g, lookup);
  SmallVector<double> in;
  for (Value v : op.getOperands())
    in.push_back(lookup(v).value.data[0]);
  return ref::Result{ref::Tensor({}, replay(op, in)), ref::Tensor({}, 0.0)};
}
