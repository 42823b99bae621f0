//===- KernelConfig.h - the GPU configuration stage -------------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Where every choice of a GPU kernel is made (the pattern of IREE's
// LLVMGPU KernelConfig.cpp): the analysis of an accel.matmul or
// accel.attention for a chip (what the kernels need to know of the op, with
// the located errors for what no kernel takes), the choice of its
// configuration from the chip and the overrides (pass options, a
// hand-written #accel.lowering_config), and the conversion between that
// configuration and the attribute. accel-gpu-configure writes the attribute;
// convert-accel-to-gpu reads it back through the same functions, so a config
// is checked by one set of rules whoever wrote it.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_CONVERSION_ACCELTOGPU_KERNELCONFIG_H
#define ACCEL_LIB_CONVERSION_ACCELTOGPU_KERNELCONFIG_H

#include "accel/Conversion/AccelToGPU/AccelToGPU.h"
#include "accel/Conversion/AccelToGPU/GpuTargetInfo.h"
#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include <array>
#include <memory>
#include <optional>
#include <string>

namespace mlir::accel {

/// What overrides the model's choice: the pass options, or an op's
/// #accel.lowering_config (its fields first, the options for the rest).
/// Zero and "" leave a choice to the model.
struct GpuConfigOverrides {
  /// "", "auto", "mma.sync", "wgmma" (NVIDIA), "mfma", "wmma" (AMD).
  std::string mma;
  int64_t tileM = 0, tileN = 0, tileK = 0;
  /// Warps in all, and (a hand-written config) how they split over M and N.
  int64_t warps = 0, warpsM = 0, warpsN = 0;
  int64_t stages = 0;
  /// Attention: query rows per block and keys per step.
  int64_t blockM = 0, blockN = 0;
  /// A hand-written config's instruction shape, checked against the chip's.
  SmallVector<int64_t, 3> instr;

