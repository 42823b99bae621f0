//===- GpuRuntime.h - one interface over the GPU drivers --------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// What a tool needs from a GPU driver to run a compiled kernel, whatever the
// vendor: the CUDA driver launcher (CudaLauncher.h) and the HIP launcher
// (HipLauncher.h) both implement it, so accel-run launches through one
// interface. Neutral like the rest of MLIRAccelKernelRuntime: LLVM Support
// only.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_RUNTIME_GPURUNTIME_H
#define ACCEL_RUNTIME_GPURUNTIME_H

#include "accel/Runtime/KernelArguments.h"
#include "accel/Runtime/KernelMetadata.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace mlir {
namespace accel {

/// A kernel module as the driver loads it.
struct GpuImage {
  enum class Kind {
    /// PTX text, NUL-terminated (the CUDA driver JIT-compiles it).
    Ptx,
    /// A cubin (ptxas's output).
    Cubin,
    /// An AMDGPU code object (HSACO) or a clang offload bundle holding one.
    CodeObject,
  };
  llvm::ArrayRef<uint8_t> bytes;
  Kind kind;
};

/// What one launch measured.
struct GpuLaunchResult {
  /// The device's name ("NVIDIA H200", "AMD Instinct MI300X").
  std::string deviceName;
  /// Device time of each timed launch, in milliseconds.
  std::vector<float> launchMillis;
};

/// A GPU driver, opened at run time.
class GpuRuntime {
public:
  virtual ~GpuRuntime();
  /// The target whose kernels it runs ("nvptx", "amdgpu").
  virtual llvm::StringRef getTargetName() const = 0;
  /// The driver library that was loaded.
  virtual llvm::StringRef getLibraryPath() const = 0;
  /// Runs `metadata.kernel` from `image` once on `options.device`, as the
  /// vendor's launcher documents: the chip is checked against the device,
  /// the In/InOut buffers copied in, the Out buffers filled with 0xFF bytes
  /// (NaN), the kernel launched with the metadata's grid, block and dynamic
  /// shared memory, the Out/InOut buffers copied back; `options.timedLaunches`
  /// more launches are timed.
  virtual llvm::Expected<GpuLaunchResult>
  launchKernel(const KernelMetadata &metadata, GpuImage image,
               llvm::MutableArrayRef<HostBuffer> buffers,
               llvm::ArrayRef<KernelScalar> scalars,
               const LaunchOptions &options) = 0;
};

} // namespace accel
} // namespace mlir

#endif // ACCEL_RUNTIME_GPURUNTIME_H
