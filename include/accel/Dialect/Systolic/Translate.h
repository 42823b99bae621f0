//===- Translate.h - systolic dialect <-> plain Program ---------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Converts a `systolic.program` to the plain sysarray::Program that
// the binary format and the simulator take (include/accel/Systolic/ISA.h),
// and back. Unused instruction fields are zero and an unused bRow is kNone,
// so equal programs compare equal field by field.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_DIALECT_SYSTOLIC_TRANSLATE_H
#define ACCEL_DIALECT_SYSTOLIC_TRANSLATE_H

#include "accel/Dialect/Systolic/IR/SystolicOps.h"
#include "accel/Systolic/ISA.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/Error.h"

namespace mlir {
namespace systolic {

/// Verifies `program` (emitting the verifier's diagnostics) and converts it.
FailureOr<::sysarray::Program> toProgram(ProgramOp program);

/// Creates a `systolic.program` for `program` at the builder's insertion
/// point. Instruction i gets the location `"instruction i"(loc)`, so that a
/// verifier message on a decoded binary names the instruction. It does not
/// verify: run mlir::verify on the result. `program` must be one that
/// decodeProgram can return (known enum values, dimensions below 2^63);
/// fields an opcode does not use are ignored, except that a nonzero
/// srcB/immediate, or a bcast, that a vector op does not use is kept, so
/// that the verifier reports it.
ProgramOp fromProgram(OpBuilder &builder, Location loc,
                      const ::sysarray::Program &program);

/// i8, i32, bf16, f32 <-> ElemType; elemTypeFromType fails on other types.
Type typeFromElemType(MLIRContext *context, ::sysarray::ElemType type);
FailureOr<::sysarray::ElemType> elemTypeFromType(Type type);

/// The program of `module` that a tool works on: the one called `want`
/// (without '@'), or the only one when `want` is empty. Errors name
/// `fileName` and the programs there; `severalHint` ends the message for a
/// module with several programs and no `want`.
llvm::Expected<ProgramOp> selectProgram(ModuleOp module, llvm::StringRef want,
                                        llvm::StringRef fileName,
                                        llvm::StringRef severalHint);

} // namespace systolic
} // namespace mlir

#endif // ACCEL_DIALECT_SYSTOLIC_TRANSLATE_H
