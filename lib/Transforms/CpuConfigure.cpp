//===- CpuConfigure.cpp - accel-cpu-configure -----------------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The configuration stage of the CPU target: every tile and kernel choice
// of the CPU lowering, and the pass that attaches them to the accel ops as
// #accel.lowering_config (docs/configure.md).
//
//===----------------------------------------------------------------------===//

#include "accel/Transforms/CpuConfig.h"
#include "accel/Transforms/CpuTuning.h"
#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "accel/Target/Catalogue.h"
#include "accel/Transforms/Passes.h"
#include "accel/Transforms/Transforms.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELCPUCONFIGUREPASS
#include "accel/Transforms/Passes.h.inc"
#include <numeric>
} // namespace mlir::accel

using namespace mlir;
using namespace mlir::accel;

static constexpr StringLiteral kFma = "cpu-fma";
static constexpr StringLiteral kBf16Dot = "cpu-avx512bf16";
static constexpr StringLiteral kI8Dot = "cpu-avx512vnni";
static constexpr StringLiteral kAmxBf16 = "cpu-amx-bf16";
static constexpr StringLiteral kAmxI8 = "cpu-amx-int8";
static constexpr StringLiteral kFlash = "cpu-flash";
static constexpr StringLiteral kFlashAmx = "cpu-flash-amx";
static constexpr StringLiteral kPagedFlash = "cpu-paged-flash";
static constexpr StringLiteral kDequant = "cpu-dequant";
static constexpr StringLiteral kDequantLut = "cpu-dequant-lut";
static constexpr StringLiteral kDequantAmx = "cpu-dequant-amx";
static constexpr StringLiteral kLoops = "cpu-loops";
static constexpr StringLiteral kRowDot = "cpu-row-dot";

//===----------------------------------------------------------------------===//
// What the CPU has
//===----------------------------------------------------------------------===//

CpuIsa CpuIsa::fromFeatures(StringRef features) {
  CpuIsa isa;
  isa.known = true;
  isa.avx512f = hasCpuFeature(features, "avx512f");
  isa.avx512bf16 = hasCpuFeature(features, "avx512bf16");
  // (LLVM's avx512bf16 implies avx512bw.)
  isa.avx512bw = hasCpuFeature(features, "avx512bw") || isa.avx512bf16;
  isa.avx512vnni = hasCpuFeature(features, "avx512vnni");
  isa.amxTile = hasCpuFeature(features, "amx-tile");
  isa.amxBf16 = hasCpuFeature(features, "amx-bf16");
  isa.amxInt8 = hasCpuFeature(features, "amx-int8");
  isa.l1dKib = cpuTargetForFeatures(features)->localMemoryKib;
  return isa;
}

CpuIsa CpuIsa::resolve(StringRef features, Operation *op) {
  if (!features.empty())
    return fromFeatures(features);
  CpuIsa isa;
  ModuleOp module = isa_and_nonnull<ModuleOp>(op)
                        ? cast<ModuleOp>(op)
                        : (op ? op->getParentOfType<ModuleOp>() : ModuleOp());
  if (!module)
    return isa;
  auto target = module->getAttrOfType<TargetAttr>(kTargetAttrName);
  if (!target || target.getKind() != TargetKind::CPU)
    return isa;
  isa.known = true;
  isa.avx512f = target.hasFeature("avx512f");
  isa.avx512bf16 = target.hasFeature("avx512bf16");
  isa.avx512vnni = target.hasFeature("avx512vnni");
  isa.amxTile = target.hasFeature("amx-tile");
  isa.amxBf16 = target.hasFeature("amx-bf16");
  isa.amxInt8 = target.hasFeature("amx-int8");
  isa.l1dKib = target.getLocalMemoryKib();
  return isa;
}

//===----------------------------------------------------------------------===//
// The choices
//===----------------------------------------------------------------------===//

CpuFmaTiles mlir::accel::chooseCpuFmaTiles(const CpuIsa &isa,
                                           const CpuConfigOverrides &o) {
  // Measured on Zen 5 (AVX-512) for f32: 6 x 64 keeps 24 accumulators in
  // zmm registers; Mc = 132 (22 register tiles: the A block, 528 KiB at
  // Kc = 1024, and a 256 KiB B panel share L2), Nc = Kc = 1024 (C is read
  // and written once per 1024 of K; Kc = 256 spent ~8 % of 2048^3
  // reloading and storing C tiles). Against 256, 512, 256
  // (docs/cpu-performance.md): 2048^3 0.93 -> 1.00 of dnnl_sgemm, 1000^3
  // 0.93 -> 0.97, 4096x128x4096 0.94 -> 1.02.
  CpuFmaTiles t{{132, 1024, 1024}, {6, 64, 1}};
  // Without AVX-512 (16 vector registers of 8 f32 lanes: AVX2), 6 x 16:
  // 12 accumulators, 2 B vectors and a broadcast, BLIS's Haswell kernel.
  // 6 x 64 needs 48 registers and spills: on a Zen 3 core (AVX2),
  // 1024^3 f32 ran at 0.37 of dnnl_sgemm with 6 x 64, 0.89 with 6 x 16,
  // 0.85 with 4 x 16, 0.65 with 8 x 8 (docs/cpu-performance.md).
  // B's rows are packed into panels once they are more than 2 KiB apart
  // (Zen 5, nr = 64: closer rows read in place measured as fast); with
  // nr = 16 a register tile reads 64 bytes of each row, and packing paid
  // from 256 bytes apart on Zen 3: 256^3 0.79 -> 0.94 of dnnl_sgemm,
  // 512^3 1.05 -> 1.41, 4096x128x4096 0.68 -> 1.05.
  if (isa.known && !isa.avx512f) {
    t.registers = {6, 16, 1};
    t.packRhsMinRowBytes = 256;
  }
  // B's rows prefetched 4 K steps (1 KiB of a 6 x 64 tile's panel) ahead
  // when a tile reads more of them than 2/3 of L1D holds: a Kc x nr panel
  // streams from L2 into each M tile (the L1 prefetchers leave its loads
  // waiting), a smaller one stays in L1 for the next tile and a prefetch
  // is only a load slot. On a Sapphire Rapids core (L1D 48 KiB), one
  // thread, GFLOP/s without / with, three interleaved rounds
  // (bench/results/prefetch-b-2026-12-06-6c0fd97.txt): 256^3 138-140 /
  // 146-147, 512^3 (B read in place, rows 2 KiB apart) 122-142 / 140-143,
  // 1024^3 149-153 / 147-152, 2048^3 145-146 / 145-150; before the limit,
  // the 4096 x 4096 x 64 Bt product (16 KiB panels) 112-116 / 83-86. 2
  // steps ahead was slower than none, 8 and 16 within 1 % of 4
  // (docs/cpu-performance.md, "B's rows prefetched in the K loop").
  if (isa.l1dKib > 0)
    t.prefetchRhsMinBytes = isa.l1dKib * 1024 * 2 / 3;
  if (o.cacheTile.size() == 3)
    llvm::copy(o.cacheTile, t.cache.begin());
  if (o.registerTile.size() == 3)
    llvm::copy(o.registerTile, t.registers.begin());
  return t;
}

