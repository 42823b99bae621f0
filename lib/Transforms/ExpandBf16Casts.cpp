//===- ExpandBf16Casts.cpp - bf16 casts as integer arithmetic -------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel-expand-bf16-casts: arith.truncf to bf16 and arith.extf from bf16 on
// the f32 bit pattern (upstream's arith BF16 expansion patterns), for the
// CPU pipeline. On a host with AVX512-BF16 LLVM lowers `fptrunc` to bf16 to
// `vcvtneps2bf16`, which flushes subnormal results to zero whatever MXCSR
// says: a bf16 result below 2^-126 became 0 and failed the fp64 oracle
// (docs/bad-input-catalogue.md, F3). The integer form rounds to nearest
// even with subnormals kept and NaNs quiet, the same on every CPU; a vector
// of 16 costs a few integer operations instead of one instruction, only
// where f32 is rounded to bf16 (epilogues and conversion copies, never the
// inner loop of a contraction). The bf16 dot kernels' vdpbf16ps flushes
// subnormals too; that is not a cast and stays (F3). A truncation marked
// accel.bf16_flush (cpu-flash-amx's P, compiled with bf16-subnormals=flush)
// is left to LLVM.
//
//===----------------------------------------------------------------------===//

#include "accel/Dialect/Accel/IR/AccelAttrs.h"
#include "accel/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELEXPANDBF16CASTSPASS
#include "accel/Transforms/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;

namespace {
struct AccelExpandBf16CastsPass
    : public accel::impl::AccelExpandBf16CastsPassBase<
          AccelExpandBf16CastsPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    arith::populateExpandBFloat16Patterns(patterns);
    // Truncations marked kBf16FlushAttrName may flush subnormals: they stay
    // for LLVM (vcvtneps2bf16 on AVX512-BF16 hosts); every other bf16 cast
    // is expanded.
    FrozenRewritePatternSet frozen(std::move(patterns));
    SmallVector<Operation *> targets;
    getOperation()->walk([&](Operation *op) {
      if (isa<arith::TruncFOp, arith::ExtFOp>(op) &&
          !op->hasAttr(accel::kBf16FlushAttrName))
        targets.push_back(op);
    });
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    (void)applyOpPatternsGreedily(targets, frozen, config);
  }
};
} // namespace
