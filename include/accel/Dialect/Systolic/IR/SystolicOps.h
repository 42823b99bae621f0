//===- SystolicOps.h - systolic attributes and ops --------------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_DIALECT_SYSTOLIC_IR_SYSTOLICOPS_H
#define ACCEL_DIALECT_SYSTOLIC_IR_SYSTOLICOPS_H

#include "accel/Dialect/Accel/IR/AccelAttrs.h"
#include "accel/Dialect/Systolic/IR/SystolicDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"

#include "accel/Dialect/Systolic/IR/SystolicEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "accel/Dialect/Systolic/IR/SystolicAttrs.h.inc"

#define GET_OP_CLASSES
#include "accel/Dialect/Systolic/IR/SystolicOps.h.inc"

#endif // ACCEL_DIALECT_SYSTOLIC_IR_SYSTOLICOPS_H