CpuDotTiles mlir::accel::chooseCpuDotTiles(const CpuIsa &isa) {
  // 6 x 64: 24 zmm accumulators; Mc = 132 rows of A x Kc = 2048 (528 KiB of
  // bf16) stay in L2 while each column tile runs over them; Kc = 2048 keeps
  // a [Kc, nr] panel of B (128 KiB of i8, 256 KiB of bf16) in cache, and
  // each further K block reloads C (int8 2048^3 lost 8 % at Kc = 512).
  (void)isa;
  return {6, 64, 132, 2048};
}

CpuDequantTiles mlir::accel::chooseCpuDequantTiles(const CpuIsa &isa,
                                                   int64_t rows, int64_t bits,
                                                   bool amxOperands) {
  // Decode GEMV: each weight is unpacked, converted and scaled once per
  // tile of nr weight rows and used by its mr rows of A. int4 on AVX-512
  // looks the weights up (cpu-dequant-lut: vpermps does the unpacking,
  // conversion and scaling of 16 weights; 4.4x the weights a second of
  // the converting kernel at M = 1, docs/quantization.md). Registers (zmm):
  // mr x nr accumulators, 2 mr A vectors, nr tables (lut) or ~3 constants,
  // 2 weight vectors: 1 x 8, 2 x 8, 4 x 4 all fit the 32. Without AVX-512
  // a vector of 16 f32 takes two of the 16 ymm: 1 x 4 and 2 x 2, converting.
  bool dynamic = ShapedType::isDynamic(rows);
  if (isa.known && !isa.avx512f)
    return (!dynamic && rows < 2) ? CpuDequantTiles{1, 4, 32}
                                  : CpuDequantTiles{2, 2, 32};
  bool lut = bits == 4;
  // int4 or int8 with bf16 A on AMX: from cpuDequantAmxMinRows rows the
  // table or converting kernel's FMAs (2 per 32 weights and row) are the
  // bound and the AMX one (a fixed cost per weight: unpacking into a
  // 16 x 32 bf16 tile, then one tdpbf16ps for up to 16 rows) is faster
  // (int4 3.2x, int8 2.4x at 16 rows, 4096 x 4096, dequant-kernels log of
  // cpuDequantAmxMinRows); the FMA kernels stay below (int4:
  // 1-2 rows, int8: 1-4) and, when the rows are unknown, for the calls with
  // fewer rows (the 1 x 8 tile: decode at batch 1).
  if (amxOperands && isa.hasAmxBf16() && isa.avx512bw &&
      (dynamic || rows >= cpuDequantAmxMinRows(bits))) {
    CpuDequantTiles t = dynamic ? CpuDequantTiles{1, 8, 32, lut}
                                : chooseCpuDequantTiles(isa, rows, bits);
    t.amxRows = cpuDequantAmxMinRows(bits);
    return t;
  }
  if (!dynamic && rows < 2)
    return {1, 8, 32, lut};
  if (!dynamic && rows < 4)
    return {2, 8, 32, lut};
  return {4, 4, 32, lut};
}

std::optional<CpuRowDotTiles>
mlir::accel::chooseCpuRowDotTiles(const CpuIsa &isa, int64_t rows) {
  if (ShapedType::isDynamic(rows) || rows < 1 || rows > cpuRowDotMaxRows)
    return std::nullopt;
  // The dequant kernel's tiles without the dequantisation: mr x nr
  // accumulators, mr A vectors and a weight vector in the 32 zmm. 1 x 8 and
  // 2 x 8 keep 8 and 16 independent FMA chains on the streaming weight;
  // from 4 rows the kernel reads W's rows again per 4 rows of A (from L2),
  // and 4 x 6 reads A's rows fewer times than 4 x 4 (4096 x 4096, one
  // Sapphire Rapids core, ms: M 16 10.1 / 10.5, M 32 16.3 / 18.6, M 64
  // 29.4 / 35.2; 4 rows 5.4 / 5.1; 8 x 2 within 10 % of both). Against
  // cpu-fma on the transposed copy (same run): M 48 26.6 / 38.8, M 64
  // 31.9 / 42.3, M 96 47.3 / 47.1, M 128 59.7 / 56.3
  // (bench/results/row-dot-1t-2026-12-06.txt); with K blocks (below) M 96
  // 42.8 and M 128 54.9 / 61.1 (two runs) against 45-47 and 55.2 / 57.2
  // for the copy and cpu-fma with its few-rows tile: the limit was 96
  // (bench/results/row-dot-kblocks-1t-2026-12-06.txt). Since cpu-fma packs
  // its panels from W itself (no copy), against cpu-fma with the [N, K]
  // few-rows tile ([M, 256, 256], fewRowsCacheTile), 4096 x 4096, one
  // thread, ms: M 16 11.2 / 12.4, M 24 12.3 / 13.4, M 32 15.0 / 14.6, M 48
  // 22.8 / 18.9, M 64 29.7 / 23.7, M 96 49.5 / 31.6; on two threads
  // cpu-row-dot gains 1.2-1.9x from the second thread, cpu-fma 1.5-2x, and
  // from 48 rows cpu-fma was faster in every run (24 and 32 rows changed
  // sides between runs on this noisy guest) (`bench/linear_nk_kernels.py`,
  // bench/results/linear-nk-kernels-{1t,2t}-2026-12-06-ba38be8.txt):
  // cpuRowDotMaxRows = 24.
  // Without AVX-512 a vector of 16 f32 takes two of the 16 ymm: 1 x 4, 2 x 2.
  // Not measured there: up to 16 rows only (2 x 2 tiles read W's rows
  // once per 2 rows of A).
  if (isa.known && !isa.avx512f)
    return rows > 16  ? std::optional<CpuRowDotTiles>()
           : rows < 2 ? CpuRowDotTiles{1, 4}
                      : CpuRowDotTiles{2, 2};
  if (rows < 2)
    return CpuRowDotTiles{1, 8};
  if (rows < 4)
    return CpuRowDotTiles{2, 8};
  // With more than one tile of A's rows, K in blocks of 256 (each tile's
  // accumulators in memory between blocks): a block's 1 KiB of each W and
  // A row is read from L1 by every tile. M 8 / 16 / 32 / 64 (4096 x 4096,
  // one thread): 6.97 / 10.3 / 15.8 / 32.5 ms with K whole, 5.64 / 9.37 /
  // 14.7 / 26.9 with blocks of 256; 128, 512 and 1024 were slower or the
  // same (bench/results/row-dot-kblocks-1t-2026-12-06.txt).
  if (rows < 16)
    return CpuRowDotTiles{4, 4, rows > 4 ? 256 : 0};
  return CpuRowDotTiles{4, 6, 256};
}