  /// The overrides the GPU passes' options give.
  static GpuConfigOverrides fromOptions(StringRef mma, int64_t tileM,
                                        int64_t tileN, int64_t tileK,
                                        int64_t warps, int64_t stages) {
    GpuConfigOverrides o;
    o.mma = mma.str();
    o.tileM = tileM;
    o.tileN = tileN;
    o.tileK = tileK;
    o.warps = warps;
    o.stages = stages;
    return o;
  }
};

/// The chip both GPU passes compile for: `chip` with the figures of the
/// module's #accel.target where it describes a GPU (it must name the same
/// chip), else those of the target catalogue's entry for the chip; null,
/// with a located error at `module` naming `pass`, for an unknown chip or a
/// target that does not fit.
std::unique_ptr<GpuTargetInfo> resolveGpuTarget(ModuleOp module,
                                                StringRef chip,
                                                StringRef pass);

/// Checks that `func` is one convert-accel-to-gpu compiles as a whole: a
/// name that can name a kernel, and a body of accel.matmul ops or of
/// accel.attention ops (not both) with tensor.empty and constants; a located
/// error when not. The configuration stage checks it first too, so that both
/// report a function's faults in the same order.
LogicalResult checkGpuKernelFunction(func::FuncOp func);

/// Threads per block of a row kernel (RowKernel.h) whose rows have `columns`
/// elements: whole warps, at least 4 columns a thread before another warp
/// joins, at most 256.
int64_t getGpuRowKernelThreads(int64_t columns, const GpuTargetInfo &target);

/// What both GPU passes do first: the chip (resolveGpuTarget) and the pass
/// options `o` checked against it (an mma the chip has, sizes not
/// negative); null, with a located error at `module` naming `pass`, when
/// either does not fit.
std::unique_ptr<GpuTargetInfo> setUpGpuPass(ModuleOp module, StringRef chip,
                                            StringRef pass,
                                            const GpuConfigOverrides &o);

/// The overrides of `op`: its accel.lowering_config's fields where it has
/// one, `options` for the rest; a located error for a config that does not
/// belong to a GPU kernel of this vendor or op.
FailureOr<GpuConfigOverrides>
getGpuOverrides(Operation *op, const GpuTargetInfo &target,
                const GpuConfigOverrides &options);

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

/// Everything the kernel of one matmul depends on.
struct GemmKernel {
  GpuGemmShape shape;
  GpuGemmConfig config;
  GpuMmaInstr mma;
  /// A's and B's element types (f8 may mix e4m3 and e5m2), and C's.
  Type inType, inTypeB, outType;
  bool accumulate = false;
  /// Whether the global memrefs carry a (collapsed) batch dimension.
  bool batched = false;
  /// Elements per cp.async of a row of A and of B.
  int64_t vecA = 8, vecB = 8;
  /// wgmma only: B as [K, N] is read N-major (wgmma's transposed B,
  /// 16-bit types only); as [N, K] it is K-major like A.
  bool bMnMajor = false;
  /// f32 inputs that are TF32 values (accel.tf32_inputs: accel-lower-
  /// precision's compute = tf32 rounded them) on a chip with a TF32 matrix
  /// instruction: the chip's matrix kernel multiplies them (mma.sync
  /// m16n8k8, xf32 MFMA 16x16x8) instead of the FMA kernel.
  bool tf32 = false;
};

/// Whether the wgmma kernel of `k` sums each K slice apart and promotes it
/// into the f32 accumulator (8-bit float inputs).
bool promotesWgmmaAccumulation(const GemmKernel &k);

/// The kernel of `mm` on `target` without its configuration: shapes, types,
/// the chip's matrix instruction, copy widths; a located error for what no
/// GPU kernel takes.
FailureOr<GemmKernel> analyzeGpuMatmul(MatmulOp mm,
                                       const GpuTargetInfo &target);

/// Chooses `k.config` for `mm`: the model's choice with `o` applied,
/// checked against the chip (wgmma where it applies and `o.mma` allows it,
/// else the chip's own kernel); a located error when the overrides do not
/// fit.
LogicalResult configureGpuMatmul(MatmulOp mm, GemmKernel &k,
                                 const GpuTargetInfo &target,
                                 const GpuConfigOverrides &o);

/// The kernel strategy of `k` ("mma.sync", "wgmma", "mfma", "wmma").
StringRef getGpuMatmulKernelName(const GemmKernel &k,
                                 const GpuTargetInfo &target);

/// The attribute that records `k.config`.
LoweringConfigAttr getGpuMatmulConfigAttr(MLIRContext *ctx,
                                          const GemmKernel &k,
                                          const GpuTargetInfo &target);

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

/// Query rows per block, keys per step and warps of the mma.sync and AMD
/// attention kernels (16 query rows a warp).
constexpr int64_t kGpuAttentionBlockM = 64, kGpuAttentionBlockN = 64,
                  kGpuAttentionWarps = 4;

/// The fma attention kernel (f32 Q, K, V): query rows per block, keys per
/// step, and the lanes that share a query (each holds a quarter of its D and
/// Dv, in 16-byte runs).
constexpr int64_t kGpuFmaAttentionBlockM = 64, kGpuFmaAttentionBlockN = 32,
                  kGpuFmaAttentionLanes = 4;

/// Everything the kernel of one attention depends on.
struct AttentionPlan {
  int64_t batch = 0, hq = 0, hkv = 0, sq = 0, skv = 0, d = 0, dv = 0;
  Type inType, outType;
  GpuMmaInstr mma;
  double scale = 1;
  bool causal = false;
  /// Key j is kept for query i when j <= i + offset (causal only).
  int64_t offset = 0;
  /// The mask, if any: its element type (i1 keeps a key; a float is added
  /// to the scaled logits) and its shape, which broadcasts (numpy rules,
  /// aligned right) to [B, Hq, Sq, Skv].
  Type maskType;
  SmallVector<int64_t> maskShape;
  int64_t stages = 2;
  /// The chip's memory pipeline stages tiles through registers into LDS
  /// (no cp.async: AMD), so the kernel is AttentionBuilder::emitLds.
  bool registerStaged = false;
  /// With registerStaged: the lane layout of the chip's MFMA/WMMA, whose
  /// accumulators are laid out as its B operand.
  std::optional<GpuLaneLayout> lanes;
  /// sm_90a: the warpgroup-MMA kernel (AttentionBuilder::emitWgmma), with
  /// blocks of blockM = 128 query rows (2 warpgroups) and blockN keys a
  /// step; else the mma.sync (or AMD) kernel with 64 x 64 (TF32: 64 x 64
  /// or 64 x 32).
  bool wgmma = false;
  /// f32 inputs: the fma kernel (AttentionBuilder::emitFma), on any chip,
  /// with blocks of 64 query rows and 32 keys, 4 lanes a query; `fmaWarps`
  /// warps (256 threads).
  bool fma = false;
  int64_t fmaWarps = 0;
  /// f32 Q, K and V that are TF32 values (accel.tf32_inputs) on a chip
  /// with a TF32 matrix instruction: the mma.sync kernel with m16n8k8 .tf32
  /// (NVIDIA, sm_90a included) or the LDS kernel with xf32 MFMA 16x16x8
  /// (gfx942); P is rounded to TF32 before P.V. blockN is 64 or, where the
  /// f32 tiles would not fit the shared memory, 32.
  bool tf32 = false;
  int64_t blockM = kGpuAttentionBlockM, blockN = kGpuAttentionBlockN;

