//===- LowerPrecision.cpp - compute matmul and attention in low precision -===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel-lower-precision: f32 accel.matmul and accel.attention take their
// inputs in bf16, f16, fp8 or int8 (docs/precision.md). The casts, the
// per-tensor scales and the conversion of the result back to f32 are
// elementwise or reduction linalg.generics on tensors, which the CPU
// pipeline vectorizes and accel-run's oracle replays.
//
//===----------------------------------------------------------------------===//

#include "accel/Transforms/LowerPrecision.h"
#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "accel/Target/Catalogue.h"
#include "accel/Target/PrecisionSupport.h"
#include "accel/Transforms/Passes.h"
#include "accel/Transforms/Transforms.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "llvm/ADT/StringExtras.h"
#include <cmath>

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELLOWERPRECISIONPASS
#include "accel/Transforms/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;
using namespace mlir::accel;

static std::string typeName(Type t) {
  std::string s;
  llvm::raw_string_ostream(s) << t;
  return s;
}

static bool isF8(Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(t); }

static bool allF32(ValueRange values) {
  return llvm::all_of(values, [](Value v) {
    return getElementTypeOrSelf(v.getType()).isF32();
  });
}

//===----------------------------------------------------------------------===//
// Planning
//===----------------------------------------------------------------------===//

/// Reports `message` at `op` when `diagnose`; always a failure.
static FailureOr<std::optional<PrecisionPlan>>
refuse(Operation *op, bool diagnose, const Twine &message) {
  if (diagnose)
    op->emitError() << message;
  return failure();
}

/// The inputs `op` quantises: 2 for a matmul, 3 for an attention.
static unsigned numInputs(Operation *op) { return isa<MatmulOp>(op) ? 2 : 3; }

/// The contraction length of a matmul (dynamic as ShapedType::kDynamic).
static int64_t contractionSize(MatmulOp op) {
  return op.getLhs().getType().getShape().back();
}

/// Warns when `op` accumulates in f16 or bf16 over a K for which the
/// contract's worst-case bound γ_K(u) says nothing (K·u > 1/2).
static void warnLongNarrowAccumulation(MatmulOp op, Type acc) {
  if (!acc.isF16() && !acc.isBF16())
    return;
  auto mantissa = cast<FloatType>(acc).getFPMantissaWidth();
  int64_t limit = int64_t(1) << (mantissa - 1); // K·u = 1/2, u = 2^-mantissa
  int64_t k = contractionSize(op);
  if (ShapedType::isDynamic(k))
    op.emitWarning() << typeName(acc)
                     << " accumulation over a dynamic K: past K = " << limit
                     << " (K·u > 1/2) its worst-case error bound says "
                        "nothing; use accumulate=f32";
  else if (k > limit)
    op.emitWarning() << typeName(acc) << " accumulation over K = " << k
                     << ": past K = " << limit
                     << " (K·u > 1/2) its worst-case error bound says "
                        "nothing; use accumulate=f32";
}

