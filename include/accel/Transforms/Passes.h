//===- Passes.h - accel transformation passes -------------------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_TRANSFORMS_PASSES_H
#define ACCEL_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::accel {

/// Name of the module attribute that holds the #accel.target.
inline constexpr llvm::StringLiteral kTargetAttrName = "accel.target";

#define GEN_PASS_DECL
#include "accel/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "accel/Transforms/Passes.h.inc"

} // namespace mlir::accel

#endif // ACCEL_TRANSFORMS_PASSES_H
