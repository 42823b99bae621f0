//===- Passes.h - accel transformation passes -------------------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_TRANSFORMS_PASSES_H
#define ACCEL_TRANSFORMS_PASSES_H

#include "accel/Target/Catalogue.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::accel {

// kTargetAttrName (the module attribute that holds the #accel.target) is
// declared with the catalogue.

#define GEN_PASS_DECL
#include "accel/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "accel/Transforms/Passes.h.inc"

} // namespace mlir::accel

#endif // ACCEL_TRANSFORMS_PASSES_H
