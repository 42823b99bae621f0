//===- KernelConfig.cpp - the GPU configuration stage ---------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Every choice the GPU kernels make: the GEMM block tile, warps, stages and
// kernel (wgmma, mma.sync, MFMA/WMMA), the attention kernel and its blocks,
// from the chip (GpuTargetInfo) and the op; the checks that a given choice
// (pass option or #accel.lowering_config) fits the chip; and the conversion
// to and from the attribute. accel-gpu-configure (GpuConfigure.cpp) writes
// the configs; convert-accel-to-gpu reads them (docs/configure.md).
//
//===----------------------------------------------------------------------===//

#include "KernelConfig.h"
#include "Epilogue.h"
#include "accel/Dialect/Accel/IR/AccelAttrs.h"
#include "accel/Target/Catalogue.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"
#include <algorithm>
#include <cassert>

using namespace mlir;
using namespace mlir::accel;

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Elements per global load into registers of a row `length` elements of
/// `bytes` each long: the widest aligned vector of up to 16 bytes that
/// divides the row (any alignment: 1 element at worst).
static int64_t loadElements(int64_t length, int64_t bytes) {
  int64_t v = 16 / bytes;
  while (v > 1 && length % v != 0)
    v /= 2;
  return v;
}

/// The largest number of elements (8, 4 or 2) a cp.async of a row of
/// `length` elements of `bytes` each can move with every copy aligned.
static int64_t copyElements(int64_t length, int64_t bytes) {
  for (int64_t v = 16 / bytes; v * bytes >= 4; v /= 2)
    if (length % v == 0)
      return v;
  return 0;
}

//===----------------------------------------------------------------------===//
// Overrides
//===----------------------------------------------------------------------===//

/// Bounds on given sizes, far above what any kernel's shared memory or
/// registers hold, so that checking a given size never overflows.
constexpr int64_t kMaxGpuTile = 65536, kMaxGpuStages = 64;

std::unique_ptr<GpuTargetInfo>
mlir::accel::resolveGpuTarget(ModuleOp module, StringRef chip,
                              StringRef pass) {
  if (!llvm::is_contained(getKnownGpuChips(), chip)) {
    auto diag = module.emitError()
                << pass << ": unknown chip '" << chip << "' (known: ";
    llvm::interleaveComma(getKnownGpuChips(), diag);
    diag << ")";
    return nullptr;
  }
  auto target = module->getAttrOfType<TargetAttr>(kTargetAttrName);
  if (!target || (target.getKind() != TargetKind::NVPTX &&
                  target.getKind() != TargetKind::AMDGPU)) {
    std::unique_ptr<GpuTargetInfo> info = createGpuTargetInfo(chip);
    if (!info)
      module.emitError() << pass << ": the target catalogue has no entry for "
                         << chip;
    return info;
  }
  // The module describes its GPU: its figures, for the chip it names.
  if (target.getChip() != chip) {
    module.emitError() << pass << ": the module's target '"
                       << target.getName() << "' is " << target.getChip()
                       << ", not " << chip << ", the chip compiled for";
    return nullptr;
  }
  if (target.getLocalMemoryKib() <= 0) {
    module.emitError() << pass << ": the module's target '"
                       << target.getName()
                       << "' gives no local_memory_kib (the shared memory of "
                          "a multiprocessor), which the kernels are sized by";
    return nullptr;
  }
  return createGpuTargetInfo(
      chip, {target.getComputeUnits(), target.getLocalMemoryKib()});
}

static LogicalResult checkGpuOverrides(ModuleOp module, StringRef pass,
                                       const GpuTargetInfo &target,
                                       const GpuConfigOverrides &o);

std::unique_ptr<GpuTargetInfo>
mlir::accel::setUpGpuPass(ModuleOp module, StringRef chip, StringRef pass,
                          const GpuConfigOverrides &o) {
  std::unique_ptr<GpuTargetInfo> target = resolveGpuTarget(module, chip, pass);
  if (!target || failed(checkGpuOverrides(module, pass, *target, o)))
    return nullptr;
  return target;
}

/// Checks the pass options `o` against `target`: an mma the chip has,
/// sizes not negative.
static LogicalResult checkGpuOverrides(ModuleOp module, StringRef pass,
                                       const GpuTargetInfo &target,
                                       const GpuConfigOverrides &o) {
  // "" is the chip's own family (mma.sync on NVIDIA, mfma or wmma on AMD).
  ArrayRef<StringRef> families = target.getVendorMmaFamilies();
  if (!o.mma.empty() && o.mma != "auto" &&
      !llvm::is_contained(families, o.mma)) {
    auto diag = module.emitError() << pass << ": mma must be auto";
    for (auto [i, family] : llvm::enumerate(families))
      diag << (i + 1 == families.size() ? " or " : ", ") << family;
    return diag << " for " << target.getTargetName() << " chips, got '"
                << o.mma << "'";
  }
  if (llvm::is_contained(families, o.mma) &&
      !llvm::is_contained(target.getMmaFamilies(), o.mma))
    return module.emitError()
           << pass << ": " << target.getChip() << " has no " << o.mma
           << " instructions (its matrix instruction is "
           << target.getMmaFamilies().front() << ")";
  if (o.tileM < 0 || o.tileN < 0 || o.tileK < 0 || o.warps < 0 ||
      o.stages < 0)
    return module.emitError() << pass
                              << ": tile sizes, warps and stages must not be "
                                 "negative";
  if (o.tileM > kMaxGpuTile || o.tileN > kMaxGpuTile ||
      o.tileK > kMaxGpuTile || o.warps > kMaxGpuTile ||
      o.stages > kMaxGpuStages)
    return module.emitError()
           << pass << ": tile sizes and warps above " << kMaxGpuTile
           << " or stages above " << kMaxGpuStages << " fit no kernel";
  return success();
}

FailureOr<GpuConfigOverrides>
mlir::accel::getGpuOverrides(Operation *op, const GpuTargetInfo &target,
                             const GpuConfigOverrides &options) {
  // The tile and warps options are the GEMM kernels'; the attention
  // kernels have their own blocks and warps (a config may only repeat them).
  GpuConfigOverrides o = options;
  const bool attention = isa<AttentionOp>(op);
  if (attention)
    o.tileM = o.tileN = o.tileK = o.warps = 0;
  FailureOr<LoweringConfigAttr> found = getLoweringConfig(op);
  if (failed(found) || !*found)
    return failed(found) ? FailureOr<GpuConfigOverrides>(failure())
                         : FailureOr<GpuConfigOverrides>(o);
  LoweringConfigAttr config = *found;
  StringRef kernel = config.getKernel();
  if (!llvm::is_contained(target.getVendorMmaFamilies(), kernel))
    return op->emitOpError("has a lowering_config for the ")
           << kernel << " kernel, which " << target.getTargetName()
           << " chips do not have";
  if (!llvm::is_contained(target.getMmaFamilies(), kernel))
    return op->emitOpError("has a lowering_config for the ")
           << kernel << " kernel; " << target.getChip() << " has no " << kernel
           << " instructions (its matrix instruction is "
           << target.getMmaFamilies().front() << ")";
  o.mma = kernel.str();
  ArrayRef<int64_t> tile = config.getTile(), warps = config.getWarps();
  const int64_t maxWarps =
      target.getMaxThreadsPerBlock() / target.getWarpSize();
  for (int64_t t : tile)
    if (t > kMaxGpuTile)
      return op->emitOpError("has a lowering_config tile entry of ")
             << t << "; no kernel takes more than " << kMaxGpuTile;
  for (int64_t w : warps)
    if (w > maxWarps)
      return op->emitOpError("has a lowering_config warps entry of ")
             << w << "; a block of " << target.getChip() << " holds at most "
             << maxWarps << " warps";
  if (config.getStages() > kMaxGpuStages)
    return op->emitOpError("has a lowering_config of ")
           << config.getStages() << " stages; no kernel takes more than "
           << kMaxGpuStages;
  if (!tile.empty() && tile.size() != (attention ? 2u : 3u))
    return op->emitOpError("has a lowering_config tile of ")
           << tile.size() << " entries; "
           << (attention ? "attention takes [query rows, keys per step]"
                         : "a matmul takes [M, N, K]");
  if (!warps.empty() && warps.size() != (attention ? 1u : 2u))
    return op->emitOpError("has a lowering_config warps of ")
           << warps.size() << " entries; "
           << (attention ? "attention takes [warps]"
                         : "a matmul takes [along M, along N]");
  if (attention) {
    if (!tile.empty()) {
      o.blockM = tile[0];
      o.blockN = tile[1];
    }
    if (!warps.empty())
      o.warps = warps[0];
  } else {
    if (!tile.empty()) {
      o.tileM = tile[0];
      o.tileN = tile[1];
      o.tileK = tile[2];
    }
    if (!warps.empty()) {
      o.warpsM = warps[0];
      o.warpsN = warps[1];
      o.warps = warps[0] * warps[1];
    }
  }
  if (config.getStages())
    o.stages = config.getStages();
  o.instr.assign(config.getMma().begin(), config.getMma().end());
  return o;
}

