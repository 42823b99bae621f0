//===- SystolicSchedule.cpp - dataflow and block choice for the array -----===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The configuration stage of the systolic target: the machine the options
// describe, what overrides the model (options, an op's
// #accel.lowering_config), the attention blocks, and an analytic model of
// the programs convert-accel-to-systolic emits for a matmul, following the simulator's default timing model
// (docs/systolic-simulator.md): the DMA and the array run decoupled, so a
// double-buffered step costs the larger of its transfers and its computes;
// the first step's loads, the array's fill and drain and the last mvout
// are not hidden. docs/systolic.md compares its predictions with the
// simulator's cycles.
//
//===----------------------------------------------------------------------===//

#include "accel/Conversion/AccelToSystolic/AccelToSystolic.h"
#include "accel/Dialect/Accel/IR/AccelAttrs.h"
#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "accel/Systolic/ISA.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <vector>

using namespace mlir;
using namespace mlir::accel;
namespace isa = ::sysarray;

const char *mlir::accel::stringifySystolicDataflow(SystolicDataflow d) {
  switch (d) {
  case SystolicDataflow::WS:
    return "ws";
  case SystolicDataflow::OS:
    return "os";
  case SystolicDataflow::IS:
    return "is";
  }
  return "?";
}

namespace {
int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t roundUp(int64_t a, int64_t b) { return ceilDiv(a, b) * b; }

/// The problem in the dataflow's own frame: X [p, q] streams, Y [q, s].
struct Frame {
  int64_t p, q, s;
};
Frame frameOf(const SystolicMatmulShape &shape, SystolicDataflow d) {
  if (d == SystolicDataflow::IS)
    return {shape.n, shape.k, shape.m};
  return {shape.m, shape.k, shape.n};
}
/// Depth granule of a block: array rows (WS, IS) or the scratchpad width
/// (OS streams spadWidth-deep slices).
int64_t depthGranule(const isa::MachineConfig &mc, SystolicDataflow d) {
  return d == SystolicDataflow::OS ? mc.spadWidth() : mc.rows;
}
/// The epilogue `sch` applies to C's blocks (null: none).
const SystolicEpilogueShape *appliedEpilogue(const SystolicMatmulShape &shape,
                                             const SystolicMatmulSchedule &sch) {
  const std::optional<SystolicEpilogueShape> &e =
      sch.seeded ? shape.seededEpilogue : shape.epilogue;
  return (sch.epilogue || sch.seeded) && e ? &*e : nullptr;
}
} // namespace

bool mlir::accel::fitsSystolic(const isa::MachineConfig &mc,
                               const SystolicMatmulShape &shape,
                               const SystolicMatmulSchedule &sch) {
  if (sch.tileM < 1 || sch.tileN < 1 || sch.tileK < 1 ||
      (sch.cBuffers != 1 && sch.cBuffers != 2))
    return false;
  // OS keeps a block's last output tile in the array until the next
  // block's first preload flushes it, and stores the block after that: C's
  // initial value (accumulate, a seed) moved into the one buffer before
  // then would land under the previous block's sums.
  if (sch.cBuffers == 1 && sch.dataflow == SystolicDataflow::OS &&
      (shape.accumulate || sch.seeded))
    return false;
  // WS and IS cut a block's depth into R x C weight tiles, so it holds whole
  // tiles. OS streams the depth in slices of at most the scratchpad width:
  // when tile-k (or K) is not a multiple of R, the block's last slice is
  // short and streams only its real rows. That computes what the slice
  // zero-padded to whole rows would (zeros add nothing to the sums) without
  // spending cycles on the zeros, so an output tile with tile-k >= K stays
  // one fold of exactly K rows, as in SCALE-Sim.
  if (sch.tileN % mc.cols != 0 ||
      (sch.dataflow != SystolicDataflow::OS && sch.tileK % mc.rows != 0))
    return false;
  int64_t g = depthGranule(mc, sch.dataflow);
  int64_t qStrips = ceilDiv(sch.tileK, g),
          sStrips = ceilDiv(sch.tileN, mc.cols);
  int64_t spad = 2 * qStrips * sch.tileM + 2 * sStrips * sch.tileK;
  int64_t acc = sch.cBuffers * sStrips * sch.tileM;
  // A fused epilogue's other slots, two sets of a block's rows.
  if (sch.epilogue || sch.seeded) {
    const SystolicEpilogueShape *epi = appliedEpilogue(shape, sch);
    if (!epi || sch.dataflow == SystolicDataflow::IS)
      return false;
    acc +=
        2 * epi->slots *
        (sch.epilogueRows ? std::min(sch.epilogueRows, sch.tileM) : sch.tileM);
  }
  return spad <= int64_t(mc.spadRows) && acc <= int64_t(mc.accRows);
}

