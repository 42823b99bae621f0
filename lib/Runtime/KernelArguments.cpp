//===- KernelArguments.cpp - Host arguments of a generated kernel --------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "accel/Runtime/KernelArguments.h"
#include "accel/Runtime/GpuRuntime.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/bit.h"
#include <cstring>

using namespace mlir;
using namespace mlir::accel;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// Scalars and argument packing
//===----------------------------------------------------------------------===//

// The value's bytes, zero-extended to 64 bits.
GpuRuntime::~GpuRuntime() = default;

KernelScalar KernelScalar::i32(int32_t value) {
  return {KernelArgKind::I32, llvm::bit_cast<uint32_t>(value)};
}

KernelScalar KernelScalar::i64(int64_t value) {
  return {KernelArgKind::I64, llvm::bit_cast<uint64_t>(value)};
}

KernelScalar KernelScalar::f32(float value) {
  return {KernelArgKind::F32, llvm::bit_cast<uint32_t>(value)};
}

llvm::Expected<PackedKernelArguments>
accel::packKernelArguments(const KernelMetadata &metadata,
                           llvm::ArrayRef<uint64_t> deviceBuffers,
                           llvm::ArrayRef<KernelScalar> scalars) {
  size_t numBuffers = llvm::count_if(metadata.arguments, [](const auto &arg) {
    return arg.kind == KernelArgKind::Buffer;
  });
  size_t numScalars = metadata.arguments.size() - numBuffers;
  if (deviceBuffers.size() != numBuffers)
    return llvm::createStringError(
        "kernel '" + metadata.kernel + "' takes " + std::to_string(numBuffers) +
        " buffer arguments, " + std::to_string(deviceBuffers.size()) +
        " given");
  if (scalars.size() != numScalars)
    return llvm::createStringError(
        "kernel '" + metadata.kernel + "' takes " + std::to_string(numScalars) +
        " scalar arguments, " + std::to_string(scalars.size()) + " given");

  PackedKernelArguments packed;
  // Sized once: pointers into the slots are taken below.
  packed.storage.assign(metadata.arguments.size(), 0);
  packed.pointers.reserve(metadata.arguments.size());
  size_t nextBuffer = 0, nextScalar = 0;
  for (auto [i, arg] : llvm::enumerate(metadata.arguments)) {
    uint64_t *slot = &packed.storage[i];
    if (arg.kind == KernelArgKind::Buffer) {
      // A CUdeviceptr is 64 bits on every platform CUDA supports.
      *slot = deviceBuffers[nextBuffer++];
    } else {
      const KernelScalar &scalar = scalars[nextScalar++];
      if (scalar.kind != arg.kind)
        return llvm::createStringError(
            "scalar argument '" + arg.name + "' of kernel '" + metadata.kernel +
            "' is " + stringifyKernelArgKind(arg.kind).str() + ", but " +
            stringifyKernelArgKind(scalar.kind).str() + " was given");
      // The driver copies sizeof(parameter) bytes from the pointer, so a
      // 4-byte value must sit in the slot's first bytes; copying the low
      // half of `bits` does that on the little-endian hosts CUDA runs on.
      if (arg.kind == KernelArgKind::I64) {
        *slot = scalar.bits;
      } else {
        uint32_t low = static_cast<uint32_t>(scalar.bits);
        std::memcpy(slot, &low, sizeof(low));
      }
    }
    packed.pointers.push_back(slot);
  }
  return std::move(packed);
}

//===----------------------------------------------------------------------===//
// Compute capability
//===----------------------------------------------------------------------===//

llvm::Expected<llvm::SmallVector<const KernelArgument *>>
mlir::accel::checkHostArguments(const KernelMetadata &metadata,
                                llvm::StringRef target,
                                llvm::ArrayRef<HostBuffer> buffers,
                                llvm::ArrayRef<KernelScalar> scalars) {
  if (llvm::Error error = verifyKernelMetadata(metadata))
    return std::move(error);
  if (metadata.target != target)
    return llvm::createStringError("it targets " + metadata.target + ", not " +
                                   target);
  llvm::SmallVector<const KernelArgument *> bufferArgs;
  for (const KernelArgument &arg : metadata.arguments)
    if (arg.kind == KernelArgKind::Buffer)
      bufferArgs.push_back(&arg);
  if (buffers.size() != bufferArgs.size())
    return llvm::createStringError(
        "it takes " + std::to_string(bufferArgs.size()) +
        " buffer arguments, " + std::to_string(buffers.size()) + " given");
  for (auto [arg, buffer] : llvm::zip_equal(bufferArgs, buffers))
    if (static_cast<int64_t>(buffer.bytes.size()) != arg->byteSize)
      return llvm::createStringError(
          "buffer '" + arg->name + "' needs " + std::to_string(arg->byteSize) +
          " bytes, the host buffer has " + std::to_string(buffer.bytes.size()));
  // Scalar counts and kinds: packing with placeholder pointers checks them.
  if (auto check = packKernelArguments(
          metadata, llvm::SmallVector<uint64_t>(bufferArgs.size(), 0), scalars);
      !check)
    return check.takeError();
  return bufferArgs;
}
