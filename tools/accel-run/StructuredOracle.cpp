//===- StructuredOracle.cpp - the fp64 oracle for linalg and reshapes -----===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "StructuredOracle.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/CommandLine.h"
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
             tensor::ExpandShapeOp, tensor::CollapseShapeOp,
             tensor::ExtractSliceOp, tensor::InsertSliceOp, tensor::ConcatOp>(
      op);
}

/// A scalar in a generic's body: its exact value and a bound on how far the
/// kernel's value may be from it.
using Scalar = accel_run::ScalarBound;

/// `r` as the kernel holds it in `type`: past the type's range it is,
/// correctly, ±inf (and then exact).
static Scalar rounded(double r, double err, Type type) {
  // Past the type's range: inf, or NaN for the types without infinities
  // (f8E4M3FN and the FNUZ types), as the rounding defines it.
  if (std::isfinite(r) && !std::isfinite(ref::roundTo(r, type)))
    return {ref::roundTo(r, type), 0.0};
  if (!std::isfinite(r))
    return {r, 0.0};
  return {r, err + ref::unitRoundoff(type) * std::fabs(r) +
                 ref::underflowError(type)};
}

/// Scales the functions' implementation allowances: a test shows the gate
/// fails the kernels with a quarter of them.
static llvm::cl::opt<double> functionUlpsScale(
    "oracle-function-ulps-scale", llvm::cl::Hidden, llvm::cl::init(1.0),
    llvm::cl::desc("Scale the fp64 oracle's allowances for elementwise "
                   "functions (exp, tanh, erf, sqrt, rsqrt); for tests"));

/// `f` of an input known to within `in.err`, computed by a kernel whose
/// implementation of `f` is within `ulps` unit roundoffs of `type`
/// (the polynomial approximations of accel-cpu-vectorize-elementwise, or
/// libm): the exact value, and as bound the input's error times `slope`
/// (the largest |f'| within the input's error) plus the implementation's.
static Scalar unaryFunction(double value, Scalar in, double slope, double ulps,
                            Type type) {
  if (std::isnan(value))
    return Scalar{value, 0.0};
  ulps *= functionUlpsScale;
  // An exact input carries no error, whatever the slope (inf * 0 is NaN).
  double carried = in.err == 0 ? 0.0 : slope * in.err;
  return rounded(value,
                 carried + ulps * ref::unitRoundoff(type) * std::fabs(value),
                 type);
}

/// Implementation error allowances, in unit roundoffs of the result type
/// (2^-24 relative for f32), on top of the result's own rounding: the
/// largest errors measured (test/Tools/accel-run/epilogue-functions.mlir,
/// uniform and normal inputs, the CPU kernels' vectorized polynomials) were
/// exp 1.13, tanh 4.26, erf 4.07, sqrt 1.00 and rsqrt 1.46 roundoffs, so
/// each gate is about twice its function's error.
static constexpr double kExpUlps = 1.5, kTanhUlps = 8, kErfUlps = 8,
                        kSqrtUlps = 1, kRsqrtUlps = 2;

/// max(a, b) (or min) of two values known within their errors: the
/// result lies between the extremes of the two intervals, so a clamp to a
/// constant bound takes the bound's (zero) error where it binds.
static Scalar extremeOf(const Scalar &a, const Scalar &b, bool max) {
  auto pick = [&](double x, double y) {
    return max ? std::max(x, y) : std::min(x, y);
  };
  double r = pick(a.value, b.value);
  if (!std::isfinite(r))
    return Scalar{r, 0.0};
  double low = pick(a.value - a.err, b.value - b.err);
  double high = pick(a.value + a.err, b.value + b.err);
  return Scalar{r, std::max(r - low, high - r)};
}