FailureOr<std::optional<PrecisionPlan>>
accel::planLowerPrecision(Operation *op, const LowerPrecisionOptions &options,
                          bool diagnose) {
  auto matmul = dyn_cast<MatmulOp>(op);
  auto attention = dyn_cast<AttentionOp>(op);
  if (!matmul && !attention)
    return std::optional<PrecisionPlan>();

  // The op's own policy, else the options'.
  PrecisionPlan plan;
  auto attr = op->getAttrOfType<PrecisionAttr>(kPrecisionAttrName);
  if (attr) {
    FailureOr<PrecisionPolicy> policy =
        attr.resolve([&] { return op->emitError(); });
    if (failed(policy))
      return failure();
    plan.policy = *policy;
  } else if (options.policy) {
    plan.policy = *options.policy;
  } else {
    return std::optional<PrecisionPlan>();
  }
  PrecisionPolicy &p = plan.policy;
  if (p.compute.isF32())
    return std::optional<PrecisionPlan>();

  // Only f32 ops are lowered; the options pass over the others, an op's
  // own policy on one is a mistake.
  bool isF32 =
      matmul ? allF32({matmul.getLhs(), matmul.getRhs(), matmul.getInit()}) &&
                   !matmul.getLhsScale()
             : allF32({attention.getQuery(), attention.getKey(),
                       attention.getValue(), attention.getInit()});
  if (!isF32) {
    if (!attr)
      return std::optional<PrecisionPlan>();
    Type input = getElementTypeOrSelf(op->getOperand(0).getType());
    return refuse(op, diagnose,
                  "'" + kPrecisionAttrName.str() +
                      "' applies to f32 ops; this op's inputs are " +
                      typeName(input));
  }

  unsigned n = numInputs(op);
  if (p.scales == ScaleMode::Given && p.scaleValues.size() != 1 &&
      p.scaleValues.size() != n)
    return refuse(op, diagnose,
                  "scale_values has " + Twine(p.scaleValues.size()) +
                      " values; " + op->getName().getStringRef() + " needs " +
                      Twine(n) + (matmul ? " (A, B)" : " (Q, K, V)") +
                      ", or 1 for all");

  if (attention) {
    // The op has one form: f32 accumulation and statistics. Only an
    // accumulator the op's own policy names is a mistake.
    if (attr && attr.getAccumulate() && !attr.getAccumulate().isF32())
      return refuse(op, diagnose,
                    "accel.attention accumulates in f32; its policy asks "
                    "for accumulate = " +
                        typeName(attr.getAccumulate()));
    p.accumulate = Float32Type::get(op->getContext());
  }

  // What the op cannot express: emulated, or refused.
  std::string opGap;
  if (attention && p.compute.isInteger(8))
    opGap = "accel.attention has no int8 form (Q, K and V are floats); use "
            "on-unsupported=emulate";
  else if (attention && isF8(p.compute) && p.scales == ScaleMode::Dynamic)
    opGap = "accel.attention computes in fp8 only with given scales or none "
            "(a run-time scale of Q·Kᵀ cannot join its constant scale); use "
            "scales=given, scales=none or on-unsupported=emulate";
  if (!opGap.empty()) {
    if (!options.emulate)
      return refuse(op, diagnose,
                    opGap + " to quantise and dequantise around an f32 "
                            "attention");
    plan.emulate = true;
  }

  // TF32 keeps the op in f32: its inputs are rounded to TF32 values in
  // f32, which every target multiplies exactly (tensor cores natively where
  // they take TF32, f32 kernels elsewhere), so no target refuses it.
  if (isa<FloatTF32Type>(p.compute))
    plan.emulate = true;

  // What the target cannot do.
  if (options.target && !plan.emulate) {
    PrecisionSupport support = getPrecisionSupport(options.target, p.compute);
    if (!support.native) {
      if (!options.emulate) {
        SmallVector<StringRef> features;
        for (StringAttr f : options.target.getFeatures())
          features.push_back(f.getValue());
        std::string message;
        llvm::raw_string_ostream os(message);
        os << "compute=" << p.compute << " needs " << support.requirement
           << " on target '" << options.target.getName() << "' (chip "
           << options.target.getChip()
           << ", features: " << llvm::join(features, ",") << ")";
        if (!support.note.empty())
          os << "; " << support.note;
        os << "; use on-unsupported=emulate to convert to f32";
        return refuse(op, diagnose, message);
      }
      plan.emulate = true;
    }
  }

  if (attention && !plan.emulate && p.scales == ScaleMode::Given &&
      !attention.getEffectiveScale())
    return refuse(op, diagnose,
                  "folding the fp8 scales of Q and K into the attention's "
                  "scale needs an explicit scale or a static head dimension");

  if (matmul && diagnose && !plan.emulate)
    warnLongNarrowAccumulation(matmul, p.accumulate);
  plan.debugScaleError = options.debugScaleError;
  return std::optional<PrecisionPlan>(plan);
}

//===----------------------------------------------------------------------===//
// Builders
//===----------------------------------------------------------------------===//

static Value f32Constant(OpBuilder &b, Location loc, double v) {
  return arith::ConstantOp::create(b, loc,
                                   b.getF32FloatAttr(static_cast<float>(v)));
}

/// A tensor.empty of `like`'s shape (dynamic sizes read from it) and element
/// type `elementType`.
static Value emptyLike(OpBuilder &b, Location loc, Value like,
                       Type elementType) {
  return tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, like),
                                 elementType);
}

/// An elementwise linalg.generic over `inputs` (one shape) writing
/// `body(elements)` into `dest`.
static Value
mapInto(OpBuilder &b, Location loc, ValueRange inputs, Value dest,
        function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  int64_t rank = cast<RankedTensorType>(dest.getType()).getRank();
  SmallVector<AffineMap> maps(inputs.size() + 1,
                              b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, dest.getType(), inputs, dest, maps, iterators,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l, body(nb, l, args.drop_back()));
             })
      .getResult(0);
}