std::optional<CpuRowDotTiles>
mlir::accel::getCpuRowDotTiles(LoweringConfigAttr config) {
  if (!config || config.getKernel() != kRowDot || config.getMma().size() != 3 ||
      config.getMma()[2] != 16)
    return std::nullopt;
  ArrayRef<int64_t> tile = config.getTile();
  if (!tile.empty() && (tile.size() != 3 || tile[0] != 0 || tile[1] != 0))
    return std::nullopt;
  return CpuRowDotTiles{config.getMma()[0], config.getMma()[1],
                        config.getTile().empty() ? 0 : config.getTile()[2]};
}

std::string mlir::accel::checkCpuRowDotTiles(const CpuRowDotTiles &t,
                                             const CpuIsa &isa) {
  if (t.mr < 1 || t.nr < 1)
    return "mr and nr must be positive, got " + std::to_string(t.mr) + " x " +
           std::to_string(t.nr);
  if (t.kc < 0 || t.kc % 16 != 0)
    return "the K block must be a multiple of 16 (0: whole), got " +
           std::to_string(t.kc);
  // Vectors of 16 f32: mr x nr accumulators, mr A vectors, a W vector; 32
  // zmm with AVX-512, else 8 (each takes two of the 16 ymm).
  bool avx512 = !isa.known || isa.avx512f;
  int64_t registers = t.mr * t.nr + t.mr + 1, limit = avx512 ? 32 : 8;
  if (registers > limit)
    return "mr x nr = " + std::to_string(t.mr) + " x " + std::to_string(t.nr) +
           " needs " + std::to_string(registers) + " vectors of 16 f32; " +
           (avx512 ? "AVX-512 has 32" : "without AVX-512 there are 8 (16 ymm)");
  return "";
}

std::optional<CpuDequantTiles>
mlir::accel::getCpuDequantTiles(LoweringConfigAttr config, int64_t bits) {
  if (!config ||
      (config.getKernel() != kDequant && config.getKernel() != kDequantLut &&
       config.getKernel() != kDequantAmx) ||
      config.getMma().size() != 3)
    return std::nullopt;
  bool amx = config.getKernel() == kDequantAmx;
  if (amx && (config.getTile().size() != 2 || config.getTile()[0] < 1 ||
              config.getTile()[1] != 16))
    return std::nullopt;
  // cpu-dequant-amx's other kernel: the table for int4, converting for int8.
  return CpuDequantTiles{config.getMma()[0], config.getMma()[1],
                         config.getMma()[2],
                         amx ? bits == 4 : config.getKernel() == kDequantLut,
                         amx ? config.getTile()[0] : 0};
}

std::string mlir::accel::checkCpuDequantTiles(const CpuDequantTiles &t) {
  if (t.mr < 1 || t.nr < 1 || t.mr > 8 || t.nr > 16)
    return "mr and nr must be 1..8 and 1..16, got " + std::to_string(t.mr) +
           " x " + std::to_string(t.nr);
  if (t.kc != 32)
    return "the K chunk must be 32 (two vectors of 16 f32), got " +
           std::to_string(t.kc);
  if (t.amxRows < 0)
    return "the AMX kernel's rows must not be negative, got " +
           std::to_string(t.amxRows);
  int64_t registers = t.mr * t.nr + 2 * t.mr + (t.lut ? t.nr + 3 : 5);
  if (registers > 32)
    return "mr x nr = " + std::to_string(t.mr) + " x " + std::to_string(t.nr) +
           " needs " + std::to_string(registers) +
           " vector registers; AVX-512 has 32";
  return "";
}

CpuAmxTiles mlir::accel::chooseCpuAmxTiles(const CpuIsa &isa, bool int8) {
  // 32 x 32: four C tiles, two A and two B tiles, the 8 tile registers; each
  // A and B tile feeds two tdpbf16ps/tdpbssd (48 x 16, three A tiles and
  // one B: 621 against 640 GFLOP/s on 2048^3 bf16). Kc = 2048 bf16 (4096
  // i8): a [Kc, 32] B panel of 128 KiB in L2, C loaded and stored once per
  // 2048 of K; at Kc = 512 every further K block reloads a C block that
  // has left the caches (2048^3 bf16: 640 GFLOP/s at Kc = 512, 928 at
  // 2048). Mc = 256 rows of A per M block (842 at 128, 598 at 512).
  // Measured on one Sapphire Rapids core of a KVM guest, a noisy machine
  // (+-15 % between runs; docs/cpu-performance.md).
  (void)isa;
  return {32, 32, 256, int8 ? 4096 : 2048};
}

std::array<int64_t, 2>
mlir::accel::chooseCpuAttentionTiles(const CpuIsa &isa,
                                     const CpuConfigOverrides &o) {
  (void)isa;
  return {o.attentionTileQ > 0 ? o.attentionTileQ : 128,
          o.attentionTileKV > 0 ? o.attentionTileKV : 128};
}

