//===- ReturnArguments.cpp - return out-arguments without copies ----------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel functions write their `outs` arguments in place and return them.
// Ownership-based buffer deallocation assumes every returned memref is owned
// by the caller and clones the ones the function does not own, which would
// copy each result into a fresh buffer nobody frees. Under accel's calling
// convention a returned argument is the caller's own buffer: the clone is
// dropped and the argument returned.
//
//===----------------------------------------------------------------------===//

#include "accel/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELRETURNARGUMENTSPASS
#include "accel/Transforms/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;

/// Whether `value` is (a view of) an argument of `func`'s entry block.
static bool isArgumentView(Value value, func::FuncOp func) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  auto arg = dyn_cast<BlockArgument>(value);
  return arg && arg.getOwner() == &func.getBody().front();
}

namespace {
struct AccelReturnArgumentsPass
    : public accel::impl::AccelReturnArgumentsPassBase<
          AccelReturnArgumentsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<bufferization::CloneOp> clones;
    func.walk([&](bufferization::CloneOp clone) {
      if (clone->hasOneUse() && isa<func::ReturnOp>(*clone->user_begin()) &&
          isArgumentView(clone.getInput(), func))
        clones.push_back(clone);
    });
    for (bufferization::CloneOp clone : clones) {
      clone.getOutput().replaceAllUsesWith(clone.getInput());
      clone.erase();
    }
  }
};
} // namespace