/// The largest |x| of a tensor, as an f32 scalar: a reduction over every
/// dimension into a 0-d tensor (maximumf, so a NaN anywhere gives NaN).
static Value buildAmax(OpBuilder &b, Location loc, Value x) {
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  Type f32 = b.getF32Type();
  Value empty = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{}, f32);
  Value zeros = linalg::FillOp::create(b, loc, f32Constant(b, loc, 0.0), empty)
                    .getResult(0);
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank),
                                 AffineMap::get(rank, 0, {}, b.getContext())};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::reduction);
  Value reduced =
      linalg::GenericOp::create(
          b, loc, zeros.getType(), x, zeros, maps, iterators,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value abs = math::AbsFOp::create(nb, l, args[0]);
            linalg::YieldOp::create(
                nb, l,
                ValueRange{arith::MaximumFOp::create(nb, l, args[1], abs)});
          })
          .getResult(0);
  return tensor::ExtractOp::create(b, loc, reduced, ValueRange{});
}

/// scale = amax / largest, where the type's largest finite value (127 for
/// i8) is what amax maps to; a scale of 0 (amax = 0, or so small that the
/// division underflows) becomes 1.
static Value buildDynamicScale(OpBuilder &b, Location loc, Value x,
                               Type compute) {
  Value amax = buildAmax(b, loc, x);
  Value scale = arith::DivFOp::create(
      b, loc, amax, f32Constant(b, loc, getLargestQuantised(compute)));
  Value isZero = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, scale,
                                       f32Constant(b, loc, 0.0));
  return arith::SelectOp::create(b, loc, isZero, f32Constant(b, loc, 1.0),
                                 scale);
}

/// The f32 scale of input `index` of `op` under `p`, or null without scales.
static Value buildScale(OpBuilder &b, Location loc, const PrecisionPolicy &p,
                        Value input, unsigned index) {
  switch (p.scales) {
  case ScaleMode::None:
    return Value();
  case ScaleMode::Given:
    return f32Constant(b, loc,
                       p.scaleValues.size() == 1 ? p.scaleValues[0]
                                                 : p.scaleValues[index]);
  case ScaleMode::Dynamic:
    return buildDynamicScale(b, loc, input, p.compute);
  }
  return Value();
}

/// The f32 bound past which `compute`'s round to nearest even overflows, and
/// whether the bound itself overflows (a tie that rounds away from the
/// largest finite value, whose last significand bit is odd).
static std::pair<double, bool> overflowBoundary(Type compute) {
  const llvm::fltSemantics &sem = cast<FloatType>(compute).getFloatSemantics();
  APFloat largest = APFloat::getLargest(sem);
  // Half an ulp of the largest value: the next value would be largest + ulp.
  int exponent = ilogb(largest);
  double halfUlp =
      std::ldexp(1.0, exponent - int(APFloat::semanticsPrecision(sem)));
  bool odd = largest.bitcastToAPInt()[0];
  return {largest.convertToDouble() + halfUlp, odd};
}

/// The f32 scalar `x` in `compute`: divided by `scale` when there is one;
/// f16 and bf16 rounded (IEEE: overflow gives inf); fp8 saturated to its
/// largest finite value, or (overflow = nan) NaN where rounding to nearest
/// even would go past it (above 464 for f8E4M3FN, from 61440 for f8E5M2);
/// int8 rounded to nearest even and saturated to [-127, 127].
static Value quantise(OpBuilder &b, Location loc, Value x, Type compute,
                      Value scale, OverflowMode overflow) {
  if (scale)
    x = arith::DivFOp::create(b, loc, x, scale);
  if (compute.isF16() || compute.isBF16() || isa<FloatTF32Type>(compute))
    return arith::TruncFOp::create(b, loc, compute, x);
  double largest = getLargestQuantised(compute);
  auto clamp = [&](Value v) {
    v = arith::MaximumFOp::create(b, loc, v, f32Constant(b, loc, -largest));
    return arith::MinimumFOp::create(b, loc, v, f32Constant(b, loc, largest));
  };
  if (compute.isInteger(8)) {
    Value r = clamp(math::RoundEvenOp::create(b, loc, x));
    return arith::FPToSIOp::create(b, loc, compute, r);
  }
  if (overflow == OverflowMode::NaN) {
    // Explicit, so that the policy does not depend on what the cast does
    // with overflow (f8E5M2 would give inf).
    auto [boundary, tieOverflows] = overflowBoundary(compute);
    Value abs = math::AbsFOp::create(b, loc, x);
    Value beyond = arith::CmpFOp::create(
        b, loc,
        tieOverflows ? arith::CmpFPredicate::OGE : arith::CmpFPredicate::OGT,
        abs, f32Constant(b, loc, boundary));
    Value nan = f32Constant(b, loc, std::nan(""));
    x = arith::SelectOp::create(b, loc, beyond, nan, x);
  } else {
    x = clamp(x);
  }
  return arith::TruncFOp::create(b, loc, compute, x);
}

