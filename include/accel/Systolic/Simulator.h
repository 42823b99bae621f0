//===- Simulator.h - cycle-level simulator of the systolic array -*- C++
//-*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Executes a systolic `Program` (ISA.h) bit-exactly on DRAM buffers and
// estimates its run time with one of two timing models:
//
//  * Default: a Gemmini-like machine with decoupled DMA and execute units,
//    per-SRAM-row and per-buffer dependency tracking (so double-buffered
//    schedules overlap DMA with compute), a pipelined DMA channel, weight
//    double buffering, fill/drain latency, bank conflicts and a vector unit.
//  * ScaleSim: SCALE-Sim v2's compute-cycle model (no overlap between folds,
//    full fill and drain per fold, ideal DRAM), to compare with its reports.
//
// docs/systolic-simulator.md gives the functional semantics and the timing
// formulas precisely.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_SYSTOLIC_SIMULATOR_H
#define ACCEL_SYSTOLIC_SIMULATOR_H

#include "accel/Systolic/ISA.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sysarray {

enum class TimingMode { Default, ScaleSim };

/// "default" or "scalesim".
const char *timingModeName(TimingMode mode);

struct SimOptions {
  TimingMode mode = TimingMode::Default;
};

/// Cycles of the vector unit's pipeline between reading an operand and
/// writing the result (Default timing).
inline constexpr uint64_t kVectorLatency = 4;
/// An Exp costs this many times the issue cycles of the other vector ops
/// (Default timing): the exponential is a multi-cycle iterative unit.
inline constexpr uint64_t kVectorExpFactor = 4;

struct SimStats {
  uint64_t cycles = 0;          // total cycles, first issue to last completion
  uint64_t computeCycles = 0;   // cycles the array is busy (streaming, weight
                                // loads, fill, drain as the model counts them)
  uint64_t stallCycles = 0;     // cycles - computeCycles (array idle waiting on
                                // DMA/vector/dependencies)
  uint64_t macs = 0;            // useful MACs (sum of m*k*n over computes)
  double peUtilization = 0;     // macs / (rows*cols*cycles)
  double mappingEfficiency = 0; // average over folds of used PEs / rows*cols
  double computeUtilization = 0; // SCALE-Sim's definition: average over
                                 // folds of mac_used*T/(rows*cols*fold_cycles)
  uint64_t folds = 0; // WS: weight loads, OS: preloads, each with computes
  uint64_t dramReadBytes = 0, dramWriteBytes = 0;
  uint64_t spadReadBytes = 0, spadWriteBytes = 0, accReadBytes = 0,
           accWriteBytes = 0;
  uint64_t bankConflictCycles = 0;
  uint64_t vectorCycles = 0, dmaBusyCycles = 0;
  uint64_t instructions = 0;
  /// Vector instructions executed (ScaleSim timing leaves their
  /// vectorCycles out of `cycles`).
  uint64_t vectorInstructions = 0;
  /// Instructions a skip passed over (not in `instructions`).
  uint64_t skippedInstructions = 0;
};

/// Runs `program` on `buffers` (one byte vector per program.buffers entry,
/// sized sizeBytes(), little-endian elements); results are written into the
/// buffers in place (any buffer an mvout names, normally Result/Scratch).
/// A run-time fault (DRAM access outside a buffer, SRAM row or column out of
/// range, a compute before config/preload, shape or type mismatches, wrong
/// buffer sizes, an unusable machine) returns an llvm::Error naming the
/// instruction index and the problem; the buffers may then be partly
/// written.
llvm::Expected<SimStats> simulate(const Program &program,
                                  std::vector<std::vector<uint8_t>> &buffers,
                                  const SimOptions &options = {});

/// A one-paragraph human-readable report of `stats`: cycles, utilization,
/// mapping efficiency, traffic and the DRAM bandwidth assumption.
std::string formatStats(const Program &program, const SimStats &stats,
                        TimingMode mode);

/// f32 -> bf16 bits, rounding to nearest even (NaN stays a quiet NaN).
uint16_t floatToBF16(float f);
/// bf16 bits -> f32 (exact).
float bf16ToFloat(uint16_t b);
/// f32 rounded to bf16 (nearest even) and held as f32: the vector unit's
/// round_bf16.
inline float roundToBF16(float f) { return bf16ToFloat(floatToBF16(f)); }

} // namespace sysarray

#endif // ACCEL_SYSTOLIC_SIMULATOR_H