double
mlir::accel::predictSystolicMatmulCycles(const isa::MachineConfig &mc,
                                         const SystolicMatmulShape &shape,
                                         const SystolicMatmulSchedule &sch) {
  const Frame f = frameOf(shape, sch.dataflow);
  const int64_t R = mc.rows, C = mc.cols;
  const double bw = mc.dramBytesPerCycle;
  const bool os = sch.dataflow == SystolicDataflow::OS;
  const int64_t numQ = ceilDiv(f.q, sch.tileK);
  double total = 0, firstLoad = -1, lastStore = 0, storeTotal = 0,
         lastArray = 0, lastVec = 0;
  for (int64_t p0 = 0; p0 < f.p; p0 += sch.tileM) {
    const int64_t pr = std::min(sch.tileM, f.p - p0);
    bool aLoaded = false;
    for (int64_t s0 = 0; s0 < f.s; s0 += sch.tileN) {
      const int64_t sr = std::min(sch.tileN, f.s - s0);
      double stepLoads =
          shape.accumulate ? double(pr * sr * shape.outBytes) / bw : 0;
      // One buffer of C: the block's first computes write the rows the
      // previous block's stores still read. A strip's stores start once
      // its last computes are done, so they overlap the previous block's
      // last step but for one strip's computes, and the new block's
      // strips follow them. An applied epilogue starts after the block's
      // last computes: its vector work and a strip's stores come first
      // (and a seed's load into the freed rows, doubled by vector copies
      // over the block).
      const int64_t strips = ceilDiv(sr, C);
      double storeWait = 0;
      if (sch.cBuffers == 1 && firstLoad >= 0)
        storeWait =
            appliedEpilogue(shape, sch)
                ? lastVec + lastStore / strips +
                      (sch.seeded ? double(mc.dramLatency) +
                                        double(pr * sr) / mc.vectorLanes
                                  : 0.0)
                : std::max(0.0, lastStore - lastArray * (strips - 1) / strips);
      for (int64_t q0 = 0; q0 < f.q; q0 += sch.tileK) {
        const int64_t qr = std::min(sch.tileK, f.q - q0);
        double bytes = double(qr * sr) * shape.inBytes;
        if (numQ > 1 || !aLoaded)
          bytes += double(pr * qr) * shape.inBytes;
        aLoaded = true;
        // A fused epilogue's inputs are moved in after the block's last
        // computes, its vector program runs beside the next block's.
        const SystolicEpilogueShape *epi =
            q0 + sch.tileK >= f.q ? appliedEpilogue(shape, sch) : nullptr;
        double vec = 0;
        if (epi) {
          // Each strip in pieces of epilogueRows: a row broadcast read and
          // every instruction's latency once a piece.
          const int64_t strips = ceilDiv(sr, C);
          const int64_t pieces = ceilDiv(
              pr, sch.epilogueRows ? std::min(sch.epilogueRows, pr) : pr);
          bytes += epi->elemBytes * double(pr * sr) +
                   epi->rowBytes * double(sr * pieces) +
                   epi->colBytes * double(pr * strips);
          for (int64_t ss = 0; ss < strips; ++ss)
            vec += epi->vectorOps *
                       std::ceil(double(pr * std::min(C, sr - ss * C)) /
                                 mc.vectorLanes) +
                   4 * epi->vectorInstrs * pieces;
        }
        double dma = stepLoads + bytes / bw;
        stepLoads = 0;
        double array = 0;
        for (int64_t ss = 0; ss * C < sr; ++ss) {
          if (!os) {
            // Each weight tile: its preload (qc cycles) hides behind the
            // previous stream of pr rows.
            for (int64_t qq = 0; qq * R < qr; ++qq)
              array += std::max<int64_t>(pr, std::min(R, qr - qq * R));
          } else {
            // Each output tile: R cycles to shift the previous sums out
            // (the preload), then its slices stream.
            for (int64_t pp = 0; pp * R < pr; ++pp)
              array += R + qr;
          }
        }
        if (storeWait > 0) {
          array = std::max(array, storeWait + array / strips);
          storeWait = 0;
        }
        lastArray = array;
        lastVec = vec;
        if (firstLoad < 0) {
          firstLoad = dma + mc.dramLatency;
          total += firstLoad + array;
        } else {
          // Two buffers: the load of step i + 2 waits for step i's computes
          // to release its half, so two steps take at least one latency,
          // one transfer and one step of computes.
          total +=
              std::max({dma, array, vec, (mc.dramLatency + dma + array) / 2});
        }
      }
      const SystolicEpilogueShape *applied = appliedEpilogue(shape, sch);
      const double storeBytes =
          applied ? applied->storeBytes : double(shape.outBytes);
      lastStore = double(pr * sr) * storeBytes / bw;
      storeTotal += lastStore;
    }
  }
  // Fill and drain of the last compute, the last block's mvout. The stores
  // have their own queue and overlap the rest, unless they alone take
  // longer (wide i32 or f32 results on a narrow bus).
  double computeBound = total + double(R + C) + lastStore + mc.dramLatency;
  double storeBound = firstLoad + storeTotal + mc.dramLatency;
  return std::max(computeBound, storeBound);
}

