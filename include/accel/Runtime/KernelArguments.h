//===- KernelArguments.h - Host arguments of a generated kernel -*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// What every launcher of the compiler's GPU kernels shares, whatever the
// vendor's driver: the host data of the arguments, their checks against the
// kernel's metadata, and the packed parameter array (cuLaunchKernel's and
// hipModuleLaunchKernel's kernelParams). Neutral: LLVM Support only, no MLIR
// and no driver, so the CUDA and HIP launchers depend on it and not on each
// other.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_RUNTIME_KERNELARGUMENTS_H
#define ACCEL_RUNTIME_KERNELARGUMENTS_H

#include "accel/Runtime/KernelMetadata.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
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

struct LaunchOptions {
  /// The CUDA device ordinal.
  int device = 0;
  /// After the launch whose results are returned, time this many more
  /// launches with CUDA events (their results are discarded).
  unsigned timedLaunches = 0;
};

} // namespace accel
} // namespace mlir

#endif // ACCEL_RUNTIME_KERNELARGUMENTS_H