/// A launch of `grid` blocks must fit the chip's grid.
static LogicalResult checkGrid(Operation *op, std::array<int64_t, 3> grid,
                               const GpuTargetInfo &target) {
  std::array<int64_t, 3> maxGrid = target.getMaxGridSize();
  for (int d = 0; d < 3; ++d)
    if (grid[d] > maxGrid[d])
      return op->emitOpError("needs a grid of ")
             << grid[0] << " x " << grid[1] << " x " << grid[2] << " blocks; "
             << target.getChip() << " allows at most " << maxGrid[0] << " x "
             << maxGrid[1] << " x " << maxGrid[2];
  return success();
}

/// A hand-written instruction shape must be the one the kernel uses.
static LogicalResult checkInstr(Operation *op, const GpuConfigOverrides &o,
                                ArrayRef<int64_t> instr) {
  if (o.instr.empty() || ArrayRef<int64_t>(o.instr) == instr)
    return success();
  return op->emitOpError("has a lowering_config mma = [")
         << o.instr[0] << ", " << o.instr[1] << ", " << o.instr[2]
         << "]; its kernel multiplies with [" << instr[0] << ", " << instr[1]
         << ", " << instr[2] << "] (the chip and the element types fix it)";
}

LogicalResult mlir::accel::checkGpuKernelFunction(func::FuncOp func) {
  // The kernels are named after the function, and PTX identifiers are
  // [A-Za-z_$][A-Za-z0-9_$]* (LLVM's NVPTX printer aborts on others).
  StringRef fname = func.getSymName();
  auto isIdentChar = [](char c) {
    return llvm::isAlnum(c) || c == '_' || c == '$';
  };
  if (fname.empty() || llvm::isDigit(fname.front()) ||
      !llvm::all_of(fname, isIdentChar))
    return func.emitOpError("is named '")
           << fname
           << "', which cannot name a GPU kernel: PTX identifiers are "
              "letters, digits, '_' and '$', not starting with a digit";
  Block &body = func.getBody().front();
  const bool attention = !body.getOps<AttentionOp>().empty();
  bool anyMatmul = false;
  for (Operation &op : body) {
    // Reshapes name their source's buffer (nameKernelBuffers).
    if (isa<AttentionOp, tensor::EmptyOp, arith::ConstantOp, func::ReturnOp,
            tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op))
      continue;
    // The starting values of reductions (read as constants by the row
    // kernels).
    if (isa<linalg::FillOp>(op)) {
      anyMatmul = true;
      continue;
    }
    // A weight-only quantised matmul: its kernel (DequantKernel.h) writes
    // its result; the generics that read it are elementwise kernels.
    if (isa<DequantMatmulOp>(op)) {
      anyMatmul = true;
      continue;
    }
    // Decode attention over a paged KV cache: its kernels
    // (PagedAttentionKernel.h) write its result.
    if (isa<PagedAttentionOp>(op)) {
      anyMatmul = true;
      continue;
    }
    if (auto mm = dyn_cast<MatmulOp>(op)) {
      anyMatmul = true;
      // Its epilogue, if it has one, must be one the kernel can apply.
      if (failed(findGpuEpilogue(mm)))
        return failure();
      continue;
    }
    // A sharded function's all-reduce: an NCCL call between the kernels
    // (checked by convert-accel-to-gpu). Resharding has no GPU lowering.
    if (isa<shard::AllReduceOp>(op))
      continue;
    if (op.getDialect() && isa<shard::ShardDialect>(op.getDialect()))
      return op.emitOpError(
          "cannot run on the GPU: the host library runs shard.all_reduce as "
          "an NCCL (RCCL) call and nothing else of the shard dialect; this "
          "op reshards a value between the annotations (keep it as it is "
          "computed)");
    // A generic is a matmul's epilogue (checked with its matmul above,
    // which comes first) or an elementwise kernel of its own (checked by
    // convert-accel-to-gpu, analyzeGpuElementwise).
    if (isa<linalg::GenericOp>(op)) {
      anyMatmul = true;
      continue;
    }
    return op.emitOpError("has no GPU lowering (convert-accel-to-gpu "
                          "compiles functions of accel.matmul ops, each with "
                          "an optional elementwise epilogue on its result, "
                          "accel.dequant_matmul, accel.attention and "
                          "accel.paged_attention ops, "
                          "elementwise linalg.generic "
                          "ops, and row reductions with the ops around "
                          "them; accel-decompose-softmax makes accel.softmax "
                          "those)");
  }
  if (!attention && !anyMatmul)
    return func.emitOpError("has no accel.matmul to compile for the GPU");
  return success();
}

//===----------------------------------------------------------------------===//
// Weight-only quantised matmul
//===----------------------------------------------------------------------===//

FailureOr<GpuDequantPlan>
mlir::accel::planGpuDequant(DequantMatmulOp op, const GpuTargetInfo &target) {
  auto aType = cast<RankedTensorType>(op.getLhs().getType());
  auto cType = cast<RankedTensorType>(op.getInit().getType());
  for (auto [name, t] : {std::pair<StringRef, RankedTensorType>{"A", aType},
                         {"C", cType}})
    if (!t.hasStaticShape())
      return op.emitOpError("needs static shapes on the GPU target (")
             << name << " is " << t << ")";
  FailureOr<LoweringConfigAttr> config = getLoweringConfig(op);
  if (failed(config))
    return failure();
  if (*config)
    return op.emitOpError("has a lowering_config; the GPU kernel of a "
                          "dequant_matmul is configured by the stage alone "
                          "(it has no tiles to choose)");
  GpuDequantPlan k;
  k.k = op.getK();
  k.n = op.getN();
  // The verifier makes K and N at least 1.
  k.rows = aType.getNumElements() / k.k;
  k.bits = op.getBits();
  k.group = op.getGroup();
  k.isUnsigned = op.getIsUnsigned();
  k.aType = aType.getElementType();
  k.scaleType = cast<RankedTensorType>(op.getScales().getType())
                    .getElementType();
  if (Value z = op.getZeroPoints()) {
    k.hasZeroPoints = true;
    k.zeroType = cast<RankedTensorType>(z.getType()).getElementType();
  }
  k.outType = cType.getElementType();

  // A lane's chunk: the most weights in one load of at most 16 bytes that
  // stay in one group (the verifier makes the group divide K and, for int4,
  // even).
  const int64_t maxChunk = 16 * 8 / k.bits;
  k.chunk = 1;
  for (int64_t c = maxChunk; c >= 1; c /= 2)
    if (k.group % c == 0 && (c * k.bits) % 8 == 0) {
      k.chunk = c;
      break;
    }
  // A short K: smaller chunks (down to 8 weights), so that more lanes work.
  while (k.chunk > 8 && k.chunk * target.getWarpSize() > k.k)
    k.chunk /= 2;
  // 128 threads (two waves of 64 on CDNA). Up to 16 rows of A a block, so
  // that a decode step's 1-16 rows read W once; rows of W a warp so that a
  // lane keeps at most 16 sums (4 rows of W, four 16-byte loads in flight a
  // lane, up to 4 rows of A; 32 sums spilled on gfx1100 at 8 rows of A).
  k.warps = std::max<int64_t>(1, 128 / target.getWarpSize());
  k.rowsA = std::clamp<int64_t>(k.rows, 1, 16);
  k.rowsPerWarp =
      std::clamp<int64_t>(16 / int64_t(llvm::PowerOf2Ceil(k.rowsA)), 1, 4);
  if (k.rows > 0 && k.n > 0 && failed(checkGrid(op, k.grid(), target)))
    return failure();
  return k;
}

//===----------------------------------------------------------------------===//
// Decode attention over a paged KV cache
//===----------------------------------------------------------------------===//