std::optional<SystolicMatmulSchedule> mlir::accel::chooseSystolicMatmulSchedule(
    const isa::MachineConfig &mc, const SystolicMatmulShape &shape,
    std::optional<SystolicDataflow> dataflow, int64_t tileM, int64_t tileN,
    int64_t tileK, int64_t cBuffers, bool seeded,
    llvm::function_ref<bool(const SystolicMatmulSchedule &)> allow) {
  std::optional<SystolicMatmulSchedule> best;
  double bestCycles = 0;
  for (SystolicDataflow d :
       {SystolicDataflow::WS, SystolicDataflow::OS, SystolicDataflow::IS}) {
    if (dataflow && *dataflow != d)
      continue;
    // IS holds Cᵀ's blocks: an epilogue is applied only with WS and OS.
    if (shape.epilogue && d == SystolicDataflow::IS)
      continue;
    const Frame f = frameOf(shape, d);
    const int64_t g = depthGranule(mc, d);
    auto candidates = [](int64_t given, int64_t unit, int64_t full) {
      std::vector<int64_t> out;
      if (given) {
        out.push_back(given);
        return out;
      }
      for (int64_t t = unit; t < full; t *= 2)
        out.push_back(t);
      out.push_back(std::max(unit, full));
      return out;
    };
    // Rows of X are free (no granule); depth and width go by the array.
    if (f.p < 1 || f.s < 1 || f.q < 1)
      continue; // nothing to schedule (the caller handles empty problems)
    // With an epilogue applied to the blocks, also the widest blocks that
    // leave room for its slots (at full height or in pieces of the array's
    // rows), which need not be powers of two: where C's best blocks fill
    // the accumulator, they keep the epilogue fused.
    auto widths = [&](int64_t tm) {
      std::vector<int64_t> out =
          candidates(tileN, mc.cols, roundUp(f.s, mc.cols));
      if (tileN || !shape.epilogue || shape.epilogue->slots == 0)
        return out;
      for (int64_t cb : {int64_t(1), int64_t(2)})
        for (int64_t h : {tm, std::min<int64_t>(tm, mc.rows)}) {
          const int64_t left =
              int64_t(mc.accRows) - 2 * shape.epilogue->slots * h;
          const int64_t tn = left / (cb * tm) * mc.cols;
          if (tn >= mc.cols && tn < roundUp(f.s, mc.cols) &&
              !llvm::is_contained(out, tn))
            out.push_back(tn);
        }
      return out;
    };
    for (int64_t tm : candidates(tileM, std::min<int64_t>(mc.rows, f.p),
                                 std::max<int64_t>(f.p, 1)))
      for (int64_t tn : widths(tm))
        // Depth goes in multiples of the array's rows (fitsSystolic; OS
        // also takes a given tile-k that is not), up to the whole of it in
        // the dataflow's granule.
        for (int64_t tk : candidates(tileK, mc.rows, roundUp(f.q, g)))
          for (int64_t cb : {int64_t(2), int64_t(1)}) {
            if (cBuffers && cb != cBuffers)
              continue;
            SystolicMatmulSchedule s{d, tm, tn, tk,
                                     shape.epilogue.has_value() && !seeded};
            s.seeded = seeded && shape.seededEpilogue.has_value();
            s.cBuffers = cb;
            // An epilogue's slots as tall as the blocks where they fit, else
            // the tallest power of two that does.
            if (s.epilogue || s.seeded)
              for (s.epilogueRows = tm;
                   s.epilogueRows > 1 && !fitsSystolic(mc, shape, s);)
                s.epilogueRows =
                    int64_t(llvm::PowerOf2Ceil(s.epilogueRows) / 2);
            if (!fitsSystolic(mc, shape, s) || (allow && !allow(s)))
              continue;
            double c = predictSystolicMatmulCycles(mc, shape, s);
            // One buffer only where it is clearly faster (it costs the
            // overlap of the stores, which the model prices roughly).
            if (!best || c < bestCycles * (cb == 1 ? 0.97 : 1.0)) {
              best = s;
              bestCycles = c;
            }
          }
  }
  return best;
}

