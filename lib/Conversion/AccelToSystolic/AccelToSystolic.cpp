//===- AccelToSystolic.cpp - accel functions to systolic programs ---------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Compiles each function of accel.matmul / accel.attention ops (and the
// elementwise ops around them, SystolicElementwise.cpp) on static tensors
// into a straight-line systolic.program (the instruction stream a
// host issues to a Gemmini-like array). The schedule model
// (SystolicSchedule.cpp) picks the matmul dataflow and blocks; this file
// lays the blocks out in the SRAMs, double-buffered, and emits the
// instructions.
//
//===----------------------------------------------------------------------===//

#include "accel/Conversion/AccelToSystolic/AccelToSystolic.h"
#include "SystolicDequant.h"
#include "SystolicElementwise.h"
#include "SystolicEmitter.h"
#include "SystolicLayout.h"
#include "SystolicSoftmax.h"
#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "accel/Dialect/Systolic/IR/SystolicOps.h"
#include "accel/Systolic/ISA.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"
#include <cmath>
#include <numeric>

namespace mlir::accel {
#define GEN_PASS_DEF_CONVERTACCELTOSYSTOLICPASS
#include "accel/Conversion/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;
using namespace mlir::accel;
namespace isa = ::sysarray;
using namespace mlir::accel::systolic_emit;

namespace {

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

/// Z (+)= X . Y with X [P, Q] streaming, Y [Q, S], in blocks of tileP x
/// tileQ of X and tileQ x tileS of Y (the loop nest SystolicSchedule.cpp
/// models). X blocks are strips of `granule` columns (the array's rows for
/// WS, the scratchpad width for OS), Y blocks strips of the array's columns,
/// the Z block strips of the array's columns in the accumulator. X, Y and Z
/// blocks each alternate between two halves, so the DMA of the next step
/// overlaps the computes of this one (Z's with `cBuffers` = 2; with 1, one
/// block twice the size, whose first computes wait for the previous
/// block's stores); with one block of Q the X block stays for every block
/// of S. Each strip of Z starts from `z0` or from what
/// `init` moves in (its accumulator row, rows, columns and position in Z),
/// else from zeros; each finished strip is stored to `z`, or given to
/// `epilogue` (the same, and the first accumulator row past the Z blocks).
using StripInit = llvm::function_ref<void(int64_t accRow, int64_t rows,
                                          int64_t cols, int64_t r0, int64_t c0)>;
using StripEpilogue =
    llvm::function_ref<void(int64_t accRow, int64_t rows, int64_t cols,
                            int64_t r0, int64_t c0, int64_t spareRow)>;
void emitBlockedMatmul(Emitter &e, systolic::Dataflow dataflow, const View &x,
                       const View &y, const View &z, std::optional<View> z0,
                       int64_t p, int64_t q, int64_t s, int64_t tileP,
                       int64_t tileS, int64_t tileQ, int64_t cBuffers,
                       StripEpilogue epilogue = nullptr,
                       StripInit init = nullptr) {
  const isa::MachineConfig &mc = e.machine();
  const int64_t R = mc.rows, C = mc.cols;
  const bool ws = dataflow == systolic::Dataflow::WS;
  const int64_t granule = ws ? R : int64_t(mc.spadWidth());
  e.setDataflow(dataflow);
  const int64_t qStrips = ceilDiv(tileQ, granule), sStrips = ceilDiv(tileS, C);
  const int64_t aSlot = qStrips * tileP, bSlot = sStrips * tileQ;
  const int64_t accSlot = sStrips * tileP;
  // Each OS compute reads a row of A and a row of B every cycle: with A in
  // the lower half of the scratchpad and B in the upper half they sit in
  // different banks (when there are two or more) and do not conflict.
  const int64_t half = mc.spadRows / 2;
  const bool split = !ws && mc.spadBanks >= 2 && 2 * aSlot <= half &&
                     2 * bSlot <= int64_t(mc.spadRows) - half;
  const int64_t aBase = 0, bBase = split ? half : 2 * aSlot;
  const int64_t numQ = ceilDiv(q, tileQ);
  int aToggle = 0, bToggle = 0, accToggle = 0;
  // OS: a block's last output tile is still in the array; it reaches the
  // accumulator when the next block's first preload flushes it, so the
  // block's mvouts are issued right after that preload (or after a fence
  // at the end).
  struct PendingOut {
    int64_t accRow, rows, cols, r0, c0;
  };
  SmallVector<PendingOut> pending;
  auto store = [&](const PendingOut &o) {
    if (epilogue)
      epilogue(o.accRow, o.rows, o.cols, o.r0, o.c0, cBuffers * accSlot);
    else
      e.mvout(systolic::Space::Acc, o.accRow, o.rows, o.cols, z, o.r0, o.c0);
  };
  auto flush = [&] {
    for (const PendingOut &o : pending)
      store(o);
    pending.clear();
  };
  // The initial value of block (p0, s0)'s strips in its half of the
  // accumulator. `init` runs one block ahead (after the previous block's
  // computes, before its epilogue): its vector copies then overlap that
  // block's computes instead of waiting behind its epilogue in the vector
  // unit's in-order queue.
  auto seedBlock = [&](int64_t p0, int64_t s0, int64_t accAt) {
    const int64_t pr = std::min(tileP, p - p0), sr = std::min(tileS, s - s0);
    for (int64_t ss = 0; ss * C < sr; ++ss)
      init(accAt + ss * tileP, pr, std::min(C, sr - ss * C), p0, s0 + ss * C);
  };
  // With two buffers the seed runs one block ahead, into the other one;
  // with one, right before the block's computes (after the previous
  // block's stores read its rows).
  if (init && cBuffers == 2 && p > 0 && s > 0)
    seedBlock(0, 0, 0);
  for (int64_t p0 = 0; p0 < p; p0 += tileP) {
    const int64_t pr = std::min(tileP, p - p0);
    int64_t aAt = -1;
    for (int64_t s0 = 0; s0 < s; s0 += tileS) {
      const int64_t sr = std::min(tileS, s - s0);
      const int64_t accAt = accToggle * accSlot;
      if (cBuffers == 2)
        accToggle ^= 1;
      if (init && cBuffers == 1)
        seedBlock(p0, s0, accAt);
      if (z0)
        for (int64_t ss = 0; ss * C < sr; ++ss)
          e.mvin(*z0, p0, s0 + ss * C, pr, std::min(C, sr - ss * C),
                 systolic::Space::Acc, accAt + ss * tileP);
      const bool seeded = z0 || init;
      for (int64_t q0 = 0; q0 < q; q0 += tileQ) {
        const int64_t qr = std::min(tileQ, q - q0);
        if (numQ > 1 || aAt < 0) {
          aAt = aBase + aToggle * aSlot;
          aToggle ^= 1;
          for (int64_t qq = 0; qq * granule < qr; ++qq)
            e.mvin(x, p0, q0 + qq * granule, pr,
                   std::min(granule, qr - qq * granule), systolic::Space::Spad,
                   aAt + qq * tileP);
        }
        const int64_t bAt = bBase + bToggle * bSlot;
        bToggle ^= 1;
        for (int64_t ss = 0; ss * C < sr; ++ss)
          e.mvin(y, q0, s0 + ss * C, qr, std::min(C, sr - ss * C),
                 systolic::Space::Spad, bAt + ss * tileQ);
        for (int64_t ss = 0; ss * C < sr; ++ss) {
          const int64_t sc = std::min(C, sr - ss * C);
          if (ws) {
            // One R x C weight tile per compute; every row of the X block
            // streams through it.
            for (int64_t qq = 0; qq * R < qr; ++qq) {
              const int64_t qc = std::min(R, qr - qq * R);
              e.preload(bAt + ss * tileQ + qq * R, accAt + ss * tileP, pr, qc,
                        sc, seeded || q0 > 0 || qq > 0);
              e.compute(aAt + qq * tileP, std::nullopt, pr, qc, sc,
                        /*preloaded=*/true);
            }
            continue;
          }
          // One R x C output tile per preload; the block's depth streams.
          for (int64_t pp = 0; pp * R < pr; ++pp) {
            const int64_t pc = std::min(R, pr - pp * R);
            e.preload(std::nullopt, accAt + ss * tileP + pp * R, pc, 0, sc,
                      seeded || q0 > 0);
            // Only DMA may come between a preload and its computes: an
            // epilogue's vector work follows them.
            if (!epilogue)
              flush();
            for (int64_t qq = 0; qq * granule < qr; ++qq)
              e.compute(aAt + qq * tileP + pp * R,
                        bAt + ss * tileQ + qq * granule, pc,
                        std::min(granule, qr - qq * granule), sc,
                        /*preloaded=*/qq == 0);
            if (epilogue)
              flush();
          }
        }
      }
      if (init && cBuffers == 2) {
        // The next block, in the other half.
        int64_t np = p0, ns = s0 + tileS;
        if (ns >= s) {
          np += tileP;
          ns = 0;
        }
        if (np < p)
          seedBlock(np, ns, accToggle * accSlot);
      }
      for (int64_t ss = 0; ss * C < sr; ++ss) {
        PendingOut out{accAt + ss * tileP, pr, std::min(C, sr - ss * C), p0,
                       s0 + ss * C};
        if (ws)
          store(out);
        else
          pending.push_back(out);
      }
    }
  }
  if (!ws) {
    e.fence();
    flush();
  }
}

} // namespace

namespace {

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

/// A paged KV cache (accel.paged_attention) as one (sequence, KV head)
/// reads it: key j lives in page j / pageTokens, found in the block table
/// by an sload into a scalar register; only keys below the sequence's
/// length (register lenReg) are read.
struct PagedKV {
  uint32_t kBuffer, vBuffer;
  /// Element offsets within a page of (token 0, this KV head, element 0),
  /// the token strides and the page strides.
  int64_t kBase, vBase, kTokenStride, vTokenStride, kPageStride, vPageStride;
  int64_t pageTokens, pages;
  /// The table row of this sequence: element n at tableOffset + n *
  /// tableStride of buffer tableBuffer.
  uint32_t tableBuffer;
  int64_t tableOffset, tableStride;
  int64_t lenReg;
  /// Each query head's queries; causal masks per head's run of rows
  /// (query i keeps keys j <= length - sq + i).
  int64_t sq;
  bool causal;
};

/// The scalar registers of paged attention: two lengths (sequences
/// alternate), the rest pages round robin.
constexpr int64_t kLengthRegs = 2;
constexpr int64_t kPageRegs = int64_t(::sysarray::kScalarRegs) - kLengthRegs;

struct AttentionGeometry {
  int64_t sq, skv, d, dv;
  bool causal;
  /// Keep key j for query i when j <= i + offset (+ r[offsetReg] with a
  /// run-time band: then this is its static part).
  int64_t offset;
  float scale;
  int64_t tileQ, tileKV;
  /// An additive mask: its buffer, the element strides of its query and key
  /// dimensions (0 where it broadcasts) and whether it has one key column.
  /// A boolean mask (i1: true keeps) is read by the DMA as the additive
  /// mask it means (`unpack mask`: 0 or -inf), and then added as one.
  bool masked = false;
  bool maskBoolean = false;
  int64_t maskRowStride = 0;
  bool maskOneKey = false;
  /// With heads stacked (headRows): the element stride from one query
  /// head's mask rows to the next's (0 where the mask broadcasts over the
  /// heads).
  int64_t maskHeadStride = 0;
  /// Keys of a strip of S (0: min(rows, cols)).
  int64_t stripKeys = 0;
  /// Keys and values from a paged cache (else the k and v views).
  const PagedKV *paged = nullptr;
  /// The scalar register of the sequence's key length (paged attention,
  /// kv_lengths): keys past it are neither read nor kept, and the key
  /// blocks past it are skipped.
  std::optional<int64_t> lengthReg;
  /// accel.attention's run-time band: the register of the query length
  /// (q_lengths: rows past it keep nothing, query blocks past it are
  /// skipped), and the one added to `offset` for the causal band (off =
  /// offset + r[offsetReg]: the key length, minus the query length, or
  /// both); the sliding window (keep j > i + off - window).
  std::optional<int64_t> qLengthReg, offsetReg;
  std::optional<int64_t> window;
  /// With a window and a run-time band: -r[offsetReg] (the blocks wholly
  /// below the window are skipped on it).
  std::optional<int64_t> negOffsetReg;
  /// accel.attention with GQA heads stacked in the rows: each head's
  /// queries (row r is query r % headRows of its head; 0: not stacked).
  int64_t headRows = 0;
};

/// Spad and accumulator rows the attention blocks take.
struct AttentionLayout {
  int64_t T, dStrips, oStrips, sStrips;
  int64_t qSlot, ktSlot, vSlot, pBase, spadRows;
  int64_t sSlot, oBase, mRow, lRow, tRow, maskRow, accRows;

