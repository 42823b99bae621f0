//===- HipLauncher.h - Launch kernels with the HIP module API ---*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The AMD counterpart of CudaLauncher.h: loads an HSACO code object with the
// HIP module API (hipModuleLoadData, hipModuleLaunchKernel) and runs one
// kernel as its KernelMetadata describes. libamdhip64 is opened with dlopen()
// at run time, so nothing links against ROCm at build time and every tool
// still starts (and reports a clear error) on a machine without it.
//
// The host-side argument types (HostBuffer, KernelScalar, LaunchOptions) and
// packKernelArguments are shared with the CUDA launcher (KernelArguments.h):
// hipModuleLaunchKernel
// takes kernelParams in the same form as cuLaunchKernel.
//
// docs/gpu-runtime.md describes the behaviour and the errors.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_RUNTIME_HIPLAUNCHER_H
#define ACCEL_RUNTIME_HIPLAUNCHER_H

#include "accel/Runtime/GpuRuntime.h"
#include "accel/Runtime/KernelArguments.h"
#include "accel/Runtime/KernelMetadata.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
namespace accel {

/// Whether code for `chip` ("gfx942") runs on a device whose HIP
/// gcnArchName is `gcnArchName` ("gfx942:sramecc+:xnack-"). The processor
/// (the part before the first ':') must equal the chip; the feature suffixes
/// are not compared, because a code object built without an explicit
/// sramecc/xnack setting (what accel emits) runs with either.
llvm::Error checkAmdgpuArch(llvm::StringRef chip, llvm::StringRef gcnArchName);

struct HipLaunchResult {
  /// hipDeviceProp_t::name, e.g. "AMD Instinct MI300X".
  std::string deviceName;
  /// hipDeviceProp_t::gcnArchName, e.g. "gfx942:sramecc+:xnack-".
  std::string gcnArchName;
  /// Device time of each timed launch, in milliseconds.
  std::vector<float> launchMillis;
};

/// The HIP runtime API, resolved from libamdhip64 at run time.
class HipRuntime final : public GpuRuntime {
public:
  /// The environment variable that replaces the library search (tests
  /// point it at a fake runtime).
  static constexpr const char *kLibraryEnvVar = "ACCEL_LIBAMDHIP64";

  /// Loads libamdhip64 (the first of "libamdhip64.so", "libamdhip64.so.6",
  /// "libamdhip64.so.7", "/opt/rocm/lib/libamdhip64.so" that loads, or only
  /// the file ACCEL_LIBAMDHIP64 names), resolves every entry point and calls
  /// hipInit. Needs ROCm 6 or later (hipGetDevicePropertiesR0600).
  static llvm::Expected<std::unique_ptr<HipRuntime>> open();
  ~HipRuntime();
  HipRuntime(const HipRuntime &) = delete;
  HipRuntime &operator=(const HipRuntime &) = delete;

  /// The library that was loaded.
  llvm::StringRef getLibraryPath() const override { return libraryPath; }
  llvm::StringRef getTargetName() const override { return "amdgpu"; }

  /// GpuRuntime's launch: launch() of a code object image.
  llvm::Expected<GpuLaunchResult>
  launchKernel(const KernelMetadata &metadata, GpuImage image,
               llvm::MutableArrayRef<HostBuffer> buffers,
               llvm::ArrayRef<KernelScalar> scalars,
               const LaunchOptions &options) override;

  /// Runs `metadata.kernel` from `image` (an HSACO code object, or a clang
  /// offload bundle holding one) once on HIP device `options.device`: checks
  /// the device's architecture and LDS size, copies the In/InOut buffers in,
  /// fills the Out buffers with 0xFF bytes (NaN), launches with the
  /// metadata's grid, block and dynamic LDS, synchronizes and copies the
  /// Out/InOut buffers back. `buffers` and `scalars` follow the order of the
  /// buffer and scalar arguments in the metadata. Everything allocated is
  /// freed, on success and on error.
  llvm::Expected<HipLaunchResult>
  launch(const KernelMetadata &metadata, llvm::ArrayRef<uint8_t> image,
         llvm::MutableArrayRef<HostBuffer> buffers,
         llvm::ArrayRef<KernelScalar> scalars,
         const LaunchOptions &options = {});

  struct Api;

private:
  HipRuntime(std::string libraryPath, std::unique_ptr<Api> api);

  std::string libraryPath;
  std::unique_ptr<Api> api;
};

} // namespace accel
} // namespace mlir

#endif // ACCEL_RUNTIME_HIPLAUNCHER_H
