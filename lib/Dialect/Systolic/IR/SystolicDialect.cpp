//===- SystolicDialect.cpp - systolic dialect -----------------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "accel/Dialect/Systolic/IR/SystolicDialect.h"
#include "accel/Dialect/Systolic/IR/SystolicOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::systolic;

#include "accel/Dialect/Systolic/IR/SystolicOpsDialect.cpp.inc"

#include "accel/Dialect/Systolic/IR/SystolicEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "accel/Dialect/Systolic/IR/SystolicAttrs.cpp.inc"

void SystolicDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "accel/Dialect/Systolic/IR/SystolicOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "accel/Dialect/Systolic/IR/SystolicAttrs.cpp.inc"
      >();
}