  AttentionLayout(const isa::MachineConfig &mc, const AttentionGeometry &g) {
    const int64_t R = mc.rows, C = mc.cols;
    T = g.stripKeys ? g.stripKeys : std::min(R, C);
    dStrips = ceilDiv(g.d, R);
    oStrips = ceilDiv(g.dv, C);
    sStrips = g.tileKV / T;
    qSlot = dStrips * g.tileQ;
    ktSlot = sStrips * dStrips * R;
    vSlot = oStrips * g.tileKV;
    // Q, Kᵀ and V double-buffered, then P.
    pBase = 2 * (qSlot + ktSlot + vSlot);
    spadRows = pBase + sStrips * g.tileQ;
    // Two score blocks (the array fills one while the vector unit works on
    // the other), the output, and the running max, sum and rescale factor.
    sSlot = sStrips * g.tileQ;
    oBase = 2 * sSlot;
    mRow = oBase + oStrips * g.tileQ;
    lRow = mRow + g.tileQ;
    tRow = lRow + g.tileQ;
    // The mask of a block of S, double-buffered as S is (its moves go out
    // with the block's K and V, a block ahead of the softmax that adds
    // it), when there is one.
    maskRow = tRow + g.tileQ;
    accRows = maskRow + (g.masked ? 2 * sSlot : 0);
  }
  bool fits(const isa::MachineConfig &mc) const {
    return spadRows <= mc.spadRows && accRows <= mc.accRows;
  }
};

} // namespace

std::pair<int64_t, int64_t> mlir::accel::getSystolicAttentionRows(
    const isa::MachineConfig &mc, const SystolicAttentionShape &shape,
    int64_t tileQ, int64_t tileKV) {
  // The layout depends on the sizes, the blocks and the mask only.
  AttentionGeometry g{};
  g.sq = shape.sq;
  g.skv = shape.skv;
  g.d = shape.d;
  g.dv = shape.dv;
  g.tileQ = tileQ;
  g.tileKV = tileKV;
  g.masked = shape.masked;
  g.stripKeys = shape.stripKeys;
  AttentionLayout l(mc, g);
  return {l.spadRows, l.accRows};
}

SystolicAttentionShape mlir::accel::getSystolicAttentionShape(Operation *op) {
  auto at = llvm::cast<AttentionOp>(op);
  auto qType = at.getQuery().getType(), kType = at.getKey().getType();
  SystolicAttentionShape s;
  const int64_t hq = qType.getDimSize(1), hkv = kType.getDimSize(1);
  // GQA: a KV head's query heads stacked in the rows.
  const int64_t group = hkv > 0 ? hq / hkv : 1;
  s.sq = group * qType.getDimSize(2);
  s.skv = kType.getDimSize(2);
  s.d = qType.getDimSize(3);
  s.dv = at.getValue().getType().getDimSize(3);
  s.masked = static_cast<bool>(at.getMask());
  return s;
}

SystolicAttentionShape
mlir::accel::getSystolicPagedAttentionShape(Operation *op,
                                            const isa::MachineConfig &mc) {
  auto pa = llvm::cast<PagedAttentionOp>(op);
  auto qType = pa.getQuery().getType(), kType = pa.getKeyCache().getType();
  SystolicAttentionShape s;
  const int64_t hq = qType.getDimSize(1), hkv = kType.getDimSize(2);
  s.sq = (hkv > 0 ? hq / hkv : 1) * qType.getDimSize(2);
  s.skv = pa.getBlockTable().getType().getDimSize(1) * kType.getDimSize(1);
  s.d = qType.getDimSize(3);
  s.dv = pa.getValueCache().getType().getDimSize(3);
  s.stripKeys = std::gcd<int64_t>(std::min(mc.rows, mc.cols),
                                  std::max<int64_t>(1, kType.getDimSize(1)));
  return s;
}

std::optional<isa::ElemType> mlir::accel::getSystolicElemType(Type t) {
  if (t.isInteger(8))
    return isa::ElemType::I8;
  if (t.isInteger(32))
    return isa::ElemType::I32;
  if (t.isBF16())
    return isa::ElemType::BF16;
  if (t.isF32())
    return isa::ElemType::F32;
  return std::nullopt;
}

namespace {

/// One (batch, head): O = softmax(scale . Q Kᵀ, causal) V with the online
/// softmax on the vector unit. The key blocks are software-pipelined by
/// one: the array computes S of block j + 1 while the vector unit turns S
/// of block j into P (the execute unit issues in order, but an instruction
/// only waits for the data it reads), then P.V of block j follows.
void emitAttentionHead(Emitter &e, const AttentionGeometry &g, const View &q,
                       const View &k, const View &v, const View &o,
                       std::optional<View> mask, int &toggle,
                       double &predicted) {
  using systolic::Bcast;
  using systolic::Space;
  using systolic::VecOp;
  const isa::MachineConfig &mc = e.machine();
  const int64_t R = mc.rows, C = mc.cols;
  AttentionLayout L(mc, g);
  const float ninf = -std::numeric_limits<float>::infinity();
  const double fill = R + C - 1;
  e.setDataflow(systolic::Dataflow::WS);
  e.array = e.vec = e.dma = e.store = 0;
  double carriedVec = 0;
  for (int64_t q0 = 0; q0 < g.sq; q0 += g.tileQ) {
    const int64_t mr = std::min(g.tileQ, g.sq - q0);
    const int64_t qAt = toggle * L.qSlot;
    toggle ^= 1;
    // The Q load and the previous block's epilogue overlap this block's
    // first key block: their cycles join its budget.
    for (int64_t dd = 0; dd * R < g.d; ++dd)
      e.mvin(q, q0, dd * R, mr, std::min(R, g.d - dd * R), Space::Spad,
             qAt + dd * g.tileQ);
    e.fill(L.mRow, mr, 1, ninf);
    e.fill(L.lRow, mr, 1, 0.0f);
    for (int64_t oo = 0; oo < L.oStrips; ++oo)
      e.fill(L.oBase + oo * g.tileQ, mr, std::min(C, g.dv - oo * C), 0.0f);
    // The key blocks this query block sees (static band only: a run-time
    // one moves with the lengths, so every block): up to the last key its
    // last row keeps, from the first its first row keeps in a window.
    const bool staticBand = !g.offsetReg;
    // The queries the block's rows hold: q0 .. q0 + mr - 1, or with heads
    // stacked the indices within their heads (all of them when the block
    // spans a head's end).
    int64_t iMin = q0, iMax = q0 + mr - 1;
    if (g.headRows) {
      iMin = q0 % g.headRows;
      iMax = iMin + mr - 1;
      if (iMax >= g.headRows) {
        iMin = 0;
        iMax = g.headRows - 1;
      }
    }
    // Rows [q0, q0 + mr) in runs of one head: fn(first row - q0, rows,
    // query index of the first row).
    auto headRuns =
        [&](llvm::function_ref<void(int64_t, int64_t, int64_t)> fn) {
          if (!g.headRows)
            return fn(0, mr, q0);
          for (int64_t r = q0; r < q0 + mr;) {
            const int64_t i = r % g.headRows,
                          run = std::min(g.headRows - i, q0 + mr - r);
            fn(r - q0, run, i);
            r += run;
          }
        };
    const int64_t lastKey = g.causal && staticBand
                                ? std::min(g.skv - 1, iMax + g.offset)
                                : g.skv - 1;
    int64_t firstBlock = 0;
    if (g.window && staticBand)
      firstBlock = std::max<int64_t>(0, iMin + g.offset - *g.window + 1) /
                   g.tileKV * g.tileKV;
    SmallVector<int64_t> blocks;
    for (int64_t k0 = firstBlock; k0 <= lastKey; k0 += g.tileKV)
      blocks.push_back(k0);
    auto keys = [&](size_t j) {
      return std::min(g.tileKV, lastKey + 1 - blocks[j]);
    };
    auto ktAt = [&](size_t j) {
      return 2 * L.qSlot + int64_t(j % 2) * L.ktSlot;
    };
    auto vAt = [&](size_t j) {
      return 2 * (L.qSlot + L.ktSlot) + int64_t(j % 2) * L.vSlot;
    };
    auto sAt = [&](size_t j, int64_t strip) {
      return int64_t(j % 2) * L.sSlot + strip * g.tileQ;
    };
    // Paged: the page registers. Page n's table entry is loaded into
    // register kLengthRegs + n % kPageRegs just before its first use (or
    // ahead, after the block before it), never while an earlier page in
    // that register still has loads to come.
    int64_t nextPage = 0;
    auto pageReg = [&](int64_t n) { return kLengthRegs + n % kPageRegs; };
    auto sloadPages = [&](int64_t upTo) {
      const PagedKV &p = *g.paged;
      for (; nextPage <= std::min(upTo, p.pages - 1); ++nextPage)
        e.sload(p.tableBuffer, p.tableOffset + nextPage * p.tableStride,
                INT32_MIN, INT32_MAX, pageReg(nextPage));
    };
    // Each page's Kᵀ strips and V rows; only the keys below the length
    // are read (the rest zeros), a page past it not at all.
    auto loadPaged = [&](size_t j) {
      const PagedKV &p = *g.paged;
      const int64_t k0 = blocks[j], kr = keys(j), T = p.pageTokens;
      for (int64_t n = k0 / T; n * T < k0 + kr; ++n) {
        sloadPages(n);
        const int64_t first = std::max(k0, n * T),
                      last = std::min(k0 + kr, (n + 1) * T);
        // Strips never straddle a page (stripKeys divides it).
        for (int64_t key0 = first; key0 < last; key0 += L.T) {
          const int64_t st = (key0 - k0) / L.T, kc = std::min(L.T, last - key0);
          Emitter::Registers regs{pageReg(n), p.kPageStride, p.lenReg, key0};
          View kv{p.kBuffer, p.kBase + (key0 - n * T) * p.kTokenStride,
                  p.kTokenStride, false};
          for (int64_t dd = 0; dd * R < g.d; ++dd)
            e.mvin(kv.t(), dd * R, 0, std::min(R, g.d - dd * R), kc,
                   Space::Spad, ktAt(j) + (st * L.dStrips + dd) * R, regs);
        }
        Emitter::Registers regs{pageReg(n), p.vPageStride, p.lenReg, first};
        View vv{p.vBuffer, p.vBase + (first - n * T) * p.vTokenStride,
                p.vTokenStride, false};
        for (int64_t oo = 0; oo < L.oStrips; ++oo)
          e.mvin(vv, 0, oo * C, last - first, std::min(C, g.dv - oo * C),
                 Space::Spad, vAt(j) + oo * g.tileKV + (first - k0), regs);
      }
      // Ahead: the pages after this block whose registers are free.
      sloadPages((k0 + kr) / T + kPageRegs - 1);
    };
    // The mask of block j's strips into its slot (added to S by softmax):
    // widened into the accumulator by the DMA (a broadcast query dimension
    // is a 0 stride; a broadcast key dimension one column added per row).
    // With heads stacked, one move where the heads' mask rows follow each
    // other at the row stride (a per-head mask), else one per head's run
    // of rows (a mask broadcast over the heads).
    auto maskAt = [&](size_t j, int64_t st) {
      return L.maskRow + int64_t(j % 2) * L.sSlot + st * g.tileQ;
    };
    auto loadMask = [&](size_t j) {
      const int64_t k0 = blocks[j], kr = keys(j);
      for (int64_t st = 0; st * L.T < kr; ++st) {
        const int64_t col = g.maskOneKey ? 0 : k0 + st * L.T,
                      cols = g.maskOneKey ? 1 : std::min(L.T, kr - st * L.T);
        auto move = [&](const View &v, int64_t r0, int64_t rows, int64_t row) {
          if (g.maskBoolean)
            e.mvinUnpacked(v, r0, col, rows, cols, Space::Acc, row,
                           systolic::Unpack::Mask);
          else
            e.mvin(v, r0, col, rows, cols, Space::Acc, row);
        };
        if (!g.headRows || g.maskHeadStride == g.headRows * g.maskRowStride)
          move(*mask, q0, mr, maskAt(j, st));
        else
          headRuns([&](int64_t first, int64_t rows, int64_t i) {
            View head = *mask;
            head.offset += (q0 + first) / g.headRows * g.maskHeadStride;
            move(head, i, rows, maskAt(j, st) + first);
          });
      }
    };
    // Kᵀ tiles (d x keys) by a transposing DMA, V rows per column strip.
    auto load = [&](size_t j) {
      if (g.paged)
        return loadPaged(j);
      if (mask)
        loadMask(j);
      const int64_t k0 = blocks[j], kr = keys(j);
      // With a length register only the keys below it are read.
      auto cut = [&](int64_t key0) {
        return g.lengthReg
                   ? Emitter::Registers{std::nullopt, 0, g.lengthReg, key0}
                   : Emitter::Registers{};
      };
      for (int64_t st = 0; st * L.T < kr; ++st)
        for (int64_t dd = 0; dd * R < g.d; ++dd)
          e.mvin(k.t(), dd * R, k0 + st * L.T, std::min(R, g.d - dd * R),
                 std::min(L.T, kr - st * L.T), Space::Spad,
                 ktAt(j) + (st * L.dStrips + dd) * R, cut(k0 + st * L.T));
      for (int64_t oo = 0; oo < L.oStrips; ++oo)
        e.mvin(v, k0, oo * C, kr, std::min(C, g.dv - oo * C), Space::Spad,
               vAt(j) + oo * g.tileKV, cut(k0));
    };
    // S = Q Kᵀ on the array.
    auto scores = [&](size_t j) {
      const int64_t kr = keys(j);
      for (int64_t st = 0; st * L.T < kr; ++st) {
        const int64_t kc = std::min(L.T, kr - st * L.T);
        for (int64_t dd = 0; dd * R < g.d; ++dd) {
          const int64_t dc = std::min(R, g.d - dd * R);
          e.preload(ktAt(j) + (st * L.dStrips + dd) * R, sAt(j, st), mr, dc, kc,
                    dd > 0);
          e.compute(qAt + dd * g.tileQ, std::nullopt, mr, dc, kc, true);
        }
      }
    };
    // The online softmax of block j on the vector unit, P into the
    // scratchpad.
    auto softmax = [&](size_t j) {
      const int64_t k0 = blocks[j], kr = keys(j);
      const int64_t strips = ceilDiv(kr, L.T);
      auto kc = [&](int64_t st) { return std::min(L.T, kr - st * L.T); };
      for (int64_t st = 0; st < strips; ++st) {
        e.vector(VecOp::Mul, sAt(j, st), sAt(j, st), std::nullopt, mr, kc(st),
                 Bcast::Scalar, g.scale);
        const int64_t key0 = k0 + st * L.T;
        if (mask)
          // s += the mask (loadMask moved it with the block's K and V).
          e.vector(VecOp::Add, sAt(j, st), sAt(j, st), maskAt(j, st), mr,
                   kc(st), g.maskOneKey ? Bcast::Row : Bcast::None);
        if (!g.paged) {
          // Keys j >= the key length, rows i >= the query length dropped;
          // the causal band (j <= i + off) and the window (j > i + off -
          // W) at off = offset (+ the register: the sequence's own end).
          // A static band masks only the strips it cuts.
          // With heads stacked, the row masks per head's run of rows.
          if (g.lengthReg)
            e.mask(VecOp::MaskKeys, sAt(j, st), mr, kc(st), -1 - key0,
                   g.lengthReg);
          const int64_t last = key0 + kc(st) - 1;
          headRuns([&](int64_t at, int64_t rows, int64_t i0) {
            const int64_t s0 = sAt(j, st) + at;
            if (g.qLengthReg)
              e.mask(VecOp::MaskRows, s0, rows, kc(st), -1 - i0, g.qLengthReg);
            if (g.causal && (!staticBand || last > i0 + g.offset))
              e.mask(VecOp::MaskCausal, s0, rows, kc(st), i0 + g.offset - key0,
                     g.offsetReg);
            if (g.window &&
                (!staticBand || key0 <= i0 + rows - 1 + g.offset - *g.window))
              e.mask(VecOp::MaskLower, s0, rows, kc(st),
                     i0 - key0 + g.offset - *g.window, g.offsetReg);
          });
          continue;
        }
        // Paged: the length is a register. Keys j >= length masked; with
        // causal queries, query i of its head keeps j <= length - sq + i
        // (which also drops the keys past the length), a mask per head's
        // rows of the block.
        const PagedKV &p = *g.paged;
        if (!p.causal || p.sq == 1) {
          e.mask(VecOp::MaskKeys, sAt(j, st), mr, kc(st), -1 - key0, p.lenReg);
          continue;
        }
        headRuns([&](int64_t at, int64_t rows, int64_t i0) {
          e.mask(VecOp::MaskCausal, sAt(j, st) + at, rows, kc(st),
                 i0 - p.sq - key0, p.lenReg);
        });
      }
      // m' = max(m, rowmax S); t = exp(m - m'); P = exp(S - m').
      e.vector(VecOp::Copy, L.tRow, L.mRow, std::nullopt, mr, 1);
      for (int64_t st = 0; st < strips; ++st)
        e.vector(VecOp::RowMax, L.mRow, sAt(j, st), std::nullopt, mr, kc(st),
                 Bcast::None, std::nullopt, std::nullopt, /*accumulate=*/true);
      e.vector(VecOp::Sub, L.tRow, L.tRow, L.mRow, mr, 1, Bcast::None,
               std::nullopt, std::nullopt, false, /*infIsZero=*/true);
      e.vector(VecOp::Exp, L.tRow, L.tRow, std::nullopt, mr, 1);
      for (int64_t st = 0; st < strips; ++st) {
        e.vector(VecOp::Sub, sAt(j, st), sAt(j, st), L.mRow, mr, kc(st),
                 Bcast::Row, std::nullopt, std::nullopt, false,
                 /*infIsZero=*/true);
        e.vector(VecOp::Exp, sAt(j, st), sAt(j, st), std::nullopt, mr, kc(st));
      }
      // l = t . l + rowsum(P); O = t . O.
      e.vector(VecOp::Mul, L.lRow, L.lRow, L.tRow, mr, 1);
      for (int64_t st = 0; st < strips; ++st)
        e.vector(VecOp::RowSum, L.lRow, sAt(j, st), std::nullopt, mr, kc(st),
                 Bcast::None, std::nullopt, std::nullopt, /*accumulate=*/true);
      for (int64_t oo = 0; oo < L.oStrips; ++oo) {
        const int64_t oAt = L.oBase + oo * g.tileQ;
        e.vector(VecOp::Mul, oAt, oAt, L.tRow, mr, std::min(C, g.dv - oo * C),
                 Bcast::Row);
      }
      // P in the input type.
      for (int64_t st = 0; st < strips; ++st)
        e.vector(VecOp::Copy, L.pBase + st * g.tileQ, sAt(j, st), std::nullopt,
                 mr, kc(st), Bcast::None, std::nullopt, std::nullopt, false,
                 false, /*toSpad=*/true);
    };
    // O += P . V on the array.
    auto values = [&](size_t j) {
      const int64_t kr = keys(j);
      for (int64_t oo = 0; oo < L.oStrips; ++oo) {
        const int64_t oc = std::min(C, g.dv - oo * C);
        for (int64_t st = 0; st * L.T < kr; ++st) {
          const int64_t kc = std::min(L.T, kr - st * L.T);
          e.preload(vAt(j) + oo * g.tileKV + st * L.T, L.oBase + oo * g.tileQ,
                    mr, kc, oc, /*accumulate=*/true);
          e.compute(L.pBase + st * g.tileQ, std::nullopt, mr, kc, oc, true);
        }
      }
    };
    // With run-time lengths, a key block that keeps no key for any row of
    // the query block is skipped: its loads and scores, and its softmax
    // and P.V. Such a block leaves the online softmax's m, l and O as they
    // were, and a block that runs reads only what its own loads and scores
    // wrote, so any block may be skipped. Skipped: every key block of a
    // query block past the query length (its rows keep nothing: O stays 0
    // and is stored); the blocks past the key length (block 0 runs: a
    // length of 0 keeps nothing anyway); with a run-time causal band those
    // past the band of the query block's last row (k0 > q0 + mr - 1 +
    // off) and, in a window, those wholly below it for its first row
    // (k0 + kr - 1 <= q0 + off - W).
    auto beginSkip = [&](size_t j) {
      SmallVector<Operation *, 4> skips;
      if (g.qLengthReg)
        skips.push_back(e.beginSkip(*g.qLengthReg, iMin));
      if (g.lengthReg && blocks[j] > 0)
        skips.push_back(e.beginSkip(*g.lengthReg, blocks[j]));
      if (g.causal && g.offsetReg)
        skips.push_back(
            e.beginSkip(*g.offsetReg, blocks[j] - iMax - 1 - g.offset));
      if (g.window && g.negOffsetReg)
        skips.push_back(e.beginSkip(
            *g.negOffsetReg,
            g.offset - (blocks[j] + keys(j) - 1 - iMin + *g.window)));
      return skips;
    };
    auto endSkip = [&](ArrayRef<Operation *> skips) {
      for (Operation *skip : llvm::reverse(skips))
        e.endSkip(skip);
    };
    // The array's cycles for the first block's scores: the vector unit
    // cannot start this query block before them.
    double firstScores = 0;
    if (!blocks.empty()) {
      auto skip = beginSkip(0);
      load(0);
      double before = e.array;
      scores(0);
      firstScores = e.array - before;
      endSkip(skip);
    }
    for (size_t j = 0; j < blocks.size(); ++j) {
      if (j + 1 < blocks.size()) {
        auto skip = beginSkip(j + 1);
        load(j + 1);
        scores(j + 1);
        endSkip(skip);
      }
      auto skip = beginSkip(j);
      softmax(j);
      values(j);
      endSkip(skip);
      // Steady state: the slowest of the DMA, the array and the vector
      // unit per block (the model of docs/systolic.md). The last block's
      // work overlaps the next query block's first loads and scores, so
      // its budget carries over into that block's.
      // The vector unit's side: on the first block, the previous query
      // block's last softmax overlaps this block's first scores, and this
      // block's softmax follows both.
      double vecSide = e.vec;
      if (j == 0) {
        vecSide = std::max(carriedVec, firstScores + fill) + e.vec;
        carriedVec = 0;
      }
      if (j + 1 == blocks.size()) {
        carriedVec = vecSide;
        e.vec = 0;
        continue;
      }
      predicted += std::max({e.dma, e.array, vecSide, e.store});
      e.array = e.vec = e.dma = e.store = 0;
    }
    // O / l (0 for a row that kept no key), then out.
    for (int64_t oo = 0; oo < L.oStrips; ++oo) {
      const int64_t oAt = L.oBase + oo * g.tileQ,
                    oc = std::min(C, g.dv - oo * C);
      e.vector(VecOp::Div, oAt, oAt, L.lRow, mr, oc, Bcast::Row, std::nullopt,
               std::nullopt, false, /*infIsZero=*/true);
      e.mvout(Space::Acc, oAt, mr, oc, o, q0, oo * C);
      // Stores have their own channel (full duplex).
      e.store += double(mr * oc * 4) / mc.dramBytesPerCycle;
    }
  }
  // The last epilogue, one DMA latency and the array's fill at the start.
  predicted += std::max({e.dma, e.array, carriedVec + e.vec, e.store}) +
               mc.dramLatency + fill;
  e.array = e.vec = e.dma = e.store = 0;
}

} // namespace

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {

struct ConvertAccelToSystolicPass
    : public mlir::accel::impl::ConvertAccelToSystolicPassBase<
          ConvertAccelToSystolicPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    options = SystolicOptions{rows,
                              cols,
                              spadKib,
                              accKib,
                              spadBanks,
                              accBanks,
                              dramBytesPerCycle,
                              dramLatency,
                              vectorLanes,
                              dataflow,
                              tileM,
                              tileN,
                              tileK,
                              attentionTileQ,
                              attentionTileKV,
                              fuseEpilogues,
                              cBuffers};
    if (failed(checkSystolicOptions(module, "convert-accel-to-systolic",
                                    options)))
      return signalPassFailure();
    SmallVector<func::FuncOp> funcs;
    for (auto f : module.getOps<func::FuncOp>())
      if (!f.isExternal())
        funcs.push_back(f);
    for (func::FuncOp f : funcs)
      if (failed(convert(f)))
        return signalPassFailure();
  }