/// `q` (of the compute type) back in f32, times `scale` when there is one.
static Value dequantise(OpBuilder &b, Location loc, Value q, Value scale) {
  Type f32 = b.getF32Type();
  Value x = isa<IntegerType>(q.getType())
                ? Value(arith::SIToFPOp::create(b, loc, f32, q))
                : Value(arith::ExtFOp::create(b, loc, f32, q));
  return scale ? Value(arith::MulFOp::create(b, loc, x, scale)) : x;
}

/// The overflow policy in force: with dynamic scales only the rounding of
/// the scale can carry a value past the largest finite one, by an ulp, so
/// such values saturate whatever the policy.
static OverflowMode overflowOf(const PrecisionPolicy &p) {
  return p.scales == ScaleMode::Dynamic ? OverflowMode::Saturate : p.overflow;
}

/// The scale that dequantises the last input: `scale`, or with the test-only
/// `debug-scale-error` (PrecisionPlan::debugScaleError), `scale` times
/// 1 + that factor, a deliberate scale error. Null without a scale.
static Value skewedScale(OpBuilder &b, Location loc, const PrecisionPlan &plan,
                         Value scale) {
  if (!scale || plan.debugScaleError == 0.0)
    return scale;
  return arith::MulFOp::create(b, loc, scale,
                               f32Constant(b, loc, 1.0 + plan.debugScaleError));
}

/// `input` quantised to the compute type with `scale` (emulating: and back
/// to f32, with `dequantScale`, which is `scale` unless skewed).
static Value quantiseTensor(OpBuilder &b, Location loc,
                            const PrecisionPlan &plan, Value input, Value scale,
                            Value dequantScale) {
  const PrecisionPolicy &p = plan.policy;
  Type elementType = plan.emulate ? b.getF32Type() : p.compute;
  return mapInto(b, loc, input, emptyLike(b, loc, input, elementType),
                 [&](OpBuilder &nb, Location l, ValueRange x) -> Value {
                   Value q =
                       quantise(nb, l, x[0], p.compute, scale, overflowOf(p));
                   return plan.emulate ? dequantise(nb, l, q, dequantScale) : q;
                 });
}

/// The op's f32 result from `r`, the lowered op's: converted to f32, times
/// `scale`, plus `addend` (an f32 tensor), each when given, and rounded to
/// `output`. Written into `r` when it is f32, else into `dest`.
static Value finish(OpBuilder &b, Location loc, Value r, Value scale,
                    Value addend, Type output, Value dest) {
  Type f32 = b.getF32Type();
  Type rType = getElementTypeOrSelf(r.getType());
  bool changed = scale || addend;
  bool round = !output.isF32() && (rType != output || changed);
  if (rType.isF32() && !changed && !round)
    return r;
  SmallVector<Value> inputs = {r};
  if (addend)
    inputs.push_back(addend);
  return mapInto(b, loc, inputs, rType.isF32() ? r : dest,
                 [&](OpBuilder &nb, Location l, ValueRange x) -> Value {
                   Value v = x[0];
                   if (isa<IntegerType>(rType))
                     v = arith::SIToFPOp::create(nb, l, f32, v);
                   else if (!rType.isF32())
                     v = arith::ExtFOp::create(nb, l, f32, v);
                   if (scale)
                     v = arith::MulFOp::create(nb, l, v, scale);
                   if (addend)
                     v = arith::AddFOp::create(nb, l, v, x[1]);
                   if (round) {
                     Value narrow = arith::TruncFOp::create(nb, l, output, v);
                     v = arith::ExtFOp::create(nb, l, f32, narrow);
                   }
                   return v;
                 });
}

