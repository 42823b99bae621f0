//===- CpuConfig.h - the CPU target's configuration stage -------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Every choice the CPU lowering makes for a matmul or an attention: which
// kernel, which cache and register tiles, which attention blocks. The
// configuration stage (accel-cpu-configure) writes them as an
// #accel.lowering_config on the op; the passes that lower it
// (accel-decompose-attention, accel-cpu-dot-kernels,
// accel-cpu-vectorize-contractions) read it, and call the same functions
// for an op that reaches them without one (docs/configure.md).
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_TRANSFORMS_CPUCONFIG_H
#define ACCEL_TRANSFORMS_CPUCONFIG_H

#include "accel/Dialect/Accel/IR/AccelAttrs.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include <array>

namespace mlir::accel {

/// The CPU facts the choices depend on.
struct CpuIsa {
  /// Whether the features are known (given, or the module's target's);
  /// unknown features get the AVX-512 choices.
  bool known = false;
  bool avx512f = false;
  /// AVX512-BW: 16-bit lanes (vpermw).
  bool avx512bw = false;
  bool avx512bf16 = false;
  bool avx512vnni = false;
  /// AMX: the tile registers (amx-tile) and their bf16 and int8 dot
  /// products (amx-bf16: tdpbf16ps, amx-int8: tdpbssd).
  bool amxTile = false;
  bool amxBf16 = false;
  bool amxInt8 = false;
  /// L1D KiB a core, from the catalogue entry of the features
  /// (cpuTargetForFeatures) or the module's target (0: unknown).
  int64_t l1dKib = 0;

  bool hasAmxBf16() const { return amxTile && amxBf16; }
  bool hasAmxInt8() const { return amxTile && amxInt8; }