  /// The machine and the overrides for ops without an accel.lowering_config.
  SystolicOptions options;
  /// The model's cycles for the program being built.
  double predicted = 0;
  /// The zero buffer of each K = 0 matmul without accumulate.
  DenseMap<Operation *, uint32_t> zerosOf;
  /// The vector-unit kernel of each elementwise op of the function.
  DenseMap<Operation *, SystolicElementwise> elementwise;
  /// Each matmul with work to schedule: its shape, schedule and the
  /// epilogue applied to its C blocks (when schedule.epilogue).
  struct MatmulPlan {
    SystolicMatmulShape shape;
    SystolicMatmulSchedule schedule;
    std::optional<SystolicEpilogue> epilogue;
  };
  DenseMap<Operation *, MatmulPlan> plans;
  /// The elementwise ops a matmul applies (emitted with it), and the fills
  /// only reductions read (as their constant initial value): neither is a
  /// kernel of its own.
  DenseSet<Operation *> fused;
  /// The vector-unit kernel of each softmax.
  DenseMap<Operation *, SystolicSoftmax> softmaxes;
  DenseMap<Operation *, SystolicDequant> dequants;
  /// Where each tensor of the function lives in DRAM (SystolicLayout.h).
  std::optional<SystolicLayouts> layouts;
  /// The bytes of the function's scratch values (before planning).
  int64_t scratchTensorBytes = 0;

