//===- AttachTarget.cpp - attach a catalogue target -----------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel-attach-target: sets the module's accel.target to a catalogue entry.
//
//===----------------------------------------------------------------------===//

#include "accel/Dialect/Accel/IR/AccelDialect.h"
#include "accel/Target/Catalogue.h"
#include "accel/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELATTACHTARGETPASS
#include "accel/Transforms/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;
using namespace mlir::accel;

namespace {
struct AccelAttachTargetPass
    : public accel::impl::AccelAttachTargetPassBase<AccelAttachTargetPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    TargetAttr target = lookupTarget(&getContext(), targetName);
    if (!target) {
      SmallVector<StringRef> names;
      for (const TargetSpec &spec : getTargetCatalogue())
        names.push_back(spec.name);
      mlir::emitError(module.getLoc()) << "unknown target '" << targetName
                         << "'; known targets: " << llvm::join(names, ", ");
      return signalPassFailure();
    }
    module->setAttr(kTargetAttrName, target);
  }
};
} // namespace