FailureOr<Scalar> accel_run::evaluateScalar(Operation &op,
                                            ArrayRef<Scalar> in) {
  // The element type: accel-run applies these rules to arith on tensors
  // too, whose roundings are their elements'.
  Type type = getElementTypeOrSelf(op.getResult(0).getType());
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
  // Integer and index arithmetic (loop indices, masks) is exact; an
  // operand that carries an error (an integer rounded from a float, a
  // zero point added to it) carries it on: sums add the errors, products
  // as for floats; a bitwise op of one is not modelled.
  if (isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::AndIOp,
          arith::OrIOp, arith::XOrIOp>(op)) {
    auto a = int64_t(in[0].value), b = int64_t(in[1].value);
    double ea = in[0].err, eb = in[1].err;
    if ((ea != 0 || eb != 0) &&
        isa<arith::AndIOp, arith::OrIOp, arith::XOrIOp>(op))
      return failure();
    double err =
        isa<arith::MulIOp>(op)
            ? std::fabs(double(a)) * eb + std::fabs(double(b)) * ea + ea * eb
            : ea + eb;
    int64_t r = isa<arith::AddIOp>(op)   ? a + b
                : isa<arith::SubIOp>(op) ? a - b
                : isa<arith::MulIOp>(op) ? a * b
                : isa<arith::AndIOp>(op) ? (a & b)
                : isa<arith::OrIOp>(op)  ? (a | b)
                                         : (a ^ b);
    return Scalar{double(r), err};
  }
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    unsigned width = isa<IndexType>(cmp.getLhs().getType())
                         ? 64
                         : cmp.getLhs().getType().getIntOrFloatBitWidth();
    APInt a(width, uint64_t(int64_t(in[0].value)), /*isSigned=*/true),
        b(width, uint64_t(int64_t(in[1].value)), /*isSigned=*/true);
    // Operands within their errors of each other may compare either way.
    bool close =
        std::fabs(in[0].value - in[1].value) <= in[0].err + in[1].err &&
        (in[0].err != 0 || in[1].err != 0);
    return Scalar{arith::applyCmpPredicate(cmp.getPredicate(), a, b) ? 1.0
                                                                     : 0.0,
                  close ? 1.0 : 0.0};
  }
  if (isa<arith::IndexCastOp>(op))
    return in[0];
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
    return extremeOf(in[0], in[1], max);
  }
  if (isa<arith::MaxNumFOp, arith::MinNumFOp>(op)) {
    double a = in[0].value, b = in[1].value;
    bool max = isa<arith::MaxNumFOp>(op);
    if (std::isnan(a) || std::isnan(b))
      return std::isnan(a) ? in[1] : in[0];
    return extremeOf(in[0], in[1], max);
  }
  // A comparison's error says whether the kernel may see it the other way
  // round (its operands within their errors of each other).
  if (auto cmp = dyn_cast<arith::CmpFOp>(op)) {
    double a = in[0].value, b = in[1].value;
    bool r = arith::applyCmpPredicate(cmp.getPredicate(), APFloat(a),
                                      APFloat(b));
    bool close = std::isfinite(a) && std::isfinite(b) &&
                 (in[0].err != 0 || in[1].err != 0) &&
                 std::fabs(a - b) <= in[0].err + in[1].err;
    return Scalar{r ? 1.0 : 0.0, close ? 1.0 : 0.0};
  }
  // A select whose condition may flip may give either side.
  if (isa<arith::SelectOp>(op)) {
    const Scalar &chosen = in[0].value != 0.0 ? in[1] : in[2];
    const Scalar &other = in[0].value != 0.0 ? in[2] : in[1];
    if (in[0].err == 0.0)
      return chosen;
    return Scalar{chosen.value,
                  std::max(chosen.err, std::fabs(chosen.value - other.value) +
                                           other.err)};
  }
  if (isa<math::AbsFOp>(op))
    return Scalar{std::fabs(in[0].value), in[0].err};
  if (isa<math::ExpOp>(op)) {
    double r = std::exp(in[0].value);
    return unaryFunction(r, in[0], std::exp(in[0].value + in[0].err),
                         kExpUlps, type);
  }
  if (isa<math::TanhOp>(op))
    return unaryFunction(std::tanh(in[0].value), in[0], 1.0, kTanhUlps, type);
  if (isa<math::ErfOp>(op))
    return unaryFunction(std::erf(in[0].value), in[0], 2.0 / std::sqrt(M_PI),
                         kErfUlps, type);
  if (isa<math::SqrtOp, math::RsqrtOp>(op)) {
    double x = in[0].value, low = x - in[0].err;
    bool rsqrt = isa<math::RsqrtOp>(op);
    double r = rsqrt ? 1.0 / std::sqrt(x) : std::sqrt(x);
    // |f'| at the low end of the input's range (unbounded at or below 0).
    double slope = low <= 0 ? (in[0].err == 0 ? 0.0
                                              : std::numeric_limits<
                                                    double>::infinity())
                   : rsqrt ? 0.5 / (low * std::sqrt(low))
                           : 0.5 / std::sqrt(low);
    return unaryFunction(r, in[0], slope, rsqrt ? kRsqrtUlps : kSqrtUlps,
                         type);
  }
  if (isa<arith::ExtFOp>(op))
    return in[0];
  if (isa<arith::TruncFOp>(op))
    return rounded(in[0].value, in[0].err, type);
  // A signed integer (held exactly) to a float: one rounding (i32 sums of
  // an i8 matmul dequantised by a scale).
  if (isa<arith::SIToFPOp>(op))
    return rounded(in[0].value, in[0].err, type);
  // Rounding to an integer (a quantised output: scale, round, clamp,
  // convert) is exact but jumps: a kernel whose input is within its error
  // of a step may land on the other side, so the error is the largest
  // jump f makes over [x - e, x + e] (f is monotone).
  auto stepwise = [&](double (*f)(double)) -> Scalar {
    double x = in[0].value, e = in[0].err, r = f(x);
    if (!std::isfinite(x) || e == 0)
      return Scalar{r, 0.0};
    return Scalar{r,
                  std::max(std::fabs(f(x + e) - r), std::fabs(r - f(x - e)))};
  };
  if (isa<math::RoundEvenOp>(op))
    return stepwise([](double x) { return std::nearbyint(x); });
  if (isa<math::RoundOp>(op))
    return stepwise([](double x) { return std::round(x); });
  if (isa<math::FloorOp>(op))
    return stepwise([](double x) { return std::floor(x); });
  if (isa<math::CeilOp>(op))
    return stepwise([](double x) { return std::ceil(x); });
  if (isa<math::TruncOp>(op))
    return stepwise([](double x) { return std::trunc(x); });
  // A float to an integer: truncation toward zero, held exactly. Outside
  // the integer type's range arith's result is poison: NaN, which no
  // kernel's integer matches (clamp first, as quantisers do).
  if (isa<arith::FPToSIOp, arith::FPToUIOp>(op)) {
    unsigned width = type.getIntOrFloatBitWidth();
    bool isUnsigned = isa<arith::FPToUIOp>(op);
    // [lo, end): the integers of the type (end exclusive: 2^63 - 1 is no
    // double).
    double lo = isUnsigned ? 0.0 : -std::ldexp(1.0, int(width) - 1);
    double end = std::ldexp(1.0, int(width) - (isUnsigned ? 0 : 1));
    Scalar r = stepwise([](double x) { return std::trunc(x); });
    if (!(r.value >= lo && r.value < end) ||
        !(std::trunc(in[0].value + in[0].err) < end) ||
        !(std::trunc(in[0].value - in[0].err) >= lo))
      return Scalar{std::nan(""), 0.0};
    return r;
  }
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
                function_ref<const ref::Result &(Value)> lookup,
                const std::function<double()> &drawRounding) {
  if (!g.hasPureTensorSemantics() || g.getNumResults() != 1)
    return g.emitOpError("the fp64 oracle models generics on tensors with "
                         "one result only");
  Block &body = g.getRegion().front();
  // A reduction: the body yields acc + t (a sum) or the maximum or minimum
  // of acc and t (maximumf, minimumf, maxnumf, minnumf), the accumulator
  // (the output argument) used nowhere else, t computed from the inputs
  // alone.
  Operation *sum = nullptr, *extreme = nullptr;
  if (g.getNumParallelLoops() != g.getNumLoops()) {
    BlockArgument acc = body.getArguments().back();
    Operation *comb = body.getTerminator()->getOperand(0).getDefiningOp();
    bool combines = g.getNumDpsInits() == 1 && comb &&
                    comb->getBlock() == &body && acc.hasOneUse() &&
                    comb->getNumOperands() == 2 &&
                    (comb->getOperand(0) == acc) !=
                        (comb->getOperand(1) == acc);
    if (combines && isa<arith::AddFOp>(comb))
      sum = comb;
    else if (combines && isa<arith::MaximumFOp, arith::MinimumFOp,
                             arith::MaxNumFOp, arith::MinNumFOp>(comb))
      extreme = comb;
    else
      return g.emitOpError("the fp64 oracle models elementwise generics (all "
                           "loops parallel), sums (acc + f(inputs)), maxima "
                           "and minima (maximumf, minimumf, maxnumf, minnumf "
                           "of acc and f(inputs)) and matmul-like "
                           "multiply-adds only");
  }
  Operation *reduce = sum ? sum : extreme;
  SmallVector<int64_t> ranges = g.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return g.emitOpError("the fp64 oracle needs static shapes");
  auto outType = cast<RankedTensorType>(g->getResult(0).getType());
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
  // A sum's terms, per output element: their sum, their errors' sum, the
  // sum of their magnitudes and their number.
  std::vector<double> sums, errs, mags;
  std::vector<int64_t> terms;
  // With drawRounding: init + the terms so far, each addition's rounding
  // drawn.
  std::vector<double> drawnSums;
  double sumUnit = ref::unitRoundoff(outType.getElementType());
  if (sum) {
    sums.assign(out.data.size(), 0.0);
    errs = mags = sums;
    terms.assign(out.data.size(), 0);
    if (drawRounding)
      drawnSums = lookup(g.getDpsInits()[0]).value.data;
  }
  // A maximum's or minimum's terms, per output element: the extreme of the
  // non-NaN terms, the largest error of any term (each term is within its
  // error of the kernel's, so their extremes are within the largest), and
  // whether a term was NaN.
  std::vector<double> best, bestErr;
  std::vector<bool> sawNaN;
  const bool isMax = isa_and_nonnull<arith::MaximumFOp, arith::MaxNumFOp>(
      extreme);
  const bool propagatesNaN =
      isa_and_nonnull<arith::MaximumFOp, arith::MinimumFOp>(extreme);
  if (extreme) {
    best.assign(out.data.size(),
                isMax ? -std::numeric_limits<double>::infinity()
                      : std::numeric_limits<double>::infinity());
    bestErr.assign(out.data.size(), 0.0);
    sawNaN.assign(out.data.size(), false);
  }
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
      // An output the body reads (an in-place epilogue) counts as an input.
      mayBeNaN |= (!g.isDpsInit(&operand) ||
                   !body.getArgument(i).use_empty()) &&
                  operandResult.mayBeNaN(flat);
      // An operand the oracle knows within a bound (a matmul's result
      // before its epilogue) carries it into the body.
      const ref::Tensor &b = operandResult.bound;
      scalars[body.getArgument(i)] = Scalar{
          t.data[flat], b.data.size() == t.data.size() ? b.data[flat] : 0.0};
      if (g.isDpsInit(&operand))
        outIndex = flat;
    }
    for (Operation &op : body.without_terminator()) {
      if (&op == reduce)
        continue;
      // A loop index: exact.
      if (auto index = dyn_cast<linalg::IndexOp>(op)) {
        scalars[index.getResult()] =
            Scalar{double(point[index.getDim()]), 0.0};
        continue;
      }
      SmallVector<Scalar> in;
      for (Value v : op.getOperands()) {
        auto it = scalars.find(v);
        in.push_back(it != scalars.end()
                         ? it->second
                         : Scalar{lookup(v).value.data[0], 0.0});
      }
      FailureOr<Scalar> r = accel_run::evaluateScalar(op, in);
      if (failed(r))
        return op.emitOpError("is not modelled by the fp64 oracle in a "
                              "linalg.generic body");
      // The op's own error (its operands are exact), drawn.
      // (Only floats: an integer's or a comparison's error says whether it
      // may be another value, not by how much.)
      if (drawRounding && isa<FloatType>(op.getResult(0).getType()) &&
          r->err != 0.0 && std::isfinite(r->value) && std::isfinite(r->err))
        *r = Scalar{r->value + drawRounding() * r->err, 0.0};
      scalars[op.getResult(0)] = *r;
    }
    if (reduce) {
      Value term = reduce->getOperand(0) == body.getArguments().back()
                       ? reduce->getOperand(1)
                       : reduce->getOperand(0);
      auto t = scalars.find(term);
      Scalar x =
          t != scalars.end() ? t->second : Scalar{lookup(term).value.data[0], 0.0};
      if (extreme) {
        if (std::isnan(x.value)) {
          sawNaN[outIndex] = true;
        } else {
          best[outIndex] = isMax ? std::max(best[outIndex], x.value)
                                 : std::min(best[outIndex], x.value);
          bestErr[outIndex] = std::max(bestErr[outIndex], x.err);
        }
        if (mayBeNaN) {
          if (nanAllowed.empty())
            nanAllowed.assign(out.data.size(), false);
          nanAllowed[outIndex] = true;
        }
        continue;
      }
      if (drawRounding) {
        double &s = drawnSums[outIndex];
        s += x.value;
        if (std::isfinite(s))
          s += drawRounding() * sumUnit * std::fabs(s);
      }
      sums[outIndex] += x.value;
      errs[outIndex] += x.err;
      mags[outIndex] += std::fabs(x.value);
      ++terms[outIndex];
      if (mayBeNaN) {
        if (nanAllowed.empty())
          nanAllowed.assign(out.data.size(), false);
        nanAllowed[outIndex] = true;
      }
      continue;
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
  // init + the terms, summed in any order (the kernels' vectorized rows are
  // reassociated): n additions in the output type are within
  // gamma_n = n u / (1 - n u) of the exact sum of the magnitudes.
  if (sum) {
    const ref::Result &init = lookup(g.getDpsInits()[0]);
    double u = ref::unitRoundoff(outType.getElementType());
    for (size_t i = 0; i < out.data.size(); ++i) {
      double n = double(terms[i]);
      double gamma = n * u < 1 ? n * u / (1 - n * u)
                               : std::numeric_limits<double>::infinity();
      double initErr =
          init.bound.data.size() == out.data.size() ? init.bound.data[i] : 0.0;
      double r = init.value.data[i] + sums[i];
      Scalar y = rounded(r,
                         initErr + errs[i] +
                             gamma * (std::fabs(init.value.data[i]) + mags[i]),
                         outType.getElementType());
      // A drawn sum stays where its draws took it (a sum past the type's
      // range is ±inf as without draws).
      if (drawRounding && std::isfinite(drawnSums[i]) && y.err != 0.0)
        y = Scalar{drawnSums[i], 0.0};
      out.data[i] = y.value;
      bound.data[i] = y.err;
      if (init.mayBeNaN(i)) {
        if (nanAllowed.empty())
          nanAllowed.assign(out.data.size(), false);
        nanAllowed[i] = true;
      }
    }
  }
  // The init combined with the terms' extreme: exact (a maximum picks one
  // of its operands), with the larger of their errors.
  if (extreme) {
    const ref::Result &init = lookup(g.getDpsInits()[0]);
    for (size_t i = 0; i < out.data.size(); ++i) {
      double a = init.value.data[i];
      double initErr =
          init.bound.data.size() == out.data.size() ? init.bound.data[i] : 0.0;
      double r;
      double err = std::max(initErr, bestErr[i]);
      if (propagatesNaN && (sawNaN[i] || std::isnan(a)))
        r = std::nan("");
      else if (std::isnan(a))
        r = best[i];
      else
        r = isMax ? std::max(a, best[i]) : std::min(a, best[i]);
      // maxnumf over only NaNs: NaN.
      if (!propagatesNaN && std::isnan(a) && sawNaN[i] &&
          std::isinf(best[i]) && (best[i] > 0) != isMax && bestErr[i] == 0)
        r = std::nan("");
      out.data[i] = r;
      bound.data[i] = std::isfinite(r) ? err : 0.0;
      if (init.mayBeNaN(i)) {
        if (nanAllowed.empty())
          nanAllowed.assign(out.data.size(), false);
        nanAllowed[i] = true;
      }
    }
  }
  return ref::Result{std::move(out), std::move(bound), std::move(nanAllowed)};
}

