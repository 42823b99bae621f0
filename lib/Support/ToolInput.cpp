//===- ToolInput.cpp - the one front door for untrusted input -------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "accel/Support/ToolInput.h"
#include "accel/Support/InputLimits.h"
#include "accel/Support/UpstreamHazards.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace mlir::accel;

LogicalResult mlir::accel::checkToolInput(llvm::MemoryBufferRef buffer,
                                          const DialectRegistry &registry,
                                          llvm::raw_ostream &os,
                                          const ToolInputOptions &options) {
  // Malformed bytecode can crash MLIR's reader: read only when allowed.
  if (failed(checkInputFormat(buffer, os, options.allowBytecode)))
    return failure();
  // Deep nesting would overflow the parser's stack (F1), deep bytecode that
  // of the verifier and the printer; some text crashes MLIR 22 itself.
  if (failed(checkNestingDepth(buffer, os, kMaxNestingDepth,
                               options.splitMarker)) ||
      failed(checkBytecodeNesting(buffer, registry, os,
                                  options.allowUnregisteredDialects)) ||
      failed(checkUpstreamHazards(buffer, registry, os,
                                  options.allowUnregisteredDialects,
                                  options.splitMarker)))
    return failure();
  return success();
}

OwningOpRef<ModuleOp> mlir::accel::loadToolInput(
    std::unique_ptr<llvm::MemoryBuffer> buffer, llvm::SourceMgr &sourceMgr,
    MLIRContext &context, llvm::raw_ostream &os,
    const ToolInputOptions &options, ToolInputError *error) {
  auto fail = [&](ToolInputError why) {
    if (error)
      *error = why;
    return OwningOpRef<ModuleOp>();
  };
  if (failed(checkToolInput(buffer->getMemBufferRef(),
                            context.getDialectRegistry(), os, options)))
    return fail(ToolInputError::Unreadable);
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  ParserConfig config(&context, options.verifyAfterParse);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, config);
  if (!module)
    return fail(ToolInputError::Unreadable);
  if (options.sizeLimits &&
      failed(checkTensorSizes(*module, *options.sizeLimits)))
    return fail(ToolInputError::TooLarge);
  return module;
}
