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

/// The chip of a GPU target: `chip` (--chip), or the target's default; an
/// error for a chip of the other vendor.
llvm::Expected<std::string> gpuChip(llvm::StringRef target,
                                    llvm::StringRef chip);

/// Checks `meta` and writes it as <kernel>.json.
llvm::Error stageKernelMetadata(const KernelMetadata &meta, ArtifactSink &sink);

/// The back ends (one file each).
const TargetBackend &getCpuBackend();
const TargetBackend &getNvptxBackend();
const TargetBackend &getAmdgpuBackend();
const TargetBackend &getSystolicBackend();

} // namespace accel
} // namespace mlir

#endif // ACCEL_LIB_TARGET_BACKENDS_INTERNAL_H