/// Marks an emulated f32 op so that the pass leaves it alone from now on.
static void markF32(Operation *op) {
  MLIRContext *ctx = op->getContext();
  op->setAttr(kPrecisionAttrName,
              PrecisionAttr::get(ctx, Float32Type::get(ctx), Type(), Type(),
                                 std::nullopt, DenseF64ArrayAttr(),
                                 std::nullopt));
}

//===----------------------------------------------------------------------===//
// Lowering
//===----------------------------------------------------------------------===//

static Value lowerMatmul(RewriterBase &rewriter, MatmulOp op,
                         const PrecisionPlan &plan) {
  const PrecisionPolicy &p = plan.policy;
  Location loc = op.getLoc();
  Type f32 = rewriter.getF32Type();
  Value sa = buildScale(rewriter, loc, p, op.getLhs(), 0);
  Value sb = buildScale(rewriter, loc, p, op.getRhs(), 1);
  // B is dequantised with `dequantB` (sb, unless a test skews it).
  Value dequantB = skewedScale(rewriter, loc, plan, sb);
  Value a = quantiseTensor(rewriter, loc, plan, op.getLhs(), sa, sa);
  Value b = quantiseTensor(rewriter, loc, plan, op.getRhs(), sb, dequantB);
  Value c = op.getInit();
  bool accumulate = op.getAccumulate();

  if (plan.emulate) {
    auto mm = MatmulOp::create(rewriter, loc, c.getType(), a, b, Value(),
                               Value(), c, op.getTransposeB(), accumulate);
    markF32(mm);
    if (isa<FloatTF32Type>(p.compute))
      mm->setAttr(kTf32InputsAttrName, rewriter.getUnitAttr());
    return finish(rewriter, loc, mm.getResult(), Value(), Value(), p.output, c);
  }

  // C's type is the accumulator; a scaled op dequantises into C, so there
  // it is the output type (f32 when C is read, so that C adds in f32).
  Type cType = p.isScaled() ? (accumulate || p.output.isF32() ? f32 : p.output)
                            : p.accumulate;
  bool addLater = accumulate && !cType.isF32();
  Value init = cType.isF32() ? c : emptyLike(rewriter, loc, c, cType);
  auto mm = MatmulOp::create(rewriter, loc, init.getType(), a, b,
                             p.isScaled() ? sa : Value(),
                             p.isScaled() ? dequantB : Value(), init,
                             op.getTransposeB(), accumulate && !addLater);
  return finish(rewriter, loc, mm.getResult(), Value(), addLater ? c : Value(),
                p.output, c);
}

static Value lowerAttention(RewriterBase &rewriter, AttentionOp op,
                            const PrecisionPlan &plan) {
  const PrecisionPolicy &p = plan.policy;
  Location loc = op.getLoc();
  Type f32 = rewriter.getF32Type();
  Value inputs[3] = {op.getQuery(), op.getKey(), op.getValue()};
  Value scales[3], quantised[3];
  for (unsigned i = 0; i < 3; ++i) {
    scales[i] = buildScale(rewriter, loc, p, inputs[i], i);
    // V is dequantised with its scale, unless a test skews it.
    Value dequant =
        i == 2 ? skewedScale(rewriter, loc, plan, scales[i]) : scales[i];
    quantised[i] =
        quantiseTensor(rewriter, loc, plan, inputs[i], scales[i], dequant);
    if (i == 2)
      scales[i] = dequant;
  }
  Value o = op.getInit();
  FloatAttr scaleAttr = op.getScaleAttr();
  Value valueScale;
  Type oType = p.output;
  if (plan.emulate) {
    oType = f32;
  } else if (p.scales == ScaleMode::Given) {
    // s = scale·(sq·Q8)·(sk·K8)ᵀ: sq·sk joins the constant scale; V's scale
    // multiplies the output, which stays f32 until then.
    auto given = [&](unsigned i) {
      return p.scaleValues.size() == 1 ? p.scaleValues[0] : p.scaleValues[i];
    };
    double folded = *op.getEffectiveScale() * given(0) * given(1);
    scaleAttr = rewriter.getF32FloatAttr(static_cast<float>(folded));
    valueScale = scales[2];
    oType = f32;
  }
  Value init = oType.isF32() ? o : emptyLike(rewriter, loc, o, oType);
  auto attention = AttentionOp::create(
      rewriter, loc, init.getType(), quantised[0], quantised[1], quantised[2],
      op.getMask(), op.getKvLengths(), op.getQLengths(), op.getDiagonal(), init,
      scaleAttr, op.getCausalAttr(), op.getWindowAttr());
  if (plan.emulate) {
    markF32(attention);
    // Q, K and V hold TF32 values: the GPUs' TF32 / xf32 attention kernels
    // (which round P to TF32 too) may take them.
    if (isa<FloatTF32Type>(p.compute))
      attention->setAttr(kTf32InputsAttrName, rewriter.getUnitAttr());
  }
  return finish(rewriter, loc, attention.getResult(), valueScale, Value(),
                p.output, o);
}