std::array<int64_t, 3>
mlir::accel::chooseCpuPagedTiles(const CpuIsa &isa, const CpuConfigOverrides &o,
                                 int64_t batch, int64_t kvHeads,
                                 int64_t pageSize, int64_t maxPages) {
  (void)isa;
  // A step reads one page when it holds a 16-lane vector of keys (vLLM's
  // 16-token pages), else the pages of 16 keys. On a Sapphire Rapids vCPU
  // (every KV head in one task, 16-token pages, 8k context) 2 and 4 pages
  // a step ran 0.92x and 0.84x as fast as one for bf16, 0.84x and 0.53x
  // for f32 (docs/decode-attention.md).
  int64_t pages = o.pagedPages > 0
                      ? o.pagedPages
                      : std::max<int64_t>(1, (16 + pageSize - 1) / pageSize);
  pages = std::clamp<int64_t>(pages, 1, std::max<int64_t>(maxPages, 1));
  int64_t steps = std::max<int64_t>(1, (maxPages + pages - 1) / pages);
  // One task runs every KV head on its pages: the heads of a token lie
  // together in the pool, so a step reads one contiguous block a page
  // (0.41 -> 0.67 of the read bandwidth for bf16, 0.60 -> 0.92 for f32,
  // against one task per head reading 256-byte rows 2 KiB apart).
  int64_t heads = o.pagedHeads > 0 ? std::gcd(o.pagedHeads, kvHeads) : kvHeads;
  // Flash-decoding: split the keys only on several threads, when the tasks
  // (batch x groups of heads) are fewer than two a thread.
  int64_t splits = o.pagedSplits;
  if (splits <= 0) {
    int64_t tasks = (ShapedType::isDynamic(batch) ? 1 : batch) *
                    std::max<int64_t>(kvHeads / heads, 1);
    int64_t want = 2 * o.threads;
    splits = o.threads <= 1 || tasks >= want
                 ? 1
                 : (want + tasks - 1) / std::max<int64_t>(tasks, 1);
  }
  return {pages, std::clamp<int64_t>(splits, 1, steps), heads};
}

std::array<int64_t, 2> mlir::accel::chooseCpuPagedPvTile(const CpuIsa &isa) {
  // 4 rows (a GQA group of 4 query heads) x 64 columns: 16 zmm accumulators,
  // 4 for V's widened row and a broadcast of P, of AVX-512's 32; without it
  // 2 x 32 (8 ymm accumulators of 16). The cpu-fma kernel's budget.
  if (isa.known && !isa.avx512f)
    return {2, 32};
  return {4, 64};
}

std::string mlir::accel::checkCpuFmaTiles(const CpuFmaTiles &t) {
  if (llvm::any_of(t.cache, [](int64_t s) { return s < 0; }))
    return "the cache tile needs 3 sizes >= 0 [Mc, Nc, Kc]";
  if (llvm::any_of(t.registers, [](int64_t s) { return s <= 0; }))
    return "the register tile needs 3 positive sizes [mr, nr, kr]";
  // nr sets the width of every vector of a register tile row. A width that
  // is not a power of two (48 = 3 zmm) reaches LLVM as e.g. <48 x float>
  // values carried through the K loop, which the x86 back end rebuilds lane
  // by lane (vinsertps, vshufps: 576 of them for one 8 x 48 tile): 20x
  // slower than 8 x 32 or 6 x 64 on 128^3 and 256^3.
  if (!llvm::isPowerOf2_64(t.registers[1]))
    return "register tile nr must be a power of two (got " +
           std::to_string(t.registers[1]) +
           "): other vector widths are assembled lane by lane by the x86 "
           "back end, about 20x slower";
  return "";
}

std::string mlir::accel::checkCpuDotTiles(const CpuDotTiles &t) {
  if (t.nr <= 0 || t.nr % 16 != 0 || t.mr <= 0 || t.kc < 2 || t.kc % 2 != 0)
    return "mr must be positive, nr a positive multiple of 16 and kc even "
           "and >= 2 (got mr=" +
           std::to_string(t.mr) + " nr=" + std::to_string(t.nr) +
           " kc=" + std::to_string(t.kc) + ")";
  return "";
}

std::string mlir::accel::checkCpuAmxTiles(const CpuAmxTiles &t, bool int8) {
  int64_t kstep = int8 ? 64 : 32;
  if (t.mr <= 0 || t.nr <= 0 || t.mr % 16 != 0 || t.nr % 16 != 0 ||
      t.mc < 0 || t.kc <= 0 || t.kc % kstep != 0)
    return "mr and nr must be positive multiples of 16 (one tile's rows and "
           "columns), mc >= 0 and kc a positive multiple of " +
           std::to_string(kstep) + " (got mr=" + std::to_string(t.mr) +
           " nr=" + std::to_string(t.nr) + " mc=" + std::to_string(t.mc) +
           " kc=" + std::to_string(t.kc) + ")";
  int64_t a = t.mr / 16, b = t.nr / 16;
  if (a * b + a + b > 8)
    return "mr x nr = " + std::to_string(t.mr) + " x " + std::to_string(t.nr) +
           " needs " + std::to_string(a * b + a + b) +
           " tile registers (C, A and B tiles); AMX has 8";
  return "";
}

std::optional<CpuAmxTiles>
mlir::accel::getCpuAmxTiles(LoweringConfigAttr config) {
  if (!config || (config.getKernel() != kAmxBf16 &&
                  config.getKernel() != kAmxI8) ||
      config.getTile().size() != 3 || config.getMma().size() != 3)
    return std::nullopt;
  return CpuAmxTiles{config.getMma()[0], config.getMma()[1],
                     config.getTile()[0], config.getTile()[2]};
}

std::optional<CpuFmaTiles>
mlir::accel::getCpuFmaTiles(LoweringConfigAttr config) {
  if (!config || config.getKernel() != kFma || config.getTile().size() != 3 ||
      config.getMma().size() != 3)
    return std::nullopt;
  CpuFmaTiles t;
  llvm::copy(config.getTile(), t.cache.begin());
  llvm::copy(config.getMma(), t.registers.begin());
  return t;
}

std::optional<CpuDotTiles>
mlir::accel::getCpuDotTiles(LoweringConfigAttr config) {
  if (!config || (config.getKernel() != kBf16Dot &&
                  config.getKernel() != kI8Dot) ||
      config.getTile().size() != 3 || config.getMma().size() != 3)
    return std::nullopt;
  return CpuDotTiles{config.getMma()[0], config.getMma()[1],
                     config.getTile()[0], config.getTile()[2]};
}

/// The operands a dot kernel takes, whatever the CPU: bf16 (summed in f32,
/// with bf16-subnormals=flush), i8 (summed in i32), or neither.
enum class DotOperands { None, Bf16, I8 };

/// Which dot operands `mm` has (its contraction, as convert-accel-to-linalg
/// emits it, is what accel-cpu-amx-kernels and accel-cpu-dot-kernels
/// rewrite).
static DotOperands dotOperandsOf(MatmulOp mm, const CpuConfigOverrides &o) {
  auto a = mm.getLhs().getType(), b = mm.getRhs().getType();
  auto c = mm.getInit().getType();
  if (c.getRank() != 2 || !a.hasStaticShape() || !b.hasStaticShape() ||
      !c.hasStaticShape() || a.getElementType() != b.getElementType() ||
      a.getNumElements() == 0 || b.getNumElements() == 0 ||
      c.getNumElements() == 0)
    return DotOperands::None;
  Type elt = a.getElementType(), cElt = c.getElementType();
  // bf16 products are summed in f32 whatever C is (both dot families flush
  // bf16 subnormals).
  if (elt.isBF16())
    return o.bf16Flush ? DotOperands::Bf16 : DotOperands::None;
  // i8 products are summed in i32 when scaled or when C is i32.
  if (elt.isInteger(8) && (mm.getLhsScale() || cElt.isInteger(32)))
    return DotOperands::I8;
  return DotOperands::None;
}

