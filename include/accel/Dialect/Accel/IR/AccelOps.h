//===- AccelOps.h - accel operations ----------------------------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_DIALECT_ACCEL_IR_ACCELOPS_H
#define ACCEL_DIALECT_ACCEL_IR_ACCELOPS_H

#include "accel/Dialect/Accel/IR/AccelAttrs.h"
#include "accel/Dialect/Accel/IR/AccelDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/TilingInterface.h"

#define GET_OP_CLASSES
#include "accel/Dialect/Accel/IR/AccelOps.h.inc"

namespace mlir::accel {

/// Whether two sizes are known to differ: both static, and not equal (what
/// the verifiers call a mismatch).
inline bool sizesConflict(int64_t a, int64_t b) {
  return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
}

/// Whether any two of `sizes` are known to differ.
inline bool anySizesConflict(ArrayRef<int64_t> sizes) {
  for (int64_t a : sizes)
    for (int64_t b : sizes)
      if (sizesConflict(a, b))
        return true;
  return false;
}

} // namespace mlir::accel

#endif // ACCEL_DIALECT_ACCEL_IR_ACCELOPS_H