  /// Gives each scratch root (in `roots`, program order) a buffer: values
  /// whose lives do not meet share one (of their element type, as large as
  /// the largest), as the GPU programs' temporaries share their workspace.
  /// A value lives from the first op that writes it (through placements)
  /// to the last that reads it (through views), where the program runs
  /// them (an epilogue applied to C's blocks at its matmul, `runsAt`).
  /// `newBuffer` adds one. Returns the values' bytes in all.
  int64_t
  planScratch(func::FuncOp func, ArrayRef<Value> roots,
              const DenseMap<Operation *, Operation *> &runsAt,
              DenseMap<Value, uint32_t> &bufferOf,
              llvm::function_ref<uint32_t(RankedTensorType)> newBuffer) {
    DenseMap<Operation *, int64_t> position;
    int64_t index = 0;
    for (Operation &op : func.getBody().front())
      position[&op] = index++;
    auto at = [&](Operation *op) {
      Operation *runs = runsAt.lookup(op);
      return position.lookup(runs ? runs : op);
    };
    // Each root's last read: any op reading a value laid out in it.
    DenseMap<Value, int64_t> lastRead;
    for (Operation &op : func.getBody().front())
      for (Value v : op.getOperands())
        if (const DramLayout *l = layouts->lookup(v)) {
          int64_t &last = lastRead[l->root];
          last = std::max(last, at(&op));
        }
    struct Life {
      Value root;
      int64_t first, last;
    };
    SmallVector<Life> lives;
    int64_t bytes = 0;
    for (Value r : roots) {
      SmallVector<Operation *> writers;
      getSystolicWriters(r, writers);
      int64_t first = at(r.getDefiningOp()), last = first;
      for (Operation *w : writers) {
        first = std::min(first, at(w));
        last = std::max(last, at(w));
      }
      last = std::max(last, lastRead.lookup(r));
      lives.push_back({r, first, last});
      auto type = cast<RankedTensorType>(r.getType());
      bytes += type.getNumElements() *
               isa::elemBytes(*getSystolicElemType(type.getElementType()));
    }
    llvm::stable_sort(
        lives, [](const Life &a, const Life &b) { return a.first < b.first; });
    // Greedy by first write: the free buffer of the type that is largest
    // already (it grows the least), else a new one.
    struct Slot {
      Type elem;
      int64_t elems, last;
      SmallVector<Value> roots;
    };
    SmallVector<Slot> slots;
    for (const Life &life : lives) {
      auto type = cast<RankedTensorType>(life.root.getType());
      Slot *best = nullptr;
      for (Slot &s : slots)
        if (s.elem == type.getElementType() && s.last < life.first &&
            (!best || s.elems > best->elems))
          best = &s;
      if (!best) {
        slots.push_back({type.getElementType(), 0, 0, {}});
        best = &slots.back();
      }
      best->elems = std::max(best->elems, type.getNumElements());
      best->last = life.last;
      best->roots.push_back(life.root);
    }
    for (Slot &s : slots) {
      // One value keeps its own shape; a shared buffer is flat.
      RankedTensorType type =
          s.roots.size() == 1
              ? cast<RankedTensorType>(s.roots.front().getType())
              : RankedTensorType::get({s.elems}, s.elem);
      uint32_t id = newBuffer(type);
      for (Value r : s.roots)
        bufferOf[r] = id;
    }
    return bytes;
  }

  /// The machine for a program of `input` elements.
  isa::MachineConfig machine(isa::ElemType input) const {
    return getSystolicMachine(options, input);
  }

