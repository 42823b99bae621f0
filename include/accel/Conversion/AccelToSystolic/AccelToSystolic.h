//===- AccelToSystolic.h - accel to systolic array programs -----*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// convert-accel-to-systolic and the schedule model it chooses with. The
// model (SystolicSchedule.cpp) predicts the cycles of a tiled matmul or
// attention on the machine of include/accel/Systolic/ISA.h with the
// simulator's default timing model (docs/systolic-simulator.md), so the
// compiler picks dataflows and tiles by the same arithmetic the simulator
// then measures.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_CONVERSION_ACCELTOSYSTOLIC_ACCELTOSYSTOLIC_H
#define ACCEL_CONVERSION_ACCELTOSYSTOLIC_ACCELTOSYSTOLIC_H

#include "mlir/Pass/Pass.h"
#include <cstdint>
#include <optional>
#include <string>

namespace sysarray {
struct MachineConfig;
} // namespace sysarray

namespace mlir {
namespace systolic {
class SystolicDialect;
} // namespace systolic
namespace accel {

#define GEN_PASS_DECL_CONVERTACCELTOSYSTOLICPASS
#include "accel/Conversion/Passes.h.inc"

/// Matmul dataflows the compiler emits (IS is WS on the transposed problem).
enum class SystolicDataflow { WS, OS, IS };

const char *stringifySystolicDataflow(SystolicDataflow d);

/// One matmul (a single batch element): C[M, N] (+)= A[M, K] . B[K, N].
struct SystolicMatmulShape {
  int64_t m = 0, n = 0, k = 0;
  /// Element sizes of A/B (input type), C in DRAM, and whether C is read.
  unsigned inBytes = 1, outBytes = 4;
  bool accumulate = false;
};

/// Blocks of the tiled loop nest: Mt rows of A, Nt columns of B (a
/// multiple of the array's columns), Kt deep (a multiple of its rows); for
/// IS the roles of M and N swap (Mt counts rows of Bᵀ).
struct SystolicMatmulSchedule {
  SystolicDataflow dataflow = SystolicDataflow::WS;
  int64_t tileM = 0, tileN = 0, tileK = 0;
};

/// Whether `schedule`'s double-buffered blocks fit in the SRAMs.
bool fitsSystolic(const ::sysarray::MachineConfig &config,
                  const SystolicMatmulShape &shape,
                  const SystolicMatmulSchedule &schedule);

/// Predicted cycles of the program convert-accel-to-systolic emits for one
/// matmul with `schedule` (DMA, array and their overlap).
double predictSystolicMatmulCycles(const ::sysarray::MachineConfig &config,
                                   const SystolicMatmulShape &shape,
                                   const SystolicMatmulSchedule &schedule);

/// The fastest fitting schedule by the model. `dataflow` and the tile sizes
/// (0: free) restrict the search; nullopt when nothing fits.
std::optional<SystolicMatmulSchedule> chooseSystolicMatmulSchedule(
    const ::sysarray::MachineConfig &config, const SystolicMatmulShape &shape,
    std::optional<SystolicDataflow> dataflow, int64_t tileM = 0,
    int64_t tileN = 0, int64_t tileK = 0);

} // namespace accel
} // namespace mlir

#endif // ACCEL_CONVERSION_ACCELTOSYSTOLIC_ACCELTOSYSTOLIC_H