//===----------------------------------------------------------------------===//
// Options and overrides
//===----------------------------------------------------------------------===//

LogicalResult mlir::accel::checkSystolicOptions(ModuleOp module,
                                                StringRef pass,
                                                const SystolicOptions &o) {
  if (o.dataflow != "auto" && o.dataflow != "ws" && o.dataflow != "os" &&
      o.dataflow != "is")
    return module.emitError() << pass
                              << ": dataflow must be auto, ws, os or is, got '"
                              << o.dataflow << "'";
  if (o.rows < 1 || o.cols < 1 || o.rows > 1024 || o.cols > 1024 ||
      o.spadKib < 1 || o.accKib < 1 || o.spadBanks < 1 || o.accBanks < 1 ||
      !(o.dramBytesPerCycle > 0) || !std::isfinite(o.dramBytesPerCycle) ||
      o.dramLatency < 0 || o.vectorLanes < 1 || o.tileM < 0 || o.tileN < 0 ||
      o.tileK < 0 || o.attentionTileQ < 0 || o.attentionTileKV < 0)
    return module.emitError()
           << pass
           << ": rows and cols must be in [1, 1024], SRAM sizes, banks, "
              "bandwidth and vector lanes positive, the latency and tile "
              "sizes not negative";
  if (o.cBuffers < 0 || o.cBuffers > 2)
    return module.emitError() << pass
                              << ": c-buffers must be 0 (chosen), 1 or 2, "
                                 "got "
                              << o.cBuffers;
  return success();
}

isa::MachineConfig mlir::accel::getSystolicMachine(const SystolicOptions &o,
                                                   isa::ElemType input) {
  isa::MachineConfig mc;
  mc.rows = o.rows;
  mc.cols = o.cols;
  mc.inputType = input;
  mc.accType =
      input == isa::ElemType::I8 ? isa::ElemType::I32 : isa::ElemType::F32;
  int64_t spad =
      o.spadKib * 1024 / (int64_t(mc.spadWidth()) * isa::elemBytes(input));
  int64_t acc = o.accKib * 1024 / (int64_t(mc.cols) * 4);
  mc.spadBanks = o.spadBanks;
  mc.accBanks = o.accBanks;
  mc.spadRows = std::max<int64_t>(spad / o.spadBanks * o.spadBanks, 0);
  mc.accRows = std::max<int64_t>(acc / o.accBanks * o.accBanks, 0);
  mc.dramBytesPerCycle = o.dramBytesPerCycle;
  mc.dramLatency = o.dramLatency;
  mc.vectorLanes = o.vectorLanes;
  return mc;
}

std::optional<SystolicDataflow>
mlir::accel::getForcedDataflow(const SystolicOptions &o) {
  if (o.dataflow == "ws")
    return SystolicDataflow::WS;
  if (o.dataflow == "os")
    return SystolicDataflow::OS;
  if (o.dataflow == "is")
    return SystolicDataflow::IS;
  return std::nullopt;
}