FailureOr<GpuPagedPlan>
mlir::accel::planGpuPagedAttention(PagedAttentionOp op,
                                   const GpuTargetInfo &target) {
  auto qType = cast<RankedTensorType>(op.getQuery().getType());
  auto kType = cast<RankedTensorType>(op.getKeyCache().getType());
  auto vType = cast<RankedTensorType>(op.getValueCache().getType());
  auto tableType = cast<RankedTensorType>(op.getBlockTable().getType());
  auto lengthType = cast<RankedTensorType>(op.getKvLengths().getType());
  auto oType = cast<RankedTensorType>(op.getInit().getType());
  for (auto [name, t] : {std::pair<StringRef, RankedTensorType>{"Q", qType},
                         {"the key pool", kType},
                         {"the value pool", vType},
                         {"the block table", tableType},
                         {"kv_lengths", lengthType},
                         {"O", oType}})
    if (!t.hasStaticShape())
      return op.emitOpError("needs static shapes on the GPU target (")
             << name << " is " << t
             << "; the GPU kernels take the batch and the pool's pages as "
                "compiled)";
  FailureOr<LoweringConfigAttr> config = getLoweringConfig(op);
  if (failed(config))
    return failure();
  if (*config)
    return op.emitOpError("has a lowering_config; the GPU kernels of a "
                          "paged_attention are configured by the stage alone");
  // The verifier fixed the rest: B, Hq, Sq, D of Q; P, T, Hkv of both pools;
  // Hkv divides Hq; the table [B, N], lengths [B], O [B, Hq, Sq, Dv].
  GpuPagedPlan k;
  k.batch = qType.getDimSize(0);
  k.hq = qType.getDimSize(1);
  k.sq = qType.getDimSize(2);
  k.d = qType.getDimSize(3);
  k.pages = kType.getDimSize(0);
  k.pageSize = kType.getDimSize(1);
  k.hkv = kType.getDimSize(2);
  k.dv = vType.getDimSize(3);
  k.maxPages = tableType.getDimSize(1);
  k.inType = qType.getElementType();
  k.outType = oType.getElementType();
  k.tableType = tableType.getElementType();
  k.lengthType = lengthType.getElementType();
  k.causal = op.getCausal();
  k.scale = op.getEffectiveScale();

  if (k.maxPages == 0 || k.pages == 0 || k.pageSize == 0)
    return op.emitOpError("has ")
           << (k.maxPages == 0 ? "a block table of no pages"
                               : "a pool of no keys")
           << "; its GPU kernels read at least one page (every sequence "
              "would be empty)";
  const int64_t warp = target.getWarpSize();
  const int64_t inBytes = k.inType.getIntOrFloatBitWidth() / 8;
  // The widest run of at most 16 bytes that divides both head dimensions.
  k.vec = 16 / inBytes;
  while (k.vec > 1 && (k.d % k.vec != 0 || k.dv % k.vec != 0))
    k.vec /= 2;
  // Enough lanes a key that each holds one run of the longer row, up to
  // the warp (then a lane holds several).
  k.lanes = std::min<int64_t>(
      warp, llvm::PowerOf2Ceil(std::max(k.runsK(), k.runsV())));
  // 128 threads (two waves of 64 on CDNA); two keys a group a step, so
  // that each lane has four 16-byte loads in flight.
  k.warps = std::max<int64_t>(1, 128 / warp);
  k.unroll = 2;
  // Packed rows a block: a lane keeps each row's Q runs and O accumulators
  // in registers, 128 f32 at most (fewer rows than that: one tile).
  const int64_t perRow = (k.kRunsPerLane() + k.vRunsPerLane()) * k.vec;
  k.rowsPerBlock = std::clamp<int64_t>(
      int64_t(llvm::bit_floor(uint64_t(std::max<int64_t>(1, 128 / perRow)))), 1,
      std::max<int64_t>(1, k.rows()));
  // Shared memory for the groups' states: at most 32 KiB, so that several
  // blocks share a multiprocessor.
  while (k.rowsPerBlock > 1 && k.sharedBytes(warp) > 32 * 1024)
    k.rowsPerBlock = (k.rowsPerBlock + 1) / 2;
  if (k.sharedBytes(warp) > target.getMaxSharedMemoryPerBlock())
    return op.emitOpError("needs ")
           << k.sharedBytes(warp) << " bytes of shared memory for Dv = " << k.dv
           << " on " << target.getChip() << ", which has "
           << target.getMaxSharedMemoryPerBlock() << " a block";
  // Splits of the keys (flash-decoding): enough blocks for two on every
  // multiprocessor, each split at least 256 keys of a full table.
  const int64_t blocks = k.batch * k.hkv * k.rowTiles();
  const int64_t keys = k.maxPages * k.pageSize;
  int64_t splits = 1;
  if (blocks > 0 && keys > 0) {
    splits = (2 * target.getNumMultiprocessors() + blocks - 1) / blocks;
    splits = std::clamp<int64_t>(splits, 1, std::max<int64_t>(1, keys / 256));
    splits = std::min(splits, k.maxPages);
  }
  k.pagesPerSplit = std::max<int64_t>(1, (k.maxPages + splits - 1) / splits);
  k.splits = std::max<int64_t>(1, (k.maxPages + k.pagesPerSplit - 1) /
                                      k.pagesPerSplit);
  if (blocks > 0 && failed(checkGrid(op, k.grid(), target)))
    return failure();
  const int64_t elements = k.batch * k.hkv * k.rows() * k.dv;
  if (k.splits > 1 &&
      failed(checkGrid(
          op,
          {(elements + kGpuPagedCombineThreads - 1) / kGpuPagedCombineThreads,
           1, 1},
          target)))
    return failure();
  return k;
}

int64_t mlir::accel::getGpuRowKernelThreads(int64_t columns,
                                             const GpuTargetInfo &target) {
  int64_t threads = target.getWarpSize();
  while (threads < 256 && threads * 4 < columns)
    threads *= 2;
  return threads;
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

int64_t mlir::accel::getGpuGemmSharedBytes(const GpuGemmShape &shape,
                                           const GpuGemmConfig &config) {
  if (config.fma)
    // Two buffers of A and B, K-major.
    return config.stages * config.tileK *
           (config.tileM + config.tileN + 2 * kGpuFmaRowPad) * shape.inBytes;
  if (config.wgmma)
    // Unpadded 128-byte rows of A [tileM] and B ([tileN] rows of K, or
    // [tileK] rows of N), plus the slack of the run-time alignment.
    return config.stages * (config.tileM + config.tileN) * 128 +
           kGpuWgmmaSwizzleAtom;
  const int64_t pad = getGpuSharedRowPad(shape.inBytes);
  int64_t a = config.tileM * (config.tileK + pad);
  int64_t b = shape.transposeB || config.registerStaged
                  ? config.tileN * (config.tileK + pad)
                  : config.tileK * (config.tileN + pad);
  return config.stages * (a + b) * shape.inBytes;
}

bool mlir::accel::splitGpuWarps(int64_t tileM, int64_t tileN, int64_t warps,
                                GpuGemmConfig &config) {
  // Each warp part holds whole ldmatrix x4 loads: 16 rows of A and 16
  // columns of B (two m16n8 fragments).
  int64_t bestM = 0;
  double bestRatio = 0;
  for (int64_t wm = 1; wm <= warps; ++wm) {
    if (warps % wm != 0)
      continue;
    int64_t wn = warps / wm;
    if (tileM % (16 * wm) != 0 || tileN % (16 * wn) != 0)
      continue;
    double partM = double(tileM / wm), partN = double(tileN / wn);
    double ratio = std::max(partM, partN) / std::min(partM, partN);
    // Squarer parts load fewer fragments per mma; on a tie the taller part
    // (fewer, larger A loads).
    if (bestM == 0 || ratio < bestRatio) {
      bestM = wm;
      bestRatio = ratio;
    }
  }
  if (bestM == 0)
    return false;
  config.warpsM = bestM;
  config.warpsN = warps / bestM;
  return true;
}

GpuGemmConfig mlir::accel::getDefaultGpuGemmConfig(const GpuTargetInfo &target,
                                                   const GpuGemmShape &shape) {
  GpuGemmConfig c;
  // Large tiles reuse each loaded element more, but only pay off while the
  // grid still keeps every multiprocessor busy.
  bool large = ceilDiv(shape.m, 128) * ceilDiv(shape.n, 128) * shape.batch >=
               target.getNumMultiprocessors();
  c.tileM = c.tileN = large ? 128 : 64;
  // NVIDIA: 8 warps of 32 (256 threads) on the large tile. AMD: 256-thread
  // workgroups too, 4 waves of 64 (CDNA) or 8 of 32 (RDNA), each wave at
  // most 64x64 of C.
  int64_t warps = large ? 256 / target.getWarpSize() : 4;
  while (c.tileM > 16 && c.tileM / 2 >= shape.m)
    c.tileM /= 2;
  while (c.tileN > 16 && c.tileN / 2 >= shape.n)
    c.tileN /= 2;
  // 64 bytes of K per slice; 8-bit inputs multiply 32 deep (m16n8k32),
  // TF32 8 deep (m16n8k8, MFMA 16x16x8): 16 f32 a slice, so that a 128 x
  // 128 tile's ring fits the shared memory as the 16-bit one does (at 32
  // f32 it outgrew gfx942's 64 KiB LDS and sm_86's 99 KiB).
  int64_t depth = shape.inBytes == 1 ? 32 : shape.inBytes == 4 ? 8 : 16;
  c.tileK = std::min<int64_t>(
      2 * depth, std::max<int64_t>(depth, llvm::alignTo(shape.k, depth)));
  while (warps > 1 && !splitGpuWarps(c.tileM, c.tileN, warps, c))
    warps /= 2;
  if (warps == 1)
    splitGpuWarps(c.tileM, c.tileN, 1, c);
  c.stages = ceilDiv(shape.k, c.tileK) <= 1 || !target.hasAsyncCopy() ? 2 : 3;
  c.registerStaged = !target.hasAsyncCopy();
  return c;
}

/// 8-bit float inputs: Hopper's fp8 tensor cores keep only about 14 bits of
/// the sum in the accumulator (DeepSeek-V3 technical report, arXiv
/// 2412.19437, §3.3.2), so each K slice (128 elements, 4 wgmma k32) is
/// summed apart and added into the f32 accumulator with ordinary f32
/// additions, as DeepGEMM and cuBLAS do. i8's s32 sums are exact.
bool mlir::accel::promotesWgmmaAccumulation(const GemmKernel &k) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(k.inType);
}

