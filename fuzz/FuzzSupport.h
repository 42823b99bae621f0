//===- FuzzSupport.h - shared helpers of the libFuzzer targets --*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// What accel-fuzz-parse and accel-fuzz-cpu-pipeline share: the dialect
// registry, a parser that takes any bytes (MLIR text; bytecode is refused,
// as the tools refuse it by default) and never prints, and the size check
// that keeps one input of the pipeline target within libFuzzer's time and
// memory limits. docs/reliability.md ("Fuzzing") says how the targets are
// built and run.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_FUZZ_FUZZSUPPORT_H
#define ACCEL_FUZZ_FUZZSUPPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include <cstddef>
#include <cstdint>

namespace mlir {
class DialectRegistry;
class MLIRContext;
} // namespace mlir

namespace accel_fuzz {

/// Makes llvm::report_fatal_error ("LLVM ERROR: ...") abort instead of
/// exiting with code 1, so that libFuzzer records it as a crash with a stack
/// trace. Call once, from LLVMFuzzerInitialize.
void installFatalErrorHandler();

/// Every dialect and extension accel-opt registers; built once.
const mlir::DialectRegistry &getRegistry();

/// Parses `data` as MLIR text and verifies it through the tools' front door
/// (accel::loadToolInput, as accel-opt by default): bytecode, text nested
/// deeper than accel::kMaxNestingDepth and text that would crash MLIR 22
/// itself (UpstreamWorkarounds.def) are refused, so all are null here.
/// Diagnostics are dropped (the caller's context must have a handler that
/// swallows them). Null when the input is invalid.
mlir::OwningOpRef<mlir::ModuleOp>
parseAndVerify(mlir::MLIRContext &context, const uint8_t *data, size_t size);

/// Whether any type in `module` (results, block arguments, and types inside
/// attributes such as a function's signature or a dense constant) is a
/// shaped type with more than `maxElements` elements (dynamic and zero
/// dimensions count as 1) or more than `maxRank` dimensions.
bool hasLargeTypes(mlir::ModuleOp module, uint64_t maxElements,
                   int64_t maxRank);

} // namespace accel_fuzz

#endif // ACCEL_FUZZ_FUZZSUPPORT_H