FailureOr<SystolicOptions>
mlir::accel::getSystolicOverrides(Operation *op,
                                  const SystolicOptions &options) {
  FailureOr<LoweringConfigAttr> found = getLoweringConfig(op);
  if (failed(found) || !*found)
    return failed(found) ? FailureOr<SystolicOptions>(failure())
                         : FailureOr<SystolicOptions>(options);
  LoweringConfigAttr config = *found;
  if (config.getKernel() != "systolic")
    return op->emitOpError("has a lowering_config for the ")
           << config.getKernel()
           << " kernel; the systolic array runs the systolic kernel";
  SystolicOptions o = options;
  ArrayRef<int64_t> tile = config.getTile();
  if (isa<AttentionOp, PagedAttentionOp>(op)) {
    if (!config.getDataflow().empty())
      return op->emitOpError("has a lowering_config dataflow; attention runs "
                             "weight-stationary on the array");
    if (config.getStages() != 0)
      return op->emitOpError("has a lowering_config stages; it counts the "
                             "buffers of a matmul's C blocks on the array");
    if (!tile.empty() && tile.size() != 2)
      return op->emitOpError("has a lowering_config tile of ")
             << tile.size()
             << " entries; attention takes [query rows, keys per block]";
    if (!tile.empty()) {
      o.attentionTileQ = tile[0];
      o.attentionTileKV = tile[1];
    }
    return o;
  }
  if (isa<DequantMatmulOp>(op)) {
    if (!config.getDataflow().empty() || config.getStages() != 0)
      return op->emitOpError("has a lowering_config dataflow or stages; a "
                             "weight-only quantised matmul runs "
                             "weight-stationary with its own buffering");
    if (!tile.empty() && tile.size() != 2)
      return op->emitOpError("has a lowering_config tile of ")
             << tile.size()
             << " entries; a weight-only quantised matmul takes [M, N] (rows "
                "of A a block, rows of W a strip)";
    if (!tile.empty()) {
      o.dequantTileM = tile[0];
      o.dequantTileN = tile[1];
    }
    return o;
  }
  if (!tile.empty() && tile.size() != 3)
    return op->emitOpError("has a lowering_config tile of ")
           << tile.size() << " entries; a matmul takes [M, N, K]";
  if (!config.getDataflow().empty())
    o.dataflow = config.getDataflow().str();
  if (!tile.empty()) {
    o.tileM = tile[0];
    o.tileN = tile[1];
    o.tileK = tile[2];
  }
  // (The attribute's verifier keeps stages in 0 to 2.)
  o.cBuffers = config.getStages() == 1 ? 1 : 2;
  return o;
}

//===----------------------------------------------------------------------===//
// Choices
//===----------------------------------------------------------------------===//

