//===- CudaLauncher.h - Launch kernels with the CUDA driver -----*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A small host launcher for the NVPTX kernels the compiler generates: it
// loads PTX or a cubin with the CUDA driver API and runs one kernel as its
// KernelMetadata describes. libcuda is opened with dlopen() at run time, so
// nothing links against CUDA at build time and every tool still starts (and
// reports a clear error) on a machine without an NVIDIA driver.
//
// docs/gpu-runtime.md describes the behaviour and the errors.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_RUNTIME_CUDALAUNCHER_H
#define ACCEL_RUNTIME_CUDALAUNCHER_H

#include "accel/Runtime/GpuRuntime.h"
#include "accel/Runtime/KernelArguments.h"
#include "accel/Runtime/KernelMetadata.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
namespace accel {

/// Whether code for `chip` ("sm_80", "sm_90a", "sm_100f") runs on a device
/// of compute capability major.minor. PTX is JIT-compiled, so plain PTX runs
/// on any later device; a cubin runs only within its major version. Chips
/// with the "a" suffix need exactly their version, "f" ones their major
/// version with at least their minor version.
llvm::Error checkComputeCapability(llvm::StringRef chip, int major, int minor,
                                   bool isPtx);


struct LaunchResult {
  std::string deviceName;
  int computeCapabilityMajor = 0;
  int computeCapabilityMinor = 0;
  /// Device time of each timed launch, in milliseconds.
  std::vector<float> launchMillis;
  /// The PTX JIT's info log (empty for a cubin).
  std::string jitInfoLog;
};

/// The CUDA driver API, resolved from libcuda at run time.
class CudaDriver final : public GpuRuntime {
public:
  /// The environment variable that replaces "libcuda.so.1" (tests point it
  /// at a fake driver).
  static constexpr const char *kLibraryEnvVar = "ACCEL_LIBCUDA";

  /// Loads libcuda, resolves every entry point and calls cuInit.
  static llvm::Expected<std::unique_ptr<CudaDriver>> open();
  ~CudaDriver();
  CudaDriver(const CudaDriver &) = delete;
  CudaDriver &operator=(const CudaDriver &) = delete;

  /// The library that was loaded.
  llvm::StringRef getLibraryPath() const override { return libraryPath; }
  llvm::StringRef getTargetName() const override { return "nvptx"; }

  /// GpuRuntime's launch: launch() of a PTX or cubin image.
  llvm::Expected<GpuLaunchResult>
  launchKernel(const KernelMetadata &metadata, GpuImage image,
               llvm::MutableArrayRef<HostBuffer> buffers,
               llvm::ArrayRef<KernelScalar> scalars,
               const LaunchOptions &options) override;

  /// Runs `metadata.kernel` from `image` (PTX text when isPtx, else a
  /// cubin) once on `options.device`: checks the compute capability, copies
  /// the In/InOut buffers in, fills the Out buffers with 0xFF bytes (NaN),
  /// launches with the metadata's grid, block and dynamic shared memory,
  /// synchronizes and copies the Out/InOut buffers back. `buffers` and
  /// `scalars` follow the order of the buffer and scalar arguments in the
  /// metadata. Everything allocated is freed, on success and on error.
  llvm::Expected<LaunchResult> launch(const KernelMetadata &metadata,
                                      llvm::ArrayRef<uint8_t> image, bool isPtx,
                                      llvm::MutableArrayRef<HostBuffer> buffers,
                                      llvm::ArrayRef<KernelScalar> scalars,
                                      const LaunchOptions &options = {});

  struct Api;

private:
  CudaDriver(std::string libraryPath, std::unique_ptr<Api> api);
  /// The retained primary context of `device`, made current.
  llvm::Error useDevice(int device);

  std::string libraryPath;
  std::unique_ptr<Api> api;
  /// Primary contexts retained so far (device ordinal, CUcontext); kept
  /// until destruction because creating one costs tens of milliseconds.
  std::vector<std::pair<int, void *>> contexts;
};

} // namespace accel
} // namespace mlir

#endif // ACCEL_RUNTIME_CUDALAUNCHER_H
