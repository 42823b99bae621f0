//===- KernelMetadata.h - Launch metadata of a GPU kernel -------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// What a host needs to launch one generated GPU kernel: the target and chip
// it was compiled for, the launch configuration, and the exact layout of its
// arguments. The compiler writes it as JSON next to the PTX/cubin/HSACO and
// the launcher reads it back; docs/gpu-runtime.md describes the format.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_RUNTIME_KERNELMETADATA_H
#define ACCEL_RUNTIME_KERNELMETADATA_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace accel {

/// The version of the JSON format this code reads and writes.
constexpr int64_t kKernelMetadataFormatVersion = 1;

/// How an argument is passed: buffers as a 64-bit device pointer, scalars by
/// value.
enum class KernelArgKind { Buffer, I32, I64, F32 };

/// For buffers: whether the kernel reads it, writes it, or both. The
/// launcher copies `In`/`InOut` buffers to the device, pre-fills `Out`
/// buffers with NaN (0xFF bytes) and copies `Out`/`InOut` buffers back.
enum class BufferAccess { In, Out, InOut };

llvm::StringRef stringifyKernelArgKind(KernelArgKind kind);
llvm::StringRef stringifyBufferAccess(BufferAccess access);

/// Bytes per element of a buffer element type ("f16", "bf16", "f32", "f64",
/// "i8", "i16", "i32", "i64", "f8E4M3FN", "f8E5M2"); std::nullopt for any
/// other name.
std::optional<int64_t> getDTypeByteWidth(llvm::StringRef dtype);

struct KernelArgument {
  std::string name;
  KernelArgKind kind = KernelArgKind::Buffer;
  /// Buffers only: the element type, the row-major shape and the access.
  std::string dtype;
  llvm::SmallVector<int64_t> shape;
  BufferAccess access = BufferAccess::In;
  /// Buffers: elements * element width. Scalars: 4 (i32, f32) or 8 (i64).
  int64_t byteSize = 0;

  bool operator==(const KernelArgument &other) const;
  bool operator!=(const KernelArgument &other) const {
    return !(*this == other);
  }
};

/// What the kernel uses per thread / per block, as reported by the backend
/// assembler (ptxas -v, the AMDGPU code object notes).
struct KernelResources {
  int64_t registers = 0;
  int64_t staticSharedBytes = 0;
  int64_t spillBytes = 0;

  /// AMD kernels only: what the code object's kernel descriptor and
  /// metadata note say (docs/gpu-runtime.md, "Resource report").
  struct Amdgpu {
    int64_t vgprs = 0, agprs = 0, sgprs = 0;
    /// VGPRs the kernel descriptor allocates (granulated).
    int64_t allocatedVgprs = 0;
    /// Scratch bytes per work-item (the private segment): spills live here.
    int64_t scratchBytes = 0;
    int64_t wavefrontSize = 0;
    /// The occupancy estimate: resident waves per SIMD.
    int64_t wavesPerSimd = 0;
    bool operator==(const Amdgpu &other) const {
      return vgprs == other.vgprs && agprs == other.agprs &&
             sgprs == other.sgprs && allocatedVgprs == other.allocatedVgprs &&
             scratchBytes == other.scratchBytes &&
             wavefrontSize == other.wavefrontSize &&
             wavesPerSimd == other.wavesPerSimd;
    }
  };
  std::optional<Amdgpu> amdgpu;

  bool operator==(const KernelResources &other) const;
  bool operator!=(const KernelResources &other) const {
    return !(*this == other);
  }
};

/// "accel <version>+<git commit>" of this build (".dirty" after the commit
/// when the tree differed from it, "unknown" outside a git checkout): the
/// default `compiler` field, and what every artifact records
/// (lib/Runtime/CompilerId.cpp).
std::string getAccelCompilerId();

/// The SHA-256 of `bytes` in 64 lowercase hex digits: what metadata records
/// of each artifact, so that a stale or swapped file is told apart.
std::string computeSha256Hex(llvm::StringRef bytes);

/// Whether `name` can only name a file inside a given folder: non-empty,
/// letters, digits, '_', '.', '-', not starting with '.' (so no separators,
/// no "..", nothing hidden). Artifact names in metadata, and names taken
/// from the IR by accel-compile, must be such names.
bool isPlainFileName(llvm::StringRef name);

struct KernelMetadata {
  int64_t formatVersion = kKernelMetadataFormatVersion;
  /// "accel <version>" of the compiler that wrote it.
  std::string compiler = getAccelCompilerId();
  /// "nvptx" or "amdgpu".
  std::string target = "nvptx";
  /// "sm_80", "sm_90a", "gfx942", ...
  std::string chip;
  /// Comma-separated ISA features (as in #accel.target); may be empty.
  std::string features;
  /// The kernel's symbol name in the image.
  std::string kernel;
  std::array<int64_t, 3> grid = {1, 1, 1};
  std::array<int64_t, 3> block = {1, 1, 1};
  int64_t dynamicSharedBytes = 0;
  /// In the order of the kernel's parameters.
  std::vector<KernelArgument> arguments;
  std::optional<KernelResources> resources;
  /// The artifacts next to this file holding the kernel (plain file names;
  /// empty: none), as accel-compile writes them.
  std::string ptx, cubin;
  /// AMD: the code object (HSACO) holding the kernel.
  std::string hsaco;
  /// The SHA-256 (computeSha256Hex) of each artifact above, where the
  /// compiler wrote it (empty: not recorded).
  std::string ptxSha256, cubinSha256, hsacoSha256;

  bool operator==(const KernelMetadata &other) const;
  bool operator!=(const KernelMetadata &other) const {
    return !(*this == other);
  }
};

/// Parses and validates one kernel's metadata. Every field is checked (type,
/// range, the launch limits of the target, consistency of a buffer's byte
/// size with its shape and dtype); errors start with "invalid kernel
/// metadata: " and name the offending field, e.g. "grid[1]".
llvm::Expected<KernelMetadata> parseKernelMetadata(llvm::StringRef json);
/// The same on an already parsed JSON value (a kernel's entry in a larger
/// file).
llvm::Expected<KernelMetadata>
parseKernelMetadataValue(const llvm::json::Value &json);

/// Checks the invariants parseKernelMetadata checks on a structure built in
/// memory (the compiler calls it before writing).
llvm::Error verifyKernelMetadata(const KernelMetadata &metadata);

/// The JSON form, fields in a fixed order; parseKernelMetadata(toJson(m))
/// == m for every valid m.
llvm::json::Value toJsonValue(const KernelMetadata &metadata);
std::string toJson(const KernelMetadata &metadata);

} // namespace accel
} // namespace mlir

#endif // ACCEL_RUNTIME_KERNELMETADATA_H
