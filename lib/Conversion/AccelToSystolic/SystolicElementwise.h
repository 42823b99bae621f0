//===- SystolicElementwise.h - vector-unit kernels --------------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Elementwise linalg.generic ops (a matmul's bias, activation, residual and
// cast, run after it; SwiGLU's product) and linalg.fill on the systolic
// target: each a kernel of the vector unit. The output is walked in blocks
// of rows x the accumulator's width; per block every input is moved in
// from DRAM into accumulator rows (the DMA widens bf16 to f32; an input
// broadcast along the rows is read as one row and doubled by vector
// copies, one constant along the columns is read as one column and applied
// per row), the body runs as
// vector instructions on those rows, and mvout stores the result (rounding
// f32 to bf16 for a bf16 output). The body's ops map to the unit's add,
// sub, mul, div, max and exp; negation is a multiply by -1, a ReLU written
// as select(cmpf ugt) a max; constants are immediates.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_CONVERSION_ACCELTOSYSTOLIC_SYSTOLICELEMENTWISE_H
#define ACCEL_LIB_CONVERSION_ACCELTOSYSTOLIC_SYSTOLICELEMENTWISE_H

#include "SystolicEmitter.h"
#include "SystolicLayout.h"
#include "accel/Conversion/AccelToSystolic/AccelToSystolic.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::accel {

/// One elementwise kernel of the vector unit: what it reads (each input's
/// element strides per output dimension, 0 where it broadcasts) and the
/// vector program of its body.
struct SystolicElementwise {
  Operation *op = nullptr;
  /// The loop space (the output's shape, or for a reduction the output's
  /// and the reduced loop last); rows are all dimensions but the last,
  /// flattened.
  SmallVector<int64_t> shape;
  /// A reduction over the last loop: the body's value (`result`) summed or
  /// maximised along each row (rowsum / rowmax across the strips) into the
  /// output, and the initial value combined at the end when it is not the
  /// combiner's neutral element (a constant fill).
  std::optional<systolic::VecOp> reduce;
  std::optional<float> reduceInit;
  struct Input {
    /// The DRAM value read: the root of the operand's layout (a view's
    /// source's buffer, SystolicLayout.h).
    Value value;
    SmallVector<int64_t> strides; // per output dimension
    /// Constant along the last dimension: one column, applied per row.
    bool column = false;
    /// The element offset of the view (a slice's start).
    int64_t offset = 0;
  };
  SmallVector<Input> inputs;
  /// Where the result goes: its layout's root's buffer (its own, or the
  /// one it is placed in: a concatenation's part, or laid out as a view of
  /// it reads, SystolicLayout.h), at an element offset and strides per
  /// output dimension, the last 1.
  struct Output {
    Value value;
    int64_t offset = 0;
    SmallVector<int64_t> strides;
  };
  Output out;
  /// A register of the program: an input (its index), an instruction's
  /// result, or an immediate.
  enum class Kind { Full, Column, Scalar };
  struct Operand {
    Kind kind = Kind::Scalar;
    int reg = -1;
    float imm = 0;
  };
  struct Instr {
    systolic::VecOp op;
    int dst;
    Operand a, b; // b unused by exp / fill / copy
    Kind kind;    // of dst
  };
  /// Registers 0 .. inputs - 1 are the inputs; each instruction defines a
  /// new one.
  int numRegs = 0;
  SmallVector<Instr> program;
  Operand result;
  /// Each register's accumulator slot (each a block's rows; -1 for an
  /// unused input), and how many slots are live at once.
  SmallVector<int> slotOf;
  int slots = 0;
};

/// Whether `g` reduces its last loop (every other loop parallel) into an
/// output indexed by the other loops in order: a row reduction of the
/// vector unit (rowsum, rowmax).
bool isSystolicRowReduction(linalg::GenericOp g);

/// The vector-unit kernel of `op` (a linalg.generic or linalg.fill whose
/// result is a DRAM buffer), reading and writing its tensors where
/// `layouts` puts them; a located error naming the op and why when the
/// vector unit cannot run it.
FailureOr<SystolicElementwise>
analyzeSystolicElementwise(Operation *op, const SystolicLayouts &layouts);

/// The model's cycles of the kernel on its own (of one 2-D slice of its
/// output when `oneSlice`).
double predictSystolicElementwiseCycles(const SystolicElementwise &k,
                                        const ::sysarray::MachineConfig &mc,
                                        bool oneSlice = false);

/// Emits the kernel's instructions; `bufferOf` gives each DRAM value's
/// buffer. Returns the model's cycles for it.
double emitSystolicElementwise(systolic_emit::Emitter &e,
                               const SystolicElementwise &k,
                               const llvm::DenseMap<Value, uint32_t> &bufferOf);

/// A matmul's epilogue applied to its C blocks in the accumulator
/// (docs/systolic.md, "Fused epilogues"): the elementwise kernel, which of
/// its inputs is C, the input added to C first that becomes C's initial
/// value in the accumulator (-1: none; the kernel's program then starts
/// after that add), and whether C is also stored (something else reads
/// it).
struct SystolicEpilogue {
  /// The kernel as analysed, and as applied (after the fold).
  const SystolicElementwise *original = nullptr;
  SystolicElementwise kernel;
  int cInput = -1;
  int initInput = -1;
  bool storeC = false;
};

/// The epilogue of `matmul`: the first elementwise kernel (`kernelOf`, null
/// for other ops) that reads its result, with C's shape, through the
/// identity and once, whose other inputs are in DRAM before the matmul
/// runs; std::nullopt when there is none.
std::optional<SystolicEpilogue> matchSystolicEpilogue(
    Operation *matmul,
    llvm::function_ref<const SystolicElementwise *(Operation *)> kernelOf);

/// The seeded form of `ep` (for a matmul that does not accumulate): when
/// the kernel's only use of C is C + X, X a block or a row broadcast read
/// nowhere else, X becomes C's initial value in the accumulator (a bias
/// preloaded as Gemmini's D) and the kernel starts after that add, taking
/// no accumulator rows for X; std::nullopt when it has no such add.
std::optional<SystolicEpilogue> seedSystolicEpilogue(const SystolicEpilogue &ep);

/// What the epilogue adds to the matmul's program, for the schedule model.
SystolicEpilogueShape
describeSystolicEpilogue(const SystolicEpilogue &ep,
                         const ::sysarray::MachineConfig &mc);

/// The initial value of one strip of C (the epilogue's initInput) moved
/// into accumulator row `cRow` on: a block, or a row moved in once and
/// doubled by vector copies.
void emitSystolicEpilogueInit(systolic_emit::Emitter &e,
                              const SystolicEpilogue &ep,
                              const llvm::DenseMap<Value, uint32_t> &bufferOf,
                              int64_t outer, int64_t r0, int64_t c0,
                              int64_t rows, int64_t cols, int64_t cRow);

/// The epilogue on one strip of C: `rows` x `cols` at (r0, c0) of the
/// output's 2-D slice `outer`, C at accumulator row `cRow`, the kernel's
/// other slots from `spareRow` on, `slotRows` rows each. Stores the
/// result; C's own store is the caller's.
void emitSystolicEpilogue(systolic_emit::Emitter &e, const SystolicEpilogue &ep,
                          const llvm::DenseMap<Value, uint32_t> &bufferOf,
                          int64_t outer, int64_t r0, int64_t c0, int64_t rows,
                          int64_t cols, int64_t cRow, int64_t spareRow,
                          int64_t slotRows);

} // namespace mlir::accel

#endif // ACCEL_LIB_CONVERSION_ACCELTOSYSTOLIC_SYSTOLICELEMENTWISE_H
