//===- CostModel.cpp - target-driven tile sizes ---------------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The rules are those of docs/tiling.md; change both together. Each level is
// chosen by one search: tile sizes along each dimension are a granule (the
// register tile, the MMA shape, the array, or the next level in) times a
// power of two, or the whole dimension; among the tiles whose working set
// fits the level's budget (and whose threads and accumulators fit), the one
// with the most FLOPs per byte of working set wins. Levels are chosen from
// the inside out, so an outer tile is a multiple of the inner one.
//
// Hardware limits that #accel.target does not carry are ISA constants, kept
// here with their sources (docs/tiling.md): vector register counts, GPU
// registers per thread, threads per block, shared memory reserved per
// block, Blackwell's tensor memory.
//
//===----------------------------------------------------------------------===//

#include "accel/Target/CostModel.h"
#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <functional>

using namespace mlir;
using namespace mlir::accel;

using Tile = SmallVector<int64_t, 3>;

/// Tile sizes searched along a dimension of unknown size stop here.
static constexpr int64_t kUnknownExtent = 1 << 16;

//===----------------------------------------------------------------------===//
// What the target offers
//===----------------------------------------------------------------------===//

TilingScheme mlir::accel::getTilingScheme(TargetAttr target) {
  switch (target.getKind()) {
  case TargetKind::CPU:
    return TilingScheme::Cpu;
  case TargetKind::NVPTX:
  case TargetKind::AMDGPU:
    return TilingScheme::Gpu;
  case TargetKind::Systolic:
    return TilingScheme::Array;
  case TargetKind::Model:
    return TilingScheme::None;
  }
  return TilingScheme::None;
}

/// Entry `i` of the matrix unit, or 1 when the target gives none.
static int64_t matrixUnit(TargetAttr target, unsigned i) {
  ArrayRef<int64_t> mu = target.getMatrixUnit();
  return i < mu.size() && mu[i] > 0 ? mu[i] : 1;
}

/// Architectural vector registers: 32 with AVX-512 (zmm0-31) and on AArch64
/// (v0-v31), 16 otherwise (ymm0-15).
static int64_t cpuVectorRegisters(TargetAttr target) {
  if (target.hasFeature("avx512f") || target.hasFeature("neon") ||
      target.hasFeature("sve"))
    return 32;
  return 16;
}

/// Bits of one vector register: the catalogue's CPU matrix unit is
/// [1, f32 lanes, 1].
static int64_t cpuVectorBits(TargetAttr target) {
  ArrayRef<int64_t> mu = target.getMatrixUnit();
  int64_t lanes = mu.size() > 1 && mu[1] > 0 ? mu[1] : 4;
  return lanes * 32;
}

std::pair<int64_t, int64_t> mlir::accel::getCpuRegisterTile(TargetAttr target,
                                                            unsigned accBits) {
  int64_t regs = cpuVectorRegisters(target);
  int64_t lanes = std::max<int64_t>(1, cpuVectorBits(target) / accBits);
  // mr x nv accumulators, nv vectors of B and one broadcast of A live at
  // once; per k step that is mr * nv multiply-adds for mr + nv loads. nv is
  // a power of two (LLVM splits other vector widths badly).
  int64_t bestMr = 1, bestNv = 1;
  double best = -1;
  for (int64_t nv = 1; nv <= 8; nv *= 2) {
    for (int64_t mr = 1; mr * nv + nv + 1 <= regs; ++mr) {
      double reuse = double(mr * nv) / double(mr + nv);
      if (reuse > best + 1e-12 ||
          (std::abs(reuse - best) <= 1e-12 && mr * nv > bestMr * bestNv)) {
        best = reuse;
        bestMr = mr;
        bestNv = nv;
      }
    }
  }
  return {bestMr, bestNv * lanes};
}

int64_t mlir::accel::getGpuSharedMemoryPerBlock(TargetAttr target) {
  int64_t bytes = target.getLocalMemoryKib() * 1024;
  // NVIDIA reserves 1 KiB of each SM's shared memory per resident block
  // (CUDA C++ Programming Guide, compute capabilities 8.x-10.x).
  if (target.getKind() == TargetKind::NVPTX && bytes > 1024)
    bytes -= 1024;
  return bytes;
}

namespace {
/// The GPU figures the model reads, from the target and the ISA constants.
struct GpuLimits {
  /// Threads that hold one MMA's accumulators: a warp, or a warpgroup of
  /// four warps for wgmma and tcgen05.
  int64_t group;
  /// MMA shape [m, n, k] for 16-bit inputs, and the N step of instructions
  /// that take any N up to the shape's (wgmma, tcgen05: multiples of 8).
  int64_t mmaM, mmaN, mmaK, nStep;
  /// Registers one thread can have (255 NVIDIA, 512 VGPR + AGPR on CDNA,
  /// 256 on RDNA) and the model's budget for accumulators (128).
  int64_t maxRegisters, accRegisters = 128;
  /// Accumulators in Blackwell's tensor memory (128 lanes x 512 columns x 4
  /// B per SM) instead of registers.
  bool tensorMemory;
  /// Threads per block: the hardware limit and the model's budget.
  int64_t maxThreads = 1024, threadBudget = 256;
  int64_t sharedMemory;
  int64_t stages;
};
} // namespace

static GpuLimits gpuLimits(TargetAttr target, int64_t stagesOption) {
  GpuLimits g;
  int64_t warp = target.getWarpSize() > 0 ? target.getWarpSize() : 32;
  bool wgmma = target.hasFeature("wgmma"),
       tcgen05 = target.hasFeature("tcgen05");
  g.group = (wgmma || tcgen05) ? 4 * warp : warp;
  g.mmaM = matrixUnit(target, 0);
  g.mmaN = matrixUnit(target, 1);
  g.mmaK = matrixUnit(target, 2);
  g.nStep = (wgmma || tcgen05) ? std::min<int64_t>(8, g.mmaN) : g.mmaN;
  if (target.getKind() == TargetKind::NVPTX)
    g.maxRegisters = 255;
  else
    g.maxRegisters = warp == 64 ? 512 : 256;
  g.tensorMemory = tcgen05;
  g.sharedMemory = getGpuSharedMemoryPerBlock(target);
  // Asynchronous copies (cp.async, TMA) keep three stages in flight; without
  // them, loads go through registers into a double buffer.
  g.stages = stagesOption > 0 ? stagesOption
             : (target.hasFeature("cp.async") || target.hasFeature("tma")) ? 3
                                                                           : 2;
  return g;
}

//===----------------------------------------------------------------------===//
// Formatting
//===----------------------------------------------------------------------===//

static std::string dims(ArrayRef<int64_t> t) {
  return llvm::join(llvm::map_range(t,
                                    [](int64_t v) {
                                      return ShapedType::isDynamic(v)
                                                 ? std::string("?")
                                                 : std::to_string(v);
                                    }),
                    "x");
}

/// 1 MiB, 48 KiB, 232448 B.
static std::string size(int64_t bytes) {
  if (bytes >= (1 << 20) && bytes % (1 << 20) == 0)
    return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= 1024 && bytes % 1024 == 0)
    return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " B";
}

