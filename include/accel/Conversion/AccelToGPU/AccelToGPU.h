//===- AccelToGPU.h - accel matmuls to GPU kernels --------------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// convert-accel-to-gpu and the block-tile choice it makes. Each matmul
// becomes one gpu.func kernel: a block computes a tileM x tileN block of C
// with its warps, streaming tileK-deep slices of A and B through a ring of
// `stages` shared-memory buffers (cp.async), ldmatrix into registers and
// mma.sync m16n8k16 with f32 accumulators (the pass description in
// Passes.td has the details).
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_CONVERSION_ACCELTOGPU_ACCELTOGPU_H
#define ACCEL_CONVERSION_ACCELTOGPU_ACCELTOGPU_H

#include "mlir/Pass/Pass.h"
#include "llvm/ADT/StringSwitch.h"
#include <cstdint>

namespace mlir {
namespace accel {

class GpuTargetInfo;

#define GEN_PASS_DECL_ACCELGPUCONFIGUREPASS
#define GEN_PASS_DECL_CONVERTACCELTOGPUPASS
#define GEN_PASS_DECL_ACCELGPUAPPROXIMATEMATHPASS
#include "accel/Conversion/Passes.h.inc"

/// One matmul of the batch: C[M, N] (+)= A[M, K] . B[K, N] (B stored [N, K]
/// when `transposeB`), A/B elements of `inBytes`.
struct GpuGemmShape {
  int64_t batch = 1, m = 0, n = 0, k = 0;
  int64_t inBytes = 2;
  bool transposeB = false;
};

/// A block tile and how the block works on it.
struct GpuGemmConfig {
  int64_t tileM = 0, tileN = 0, tileK = 0;
  /// Warps along M and N; each owns a (tileM / warpsM) x (tileN / warpsN)
  /// part of the block tile.
  int64_t warpsM = 0, warpsN = 0;
  /// Shared-memory buffers of the cp.async ring (at least 2).
  int64_t stages = 0;
  /// Warpgroup MMA (wgmma.mma_async, sm_90a): each warpgroup of 4 warps
  /// owns 64 rows of the block tile, the operands are read from shared
  /// memory in the 128-byte swizzled layout (tileK = 128 bytes of K).
  bool wgmma = false;
  /// The kernel of chips without asynchronous copies (AMD): slices pass
  /// through registers into `stages` (2) LDS buffers, B stored
  /// [tileN][tileK + pad] whatever its layout in global memory.
  bool registerStaged = false;
  /// The FMA kernel of f32 inputs (both vendors, no matrix instruction):
  /// each thread owns a micro tile of C (getGpuFmaMicroTile) and multiplies
  /// it by scalar fused multiply-adds, exact f32 as cuBLAS's SGEMM; slices
  /// pass through registers into 2 buffers of A and B, both stored
  /// [tileK][tile + kGpuFmaRowPad] (A transposed on the way in).
  bool fma = false;
};

/// Elements each shared-memory row of the FMA kernel is padded by: keeps
/// rows 16-byte aligned (4-element vector reads) and moves the transposed
/// stores of consecutive rows of A to other banks.
constexpr int64_t kGpuFmaRowPad = 4;

/// Rows and columns of C each thread of the FMA kernel owns on a tileM x
/// tileN block tile (32, 64 or 128 each): 4 x 4 when either is 32, else
/// 8 x 8, in runs of 4 that sit half a tile apart (so that neighbouring
/// threads read neighbouring 16-byte vectors of shared memory).
inline int64_t getGpuFmaMicroTile(int64_t tileM, int64_t tileN) {
  return tileM == 32 || tileN == 32 ? 4 : 8;
}

/// Bytes of the 128-byte swizzle atom of the wgmma kernels' shared tiles;
/// the ring is aligned to it at run time, hence as much slack.
constexpr int64_t kGpuWgmmaSwizzleAtom = 1024;

/// Elements each shared-memory row of 16-bit inputs is padded by, so that
/// the 8 rows one ldmatrix reads fall in different banks; keeps rows 16-byte
/// aligned.
constexpr int64_t kGpuSharedRowPad = 8;

/// The pad of a row of `inBytes`-byte elements: 16 bytes, as for 16-bit
/// inputs (8-bit inputs: 16 elements).
inline int64_t getGpuSharedRowPad(int64_t inBytes) {
  return kGpuSharedRowPad * 2 / inBytes;
}

/// Bytes of (dynamic) shared memory `config` needs: `stages` buffers of the
/// A tile [tileM][tileK + pad] and the B tile ([tileK][tileN + pad], or
/// [tileN][tileK + pad] when B is transposed); the FMA kernel's 2 buffers of
/// [tileK][tileM + pad] and [tileK][tileN + pad].
int64_t getGpuGemmSharedBytes(const GpuGemmShape &shape,
                              const GpuGemmConfig &config);

/// The default tiles of `shape` on `target`: 128x128x32 with 8 warps (2x4)
/// when that grid still gives every multiprocessor a block, else 64x64x32
/// with 4 warps (2x2); halved towards the problem when it is smaller, tileK
/// at most K rounded up to 16 (8-bit inputs: 32 to 64, K rounded up to 32);
/// 3 stages (2 when K fits one tile).
GpuGemmConfig getDefaultGpuGemmConfig(const GpuTargetInfo &target,
                                      const GpuGemmShape &shape);

/// Splits `warps` warps over a tileM x tileN block tile (each warp's part a
/// multiple of 16 x 16, as square as possible); false when none does.
bool splitGpuWarps(int64_t tileM, int64_t tileN, int64_t warps,
                   GpuGemmConfig &config);

/// ncclDataType_t of a collective's element type (its MLIR name, "f32"),
/// and ncclRedOp_t of its reduction ("sum", "product", "max", "min",
/// "average"); NCCL and RCCL agree. -1 for what NCCL has none of:
/// convert-accel-to-gpu refuses those, the GPU host library emits these.
inline int getNcclDataType(llvm::StringRef dtype) {
  return llvm::StringSwitch<int>(dtype)
      .Case("i8", 0)
      .Case("i32", 2)
      .Case("i64", 4)
      .Case("f16", 6)
      .Case("f32", 7)
      .Case("f64", 8)
      .Case("bf16", 9)
      .Default(-1);
}
inline int getNcclRedOp(llvm::StringRef reduction) {
  return llvm::StringSwitch<int>(reduction)
      .Case("sum", 0)
      .Case("product", 1)
      .Case("max", 2)
      .Case("min", 3)
      .Case("average", 4)
      .Default(-1);
}

} // namespace accel
} // namespace mlir

#endif // ACCEL_CONVERSION_ACCELTOGPU_ACCELTOGPU_H
