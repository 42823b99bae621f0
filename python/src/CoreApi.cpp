//===- CoreApi.cpp - the MLIR work behind accel._core ---------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Each call gets its own MLIRContext, so nothing a failed call leaves behind
// (half-built IR, loaded dialects, diagnostics) can reach the next one; the
// registry and the pass registrations are built once per process. Every
// diagnostic goes to a SourceMgrDiagnosticHandler that writes into a string,
// never to stderr, so Python gets them all in the exception.
//
//===----------------------------------------------------------------------===//

#include "CoreApi.h"
#include "accel/InitAll.h"
#include "accel/Runtime/KernelMetadata.h"
#include "accel/Support/InputLimits.h"
#include "accel/Support/ToolInput.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::accel::python;
using llvm::StringRef;

namespace {

/// The dialects accel-opt parses, built once: a context copies it.
const DialectRegistry &getRegistry() {
  static const DialectRegistry *registry = [] {
    auto *r = new DialectRegistry();
    accel::registerAllAccelDialects(*r);
    // As in accel-opt: gpu-module-to-binary translates kernels to LLVM IR.
    registerAllToLLVMIRTranslations(*r);
    return r;
  }();
  return *registry;
}

/// The pass registry is global and a second registration of a pass is an
/// error, so this runs once (function-local statics are thread-safe).
void registerPassesOnce() {
  static const bool registered = [] {
    accel::registerAllAccelPasses();
    return true;
  }();
  (void)registered;
}

/// One call's context, input buffer and diagnostics. Members are in
/// construction order: the handler needs the source manager and the context.
class Session {
public:
  explicit Session(const std::string &text)
      : text(text), diagStream(diagnostics), context(getRegistry()),
        handler(sourceMgr, &context, diagStream) {}

  /// Parses and verifies the input; null (with diagnostics) on failure.
  /// Through the tools' front door (ToolInput.h): input that would crash
  /// MLIR (deep nesting, F1; MLIR 22's own bugs) would take the interpreter
  /// down, so it gets the tools' errors; bytecode is not read.
  OwningOpRef<ModuleOp> parse() {
    return accel::loadToolInput(
        llvm::MemoryBuffer::getMemBufferCopy(text, kSourceName), sourceMgr,
        context, diagStream);
  }

  MLIRContext &getContext() { return context; }
  llvm::raw_ostream &diag() { return diagStream; }

  CoreResult failure(StringRef fallback) {
    CoreResult result;
    result.diagnostics = std::move(diagnostics);
    // Every failure path emits a diagnostic today; this keeps the exception
    // meaningful if a pass ever fails silently.
    if (result.diagnostics.empty())
      result.diagnostics =
          (kSourceName + llvm::Twine(": error: ") + fallback + "\n").str();
    return result;
  }

  CoreResult success(ModuleOp module, const OpPrintingFlags &flags) {
    CoreResult result;
    llvm::raw_string_ostream os(result.output);
    module->print(os, flags);
    os << "\n";
    result.ok = true;
    // Warnings and remarks of a successful run.
    result.diagnostics = std::move(diagnostics);
    return result;
  }

private:
  std::string text;
  std::string diagnostics;
  llvm::raw_string_ostream diagStream;
  llvm::SourceMgr sourceMgr;
  MLIRContext context;
  SourceMgrDiagnosticHandler handler;
};

/// The pass list inside "builtin.module(...)", or `pipeline` itself when it is
/// not wrapped in the module anchor (a bare list).
StringRef stripModuleAnchor(StringRef pipeline) {
  StringRef text = pipeline.trim();
  StringRef rest = text;
  if (!rest.consume_front(ModuleOp::getOperationName()))
    return text;
  rest = rest.ltrim();
  if (!rest.starts_with("(") || !rest.ends_with(")"))
    return text;
  return rest.drop_front().drop_back();
}

} // namespace

CoreResult mlir::accel::python::parseModule(const std::string &text,
                                            bool generic) {
  Session session(text);
  OwningOpRef<ModuleOp> module = session.parse();
  if (!module)
    return session.failure("parsing failed");
  OpPrintingFlags flags;
  if (generic)
    flags.printGenericOpForm();
  return session.success(*module, flags);
}

CoreResult mlir::accel::python::runPipeline(const std::string &text,
                                            const std::string &pipeline) {
  registerPassesOnce();
  Session session(text);
  // The textual parser refuses a pass anchored on another op ("did you
  // intend to nest?") with an error, as accel-opt's --pass-pipeline does.
  // Implicit nesting is for pipelines that add such passes in C++: with
  // explicit nesting that would be a fatal error, i.e. an abort.
  PassManager pm(&session.getContext(), ModuleOp::getOperationName(),
                 OpPassManager::Nesting::Implicit);
  // The pipeline is checked before the IR, as accel-opt does. Its parser
  // recurses per nested pass manager as MLIR's does per level (100000
  // nested `builtin.module(` crashed it).
  std::unique_ptr<llvm::MemoryBuffer> pipelineText =
      llvm::MemoryBuffer::getMemBuffer(pipeline, "<pipeline>",
                                       /*RequiresNullTerminator=*/false);
  if (failed(accel::checkNestingDepth(pipelineText->getMemBufferRef(),
                                      session.diag())) ||
      failed(
          parsePassPipeline(stripModuleAnchor(pipeline), pm, session.diag())))
    return session.failure("invalid pass pipeline");
  OwningOpRef<ModuleOp> module = session.parse();
  if (!module)
    return session.failure("parsing failed");
  if (failed(pm.run(*module)))
    return session.failure("the pass pipeline failed");
  return session.success(*module, OpPrintingFlags());
}

std::string mlir::accel::python::compilerId() {
  return accel::getAccelCompilerId();
}