/// The dot kernel `mm` gets on `isa`: AMX's tiles first, then AVX-512's dot
/// instructions; "" when none.
static StringRef dotKernelFor(DotOperands operands, const CpuIsa &isa) {
  if (operands == DotOperands::Bf16)
    return isa.hasAmxBf16() ? kAmxBf16 : isa.avx512bf16 ? kBf16Dot : "";
  if (operands == DotOperands::I8)
    return isa.hasAmxInt8() ? kAmxI8 : isa.avx512vnni ? kI8Dot : "";
  return "";
}

/// cpu-fma's cache tile for a matmul with few rows (static M <= 128, the
/// AVX-512 6 x 64 register tile): one M block, N whole (on several threads
/// blocks of N / (2 threads), 64-aligned, two tasks a thread) and K blocks
/// of 32 up to 64 rows; from 65, blocks of 512 columns and 256 of K. B is then
/// read a block of 32 of its rows at a time, each row contiguous (32 x N: in
/// L2), and each 32 x 64 piece of it from L1 by every register tile of A's
/// rows; with Kc = 1024 a register tile read B's rows 256 bytes at a time, each
/// on another page, once per 6 rows of A. f32 4096 x 4096 (B as [K, N]), one
/// Sapphire Rapids core, ms, default -> this tile: M 1 8.2 -> 4.7 (the read
/// bandwidth), M 4 11.0 -> 5.9, M 16 27.5 -> 9.0, M 32 22.5 -> 13.0, M 64 29.2
/// -> 20.4, M 96 35.3 -> 29.6, M 128 43.2 -> 39.9; Kc = 64 was slower below 128
/// rows, N blocks of 1024 slower on one thread and faster on two (M 1 5.7
/// -> 3.8, M 64 19.2 -> 11.0)
/// (bench/results/few-rows-cache-tile-2026-12-06.txt).
static void fewRowsCacheTile(CpuFmaTiles &t, MatmulOp mm, int64_t threads) {
  auto a = mm.getLhs().getType(), c = mm.getInit().getType();
  if (t.registers != std::array<int64_t, 3>{6, 64, 1} || a.getRank() < 2 ||
      c.getRank() < 2)
    return;
  int64_t m = a.getDimSize(a.getRank() - 2), n = c.getDimSize(c.getRank() - 1);
  if (ShapedType::isDynamic(m) || ShapedType::isDynamic(n) || m < 1 ||
      m > 128 || n < 1)
    return;
  // From 65 rows, C's traffic per K block of 32 (all of C's rows) outweighs
  // it: blocks of 512 columns and 256 of K (M 96 / 128: 32.6 / 39.3 ->
  // 29.5 / 34.8 ms; the same or better on two threads; M 64 the same). On
  // several threads at most N / (2 threads) columns, so that the M block
  // stays whole (each task packs only its own columns of B).
  int64_t perTask = llvm::alignTo(llvm::divideCeil(n, 2 * threads), 64);
  // B as [N, K] (transpose_b, past cpu-row-dot's rows; 32-bit elements, no
  // batch dimension): the panels are packed from W's rows, 16 at a time along
  // the block's K, which K blocks of 32 (128 bytes of each row) make slow;
  // blocks of 256 x 256 instead. 4096 x 4096, ms, [M, 256, 256] against the [K,
  // N] rule's tile on [N, K], one thread: M 32 / 64 / 96 / 128 14.6 / 23.7
  // / 31.6 / 41.0 against 21.5 / 32.8 / 32.0 / 41.6; two threads M 32 / 64 11.9
  // / 13.4 against 13.4 / 18.8, at 128 the same ([M, 256, 512] measured within
  // noise of it; bench/results/linear-nk-kernels-*-2026-12-06-ba38be8.txt).
  auto b = mm.getRhs().getType();
  if (mm.getTransposeB() && a.getRank() == 2 && b.getRank() == 2 &&
      b.getElementType().getIntOrFloatBitWidth() == 32) {
    t.cache = {m, threads > 1 ? std::min<int64_t>(256, perTask) : 256, 256};
    return;
  }
  if (m > 64) {
    t.cache = {m, threads > 1 ? std::min<int64_t>(512, perTask) : 512, 256};
    return;
  }
  int64_t nc = 0;
  if (threads > 1)
    nc = perTask;
  if (nc >= n)
    nc = 0;
  t.cache = {m, nc, 32};
}

/// Whether `mm` is what cpu-row-dot takes: f32 A, B and C without scales or
/// batch dimensions, B as [N, K] (`transpose_b`), static non-empty sizes.
static bool rowDotOperandsOf(MatmulOp mm) {
  auto a = mm.getLhs().getType(), b = mm.getRhs().getType();
  auto c = mm.getInit().getType();
  return mm.getTransposeB() && !mm.getLhsScale() && a.getRank() == 2 &&
         b.getRank() == 2 && c.getRank() == 2 && a.hasStaticShape() &&
         b.hasStaticShape() && c.hasStaticShape() &&
         a.getElementType().isF32() && b.getElementType().isF32() &&
         c.getElementType().isF32() && a.getNumElements() > 0 &&
         b.getNumElements() > 0;
}