  LogicalResult convert(func::FuncOp func) {
    // What the function holds, and its one input type.
    std::optional<isa::ElemType> input;
    Operation *firstCompute = nullptr;
    // Elementwise generics and fills: kernels of the vector unit
    // (SystolicElementwise.h).
    elementwise.clear();
    softmaxes.clear();
    dequants.clear();
    SmallVector<DequantMatmulOp> dequantOps;
    SmallVector<SoftmaxOp> softmaxOps;
    SmallVector<Operation *> kernels;
    for (Operation &op : func.getBody().front()) {
      Type in;
      // Softmaxes: kernels of the vector unit (SystolicSoftmax.h), checked
      // once the machine is known.
      if (auto sm = dyn_cast<SoftmaxOp>(op)) {
        softmaxOps.push_back(sm);
        continue;
      }
      if (llvm::isa<linalg::GenericOp, linalg::FillOp>(op)) {
        kernels.push_back(&op);
        continue;
      }
      if (auto mm = dyn_cast<MatmulOp>(op)) {
        in = mm.getLhs().getType().getElementType();
        if (mm.getLhsScale())
          return mm.emitOpError("with scales has no systolic lowering (the "
                                "array takes plain i8, bf16 or f32 inputs)");
        auto t = getSystolicElemType(in);
        Type out = mm.getInit().getType().getElementType();
        if (!t || *t == isa::ElemType::I32 ||
            in != mm.getRhs().getType().getElementType() || !getSystolicElemType(out) ||
            (in.isInteger(8) != out.isInteger(32)))
          return mm.emitOpError("of ")
                 << in << " x " << mm.getRhs().getType().getElementType()
                 << " -> " << out
                 << " has no systolic lowering: the array multiplies i8 "
                    "(into i32), bf16 or f32 (into f32, stored as f32 or "
                    "bf16)";
        if (!mm.getInit().getType().hasStaticShape() ||
            !mm.getLhs().getType().hasStaticShape() ||
            !mm.getRhs().getType().hasStaticShape())
          return mm.emitOpError("needs static shapes on the systolic target");
      } else if (auto dq = dyn_cast<DequantMatmulOp>(op)) {
        // Weight-only quantised weights: the program's input type is A's
        // (SystolicDequant.h), checked once the machine is known.
        in = cast<RankedTensorType>(dq.getLhs().getType()).getElementType();
        if (!in.isF32() && !in.isBF16())
          return dq.emitOpError("with ")
                 << in
                 << " activations has no systolic lowering (the array takes "
                    "bf16 and f32)";
        dequantOps.push_back(dq);
      } else if (auto at = dyn_cast<AttentionOp>(op)) {
        in = at.getQuery().getType().getElementType();
        for (Value len : {at.getKvLengths(), at.getQLengths()})
          if (len && !cast<RankedTensorType>(len.getType())
                          .getElementType()
                          .isInteger(32))
            return at.emitOpError("with i64 sequence lengths has no "
                                  "systolic lowering (the machine's scalar "
                                  "loads read i32)");
        if (Value mask = at.getMask()) {
          auto mt = cast<RankedTensorType>(mask.getType());
          if (!mt.getElementType().isF32() && !mt.getElementType().isBF16() &&
              !mt.getElementType().isInteger(1))
            return at.emitOpError("with a ")
                   << mt.getElementType()
                   << " mask has no systolic lowering (boolean i1 and "
                      "additive f32 or bf16 masks do: the DMA widens them "
                      "into the accumulator)";
        }
        auto t = getSystolicElemType(in);
        Type out = at.getInit().getType().getElementType();
        if (!t || *t == isa::ElemType::I8 || *t == isa::ElemType::I32 ||
            !getSystolicElemType(out))
          return at.emitOpError("of ")
                 << in << " -> " << out
                 << " has no systolic lowering: attention runs on bf16 or "
                    "f32 inputs with f32 or bf16 outputs";
        for (Value v :
             {at.getQuery(), at.getKey(), at.getValue(), at.getInit()})
          if (!cast<RankedTensorType>(v.getType()).hasStaticShape())
            return at.emitOpError("needs static shapes on the systolic "
                                  "target");
        if (Value d = at.getDiagonal()) {
          APInt value;
          if (!matchPattern(d, m_ConstantInt(&value)))
            return at.emitOpError("with a non-constant diagonal has no "
                                  "systolic lowering");
        }
      } else if (auto pa = dyn_cast<PagedAttentionOp>(op)) {
        in = pa.getQuery().getType().getElementType();
        auto t = getSystolicElemType(in);
        Type out = pa.getInit().getType().getElementType();
        if (!t || *t == isa::ElemType::I8 || *t == isa::ElemType::I32 ||
            !getSystolicElemType(out))
          return pa.emitOpError("of ")
                 << in << " -> " << out
                 << " has no systolic lowering: attention runs on bf16 or "
                    "f32 inputs with f32 or bf16 outputs";
        for (Value v : {pa.getQuery(), pa.getKeyCache(), pa.getValueCache(),
                        pa.getBlockTable(), pa.getKvLengths(), pa.getInit()})
          if (!cast<RankedTensorType>(v.getType()).hasStaticShape())
            return pa.emitOpError("needs static shapes on the systolic "
                                  "target (the batch and the pool's pages "
                                  "included)");
        if (!pa.getBlockTable().getType().getElementType().isInteger(32) ||
            !cast<RankedTensorType>(pa.getKvLengths().getType())
                 .getElementType()
                 .isInteger(32))
          return pa.emitOpError("with an i64 block table or lengths has no "
                                "systolic lowering (the machine's scalar "
                                "loads read i32)");
      } else if (auto cat = dyn_cast<tensor::ConcatOp>(op)) {
        // Its inputs' kernels write their parts of its buffer
        // (SystolicLayout.h).
        auto type = cat.getResultType();
        if (!type.hasStaticShape() ||
            int64_t(cat.getDim()) != type.getRank() - 1)
          return cat.emitOpError(
              "has no systolic lowering: the kernels of a concatenation's "
              "inputs write their parts of its buffer, along the last "
              "dimension of static tensors");
        continue;
      } else if (auto ins = dyn_cast<tensor::InsertSliceOp>(op)) {
        // Its source's kernel writes its slice of the destination's buffer
        // (SystolicLayout.h).
        if (!isSystolicInsertion(ins))
          return ins.emitOpError(
              "has no systolic lowering: the kernel of an inserted slice "
              "writes it into the destination's buffer, for static offsets, "
              "sizes and strides and a source of the destination's rank");
        continue;
      } else if (isSystolicView(&op)) {
        // Another shape of its source's bytes (SystolicLayout.h).
        continue;
      } else if (llvm::isa<tensor::EmptyOp, arith::ConstantOp, func::ReturnOp>(
                     op)) {
        continue;
      } else {
        return op.emitOpError("has no systolic lowering (a systolic program "
                              "holds accel.matmul, accel.dequant_matmul, "
                              "accel.attention, accel.paged_attention and "
                              "accel.softmax ops and "
                              "elementwise linalg.generic and linalg.fill "
                              "ops)");
      }
      auto t = *getSystolicElemType(in);
      if (input && *input != t)
        return op.emitOpError("takes ")
               << in << " inputs but an earlier op of @" << func.getSymName()
               << " takes " << isa::elemTypeName(*input)
               << ": a systolic program has one input type";
      input = t;
      if (!firstCompute)
        firstCompute = &op;
    }
    if (!input && kernels.empty() && softmaxOps.empty())
      return func.emitOpError("has no accel.matmul, accel.attention, "
                              "accel.softmax or elementwise op to compile "
                              "for the systolic array");
    // A program of vector-unit kernels alone runs on an f32 machine.
    if (!input)
      input = isa::ElemType::F32;
    isa::MachineConfig mc = machine(*input);
    // Where every tensor lives, then the vector-unit kernels that read and
    // write them.
    FailureOr<SystolicLayouts> laid = SystolicLayouts::build(func);
    if (failed(laid))
      return failure();
    layouts = std::move(*laid);
    for (Operation *op : kernels) {
      FailureOr<SystolicElementwise> k =
          analyzeSystolicElementwise(op, *layouts);
      if (failed(k))
        return failure();
      elementwise[op] = std::move(*k);
    }
    for (Operation &op : func.getBody().front()) {
      auto it = elementwise.find(&op);
      if (it == elementwise.end())
        continue;
      if (mc.accType != isa::ElemType::F32)
        return op.emitOpError("has no systolic lowering in a program of i8 "
                              "matmuls: the vector unit works on an f32 "
                              "accumulator, theirs is i32");
      // A reduction's rows also keep their result column.
      int slots = it->second.slots + (it->second.reduce ? 1 : 0);
      if (slots > int64_t(mc.accRows))
        return op.emitOpError("has no systolic lowering: its body keeps ")
               << slots << " values at once, more than the accumulator's "
               << mc.accRows << " rows";
    }
    if (mc.spadRows < 1 || mc.accRows < 1)
      return func.emitOpError("the SRAMs hold less than one row of the "
                              "array (spad-kib / acc-kib too small)");
    for (SoftmaxOp sm : softmaxOps) {
      FailureOr<SystolicSoftmax> k = analyzeSystolicSoftmax(sm, mc);
      if (failed(k))
        return failure();
      softmaxes[sm] = *k;
    }
    for (DequantMatmulOp dq : dequantOps) {
      FailureOr<SystolicOptions> o = getSystolicOverrides(dq, options);
      if (failed(o))
        return failure();
      FailureOr<SystolicDequant> k = analyzeSystolicDequant(dq, mc, *o);
      if (failed(k))
        return failure();
      dequants[dq] = *k;
    }
    // Every matmul's schedule, and the epilogues applied to C's blocks.
    plans.clear();
    fused.clear();
    // A fill read only as a reduction's initial value: the reduction takes
    // the constant, so the fill writes nothing anyone reads.
    for (auto &[op, k] : elementwise) {
      if (!llvm::isa<linalg::FillOp>(op))
        continue;
      bool onlyInits = !op->getResult(0).use_empty();
      for (OpOperand &use : op->getResult(0).getUses()) {
        auto it = elementwise.find(use.getOwner());
        auto g = dyn_cast<linalg::GenericOp>(use.getOwner());
        onlyInits &= it != elementwise.end() && it->second.reduce && g &&
                     g.isDpsInit(&use);
      }
      if (onlyInits)
        fused.insert(op);
    }
    for (Operation &op : func.getBody().front())
      if (auto mm = dyn_cast<MatmulOp>(op))
        if (failed(planMatmul(mm, mc)))
          return failure();
    // An epilogue applied to C's blocks runs where its matmul does: an
    // insertion into a written destination (updated in place) still needs
    // every writer of the destination to run before the slice's.
    DenseMap<Operation *, Operation *> runsAt;
    for (auto &[mm, plan] : plans)
      if (plan.epilogue)
        runsAt[plan.epilogue->kernel.op] = mm;
    for (Operation &op : func.getBody().front()) {
      auto ins = dyn_cast<tensor::InsertSliceOp>(op);
      if (!ins || ins.getDest().getDefiningOp<tensor::EmptyOp>())
        continue;
      SmallVector<Operation *> before, after;
      getSystolicWriters(ins.getDest(), before);
      getSystolicWriters(ins.getSource(), after);
      for (Operation *a : before)
        for (Operation *b : after) {
          Operation *ra = runsAt.lookup(a) ? runsAt.lookup(a) : a;
          Operation *rb = runsAt.lookup(b) ? runsAt.lookup(b) : b;
          if (!ra->isBeforeInBlock(rb))
            return ins.emitOpError(
                       "has no systolic lowering: the destination is updated "
                       "in place, but '")
                   << b->getName()
                   << "', which writes the slice, is applied to a matmul's "
                      "C blocks and so runs before '"
                   << a->getName() << "', which writes the destination";
        }
    }

    // DRAM buffers: arguments, results, then scratch.
    MLIRContext *ctx = func.getContext();
    SmallVector<Attribute> buffers;
    DenseMap<Value, uint32_t> bufferOf;
    auto addBuffer = [&](StringRef name, systolic::BufferRole role,
                         uint32_t position, RankedTensorType type) {
      buffers.push_back(
          systolic::BufferAttr::get(ctx, name, role, position, type));
      return uint32_t(buffers.size() - 1);
    };
    for (BlockArgument a : func.getArguments()) {
      auto t = dyn_cast<RankedTensorType>(a.getType());
      // A boolean tensor is its storage, a byte an element (0 or 1): an i8
      // buffer, which only a boolean mask's moves read (`unpack mask`).
      if (t && t.getElementType().isInteger(1))
        t = t.clone(IntegerType::get(ctx, 8));
      if (!t || !t.hasStaticShape() || !getSystolicElemType(t.getElementType()))
        return func.emitOpError("argument #")
               << a.getArgNumber() << " of type " << a.getType()
               << " cannot be a systolic DRAM buffer (static tensors of i1, "
                  "i8, i32, bf16 or f32)";
      bufferOf[a] = addBuffer(("arg" + Twine(a.getArgNumber())).str(),
                              systolic::BufferRole::Arg, a.getArgNumber(), t);
    }
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
      Operation *def = v.getDefiningOp();
      // (A returned view is its own root, SystolicLayouts::build.)
      if (!def || !layouts->isRoot(v) ||
          (!llvm::isa<MatmulOp, DequantMatmulOp, AttentionOp, PagedAttentionOp,
                      SoftmaxOp, tensor::ConcatOp, tensor::InsertSliceOp>(
               def) &&
           !isSystolicView(def) && !elementwise.count(def)))
        return ret.emitOpError("result #")
               << i
               << " is not computed by an accel op; a systolic program only "
                  "returns what it computes";
      if (bufferOf.count(v))
        return ret.emitOpError("returns the value of result #")
               << i << " twice; a systolic program writes each once";
      // The op checks above admit only DRAM element types.
      auto t = cast<RankedTensorType>(v.getType());
      bufferOf[v] = addBuffer(("result" + Twine(i)).str(),
                              systolic::BufferRole::Result, i, t);
    }
    // The scratch values (roots that are neither arguments nor results),
    // in program order; their buffers are planned below.
    SmallVector<Value> scratchRoots;
    for (Operation &op : func.getBody().front()) {
      // A C that only its applied epilogue reads never reaches DRAM, nor
      // a fill that only reductions read.
      auto plan = plans.find(&op);
      if (plan != plans.end() && plan->second.epilogue &&
          !plan->second.epilogue->storeC)
        continue;
      if (llvm::isa<linalg::FillOp>(op) && fused.count(&op))
        continue;
      // A result written into another's buffer (placed: part of a
      // concatenation, or laid out as a view of it reads) has none of its
      // own; nor has a view of another buffer.
      if (op.getNumResults() != 1 || !layouts->isRoot(op.getResult(0)))
        continue;
      if ((llvm::isa<MatmulOp, DequantMatmulOp, AttentionOp, PagedAttentionOp,
                     SoftmaxOp, tensor::ConcatOp, tensor::InsertSliceOp>(op) ||
           isSystolicView(&op) || elementwise.count(&op)) &&
          !bufferOf.count(op.getResult(0)))
        scratchRoots.push_back(op.getResult(0));
    }
    unsigned scratch = 0;
    scratchTensorBytes = planScratch(
        func, scratchRoots, runsAt, bufferOf, [&](RankedTensorType type) {
          return addBuffer(("tmp" + Twine(scratch++)).str(),
                           systolic::BufferRole::Scratch, 0, type);
        });
    // What the elementwise kernels read is in DRAM (C of an applied
    // epilogue is in the accumulator).
    for (Operation &op : func.getBody().front()) {
      auto it = elementwise.find(&op);
      if (it == elementwise.end())
        continue;
      for (auto [i, in] : llvm::enumerate(it->second.inputs)) {
        auto plan = plans.find(in.value.getDefiningOp());
        if (plan != plans.end() && plan->second.epilogue &&
            plan->second.epilogue->kernel.op == &op &&
            int(i) == plan->second.epilogue->cInput)
          continue;
        if (!bufferOf.count(in.value))
          return op.emitOpError("reads a value that is not in DRAM (a "
                                "function argument or the result of an op "
                                "of the program)");
      }
    }
    // K = 0 without accumulate is all zeros: copied from a scratch buffer
    // (scratch starts zeroed, ISA.h) through the accumulator.
    zerosOf.clear();
    for (Operation &op : func.getBody().front())
      if (auto mm = dyn_cast<MatmulOp>(op);
          mm && !mm.getAccumulate() &&
          mm.getLhs().getType().getShape().back() == 0) {
        auto t = mm.getInit().getType();
        // (Counted with the scratch values: it is one, never shared.)
        scratchTensorBytes += t.getNumElements() * 4;
        zerosOf[mm] =
            addBuffer(("zeros" + Twine(scratch++)).str(),
                      systolic::BufferRole::Scratch, 0,
                      RankedTensorType::get(
                          t.getShape(), mc.accType == isa::ElemType::I32
                                            ? Type(IntegerType::get(ctx, 32))
                                            : Type(Float32Type::get(ctx))));
      }

