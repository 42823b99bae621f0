//===- AccelAttrs.h - accel attributes --------------------------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_DIALECT_ACCEL_IR_ACCELATTRS_H
#define ACCEL_DIALECT_ACCEL_IR_ACCELATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/APFloat.h"

namespace mlir::accel {
/// Parses a finite floating-point attribute parameter.
FailureOr<llvm::APFloat> parseF64Field(AsmParser &parser);
/// Prints a floating-point parameter in its shortest form that parses back.
void printF64Field(AsmPrinter &printer, const llvm::APFloat &value);
/// Parses and prints `[...]` lists of strings and of integers.
FailureOr<SmallVector<StringAttr>> parseStringList(AsmParser &parser);
void printStringList(AsmPrinter &printer, ArrayRef<StringAttr> list);
FailureOr<SmallVector<int64_t>> parseI64List(AsmParser &parser);
void printI64List(AsmPrinter &printer, ArrayRef<int64_t> list);
} // namespace mlir::accel

#include "accel/Dialect/Accel/IR/AccelEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "accel/Dialect/Accel/IR/AccelAttrs.h.inc"

#endif // ACCEL_DIALECT_ACCEL_IR_ACCELATTRS_H