Value accel::lowerPrecision(RewriterBase &rewriter, Operation *op,
                            const PrecisionPlan &plan) {
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  if (auto matmul = dyn_cast<MatmulOp>(op))
    return lowerMatmul(rewriter, matmul, plan);
  return lowerAttention(rewriter, cast<AttentionOp>(op), plan);
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

namespace {
template <typename OpTy>
struct LowerPrecisionPattern : public OpRewritePattern<OpTy> {
  LowerPrecisionPattern(MLIRContext *ctx, const LowerPrecisionOptions &options)
      : OpRewritePattern<OpTy>(ctx), options(options) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    FailureOr<std::optional<PrecisionPlan>> plan =
        planLowerPrecision(op, options, /*diagnose=*/false);
    if (failed(plan))
      return rewriter.notifyMatchFailure(
          op, "the precision policy cannot apply to this op on this target");
    if (!*plan)
      return rewriter.notifyMatchFailure(op, "no precision to lower to");
    rewriter.replaceOp(op, lowerPrecision(rewriter, op, **plan));
    return success();
  }

  LowerPrecisionOptions options;
};
} // namespace

void accel::populateLowerPrecisionPatterns(
    RewritePatternSet &patterns, const LowerPrecisionOptions &options) {
  patterns
      .add<LowerPrecisionPattern<MatmulOp>, LowerPrecisionPattern<AttentionOp>>(
          patterns.getContext(), options);
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {
struct AccelLowerPrecisionPass
    : public accel::impl::AccelLowerPrecisionPassBase<AccelLowerPrecisionPass> {
  using Base::Base;

  /// The type an option names, or failure (reported at `module`).
  FailureOr<Type> parseTypeOption(ModuleOp module, StringRef name,
                                  StringRef value) {
    if (value.empty())
      return Type();
    Type type;
    {
      // A name that is not a type is reported below, in the option's terms.
      ScopedDiagnosticHandler silence(&getContext(),
                                      [](Diagnostic &) { return success(); });
      type = mlir::parseType(value, &getContext());
    }
    if (!type) {
      mlir::emitError(module.getLoc()) << "accel-lower-precision: " << name
                                       << "=" << value << " is not a type";
      return failure();
    }
    return type;
  }

  /// The enum value an option names (none when it is empty), or failure
  /// (reported at `module`, with the `allowed` names).
  template <typename E>
  static FailureOr<std::optional<E>>
  parseEnumOption(ModuleOp module, StringRef name, StringRef value,
                  std::optional<E> (*symbolize)(StringRef), StringRef allowed) {
    if (value.empty())
      return std::optional<E>();
    std::optional<E> e = symbolize(value);
    if (!e) {
      mlir::emitError(module.getLoc())
          << "accel-lower-precision: " << name << " must be " << allowed
          << ", got '" << value << "'";
      return failure();
    }
    return e;
  }

  /// The options as a policy (none without `compute`), or failure.
  FailureOr<std::optional<PrecisionPolicy>> policyFromOptions(ModuleOp module) {
    FailureOr<Type> computeType = parseTypeOption(module, "compute", compute);
    FailureOr<Type> accType = parseTypeOption(module, "accumulate", accumulate);
    FailureOr<Type> outType = parseTypeOption(module, "output", output);
    if (failed(computeType) || failed(accType) || failed(outType))
      return failure();
    FailureOr<std::optional<ScaleMode>> scaleOption = parseEnumOption(
        module, "scales", scales, symbolizeScaleMode, "dynamic, given or none");
    FailureOr<std::optional<OverflowMode>> overflowOption = parseEnumOption(
        module, "overflow", overflow, symbolizeOverflowMode, "saturate or nan");
    if (failed(scaleOption) || failed(overflowOption))
      return failure();
    std::optional<ScaleMode> scaleMode = *scaleOption;
    std::optional<OverflowMode> overflowMode = *overflowOption;
    if (!*computeType) {
      if (*accType || *outType || scaleMode || overflowMode ||
          !scaleValues.empty()) {
        mlir::emitError(module.getLoc())
            << "accel-lower-precision: accumulate, output, scales, "
               "scale-values and overflow need compute";
        return failure();
      }
      return std::optional<PrecisionPolicy>();
    }
    SmallVector<double> values(scaleValues.begin(), scaleValues.end());
    FailureOr<PrecisionPolicy> policy = resolvePrecisionPolicy(
        [&] {
          return mlir::emitError(module.getLoc()) << "accel-lower-precision: ";
        },
        *computeType, *accType, *outType, scaleMode, values, overflowMode);
    if (failed(policy))
      return failure();
    return std::optional<PrecisionPolicy>(*policy);
  }

  /// weight-only=int4|int8 (docs/quantization.md): every matmul with
  /// constant weights becomes an accel.dequant_matmul; nothing else changes.
  void runWeightOnly(ModuleOp module) {
    WeightOnlyOptions o;
    o.bits = weightOnly == "int4" ? 4 : 8;
    o.group = weightGroup;
    o.symmetric = weightSymmetric;
    bool failedAny = false;
    // Every float-constant weight the mode cannot take is reported before
    // anything changes; other matmuls are left alone.
    module.walk([&](MatmulOp op) {
      DenseFPElementsAttr weights;
      if (matchPattern(op.getRhs(), m_Constant(&weights)) &&
          failed(checkWeightOnlyCandidate(op, o, nullptr, /*diagnose=*/true)))
        failedAny = true;
    });
    if (failedAny)
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    populateAccelWeightOnlyPatterns(patterns, o);
    walkAndApplyPatterns(module, std::move(patterns));
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!weightOnly.empty()) {
      if (weightOnly != "int4" && weightOnly != "int8") {
        mlir::emitError(module.getLoc())
            << "accel-lower-precision: weight-only must be int4 or int8, got '"
            << weightOnly << "'";
        return signalPassFailure();
      }
      if (weightGroup < 0) {
        mlir::emitError(module.getLoc())
            << "accel-lower-precision: weight-group must not be negative (0: "
               "per channel), got "
            << static_cast<int64_t>(weightGroup);
        return signalPassFailure();
      }
      if (!compute.empty()) {
        mlir::emitError(module.getLoc())
            << "accel-lower-precision: weight-only and compute are separate "
               "modes; run the pass once for each";
        return signalPassFailure();
      }
      return runWeightOnly(module);
    }
    LowerPrecisionOptions options;
    FailureOr<std::optional<PrecisionPolicy>> policy =
        policyFromOptions(module);
    if (failed(policy))
      return signalPassFailure();
    options.policy = *policy;
    if (onUnsupported != "error" && onUnsupported != "emulate") {
      mlir::emitError(module.getLoc())
          << "accel-lower-precision: on-unsupported must be error or "
             "emulate, got '"
          << onUnsupported << "'";
      return signalPassFailure();
    }
    options.emulate = onUnsupported == "emulate";
    if (!std::isfinite(debugScaleError) || debugScaleError <= -1.0) {
      mlir::emitError(module.getLoc())
          << "accel-lower-precision: debug-scale-error must be finite and "
             "greater than -1, got "
          << debugScaleError;
      return signalPassFailure();
    }
    options.debugScaleError = debugScaleError;
    FailureOr<TargetAttr> target =
        resolveTarget(module, targetName, "accel-lower-precision");
    if (failed(target))
      return signalPassFailure();
    options.target = *target;

    // Every problem is reported before anything changes.
    bool failedAny = false;
    module.walk([&](Operation *op) {
      if (isa<MatmulOp, AttentionOp>(op))
        failedAny |= failed(planLowerPrecision(op, options, /*diagnose=*/true));
    });
    if (failedAny)
      return signalPassFailure();

    // One visit per op: the new ops are not f32 (or, emulated, are marked
    // compute = f32), and nothing else is folded or simplified.
    RewritePatternSet patterns(&getContext());
    populateLowerPrecisionPatterns(patterns, options);
    walkAndApplyPatterns(module, std::move(patterns));
  }
};
} // namespace