static std::string typeName(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

std::string TilePlan::shapes() const {
  return llvm::join(llvm::map_range(levels,
                                    [](const TileLevel &l) {
                                      return l.name + " " + dims(l.shape);
                                    }),
                    ", ");
}

std::string TilePlan::describe() const {
  return llvm::join(llvm::map_range(levels,
                                    [](const TileLevel &l) {
                                      return l.name + " " + dims(l.shape) +
                                             " (" + l.why + ")";
                                    }),
                    "; ");
}

//===----------------------------------------------------------------------===//
// The search
//===----------------------------------------------------------------------===//

namespace {
/// One dimension of a level's tile.
struct DimSpec {
  /// Tiles are multiples of this.
  int64_t granule = 1;
  /// The largest meaningful tile: the dimension, or the enclosing tile.
  int64_t limit = kUnknownExtent;
  /// Whether `limit` is a real size (a tile of it keeps the dimension
  /// whole) rather than the search's cap for an unknown one.
  bool known = false;
  /// A size the level does not choose (0: chosen).
  int64_t fixed = 0;
  /// When positive, tiles must divide it.
  int64_t divisorOf = 0;
};

/// A level as the search sees it.
struct LevelSpec {
  std::string name;
  SmallVector<DimSpec, 3> dims;
  /// Bytes of the working set in the level's memory.
  std::function<int64_t(ArrayRef<int64_t>)> footprint;
  int64_t budget = 0, capacity = 0;
  /// The memory `capacity` is of ("shared memory"), and who has it ("h100
  /// has 232448 B per block"), for diagnostics.
  std::string memory, capacityText;
  /// What the tile is made of ("f32", "f16, 3 stages"), for diagnostics.
  std::string detail;
  /// Leading dimensions diagnostics show (0: all).
  unsigned shownDims = 0;
  /// Further limits (threads, accumulators, a second SRAM): an empty string
  /// when `t` meets them, else what it exceeds. `hard` checks the hardware
  /// limits instead of the model's budgets.
  std::function<std::string(ArrayRef<int64_t>, bool hard)> limits;
  /// Greater is better, compared in order.
  std::function<SmallVector<double, 4>(ArrayRef<int64_t>)> score;
  /// The numbers behind `t`, for people.
  std::function<std::string(ArrayRef<int64_t>)> explain;
};
} // namespace

/// Sizes tried along one dimension: granule x 2^i below the limit, then the
/// limit itself when it is a real size.
static SmallVector<int64_t> candidates(const DimSpec &d) {
  if (d.fixed > 0)
    return {std::min(d.fixed, d.limit)};
  SmallVector<int64_t> c;
  int64_t g = std::max<int64_t>(1, d.granule);
  for (int64_t t = g; t < d.limit; t *= 2)
    c.push_back(t);
  if (d.known || c.empty())
    c.push_back(std::max<int64_t>(1, d.limit));
  if (d.divisorOf > 0)
    llvm::erase_if(c, [&](int64_t t) { return d.divisorOf % t != 0; });
  if (c.empty())
    c.push_back(1);
  return c;
}

static bool fitsBudget(const LevelSpec &spec, ArrayRef<int64_t> t) {
  if (spec.budget > 0 && spec.footprint(t) > spec.budget)
    return false;
  return !spec.limits || spec.limits(t, /*hard=*/false).empty();
}

/// The best tile of `spec`; `*fits` says whether any met the budgets (if
/// none, the smallest tile is returned).
static Tile search(const LevelSpec &spec, bool *fits) {
  SmallVector<SmallVector<int64_t>> cands;
  for (const DimSpec &d : spec.dims)
    cands.push_back(candidates(d));
  Tile best, cur(spec.dims.size());
  SmallVector<double, 4> bestScore;
  std::function<void(unsigned)> rec = [&](unsigned i) {
    if (i == cands.size()) {
      if (!fitsBudget(spec, cur))
        return;
      SmallVector<double, 4> s = spec.score(cur);
      if (best.empty() ||
          std::lexicographical_compare(
              bestScore.begin(), bestScore.end(), s.begin(), s.end(),
              [](double a, double b) { return a < b - 1e-9 * std::abs(b); })) {
        best = cur;
        bestScore = s;
      }
      return;
    }
    for (int64_t c : cands[i]) {
      cur[i] = c;
      rec(i + 1);
    }
  };
  rec(0);
  *fits = !best.empty();
  if (best.empty())
    for (auto &c : cands)
      best.push_back(c.front());
  return best;
}

/// The level: `given` (0 keeps a dimension whole; clamped to the limits) or
/// the search's choice. Appends what exceeds a limit to `problem`.
static TileLevel chooseLevel(const LevelSpec &spec, ArrayRef<int64_t> given,
                             std::string &problem, bool &fatal,
                             bool hardIsFatal, StringRef what) {
  Tile t;
  bool searched = given.empty();
  bool fits = true;
  std::string clampNote;
  if (searched) {
    t = search(spec, &fits);
  } else {
    for (auto [g, d] : llvm::zip_equal(given, spec.dims)) {
      int64_t v = g;
      if (v == 0 || (d.known && v > d.limit)) {
        if (v != 0)
          clampNote += (clampNote.empty() ? "" : ", ") + std::to_string(v) +
                       " clamped to " + std::to_string(d.limit);
        v = d.known ? d.limit : ShapedType::kDynamic;
      }
      t.push_back(v);
    }
  }
  TileLevel level;
  level.name = spec.name;
  level.shape.assign(t.begin(), t.end());
  bool unknown = llvm::any_of(t, ShapedType::isDynamic);
  Tile est(t);
  for (int64_t &v : est)
    if (ShapedType::isDynamic(v))
      v = kUnknownExtent;
  level.footprint = spec.footprint(est);
  level.budget = spec.budget;
  level.capacity = spec.capacity;
  level.why = (searched ? "" : "given; ") + spec.explain(est);
  if (!clampNote.empty())
    level.why += "; " + clampNote;
  if (unknown)
    return level;
  // Hard limits: the hardware's, not the model's fractions.
  std::string over;
  if (spec.capacity > 0 && level.footprint > spec.capacity)
    over = "needs " + std::to_string(level.footprint) + " B of " + spec.memory +
           "; " + spec.capacityText;
  if (spec.limits) {
    std::string extra = spec.limits(est, /*hard=*/true);
    if (!extra.empty())
      over += (over.empty() ? "" : "; ") + extra;
  }
  // A limit that cannot be exceeded is a problem whoever chose the tile; a
  // cache that spills only when the user chose it (the model's choice was
  // the smallest tile there is).
  if (!over.empty() && (hardIsFatal || !searched)) {
    ArrayRef<int64_t> shown(t);
    if (spec.shownDims > 0)
      shown = shown.take_front(spec.shownDims);
    problem += (problem.empty() ? "" : "; ") + what.str() + " " + spec.name +
               " tile " + dims(shown) +
               (spec.detail.empty() ? "" : " (" + spec.detail + ")") + " " +
               over;
    fatal |= hardIsFatal;
  } else if (searched && !fits) {
    level.why += "; no tile fits the budget: the smallest one";
  }
  return level;
}

//===----------------------------------------------------------------------===//
// Ops in the model's terms
//===----------------------------------------------------------------------===//

static unsigned bitsOf(Type t) {
  return std::max(8u, getElementTypeOrSelf(t).getIntOrFloatBitWidth());
}
static int64_t bytes(int64_t elements, unsigned bits) {
  return elements * int64_t(bits) / 8;
}
static DimSpec dimOf(int64_t extent, int64_t granule) {
  DimSpec d;
  d.granule = granule;
  if (!ShapedType::isDynamic(extent)) {
    d.limit = extent;
    d.known = true;
  }
  return d;
}
/// `d` inside an enclosing tile of size `outer` (kDynamic: whole unknown).
static DimSpec within(DimSpec d, int64_t outer) {
  if (!ShapedType::isDynamic(outer) && outer < d.limit) {
    d.limit = outer;
    d.known = true;
  }
  return d;
}
/// A tile of `t` along a dimension of `extent` as a loop tile size: 0 when
/// it keeps the dimension (or the enclosing tile `outer`) whole.
static int64_t loopSize(int64_t t, int64_t extent, int64_t outer) {
  if (ShapedType::isDynamic(t))
    return 0;
  if (!ShapedType::isDynamic(extent) && t >= extent)
    return 0;
  if (outer > 0 && !ShapedType::isDynamic(outer) && t >= outer)
    return 0;
  return t;
}
/// `t` or the enclosing size when the level keeps it whole.
static int64_t effective(int64_t t, int64_t enclosing) {
  return ShapedType::isDynamic(t) ? enclosing : t;
}

static std::string flopPerByte(double flops, int64_t bytes) {
  return llvm::formatv("{0:f1} FLOP/B", bytes > 0 ? flops / double(bytes) : 0)
      .str();
}

/// A level in a memory of `capacity` bytes that `target` has (a cache, a
/// scratchpad; `memory` names it), of which the model budgets half.
static LevelSpec memoryLevel(StringRef name, ArrayRef<DimSpec> dims,
                             int64_t capacity, StringRef memory,
                             TargetAttr target) {
  LevelSpec spec;
  spec.name = name.str();
  spec.dims.assign(dims.begin(), dims.end());
  spec.capacity = capacity;
  spec.budget = capacity / 2;
  spec.memory = memory.str();
  spec.capacityText =
      llvm::formatv("{0} has {1} B", target.getName(), capacity).str();
  return spec;
}

/// The scratchpad level of a systolic array target, whose `acc` bytes of
/// accumulator SRAM hold `accBytes(t)` of a tile `t` (the model budgets
/// half of it too).
static LevelSpec sramLevel(ArrayRef<DimSpec> dims, int64_t sp, int64_t acc,
                           TargetAttr target,
                           std::function<int64_t(ArrayRef<int64_t>)> accBytes) {
  LevelSpec spec = memoryLevel("sram", dims, sp, "scratchpad", target);
  spec.limits = [acc, accBytes](ArrayRef<int64_t> t, bool hard) {
    int64_t limit = hard ? acc : acc / 2, need = accBytes(t);
    if (acc == 0 || need <= limit)
      return std::string();
    return llvm::formatv("needs {0} B of accumulator SRAM, which {1} {2} B",
                         need, hard ? "has" : "budgets", limit)
        .str();
  };
  return spec;
}

/// One pass of a systolic array: dimensions of the array's `pass` sizes
/// (0: not fixed), described by `what`.
static LevelSpec arrayPass(ArrayRef<DimSpec> dims, ArrayRef<int64_t> pass,
                           std::function<int64_t(ArrayRef<int64_t>)> footprint,
                           std::string what) {
  LevelSpec spec;
  spec.name = "array";
  spec.dims.assign(dims.begin(), dims.end());
  for (unsigned d = 0; d < pass.size(); ++d)
    if (pass[d] > 0)
      spec.dims[d].fixed = pass[d];
  spec.footprint = std::move(footprint);
  spec.score = [](ArrayRef<int64_t>) { return SmallVector<double, 4>{}; };
  spec.explain = [what](ArrayRef<int64_t>) { return what; };
  return spec;
}

/// Blackwell's tensor memory per SM (128 lanes x 512 columns x 4 B).
static constexpr int64_t kTensorMemoryBytes = 128 * 512 * 4;

/// Keeps a warp level's accumulators in tensor memory, half of it per tile.
static void useTensorMemory(LevelSpec &spec, TargetAttr target) {
  spec.capacity = kTensorMemoryBytes;
  spec.budget = kTensorMemoryBytes / 2;
  spec.memory = "tensor memory";
  spec.capacityText = llvm::formatv("an SM of {0} has {1} B", target.getName(),
                                    kTensorMemoryBytes)
                          .str();
}

/// Empty when `regs` accumulator registers per thread fit in `g`'s, else
/// what they exceed.
static std::string registerExcess(int64_t regs, const GpuLimits &g) {
  if (regs <= g.maxRegisters)
    return std::string();
  return llvm::formatv("needs {0} accumulator registers per thread; a "
                       "thread has at most {1}",
                       regs, g.maxRegisters)
      .str();
}

/// The thread block level of a GPU target: `g.stages` stages of `type`
/// tiles in shared memory, and `threads(t)` threads, at most `g`'s.
static LevelSpec blockLevel(ArrayRef<DimSpec> dims, const GpuLimits &g,
                            Type type, TargetAttr target,
                            std::function<int64_t(ArrayRef<int64_t>)> threads) {
  LevelSpec spec;
  spec.name = "block";
  spec.dims.assign(dims.begin(), dims.end());
  spec.capacity = spec.budget = g.sharedMemory;
  spec.memory = "shared memory";
  spec.capacityText =
      llvm::formatv("{0} has {1} B per block", target.getName(), g.sharedMemory)
          .str();
  spec.detail =
      llvm::formatv("{0}, {1} stages", typeName(type), g.stages).str();
  spec.limits = [&g, threads](ArrayRef<int64_t> t, bool hard) {
    int64_t n = threads(t), limit = hard ? g.maxThreads : g.threadBudget;
    if (n <= limit)
      return std::string();
    return llvm::formatv("needs {0} threads per block (limit {1})", n, limit)
        .str();
  };
  return spec;
}

namespace {
/// What the plans of all three ops share.
struct Context {
  TargetAttr target;
  TilingScheme scheme;
  const TileRequest &request;
  TilePlan plan;
  std::string kindName;

  ArrayRef<int64_t> given(bool outer) const {
    return outer ? ArrayRef<int64_t>(request.outer)
                 : ArrayRef<int64_t>(request.inner);
  }
  TileLevel level(const LevelSpec &spec, bool outer) {
    // Caches spill; shared memory, SRAMs, registers and threads do not.
    bool hard = scheme != TilingScheme::Cpu;
    return chooseLevel(spec, given(outer), plan.problem, plan.fatal, hard,
                       kindName);
  }
};
} // namespace

/// Levels are chosen from the inside out, except when the user gave the
/// outer tile and not the inner one: the inner one is then chosen inside it.
static bool outerFirst(const TileRequest &r) {
  return !r.outer.empty() && r.inner.empty();
}

/// The outer tile the user gave, each size 0 (whole) or past a known
/// extent `ext` replaced by the extent.
static Tile givenOuter(const TileRequest &r, ArrayRef<int64_t> ext) {
  Tile given(r.outer.begin(), r.outer.end());
  for (unsigned d = 0; d < ext.size(); ++d)
    if (given[d] == 0 || (!ShapedType::isDynamic(ext[d]) && given[d] > ext[d]))
      given[d] = ext[d];
  return given;
}

/// The [sram, array] levels of a systolic array target: one pass of the
/// `array` inside a scratchpad tile. `sram(inner)` is the scratchpad level
/// around an array tile `inner`, or on its own when `inner` is empty. A
/// target that gives no scratchpad size (e.g. tpu-v5p) gets array-aligned
/// tiles only, the scratchpad level keeping `whole`.
static std::pair<TileLevel, TileLevel>
arrayLevels(Context &ctx, int64_t sp, const LevelSpec &array,
            function_ref<LevelSpec(ArrayRef<int64_t> inner)> sram,
            ArrayRef<int64_t> whole) {
  TileLevel o, i;
  if (sp == 0) {
    i = ctx.level(array, false);
    o = i;
    o.name = "sram";
    o.shape.assign(whole.begin(), whole.end());
    o.why = "the target gives no scratchpad size: not tiled";
    o.capacity = o.budget = o.footprint = 0;
    if (!ctx.request.outer.empty())
      o = ctx.level(sram({}), true);
  } else if (outerFirst(ctx.request)) {
    o = ctx.level(sram({}), true);
    LevelSpec a = array;
    for (unsigned d = 0; d < 3; ++d)
      a.dims[d] = within(a.dims[d], o.shape[d]);
    i = ctx.level(a, false);
  } else {
    i = ctx.level(array, false);
    o = ctx.level(sram(i.shape), true);
  }
  return {o, i};
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

namespace {
struct MatmulShape {
  SmallVector<int64_t> batch;
  int64_t m, n, k;
  unsigned aBits, bBits, cBits;
  /// Element types of A and C.
  Type aType, cType;
};
} // namespace

static MatmulShape matmulShape(MatmulOp op) {
  MatmulShape s;
  ArrayRef<int64_t> c = op.getInit().getType().getShape();
  s.batch.assign(c.begin(), c.end() - 2);
  s.m = c[c.size() - 2];
  s.n = c.back();
  s.k = op.getLhs().getType().getShape().back();
  s.aBits = bitsOf(op.getLhs().getType());
  s.bBits = bitsOf(op.getRhs().getType());
  s.cBits = bitsOf(op.getInit().getType());
  s.aType = op.getLhs().getType().getElementType();
  s.cType = op.getInit().getType().getElementType();
  return s;
}

/// A + B + C of a [tm, tn, tk] tile.
static int64_t matmulBytes(const MatmulShape &s, ArrayRef<int64_t> t) {
  return bytes(t[0] * t[2], s.aBits) + bytes(t[2] * t[1], s.bBits) +
         bytes(t[0] * t[1], s.cBits);
}
static double matmulIntensity(const MatmulShape &s, ArrayRef<int64_t> t) {
  int64_t b = matmulBytes(s, t);
  return b > 0 ? 2.0 * double(t[0]) * double(t[1]) * double(t[2]) / double(b)
               : 0;
}
/// Reuse of the A and B data loaded per multiply-add of a tm x tn tile of C
/// kept over K: multiply-adds per byte of A and B.
static double matmulReuse(const MatmulShape &s, int64_t tm, int64_t tn) {
  double denom = double(tm) * s.aBits / 8 + double(tn) * s.bBits / 8;
  return denom > 0 ? double(tm) * double(tn) / denom : 0;
}

static std::string abcText(const MatmulShape &s, ArrayRef<int64_t> t) {
  return llvm::formatv("A {0}x{1} + B {1}x{2} {3} + C {0}x{2} {4} = {5} B",
                       t[0], t[2], t[1], typeName(s.aType), typeName(s.cType),
                       matmulBytes(s, t))
      .str();
}

/// Loop tile sizes over [batch..., M, N, K] for a level of shape `t` inside
/// `outer` (empty: the outermost level).
static SmallVector<int64_t> matmulLoopSizes(const MatmulShape &s,
                                            ArrayRef<int64_t> t,
                                            ArrayRef<int64_t> outer) {
  SmallVector<int64_t> sizes;
  for (int64_t b : s.batch)
    sizes.push_back(outer.empty() && b != 1 ? 1 : 0);
  int64_t ext[3] = {s.m, s.n, s.k};
  for (unsigned i = 0; i < 3; ++i)
    sizes.push_back(loopSize(t[i], ext[i], outer.empty() ? 0 : outer[i]));
  return sizes;
}

static void planMatmul(Context &ctx, MatmulOp op) {
  MatmulShape s = matmulShape(op);
  TargetAttr target = ctx.target;
  TilePlan &plan = ctx.plan;
  int64_t kGranule = 1;
  LevelSpec inner, outer;
  Tile innerT, outerT;
  auto kDim = [&](int64_t granule) { return dimOf(s.k, granule); };

  switch (ctx.scheme) {
  case TilingScheme::Cpu: {
    auto [mr, nr] = getCpuRegisterTile(target, s.cBits);
    int64_t regs = cpuVectorRegisters(target);
    int64_t lanes = std::max<int64_t>(1, cpuVectorBits(target) / s.cBits);
    int64_t l1 = target.getLocalMemoryKib() * 1024,
            l2 = target.getL2Kib() * 1024;
    auto makeSpec = [&](StringRef name, int64_t cap, StringRef cacheName,
                        DimSpec m, DimSpec n, DimSpec k, std::string why) {
      LevelSpec spec = memoryLevel(name, {m, n, k}, cap, cacheName, target);
      spec.detail = typeName(s.aType);
      spec.footprint = [&s](ArrayRef<int64_t> t) { return matmulBytes(s, t); };
      spec.score = [&s](ArrayRef<int64_t> t) {
        return SmallVector<double, 4>{matmulIntensity(s, t),
                                      double(matmulBytes(s, t)), double(t[1])};
      };
      spec.explain = [&s, cap, cacheName = cacheName.str(),
                      why](ArrayRef<int64_t> t) {
        std::string text = abcText(s, t);
        if (cap > 0)
          text += llvm::formatv(" of {0} B (1/2 of the {1} {2})", cap / 2,
                                size(cap), cacheName)
                      .str();
        return text + ", " +
               flopPerByte(2.0 * t[0] * t[1] * t[2], matmulBytes(s, t)) + why;
      };
      return spec;
    };
    std::string regWhy = llvm::formatv(
        "; M, N multiples of the {0}x{1} register tile ({0} rows x {2} "
        "vectors of {3} lanes: {4} accumulators + {2} + 1 of {5} registers)",
        mr, nr, nr / lanes, lanes, mr * (nr / lanes), regs);
    auto innerSpec = [&](DimSpec m, DimSpec n, DimSpec k) {
      return makeSpec("l1", l1, "L1D", m, n, k, regWhy);
    };
    auto outerSpec = [&](DimSpec m, DimSpec n, DimSpec k) {
      return makeSpec("l2", l2, "L2", m, n, k, "; multiples of the l1 tile");
    };
    if (outerFirst(ctx.request)) {
      outer = outerSpec(dimOf(s.m, mr), dimOf(s.n, nr), kDim(kGranule));
      TileLevel o = ctx.level(outer, true);
      outerT.assign(o.shape.begin(), o.shape.end());
      inner = innerSpec(within(dimOf(s.m, mr), outerT[0]),
                        within(dimOf(s.n, nr), outerT[1]),
                        within(kDim(kGranule), outerT[2]));
      TileLevel i = ctx.level(inner, false);
      plan.levels = {o, i};
    } else {
      inner = innerSpec(dimOf(s.m, mr), dimOf(s.n, nr), kDim(kGranule));
      TileLevel i = ctx.level(inner, false);
      innerT.assign(i.shape.begin(), i.shape.end());
      outer = outerSpec(dimOf(s.m, effective(innerT[0], s.m)),
                        dimOf(s.n, effective(innerT[1], s.n)),
                        kDim(effective(innerT[2], s.k)));
      TileLevel o = ctx.level(outer, true);
      plan.levels = {o, i};
    }
    if (l2 == 0)
      plan.levels[0].why += "; the target gives no L2 size: not limited";
    if (l1 == 0)
      plan.levels[1].why += "; the target gives no L1D size: not limited";
    break;
  }
  case TilingScheme::Gpu: {
    GpuLimits g = gpuLimits(target, ctx.request.stages);
    int64_t mmaK =
        std::max<int64_t>(1, g.mmaK * 16 / int64_t(std::max(s.aBits, s.bBits)));
    StringRef innerName = g.group > target.getWarpSize() ? "warpgroup" : "warp";
    // Accumulators of a warp tile: in registers spread over the group's
    // threads, or in tensor memory (double-buffered).
    int64_t tmemBytes = kTensorMemoryBytes;
    auto accPerThread = [&](ArrayRef<int64_t> t) {
      return llvm::divideCeil(bytes(t[0] * t[1], s.cBits), 4 * g.group);
    };
    LevelSpec warp;
    warp.name = innerName.str();
    warp.detail = typeName(s.cType) + " accumulators";
    if (g.tensorMemory) {
      useTensorMemory(warp, target);
    } else {
      warp.budget = g.accRegisters * 4 * g.group;
      warp.limits = [&g, accPerThread](ArrayRef<int64_t> t, bool hard) {
        return hard ? registerExcess(accPerThread(t), g) : std::string();
      };
    }
    warp.footprint = [&s](ArrayRef<int64_t> t) {
      return bytes(t[0] * t[1], s.cBits);
    };
    warp.score = [&s](ArrayRef<int64_t> t) {
      return SmallVector<double, 4>{matmulReuse(s, t[0], t[1]),
                                    double(t[0] * t[1]), double(t[1])};
    };
    warp.explain = [&](ArrayRef<int64_t> t) {
      std::string acc =
          g.tensorMemory
              ? llvm::formatv("C {0}x{1} {2} = {3} B of tensor memory ({4} B "
                              "budget: two accumulator buffers of {5} B)",
                              t[0], t[1], typeName(s.cType),
                              bytes(t[0] * t[1], s.cBits), tmemBytes / 2,
                              tmemBytes)
                    .str()
              : llvm::formatv("C {0}x{1} {2} = {3} accumulator registers per "
                              "thread over {4} threads (budget {5} of {6})",
                              t[0], t[1], typeName(s.cType), accPerThread(t),
                              g.group, g.accRegisters, g.maxRegisters)
                    .str();
      if (g.nStep != g.mmaN)
        return acc + llvm::formatv("; M a multiple of {0}, N of {1} (the "
                                   "{0}xNx{2} MMA, N up to {3}), K in steps "
                                   "of {2}",
                                   g.mmaM, g.nStep, mmaK, g.mmaN)
                         .str();
      return acc + llvm::formatv("; multiples of the {0}x{1}x{2} MMA, K in "
                                 "steps of {2}",
                                 g.mmaM, g.mmaN, mmaK)
                       .str();
    };
    auto warpSpec = [&](DimSpec m, DimSpec n) {
      LevelSpec spec = warp;
      DimSpec k = dimOf(s.k, 1);
      k.fixed = k.limit; // the block's K slab, in MMA steps
      spec.dims = {m, n, k};
      spec.shownDims = 2;
      // The model's warp tile must leave room for a block around it: one
      // K step of A and B per stage in shared memory.
      auto regs = warp.limits;
      spec.limits = [regs, &s, &g, mmaK](ArrayRef<int64_t> t, bool hard) {
        if (!hard && g.stages * (bytes(t[0] * mmaK, s.aBits) +
                                 bytes(mmaK * t[1], s.bBits)) >
                         g.sharedMemory)
          return std::string("its smallest block exceeds shared memory");
        return regs ? regs(t, hard) : std::string();
      };
      return spec;
    };
    auto blockSpec = [&](DimSpec m, DimSpec n, DimSpec k, Tile warpT) {
      auto threads = [&g, warpT](ArrayRef<int64_t> t) {
        int64_t wm = effective(warpT[0], t[0]), wn = effective(warpT[1], t[1]);
        return llvm::divideCeil(t[0], std::max<int64_t>(1, wm)) *
               llvm::divideCeil(t[1], std::max<int64_t>(1, wn)) * g.group;
      };
      LevelSpec spec = blockLevel({m, n, k}, g, s.aType, target, threads);
      spec.footprint = [&s, &g](ArrayRef<int64_t> t) {
        return g.stages *
               (bytes(t[0] * t[2], s.aBits) + bytes(t[2] * t[1], s.bBits));
      };
      spec.score = [&s](ArrayRef<int64_t> t) {
        return SmallVector<double, 4>{matmulReuse(s, t[0], t[1]), double(t[2]),
                                      double(t[1])};
      };
      spec.explain = [&s, &g, threads, target](ArrayRef<int64_t> t) {
        return llvm::formatv(
                   "{0} stages x (A {1}x{2} + B {2}x{3}) {4} = {5} B of {6} B "
                   "shared memory per block on {7}; {8} threads; {9} from "
                   "memory",
                   g.stages, t[0], t[2], t[1], typeName(s.aType),
                   g.stages * (bytes(t[0] * t[2], s.aBits) +
                               bytes(t[2] * t[1], s.bBits)),
                   g.sharedMemory, target.getName(), threads(t),
                   flopPerByte(2.0 * t[0] * t[1] * t[2],
                               bytes(t[0] * t[2], s.aBits) +
                                   bytes(t[2] * t[1], s.bBits)))
            .str();
      };
      return spec;
    };
    TileLevel o, i;
    if (outerFirst(ctx.request)) {
      // The warp tile is needed to count the block's threads: choose it
      // inside the given block.
      Tile given = givenOuter(ctx.request, {s.m, s.n, s.k});
      inner = warpSpec(within(dimOf(s.m, g.mmaM), given[0]),
                       within(dimOf(s.n, g.nStep), given[1]));
      i = ctx.level(inner, false);
      innerT.assign(i.shape.begin(), i.shape.end());
      outer = blockSpec(dimOf(s.m, g.mmaM), dimOf(s.n, g.nStep), kDim(mmaK),
                        innerT);
      o = ctx.level(outer, true);
    } else {
      inner = warpSpec(dimOf(s.m, g.mmaM), dimOf(s.n, g.nStep));
      i = ctx.level(inner, false);
      innerT.assign(i.shape.begin(), i.shape.end());
      outer =
          blockSpec(dimOf(s.m, effective(innerT[0], s.m)),
                    dimOf(s.n, effective(innerT[1], s.n)), kDim(mmaK), innerT);
      o = ctx.level(outer, true);
    }
    // A warp works through the block's K slab in MMA steps.
    i.shape[2] = o.shape[2];
    plan.levels = {o, i};
    break;
  }
  case TilingScheme::Array: {
    int64_t rows = matrixUnit(target, 0), cols = matrixUnit(target, 1);
    int64_t sp = target.getLocalMemoryKib() * 1024,
            acc = target.getL2Kib() * 1024;
    auto spBytes = [&s](ArrayRef<int64_t> t) {
      return bytes(t[0] * t[2], s.aBits) + bytes(t[2] * t[1], s.bBits);
    };
    auto accBytes = [&s](ArrayRef<int64_t> t) {
      return bytes(t[0] * t[1], s.cBits);
    };
    LevelSpec array = arrayPass(
        {dimOf(s.m, rows), dimOf(s.n, cols), kDim(rows)}, {rows, cols, rows},
        spBytes,
        llvm::formatv("one pass of the {0}x{1} array: K {0} rows into "
                      "{1} columns",
                      rows, cols));
    auto sramSpec = [&](ArrayRef<int64_t> inner) {
      // Multiples of the array pass, or of the array tile inside.
      Tile m = inner.empty()
                   ? Tile{rows, cols, rows}
                   : Tile{effective(inner[0], s.m), effective(inner[1], s.n),
                          effective(inner[2], s.k)};
      LevelSpec spec =
          sramLevel({dimOf(s.m, m[0]), dimOf(s.n, m[1]), kDim(m[2])}, sp, acc,
                    target, accBytes);
      spec.detail = typeName(s.aType);
      spec.footprint = spBytes;
      spec.score = [&s](ArrayRef<int64_t> t) {
        return SmallVector<double, 4>{matmulIntensity(s, t),
                                      double(matmulBytes(s, t)), double(t[1])};
      };
      spec.explain = [&s, sp, acc, spBytes, accBytes, rows,
                      cols](ArrayRef<int64_t> t) {
        return llvm::formatv(
                   "A {0}x{1} + B {1}x{2} {3} = {4} B of {5} B (1/2 of the "
                   "{6} scratchpad), C {0}x{2} {7} = {8} B of {9} B (1/2 of "
                   "the {10} accumulator); multiples of the {11}x{12} array; "
                   "{13}",
                   t[0], t[2], t[1], typeName(s.aType), spBytes(t), sp / 2,
                   size(sp), typeName(s.cType), accBytes(t), acc / 2, size(acc),
                   rows, cols,
                   flopPerByte(2.0 * t[0] * t[1] * t[2], matmulBytes(s, t)))
            .str();
      };
      return spec;
    };
    auto [o, i] = arrayLevels(ctx, sp, array, sramSpec, {s.m, s.n, s.k});
    plan.levels = {o, i};
    break;
  }
  case TilingScheme::None:
    llvm_unreachable("model targets have no rules");
  }
  // Loop sizes, and what the levels say about K.
  TileLevel &o = plan.levels[0], &i = plan.levels[1];
  o.sizes = matmulLoopSizes(s, o.shape, {});
  Tile outerEff;
  int64_t ext[3] = {s.m, s.n, s.k};
  for (unsigned d = 0; d < 3; ++d)
    outerEff.push_back(effective(o.shape[d], ext[d]));
  i.sizes = matmulLoopSizes(s, i.shape, outerEff);
}

//===----------------------------------------------------------------------===//
// attention
//===----------------------------------------------------------------------===//

namespace {
struct AttentionShape {
  int64_t b, hq, hkv, sq, skv, d, dv;
  unsigned qBits, kBits, vBits;
  Type qType;
  /// Query heads per key/value head.
  int64_t group;
};
} // namespace

static AttentionShape attentionShape(AttentionOp op) {
  AttentionShape s;
  ArrayRef<int64_t> q = op.getQuery().getType().getShape();
  ArrayRef<int64_t> k = op.getKey().getType().getShape();
  ArrayRef<int64_t> v = op.getValue().getType().getShape();
  s.b = q[0];
  s.hq = q[1];
  s.hkv = k[1];
  s.sq = q[2];
  s.skv = k[2];
  s.d = q[3];
  s.dv = v[3];
  s.qBits = bitsOf(op.getQuery().getType());
  s.qType = op.getQuery().getType().getElementType();
  s.kBits = bitsOf(op.getKey().getType());
  s.vBits = bitsOf(op.getValue().getType());
  // Query heads per key/value head; 1 when unknown or empty (Hq = 0 is
  // valid IR, and the group divides tile sizes).
  s.group = 1;
  if (!ShapedType::isDynamic(s.hq) && !ShapedType::isDynamic(s.hkv) &&
      s.hq > 0 && s.hkv > 0 && s.hq % s.hkv == 0)
    s.group = s.hq / s.hkv;
  return s;
}

/// Head dimensions for the footprint (unknown: 128).
static int64_t headDim(int64_t d) { return ShapedType::isDynamic(d) ? 128 : d; }

/// Bytes of Q, K and V in a [heads, sq, skv] tile.
static int64_t attentionInputBytes(const AttentionShape &s,
                                   ArrayRef<int64_t> t) {
  int64_t d = headDim(s.d), dv = headDim(s.dv);
  int64_t kvHeads = llvm::divideCeil(t[0], s.group);
  return bytes(t[0] * t[1] * d, s.qBits) +
         kvHeads * (bytes(t[2] * d, s.kBits) + bytes(t[2] * dv, s.vBits));
}
/// Bytes of the f32 logits and output accumulator of a tile.
static int64_t attentionAccBytes(const AttentionShape &s, ArrayRef<int64_t> t) {
  return 4 * t[0] * t[1] * (t[2] + headDim(s.dv));
}
static double attentionIntensity(const AttentionShape &s, ArrayRef<int64_t> t) {
  int64_t b = attentionInputBytes(s, t) + 4 * t[0] * t[1] * headDim(s.dv);
  double flops = 2.0 * t[0] * t[1] * t[2] * (headDim(s.d) + headDim(s.dv));
  return b > 0 ? flops / double(b) : 0;
}

/// Query-head tiles: one head in the innermost level, else divisors of the
/// GQA group (query heads that share one key/value head, read once).
static DimSpec headsDim(const AttentionShape &s, bool innermost) {
  DimSpec h = dimOf(s.hq, 1);
  if (innermost) {
    h.fixed = 1;
    return h;
  }
  h.divisorOf = s.group;
  return h;
}

static std::string attentionText(const AttentionShape &s, ArrayRef<int64_t> t) {
  return llvm::formatv("{0} head(s) x Q {1}x{2} + K/V {3}x({2}+{4}) + f32 "
                       "logits {1}x{3} and output {1}x{4}",
                       t[0], t[1], headDim(s.d), t[2], headDim(s.dv))
      .str();
}

static SmallVector<int64_t> attentionLoopSizes(const AttentionShape &s,
                                               ArrayRef<int64_t> t,
                                               ArrayRef<int64_t> outer) {
  bool top = outer.empty();
  return {top && s.b != 1 ? 1 : 0, loopSize(t[0], s.hq, top ? 0 : outer[0]),
          loopSize(t[1], s.sq, top ? 0 : outer[1]), 0};
}

static void planAttention(Context &ctx, AttentionOp op) {
  AttentionShape s = attentionShape(op);
  TargetAttr target = ctx.target;
  TilePlan &plan = ctx.plan;
  TileLevel o, i;
  auto intensityScore = [&s](ArrayRef<int64_t> t) {
    return SmallVector<double, 4>{attentionIntensity(s, t), double(t[1]),
                                  double(t[0])};
  };
  auto allBytes = [&s](ArrayRef<int64_t> t) {
    return attentionInputBytes(s, t) + attentionAccBytes(s, t);
  };
  switch (ctx.scheme) {
  case TilingScheme::Cpu: {
    int64_t mr = getCpuRegisterTile(target, 32).first;
    int64_t lanes = cpuVectorBits(target) / 32;
    int64_t l1 = target.getLocalMemoryKib() * 1024,
            l2 = target.getL2Kib() * 1024;
    auto spec = [&](StringRef name, int64_t cap, StringRef cache, DimSpec h,
                    DimSpec sq, DimSpec skv) {
      LevelSpec l = memoryLevel(name, {h, sq, skv}, cap, cache, target);
      l.footprint = allBytes;
      l.score = intensityScore;
      l.explain = [&s, allBytes, cap,
                   cache = cache.str()](ArrayRef<int64_t> t) {
        return attentionText(s, t) +
               llvm::formatv(" = {0} B of {1} B (1/2 of the {2} {3}), {4}",
                             allBytes(t), cap / 2, size(cap), cache,
                             flopPerByte(2.0 * t[0] * t[1] * t[2] *
                                             (headDim(s.d) + headDim(s.dv)),
                                         allBytes(t)))
                   .str();
      };
      return l;
    };
    if (outerFirst(ctx.request)) {
      o = ctx.level(spec("l2", l2, "L2", headsDim(s, false), dimOf(s.sq, mr),
                         dimOf(s.skv, lanes)),
                    true);
      i = ctx.level(spec("l1", l1, "L1D", within(headsDim(s, true), o.shape[0]),
                         within(dimOf(s.sq, mr), o.shape[1]),
                         within(dimOf(s.skv, lanes), o.shape[2])),
                    false);
    } else {
      i = ctx.level(spec("l1", l1, "L1D", headsDim(s, true), dimOf(s.sq, mr),
                         dimOf(s.skv, lanes)),
                    false);
      o = ctx.level(spec("l2", l2, "L2", headsDim(s, false),
                         dimOf(s.sq, effective(i.shape[1], s.sq)),
                         dimOf(s.skv, effective(i.shape[2], s.skv))),
                    true);
    }
    break;
  }
  case TilingScheme::Gpu: {
    GpuLimits g = gpuLimits(target, ctx.request.stages);
    StringRef innerName = g.group > target.getWarpSize() ? "warpgroup" : "warp";
    auto warpSpec = [&](DimSpec h, DimSpec sq, DimSpec skv) {
      LevelSpec l;
      l.name = innerName.str();
      l.dims = {h, sq, skv};
      l.budget = g.accRegisters * 4 * g.group;
      l.detail = "f32 logits and output";
      l.footprint = [&s](ArrayRef<int64_t> t) {
        return attentionAccBytes(s, t);
      };
      // tcgen05 keeps the logits and the output in tensor memory.
      int64_t tmemBytes = kTensorMemoryBytes;
      if (g.tensorMemory)
        useTensorMemory(l, target);
      l.limits = [&s, &g](ArrayRef<int64_t> t, bool hard) {
        // Room for a block around the warp's rows: Q and the stages of K/V.
        int64_t q = bytes(t[0] * t[1] * headDim(s.d), s.qBits);
        if (!hard &&
            q + g.stages * (attentionInputBytes(s, t) - q) > g.sharedMemory)
          return std::string("its smallest block exceeds shared memory");
        if (!hard || g.tensorMemory)
          return std::string();
        return registerExcess(
            llvm::divideCeil(attentionAccBytes(s, t), 4 * g.group), g);
      };
      l.score = intensityScore;
      l.explain = [&s, &g, tmemBytes](ArrayRef<int64_t> t) {
        if (g.tensorMemory)
          return llvm::formatv("f32 logits {0}x{1} and output {0}x{2} = {3} B "
                               "of tensor memory ({4} B budget: half of {5} "
                               "B); query rows a multiple of {6}, keys of {7} "
                               "(the MMA)",
                               t[1], t[2], headDim(s.dv),
                               attentionAccBytes(s, t), tmemBytes / 2,
                               tmemBytes, g.mmaM, g.nStep)
              .str();
        return llvm::formatv(
                   "f32 logits {0}x{1} and output {0}x{2} = {3} "
                   "registers per thread over {4} threads (budget "
                   "{5} of {6}); query rows a multiple of {7}, keys of {8} "
                   "(the MMA)",
                   t[1], t[2], headDim(s.dv),
                   llvm::divideCeil(attentionAccBytes(s, t), 4 * g.group),
                   g.group, g.accRegisters, g.maxRegisters, g.mmaM, g.nStep)
            .str();
      };
      return l;
    };
    auto blockSpec = [&](DimSpec h, DimSpec sq, DimSpec skv, int64_t warpRows) {
      auto threads = [&g, warpRows](ArrayRef<int64_t> t) {
        return t[0] * llvm::divideCeil(t[1], std::max<int64_t>(1, warpRows)) *
               g.group;
      };
      LevelSpec l = blockLevel({h, sq, skv}, g, s.qType, target, threads);
      auto smem = [&s, &g](ArrayRef<int64_t> t) {
        int64_t q = bytes(t[0] * t[1] * headDim(s.d), s.qBits);
        return q + g.stages * (attentionInputBytes(s, t) - q);
      };
      l.footprint = smem;
      l.score = intensityScore;
      l.explain = [&s, &g, smem, threads, target](ArrayRef<int64_t> t) {
        return llvm::formatv("Q {0}x{1}x{2} + {3} stages x K/V {4}x({2}+{5}) "
                             "= {6} B of {7} B shared memory per block on {8}; "
                             "{9} threads",
                             t[0], t[1], headDim(s.d), g.stages, t[2],
                             headDim(s.dv), smem(t), g.sharedMemory,
                             target.getName(), threads(t))
            .str();
      };
      return l;
    };
    if (outerFirst(ctx.request)) {
      Tile given = givenOuter(ctx.request, {s.hq, s.sq, s.skv});
      DimSpec skv = within(dimOf(s.skv, g.nStep), given[2]);
      skv.fixed = skv.limit;
      i = ctx.level(warpSpec(headsDim(s, true),
                             within(dimOf(s.sq, g.mmaM), given[1]), skv),
                    false);
      o = ctx.level(blockSpec(headsDim(s, false), dimOf(s.sq, g.mmaM),
                              dimOf(s.skv, g.nStep),
                              effective(i.shape[1], s.sq)),
                    true);
    } else {
      i = ctx.level(warpSpec(headsDim(s, true), dimOf(s.sq, g.mmaM),
                             dimOf(s.skv, g.nStep)),
                    false);
      // The block shares the warps' key/value block.
      DimSpec skv = dimOf(s.skv, 1);
      skv.fixed = effective(i.shape[2], s.skv);
      o = ctx.level(blockSpec(headsDim(s, false),
                              dimOf(s.sq, effective(i.shape[1], s.sq)), skv,
                              effective(i.shape[1], s.sq)),
                    true);
    }
    break;
  }
  case TilingScheme::Array: {
    int64_t rows = matrixUnit(target, 0), cols = matrixUnit(target, 1);
    int64_t sp = target.getLocalMemoryKib() * 1024,
            acc = target.getL2Kib() * 1024;
    LevelSpec array = arrayPass(
        {headsDim(s, true), dimOf(s.sq, rows), dimOf(s.skv, cols)},
        {0, rows, cols},
        [&s](ArrayRef<int64_t> t) { return attentionInputBytes(s, t); },
        llvm::formatv("{0} query rows against {1} keys per pass of the "
                      "{0}x{1} array",
                      rows, cols));
    auto sramSpec = [&](ArrayRef<int64_t> inner) {
      auto accBytes = [&s](ArrayRef<int64_t> t) {
        return attentionAccBytes(s, t);
      };
      // Multiples of the array pass, or of the array tile inside.
      int64_t mq = inner.empty() ? rows : effective(inner[1], s.sq),
              mkv = inner.empty() ? cols : effective(inner[2], s.skv);
      LevelSpec l =
          sramLevel({headsDim(s, false), dimOf(s.sq, mq), dimOf(s.skv, mkv)},
                    sp, acc, target, accBytes);
      l.footprint = [&s](ArrayRef<int64_t> t) {
        return attentionInputBytes(s, t);
      };
      l.score = intensityScore;
      l.explain = [&s, sp, acc](ArrayRef<int64_t> t) {
        return llvm::formatv("Q + K/V = {0} B of {1} B (1/2 of the {2} "
                             "scratchpad), f32 logits and output = {3} B of "
                             "{4} B (1/2 of the {5} accumulator)",
                             attentionInputBytes(s, t), sp / 2, size(sp),
                             attentionAccBytes(s, t), acc / 2, size(acc))
            .str();
      };
      return l;
    };
    std::tie(o, i) = arrayLevels(ctx, sp, array, sramSpec, {1, s.sq, s.skv});
    break;
  }
  case TilingScheme::None:
    llvm_unreachable("model targets have no rules");
  }
  // A head tile must cover whole key/value heads or share one.
  for (const TileLevel &l : {o, i}) {
    int64_t h = l.shape[0];
    if (s.group > 1 && !ShapedType::isDynamic(h) && h > 0 && s.group % h != 0 &&
        h % s.group != 0) {
      plan.problem += (plan.problem.empty() ? "" : "; ") +
                      llvm::formatv("attention {0} tile of {1} query heads "
                                    "neither divides nor is a multiple of "
                                    "the GQA group of {2} (query heads per "
                                    "key/value head)",
                                    l.name, h, s.group)
                          .str();
      plan.fatal = true;
    }
  }
  o.sizes = attentionLoopSizes(s, o.shape, {});
  Tile outerEff = {effective(o.shape[0], s.hq), effective(o.shape[1], s.sq),
                   effective(o.shape[2], s.skv)};
  i.sizes = attentionLoopSizes(s, i.shape, outerEff);
  o.why += "; keys in blocks of " +
           std::to_string(effective(o.shape[2], s.skv)) +
           " (accel-decompose-attention tile-kv)";
  plan.levels = {o, i};
}

//===----------------------------------------------------------------------===//
// softmax
//===----------------------------------------------------------------------===//

static void planSoftmax(Context &ctx, SoftmaxOp op) {
  auto type = op.getInput().getType();
  ArrayRef<int64_t> shape = type.getShape();
  int64_t dim = op.getDimension();
  // The rows: the innermost parallel dimension; outer ones are tiled by 1.
  int64_t rowsDim = -1;
  for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d)
    if (d != dim) {
      rowsDim = d;
      break;
    }
  int64_t len = ShapedType::isDynamic(shape[dim]) ? kUnknownExtent : shape[dim];
  int64_t rowBytes =
      bytes(len, bitsOf(type)) + bytes(len, bitsOf(op.getInit().getType()));
  int64_t extent = rowsDim < 0 ? 1 : shape[rowsDim];
  TargetAttr target = ctx.target;
  auto spec = [&](StringRef name, int64_t cap, std::string what, DimSpec rows) {
    LevelSpec l;
    l.name = name.str();
    l.dims = {rows};
    l.capacity = cap;
    l.budget = cap / 2;
    l.memory = what;
    l.capacityText =
        llvm::formatv("{0} has {1} B", target.getName(), cap).str();
    l.footprint = [rowBytes](ArrayRef<int64_t> t) { return t[0] * rowBytes; };
    l.score = [rowBytes](ArrayRef<int64_t> t) {
      return SmallVector<double, 4>{double(t[0] * rowBytes)};
    };
    l.explain = [rowBytes, cap, what](ArrayRef<int64_t> t) {
      return llvm::formatv("{0} row(s) of {1} B in and out = {2} B of {3} B "
                           "(1/2 of the {4} {5})",
                           t[0], rowBytes, t[0] * rowBytes, cap / 2, size(cap),
                           what)
          .str();
    };
    return l;
  };
  TileLevel o, i;
  switch (ctx.scheme) {
  case TilingScheme::Cpu:
  case TilingScheme::Array: {
    bool cpu = ctx.scheme == TilingScheme::Cpu;
    int64_t outerCap =
        (cpu ? target.getL2Kib() : target.getLocalMemoryKib()) * 1024;
    int64_t innerCap = cpu ? target.getLocalMemoryKib() * 1024 : outerCap;
    StringRef outerName = cpu ? "l2" : "sram", innerName = cpu ? "l1" : "row";
    std::string outerWhat = cpu ? "L2" : "scratchpad",
                innerWhat = cpu ? "L1D" : "scratchpad";
    if (outerFirst(ctx.request)) {
      o = ctx.level(spec(outerName, outerCap, outerWhat, dimOf(extent, 1)),
                    true);
      DimSpec r = within(dimOf(extent, 1), o.shape[0]);
      if (!cpu)
        r.fixed = 1;
      i = ctx.level(spec(innerName, innerCap, innerWhat, r), false);
    } else {
      DimSpec r = dimOf(extent, 1);
      if (!cpu)
        r.fixed = 1;
      i = ctx.level(spec(innerName, innerCap, innerWhat, r), false);
      o = ctx.level(spec(outerName, outerCap, outerWhat,
                         dimOf(extent, effective(i.shape[0], extent))),
                    true);
    }
    break;
  }
  case TilingScheme::Gpu: {
    GpuLimits g = gpuLimits(target, ctx.request.stages);
    int64_t warp = target.getWarpSize() > 0 ? target.getWarpSize() : 32;
    // A warp per row, the row in registers; a block of warps.
    // Longer rows than the registers hold are streamed: no limit.
    LevelSpec w = spec("warp", 0, "registers", dimOf(extent, 1));
    w.dims[0].fixed = 1;
    w.explain = [rowBytes, warp, &g](ArrayRef<int64_t> t) {
      return llvm::formatv("{0} row(s) of {1} B in and out over {2} threads: "
                           "{3} registers per thread (budget {4} of {5})",
                           t[0], rowBytes, warp,
                           llvm::divideCeil(t[0] * rowBytes, 4 * warp),
                           g.accRegisters, g.maxRegisters)
          .str();
    };
    LevelSpec b = spec("block", 0, "", dimOf(extent, 1));
    b.budget = b.capacity = 0;
    b.limits = [&g, warp](ArrayRef<int64_t> t, bool hard) {
      int64_t n = t[0] * warp, limit = hard ? g.maxThreads : g.threadBudget;
      if (n <= limit)
        return std::string();
      return llvm::formatv("needs {0} threads per block (limit {1})", n, limit)
          .str();
    };
    b.explain = [warp](ArrayRef<int64_t> t) {
      return llvm::formatv("a warp per row: {0} threads", t[0] * warp).str();
    };
    i = ctx.level(w, false);
    o = ctx.level(b, true);
    break;
  }
  case TilingScheme::None:
    llvm_unreachable("model targets have no rules");
  }
  auto sizesFor = [&](ArrayRef<int64_t> t, int64_t outer) {
    SmallVector<int64_t> sizes(shape.size(), 0);
    for (int64_t d = 0; d < int64_t(shape.size()); ++d) {
      if (d == dim)
        continue;
      if (d == rowsDim)
        sizes[d] = loopSize(t[0], extent, outer);
      else if (outer == 0 && shape[d] != 1)
        sizes[d] = 1;
    }
    return sizes;
  };
  o.sizes = sizesFor(o.shape, 0);
  i.sizes = sizesFor(i.shape, effective(o.shape[0], extent));
  ctx.plan.levels = {o, i};
}

//===----------------------------------------------------------------------===//
// Entry point
//===----------------------------------------------------------------------===//

FailureOr<TilePlan> mlir::accel::planTiles(Operation *op, TargetAttr target,
                                           const TileRequest &request,
                                           std::string *reason) {
  auto fail = [&](const Twine &why) -> FailureOr<TilePlan> {
    if (reason)
      *reason = why.str();
    return failure();
  };
  if (isa<DequantMatmulOp>(op))
    return fail("an accel.dequant_matmul takes its register tile from the "
                "CPU configuration stage (accel-cpu-configure), not from "
                "accel-tile");
  if (isa<PagedAttentionOp>(op))
    return fail("an accel.paged_attention takes its blocks (pages per step, "
                "splits, KV heads per task) from the CPU configuration stage "
                "(accel-cpu-configure), not from accel-tile");
  if (!isa<MatmulOp, AttentionOp, SoftmaxOp>(op))
    return fail("not an accel.matmul, accel.attention or accel.softmax");
  unsigned expected = isa<SoftmaxOp>(op) ? 1 : 3;
  if ((!request.outer.empty() && request.outer.size() != expected) ||
      (!request.inner.empty() && request.inner.size() != expected))
    return fail("expected " + Twine(expected) + " tile sizes");
  if (llvm::any_of(llvm::concat<const int64_t>(request.outer, request.inner),
                   [](int64_t v) { return v < 0; }))
    return fail("tile sizes must be >= 0");
  TilingScheme scheme = getTilingScheme(target);
  Context ctx{target, scheme, request, {}, {}};
  ctx.plan.scheme = scheme;
  ctx.kindName = isa<MatmulOp>(op)      ? "matmul"
                 : isa<AttentionOp>(op) ? "attention"
                                        : "softmax";
  if (scheme == TilingScheme::None) {
    // Model targets: only what the user gives, without limits to check.
    if (request.outer.empty() ||
        (request.numLevels > 1 && request.inner.empty()))
      return fail("'" + target.getName() +
                  "' is a model target (no code generation): it has no "
                  "tiling rules; give the tile sizes of every level");
    // Plan as a CPU without caches: sizes as given, clamped.
    TargetAttr bare = TargetAttr::get(
        target.getContext(), target.getName(), TargetKind::CPU,
        target.getChip(), {}, 1, APFloat(1.0), APFloat(0.0), APFloat(0.0),
        APFloat(0.0), APFloat(0.0), APFloat(0.0), APFloat(0.0), APFloat(0.0),
        APFloat(0.0), 0, 0, 0, {}, 0);
    ctx.target = bare;
    ctx.scheme = TilingScheme::Cpu;
  }
  if (auto mm = dyn_cast<MatmulOp>(op))
    planMatmul(ctx, mm);
  else if (auto at = dyn_cast<AttentionOp>(op))
    planAttention(ctx, at);
  else
    planSoftmax(ctx, cast<SoftmaxOp>(op));
  if (scheme == TilingScheme::None)
    for (TileLevel &l : ctx.plan.levels)
      l.why = "given (model target: no limits checked)";
  if (request.numLevels < 2)
    ctx.plan.levels.resize(1);
  return ctx.plan;
}