/// Copies element `from` of `src` (value, bound, NaN permission) to element
/// `to` of `dst`.
static void copyElement(const ref::Result &src, int64_t from, ref::Result &dst,
                        int64_t to) {
  dst.value.data[to] = src.value.data[from];
  dst.bound.data[to] =
      src.bound.data.size() == src.value.data.size() ? src.bound.data[from] : 0;
  if (src.mayBeNaN(from))
    dst.allowNaN(to);
  else if (!dst.nanAllowed.empty())
    dst.nanAllowed[to] = false;
}

/// The flat index in a tensor of `strides` of the slice element at
/// `point` (in the slice's unreduced sizes): offset + point * stride.
static int64_t sliceElement(ArrayRef<int64_t> point, ArrayRef<int64_t> offsets,
                            ArrayRef<int64_t> steps,
                            ArrayRef<int64_t> strides) {
  int64_t flat = 0;
  for (size_t d = 0; d < point.size(); ++d)
    flat += (offsets[d] + point[d] * steps[d]) * strides[d];
  return flat;
}

/// extract_slice, insert_slice (static offsets, sizes and strides; rank
/// reduction drops unit dimensions, so the slice's row-major order is the
/// same) and concat, moving elements with their bounds.
static FailureOr<ref::Result>
evaluateSlices(Operation &op, function_ref<const ref::Result &(Value)> lookup,
               RankedTensorType outType) {
  ref::Result r{ref::Tensor(outType.getShape()),
                ref::Tensor(outType.getShape())};
  if (auto slice = dyn_cast<OffsetSizeAndStrideOpInterface>(op)) {
    if (ShapedType::isDynamicShape(slice.getStaticOffsets()) ||
        ShapedType::isDynamicShape(slice.getStaticSizes()) ||
        ShapedType::isDynamicShape(slice.getStaticStrides()))
      return op.emitOpError("the fp64 oracle needs static offsets, sizes and "
                            "strides");
    ArrayRef<int64_t> offsets = slice.getStaticOffsets(),
                      sizes = slice.getStaticSizes(),
                      steps = slice.getStaticStrides();
    bool insert = isa<tensor::InsertSliceOp>(op);
    const ref::Result &big = lookup(op.getOperand(insert ? 1 : 0));
    const ref::Result &small = lookup(op.getOperand(0));
    SmallVector<int64_t> bigStrides = stridesOf(big.value.shape);
    if (insert) {
      r = big;
      if (r.bound.data.size() != r.value.data.size())
        r.bound = ref::Tensor(outType.getShape());
    }
    int64_t count = 1;
    for (int64_t s : sizes)
      count *= s;
    SmallVector<int64_t> point(sizes.size(), 0);
    for (int64_t n = 0; n < count; ++n) {
      accel_run::delinearize(n, sizes, point);
      int64_t at = sliceElement(point, offsets, steps, bigStrides);
      if (insert)
        copyElement(small, n, r, at);
      else
        copyElement(big, at, r, n);
    }
    return r;
  }
  auto concat = cast<tensor::ConcatOp>(op);
  int64_t dim = concat.getDim();
  SmallVector<int64_t> outStrides = stridesOf(outType.getShape());
  int64_t offset = 0;
  for (Value input : concat.getInputs()) {
    const ref::Result &in = lookup(input);
    ArrayRef<int64_t> shape = in.value.shape;
    SmallVector<int64_t> offsets(shape.size(), 0), steps(shape.size(), 1);
    offsets[dim] = offset;
    SmallVector<int64_t> point(shape.size(), 0);
    for (int64_t n = 0; n < in.value.numElements(); ++n) {
      accel_run::delinearize(n, shape, point);
      copyElement(in, n, r, sliceElement(point, offsets, steps, outStrides));
    }
    offset += shape[dim];
  }
  return r;
}

FailureOr<ref::Result>
accel_run::evaluateStructured(Operation &op,
                              function_ref<const ref::Result &(Value)> lookup,
                              const std::function<double()> &drawRounding) {
  if (!isa<RankedTensorType>(op.getResult(0).getType()) ||
      !cast<RankedTensorType>(op.getResult(0).getType()).hasStaticShape())
    return op.emitOpError("the fp64 oracle needs static shapes");
  auto outType = cast<RankedTensorType>(op.getResult(0).getType());
  if (auto g = dyn_cast<linalg::GenericOp>(op))
    return evaluateGeneric(g, lookup, drawRounding);
  if (isa<tensor::ExtractSliceOp, tensor::InsertSliceOp, tensor::ConcatOp>(op))
    return evaluateSlices(op, lookup, outType);
  if (auto sm = dyn_cast<linalg::SoftmaxOp>(op))
    return ref::softmax(lookup(sm.getInput()).value, sm.getDimension(),
                        outType.getElementType(), drawRounding);
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
