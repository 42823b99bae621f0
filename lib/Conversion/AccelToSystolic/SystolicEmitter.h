//===- SystolicEmitter.h - systolic program emission ------------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The instruction emitter of convert-accel-to-systolic, shared by the
// matmul and attention lowering (AccelToSystolic.cpp) and the elementwise
// kernels on the vector unit (SystolicElementwise.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_CONVERSION_ACCELTOSYSTOLIC_SYSTOLICEMITTER_H
#define ACCEL_LIB_CONVERSION_ACCELTOSYSTOLIC_SYSTOLICEMITTER_H

#include "accel/Dialect/Systolic/IR/SystolicOps.h"
#include "accel/Systolic/ISA.h"
#include "mlir/IR/Builders.h"
#include <cmath>
#include <optional>

namespace mlir::accel::systolic_emit {

inline int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// A row-major matrix inside a DRAM buffer, possibly read transposed:
/// element (r, c) is at offset + r * stride + c, or offset + c * stride + r
/// when `transposed`.
struct View {
  uint32_t buffer = 0;
  int64_t offset = 0;
  int64_t stride = 0;
  bool transposed = false;

  View t() const {
    View v = *this;
    v.transposed = !v.transposed;
    return v;
  }
  /// The DRAM offset of the block starting at (r0, c0) and whether the DMA
  /// transposes it.
  int64_t at(int64_t r0, int64_t c0) const {
    return transposed ? offset + c0 * stride + r0 : offset + r0 * stride + c0;
  }
};

/// Emits instructions at the end of a program's body.
class Emitter {
public:
  Emitter(OpBuilder &b, Location loc, const ::sysarray::MachineConfig &config)
      : b(b), loc(loc), config(config) {}

