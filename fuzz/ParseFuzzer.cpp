//===- ParseFuzzer.cpp - libFuzzer target: parse and verify ---------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel-fuzz-parse: any bytes, as MLIR text, parsed and verified in a
// context with every dialect accel-opt knows. Bytecode (bytes that start
// with its magic) is refused, as accel-opt refuses it without
// --allow-bytecode: MLIR 22's bytecode reader is not hardened. Invalid input
// must give diagnostics, never a crash, an assertion, a sanitizer report or
// an `LLVM ERROR`. A crash reproduces with `accel-opt FILE`.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  accel_fuzz::installFatalErrorHandler();
  (void)accel_fuzz::getRegistry();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // A fresh context per input: nothing an input interns or loads can
  // change how the next one is handled. No threads: deterministic, and
  // cheaper than a thread pool per input.
  mlir::MLIRContext context(accel_fuzz::getRegistry(),
                            mlir::MLIRContext::Threading::DISABLED);
  mlir::ScopedDiagnosticHandler swallow(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });
  (void)accel_fuzz::parseAndVerify(context, data, size);
  return 0;
}