FailureOr<SystolicMatmulSchedule>
mlir::accel::configureSystolicMatmul(Operation *op,
                                     const isa::MachineConfig &mc,
                                     const SystolicMatmulShape &shape,
                                     const SystolicOptions &o) {
  std::optional<SystolicDataflow> forced = getForcedDataflow(o);
  SystolicMatmulShape alone = shape;
  alone.epilogue.reset();
  alone.seededEpilogue.reset();
  std::optional<SystolicMatmulSchedule> schedule = chooseSystolicMatmulSchedule(
      mc, alone, forced, o.tileM, o.tileN, o.tileK, o.cBuffers);
  double cycles =
      schedule ? predictSystolicMatmulCycles(mc, alone, *schedule) +
                     (shape.epilogue ? shape.epilogue->separateCycles : 0.0)
               : 0.0;
  // With the epilogue applied to C's blocks where a schedule fits with it
  // and the model predicts it faster than the matmul and the epilogue on
  // its own; its seeded form where that is faster still and buys other
  // blocks (with the same blocks the seed's latency makes it slower, which
  // the model does not see); else the epilogue runs as a kernel of its own.
  if (o.fuseEpilogues) {
    for (bool seeded : {false, true}) {
      const std::optional<SystolicEpilogueShape> &e =
          seeded ? shape.seededEpilogue : shape.epilogue;
      if (!e)
        continue;
      SystolicMatmulShape variant = alone;
      variant.epilogue = e;
      if (seeded)
        variant.seededEpilogue = e;
      // Seeded only on blocks where the epilogue's slots would not fit at
      // full height: it saves rows there; elsewhere its seed's latency
      // costs more than the model sees.
      auto saves = [&](const SystolicMatmulSchedule &s) {
        if (!seeded || !shape.epilogue)
          return true;
        SystolicMatmulShape unfolded = alone;
        unfolded.epilogue = shape.epilogue;
        SystolicMatmulSchedule full = s;
        full.epilogueRows = 0;
        return !fitsSystolic(mc, unfolded, full);
      };
      std::optional<SystolicMatmulSchedule> fused =
          chooseSystolicMatmulSchedule(mc, variant, forced, o.tileM, o.tileN,
                                       o.tileK, o.cBuffers, seeded, saves);
      if (!fused)
        continue;
      const double c = predictSystolicMatmulCycles(mc, variant, *fused);
      if (schedule && c >= cycles)
        continue;
      fused->epilogue = !seeded;
      fused->seeded = seeded;
      schedule = fused;
      cycles = c;
    }
  }
  if (!schedule)
    return op->emitOpError("has no ")
           << (forced ? stringifySystolicDataflow(*forced) : "")
           << (forced ? " " : "") << "schedule on the " << mc.rows << "x"
           << mc.cols << " array whose double-buffered blocks fit "
           << mc.spadRows << " scratchpad rows and " << mc.accRows
           << " accumulator rows"
           << (o.tileM || o.tileN || o.tileK ? " with the given tile sizes"
                                             : "")
           << (o.cBuffers == 1 ? " and one buffer of C" : "")
           << " (tile-n must be a multiple of cols, tile-k of rows for ws "
              "and is"
           << (o.cBuffers == 1 && forced && *forced == SystolicDataflow::OS &&
                       shape.accumulate
                   ? "; os with one buffer of C takes no initial C"
                   : "")
           << ")";
  return *schedule;
}

FailureOr<std::pair<int64_t, int64_t>>
mlir::accel::chooseSystolicAttentionTiles(Operation *op,
                                          const isa::MachineConfig &mc,
                                          const SystolicAttentionShape &g,
                                          int64_t tileQ, int64_t tileKV) {
  const int64_t width = std::min(mc.rows, mc.cols);
  const int64_t T = g.stripKeys ? g.stripKeys : width;
  if (tileKV % T != 0) {
    if (T == width)
      return op->emitOpError("attention-tile-kv ")
             << tileKV << " is not a multiple of min(rows, cols) = " << T;
    return op->emitOpError("attention-tile-kv ")
           << tileKV << " is not a multiple of the " << T
           << " keys of a strip (the gcd of min(rows, cols) and the page)";
  }
  // Keys per block: 4 array widths (or all of them); query rows: the
  // most that fit, up to 256. When not even one query row fits, fewer
  // keys (halved, whole strips; narrow strips of small pages take as many
  // scratchpad rows as wide ones).
  int64_t kv =
      tileKV ? tileKV
             : std::max<int64_t>(
                   T, std::min<int64_t>(llvm::alignTo(g.skv, T), 4 * width));
  for (;;) {
    int64_t tq =
        tileQ ? tileQ : std::max<int64_t>(1, std::min<int64_t>(g.sq, 256));
    for (; tq >= 1; tq = tileQ ? 0 : tq / 2) {
      auto [spad, acc] = getSystolicAttentionRows(mc, g, tq, kv);
      if (spad <= int64_t(mc.spadRows) && acc <= int64_t(mc.accRows))
        return std::make_pair(tq, kv);
      if (tileQ || tq == 1)
        break;
    }
    if (tileKV || kv == T)
      break;
    kv = std::max<int64_t>(T, kv / 2 / T * T);
  }
  // The last size tried (the given one, or 1).
  int64_t last = tileQ ? tileQ : 1;
  auto [spad, acc] = getSystolicAttentionRows(mc, g, last, kv);
  return op->emitOpError("blocks of ")
         << last << " queries x " << kv << " keys (d = " << g.d << ") need "
         << spad << " scratchpad rows and " << acc
         << " accumulator rows; the machine has " << mc.spadRows << " and "
         << mc.accRows;
}