  void setDataflow(systolic::Dataflow d) {
    if (current && *current == d)
      return;
    systolic::ConfigOp::create(b, loc, d);
    current = d;
  }
  void mvin(const View &v, int64_t r0, int64_t c0, int64_t rows, int64_t cols,
            systolic::Space space, int64_t row) {
    mvin(v, r0, c0, rows, cols, space, row, Registers{});
  }
  /// Run-time addressing of an mvin (the scalar registers; ISA.h): the
  /// block at `pageStride * r[pageReg]` past the view's offset, and only
  /// its DRAM lines below `r[boundReg] - boundBase` read (the rest zeros).
  struct Registers {
    std::optional<int64_t> pageReg;
    int64_t pageStride = 0;
    std::optional<int64_t> boundReg;
    int64_t boundBase = 0;
  };
  void mvin(const View &v, int64_t r0, int64_t c0, int64_t rows, int64_t cols,
            systolic::Space space, int64_t row, const Registers &regs) {
    dma += double(rows * cols *
                  ::sysarray::elemBytes(space == systolic::Space::Spad
                                            ? config.inputType
                                            : config.accType)) /
           config.dramBytesPerCycle;
    mvinOp(v, r0, c0, rows, cols, space, row, systolic::UnpackAttr(), regs);
  }
  /// Scalar register `reg` = element `offset` of the i32 buffer `buffer`
  /// (the machine stops unless it is in [lo, hi]).
  void sload(uint32_t buffer, int64_t offset, int64_t lo, int64_t hi,
             int64_t reg) {
    systolic::SloadOp::create(b, loc, buffer, offset, lo, hi, reg);
  }
  /// r[reg] = r[regA] - r[regB] (r[regA] read as 0 without regA).
  void ssub(std::optional<int64_t> regA, int64_t regB, int64_t reg) {
    systolic::SsubOp::create(
        b, loc, regA ? b.getI64IntegerAttr(*regA) : IntegerAttr(),
        b.getI64IntegerAttr(regB), b.getI64IntegerAttr(reg));
  }
  /// A forward branch on run-time data: the instructions emitted until
  /// `endSkip` are skipped when scalar register `reg` holds at most `imm`.
  Operation *beginSkip(int64_t reg, int64_t imm) {
    return systolic::SkipOp::create(b, loc, 1, reg, imm);
  }
  /// Closes `skip`: its count, or no skip when nothing was emitted.
  void endSkip(Operation *skip) {
    int64_t count = 0;
    for (Operation *op = skip->getNextNode(); op; op = op->getNextNode())
      ++count;
    if (count == 0) {
      skip->erase();
      return;
    }
    cast<systolic::SkipOp>(skip).setCount(count);
  }
  /// A mask (mask_causal, mask_keys, mask_rows, mask_lower) whose offset
  /// adds scalar register `reg`.
  void mask(systolic::VecOp op, int64_t dst, int64_t rows, int64_t cols,
            int64_t offset, std::optional<int64_t> reg) {
    vector(op, dst, dst, std::nullopt, rows, cols, systolic::Bcast::None,
           std::nullopt, offset, false, false, false, reg);
  }
  /// mvin of an i8 buffer's integers (weight-only quantised weights) into
  /// a float SRAM; `v` addresses the unpacked elements (nibbles for 4-bit).
  void mvinUnpacked(const View &v, int64_t r0, int64_t c0, int64_t rows,
                    int64_t cols, systolic::Space space, int64_t row,
                    systolic::Unpack unpack) {
    const bool nibbles =
        unpack == systolic::Unpack::S4 || unpack == systolic::Unpack::U4;
    dma += double(rows * (nibbles ? (cols + 1) / 2 : cols)) /
           config.dramBytesPerCycle;
    mvinOp(v, r0, c0, rows, cols, space, row,
           systolic::UnpackAttr::get(b.getContext(), unpack), {});
  }
  void mvout(systolic::Space space, int64_t row, int64_t rows, int64_t cols,
             const View &v, int64_t r0, int64_t c0) {
    systolic::MvoutOp::create(b, loc, space, row, rows, cols, v.buffer,
                              v.at(r0, c0), v.stride, v.transposed);
  }
  void preload(std::optional<int64_t> weights, int64_t cRow, int64_t m,
               int64_t k, int64_t n, bool accumulate) {
    systolic::PreloadOp::create(
        b, loc, weights ? b.getI64IntegerAttr(*weights) : IntegerAttr(),
        b.getI64IntegerAttr(cRow), b.getI64IntegerAttr(m),
        b.getI64IntegerAttr(k), b.getI64IntegerAttr(n),
        accumulate ? b.getUnitAttr() : UnitAttr());
  }
  void compute(int64_t aRow, std::optional<int64_t> bRow, int64_t m, int64_t k,
               int64_t n, bool preloaded) {
    array += std::max(m, k);
    systolic::ComputeOp::create(
        b, loc, b.getI64IntegerAttr(aRow),
        bRow ? b.getI64IntegerAttr(*bRow) : IntegerAttr(),
        b.getI64IntegerAttr(m), b.getI64IntegerAttr(k), b.getI64IntegerAttr(n),
        preloaded ? b.getUnitAttr() : UnitAttr());
  }
  /// A vector op; `srcB` only for binary ops without a scalar.
  void vector(systolic::VecOp op, int64_t dst, int64_t srcA,
              std::optional<int64_t> srcB, int64_t rows, int64_t cols,
              systolic::Bcast bcast = systolic::Bcast::None,
              std::optional<float> fimm = std::nullopt,
              std::optional<int64_t> iimm = std::nullopt,
              bool accumulate = false, bool infIsZero = false,
              bool toSpad = false, std::optional<int64_t> reg = std::nullopt) {
    // Each op of the softmax depends on the one before: issue cycles plus
    // the unit's pipeline (the simulator's model, docs/systolic-simulator.md).
    double issue = std::ceil(double(rows * cols) / config.vectorLanes);
    vec +=
        (op == systolic::VecOp::Exp || op == systolic::VecOp::Rsqrt ? 4 * issue
                                                                    : issue) +
        4;
    systolic::VectorOp::create(
        b, loc, systolic::VecOpAttr::get(b.getContext(), op),
        b.getI64IntegerAttr(dst), b.getI64IntegerAttr(srcA),
        srcB ? b.getI64IntegerAttr(*srcB) : IntegerAttr(),
        b.getI64IntegerAttr(rows), b.getI64IntegerAttr(cols),
        bcast == systolic::Bcast::None
            ? systolic::BcastAttr()
            : systolic::BcastAttr::get(b.getContext(), bcast),
        fimm ? b.getF32FloatAttr(*fimm) : FloatAttr(),
        iimm ? b.getI64IntegerAttr(*iimm) : IntegerAttr(),
        reg ? b.getI64IntegerAttr(*reg) : IntegerAttr(),
        accumulate ? b.getUnitAttr() : UnitAttr(),
        infIsZero ? b.getUnitAttr() : UnitAttr(),
        toSpad ? b.getUnitAttr() : UnitAttr());
  }
  void fence() { systolic::FenceOp::create(b, loc); }
  void fill(int64_t dst, int64_t rows, int64_t cols, float value) {
    vector(systolic::VecOp::Fill, dst, 0, std::nullopt, rows, cols,
           systolic::Bcast::None, value);
  }

  const ::sysarray::MachineConfig &machine() const { return config; }

  /// Attention's running cost estimate (see emitAttentionHead): the
  /// array's, the vector unit's and the DMA's cycles since the last reset.
  double array = 0, vec = 0, dma = 0, store = 0;

private:
  void mvinOp(const View &v, int64_t r0, int64_t c0, int64_t rows, int64_t cols,
              systolic::Space space, int64_t row, systolic::UnpackAttr unpack,
              const Registers &regs) {
    auto i64 = [&](int64_t x) { return b.getI64IntegerAttr(x); };
    auto opt = [&](bool present, int64_t x) {
      return present ? i64(x) : IntegerAttr();
    };
    systolic::MvinOp::create(
        b, loc, i64(v.buffer), i64(v.at(r0, c0)), i64(v.stride),
        systolic::SpaceAttr::get(b.getContext(), space), i64(row), i64(rows),
        i64(cols), v.transposed ? b.getUnitAttr() : UnitAttr(), unpack,
        opt(regs.pageReg.has_value(), regs.pageReg.value_or(0)),
        opt(regs.pageReg.has_value(), regs.pageStride),
        opt(regs.boundReg.has_value(), regs.boundReg.value_or(0)),
        opt(regs.boundReg.has_value(), regs.boundBase));
  }

  OpBuilder &b;
  Location loc;
  const ::sysarray::MachineConfig &config;
  std::optional<systolic::Dataflow> current;
};

} // namespace mlir::accel::systolic_emit

#endif // ACCEL_LIB_CONVERSION_ACCELTOSYSTOLIC_SYSTOLICEMITTER_H
