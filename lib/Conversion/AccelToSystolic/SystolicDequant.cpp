//===- SystolicDequant.cpp - weight-only quantised matmul -----------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "SystolicDequant.h"
#include "accel/Conversion/AccelToSystolic/AccelToSystolic.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::accel;
using namespace mlir::accel::systolic_emit;
namespace isa = ::sysarray;

namespace {

/// Where the kernel's blocks sit: accumulator rows (two staged weight
/// tiles when tiles are dequantised or split in the accumulator, Cᵀ of two
/// strips, the partial sums of two groups when the groups are scaled after
/// the array, the scales of two groups, two groups' zero points, and a
/// split's parts at the top) and scratchpad rows (the weight tiles, each
/// of `parts` bf16 tiles, then Aᵀ's tiles).
struct DequantLayout {
  int64_t cBase, pBase, sBase, stageBase, zBase, partBase, accRows;
  /// The rows all of it takes when packed (the split's parts right after
  /// the rest): `tileN` times the rows a strip row takes.
  int64_t packedRows;
  int64_t aBase, aTiles, spadRows;

  DequantLayout(const SystolicDequant &k, const isa::MachineConfig &mc) {
    const int64_t blocks = k.mBlocks(), t = k.tileN;
    // Two staged tiles first (the lowest bank), then Cᵀ, the partial
    // blocks, the scales and the zero points.
    stageBase = 0;
    cBase = k.staged() ? 2 * t : 0;
    pBase = cBase + 2 * blocks * t;
    sBase = pBase + (k.exact ? 0 : 2 * blocks * t);
    zBase = sBase + 2 * t;
    accRows = zBase + (k.zeroPoints ? 2 * t : 0);
    // A split's parts at the top of the accumulator, in another bank than
    // the staged tiles where there is room (the vector unit reads two
    // operands of one bank at half rate).
    packedRows = accRows + (k.split() ? 2 * t : 0);
    partBase = std::max<int64_t>(accRows, int64_t(mc.accRows) - 2 * t);
    if (k.split())
      accRows = partBase + 2 * t;
    aBase = k.wBuffers * k.parts() * t;
    aTiles = (k.aResident ? k.groups() * k.tilesPerGroup() : 2) * blocks;
    spadRows = aBase + aTiles * k.tileK;
  }
};

/// Accumulator rows one strip row takes (DequantLayout's, packed).
int64_t accRowsPerStripRow(SystolicDequant k, const isa::MachineConfig &mc) {
  k.tileN = 1;
  return DequantLayout(k, mc).packedRows;
}

} // namespace

