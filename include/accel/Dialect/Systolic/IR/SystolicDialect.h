//===- SystolicDialect.h - systolic dialect ---------------------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_DIALECT_SYSTOLIC_IR_SYSTOLICDIALECT_H
#define ACCEL_DIALECT_SYSTOLIC_IR_SYSTOLICDIALECT_H

#include "mlir/IR/Dialect.h"

#include "accel/Dialect/Systolic/IR/SystolicOpsDialect.h.inc"

#endif // ACCEL_DIALECT_SYSTOLIC_IR_SYSTOLICDIALECT_H
