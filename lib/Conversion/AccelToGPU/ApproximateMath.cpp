//===- ApproximateMath.cpp - device-library-free math in GPU kernels ------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel-gpu-approximate-math: exp, tanh, erf and rsqrt in a gpu.module
// become arith (upstream's polynomials; 1 / sqrt), so that neither GPU
// lowering calls a device library (CUDA's libdevice, ROCm's OCML).
//
//===----------------------------------------------------------------------===//

#include "accel/Conversion/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELGPUAPPROXIMATEMATHPASS
#include "accel/Conversion/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;

namespace {

struct AccelGpuApproximateMathPass
    : public mlir::accel::impl::AccelGpuApproximateMathPassBase<
          AccelGpuApproximateMathPass> {
  using Base::Base;

  void runOnOperation() override {
    auto wanted = [](StringRef name) {
      return llvm::is_contained(
          {"exp", "math.exp", "tanh", "math.tanh", "erf", "math.erf",
           "rsqrt", "math.rsqrt"},
          name);
    };
    // Also widened from f16 / bf16: what rewriteLeftovers handles on f32.
    auto widened = [&](StringRef name) {
      return wanted(name) ||
             llvm::is_contained({"floor", "math.floor", "sqrt", "math.sqrt",
                                 "absf", "math.absf", "fma", "math.fma", "ceil",
                                 "math.ceil", "round", "math.round",
                                 "roundeven", "math.roundeven", "trunc",
                                 "math.trunc"},
                                name);
    };
    RewritePatternSet patterns(&getContext());
    // f16 / bf16 through f32, then the f32 polynomials; rsqrt as 1 / sqrt.
    populateMathF32ExpansionPatterns(patterns, widened);
    populateMathPolynomialApproximationPatterns(patterns, wanted);
    math::populateExpansionPatterns(patterns, {"rsqrt"});
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    rewriteLeftovers();
    // Anything left would become a library call the code object lacks.
    WalkResult left = getOperation().walk([&](Operation *op) {
      if (isa<math::ExpOp, math::TanhOp, math::ErfOp, math::RsqrtOp,
              math::FloorOp, math::CeilOp, math::RoundOp, math::RoundEvenOp,
              math::TruncOp>(op) ||
          (nvvm && isa<math::SqrtOp, math::AbsFOp, math::FmaOp>(op))) {
        op->emitOpError("has no library-free lowering on this type (f16, "
                        "bf16 and f32 have one)");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (left.wasInterrupted())
      signalPassFailure();
  }

  /// What the polynomials leave on f32 that a GPU lowering would make a
  /// library call: floor (both: OCML's and libdevice's), and with `nvvm`
  /// fma, absf and sqrt (libdevice's), and arith.maxnumf / minnumf on any
  /// float (__nv_fmaxf / __nv_fminf). floor is exact arithmetic (below 2^23
  /// in magnitude truncate and step down where that rose, else x itself,
  /// the sign of x kept so floor(-0) = -0); fma becomes llvm.fma, absf a
  /// sign-bit mask, sqrt the NVVM intrinsic `sqrt.rn.f32` (correctly
  /// rounded).
  void rewriteLeftovers() {
    // Rounding to integers on f16 / bf16 (upstream's f32 expansion leaves
    // it): through f32, exactly (the results are integers the narrow type
    // holds, or the value itself).
    SmallVector<Operation *> narrow;
    getOperation().walk([&](Operation *op) {
      if (isa<math::CeilOp, math::RoundOp, math::RoundEvenOp, math::TruncOp>(
              op) &&
          isa<Float16Type, BFloat16Type>(op->getResult(0).getType()))
        narrow.push_back(op);
    });
    for (Operation *op : narrow) {
      OpBuilder b(op);
      Type type = op->getResult(0).getType();
      Value wide = arith::ExtFOp::create(b, op->getLoc(), b.getF32Type(),
                                         op->getOperand(0));
      OperationState state(op->getLoc(), op->getName());
      state.addOperands(wide);
      state.addTypes(b.getF32Type());
      state.addAttributes(op->getAttrs());
      Operation *f32Op = b.create(state);
      Value back =
          arith::TruncFOp::create(b, op->getLoc(), type, f32Op->getResult(0));
      op->getResult(0).replaceAllUsesWith(back);
      op->erase();
    }
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (op->getNumResults() != 1)
        return;
      // fma is elementwise: llvm.fma takes vectors of f32 as well.
      if (nvvm && isa<math::FmaOp>(op) &&
          getElementTypeOrSelf(op->getResult(0).getType()).isF32()) {
        ops.push_back(op);
        return;
      }
      // maxnumf / minnumf: llvm.maxnum / minnum (PTX max / min, which
      // ignore a NaN operand as these do), on any float.
      if (nvvm && isa<arith::MaxNumFOp, arith::MinNumFOp>(op) &&
          isa<FloatType>(op->getResult(0).getType())) {
        ops.push_back(op);
        return;
      }
      if (!op->getResult(0).getType().isF32())
        return;
      if (isa<math::FloorOp, math::CeilOp, math::RoundOp, math::RoundEvenOp,
              math::TruncOp>(op) ||
          (nvvm && isa<math::AbsFOp, math::SqrtOp, math::FmaOp>(op)))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      OpBuilder b(op);
      Location loc = op->getLoc();
      Type f32 = b.getF32Type(), i32 = b.getI32Type();
      auto bits = [&](Value v) -> Value {
        return arith::BitcastOp::create(b, loc, i32, v);
      };
      auto i32c = [&](int64_t v) -> Value {
        return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
      };
      auto absBits = [&](Value v) -> Value {
        return arith::AndIOp::create(b, loc, bits(v), i32c(0x7FFFFFFF));
      };
      Value x = op->getOperand(0);
      Value r;
      if (isa<arith::MaxNumFOp>(op)) {
        r = LLVM::MaxNumOp::create(b, loc, x, op->getOperand(1));
      } else if (isa<arith::MinNumFOp>(op)) {
        r = LLVM::MinNumOp::create(b, loc, x, op->getOperand(1));
      } else if (auto fma = dyn_cast<math::FmaOp>(op)) {
        r = LLVM::FMAOp::create(b, loc, fma.getA(), fma.getB(), fma.getC());
      } else if (isa<math::AbsFOp>(op)) {
        r = arith::BitcastOp::create(b, loc, f32, absBits(x));
      } else if (isa<math::SqrtOp>(op)) {
        r = LLVM::CallIntrinsicOp::create(b, loc, f32,
                                          b.getStringAttr("llvm.nvvm.sqrt.rn.f"),
                                          ValueRange{x})
                .getResult(0);
      } else if (isa<math::CeilOp, math::RoundOp, math::RoundEvenOp,
                     math::TruncOp>(op)) {
        // On the magnitude a = |x| < 2^23: t = trunc(a) through i32, the
        // fraction a - t exact; t rises by one where the rounding says
        // (ceil: a fraction of a positive x; round: one of at least 1/2;
        // roundeven: more than 1/2, or 1/2 with t odd). Else (larger, inf,
        // NaN) x is its own result. The sign of x is kept (-0.3 -> -0).
        Value a = arith::BitcastOp::create(b, loc, f32, absBits(x));
        Value ti = arith::FPToSIOp::create(b, loc, i32, a);
        Value t = arith::SIToFPOp::create(b, loc, f32, ti);
        Value frac = arith::SubFOp::create(b, loc, a, t);
        auto fcmp = [&](arith::CmpFPredicate p, Value l, double c) -> Value {
          return arith::CmpFOp::create(
              b, loc, p, l,
              arith::ConstantOp::create(b, loc, b.getF32FloatAttr(c)));
        };
        Value sign =
            arith::AndIOp::create(b, loc, bits(x), i32c(int32_t(0x80000000)));
        Value up;
        if (isa<math::CeilOp>(op))
          up = arith::AndIOp::create(
              b, loc, fcmp(arith::CmpFPredicate::OGT, frac, 0.0),
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, sign,
                                    i32c(0)));
        else if (isa<math::RoundOp>(op))
          up = fcmp(arith::CmpFPredicate::OGE, frac, 0.5);
        else if (isa<math::RoundEvenOp>(op))
          up = arith::OrIOp::create(
              b, loc, fcmp(arith::CmpFPredicate::OGT, frac, 0.5),
              arith::AndIOp::create(
                  b, loc, fcmp(arith::CmpFPredicate::OEQ, frac, 0.5),
                  arith::CmpIOp::create(
                      b, loc, arith::CmpIPredicate::ne,
                      arith::AndIOp::create(b, loc, ti, i32c(1)), i32c(0))));
        Value m = t; // trunc
        if (up) {
          Value one = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1));
          m = arith::SelectOp::create(b, loc, up,
                                      arith::AddFOp::create(b, loc, t, one), t);
        }
        Value small = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            absBits(x), i32c(0x4B000000));
        Value f = arith::SelectOp::create(b, loc, small, m, a);
        r = arith::BitcastOp::create(
            b, loc, f32, arith::OrIOp::create(b, loc, absBits(f), sign));
      } else {
        Value t = arith::SIToFPOp::create(
            b, loc, f32, arith::FPToSIOp::create(b, loc, i32, x));
        Value rose = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                           t, x);
        Value one = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1));
        Value down = arith::SelectOp::create(
            b, loc, rose, arith::SubFOp::create(b, loc, t, one), t);
        // |x| < 2^23 (as bits, so NaN and inf are not): else x is whole.
        Value small = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            absBits(x), i32c(0x4B000000));
        Value f = arith::SelectOp::create(b, loc, small, down, x);
        Value sign =
            arith::AndIOp::create(b, loc, bits(x), i32c(int32_t(0x80000000)));
        r = arith::BitcastOp::create(
            b, loc, f32, arith::OrIOp::create(b, loc, absBits(f), sign));
      }
      op->getResult(0).replaceAllUsesWith(r);
      op->erase();
    }
  }
};

} // namespace