/// cpu-row-dot's config for `mm`: the given mma [mr, nr, 16] or the choice.
static FailureOr<LoweringConfigAttr> configureRowDot(MatmulOp mm,
                                                     LoweringConfigAttr given,
                                                     const CpuIsa &isa,
                                                     bool operandsOk) {
  if (!operandsOk)
    return mm.emitOpError("cannot use cpu-row-dot: it takes f32 A, B and C "
                          "of static sizes without batch dimensions or "
                          "scales, B as [N, K] (transpose_b)");
  ArrayRef<int64_t> tile = given ? given.getTile() : ArrayRef<int64_t>();
  if (!tile.empty() && (tile.size() != 3 || tile[0] != 0 || tile[1] != 0))
    return mm.emitOpError("cannot use cpu-row-dot: its tile is [0, 0, Kc] "
                          "(rows of A and W whole, K in blocks of Kc)");
  int64_t rows = mm.getLhs().getType().getDimSize(0);
  // Asked for past the rows the model gives it (more than 16 without
  // AVX-512), the tiles of the most rows it does.
  std::optional<CpuRowDotTiles> t = chooseCpuRowDotTiles(isa, rows);
  if (!t)
    t = chooseCpuRowDotTiles(isa, std::min<int64_t>(rows, 16));
  assert(t && "the model takes 16 rows on every ISA");
  ArrayRef<int64_t> mma = given ? given.getMma() : ArrayRef<int64_t>();
  if (!mma.empty()) {
    if (mma.size() != 3 || mma[2] != 16)
      return mm.emitOpError("cannot use cpu-row-dot: its mma is [mr, nr, 16] "
                            "(16 f32 a vector along K)");
    t->mr = mma[0];
    t->nr = mma[1];
  }
  if (!tile.empty())
    t->kc = tile[2];
  if (std::string why = checkCpuRowDotTiles(*t, isa); !why.empty())
    return mm.emitOpError("cannot use cpu-row-dot: ") << why;
  SmallVector<int64_t> configTile;
  if (t->kc > 0)
    configTile = {0, 0, t->kc};
  return LoweringConfigAttr::get(mm.getContext(), kRowDot, configTile, {},
                                 {t->mr, t->nr, 16}, 0, "");
}

static FailureOr<LoweringConfigAttr>
configureMatmul(MatmulOp mm, LoweringConfigAttr given, const CpuIsa &isa,
                const CpuConfigOverrides &o) {
  MLIRContext *ctx = mm.getContext();
  DotOperands operands = dotOperandsOf(mm, o);
  StringRef dot = dotKernelFor(operands, isa);
  // f32 with B as [N, K] and few rows: dot products along K on W's rows
  // (unless the options name cpu-fma tiles).
  bool rowDotOperands = rowDotOperandsOf(mm);
  std::optional<CpuRowDotTiles> rowDot;
  if (rowDotOperands && o.cacheTile.empty() && o.registerTile.empty())
    rowDot = chooseCpuRowDotTiles(isa, mm.getLhs().getType().getDimSize(0));
  StringRef kernel = given          ? given.getKernel()
                     : !dot.empty() ? dot
                     : rowDot       ? StringRef(kRowDot)
                                    : StringRef(kFma);
  bool isAmx = kernel == kAmxBf16 || kernel == kAmxI8;
  bool isDot = kernel == kBf16Dot || kernel == kI8Dot;
  if (kernel == kRowDot)
    return configureRowDot(mm, given, isa, rowDotOperands);
  if (kernel != kFma && !isAmx && !isDot)
    return mm.emitOpError("cannot use ")
           << kernel << " on the CPU: a matmul takes cpu-fma, "
           << "cpu-avx512bf16, cpu-avx512vnni, cpu-amx-bf16, cpu-amx-int8 or "
              "cpu-row-dot";
  if (kernel != kFma) {
    bool bf16 = kernel == kBf16Dot || kernel == kAmxBf16;
    // The CPU first: a kernel it cannot run.
    StringRef missing;
    if (kernel == kBf16Dot && !isa.avx512bf16)
      missing = "avx512bf16";
    else if (kernel == kI8Dot && !isa.avx512vnni)
      missing = "avx512vnni";
    else if (isAmx && !isa.amxTile)
      missing = "amx-tile";
    else if (kernel == kAmxBf16 && !isa.amxBf16)
      missing = "amx-bf16";
    else if (kernel == kAmxI8 && !isa.amxInt8)
      missing = "amx-int8";
    if (!missing.empty())
      return mm.emitOpError("cannot use ")
             << kernel << ": the CPU has no " << missing;
    if (operands != (bf16 ? DotOperands::Bf16 : DotOperands::I8))
      return mm.emitOpError("cannot use ")
             << kernel << ": it takes " << (bf16 ? "bf16" : "i8")
             << " operands of static sizes without batch dimensions, summed in "
             << (bf16 ? "f32" : "i32")
             << (bf16 ? " (and bf16-subnormals=flush)" : "");
  }
  ArrayRef<int64_t> givenTile = given ? given.getTile() : ArrayRef<int64_t>();
  ArrayRef<int64_t> givenMma = given ? given.getMma() : ArrayRef<int64_t>();
  if (!givenTile.empty() && givenTile.size() != 3)
    return mm.emitOpError("a CPU matmul config needs a 3-entry tile, got ")
           << givenTile.size();
  SmallVector<int64_t, 3> tile, mma;
  std::string why;
  if (kernel == kFma) {
    CpuFmaTiles t = chooseCpuFmaTiles(isa, o);
    if (!givenMma.empty())
      llvm::copy(givenMma, t.registers.begin());
    if (!givenTile.empty())
      llvm::copy(givenTile, t.cache.begin());
    else if (o.cacheTile.empty())
      fewRowsCacheTile(t, mm, o.threads);
    why = checkCpuFmaTiles(t);
    tile.assign(t.cache.begin(), t.cache.end());
    mma.assign(t.registers.begin(), t.registers.end());
  } else {
    // The AMX and dot kernels take the same fields: [mc, 0, kc] and
    // [mr, nr, k], k fixed by the instruction.
    auto complete = [&](auto t, int64_t k, StringRef kIs, auto check) {
      if (!givenTile.empty()) {
        t.mc = givenTile[0];
        t.kc = givenTile[2];
      }
      if (!givenMma.empty()) {
        t.mr = givenMma[0];
        t.nr = givenMma[1];
        if (givenMma[2] != k)
          why = "mma k must be " + std::to_string(k) + " (" + kIs.str() + ")";
      }
      if (why.empty())
        why = check(t);
      tile = {t.mc, 0, t.kc};
      mma = {t.mr, t.nr, k};
    };
    if (isAmx) {
      bool int8 = kernel == kAmxI8;
      complete(chooseCpuAmxTiles(isa, int8), int8 ? 64 : 32,
               "the k values one tile multiply takes",
               [&](const CpuAmxTiles &t) { return checkCpuAmxTiles(t, int8); });
    } else {
      complete(chooseCpuDotTiles(isa), kernel == kBf16Dot ? 2 : 4,
               "the k values one 32-bit lane of the dot instruction takes",
               [](const CpuDotTiles &t) { return checkCpuDotTiles(t); });
    }
  }
  if (!why.empty())
    return mm.emitOpError("cannot use ") << kernel << ": " << why;
  return LoweringConfigAttr::get(ctx, kernel, tile, {}, mma, 0, "");
}

