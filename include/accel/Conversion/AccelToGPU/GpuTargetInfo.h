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
enum class GpuMmaType {
  F16,
  BF16,
  TF32,
  F8E4M3FN,
  F8E5M2,
  F8E4M3FNUZ,
  F8E5M2FNUZ,
  I8
};

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

/// How the lanes of a wave hold the fragments of one matrix instruction in
/// the layouts where every lane holds whole runs of K (AMD's MFMA on CDNA
/// and WMMA on RDNA). With G = lane / 16 and R = lane % 16:
/// - A (16 x k): lane holds A[R][kPerLane * (G % kGroups) + e], e <
///   kPerLane (kGroups = 1: lanes 16 and up repeat lanes 0-15);
/// - B (k x 16): lane holds B[kPerLane * (G % kGroups) + e][R];
/// - C (16 x 16): lane holds C[e * accRowStep + G * accLaneRowStep][R], e <
///   accPerLane.
struct GpuLaneLayout {
  int64_t kPerLane = 0, kGroups = 0;
  int64_t accPerLane = 0, accRowStep = 0, accLaneRowStep = 0;
};

/// A GPU chip as the lowering sees it.
class GpuTargetInfo {
public:
  virtual ~GpuTargetInfo();

  /// "nvptx" or "amdgpu" (the `target` field of the kernel metadata).
  virtual llvm::StringRef getTargetName() const = 0;
  /// "sm_80", "sm_90a", "gfx942", ...
  virtual llvm::StringRef getChip() const = 0;
  /// What the chip calls its block-local memory in diagnostics ("shared
  /// memory", "LDS").
  virtual llvm::StringRef getSharedMemoryName() const {
    return "shared memory";
  }
  /// The matrix-instruction families the `mma` option may name on this chip,
  /// the first being the one `auto` starts from (NVIDIA: mma.sync, wgmma;
  /// AMD CDNA: mfma; RDNA3: wmma; then fma, the f32 GEMM kernel of every
  /// chip, which uses no matrix instruction), and every family of the
  /// vendor (for the diagnostic naming what a chip lacks).
  virtual llvm::ArrayRef<llvm::StringRef> getMmaFamilies() const = 0;
  virtual llvm::ArrayRef<llvm::StringRef> getVendorMmaFamilies() const = 0;
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
  /// The chip's memory pipeline: whether global-to-shared copies can be
  /// asynchronous (cp.async rings, fragments by ldmatrix: NVIDIA) or are
  /// staged through registers into LDS, fragments then read in the matrix
  /// instruction's lane layout (getLaneLayout: AMD). The planner
  /// (KernelConfig.cpp) picks kernel bodies by this fact, never by vendor.
  virtual bool hasAsyncCopy() const = 0;
  /// Whether the chip has warpgroup MMA reading shared memory through
  /// descriptors (NVIDIA wgmma.mma_async: sm_90a only, the arch-specific
  /// Hopper target).
  virtual bool hasWarpgroupMma() const { return false; }

  /// The lane layout of `instr`'s fragments where the chip's matrix
  /// instructions use one (AMD); std::nullopt for NVIDIA's mma.sync, whose
  /// fragments ldmatrix loads.
  virtual std::optional<GpuLaneLayout>
  getLaneLayout(const GpuMmaInstr &instr) const {
    return std::nullopt;
  }

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
  /// their i8 bit patterns); `c` vector<2x2xf32>, vector<2x2xi32> for i8.
  /// AMD: `a`, `b` vector<kPerLane x T>, `c` vector<accPerLane x f32|i32>,
  /// as getLaneLayout says).
  virtual Value createMma(OpBuilder &builder, Location loc,
                          const GpuMmaInstr &instr, Value a, Value b,
                          Value c) const = 0;

  /// 2^v of an f32 `v` as the chip computes it fastest, with 2^-inf = +0
  /// (FlashAttention's softmax exponent).
  virtual Value createExp2(OpBuilder &b, Location loc, Value v) const = 0;

protected:
  /// What findMma's diagnostic adds when the chip has no instruction for
  /// `input`, e.g. " (f8E4M3FN needs sm_89 or newer)"; empty for nothing.
  virtual std::string getMissingMmaHint(GpuMmaType input) const = 0;
};

/// The figures of one GPU the lowering reads, from the target catalogue
/// (lib/Target/Catalogue.cpp, the one place chip figures live) or from a
/// module's #accel.target.
struct GpuChipFigures {
  /// Multiprocessors (SMs, CUs) of the device.
  int64_t computeUnits = 0;
  /// Shared memory (LDS) of one multiprocessor, KiB.
  int64_t localMemoryKib = 0;
};

/// The target description of `chip` (one of getKnownGpuChips: today
/// NVIDIA sm_80, sm_86, sm_89, sm_90, sm_90a; AMD gfx90a, gfx942, gfx1100)
/// with `figures`; null for a chip it does not know. The instruction set
/// follows from the chip (getGpuIsa, accel/Target/GpuIsa.h); the sizes
/// from the figures.
std::unique_ptr<GpuTargetInfo> createGpuTargetInfo(llvm::StringRef chip,
                                                   const GpuChipFigures &figures);

/// The same with the figures of the catalogue's entry for `chip`
/// (findTargetSpecForChip); null for a chip it does not know.
std::unique_ptr<GpuTargetInfo> createGpuTargetInfo(llvm::StringRef chip);

/// The chips createGpuTargetInfo knows: the target catalogue's GPU chips
/// of the generations the back end implements (getImplementedGpuChips).
llvm::ArrayRef<llvm::StringRef> getKnownGpuChips();

/// The AMD half of createGpuTargetInfo (AmdgpuTargetInfo.cpp): gfx90a,
/// gfx942 and gfx1100; null for other chips.
std::unique_ptr<GpuTargetInfo>
createAmdgpuTargetInfo(llvm::StringRef chip, const GpuChipFigures &figures);

} // namespace accel
} // namespace mlir

#endif // ACCEL_CONVERSION_ACCELTOGPU_GPUTARGETINFO_H
