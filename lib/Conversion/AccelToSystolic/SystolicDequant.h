//===- SystolicDequant.h - weight-only quantised matmul ---------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel.dequant_matmul on the systolic target (docs/systolic.md, "Weight-only
// quantised matmul"). The problem runs transposed, Cᵀ = W · Aᵀ, on the WS
// dataflow: Aᵀ (the activations, a few rows at decode) is the stationary
// tile, and the weights stream through it a row of W per cycle, moved in
// by the DMA as packed bytes and unpacked to integers on the way
// (`mvin unpack`: exact in bf16 and f32), so no dequantised copy exists
// in DRAM. Two forms:
//
// - bf16 activations (a bf16 array), no zero points: the integers go
//   straight into the scratchpad; per strip of W's rows and per group of
//   K the array sums A · q over the group (every product exact: bf16 times
//   an integer of at most 8 bits) into a partial block; the vector unit
//   scales it by the group's scales (one per row of Cᵀ: a row broadcast)
//   and adds it to Cᵀ. An f32 matmul of A and the dequantised weights in
//   another order of sums, inside the op's contract, except where an
//   unscaled group sum leaves f32's range or a scale is not finite (the
//   order of the products then decides inf against NaN).
// - f32 activations (an f32 array): each weight tile goes through the
//   accumulator, where the vector unit computes the op's own rule,
//   w = f32(f32(q - z) * s), before it is copied into the scratchpad; the
//   array then sums A · w over all of K.
// - bf16 activations with zero points: q - z (f32, as the rule computes
//   it) is not a bf16 for a fractional zero point, so each tile goes
//   through the accumulator and is split there into three bf16 parts
//   whose sum is q - z exactly (hi = round_bf16(x), mid = round_bf16(x -
//   hi), lo = x - hi - mid); the array streams all three through Aᵀ's tile
//   into the group's partial block, which is then scaled as above.
//
// Cᵀ is stored transposed.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_CONVERSION_ACCELTOSYSTOLIC_SYSTOLICDEQUANT_H
#define ACCEL_LIB_CONVERSION_ACCELTOSYSTOLIC_SYSTOLICDEQUANT_H

#include "SystolicEmitter.h"
#include "accel/Conversion/AccelToSystolic/AccelToSystolic.h"
#include "accel/Dialect/Accel/IR/AccelOps.h"

namespace mlir::accel {

/// One weight-only quantised matmul on the array.
struct SystolicDequant {
  /// Rows of A and C (the batch dimensions and M flattened), K, N.
  int64_t m = 0, k = 0, n = 0;
  /// Bits a weight, K a group, unsigned weights, zero points.
  int64_t bits = 8, group = 0;
  bool isUnsigned = false, zeroPoints = false;
  /// The weights dequantised on the vector unit before the array (f32
  /// activations), else the groups' sums scaled after it.
  bool exact = false;
  /// W's rows a strip (Cᵀ's rows in the accumulator), columns of C a block
  /// (at most the array's columns), K a tile (the array's rows; at most the
  /// accumulator's width when tiles are dequantised there), weight tiles
  /// in flight in the scratchpad, and whether all of Aᵀ stays in the
  /// scratchpad.
  int64_t tileN = 0, tileM = 0, tileK = 0, wBuffers = 2;
  bool aResident = false;
  /// Bytes of a scale (and zero point) and of an element of C in DRAM.
  int64_t scaleBytes = 4, cBytes = 4;

  int64_t groups() const { return k / group; }
  /// Weight tiles go through the accumulator first (dequantised there, or
  /// q - z split there), and the bf16 parts each tile streams as (three:
  /// q - z in f32 is hi + mid + lo in bf16, exactly; else one).
  bool staged() const { return exact || zeroPoints; }
  bool split() const { return zeroPoints && !exact; }
  int64_t parts() const { return split() ? 3 : 1; }
  /// K's tiles a group (the last one shorter): no tile straddles two
  /// groups' scales.
  int64_t tilesPerGroup() const { return systolic_emit::ceilDiv(group, tileK); }
  int64_t mBlocks() const { return systolic_emit::ceilDiv(m, tileM); }
  systolic::Unpack unpack() const {
    if (bits == 4)
      return isUnsigned ? systolic::Unpack::U4 : systolic::Unpack::S4;
    return isUnsigned ? systolic::Unpack::U8 : systolic::Unpack::S8;
  }
};

/// The kernel of `op` on `machine`: its shape and blocks; a located error
/// naming the op and why when the array cannot run it (f16 operands, SRAMs
/// too small for one strip).
///
/// The blocks are chosen here (the configuration stage writes them into
/// the op's lowering_config, the conversion reads them back): a block of
/// C's columns as wide as the array (`tileM`), strips as tall as the
/// accumulator allows up to 512 rows (`tileN`); `options.dequantTileM/N`
/// (from a lowering_config) fix them, checked against the machine.
FailureOr<SystolicDequant>
analyzeSystolicDequant(DequantMatmulOp op,
                       const ::sysarray::MachineConfig &machine,
                       const SystolicOptions &options);

/// The model's cycles: per strip and group the slowest of the DMA (the
/// packed weights, the scales, the activations, C), the array (a row of W
/// a cycle) and the vector unit, plus the pipeline's fill.
double predictSystolicDequantCycles(const SystolicDequant &k,
                                    const ::sysarray::MachineConfig &machine);

/// The DRAM operands of one kernel: A's and C's rows ([m, k] and [m, n]
/// at a row stride), and the buffers of the weights, scales and zero
/// points (row-major, whole).
struct SystolicDequantOperands {
  systolic_emit::View a, c;
  uint32_t weights = 0, scales = 0, zeroPoints = 0;
};

/// Emits the kernel.
void emitSystolicDequant(systolic_emit::Emitter &e, const SystolicDequant &k,
                         const SystolicDequantOperands &operands);

} // namespace mlir::accel

#endif // ACCEL_LIB_CONVERSION_ACCELTOSYSTOLIC_SYSTOLICDEQUANT_H