  int64_t inBytes() const { return inType.getIntOrFloatBitWidth() / 8; }
  int64_t warps() const {
    return fma     ? fmaWarps
           : wgmma ? 2 * kGpuAttentionWarps
                   : kGpuAttentionWarps;
  }
  int64_t sharedBytes() const;
  std::array<int64_t, 3> grid() const {
    return {(sq + blockM - 1) / blockM, hq, batch};
  }
};

/// The kernel of `op` on `target` without its configuration; a located
/// error for what no GPU kernel takes.
FailureOr<AttentionPlan> analyzeGpuAttention(AttentionOp op,
                                             const GpuTargetInfo &target);

/// Chooses the kernel (wgmma where it applies), its blocks and stages, with
/// `o` applied and checked against the chip.
LogicalResult configureGpuAttention(AttentionOp op, AttentionPlan &k,
                                    const GpuTargetInfo &target,
                                    const GpuConfigOverrides &o);

/// The attention kernel of `k` ("mma.sync", "wgmma", "mfma", "wmma").
StringRef getGpuAttentionKernelName(const AttentionPlan &k,
                                    const GpuTargetInfo &target);

/// The attribute that records the configuration of `k`.
LoweringConfigAttr getGpuAttentionConfigAttr(MLIRContext *ctx,
                                             const AttentionPlan &k,
                                             const GpuTargetInfo &target);

//===----------------------------------------------------------------------===//
// Weight-only quantised matmul
//===----------------------------------------------------------------------===//

/// Everything the kernel of one accel.dequant_matmul depends on
/// (DequantKernel.h): the op flattened to C [rows, N] = A [rows, K] times
/// the dequantised W [N, K] transposed, and the configuration chosen for
/// the chip.
struct GpuDequantPlan {
  /// A's batch dimensions and M flattened (A and C are contiguous).
  int64_t rows = 0, n = 0, k = 0;
  int64_t bits = 4, group = 0;
  bool isUnsigned = false, hasZeroPoints = false;
  Type aType, scaleType, zeroType, outType;
  /// Configuration. A warp computes `rowsPerWarp` consecutive rows of W
  /// (output channels) for `rowsA` rows of A, over all of K: each lane
  /// takes `chunk` consecutive weights at a time (one load of chunk * bits
  /// / 8 bytes, never across a group: chunk divides the group), the warp
  /// 32 or 64 chunks side by side, and the lanes' sums meet in a butterfly
  /// of xor shuffles. A block is `warps` warps along N.
  int64_t rowsPerWarp = 0, rowsA = 0, warps = 0, chunk = 0;

