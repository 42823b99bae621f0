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

/// The host data of one buffer argument; its size must be the argument's
/// byte_size. `In`/`InOut` buffers are read, `Out`/`InOut` buffers receive
/// the result.
struct HostBuffer {
  llvm::MutableArrayRef<uint8_t> bytes;
};

/// The value of one scalar argument.
struct KernelScalar {
  KernelArgKind kind = KernelArgKind::I32;
  /// The value's bytes in the low bytes (4 for i32/f32, 8 for i64).
  uint64_t bits = 0;

  static KernelScalar i32(int32_t value);
  static KernelScalar i64(int64_t value);
  static KernelScalar f32(float value);
};

/// The `kernelParams` array of cuLaunchKernel: one pointer per kernel
/// parameter, each pointing at the parameter's value in storage owned by
/// this object. Move-only, because the pointers point into it.
class PackedKernelArguments {
public:
  PackedKernelArguments() = default;
  PackedKernelArguments(PackedKernelArguments &&) = default;
  PackedKernelArguments &operator=(PackedKernelArguments &&) = default;
  PackedKernelArguments(const PackedKernelArguments &) = delete;
  PackedKernelArguments &operator=(const PackedKernelArguments &) = delete;

  /// What cuLaunchKernel takes as kernelParams (nullptr for no arguments).
  void **params() { return pointers.empty() ? nullptr : pointers.data(); }
  llvm::ArrayRef<void *> getPointers() const { return pointers; }
  size_t size() const { return pointers.size(); }

private:
  friend llvm::Expected<PackedKernelArguments>
  packKernelArguments(const KernelMetadata &metadata,
                      llvm::ArrayRef<uint64_t> deviceBuffers,
                      llvm::ArrayRef<KernelScalar> scalars);

  /// One 8-byte aligned slot per parameter. The vector's heap block does not
  /// move when the object is moved, so `pointers` stay valid.
  std::vector<uint64_t> storage;
  std::vector<void *> pointers;
};

/// Packs the arguments in the order of `metadata.arguments`: the i-th buffer
/// argument takes deviceBuffers[i] (a 64-bit device pointer), the i-th
/// scalar argument takes scalars[i] by value (4 or 8 bytes). Fails when the
/// counts or the scalar kinds do not match the metadata.
llvm::Expected<PackedKernelArguments>
packKernelArguments(const KernelMetadata &metadata,
                    llvm::ArrayRef<uint64_t> deviceBuffers,
                    llvm::ArrayRef<KernelScalar> scalars);

/// The host-side checks both launchers (CUDA, HIP) make before touching a
/// device: `metadata` is valid and for `target`, `buffers` match its buffer
/// arguments in count and byte size, and `scalars` its scalar arguments.
/// Returns the buffer arguments in order.
llvm::Expected<llvm::SmallVector<const KernelArgument *>>
checkHostArguments(const KernelMetadata &metadata, llvm::StringRef target,
                   llvm::ArrayRef<HostBuffer> buffers,
                   llvm::ArrayRef<KernelScalar> scalars);

/// Whether code for `chip` ("sm_80", "sm_90a", "sm_100f") runs on a device
/// of compute capability major.minor. PTX is JIT-compiled, so plain PTX runs
/// on any later device; a cubin runs only within its major version. Chips
/// with the "a" suffix need exactly their version, "f" ones their major
/// version with at least their minor version.
llvm::Error checkComputeCapability(llvm::StringRef chip, int major, int minor,
                                   bool isPtx);

struct LaunchOptions {
  /// The CUDA device ordinal.
  int device = 0;
  /// After the launch whose results are returned, time this many more
  /// launches with CUDA events (their results are discarded).
  unsigned timedLaunches = 0;
};

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
class CudaDriver {
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
  llvm::StringRef getLibraryPath() const { return libraryPath; }

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