  /// From a comma-separated feature list ("+avx512f,avx512bf16").
  static CpuIsa fromFeatures(StringRef features);
  /// `features` when not empty, else the features of the CPU #accel.target
  /// of the module around `op`, else none.
  static CpuIsa resolve(StringRef features, Operation *op);
};

/// Choices given by options (a pass's or a pipeline's): empty or 0 means
/// chosen.
struct CpuConfigOverrides {
  SmallVector<int64_t> cacheTile;
  SmallVector<int64_t> registerTile;
  int64_t attentionTileQ = 0;
  int64_t attentionTileKV = 0;
  int64_t pagedPages = 0, pagedSplits = 0, pagedHeads = 0;
  /// The threads the kernels run on.
  int64_t threads = 1;
  /// vdpbf16ps flushes bf16 subnormals; false keeps bf16 on cpu-fma.
  bool bf16Flush = true;
};

/// The tiles of the cpu-fma kernel (accel-cpu-vectorize-contractions).
struct CpuFmaTiles {
  std::array<int64_t, 3> cache;    // [Mc, Nc, Kc], 0: whole
  std::array<int64_t, 3> registers; // [mr, nr, kr]
  /// B is packed into panels (pack-rhs) when its rows are more than this
  /// many bytes apart; a property of the CPU, not of one op (no field of
  /// the attribute: the pass takes it from the choice for its features).
  int64_t packRhsMinRowBytes = 2048;
  /// The register tile's K loop prefetches B's row this many K steps ahead
  /// (0: none) when the B rows one tile reads are more than
  /// prefetchRhsMinBytes (those of fewer bytes stay in L1 across the M
  /// tiles). CPU properties too, taken by the pass like packRhsMinRowBytes.
  int64_t prefetchRhsSteps = 4;
  int64_t prefetchRhsMinBytes = 32 * 1024;
};

/// The tiles of the dot kernels (accel-cpu-dot-kernels).
struct CpuDotTiles {
  int64_t mr, nr, mc, kc;
};

/// The tiles of the AMX kernels (accel-cpu-amx-kernels): a register block
/// of mr x nr C values (mr / 16 A tiles, nr / 16 B tiles and their product
/// of C tiles, at most the 8 tile registers), M blocks of mc rows and K
/// blocks of kc values (a multiple of the instruction's 32 bf16 / 64 i8).
struct CpuAmxTiles {
  int64_t mr, nr, mc, kc;
};

/// accel.dequant_matmul's kernel (cpu-dequant, or cpu-dequant-lut: int4
/// weights looked up in a 16-entry table per group with AVX-512's vpermps):
/// mr rows of A times nr rows of W at a time, K in chunks of kc = 32 (two
/// vectors of 16 f32), one accumulator vector per row pair.
/// With `amxRows` > 0 (cpu-dequant-amx: int4 or int8 weights, bf16 A, AMX
/// bf16 tiles), calls with at least amxRows rows of A multiply 16 weight
/// rows by 16 rows of A per tdpbf16ps (the weights as exact bf16 integers
/// q - z, the scales applied per chunk of K in f32); fewer rows, or zero
/// points that are not integers in the weights' range, run the mr x nr
/// kernel (the table for int4: `lut` then follows the weights).
struct CpuDequantTiles {
  int64_t mr, nr, kc;
  bool lut = false;
  int64_t amxRows = 0;
};

/// The rows of A from which cpu-dequant-amx's AMX kernel beats the FMA
/// kernels for `bits`-bit weights: its time hardly depends on the rows (the
/// unpacking is the work), theirs grows with them. 4096 x 4096 on one
/// Sapphire Rapids core, each kernel written into the config
/// (bench/results/dequant-kernels-1t-2026-12-05-a4538fd.txt), ms at 2 / 3 /
/// 4 / 8 rows: int4 table 0.97 / 1.53 / 1.24 / 2.27 against AMX 1.25-1.34;
/// int8 converting 1.29 / 2.00 / 1.64 / 2.71 against AMX 1.93-2.07.
constexpr int64_t cpuDequantAmxMinRows(int64_t bits) {
  return bits == 4 ? 3 : 5;
}

/// cpu-row-dot: an f32 matmul whose B is stored [N, K] (`transpose_b`, a
/// linear layer's weight in PyTorch's layout) with few rows of A: mr rows of
/// A times nr rows of W, dot products along K in vectors of 16 f32 (mr x nr
/// accumulators), each summed across its lanes at the end of K. W is read
/// in its own layout, once per mr rows of A; no transposed copy of it.
/// With several tiles of A's rows, K runs in blocks of kc (0: whole), each
/// tile's accumulators kept in memory between blocks, so that a block's W
/// and A rows are read from L1 by every tile.
struct CpuRowDotTiles {
  int64_t mr, nr;
  int64_t kc = 0;
};

/// The rows of A up to which an f32 matmul with B as [N, K] takes
/// cpu-row-dot rather than cpu-fma (whose panels of B are packed from W's
/// rows). See chooseCpuRowDotTiles for the measurements.
constexpr int64_t cpuRowDotMaxRows = 24;

/// The cpu-fma tiles for a contraction on `isa` with `overrides`.
CpuFmaTiles chooseCpuFmaTiles(const CpuIsa &isa,
                              const CpuConfigOverrides &overrides);
/// The dot kernels' tiles on `isa`.
CpuDotTiles chooseCpuDotTiles(const CpuIsa &isa);
/// The AMX kernels' tiles on `isa` for bf16 (`int8` false) or i8 operands.
CpuAmxTiles chooseCpuAmxTiles(const CpuIsa &isa, bool int8);
/// The attention blocks [query rows, keys per step].
std::array<int64_t, 2> chooseCpuAttentionTiles(const CpuIsa &isa,
                                               const CpuConfigOverrides &o);

/// The flash-decoding blocks of a paged attention [pages per step, splits,
/// KV heads per task] for `batch` sequences (ShapedType::kDynamic:
/// unknown), `kvHeads` KV heads, pages of `pageSize` tokens and `maxPages`
/// pages a sequence.
std::array<int64_t, 3> chooseCpuPagedTiles(const CpuIsa &isa,
                                           const CpuConfigOverrides &o,
                                           int64_t batch, int64_t kvHeads,
                                           int64_t pageSize, int64_t maxPages);

/// The register tile of a paged attention's P · V [packed query rows,
/// accumulator columns]: each row's columns one f32 vector kept in
/// registers across a page's keys (the cpu-paged-flash config's `mma`).
std::array<int64_t, 2> chooseCpuPagedPvTile(const CpuIsa &isa);

/// Whether `op` is an accel.attention the CPU lowering runs on AMX tiles
/// (cpu-flash-amx: both tile products on AMX, P rounded to bf16 before
/// P·V, as FlashAttention does): its config names cpu-flash-amx, or it has
/// none and its query, key and value are bf16, `isa` has AMX's bf16 tiles
/// and bf16 subnormals may be flushed. The fp64 oracle's gate follows it
/// (the rounding of P).
/// The kernel and register tile of accel.dequant_matmul for `rows` rows of
/// A (ShapedType::kDynamic: unknown) and `bits`-bit weights; `amxOperands`:
/// A is bf16 and bf16 subnormals may be flushed (AMX's tdpbf16ps does).
CpuDequantTiles chooseCpuDequantTiles(const CpuIsa &isa, int64_t rows,
                                      int64_t bits, bool amxOperands = false);

/// cpu-row-dot's register tile for `rows` rows of A (static), or nullopt
/// past cpuRowDotMaxRows.
std::optional<CpuRowDotTiles> chooseCpuRowDotTiles(const CpuIsa &isa,
                                                   int64_t rows);
/// The tiles of a cpu-row-dot config (`mma = [mr, nr, 16]`, `tile = [0,
/// 0, kc]` or none; nullopt: not one).
std::optional<CpuRowDotTiles> getCpuRowDotTiles(LoweringConfigAttr config);
/// Checks cpu-row-dot tiles on `isa`; the reason they do not fit, or an
/// empty string.
std::string checkCpuRowDotTiles(const CpuRowDotTiles &tiles, const CpuIsa &isa);

bool cpuFlashOnAmx(Operation *op, const CpuIsa &isa, bool bf16Flush);

/// The config of an accel.matmul or accel.attention: its own
/// accel.lowering_config completed and checked, or the choice for it. A
/// located error when its config does not fit the op or the CPU.
FailureOr<LoweringConfigAttr>
configureCpuOp(Operation *op, const CpuIsa &isa,
               const CpuConfigOverrides &overrides);

/// The cpu-fma tiles of a configured contraction (nullopt: `config` is not
/// a cpu-fma config).
std::optional<CpuFmaTiles> getCpuFmaTiles(LoweringConfigAttr config);
/// The dot tiles of a configured contraction (nullopt: not a dot config).
std::optional<CpuDotTiles> getCpuDotTiles(LoweringConfigAttr config);
/// The AMX tiles of a configured contraction (nullopt: not an AMX config).
std::optional<CpuAmxTiles> getCpuAmxTiles(LoweringConfigAttr config);
/// The tiles of a configured dequant_matmul of `bits`-bit weights (nullopt:
/// not a dequant kernel's config, or a cpu-dequant-amx one whose tile is not
/// [rows >= 1, 16]).
std::optional<CpuDequantTiles> getCpuDequantTiles(LoweringConfigAttr config,
                                                  int64_t bits);
/// Checks dequant tiles; the reason they do not fit, or an empty string.
std::string checkCpuDequantTiles(const CpuDequantTiles &tiles);
/// Checks AMX tiles for bf16 (`int8` false) or i8 operands; the reason they
/// do not fit, or an empty string.
std::string checkCpuAmxTiles(const CpuAmxTiles &tiles, bool int8);
/// Checks cpu-fma tiles; the reason they do not fit, or an empty string.
std::string checkCpuFmaTiles(const CpuFmaTiles &tiles);
/// Checks dot tiles; the reason they do not fit, or an empty string.
std::string checkCpuDotTiles(const CpuDotTiles &tiles);

} // namespace mlir::accel

#endif // ACCEL_TRANSFORMS_CPUCONFIG_H