FailureOr<SystolicDequant>
mlir::accel::analyzeSystolicDequant(DequantMatmulOp op,
                                    const isa::MachineConfig &mc,
                                    const SystolicOptions &options) {
  auto aType = cast<RankedTensorType>(op.getLhs().getType());
  auto cType = cast<RankedTensorType>(op.getInit().getType());
  auto sType = cast<RankedTensorType>(op.getScales().getType());
  for (Type t :
       {aType.getElementType(), sType.getElementType(), cType.getElementType()})
    if (!t.isF32() && !t.isBF16())
      return op.emitOpError("with ")
             << t
             << " operands has no systolic lowering (the array and the DMA "
                "take bf16 and f32)";
  if (!aType.hasStaticShape() || !cType.hasStaticShape())
    return op.emitOpError("needs static shapes on the systolic target");
  SystolicDequant k;
  k.k = op.getK();
  k.n = op.getN();
  k.m = aType.getNumElements() / std::max<int64_t>(k.k, 1);
  k.bits = op.getBits();
  k.group = op.getGroup();
  k.isUnsigned = op.getIsUnsigned();
  k.zeroPoints = bool(op.getZeroPoints());
  k.exact = mc.inputType == isa::ElemType::F32;
  k.scaleBytes = sType.getElementType().isBF16() ? 2 : 4;
  k.cBytes = cType.getElementType().isBF16() ? 2 : 4;
  if (k.m == 0 || k.n == 0)
    return k;
  const int64_t wantM = options.dequantTileM, wantN = options.dequantTileN;
  if (wantM < 0 || wantN < 0 || wantM > int64_t(mc.cols))
    return op.emitOpError("has a lowering_config tile [")
           << wantM << ", " << wantN << "]: a block takes 1 to the array's "
           << mc.cols << " columns of rows of A, a strip at least one row of W";
  k.tileM = std::min<int64_t>(wantM ? wantM : int64_t(mc.cols), k.m);
  // A tile dequantised in the accumulator is at most its width.
  k.tileK = k.staged() ? std::min(mc.rows, mc.cols) : int64_t(mc.rows);
  // Strips as tall as the accumulator allows (fewer strips read A again
  // and fill the array fewer times), at most 512 rows, a multiple of 8.
  const int64_t perRow = accRowsPerStripRow(k, mc);
  int64_t tile = std::min<int64_t>(int64_t(mc.accRows) / perRow, 512);
  if (tile >= 8)
    tile = tile / 8 * 8;
  tile = std::min(tile, k.n);
  if (tile < 1)
    return op.emitOpError("has no systolic lowering on this machine: its ")
           << k.mBlocks() << " blocks of C's columns need " << perRow
           << " accumulator rows a weight row, the accumulator has "
           << mc.accRows;
  if (wantN && std::min(wantN, k.n) * perRow > int64_t(mc.accRows))
    return op.emitOpError("has a lowering_config strip of ")
           << wantN << " rows of W; each takes " << perRow
           << " accumulator rows, the accumulator has " << mc.accRows;
  k.tileN = wantN ? std::min(wantN, k.n) : tile;
  // Four weight tiles in flight cover the DMA's latency; Aᵀ stays in the
  // scratchpad when it fits beside them.
  k.wBuffers = 4;
  k.aResident = true;
  if (DequantLayout(k, mc).spadRows > int64_t(mc.spadRows))
    k.aResident = false;
  while (DequantLayout(k, mc).spadRows > int64_t(mc.spadRows) && k.wBuffers > 2)
    --k.wBuffers;
  // Still too many: shorter strips (two weight tiles and two sets of Aᵀ's
  // tiles must fit).
  const int64_t room = int64_t(mc.spadRows) - 2 * k.mBlocks() * k.tileK;
  if (DequantLayout(k, mc).spadRows > int64_t(mc.spadRows) && room >= 2 &&
      !wantN)
    k.tileN = std::min(k.tileN, room / (k.wBuffers * k.parts()));
  if (DequantLayout(k, mc).spadRows > int64_t(mc.spadRows))
    return op.emitOpError("has no systolic lowering on this machine: its "
                          "weight tiles and Aᵀ need ")
           << DequantLayout(k, mc).spadRows << " scratchpad rows, it has "
           << mc.spadRows;
  return k;
}

double mlir::accel::predictSystolicDequantCycles(const SystolicDequant &k,
                                                 const isa::MachineConfig &mc) {
  if (k.m == 0 || k.n == 0)
    return 0;
  const double bw = mc.dramBytesPerCycle, lanes = mc.vectorLanes;
  const double aBytes = isa::elemBytes(mc.inputType);
  auto vecOp = [&](int64_t rows, int64_t cols) {
    return std::ceil(double(rows * cols) / lanes) + 4;
  };
  double cycles = 0, stores = 0;
  // Aᵀ moved in once up front when it stays.
  if (k.aResident)
    cycles += double(k.m * k.k) * aBytes / bw;
  for (int64_t n0 = 0; n0 < k.n; n0 += k.tileN) {
    const int64_t nr = std::min(k.tileN, k.n - n0);
    for (int64_t g = 0; g < k.groups(); ++g) {
      double array = 0, dma = 0, vec = 0;
      for (int64_t k0 = 0; k0 < k.group; k0 += k.tileK) {
        const int64_t kc = std::min(k.tileK, k.group - k0);
        dma += double(nr * kc * k.bits) / 8 / bw;
        if (!k.aResident)
          dma += double(k.m * kc) * aBytes / bw;
        // Dequantised on the vector unit: (q - z), * s, into the
        // scratchpad.
        if (k.exact)
          vec += (k.zeroPoints ? 3 : 2) * vecOp(nr, kc);
        else if (k.zeroPoints)
          vec += 8 * vecOp(nr, kc); // q - z, split in three, three copies
        for (int64_t mb = 0; mb < k.mBlocks(); ++mb)
          array += k.parts() * std::max(nr, kc);
      }
      dma += double(nr * (k.zeroPoints ? 2 : 1) * k.scaleBytes) / bw;
      // The group's sums scaled and added after the array.
      if (!k.exact)
        for (int64_t mb = 0; mb < k.mBlocks(); ++mb) {
          const int64_t mc2 = std::min(k.tileM, k.m - mb * k.tileM);
          vec += (g == 0 ? 1 : 2) * vecOp(nr, mc2);
        }
      cycles += std::max({array, dma, vec});
    }
    stores += double(nr * k.m * k.cBytes) / bw;
  }
  // The first tiles' latency, the array's fill and drain, the last
  // stores.
  return std::max(cycles, stores) + 2.0 * mc.dramLatency + mc.rows + mc.cols;
}