FailureOr<GemmKernel>
mlir::accel::analyzeGpuMatmul(MatmulOp mm, const GpuTargetInfo &target) {
  auto aType = mm.getLhs().getType(), bType = mm.getRhs().getType();
  auto cType = mm.getInit().getType();
  if (!aType.hasStaticShape() || !bType.hasStaticShape() ||
      !cType.hasStaticShape())
    return mm.emitOpError("needs static shapes on the GPU target");
  GemmKernel k;
  k.inType = aType.getElementType();
  k.inTypeB = bType.getElementType();
  k.outType = cType.getElementType();
  k.accumulate = mm.getAccumulate();
  int64_t rank = cType.getRank();
  k.batched = rank > 2;
  GpuGemmShape &s = k.shape;
  s.batch = computeProduct(cType.getShape().drop_back(2));
  s.m = cType.getDimSize(rank - 2);
  s.n = cType.getDimSize(rank - 1);
  s.k = aType.getDimSize(rank - 1);
  s.transposeB = mm.getTransposeB();

  // The op's verifier admits f32, f16, bf16, f8 and i8 inputs (scales
  // only with f8 and i8), C never narrower than them.
  // f32 inputs that accel-lower-precision rounded to TF32 values (compute =
  // tf32) go to the matrix units where the chip has a TF32 instruction
  // (NVIDIA mma.sync m16n8k8 from sm_80; AMD's xf32 MFMA on gfx942); the
  // FMA kernel multiplies the same values exactly elsewhere (gfx1100).
  std::string tf32Why;
  if (k.inType.isF32() && k.inTypeB.isF32() &&
      mm->hasAttr(kTf32InputsAttrName)) {
    if (std::optional<GpuMmaInstr> instr =
            target.findMma(GpuMmaType::TF32, tf32Why)) {
      k.tf32 = true;
      k.mma = *instr;
      s.inBytes = 4;
      k.bMnMajor = !s.transposeB;
      if (target.hasAsyncCopy()) {
        // cp.async moves 4-, 8- or 16-byte pieces: any row of f32 has them.
        k.vecA = copyElements(s.k, s.inBytes);
        k.vecB = copyElements(s.transposeB ? s.k : s.n, s.inBytes);
      } else {
        // Global loads into registers.
        k.vecA = loadElements(s.k, s.inBytes);
        k.vecB = loadElements(s.transposeB ? s.k : s.n, s.inBytes);
      }
      return k;
    }
  }
  if (k.inType.isF32()) {
    // f32 is multiplied exactly, by the FMA kernel (no matrix instruction:
    // tensor cores take f32 only as TF32). Its slices pass through
    // registers, in the widest aligned vectors (up to 16 bytes) that divide
    // the rows.
    s.inBytes = 4;
    k.vecA = loadElements(s.k, s.inBytes);
    k.vecB = loadElements(s.transposeB ? s.k : s.n, s.inBytes);
    return k;
  }
  std::optional<GpuMmaType> mmaType = getGpuMmaType(k.inType);
  std::string why;
  std::optional<GpuMmaInstr> instr =
      mmaType ? target.findMma(*mmaType, why) : std::nullopt;
  if (!instr)
    return mm.emitOpError("of ")
           << k.inType << " inputs has no GPU lowering: " << why;
  k.mma = *instr;
  // The verifier lets only f8 mix types (e4m3 with e5m2): same chips.
  if (k.inTypeB != k.inType)
    k.mma.inputB = getGpuMmaType(k.inTypeB);
  s.inBytes = k.inType.getIntOrFloatBitWidth() / 8;
  if (mm.getLhsScale())
    return mm.emitOpError("with scales has no GPU lowering yet: the "
                          "kernels of convert-accel-to-gpu take no scalar "
                          "parameters (scaled ")
           << k.inType << " kernels are not done)";
  // mma.sync m16n8k32 wants 4 consecutive K of a column of B in each
  // register; ldmatrix .trans moves 16-bit elements only, so B as [K, N]
  // would need a transposing copy into shared memory.
  // The chip's memory pipeline decides the kernel body (GpuTargetInfo.h).
  const bool registerStaged = !target.hasAsyncCopy();
  if (registerStaged) {
    // Global loads into registers take any aligned vector.
    k.vecA = loadElements(s.k, s.inBytes);
    k.vecB = loadElements(s.transposeB ? s.k : s.n, s.inBytes);
  } else if (s.inBytes == 1 && !s.transposeB)
    return mm.emitOpError("of ")
           << k.inType
           << " inputs has no GPU lowering yet for B stored [K, N]: 8-bit "
              "kernels read B as [N, K] (transpose_b), as ldmatrix cannot "
              "transpose 8-bit elements (transposing B into shared memory "
              "is not done)";

  // Rows of A are K long, rows of B K (transposed) or N long; cp.async
  // moves aligned 4-, 8- or 16-byte pieces of them.
  if (!registerStaged) {
    k.vecA = copyElements(s.k, s.inBytes);
    k.vecB = copyElements(s.transposeB ? s.k : s.n, s.inBytes);
  }
  if (s.inBytes == 1 && (!k.vecA || !k.vecB))
    return mm.emitOpError("K = ")
           << s.k
           << " is not a multiple of 4: the rows of A and B are copied to "
              "shared memory by cp.async in aligned pieces of at least 4 "
              "bytes (4 elements of "
           << k.inType << "); pad it to a multiple of 4";
  if (!k.vecA || !k.vecB)
    return mm.emitOpError()
           << (k.vecA ? "N = " : "K = ") << (k.vecA ? s.n : s.k)
           << " is odd: the rows of " << (k.vecA ? "B" : "A")
           << " are copied to shared memory by cp.async in aligned pieces "
              "of at least 4 bytes (2 elements); pad it to an even size";
  k.bMnMajor = !s.transposeB;
  return k;
}

