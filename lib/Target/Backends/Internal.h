//===- Internal.h - what the back ends share --------------------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_TARGET_BACKENDS_INTERNAL_H
#define ACCEL_LIB_TARGET_BACKENDS_INTERNAL_H

#include "accel/Runtime/KernelMetadata.h"
#include "accel/Target/Backend.h"

namespace mlir {
namespace accel {

/// The chip of a GPU target: `options.chip`, or the target's default; an
/// error for a chip of the other vendor.
llvm::Expected<std::string> gpuChip(llvm::StringRef target,
                                    const BackendOptions &options);

/// Checks `meta` and writes it as <kernel>.json.
llvm::Error stageKernelMetadata(const KernelMetadata &meta, ArtifactSink &sink);

/// A back end that is its name and its compile function (each target's
/// file defines one).
class FunctionBackend final : public TargetBackend {
public:
  using CompileFn = llvm::Error (*)(ModuleOp, ArtifactSink &,
                                    const BackendOptions &);
  FunctionBackend(llvm::StringRef name, CompileFn fn) : name(name), fn(fn) {}
  llvm::StringRef getName() const override { return name; }
  llvm::Error compile(ModuleOp module, ArtifactSink &sink,
                      const BackendOptions &options) const override {
    return fn(module, sink, options);
  }

private:
  llvm::StringRef name;
  CompileFn fn;
};

/// The back ends (one file each).
const TargetBackend &getCpuBackend();
const TargetBackend &getNvptxBackend();
const TargetBackend &getAmdgpuBackend();
const TargetBackend &getSystolicBackend();

} // namespace accel
} // namespace mlir

#endif // ACCEL_LIB_TARGET_BACKENDS_INTERNAL_H