  int64_t chunkBytes() const { return chunk * bits / 8; }
  int64_t rowsPerBlock() const { return rowsPerWarp * warps; }
  std::array<int64_t, 3> grid() const {
    return {(n + rowsPerBlock() - 1) / rowsPerBlock(),
            (rows + rowsA - 1) / rowsA, 1};
  }
};

/// The kernel of `op` on `target`, analysed and configured (the stage's
/// choice: no pass option or lowering_config applies to it); a located
/// error for what the kernel does not take (dynamic shapes, a config
/// written on the op, a grid past the chip's).
FailureOr<GpuDequantPlan> planGpuDequant(DequantMatmulOp op,
                                         const GpuTargetInfo &target);

/// Threads of a block of the paged attention's combine kernel (one an
/// element of O).
constexpr int64_t kGpuPagedCombineThreads = 256;

/// What the kernels of an accel.paged_attention need
/// (PagedAttentionKernel.h): the op's shapes and types, and the
/// configuration the stage chose for the chip.
struct GpuPagedPlan {
  int64_t batch = 0, hq = 0, hkv = 0, sq = 0, d = 0, dv = 0;
  /// P pages of T tokens in the pools; N pages a sequence (the table's
  /// columns).
  int64_t pages = 0, pageSize = 0, maxPages = 0;
  Type inType, outType, tableType, lengthType;
  bool causal = false;
  double scale = 0;
  /// Configuration. A key is read by a group of `lanes` lanes (a power of
  /// two up to the warp), each loading runs of `vec` elements of its K and
  /// V rows (16 bytes or less); a block is `warps` warps, so warps *
  /// (warp / lanes) groups, each taking `unroll` keys a step. A block
  /// holds `rowsPerBlock` of the G * Sq packed query rows of one KV head
  /// (G = Hq / Hkv query heads, row g * Sq + i) and the keys of one of
  /// `splits` ranges of `pagesPerSplit` pages of its sequence.
  int64_t vec = 1, lanes = 1, warps = 1, unroll = 1, rowsPerBlock = 1,
          splits = 1, pagesPerSplit = 1;

  int64_t rows() const { return hq / hkv * sq; }
  int64_t rowTiles() const {
    return (rows() + rowsPerBlock - 1) / rowsPerBlock;
  }
  int64_t runsK() const { return d / vec; }
  int64_t runsV() const { return dv / vec; }
  /// Runs of a K (V) row a lane holds: lane l of a group runs l, l + lanes,
  /// ... below runsK (runsV).
  int64_t kRunsPerLane() const { return (runsK() + lanes - 1) / lanes; }
  int64_t vRunsPerLane() const { return (runsV() + lanes - 1) / lanes; }
  int64_t groups(int64_t warpSize) const { return warps * (warpSize / lanes); }
  /// (split, KV head x row tile, sequence).
  std::array<int64_t, 3> grid() const {
    return {splits, hkv * rowTiles(), batch};
  }
  /// Bytes of shared memory: every group's (acc, m, l) of each row, then a
  /// flag a warp.
  int64_t sharedBytes(int64_t warpSize) const {
    return (groups(warpSize) * rowsPerBlock * (dv + 2) + warps) * 4;
  }
};

/// The kernels of `op` on `target`, analysed and configured (the stage's
/// choice: no pass option or lowering_config applies); a located error for
/// what they do not take (a batch or pool sized at run time, a config
/// written on the op, a grid or shared memory past the chip's).
FailureOr<GpuPagedPlan> planGpuPagedAttention(PagedAttentionOp op,
                                              const GpuTargetInfo &target);

/// The kernel of `mm` or `op`, configured: its analysis, then its
/// accel.lowering_config completed and checked, or the stage's choice with
/// `options` (what both accel-gpu-configure and the conversion do).
FailureOr<GemmKernel> planGpuMatmul(MatmulOp mm, const GpuTargetInfo &target,
                                    const GpuConfigOverrides &options);
FailureOr<AttentionPlan> planGpuAttention(AttentionOp op,
                                          const GpuTargetInfo &target,
                                          const GpuConfigOverrides &options);

/// The configuration of `op` (an accel.matmul or accel.attention) on
/// `target`: its own accel.lowering_config completed and checked, or the
/// stage's choice with `options`; a located error when none fits.
FailureOr<LoweringConfigAttr> configureGpuOp(Operation *op,
                                             const GpuTargetInfo &target,
                                             const GpuConfigOverrides &options);

} // namespace mlir::accel

#endif // ACCEL_LIB_CONVERSION_ACCELTOGPU_KERNELCONFIG_H