/// The wgmma block tile of `k` (the defaults with the overrides applied),
/// or std::nullopt with the reason in `why` when wgmma does not apply: not
/// sm_90a, rows of A or B that 16-byte copies cannot fill, or overrides it
/// cannot honour.
static std::optional<GpuGemmConfig>
configureWgmma(const GemmKernel &k, const GpuTargetInfo &target,
               const GpuConfigOverrides &o, std::string &why) {
  const GpuGemmShape &s = k.shape;
  auto no = [&](const Twine &reason) -> std::optional<GpuGemmConfig> {
    why = reason.str();
    return std::nullopt;
  };
  if (!target.hasWarpgroupMma())
    return no("wgmma needs sm_90a (the arch-specific Hopper target); " +
              target.getChip() + " has mma.sync only");
  if (k.tf32 && k.bMnMajor)
    return no("TF32 wgmma reads B K-major only (the PTX ISA transposes "
              "16-bit B only): B as [K, N] runs on mma.sync m16n8k8");
  const int64_t vec = 16 / s.inBytes;
  if (k.vecA != vec)
    return no("K = " + Twine(s.k) + " is not a multiple of " + Twine(vec) +
              ": wgmma's swizzled tiles are filled by 16-byte copies");
  if (k.bMnMajor && k.vecB != vec)
    return no("N = " + Twine(s.n) + " is not a multiple of " + Twine(vec) +
              ": wgmma's swizzled tiles of B as [K, N] are filled by "
              "16-byte copies");
  GpuGemmConfig c;
  c.wgmma = true;
  c.tileK = 128 / s.inBytes;
  // 2 warpgroups of 64 rows, as wide as the grid allows (wgmma is up to
  // 256 wide); narrower towards small N. 8-bit float inputs promote each
  // slice's sum (emitWgmma): a second accumulator, 128 wide at most.
  const bool promote = promotesWgmmaAccumulation(k);
  c.tileM = s.m <= 64 ? 64 : 128;
  const int64_t minN = k.bMnMajor ? 64 : 16;
  c.tileN = !promote && ceilDiv(s.m, 128) * ceilDiv(s.n, 256) * s.batch >=
                            target.getNumMultiprocessors()
                ? 256
                : 128;
  while (c.tileN > minN && c.tileN / 2 >= s.n)
    c.tileN /= 2;
  if (o.tileM)
    c.tileM = o.tileM;
  if (o.tileN)
    c.tileN = o.tileN;
  if (c.tileM % 64 != 0 || c.tileM > 256)
    return no("tile-m = " + Twine(c.tileM) +
              " is not 64, 128, 192 or 256 (a warpgroup owns 64 rows)");
  if (c.tileN % minN != 0 || c.tileN > 256)
    return no("tile-n = " + Twine(c.tileN) + " is not a multiple of " +
              Twine(minN) + " up to 256" +
              (k.bMnMajor ? " (B as [K, N] is read in 64-column blocks)" : ""));
  if (o.tileK && o.tileK != c.tileK)
    return no("tile-k = " + Twine(o.tileK) + " is not " + Twine(c.tileK) +
              " (128 bytes of K, one swizzled row)");
  c.warpsM = c.tileM / 16;
  c.warpsN = 1;
  if (o.warps && o.warps != c.warpsM)
    return no("warps = " + Twine(o.warps) + " is not " + Twine(c.warpsM) +
              " (4 per warpgroup of 64 rows)");
  if (o.warpsN > 1)
    return no("warps = [" + Twine(o.warpsM) + ", " + Twine(o.warpsN) +
              "] is not [" + Twine(c.warpsM) +
              ", 1] (each warpgroup owns whole rows of the tile)");
  // The accumulators are tileN / 2 registers of each thread (tileN when
  // promoting: the slice's and the f32 sum); with about 72 more (ptxas
  // used 158-194 in all at tileN = 256), a block must fit the 64K
  // registers of a multiprocessor (and a thread its 255).
  auto registersOf = [&](int64_t n) { return (promote ? n : n / 2) + 72; };
  auto fits = [&](int64_t n) {
    int64_t r = registersOf(n);
    return r <= 255 && r * c.tileM * 2 <= 65536;
  };
  // A chosen tile of a promoting kernel narrows until it fits (e.g.
  // 192 x 64 for tile-m = 192).
  while (promote && !o.tileN && c.tileN > minN && !fits(c.tileN))
    c.tileN /= 2;
  const int64_t registers = registersOf(c.tileN);
  if (!fits(c.tileN))
    return no("tile " + Twine(c.tileM) + "x" + Twine(c.tileN) +
              " needs about " + Twine(registers) + " registers in each of " +
              Twine(c.tileM * 2) + " threads" +
              (promote ? " (8-bit float inputs sum each K slice in a "
                         "second accumulator)"
                       : "") +
              "; a multiprocessor has 65536 (at most 255 a thread)");
  const int64_t numK = ceilDiv(s.k, c.tileK);
  if (o.stages) {
    c.stages = o.stages;
  } else {
    // As deep as the shared memory allows, up to 4 (2 when K fits one
    // slice).
    c.stages = numK <= 1 ? 2 : 4;
    while (c.stages > 2 &&
           getGpuGemmSharedBytes(s, c) > target.getMaxSharedMemoryPerBlock())
      --c.stages;
  }
  if (c.stages < 2)
    return no("stages = " + Twine(c.stages) + " is below 2");
  int64_t smem = getGpuGemmSharedBytes(s, c);
  if (smem > target.getMaxSharedMemoryPerBlock())
    return no("tile " + Twine(c.tileM) + "x" + Twine(c.tileN) + "x" +
              Twine(c.tileK) + " with " + Twine(c.stages) + " stages needs " +
              Twine(smem) + " bytes of shared memory; " + target.getChip() +
              " has " + Twine(target.getMaxSharedMemoryPerBlock()) +
              " per block");
  return c;
}

/// The block tile of the chip's own kernel (mma.sync, or AMD's LDS kernel):
/// the defaults with the overrides applied, checked against the chip.
static FailureOr<GpuGemmConfig> configureOwn(MatmulOp mm, const GemmKernel &k,
                                             const GpuTargetInfo &target,
                                             const GpuConfigOverrides &o) {
  const GpuGemmShape &shape = k.shape;
  const GpuMmaInstr &instr = k.mma;
  GpuGemmConfig c = getDefaultGpuGemmConfig(target, shape);
  // Register-staged LDS tiles read in the instruction's lane layout (AMD),
  // or the cp.async ring and ldmatrix (NVIDIA).
  const bool registerStaged = !target.hasAsyncCopy();
  std::optional<GpuLaneLayout> layout = target.getLaneLayout(instr);
  assert(registerStaged == layout.has_value() &&
         "a register-staged kernel reads fragments in a lane layout");
  int64_t w = o.warps ? o.warps : c.warpsM * c.warpsN;
  if (o.tileM)
    c.tileM = o.tileM;
  if (o.tileN)
    c.tileN = o.tileN;
  if (o.tileK)
    c.tileK = o.tileK;
  if (o.stages)
    c.stages = o.stages;
  if (registerStaged) {
    // The LDS kernel: 16x16 fragments, tileK in whole instructions, and
    // exactly two buffers (the register pipeline alternates them).
    if (c.tileM % 16 != 0 || c.tileN % 16 != 0 || c.tileK % instr.k != 0)
      return mm.emitOpError("tile ")
             << c.tileM << "x" << c.tileN << "x" << c.tileK
             << " does not fit the " << target.getMmaFamilies().front()
             << " instruction " << instr.m << "x" << instr.n << "x" << instr.k
             << " of " << target.getChip()
             << ": tile-m and tile-n must be multiples of 16 and tile-k a "
                "multiple of "
             << instr.k;
    if (c.stages != 2)
      return mm.emitOpError("stages = ")
             << c.stages << " does not apply to " << target.getChip()
             << ": its kernel double-buffers LDS (stages = 2), loading "
                "the next slice into registers while the waves multiply";
  } else if (shape.inBytes == 4 &&
             (c.tileM % 16 != 0 || c.tileN % 16 != 0 || c.tileK % 8 != 0))
    return mm.emitOpError("tile ")
           << c.tileM << "x" << c.tileN << "x" << c.tileK
           << " is not made of 16x16x8 blocks (TF32: ldmatrix x4 loads 16 "
              "rows of 8 f32 and mma.sync m16n8k8 is 8 deep): tile-m and "
              "tile-n must be multiples of 16 and tile-k of 8";
  else if (shape.inBytes != 4 &&
           (c.tileM % 16 != 0 || c.tileN % 16 != 0 || c.tileK % 16 != 0))
    return mm.emitOpError("tile ")
           << c.tileM << "x" << c.tileN << "x" << c.tileK
           << " is not made of 16x16x16 blocks (ldmatrix x4 loads 16x16 "
              "and mma.sync m16n8k16 is 16 deep): tile-m, tile-n and "
              "tile-k must be multiples of 16";
  if (!registerStaged && shape.inBytes == 1 && c.tileK % 32 != 0)
    return mm.emitOpError("tile-k = ")
           << c.tileK
           << " is not a multiple of 32: 8-bit inputs are multiplied by "
              "mma.sync m16n8k32, 32 deep";
  if (c.stages < 2)
    return mm.emitOpError("needs at least 2 stages (one slice copied "
                          "while the warps multiply another), got ")
           << c.stages;
  // Chosen warps follow a given tile: more while a warp would own more
  // than 64x64 of C (128 accumulator registers), fewer while they do not
  // split it. Given warps must fit.
  if (!o.warps) {
    while (c.tileM * c.tileN / w > 64 * 64 &&
           2 * w * target.getWarpSize() <= target.getMaxThreadsPerBlock())
      w *= 2;
    while (w > 1 && !splitGpuWarps(c.tileM, c.tileN, w, c))
      w /= 2;
  }
  if (o.warpsM) {
    // A hand-written split is kept as given, when it splits the tile.
    if (c.tileM % (16 * o.warpsM) != 0 || c.tileN % (16 * o.warpsN) != 0)
      return mm.emitOpError("tile ")
             << c.tileM << "x" << c.tileN << " cannot be split as warps = ["
             << o.warpsM << ", " << o.warpsN
             << "]: each warp's part must be a multiple of 16 x 16";
    c.warpsM = o.warpsM;
    c.warpsN = o.warpsN;
  } else if (!splitGpuWarps(c.tileM, c.tileN, w, c))
    return mm.emitOpError("tile ")
           << c.tileM << "x" << c.tileN << " cannot be split among " << w
           << " warps: warps = wm x wn needs tile-m a multiple of 16 wm "
              "and tile-n a multiple of 16 wn";
  int64_t threads = w * target.getWarpSize();
  if (threads > target.getMaxThreadsPerBlock())
    return mm.emitOpError("needs ")
           << threads << " threads per block; " << target.getChip()
           << " allows " << target.getMaxThreadsPerBlock();
  if (registerStaged) {
    // Each lane holds its fragments' accumulators: a lane has 256
    // architectural VGPRs on CDNA and RDNA3 alike, and the operands and
    // addresses need some of them.
    int64_t accRegs = (c.tileM / c.warpsM / 16) * (c.tileN / c.warpsN / 16) *
                      layout->accPerLane;
    if (accRegs > 192)
      return mm.emitOpError("tile ")
             << c.tileM << "x" << c.tileN << " over " << w << " waves needs "
             << accRegs << " accumulator registers in each lane; "
             << target.getChip()
             << " has 256 VGPRs a lane (at most 192 for accumulators): "
                "give more warps or a smaller tile";
  }
  int64_t smem = getGpuGemmSharedBytes(shape, c);
  if (smem > target.getMaxSharedMemoryPerBlock())
    return mm.emitOpError("tile ")
           << c.tileM << "x" << c.tileN << "x" << c.tileK << " with "
           << c.stages << " stages needs " << smem << " bytes of "
           << target.getSharedMemoryName() << "; " << target.getChip()
           << " has " << target.getMaxSharedMemoryPerBlock() << " per block";
  return c;
}

