//===- FuseEpilogues.cpp - a matmul's elementwise consumers in place ------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel-fuse-epilogues: the chain of elementwise linalg.generics that
// consumes an accel.matmul's result (bias, activation, residual, scale, as
// torch-mlir and IREE emit them) becomes one generic that updates the
// matmul's result in place: `outs` is the matmul's result and the body
// reads the accumulator through its output argument. After bufferization
// the generic writes C's own buffer right after the matmul does, which the
// CPU kernels recognise and apply to the C tile in registers.
//
//===----------------------------------------------------------------------===//

#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "accel/Transforms/Passes.h"
#include "accel/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELFUSEEPILOGUESPASS
#include "accel/Transforms/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;

/// An elementwise generic on tensors: every loop parallel, one result, and
/// an output indexed by the identity.
static bool isElementwise(linalg::GenericOp g) {
  return g.hasPureTensorSemantics() && g.getNumResults() == 1 &&
         g.getNumDpsInits() == 1 &&
         g.getNumParallelLoops() == g.getNumLoops() &&
         g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity();
}

/// The elementwise generic that is `v`'s only user, reading it as one or
/// more inputs.
static linalg::GenericOp soleElementwiseUser(Value v) {
  if (v.use_empty())
    return {};
  auto g = dyn_cast<linalg::GenericOp>(v.use_begin()->getOwner());
  if (!g || !isElementwise(g))
    return {};
  for (OpOperand &use : v.getUses())
    if (use.getOwner() != g.getOperation() || g.isDpsInit(&use))
      return {};
  return g;
}

/// Fuses the elementwise generics that consume `result` one after another
/// (each the only user of the one before) into one; returns the last.
static linalg::GenericOp fuseChain(RewriterBase &rewriter, Value result) {
  linalg::GenericOp first = soleElementwiseUser(result);
  if (!first)
    return {};
  linalg::GenericOp current = first;
  while (linalg::GenericOp next = soleElementwiseUser(current->getResult(0))) {
    if (!current->getResult(0).hasOneUse())
      break;
    OpOperand *operand = &*current->getResult(0).use_begin();
    if (!linalg::areElementwiseOpsFusable(operand))
      break;
    rewriter.setInsertionPoint(next);
    FailureOr<linalg::ElementwiseOpFusionResult> fused =
        linalg::fuseElementwiseOps(rewriter, operand);
    if (failed(fused))
      break;
    auto fusedOp = dyn_cast<linalg::GenericOp>(fused->fusedOp);
    for (auto [original, replacement] : fused->replacements)
      rewriter.replaceUsesWithIf(original, replacement, [&](OpOperand &use) {
        return use.getOwner() != current.getOperation();
      });
    rewriter.eraseOp(next);
    if (current->use_empty())
      rewriter.eraseOp(current);
    if (!fusedOp || fusedOp->getNumResults() != 1)
      return {};
    current = fusedOp;
  }
  return current;
}

/// Rewrites `g` (elementwise, reading `acc` as one or more inputs indexed
/// like its output, with a result of `acc`'s type and an output whose
/// value it ignores) to update `acc` in place: `outs(acc)`, the inputs
/// that were `acc` read through the output argument instead.
static LogicalResult updateInPlace(RewriterBase &rewriter, linalg::GenericOp g,
                                   Value acc) {
  if (g->getResult(0).getType() != acc.getType())
    return failure();
  Block &body = g.getRegion().front();
  OpOperand *init = g.getDpsInitOperand(0);
  if (!body.getArgument(init->getOperandNumber()).use_empty())
    return failure();
  AffineMap outMap = g.getMatchingIndexingMap(init);
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  SmallVector<unsigned> kept;
  for (OpOperand *in : g.getDpsInputOperands()) {
    if (in->get() == acc) {
      if (g.getMatchingIndexingMap(in) != outMap)
        return failure();
      continue;
    }
    inputs.push_back(in->get());
    maps.push_back(g.getMatchingIndexingMap(in));
    kept.push_back(in->getOperandNumber());
  }
  maps.push_back(outMap);
  rewriter.setInsertionPoint(g);
  auto inPlace = linalg::GenericOp::create(
      rewriter, g.getLoc(), TypeRange{acc.getType()}, inputs, ValueRange{acc},
      maps, g.getIteratorTypesArray(),
      [&](OpBuilder &b, Location loc, ValueRange args) {
        IRMapping mapping;
        for (auto [i, operand] : llvm::enumerate(kept))
          mapping.map(body.getArgument(operand), args[i]);
        for (OpOperand *in : g.getDpsInputOperands())
          if (in->get() == acc)
            mapping.map(body.getArgument(in->getOperandNumber()), args.back());
        for (Operation &op : body.without_terminator())
          b.clone(op, mapping);
        linalg::YieldOp::create(
            b, loc, mapping.lookup(body.getTerminator()->getOperand(0)));
      });
  rewriter.replaceOp(g, inPlace->getResults());
  return success();
}

namespace {
struct AccelFuseEpiloguesPass
    : public accel::impl::AccelFuseEpiloguesPassBase<AccelFuseEpiloguesPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<accel::MatmulOp> matmuls;
    getOperation()->walk([&](accel::MatmulOp op) { matmuls.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (accel::MatmulOp op : matmuls) {
      Value acc = op.getResult();
      linalg::GenericOp epilogue = fuseChain(rewriter, acc);
      if (epilogue)
        (void)updateInPlace(rewriter, epilogue, acc);
    }
  }
};
} // namespace