    // The program replaces the function.
    OpBuilder b(func);
    Location loc = func.getLoc();
    auto config = systolic::ConfigAttr::get(
        ctx, mc.rows, mc.cols,
        firstCompute
            ? cast<RankedTensorType>(firstCompute->getOperand(0).getType())
                  .getElementType()
            : Type(b.getF32Type()),
        mc.accType == isa::ElemType::I32 ? Type(b.getI32Type())
                                         : Type(b.getF32Type()),
        mc.spadRows, mc.spadBanks, mc.accRows, mc.accBanks,
        llvm::APFloat(mc.dramBytesPerCycle), mc.dramLatency, mc.vectorLanes);
    auto program = systolic::ProgramOp::create(b, loc, func.getSymName(),
                                               config, b.getArrayAttr(buffers));
    OpBuilder body = OpBuilder::atBlockEnd(&program.getBodyBlock());
    Emitter e(body, loc, mc);
    int headToggle = 0;
    predicted = 0;
    for (Operation &op : func.getBody().front()) {
      if (auto mm = dyn_cast<MatmulOp>(op)) {
        if (failed(emitMatmul(e, mm, bufferOf, mc)))
          return failure();
      } else if (auto at = dyn_cast<AttentionOp>(op)) {
        if (failed(emitAttention(e, at, bufferOf, mc, headToggle)))
          return failure();
      } else if (auto pa = dyn_cast<PagedAttentionOp>(op)) {
        if (failed(emitPagedAttention(e, pa, bufferOf, mc, headToggle)))
          return failure();
      } else if (auto dq = dyn_cast<DequantMatmulOp>(op)) {
        if (failed(emitDequant(e, dq, bufferOf, mc)))
          return failure();
      } else if (auto it = elementwise.find(&op);
                 it != elementwise.end() && !fused.count(&op)) {
        predicted += emitSystolicElementwise(e, it->second, bufferOf);
      } else if (auto sm = softmaxes.find(&op); sm != softmaxes.end()) {
        std::optional<Dram> in = dram(bufferOf, sm->second.input),
                            out = dram(bufferOf, sm->second.result);
        if (!in || !out)
          return op.emitOpError("reads a value that is not in DRAM (a "
                                "function argument or the result of an op "
                                "of the program)");
        auto inRows = in->layout->rows(in->shape),
             outRows = out->layout->rows(out->shape);
        if (!inRows || !outRows)
          return op.emitOpError("reads its input through a view whose "
                                "dimensions do not flatten into rows of "
                                "contiguous elements at one stride");
        predicted += predictSystolicSoftmaxCycles(sm->second, mc);
        emitSystolicSoftmax(e, sm->second,
                            View{in->buffer, inRows->first, inRows->second,
                                 false},
                            View{out->buffer, outRows->first, outRows->second,
                                 false});
      }
    }
    e.fence();
    // What the schedule model expects the simulator to measure (accel-run
    // prints both).
    program->setAttr("predicted_cycles",
                     b.getI64IntegerAttr(int64_t(std::llround(predicted))));
    // The scratch values' bytes before they share buffers (the buffers'
    // own sizes are in the buffer table).
    program->setAttr("scratch_tensor_bytes",
                     b.getI64IntegerAttr(scratchTensorBytes));
    func.erase();
    return success();
  }

  /// Where `v` is in DRAM: its layout and its root's buffer (an
  /// argument, a result or scratch); std::nullopt when it is not in DRAM.
  struct Dram {
    const DramLayout *layout;
    uint32_t buffer;
    ArrayRef<int64_t> shape;

    /// The matrix of the last two dimensions at index `outer` of the
    /// others (flattened).
    std::optional<View> matrix(int64_t outer) const {
      return layout->matrix(buffer, shape, layout->offsetOf(shape, outer));
    }
  };
  std::optional<Dram> dram(const DenseMap<Value, uint32_t> &bufferOf,
                           Value v) const {
    const DramLayout *l = layouts->lookup(v);
    if (!l)
      return std::nullopt;
    auto it = bufferOf.find(l->root);
    if (it == bufferOf.end())
      return std::nullopt;
    return Dram{l, it->second, cast<RankedTensorType>(v.getType()).getShape()};
  }
  /// The DMA views of `ref`'s matrices, one per index of its outer
  /// dimensions; a located error when neither of the last two dimensions
  /// is contiguous in its layout.
  static FailureOr<SmallVector<View>> matrices(Operation *op, StringRef what,
                                               const Dram &ref) {
    SmallVector<View> views;
    const int64_t outer = computeProduct(ref.shape.drop_back(
        std::min<size_t>(2, ref.shape.size())));
    for (int64_t i = 0; i < outer; ++i) {
      std::optional<View> v = ref.matrix(i);
      if (!v)
        return op->emitOpError("reads or writes its ")
               << what
               << " through a view whose last two dimensions are both "
                  "strided (the DMA moves rows or columns of contiguous "
                  "elements)";
      views.push_back(*v);
    }
    return views;
  }

  /// The schedule of `mm` (none for an empty C or K = 0), with the
  /// epilogue applied to its C blocks where the configuration stage's rule
  /// (configureSystolicMatmul) allows it.
  LogicalResult planMatmul(MatmulOp mm, const isa::MachineConfig &mc) {
    auto aType = mm.getLhs().getType();
    auto cType = mm.getInit().getType();
    int64_t rank = cType.getRank();
    // Every config is checked, also where an empty problem needs none.
    FailureOr<SystolicOptions> o = getSystolicOverrides(mm, options);
    if (failed(o))
      return failure();
    SystolicMatmulShape shape;
    shape.m = cType.getDimSize(rank - 2);
    shape.n = cType.getDimSize(rank - 1);
    shape.k = aType.getDimSize(rank - 1);
    if (shape.m == 0 || shape.n == 0 || shape.k == 0 ||
        computeProduct(cType.getShape().drop_back(2)) == 0)
      return success();
    shape.inBytes = isa::elemBytes(mc.inputType);
    shape.outBytes =
        isa::elemBytes(*getSystolicElemType(cType.getElementType()));
    shape.accumulate = mm.getAccumulate();
    std::optional<SystolicEpilogue> epilogue, seeded;
    if (o->fuseEpilogues)
      epilogue = matchSystolicEpilogue(mm, [&](Operation *op) {
        auto it = elementwise.find(op);
        return it == elementwise.end() ? nullptr : &it->second;
      });
    if (epilogue) {
      shape.epilogue = describeSystolicEpilogue(*epilogue, mc);
      if (!mm.getAccumulate())
        seeded = seedSystolicEpilogue(*epilogue);
      if (seeded)
        shape.seededEpilogue = describeSystolicEpilogue(*seeded, mc);
    }
    FailureOr<SystolicMatmulSchedule> schedule =
        configureSystolicMatmul(mm, mc, shape, *o);
    if (failed(schedule))
      return failure();
    if (schedule->seeded)
      epilogue = seeded;
    else if (!schedule->epilogue)
      epilogue.reset();
    if (epilogue)
      fused.insert(epilogue->kernel.op);
    plans[mm] = {shape, *schedule, epilogue};
    return success();
  }

  LogicalResult emitMatmul(Emitter &e, MatmulOp mm,
                           const DenseMap<Value, uint32_t> &bufferOf,
                           const isa::MachineConfig &mc) {
    auto aType = mm.getLhs().getType();
    auto cType = mm.getInit().getType();
    int64_t rank = cType.getRank();
    int64_t m = cType.getDimSize(rank - 2), n = cType.getDimSize(rank - 1);
    int64_t k = aType.getDimSize(rank - 1);
    int64_t batch = computeProduct(cType.getShape().drop_back(2));
    std::optional<Dram> aRef = dram(bufferOf, mm.getLhs()),
                        bRef = dram(bufferOf, mm.getRhs());
    if (!aRef || !bRef)
      return mm.emitOpError("reads a value that is not in DRAM (a function "
                            "argument or an accel op's result)");
    std::optional<Dram> c0Ref;
    if (mm.getAccumulate()) {
      c0Ref = dram(bufferOf, mm.getInit());
      if (!c0Ref)
        return mm.emitOpError("accumulates into a value that is not in DRAM "
                              "(a function argument or an accel op's "
                              "result)");
    }
    if (m == 0 || n == 0 || batch == 0)
      return success(); // an empty C: nothing to write
    // Each batch's matrices. (C has no buffer, and is not stored, when only
    // the applied epilogue reads it.)
    FailureOr<SmallVector<View>> as = matrices(mm, "A", *aRef),
                                 bs = matrices(mm, "B", *bRef);
    if (failed(as) || failed(bs))
      return failure();
    // C stays in the accumulator, with no buffer, only when the applied
    // epilogue alone reads it (its views are then never used).
    auto planned = plans.find(mm);
    const bool cInAccumulator = planned != plans.end() &&
                                planned->second.epilogue &&
                                !planned->second.epilogue->storeC;
    SmallVector<View> cs(batch, View{}), c0s;
    if (!cInAccumulator) {
      std::optional<Dram> cRef = dram(bufferOf, mm.getResult());
      if (!cRef)
        return mm.emitOpError("writes a result that has no DRAM buffer");
      FailureOr<SmallVector<View>> v = matrices(mm, "C", *cRef);
      if (failed(v))
        return failure();
      cs = *v;
    }
    if (c0Ref) {
      FailureOr<SmallVector<View>> v = matrices(mm, "initial C", *c0Ref);
      if (failed(v))
        return failure();
      c0s = *v;
    }
    if (k == 0) {
      // Nothing to multiply: C (or zeros) through the accumulator.
      const int64_t chunk =
          std::min<int64_t>(mc.accRows, std::max<int64_t>(m, 1));
      for (int64_t bi = 0; bi < batch; ++bi) {
        View src = c0Ref ? c0s[bi]
                         : View{zerosOf.lookup(mm), bi * m * n, n, false};
        for (int64_t r0 = 0; r0 < m; r0 += chunk)
          for (int64_t c0 = 0; c0 < n; c0 += mc.cols) {
            const int64_t rr = std::min(chunk, m - r0),
                          cc = std::min<int64_t>(mc.cols, n - c0);
            e.mvin(src, r0, c0, rr, cc, systolic::Space::Acc, 0);
            e.mvout(systolic::Space::Acc, 0, rr, cc, cs[bi], r0, c0);
          }
      }
      return success();
    }

    const MatmulPlan &plan = plans.find(mm)->second;
    const SystolicMatmulSchedule &schedule = plan.schedule;
    predicted += batch * predictSystolicMatmulCycles(mc, plan.shape, schedule);
    for (int64_t bi = 0; bi < batch; ++bi) {
      // B is stored [N, K] under transpose_b: its matrix read transposed.
      View a = (*as)[bi], bv = mm.getTransposeB() ? (*bs)[bi].t() : (*bs)[bi];
      View c = cs[bi];
      std::optional<View> c0;
      if (c0Ref)
        c0 = c0s[bi];
      // The epilogue on each finished strip of C: C stored first when
      // something else reads it, then its other inputs moved in next to it
      // (two sets of slots alternating between strips), its program, its
      // result stored.
      int set = 0;
      auto strip = [&](int64_t accRow, int64_t rows, int64_t cols, int64_t r0,
                       int64_t col0, int64_t spareRow) {
        const SystolicEpilogue &ep = *plan.epilogue;
        if (ep.storeC)
          e.mvout(systolic::Space::Acc, accRow, rows, cols, c, r0, col0);
        // In pieces of the schedule's epilogue rows, the sets alternating.
        const int64_t slotRows =
            schedule.epilogueRows
                ? std::min(schedule.epilogueRows, schedule.tileM)
                : schedule.tileM;
        const int64_t slots = ep.kernel.slots - 1;
        for (int64_t r = 0; r < rows; r += slotRows) {
          emitSystolicEpilogue(e, ep, bufferOf, bi, r0 + r, col0,
                               std::min(slotRows, rows - r), cols, accRow + r,
                               spareRow + set * slots * slotRows, slotRows);
          set ^= 1;
        }
      };
      // A bias (or residual) the epilogue adds first is C's initial value.
      auto seed = [&](int64_t accRow, int64_t rows, int64_t cols, int64_t r0,
                      int64_t col0) {
        emitSystolicEpilogueInit(e, *plan.epilogue, bufferOf, bi, r0, col0,
                                 rows, cols, accRow);
      };
      StripEpilogue epilogue = nullptr;
      StripInit init = nullptr;
      if (plan.epilogue)
        epilogue = strip;
      if (plan.epilogue && plan.epilogue->initInput >= 0)
        init = seed;
      switch (schedule.dataflow) {
      case SystolicDataflow::WS:
        emitBlockedMatmul(e, systolic::Dataflow::WS, a, bv, c, c0, m, k, n,
                          schedule.tileM, schedule.tileN, schedule.tileK,
                          schedule.cBuffers, epilogue, init);
        break;
      case SystolicDataflow::OS:
        emitBlockedMatmul(e, systolic::Dataflow::OS, a, bv, c, c0, m, k, n,
                          schedule.tileM, schedule.tileN, schedule.tileK,
                          schedule.cBuffers, epilogue, init);
        break;
      case SystolicDataflow::IS: {
        // Never with an epilogue (configureSystolicMatmul).
        std::optional<View> c0t;
        if (c0)
          c0t = c0->t();
        emitBlockedMatmul(e, systolic::Dataflow::WS, bv.t(), a.t(), c.t(), c0t,
                          n, k, m, schedule.tileM, schedule.tileN,
                          schedule.tileK, schedule.cBuffers);
        break;
      }
      }
    }
    return success();
  }

  /// A weight-only quantised matmul (SystolicDequant.h): A's and C's rows
  /// at one stride, the weights, scales and zero points whole buffers.
  LogicalResult emitDequant(Emitter &e, DequantMatmulOp dq,
                            const DenseMap<Value, uint32_t> &bufferOf,
                            const isa::MachineConfig &mc) {
    const SystolicDequant &k = dequants.find(dq)->second;
    SystolicDequantOperands ops;
    auto rowsOf = [&](Value v, StringRef what) -> FailureOr<View> {
      std::optional<Dram> d = dram(bufferOf, v);
      if (!d)
        return dq.emitOpError("reads or writes ")
               << what
               << " that is not in DRAM (a function argument or an accel "
                  "op's result)";
      auto r = d->layout->rows(d->shape);
      if (!r)
        return dq.emitOpError() << "reads or writes " << what
                                << " through a view whose dimensions do not "
                                   "flatten into rows at one stride";
      return View{d->buffer, r->first, r->second, false};
    };
    auto wholeOf = [&](Value v, StringRef what) -> FailureOr<uint32_t> {
      std::optional<Dram> d = dram(bufferOf, v);
      auto shape = cast<RankedTensorType>(v.getType()).getShape();
      auto r = d ? d->layout->rows(shape) : std::nullopt;
      if (!d || !r || r->first != 0 || r->second != shape.back())
        return dq.emitOpError("reads its ")
               << what
               << " through a view; the systolic array reads them as whole "
                  "row-major buffers";
      return d->buffer;
    };
    FailureOr<View> a = rowsOf(dq.getLhs(), "A");
    if (failed(a))
      return failure();
    FailureOr<uint32_t> w = wholeOf(dq.getWeights(), "weights"),
                        s = wholeOf(dq.getScales(), "scales");
    if (failed(w) || failed(s))
      return failure();
    ops.a = *a;
    ops.weights = *w;
    ops.scales = *s;
    if (Value z = dq.getZeroPoints()) {
      FailureOr<uint32_t> zb = wholeOf(z, "zero points");
      if (failed(zb))
        return failure();
      ops.zeroPoints = *zb;
    }
    if (k.m == 0 || k.n == 0)
      return success();
    FailureOr<View> c = rowsOf(dq.getResult(), "C");
    if (failed(c))
      return failure();
    ops.c = *c;
    predicted += predictSystolicDequantCycles(k, mc);
    emitSystolicDequant(e, k, ops);
    return success();
  }

  /// accel.paged_attention: per sequence, its length into a register
  /// (checked against the table's N * T tokens: the machine stops
  /// otherwise); per KV head, the query heads that share it stacked into
  /// one block of rows (when Q's and O's layouts put them one after the
  /// other; else one head at a time) and the attention of
  /// emitAttentionHead over the pages the table names.
  LogicalResult emitPagedAttention(Emitter &e, PagedAttentionOp pa,
                                   const DenseMap<Value, uint32_t> &bufferOf,
                                   const isa::MachineConfig &mc, int &toggle) {
    auto qType = pa.getQuery().getType(), kType = pa.getKeyCache().getType();
    auto tType = pa.getBlockTable().getType();
    const int64_t B = qType.getDimSize(0), hq = qType.getDimSize(1),
                  sq = qType.getDimSize(2), pageTokens = kType.getDimSize(1),
                  hkv = kType.getDimSize(2), pages = tType.getDimSize(1);
    if (B == 0 || hq == 0 || sq == 0)
      return success();
    std::optional<Dram> qRef = dram(bufferOf, pa.getQuery()),
                        kRef = dram(bufferOf, pa.getKeyCache()),
                        vRef = dram(bufferOf, pa.getValueCache()),
                        tRef = dram(bufferOf, pa.getBlockTable()),
                        lRef = dram(bufferOf, pa.getKvLengths()),
                        oRef = dram(bufferOf, pa.getResult());
    if (!qRef || !kRef || !vRef || !tRef || !lRef || !oRef)
      return pa.emitOpError("reads a value that is not in DRAM (a function "
                            "argument or an accel op's result)");
    FailureOr<SmallVector<View>> qs = matrices(pa, "Q", *qRef),
                                 os = matrices(pa, "output", *oRef);
    if (failed(qs) || failed(os))
      return failure();
    // Pages are addressed from the pool buffer's start: element (page,
    // token, head, d) at page * s0 + token * s1 + head * s2 + d, the pool
    // the whole buffer, row-major (so a table entry past the pool is
    // outside the buffer, where the machine stops).
    for (const Dram *pool : {&*kRef, &*vRef}) {
      auto root = cast<RankedTensorType>(pool->layout->root.getType());
      SmallVector<int64_t> rowMajor = computeStrides(pool->shape);
      if (pool->layout->offset != 0 ||
          ArrayRef<int64_t>(pool->layout->strides) != ArrayRef(rowMajor) ||
          root.getNumElements() != computeProduct(pool->shape))
        return pa.emitOpError("reads a cache pool through a view (pages "
                              "are addressed in the pool's own row-major "
                              "buffer)");
      // The register form of mvin (docs/systolic-binary.md, opcode 9).
      if (rowMajor[0] > int64_t(UINT32_MAX) || pageTokens > UINT16_MAX ||
          pool->buffer > UINT16_MAX)
        return pa.emitOpError("has pages of ")
               << rowMajor[0] << " elements and " << pageTokens
               << " tokens; the systolic array's paged moves take pages "
                  "below 2^32 elements and 2^16 tokens";
    }
    FailureOr<SystolicOptions> o = getSystolicOverrides(pa, options);
    if (failed(o))
      return failure();
    SystolicAttentionShape shape = getSystolicPagedAttentionShape(pa, mc);
    FailureOr<std::pair<int64_t, int64_t>> tiles = chooseSystolicAttentionTiles(
        pa, mc, shape, o->attentionTileQ, o->attentionTileKV);
    if (failed(tiles))
      return failure();
    AttentionGeometry g{};
    g.skv = shape.skv;
    g.d = shape.d;
    g.dv = shape.dv;
    g.causal = false; // the paged masks, from the length register
    g.scale = float(pa.getEffectiveScale());
    g.tileQ = tiles->first;
    g.tileKV = tiles->second;
    g.stripKeys = shape.stripKeys;
    ArrayRef<int64_t> ks = kRef->layout->strides, vs = vRef->layout->strides,
                      ts = tRef->layout->strides, ls = lRef->layout->strides;
    const int64_t group = hq / hkv;
    auto stacked = [&](ArrayRef<View> views, int64_t first, int64_t count) {
      return stackViews(views, first, count, sq);
    };
    for (int64_t b = 0; b < B; ++b) {
      const int64_t lenReg = b % kLengthRegs;
      e.sload(lRef->buffer, lRef->layout->offset + b * ls[0], 0,
              pages * pageTokens, lenReg);
      for (int64_t hk = 0; hk < hkv; ++hk) {
        PagedKV p{kRef->buffer,  vRef->buffer, hk * ks[2],
                  hk * vs[2],    ks[1],        vs[1],
                  ks[0],         vs[0],        pageTokens,
                  pages,         tRef->buffer, tRef->layout->offset + b * ts[0],
                  ts[1],         lenReg,       sq,
                  pa.getCausal()};
        g.paged = &p;
        g.lengthReg = lenReg;
        const int64_t h0 = b * hq + hk * group;
        std::optional<View> q = stacked(*qs, h0, group),
                            out = stacked(*os, h0, group);
        if (q && out) {
          g.sq = group * sq;
          g.headRows = sq;
          emitAttentionHead(e, g, *q, View{}, View{}, *out, std::nullopt,
                            toggle, predicted);
          continue;
        }
        g.sq = sq;
        g.headRows = 0;
        for (int64_t h = h0; h < h0 + group; ++h)
          emitAttentionHead(e, g, (*qs)[h], View{}, View{}, (*os)[h],
                            std::nullopt, toggle, predicted);
      }
    }
    return success();
  }

  /// Views [first, first + count) of `rows` rows each as one view of
  /// count * rows rows, when they follow each other at one stride (a GQA
  /// group's query heads).
  static std::optional<View> stackViews(ArrayRef<View> views, int64_t first,
                                        int64_t count, int64_t rows) {
    const View &v0 = views[first];
    for (int64_t i = 1; i < count; ++i) {
      const View &v = views[first + i];
      if (v.transposed || v0.transposed || v.buffer != v0.buffer ||
          v.stride != v0.stride || v.offset != v0.offset + i * rows * v0.stride)
        return std::nullopt;
    }
    return v0;
  }

  LogicalResult emitAttention(Emitter &e, AttentionOp at,
                              const DenseMap<Value, uint32_t> &bufferOf,
                              const isa::MachineConfig &mc, int &toggle) {
    auto qType = at.getQuery().getType(), kType = at.getKey().getType(),
         vType = at.getValue().getType();
    int64_t B = qType.getDimSize(0), hq = qType.getDimSize(1),
            hkv = kType.getDimSize(1);
    AttentionGeometry g;
    g.sq = qType.getDimSize(2);
    g.d = qType.getDimSize(3);
    g.skv = kType.getDimSize(2);
    g.dv = vType.getDimSize(3);
    g.causal = at.getCausal();
    g.offset = g.skv - g.sq;
    if (Value d = at.getDiagonal()) {
      APInt value;
      (void)matchPattern(d, m_ConstantInt(&value));
      g.offset = value.getSExtValue();
    }
    g.scale = at.getScale()
                  ? at.getScale()->convertToFloat()
                  : (g.d == 0 ? 1.0f : float(1.0 / std::sqrt(double(g.d))));
    std::optional<Dram> qRef = dram(bufferOf, at.getQuery()),
                        kRef = dram(bufferOf, at.getKey()),
                        vRef = dram(bufferOf, at.getValue()),
                        oRef = dram(bufferOf, at.getResult());
    if (!qRef || !kRef || !vRef || !oRef)
      return at.emitOpError("reads a value that is not in DRAM (a function "
                            "argument or an accel op's result)");
    // Each (batch, head)'s matrices.
    FailureOr<SmallVector<View>> qs = matrices(at, "Q", *qRef),
                                 ks = matrices(at, "K", *kRef),
                                 vs = matrices(at, "V", *vRef),
                                 os = matrices(at, "output", *oRef);
    if (failed(qs) || failed(ks) || failed(vs) || failed(os))
      return failure();
    // The mask broadcasts to [B, Hq, Sq, Skv] (numpy rules, aligned right):
    // element strides per dimension, 0 where it broadcasts.
    std::optional<Dram> maskRef;
    int64_t maskStride[4] = {0, 0, 0, 0};
    if (Value mask = at.getMask()) {
      maskRef = dram(bufferOf, mask);
      if (!maskRef)
        return at.emitOpError("reads a value that is not in DRAM (a function "
                              "argument or an accel op's result)");
      auto mt = cast<RankedTensorType>(mask.getType());
      for (int64_t d = mt.getRank() - 1, full = 3; d >= 0; --d, --full)
        maskStride[full] =
            mt.getDimSize(d) == 1 ? 0 : maskRef->layout->strides[d];
      if (maskStride[3] > 1)
        return at.emitOpError("reads its mask through a view whose keys are "
                              "strided (the DMA moves rows of contiguous "
                              "elements)");
      g.masked = true;
      g.maskBoolean = mt.getElementType().isInteger(1);
      g.maskRowStride = maskStride[2];
      g.maskOneKey = maskStride[3] == 0;
    }
    FailureOr<SystolicOptions> o = getSystolicOverrides(at, options);
    if (failed(o))
      return failure();
    if (g.d == 0 || g.dv == 0)
      return at.emitOpError("with an empty head dimension has no systolic "
                            "lowering");
    FailureOr<std::pair<int64_t, int64_t>> tiles =
        chooseSystolicAttentionTiles(at, mc, getSystolicAttentionShape(at),
                                     o->attentionTileQ, o->attentionTileKV);
    if (failed(tiles))
      return failure();
    g.tileQ = tiles->first;
    g.tileKV = tiles->second;
    // Sequence lengths: run-time data, any i32 (a key length past Skv
    // keeps every key and moves the causal band; one at or below 0 keeps
    // none; likewise for queries).
    std::optional<Dram> lenRef, qLenRef;
    if (Value len = at.getQLengths()) {
      qLenRef = dram(bufferOf, len);
      if (!qLenRef)
        return at.emitOpError("reads a value that is not in DRAM (a function "
                              "argument or an accel op's result)");
    }
    g.window = at.getWindow();
    if (Value len = at.getKvLengths()) {
      lenRef = dram(bufferOf, len);
      if (!lenRef)
        return at.emitOpError("reads a value that is not in DRAM (a function "
                              "argument or an accel op's result)");
      // The bound counts the keys of K's and V's rows: key-contiguous
      // (transposed) views would cut the head dimension instead.
      for (const View &kv : llvm::concat<const View>(*ks, *vs))
        if (kv.transposed)
          return at.emitOpError("with key lengths reads K and V through "
                                "views whose keys are contiguous; the "
                                "bounded moves take rows of keys");
      // The register form of mvin (docs/systolic-binary.md, opcode 9).
      for (const Dram *kv : {&*kRef, &*vRef}) {
        auto root = cast<RankedTensorType>(kv->layout->root.getType());
        if (root.getNumElements() > int64_t(UINT32_MAX) ||
            kv->buffer > UINT16_MAX || g.tileKV > UINT16_MAX)
          return at.emitOpError("with key lengths reads K and V through "
                                "bounded moves, which take buffers below "
                                "2^32 elements and blocks below 2^16 keys");
      }
    }
    // The band's offset: off[b] = diagonal + (kvlen - Skv) - (qlen - Sq),
    // its static part here and the lengths' in a register (ssub). A
    // diagonal beyond +-2^40 keeps all or nothing as one at the bound does
    // (indices and lengths are below 2^31): clamped, no offset overflows.
    g.offset =
        std::clamp<int64_t>(g.offset, -(int64_t(1) << 40), int64_t(1) << 40);
    if (lenRef)
      g.offset -= g.skv;
    if (qLenRef)
      g.offset += g.sq;
    for (int64_t b = 0; b < B; ++b) {
      // Sequences alternate between two sets of registers (a sequence's
      // loads need not wait for the previous one's last reads).
      const int64_t set = b % 2;
      auto load = [&](const Dram &ref, int64_t reg) {
        e.sload(ref.buffer, ref.layout->offset + b * ref.layout->strides[0],
                INT32_MIN, INT32_MAX, reg);
        return reg;
      };
      if (lenRef)
        g.lengthReg = load(*lenRef, set);
      if (qLenRef)
        g.qLengthReg = load(*qLenRef, 2 + set);
      // (Only a causal band reads the offset.)
      if (g.causal && lenRef && qLenRef) {
        g.offsetReg = 4 + set;
        e.ssub(*g.lengthReg, *g.qLengthReg, *g.offsetReg);
      } else if (g.causal && qLenRef) {
        g.offsetReg = 4 + set;
        e.ssub(std::nullopt, *g.qLengthReg, *g.offsetReg);
      } else if (g.causal && lenRef) {
        g.offsetReg = g.lengthReg;
      }
      if (g.window && g.offsetReg) {
        g.negOffsetReg = 6 + set;
        e.ssub(std::nullopt, *g.offsetReg, *g.negOffsetReg);
      }
      // GQA: a KV head's query heads stacked in the rows (K and V read
      // once for the group), when Q's and O's layouts put them one after
      // the other; a mask is read per head's run of rows.
      const int64_t group = hq / hkv;
      if (group > 1 && g.sq > 0) {
        bool all = true;
        for (int64_t hk = 0; hk < hkv && all; ++hk)
          all = stackViews(*qs, b * hq + hk * group, group, g.sq) &&
                stackViews(*os, b * hq + hk * group, group, g.sq);
        if (all) {
          AttentionGeometry gs = g;
          gs.sq = group * g.sq;
          gs.headRows = g.sq;
          gs.maskHeadStride = maskStride[1];
          for (int64_t hk = 0; hk < hkv; ++hk) {
            std::optional<View> maskView;
            if (maskRef)
              maskView = View{maskRef->buffer,
                              maskRef->layout->offset + b * maskStride[0] +
                                  hk * group * maskStride[1],
                              g.maskRowStride, false};
            emitAttentionHead(
                e, gs, *stackViews(*qs, b * hq + hk * group, group, g.sq),
                (*ks)[b * hkv + hk], (*vs)[b * hkv + hk],
                *stackViews(*os, b * hq + hk * group, group, g.sq), maskView,
                toggle, predicted);
          }
          continue;
        }
      }
      for (int64_t h = 0; h < hq; ++h) {
        int64_t hk = h / (hq / hkv);
        std::optional<View> maskView;
        if (maskRef)
          maskView = View{maskRef->buffer,
                          maskRef->layout->offset + b * maskStride[0] +
                              h * maskStride[1],
                          g.maskRowStride, false};
        if (g.sq > 0)
          emitAttentionHead(e, g, (*qs)[b * hq + h], (*ks)[b * hkv + hk],
                            (*vs)[b * hkv + hk], (*os)[b * hq + h], maskView,
                            toggle, predicted);
      }
    }
    return success();
  }
};

} // namespace