/// The block tile of the FMA kernel (f32 inputs): 128 x 128 by 256 threads
/// while that grid keeps every multiprocessor busy, else 64 x 64 by 64,
/// halved towards a smaller problem down to 32; 8 deep (cuBLAS's SGEMM
/// shape: 17 KiB of shared memory at 128 x 128, so that 3 workgroups share
/// an AMD CU's 64 KiB), 2 buffers. The threads follow the tile
/// (getGpuFmaMicroTile): a given tile fixes them.
static FailureOr<GpuGemmConfig> configureFma(MatmulOp mm, const GemmKernel &k,
                                             const GpuTargetInfo &target,
                                             const GpuConfigOverrides &o) {
  const GpuGemmShape &s = k.shape;
  GpuGemmConfig c;
  c.fma = true;
  c.stages = 2;
  bool large = ceilDiv(s.m, 128) * ceilDiv(s.n, 128) * s.batch >=
               target.getNumMultiprocessors();
  c.tileM = c.tileN = large ? 128 : 64;
  while (c.tileM > 32 && c.tileM / 2 >= s.m)
    c.tileM /= 2;
  while (c.tileN > 32 && c.tileN / 2 >= s.n)
    c.tileN /= 2;
  c.tileK = 8;
  if (o.tileM)
    c.tileM = o.tileM;
  if (o.tileN)
    c.tileN = o.tileN;
  if (o.tileK)
    c.tileK = o.tileK;
  for (int64_t t : {c.tileM, c.tileN})
    if (t != 32 && t != 64 && t != 128)
      return mm.emitOpError("tile ")
             << c.tileM << "x" << c.tileN
             << " does not fit the fma kernel: tile-m and tile-n must be 32, "
                "64 or 128 (each thread owns 4 x 4 of C when either is 32, "
                "else 8 x 8)";
  if (c.tileK % 4 != 0 || c.tileK > 64)
    return mm.emitOpError("tile-k = ")
           << c.tileK
           << " does not fit the fma kernel: a multiple of 4 up to 64 (the "
              "slices are loaded in vectors of up to 4 elements of K, and "
              "the loop over a slice is unrolled)";
  if (o.stages && o.stages != 2)
    return mm.emitOpError("stages = ")
           << o.stages
           << " does not apply to the fma kernel: it double-buffers shared "
              "memory (stages = 2), loading the next slice into registers "
              "while the threads multiply";
  const int64_t micro = getGpuFmaMicroTile(c.tileM, c.tileN);
  const int64_t threads = (c.tileM / micro) * (c.tileN / micro);
  c.warpsM = threads / target.getWarpSize();
  c.warpsN = 1;
  if ((o.warps && o.warps != c.warpsM) || o.warpsN > 1)
    return mm.emitOpError("warps do not apply to the fma kernel's tile ")
           << c.tileM << "x" << c.tileN << ": it runs " << threads
           << " threads (" << c.warpsM << " warps of "
           << target.getWarpSize()
           << "), one for each 4 x 4 or 8 x 8 of the tile; give [" << c.warpsM
           << ", 1] or none";
  int64_t smem = getGpuGemmSharedBytes(s, c);
  if (smem > target.getMaxSharedMemoryPerBlock())
    return mm.emitOpError("tile ")
           << c.tileM << "x" << c.tileN << "x" << c.tileK << " needs " << smem
           << " bytes of " << target.getSharedMemoryName() << "; "
           << target.getChip() << " has "
           << target.getMaxSharedMemoryPerBlock() << " per block";
  return c;
}

LogicalResult mlir::accel::configureGpuMatmul(MatmulOp mm, GemmKernel &k,
                                              const GpuTargetInfo &target,
                                              const GpuConfigOverrides &o) {
  // f32: the FMA kernel, the only one it has (mma=auto or fma).
  const bool automatic = o.mma.empty() || o.mma == "auto";
  if ((k.inType.isF32() && !k.tf32) || o.mma == "fma") {
    if (!k.inType.isF32())
      return mm.emitOpError("of ")
             << k.inType
             << " inputs cannot use the fma kernel (mma=fma), which "
                "multiplies f32 inputs; "
             << target.getChip() << " multiplies " << k.inType << " with "
             << target.getMmaFamilies().front();
    if (!automatic && o.mma != "fma")
      return mm.emitOpError("of f32 inputs cannot use ")
             << o.mma
             << ": f32 is multiplied exactly by the fma kernel (TF32 tensor "
                "cores take inputs rounded by accel-lower-precision "
                "compute=tf32, as does gfx942's xf32 MFMA); give mma=auto or "
                "fma";
    FailureOr<GpuGemmConfig> config = configureFma(mm, k, target, o);
    if (failed(config))
      return failure();
    k.config = *config;
    k.mma.m = k.mma.n = getGpuFmaMicroTile(k.config.tileM, k.config.tileN);
    k.mma.k = 1;
    if (failed(checkInstr(mm, o, {k.mma.m, k.mma.n, k.mma.k})))
      return failure();
    return checkGrid(mm, {ceilDiv(k.shape.n, k.config.tileN),
                          ceilDiv(k.shape.m, k.config.tileM), k.shape.batch},
                     target);
  }
  // wgmma where it applies (mma=auto, the default "") or is asked for
  // (mma=wgmma).
  std::string whyNot;
  std::optional<GpuGemmConfig> wgmmaConfig;
  if (o.mma.empty() || o.mma == "auto" || o.mma == "wgmma")
    wgmmaConfig = configureWgmma(k, target, o, whyNot);
  if (o.mma == "wgmma" && !wgmmaConfig)
    return mm.emitOpError("cannot use wgmma (mma=wgmma): ") << whyNot;
  if (wgmmaConfig) {
    k.config = *wgmmaConfig;
  } else {
    FailureOr<GpuGemmConfig> config = configureOwn(mm, k, target, o);
    if (failed(config))
      return failure();
    k.config = *config;
  }
  const GpuGemmConfig &c = k.config;
  SmallVector<int64_t, 3> instr =
      c.wgmma ? SmallVector<int64_t, 3>{64, c.tileN, 32 / k.shape.inBytes}
              : SmallVector<int64_t, 3>{k.mma.m, k.mma.n, k.mma.k};
  if (failed(checkInstr(mm, o, instr)))
    return failure();
  return checkGrid(mm, {ceilDiv(k.shape.n, c.tileN),
                        ceilDiv(k.shape.m, c.tileM), k.shape.batch},
                   target);
}

StringRef mlir::accel::getGpuMatmulKernelName(const GemmKernel &k,
                                              const GpuTargetInfo &target) {
  return k.config.fma              ? "fma"
         : k.config.wgmma          ? "wgmma"
         : k.config.registerStaged ? target.getMmaFamilies().front()
                                   : "mma.sync";
}