/// Whether the attention's operands are what cpu-flash-amx takes: bf16
/// query, key and value.
static bool bf16Attention(AttentionOp op) {
  return op.getQuery().getType().getElementType().isBF16() &&
         op.getKey().getType().getElementType().isBF16() &&
         op.getValue().getType().getElementType().isBF16();
}

bool mlir::accel::cpuFlashOnAmx(Operation *op, const CpuIsa &isa,
                                bool bf16Flush) {
  auto at = dyn_cast<AttentionOp>(op);
  if (!at)
    return false;
  if (auto given = op->getAttrOfType<LoweringConfigAttr>(
          kLoweringConfigAttrName))
    return given.getKernel() == kFlashAmx;
  return bf16Attention(at) && isa.hasAmxBf16() && bf16Flush;
}

static FailureOr<LoweringConfigAttr>
configureAttention(AttentionOp op, LoweringConfigAttr given, const CpuIsa &isa,
                   const CpuConfigOverrides &o) {
  if (given && given.getKernel() != kFlash && given.getKernel() != kFlashAmx)
    return op.emitOpError("cannot use ")
           << given.getKernel()
           << " on the CPU: an attention takes cpu-flash or cpu-flash-amx";
  if (given && (!given.getMma().empty() ||
                (!given.getTile().empty() && given.getTile().size() != 2)))
    return op.emitOpError("a ")
           << given.getKernel()
           << " config takes a tile [query rows, keys per step] and no mma";
  StringRef kernel = given ? given.getKernel()
                           : (cpuFlashOnAmx(op, isa, o.bf16Flush)
                                  ? StringRef(kFlashAmx)
                                  : StringRef(kFlash));
  if (kernel == kFlashAmx) {
    if (!isa.hasAmxBf16())
      return op.emitOpError("cannot use cpu-flash-amx: the CPU has no ")
             << (isa.amxTile ? "amx-bf16" : "amx-tile");
    if (!bf16Attention(op) || !o.bf16Flush)
      return op.emitOpError(
          "cannot use cpu-flash-amx: it takes bf16 query, key and value (and "
          "bf16-subnormals=flush)");
  }
  std::array<int64_t, 2> t = chooseCpuAttentionTiles(isa, o);
  // (The attribute's verifier and the options' check keep both positive.)
  if (given && !given.getTile().empty())
    llvm::copy(given.getTile(), t.begin());
  return LoweringConfigAttr::get(op.getContext(), kernel, t, {}, {}, 0, "");
}

static FailureOr<LoweringConfigAttr>
configurePagedAttention(PagedAttentionOp op, LoweringConfigAttr given,
                        const CpuIsa &isa, const CpuConfigOverrides &o) {
  if (given && given.getKernel() != kPagedFlash)
    return op.emitOpError("cannot use ")
           << given.getKernel()
           << " on the CPU: a paged_attention takes cpu-paged-flash";
  // (The attribute's verifier holds a cpu-paged-flash tile to 2 or 3 sizes
  // and its mma to 2.)
  std::array<int64_t, 3> t =
      chooseCpuPagedTiles(isa, o, op.getQuery().getType().getDimSize(0),
                          op.getKeyCache().getType().getDimSize(2),
                          op.getPageSize(), op.getMaxPages());
  if (given && !given.getTile().empty())
    llvm::copy(given.getTile(), t.begin());
  std::array<int64_t, 2> pv = chooseCpuPagedPvTile(isa);
  if (given && !given.getMma().empty())
    llvm::copy(given.getMma(), pv.begin());
  return LoweringConfigAttr::get(op.getContext(), kPagedFlash, t, {}, pv, 0,
                                 "");
}

/// cpu-dequant(-lut) when K and the group are multiples of the 32-weight
/// chunk (cpu-dequant-amx with bf16 A on AMX), else cpu-loops (the
/// reference generic as loops; correct, not fast).
static FailureOr<LoweringConfigAttr>
configureDequantMatmul(DequantMatmulOp op, LoweringConfigAttr given,
                       const CpuIsa &isa, const CpuConfigOverrides &o) {
  bool chunked = op.getK() % 32 == 0 && op.getGroup() % 32 == 0;
  if (given && given.getKernel() != kDequant &&
      given.getKernel() != kDequantLut && given.getKernel() != kDequantAmx &&
      given.getKernel() != kLoops)
    return op.emitOpError("cannot use ")
           << given.getKernel()
           << " on the CPU: a dequant_matmul takes cpu-dequant, "
              "cpu-dequant-lut, cpu-dequant-amx or cpu-loops";
  if (given && given.getKernel() == kLoops) {
    if (!given.getMma().empty() || !given.getTile().empty())
      return op.emitOpError("a cpu-loops config takes no tile and no mma");
    return given;
  }
  if (!chunked) {
    if (given)
      return op.emitOpError("cannot use ")
             << given.getKernel() << ": K (" << op.getK()
             << ") and the group (" << op.getGroup()
             << ") must be multiples of 32";
    return LoweringConfigAttr::get(op.getContext(), kLoops, {}, {}, {}, 0,
                                   "");
  }
  auto aType = op.getLhs().getType();
  int64_t rows = 1;
  for (int64_t d : aType.getShape().drop_back())
    rows = ShapedType::isDynamic(d) || ShapedType::isDynamic(rows)
               ? ShapedType::kDynamic
               : rows * d;
  bool amxOperands = aType.getElementType().isBF16() && o.bf16Flush;
  CpuDequantTiles t =
      chooseCpuDequantTiles(isa, rows, op.getBits(), amxOperands);
  if (given) {
    bool amx = given.getKernel() == kDequantAmx;
    if (given.getMma().size() != 3 || given.getTile().size() != (amx ? 2u : 0u))
      return op.emitOpError("a ")
             << given.getKernel() << " config takes an mma [mr, nr, 32] and "
             << (amx ? "a tile [rows, 16]" : "no tile");
    std::optional<CpuDequantTiles> written =
        getCpuDequantTiles(given, op.getBits());
    if (!written)
      return op.emitOpError("cannot use cpu-dequant-amx: its tile is [rows "
                            "from which the AMX kernel runs (at least 1), "
                            "16 weight rows a tile], got [")
             << given.getTile()[0] << ", " << given.getTile()[1] << "]";
    t = *written;
  }
  StringRef kernel = t.amxRows ? kDequantAmx : t.lut ? kDequantLut : kDequant;
  if (t.lut && op.getBits() != 4)
    return op.emitOpError("cannot use ")
           << kernel
           << ": it takes bits(4) weights (16 values a table), got bits("
           << op.getBits() << ")";
  if (t.lut && isa.known && !isa.avx512f)
    return op.emitOpError("cannot use ")
           << kernel << ": the CPU has no avx512f (vpermps on 16 lanes)";
  if (t.amxRows) {
    if (isa.known && !isa.hasAmxBf16())
      return op.emitOpError("cannot use cpu-dequant-amx: the CPU has no ")
             << (isa.amxTile ? "amx-bf16" : "amx-tile");
    if (isa.known && !isa.avx512bw)
      return op.emitOpError("cannot use cpu-dequant-amx: the CPU has no "
                            "avx512bw (vpermw, 16-bit lanes)");
    if (!amxOperands)
      return op.emitOpError("cannot use cpu-dequant-amx: it takes bf16 "
                            "activations (and bf16-subnormals=flush)");
  }
  std::string why = checkCpuDequantTiles(t);
  if (!why.empty())
    return op.emitOpError("cannot use ") << kernel << ": " << why;
  SmallVector<int64_t> tile;
  if (t.amxRows)
    tile = {t.amxRows, 16};
  return LoweringConfigAttr::get(op.getContext(), kernel, tile, {},
                                 {t.mr, t.nr, t.kc}, 0, "");
}

