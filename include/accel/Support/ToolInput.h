//===- ToolInput.h - the one front door for untrusted input -----*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Every tool (accel-opt, accel-compile, accel-run, accel-sim,
// accel-systolic-translate) and the Python extension read MLIR input
// through these two functions, so that the same input gets the same answer
// everywhere (docs/bad-input-catalogue.md):
//
//   checkToolInput   the checks that must run before MLIR reads the bytes,
//                    in this order: the format (bytecode only with
//                    --allow-bytecode), the nesting depth of text, the
//                    nesting depth of bytecode, the input that crashes MLIR
//                    22 itself (UpstreamWorkarounds.def lists each with its
//                    XFAIL sentinel test);
//   loadToolInput    checkToolInput, the parse, and the size limits on the
//                    parsed module (F4).
//
// accel-opt hands the checked buffer to MlirOptMain, which parses it (and
// each part of a --split-input-file) itself, so it calls checkToolInput
// alone.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_SUPPORT_TOOLINPUT_H
#define ACCEL_SUPPORT_TOOLINPUT_H

#include "accel/Support/InputLimits.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include <memory>
#include <optional>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir {
class DialectRegistry;
class MLIRContext;
namespace accel {

/// How a tool reads its input.
struct ToolInputOptions {
  /// The tools' --allow-bytecode (kAllowBytecodeDescription).
  bool allowBytecode = false;
  /// Whether the tool reads unregistered dialects (accel-opt's
  /// --allow-unregistered-dialect); the scratch parses of the checks read
  /// the input as the tool does.
  bool allowUnregisteredDialects = false;
  /// accel-opt's --split-input-file marker: each part is checked on its own,
  /// as it is parsed on its own. Empty: one input.
  llvm::StringRef splitMarker;
  /// loadToolInput: whether parsing verifies the module (accel-sim verifies
  /// only the program it runs).
  bool verifyAfterParse = true;
  /// loadToolInput: the limits on constants and tensors of the parsed
  /// module; none when the tool only rewrites IR.
  std::optional<TensorSizeLimits> sizeLimits;
};

/// Why loadToolInput returned no module.
enum class ToolInputError {
  /// Refused before parsing, or did not parse.
  Unreadable,
  /// Parsed, but over the size limits.
  TooLarge,
};

/// Refuses input that must not reach MLIR's reader (see the file comment):
/// prints a located "error: ..." to `os` and fails. `registry` holds the
/// dialects the tool reads the input with.
LogicalResult checkToolInput(llvm::MemoryBufferRef buffer,
                             const DialectRegistry &registry,
                             llvm::raw_ostream &os,
                             const ToolInputOptions &options = {});

/// checkToolInput (errors to `os`), then parses `buffer`, which is added to
/// `sourceMgr`, into a module of `context` (parse and verifier errors go to
/// the diagnostic handler the caller installed on `context`, usually a
/// SourceMgrDiagnosticHandler on `sourceMgr`), then checks the size limits.
/// Returns null on any failure, with the reason in `error` when given.
OwningOpRef<ModuleOp> loadToolInput(std::unique_ptr<llvm::MemoryBuffer> buffer,
                                    llvm::SourceMgr &sourceMgr,
                                    MLIRContext &context, llvm::raw_ostream &os,
                                    const ToolInputOptions &options = {},
                                    ToolInputError *error = nullptr);

} // namespace accel
} // namespace mlir

#endif // ACCEL_SUPPORT_TOOLINPUT_H