LoweringConfigAttr
mlir::accel::getGpuMatmulConfigAttr(MLIRContext *ctx, const GemmKernel &k,
                                    const GpuTargetInfo &target) {
  const GpuGemmConfig &c = k.config;
  SmallVector<int64_t> instr =
      c.wgmma ? SmallVector<int64_t>{64, c.tileN, 32 / k.shape.inBytes}
              : SmallVector<int64_t>{k.mma.m, k.mma.n, k.mma.k};
  return LoweringConfigAttr::get(
      ctx, getGpuMatmulKernelName(k, target), {c.tileM, c.tileN, c.tileK},
      {c.warpsM, c.warpsN}, instr, c.stages, "");
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

int64_t AttentionPlan::sharedBytes() const {
  if (fma)
    // One buffer of K [blockN][D + 4] and V [blockN][Dv + 4], f32.
    return blockN * (d + dv + 2 * kGpuFmaRowPad) * inBytes();
  const int64_t pad = getGpuSharedRowPad(inBytes());
  if (wgmma)
    // Q [D/64][blockM][128 B] and `stages` of K [D/64][blockN][128 B] and
    // V [Dv/64][blockN][128 B] in the 128-byte swizzle, plus the slack
    // that aligns them to the 1024-byte swizzle atom at run time.
    return (blockM * d + stages * blockN * (d + dv)) * inBytes() +
           kGpuWgmmaSwizzleAtom;
  if (registerStaged)
    // One buffer of K [blockN][D + pad] and of V transposed
    // [Dv][blockN + pad].
    return (blockN * (d + pad) + dv * (blockN + pad)) * inBytes();
  return (blockM * (d + pad) + stages * blockN * (d + pad + dv + pad)) *
         inBytes();
}

FailureOr<AttentionPlan>
mlir::accel::analyzeGpuAttention(AttentionOp op, const GpuTargetInfo &target) {
  auto qType = op.getQuery().getType(), kType = op.getKey().getType(),
       vType = op.getValue().getType(), oType = op.getInit().getType();
  if (!qType.hasStaticShape() || !kType.hasStaticShape() ||
      !vType.hasStaticShape() || !oType.hasStaticShape())
    return op.emitOpError("needs static shapes on the GPU target");
  if (op.getKvLengths() || op.getQLengths())
    return op.emitOpError("with kv_lengths or q_lengths has no GPU lowering "
                          "yet (the attention kernel takes fixed sequence "
                          "lengths only)");
  if (op.getWindow())
    return op.emitOpError("with a sliding window has no GPU lowering yet");
  AttentionPlan k;
  k.batch = qType.getDimSize(0);
  k.hq = qType.getDimSize(1);
  k.hkv = kType.getDimSize(1);
  k.sq = qType.getDimSize(2);
  k.d = qType.getDimSize(3);
  k.skv = kType.getDimSize(2);
  k.dv = vType.getDimSize(3);
  k.inType = qType.getElementType();
  k.outType = oType.getElementType();
  k.causal = op.getCausal();
  k.offset = k.skv - k.sq;
  if (Value mask = op.getMask()) {
    auto maskType = cast<RankedTensorType>(mask.getType());
    if (!maskType.hasStaticShape())
      return op.emitOpError("needs a statically shaped mask on the GPU "
                            "target");
    // The verifier admits i1 and f32/f16/bf16 masks that broadcast to
    // [B, Hq, Sq, Skv].
    k.maskType = maskType.getElementType();
    k.maskShape.assign(maskType.getShape().begin(), maskType.getShape().end());
  }
  if (Value diag = op.getDiagonal()) {
    std::optional<int64_t> c = getConstantIntValue(diag);
    if (!c)
      return op.emitOpError("needs a constant diagonal on the GPU target "
                            "(the band is compiled into the kernel)");
    k.offset = *c;
  }
  // The verifier keeps the scale finite; D is static here.
  k.scale = *op.getEffectiveScale();

  // f32 inputs that accel-lower-precision rounded to TF32 values (compute =
  // tf32) go to the matrix units where the chip has a TF32 instruction
  // (mma.sync m16n8k8 from sm_80, xf32 MFMA on gfx942), as a matmul's do;
  // the fma kernel multiplies the same values exactly elsewhere (gfx1100).
  std::string tf32Why;
  std::optional<GpuMmaInstr> tf32Instr;
  // Head dimensions past 128 (whose Q fragments and O accumulators would
  // not fit the registers) stay on the fma kernel, which takes up to 256.
  auto fitsMatrixKernel = [](int64_t v) {
    return v >= 16 && v <= 128 && v % 16 == 0;
  };
  if (k.inType.isF32() && op->hasAttr(kTf32InputsAttrName) &&
      fitsMatrixKernel(k.d) && fitsMatrixKernel(k.dv))
    tf32Instr = target.findMma(GpuMmaType::TF32, tf32Why);
  if (k.inType.isF32() && !tf32Instr) {
    // f32: the fma kernel, no matrix instruction. Each of a query's 4
    // lanes holds a quarter of D and of Dv in 16-byte runs (registers).
    k.fma = true;
    for (auto [name, v] :
         {std::pair<StringRef, int64_t>{"D", k.d}, {"Dv", k.dv}})
      if (v < 16 || v > 256 || v % 16 != 0)
        return op.emitOpError("head dimension ")
               << name << " = " << v
               << " has no GPU lowering: the f32 (fma) attention kernel "
                  "needs a multiple of 16 up to 256 (4 lanes a query, each "
                  "holding runs of 4 of Q and O in registers)";
    return k;
  }
  std::optional<GpuMmaType> mmaType =
      tf32Instr ? GpuMmaType::TF32 : getGpuMmaType(k.inType);
  std::string why;
  std::optional<GpuMmaInstr> instr = tf32Instr ? tf32Instr
                                     : mmaType ? target.findMma(*mmaType, why)
                                               : std::nullopt;
  if (!instr || (*mmaType != GpuMmaType::F16 && *mmaType != GpuMmaType::BF16 &&
                 *mmaType != GpuMmaType::TF32))
    return op.emitOpError("of ")
           << k.inType
           << " inputs has no GPU lowering: the attention kernels take f16 "
              "or bf16 Q, K and V (matrix instructions) or f32 (the fma "
              "kernel, or TF32 / xf32 matrix instructions for TF32 values)";
  k.mma = *instr;
  k.tf32 = tf32Instr.has_value();
  k.registerStaged = !target.hasAsyncCopy();
  k.lanes = target.getLaneLayout(k.mma);
  assert(k.registerStaged == k.lanes.has_value() &&
         "a register-staged kernel reads fragments in a lane layout");
  if (k.registerStaged) {
    // P goes from the S^T accumulators into the B operand of O^T += V^T
    // P^T: directly where the accumulator layout is the B layout (MFMA
    // 16x16x16: lane l holds rows 4 (l / 16) + e of column l % 16 in
    // both), through one xor-16 exchange where the two half-waves of a
    // wave32 hold the even and odd rows (WMMA: rows 2e + l / 16, and all
    // 16 rows in the B operand). The layouts of these chips are one or the
    // other (the checks state what emitLds relies on).
    const GpuLaneLayout &l = *k.lanes;
    [[maybe_unused]] bool direct =
        l.accRowStep == 1 && l.accLaneRowStep == l.kPerLane &&
        l.accPerLane == l.kPerLane && l.kPerLane * l.kGroups == 16;
    [[maybe_unused]] bool halves =
        l.accRowStep == 2 && l.accLaneRowStep == 1 && l.kGroups == 1 &&
        l.kPerLane == 16 && l.accPerLane == 8 && target.getWarpSize() == 32;
    // xf32 MFMA 16x16x8: a lane holds 2 K of an operand but 4 rows of the
    // accumulator, so its 4 keys feed two MFMAs (keys 4G + 2s, 4G + 2s + 1
    // as K 2G, 2G + 1 of step s; V^T's fragments read the same keys).
    [[maybe_unused]] bool pairs =
        l.accRowStep == 1 && l.accLaneRowStep == l.accPerLane &&
        l.accPerLane == 2 * l.kPerLane && l.kPerLane * l.kGroups == 8;
    assert((direct || halves || pairs) &&
           "an AMD lane layout emitLds cannot reuse");
  }
  for (auto [name, v] : {std::pair<StringRef, int64_t>{"D", k.d}, {"Dv", k.dv}})
    if (v < 16 || v > 128 || v % 16 != 0)
      return op.emitOpError("head dimension ")
             << name << " = " << v
             << " has no GPU lowering: the attention kernel needs a multiple "
                "of 16 (mma.sync k16, ldmatrix x4) up to 128 (the O "
                "accumulators and Q fragments live in registers)";
  return k;
}

LogicalResult mlir::accel::configureGpuAttention(AttentionOp op,
                                                 AttentionPlan &k,
                                                 const GpuTargetInfo &target,
                                                 const GpuConfigOverrides &o) {
  const int64_t stages = o.stages;
  const StringRef mma = o.mma;
  if (k.tf32 && mma == "fma") {
    // TF32 values multiply exactly on the fma kernel too (the user's
    // choice: no rounding of P).
    k.tf32 = false;
    k.fma = true;
    k.registerStaged = false;
    k.lanes.reset();
  }
  if (k.fma) {
    // f32: the fma kernel only; its blocks, warps and single buffer are
    // its own (a config may only repeat them).
    if (!mma.empty() && mma != "auto" && mma != "fma")
      return op.emitOpError("of f32 inputs cannot use ")
             << mma
             << ": f32 attention runs on the fma kernel unless its inputs are "
                "TF32 values (accel-lower-precision's compute = tf32, on a "
                "chip with TF32 / xf32 matrix instructions); give mma=auto "
                "or fma";
    k.blockM = kGpuFmaAttentionBlockM;
    k.blockN = kGpuFmaAttentionBlockN;
    k.stages = 1;
    k.fmaWarps =
        kGpuFmaAttentionBlockM * kGpuFmaAttentionLanes / target.getWarpSize();
    if (stages && stages != 1)
      return op.emitOpError("stages = ")
             << stages
             << " does not apply to the fma attention kernel: it keeps one "
                "buffer of K and V in shared memory";
    if ((o.blockM && o.blockM != k.blockM) ||
        (o.blockN && o.blockN != k.blockN))
      return op.emitOpError("has a lowering_config tile = [")
             << o.blockM << ", " << o.blockN
             << "]; the fma attention kernel works on blocks of " << k.blockM
             << " query rows and " << k.blockN << " keys";
    if (o.warps && o.warps != k.warps())
      return op.emitOpError("warps = ")
             << o.warps << " does not apply to the fma attention kernel: it "
             << "runs " << k.warps() << " warps (4 lanes a query row)";
    if (!o.instr.empty())
      return op.emitOpError("has a lowering_config mma; the fma attention "
                            "kernel uses no matrix instruction: give none");
    if (k.sharedBytes() > target.getMaxSharedMemoryPerBlock())
      return op.emitOpError("needs ")
             << k.sharedBytes() << " bytes of " << target.getSharedMemoryName()
             << " (K [32][" << k.d << " + 4] and V [32][" << k.dv
             << " + 4] in f32); " << target.getChip() << " has "
             << target.getMaxSharedMemoryPerBlock() << " per block";
    return checkGrid(op, k.grid(), target);
  }
  if (mma == "fma")
    return op.emitOpError("of ")
           << k.inType
           << " inputs cannot use the fma kernel (mma=fma), which takes f32 "
              "Q, K and V; "
           << target.getChip() << " runs " << k.inType << " attention on "
           << getGpuAttentionKernelName(k, target);
  k.stages = stages ? stages : 2;
  if (k.registerStaged) {
    if (stages && stages != 1)
      return op.emitOpError("stages = ")
             << stages << " does not apply to " << target.getChip()
             << ": its attention kernel keeps one LDS buffer of K and V and "
                "loads the next key block into registers";
    k.stages = 1;
  }
  // sm_90a: the warpgroup-MMA kernel where it applies (the default and
  // mma=auto; mma=wgmma asks for it, mma=mma.sync keeps the other one).
  if (!k.registerStaged && (mma.empty() || mma == "auto" || mma == "wgmma")) {
    std::string whyNot;
    if (!target.hasWarpgroupMma())
      whyNot = ("wgmma needs sm_90a (the arch-specific Hopper target); " +
                target.getChip() + " has mma.sync only")
                   .str();
    else if (k.tf32)
      whyNot = "TF32 attention runs on mma.sync m16n8k8 (there is no TF32 "
               "wgmma attention kernel)";
    else if (k.d % 64 != 0 || k.dv % 64 != 0)
      whyNot =
          ("head dimensions D = " + Twine(k.d) + " and Dv = " + Twine(k.dv) +
           " must be multiples of 64: the wgmma kernel reads Q, K and "
           "V in rows of 128 bytes (the 128-byte swizzle)")
              .str();
    if (whyNot.empty()) {
      k.wgmma = true;
      k.blockM = 128;
      k.blockN = 128;
    } else if (mma == "wgmma") {
      return op.emitOpError("cannot use wgmma (mma=wgmma): ") << whyNot;
    }
  }
  // TF32: f32 tiles take twice the shared memory of 16-bit ones, so the
  // key blocks are 64 keys where the ring fits and 32 where it does not
  // (D = 128 on sm_80 and sm_86, on gfx942's 64 KiB LDS); a config may
  // pick either.
  if (k.tf32) {
    if (o.blockN == 32 || o.blockN == 64)
      k.blockN = o.blockN;
    else if (!o.blockN && k.sharedBytes() > target.getMaxSharedMemoryPerBlock())
      k.blockN = 32;
    if ((o.blockM && o.blockM != k.blockM) ||
        (o.blockN && o.blockN != k.blockN))
      return op.emitOpError("has a lowering_config tile = [")
             << o.blockM << ", " << o.blockN << "]; the TF32 "
             << getGpuAttentionKernelName(k, target)
             << " attention kernel works on blocks of " << k.blockM
             << " query rows and 64 or 32 keys";
  }
  // The blocks and warps are the kernel's own; a config may only repeat
  // them.
  if ((o.blockM && o.blockM != k.blockM) || (o.blockN && o.blockN != k.blockN))
    return op.emitOpError("has a lowering_config tile = [")
           << o.blockM << ", " << o.blockN << "]; the "
           << getGpuAttentionKernelName(k, target) << " attention kernel works on blocks of " << k.blockM
           << " query rows and " << k.blockN << " keys";
  if (o.warps && o.warps != k.warps())
    return op.emitOpError("warps = ")
           << o.warps << " does not apply to the attention kernel: it runs "
           << k.warps() << " warps of 16 query rows each";
  // The wgmma kernel multiplies with two shapes (Q.K^T m64n<blockN>k16,
  // P.V m64n<Dv>k16): its config names none.
  if (k.wgmma && !o.instr.empty())
    return op.emitOpError("has a lowering_config mma; the wgmma attention "
                          "kernel multiplies with two instruction shapes "
                          "(m64nNk16 for Q.K^T and P.V): give none");
  if (!k.wgmma && failed(checkInstr(op, o, {k.mma.m, k.mma.n, k.mma.k})))
    return failure();
  if (!k.registerStaged && k.wgmma &&
      k.sharedBytes() > target.getMaxSharedMemoryPerBlock())
    return op.emitOpError("needs ")
           << k.sharedBytes() << " bytes of shared memory (Q [" << k.blockM
           << "][" << k.d << "] and " << k.stages << " stages of K ["
           << k.blockN << "][" << k.d << "] and V [" << k.blockN << "][" << k.dv
           << "], plus 1 KiB of alignment); " << target.getChip() << " has "
           << target.getMaxSharedMemoryPerBlock() << " per block";
  const int64_t pad = getGpuSharedRowPad(k.inBytes());
  if (!k.registerStaged && k.sharedBytes() > target.getMaxSharedMemoryPerBlock())
    return op.emitOpError("needs ")
           << k.sharedBytes() << " bytes of shared memory (Q [" << k.blockM
           << "][" << k.d << " + " << pad << "] and " << k.stages
           << " stages of K [" << k.blockN << "][" << k.d << " + " << pad
           << "] and V [" << k.blockN << "][" << k.dv << " + " << pad << "]); "
           << target.getChip() << " has " << target.getMaxSharedMemoryPerBlock()
           << " per block";
  if (k.registerStaged && k.sharedBytes() > target.getMaxSharedMemoryPerBlock())
    return op.emitOpError("needs ")
           << k.sharedBytes() << " bytes of LDS (K [" << k.blockN << "][" << k.d
           << " + " << pad << "] and V transposed [" << k.dv << "][" << k.blockN
           << " + " << pad << "]); " << target.getChip() << " has "
           << target.getMaxSharedMemoryPerBlock() << " per workgroup";
  if (!k.registerStaged && k.stages < 2)
    return op.emitOpError("needs at least 2 stages (one key block copied "
                          "while the warps work on another), got ")
           << k.stages;
  return checkGrid(op, k.grid(), target);
}

StringRef mlir::accel::getGpuAttentionKernelName(const AttentionPlan &k,
                                                const GpuTargetInfo &target) {
  return k.fma     ? StringRef("fma")
         : k.wgmma ? StringRef("wgmma")
         : k.registerStaged ? target.getMmaFamilies().front()
                   : StringRef("mma.sync");
}

LoweringConfigAttr
mlir::accel::getGpuAttentionConfigAttr(MLIRContext *ctx, const AttentionPlan &k,
                                       const GpuTargetInfo &target) {
  StringRef kernel = getGpuAttentionKernelName(k, target);
  SmallVector<int64_t> instr;
  if (!k.wgmma && !k.fma)
    instr = {k.mma.m, k.mma.n, k.mma.k};
  return LoweringConfigAttr::get(ctx, kernel, {k.blockM, k.blockN},
                                 {k.warps()}, instr, k.stages, "");
}
