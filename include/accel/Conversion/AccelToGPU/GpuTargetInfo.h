//===- GpuTargetInfo.h - what a GPU lowering asks its target ----*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The questions convert-accel-to-gpu asks a GPU chip (the pattern of
// Triton's TargetInfoBase): its limits (warp size, threads and shared
// memory per block, grid size), which warp-level matrix instructions it has
// for which element types, whether it copies global to shared memory
// asynchronously, and how to emit one matrix instruction. The lowering
// itself stays free of chip tables, so another vendor (AMD) plugs in a
// second implementation.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_CONVERSION_ACCELTOGPU_GPUTARGETINFO_H
#define ACCEL_CONVERSION_ACCELTOGPU_GPUTARGETINFO_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace mlir {
namespace accel {

/// Element types of matrix-instruction operands.
enum class GpuMmaType { F16, BF16, TF32, F8E4M3FN, F8E5M2, I8 };

/// The name used in diagnostics ("f16", "bf16", "tf32", "f8E4M3FN", ...).
llvm::StringRef stringifyGpuMmaType(GpuMmaType type);

/// The matrix-operand type of an MLIR element type (f32 maps to tf32, the
/// only way tensor cores take f32); std::nullopt for anything else.
std::optional<GpuMmaType> getGpuMmaType(Type type);

/// One warp-level matrix multiply-accumulate: D[m x n] = A[m x k] . B[k x n]
/// + C, with A and B of `input` and C, D in f32 (i32 when
/// `accumulatesInInt`).
struct GpuMmaInstr {
  GpuMmaType input = GpuMmaType::F16;
  bool accumulatesInInt = false;
  int64_t m = 0, n = 0, k = 0;
  /// B's type where it differs from A's (f8 inputs mix e4m3 and e5m2).
  std::optional<GpuMmaType> inputB = std::nullopt;
};

/// A GPU chip as the lowering sees it.
class GpuTargetInfo {
public:
  virtual ~GpuTargetInfo();

  /// "nvptx" or "amdgpu" (the `target` field of the kernel metadata).
  virtual llvm::StringRef getTargetName() const = 0;
  /// "sm_80", "sm_90a", ...
  virtual llvm::StringRef getChip() const = 0;
  virtual int64_t getWarpSize() const = 0;
  virtual int64_t getMaxThreadsPerBlock() const = 0;
  /// Bytes of shared memory one block may use: the opt-in maximum of
  /// dynamic shared memory (above 48 KiB the launcher must raise the
  /// kernel's limit, e.g. cuFuncSetAttribute).
  virtual int64_t getMaxSharedMemoryPerBlock() const = 0;
  /// Largest grid, in blocks, along x, y and z.
  virtual std::array<int64_t, 3> getMaxGridSize() const = 0;
  /// Multiprocessors of a typical part with this chip; heuristics only
  /// (whether large tiles still give every multiprocessor a block).
  virtual int64_t getNumMultiprocessors() const = 0;
  /// Whether global-to-shared copies can be asynchronous (cp.async).
  virtual bool hasAsyncCopy() const = 0;
  /// Whether the chip has warpgroup MMA reading shared memory through
  /// descriptors (NVIDIA wgmma.mma_async: sm_90a only, the arch-specific
  /// Hopper target).
  virtual bool hasWarpgroupMma() const { return false; }

  /// Every warp-level matrix instruction the chip executes.
  virtual llvm::ArrayRef<GpuMmaInstr> getMmaInstrs() const = 0;
  /// The instruction with float (or, for i8, integer) accumulation for A/B
  /// of `input`; std::nullopt, with the reason in `why`, when the chip has
  /// none.
  std::optional<GpuMmaInstr> findMma(GpuMmaType input, std::string &why) const;

  /// Emits one matrix instruction `instr` on register fragments and returns
  /// D. The fragment layout is the chip's (NVIDIA mma.sync: `a`
  /// vector<4xNxT>, `b` vector<2xNxT> with N elements per 32-bit register,
  /// 2 for m16n8k16 on 16-bit T, 4 for m16n8k32 on i8 (f8 inputs come as
  /// their i8 bit patterns); `c` vector<2x2xf32>, vector<2x2xi32> for i8).
  virtual Value createMma(OpBuilder &builder, Location loc,
                          const GpuMmaInstr &instr, Value a, Value b,
                          Value c) const = 0;

protected:
  /// The chip that first has an instruction for `input`, for findMma's
  /// diagnostic ("f8 needs sm_89 or newer"); empty when none does.
  virtual llvm::StringRef getFirstChipWithMma(GpuMmaType input) const = 0;
};

/// The target description of `chip` (NVIDIA: sm_80, sm_86, sm_89, sm_90,
/// sm_90a); null for a chip it does not know.
std::unique_ptr<GpuTargetInfo> createGpuTargetInfo(llvm::StringRef chip);

/// The chips createGpuTargetInfo knows, for diagnostics.
llvm::ArrayRef<llvm::StringRef> getKnownGpuChips();

} // namespace accel
} // namespace mlir

#endif // ACCEL_CONVERSION_ACCELTOGPU_GPUTARGETINFO_H