void mlir::accel::emitSystolicDequant(Emitter &e, const SystolicDequant &k,
                                      const SystolicDequantOperands &ops) {
  if (k.m == 0 || k.n == 0)
    return;
  const DequantLayout l(k, e.machine());
  const View w{ops.weights, 0, k.k, false};
  const View s{ops.scales, 0, k.groups(), false};
  const View z{ops.zeroPoints, 0, k.groups(), false};
  const View at = ops.a.t(), ct = ops.c.t();
  const int64_t blocks = k.mBlocks(), perGroup = k.tilesPerGroup();
  const int64_t kTiles = k.groups() * perGroup;
  e.setDataflow(systolic::Dataflow::WS);
  // Aᵀ's tile of K tile `kt` and block `mb`: in the scratchpad for good,
  // or in one of two sets of tiles.
  auto aTileRow = [&](int64_t kt, int64_t mb) {
    const int64_t slot = k.aResident ? kt : kt % 2;
    return l.aBase + (slot * blocks + mb) * k.tileK;
  };
  auto kOf = [&](int64_t kt) {
    return (kt / perGroup) * k.group + (kt % perGroup) * k.tileK;
  };
  auto kcOf = [&](int64_t kt) {
    return std::min(k.tileK, k.group - (kt % perGroup) * k.tileK);
  };
  auto mcOf = [&](int64_t mb) { return std::min(k.tileM, k.m - mb * k.tileM); };
  auto loadA = [&](int64_t kt) {
    for (int64_t mb = 0; mb < blocks; ++mb)
      e.mvin(at, kOf(kt), mb * k.tileM, kcOf(kt), mcOf(mb),
             systolic::Space::Spad, aTileRow(kt, mb));
  };
  if (k.aResident)
    for (int64_t kt = 0; kt < kTiles; ++kt)
      loadA(kt);
  int64_t wSlot = 0, stage = 0;
  for (int64_t n0 = 0; n0 < k.n; n0 += k.tileN) {
    const int64_t nr = std::min(k.tileN, k.n - n0);
    const int64_t cBase = l.cBase + (n0 / k.tileN % 2) * blocks * k.tileN;
    for (int64_t g = 0; g < k.groups(); ++g) {
      const int64_t set = g % 2;
      const int64_t sRow = l.sBase + set * k.tileN;
      const int64_t zRow = l.zBase + set * k.tileN;
      // The group's scales (and zero points): one per row of Cᵀ.
      e.mvin(s, n0, g, nr, 1, systolic::Space::Acc, sRow);
      if (k.zeroPoints)
        e.mvin(z, n0, g, nr, 1, systolic::Space::Acc, zRow);
      for (int64_t t = 0; t < perGroup; ++t) {
        const int64_t kt = g * perGroup + t;
        const int64_t k0 = kOf(kt), kc = kcOf(kt);
        if (!k.aResident)
          loadA(kt);
        const int64_t wRow = wSlot * k.parts() * k.tileN;
        wSlot = (wSlot + 1) % k.wBuffers;
        if (k.split()) {
          // x = q - z in f32, then hi, mid and lo: bf16 values whose sum
          // is x exactly (each round_bf16 keeps 8 of x's at most 24
          // significant bits, the remainder after two is a bf16).
          const int64_t x = l.stageBase + stage * k.tileN,
                        part = l.partBase + stage * k.tileN;
          stage ^= 1;
          e.mvinUnpacked(w, n0, k0, nr, kc, systolic::Space::Acc, x,
                         k.unpack());
          e.vector(systolic::VecOp::Sub, x, x, zRow, nr, kc,
                   systolic::Bcast::Row);
          for (int64_t p = 0; p < 2; ++p) {
            e.vector(systolic::VecOp::RoundBf16, part, x, std::nullopt, nr,
                     kc);
            e.vector(systolic::VecOp::Copy, wRow + p * k.tileN, part,
                     std::nullopt, nr, kc, systolic::Bcast::None,
                     std::nullopt, std::nullopt, /*accumulate=*/false,
                     /*infIsZero=*/false, /*toSpad=*/true);
            e.vector(systolic::VecOp::Sub, x, x, part, nr, kc);
          }
          e.vector(systolic::VecOp::Copy, wRow + 2 * k.tileN, x, std::nullopt,
                   nr, kc, systolic::Bcast::None, std::nullopt, std::nullopt,
                   /*accumulate=*/false, /*infIsZero=*/false,
                   /*toSpad=*/true);
        } else if (k.exact) {
          // The op's rule on the vector unit, w = f32(f32(q - z) * s),
          // then into the scratchpad (f32: exact).
          const int64_t st = l.stageBase + stage * k.tileN;
          stage ^= 1;
          e.mvinUnpacked(w, n0, k0, nr, kc, systolic::Space::Acc, st,
                         k.unpack());
          if (k.zeroPoints)
            e.vector(systolic::VecOp::Sub, st, st, zRow, nr, kc,
                     systolic::Bcast::Row);
          e.vector(systolic::VecOp::Mul, st, st, sRow, nr, kc,
                   systolic::Bcast::Row);
          e.vector(systolic::VecOp::Copy, wRow, st, std::nullopt, nr, kc,
                   systolic::Bcast::None, std::nullopt, std::nullopt,
                   /*accumulate=*/false, /*infIsZero=*/false,
                   /*toSpad=*/true);
        } else {
          e.mvinUnpacked(w, n0, k0, nr, kc, systolic::Space::Spad, wRow,
                         k.unpack());
        }
        // Each block of C's columns: Aᵀ's tile stationary, the weight
        // rows streaming through it; into Cᵀ over all of K (exact), or
        // into the group's partial block (the first group's is Cᵀ).
        for (int64_t mb = 0; mb < blocks; ++mb) {
          const int64_t target =
              (k.exact || g == 0 ? cBase : l.pBase + set * blocks * k.tileN) +
              mb * k.tileN;
          const bool accumulate = k.exact ? kt > 0 : t > 0;
          e.preload(aTileRow(kt, mb), target, nr, kc, mcOf(mb), accumulate);
          e.compute(wRow, std::nullopt, nr, kc, mcOf(mb), /*preloaded=*/true);
          // The other parts through the same weights, onto the same sums.
          for (int64_t p = 1; p < k.parts(); ++p) {
            e.preload(std::nullopt, target, nr, kc, mcOf(mb),
                      /*accumulate=*/true);
            e.compute(wRow + p * k.tileN, std::nullopt, nr, kc, mcOf(mb),
                      /*preloaded=*/false);
          }
        }
      }
      if (k.exact)
        continue;
      // The group's sums scaled and added to Cᵀ (the first group's in
      // place).
      for (int64_t mb = 0; mb < blocks; ++mb) {
        const int64_t cRow = cBase + mb * k.tileN;
        if (g == 0) {
          e.vector(systolic::VecOp::Mul, cRow, cRow, sRow, nr, mcOf(mb),
                   systolic::Bcast::Row);
          continue;
        }
        const int64_t pRow = l.pBase + (set * blocks + mb) * k.tileN;
        e.vector(systolic::VecOp::Mul, pRow, pRow, sRow, nr, mcOf(mb),
                 systolic::Bcast::Row);
        e.vector(systolic::VecOp::Add, cRow, cRow, pRow, nr, mcOf(mb));
      }
    }
    for (int64_t mb = 0; mb < blocks; ++mb)
      e.mvout(systolic::Space::Acc, cBase + mb * k.tileN, nr, mcOf(mb), ct, n0,
              mb * k.tileM);
  }
}
