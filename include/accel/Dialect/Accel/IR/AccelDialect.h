//===- AccelDialect.h - accel dialect ---------------------------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_DIALECT_ACCEL_IR_ACCELDIALECT_H
#define ACCEL_DIALECT_ACCEL_IR_ACCELDIALECT_H

#include "mlir/IR/Dialect.h"

#include "accel/Dialect/Accel/IR/AccelOpsDialect.h.inc"

#endif // ACCEL_DIALECT_ACCEL_IR_ACCELDIALECT_H