FailureOr<LoweringConfigAttr>
mlir::accel::configureCpuOp(Operation *op, const CpuIsa &isa,
                            const CpuConfigOverrides &overrides) {
  FailureOr<LoweringConfigAttr> given = getLoweringConfig(op);
  if (failed(given))
    return failure();
  if (auto mm = dyn_cast<MatmulOp>(op))
    return configureMatmul(mm, *given, isa, overrides);
  if (auto dq = dyn_cast<DequantMatmulOp>(op))
    return configureDequantMatmul(dq, *given, isa, overrides);
  if (auto pa = dyn_cast<PagedAttentionOp>(op))
    return configurePagedAttention(pa, *given, isa, overrides);
  return configureAttention(cast<AttentionOp>(op), *given, isa, overrides);
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {
struct AccelCpuConfigurePass
    : public accel::impl::AccelCpuConfigurePassBase<AccelCpuConfigurePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (bf16Subnormals != "flush" && bf16Subnormals != "keep") {
      module.emitError() << "accel-cpu-configure: bf16-subnormals must be "
                            "'flush' or 'keep' (got '"
                         << bf16Subnormals << "')";
      return signalPassFailure();
    }
    if ((!cacheTile.empty() && cacheTile.size() != 3) ||
        (!registerTile.empty() && registerTile.size() != 3)) {
      module.emitError() << "accel-cpu-configure: cache-tile and "
                            "register-tile take 3 sizes each";
      return signalPassFailure();
    }
    if (attentionTileQ < 0 || attentionTileKV < 0) {
      module.emitError() << "accel-cpu-configure: attention-tile-q and "
                            "attention-tile-kv must not be negative (0: "
                            "chosen)";
      return signalPassFailure();
    }
    if (pagedPages < 0 || pagedSplits < 0 || pagedHeads < 0) {
      module.emitError() << "accel-cpu-configure: paged-pages, paged-splits "
                            "and paged-heads must not be negative (0: chosen)";
      return signalPassFailure();
    }
    CpuConfigOverrides o;
    o.cacheTile.assign(cacheTile.begin(), cacheTile.end());
    o.registerTile.assign(registerTile.begin(), registerTile.end());
    o.attentionTileQ = attentionTileQ;
    o.attentionTileKV = attentionTileKV;
    o.pagedPages = pagedPages;
    o.pagedSplits = pagedSplits;
    o.pagedHeads = pagedHeads;
    o.threads = threads;
    o.bf16Flush = bf16Subnormals == "flush";
    CpuIsa cpu = CpuIsa::resolve(features, module);
    std::optional<CpuTuningCache> cache;
    std::string cpuKind;
    if (!tuningCache.empty()) {
      llvm::Expected<CpuTuningCache> loaded = loadCpuTuningCache(tuningCache);
      if (!loaded) {
        module.emitError() << "accel-cpu-configure: tuning cache '"
                           << tuningCache
                           << "': " << llvm::toString(loaded.takeError());
        return signalPassFailure();
      }
      cache = std::move(*loaded);
      cpuKind = cpuTuningCpu(features, module);
    }
    WalkResult r = module.walk([&](Operation *op) {
      if (!isa<MatmulOp, AttentionOp, DequantMatmulOp, PagedAttentionOp>(op))
        return WalkResult::advance();
      // Options the user gave outrank the cache (docs/configure.md, "Who
      // wins": the op's config, the options, then the model, which the
      // cache refines).
      bool optionsGiven =
          isa<MatmulOp>(op) ? !o.cacheTile.empty() || !o.registerTile.empty()
          : isa<PagedAttentionOp>(op)
              ? o.pagedPages > 0 || o.pagedSplits > 0 || o.pagedHeads > 0
              : o.attentionTileQ > 0 || o.attentionTileKV > 0;
      if (cache && !cpuKind.empty() && !optionsGiven &&
          !op->hasAttr(kLoweringConfigAttrName)) {
        std::string key = cpuTuningKey(op);
        if (const CpuTuningEntry *e =
                key.empty() ? nullptr : cache->find(cpuKind, key, threads)) {
          FailureOr<LoweringConfigAttr> model = configureCpuOp(op, cpu, o);
          if (failed(model))
            return WalkResult::interrupt();
          if (model->getKernel() == e->kernel) {
            // Checked as the attribute's own verifier would check a written
            // one (sizes positive where they must be) before any choice
            // code sees it.
            auto entryConfig = LoweringConfigAttr::getChecked(
                [&] { return op->emitError(); }, op->getContext(),
                StringRef(e->kernel), ArrayRef<int64_t>(e->tile),
                ArrayRef<int64_t>(), ArrayRef<int64_t>(e->mma), int64_t(0),
                StringRef());
            FailureOr<LoweringConfigAttr> tuned = failure();
            if (entryConfig) {
              op->setAttr(kLoweringConfigAttrName, entryConfig);
              tuned = configureCpuOp(op, cpu, o);
            }
            if (failed(tuned)) {
              op->emitError() << "accel-cpu-configure: the tuning cache '"
                              << tuningCache << "' entry for '" << key
                              << "' on " << cpuKind
                              << " does not fit this op (above)";
              return WalkResult::interrupt();
            }
            op->setAttr(kLoweringConfigAttrName, *tuned);
            return WalkResult::advance();
          }
        }
      }
      FailureOr<LoweringConfigAttr> config = configureCpuOp(op, cpu, o);
      if (failed(config))
        return WalkResult::interrupt();
      op->setAttr(kLoweringConfigAttrName, *config);
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
