//===- BlockEpilogue.h - epilogues applied per C block -------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A GEMM kernel whose C leaves its registers through memory (AMX's tile
// stores) applies the elementwise epilogue that follows the GEMM to each C
// block right after the block's last store, while the block is in L1,
// instead of as a second pass over the whole C. The epilogue is what
// accel-fuse-epilogues leaves on buffers: an elementwise linalg.generic
// that reads C, either in place (C is its output: bias, activation,
// residual) or out of place (C one of its inputs, the output another
// buffer of C's shape: the cast to bf16, f16, fp8 or int8).
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_TRANSFORMS_BLOCKEPILOGUE_H
#define ACCEL_LIB_TRANSFORMS_BLOCKEPILOGUE_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include <optional>

namespace mlir::accel {

/// The elementwise epilogue of a GEMM whose output is the 2-D buffer C.
struct BlockEpilogue {
  linalg::GenericOp generic;
  /// The generic's operand that reads C: one of its inputs (out of place)
  /// or its output (in place).
  unsigned cOperand = 0;
  /// Buffers the generic uses that are allocated between the GEMM and it
  /// (the out-of-place result): moved before the GEMM by `prepare`.
  SmallVector<Operation *> hoist;

  /// C is the generic's output (else one of its inputs).
  bool inPlace = false;
  /// The buffer the epilogue writes (C itself when in place).
  Value output() { return generic.getDpsInitOperand(0)->get(); }
  /// Moves `hoist` before `gemm`, so that the epilogue's blocks can be
  /// emitted where the GEMM is.
  void prepare(Operation *gemm);
};

/// The ops that define what `g` uses (its operands and the values its body
/// captures) between `gemm` and it, in block order, when each is an
/// allocation or a constant whose operands exist at `gemm` (moving them
/// before `gemm` lets `g`'s blocks be emitted where the GEMM is); none when
/// some other value is defined after `gemm`.
std::optional<SmallVector<Operation *>> hoistableBefore(linalg::GenericOp g,
                                                        Operation *gemm);

/// The epilogue of `gemm` (output `c`, a 2-D buffer of static shape): the
/// next op in the block that may access C's buffer, when it is an
/// elementwise linalg.generic on buffers (every loop parallel, C's shape,
/// no linalg.index, a body without memory effects, one output indexed by
/// the identity) that reads C through the identity map, either as its
/// output or as an input with the output another buffer; its other inputs
/// other buffers indexed by loop dimensions only (a bias along N, a scale
/// along M, a residual). Nothing between the GEMM and it may write what it
/// reads or access its output, and every value it uses must be available
/// where the GEMM is (or be an allocation that can move there).
std::optional<BlockEpilogue> findBlockEpilogue(linalg::LinalgOp gemm, Value c);

/// Emits the epilogue on C's block at `offsets` of static `sizes`: a
/// generic that reads C's values from `cValues` (a buffer of `sizes`, the
/// block itself or a padded copy of it) and the matching blocks of the
/// other inputs, and writes the matching block of the epilogue's output.
/// Returns the new generic (left to accel-cpu-vectorize-elementwise).
linalg::GenericOp emitBlockEpilogue(OpBuilder &b, Location loc,
                                    BlockEpilogue &e, Value cValues,
                                    ArrayRef<OpFoldResult> offsets,
                                    ArrayRef<int64_t> sizes);

/// Prefetches row `row` of the columns [col0, col0 + cols) of the
/// epilogue's output (for writing) and of its inputs of C's shape other
/// than C (for reading), one prefetch per 64-byte line. A kernel spreads a
/// block's rows over the K loop before the block's epilogue: the lines
/// arrive while the tiles multiply, without a burst of misses that delays
/// the tile loads.
void emitRowPrefetch(OpBuilder &b, Location loc, BlockEpilogue &e, Value row,
                     Value col0, int64_t cols);

/// Whether C's values may be read after `epilogue` (out of place): C is not
/// a buffer allocated in the epilogue's block, or an op after it there uses
/// it other than to free it.
bool readAfter(linalg::GenericOp epilogue, Value c);

/// Whether `g`'s body is cheap: arithmetic other than division, compares
/// and selects, absolute values. A polynomial activation (GELU's erf or
/// tanh, SiLU's exp) or a division is not: on a C tile in registers its ~30
/// constants and the other rows' accumulators do not fit the register file
/// together (an f32 GELU spilled ~230 registers against ~35) and it
/// measured 0.88-1.01 of a separate vectorized pass; its cost is the
/// polynomial, not C's traffic (docs/epilogues.md).
bool isCheapEpilogue(linalg::GenericOp g);

/// Whether `g` divides integers: never applied to register tiles, whose
/// masked lanes past a remainder compute on padding (a zero divisor traps).
bool dividesIntegers(linalg::GenericOp g);

/// Whether the epilogue can run on vectors of one C row's 16 columns in
/// registers (emitRegisterEpilogue): a body of elementwise arith and math
/// ops on scalars without regions, no integer division, and inputs other
/// than C indexed by (m), (n), (m, n) or nothing.
bool hasRegisterForm(BlockEpilogue &e);

/// Applies the epilogue to `acc`, C's values at row `row`, columns [col,
/// col + lanes) (a vector of C's element type), and stores the result to
/// the epilogue's output there; `mask` (or null) marks the columns that
/// exist: its loads of the other inputs and its store are masked. The
/// inputs' values come from vector loads of their row (a bias along N),
/// broadcasts of one element (a scale along M) or the output's own values
/// when the body reads them.
void emitRegisterEpilogue(OpBuilder &b, Location loc, BlockEpilogue &e,
                          Value acc, Value row, Value col, Value mask);

} // namespace mlir::accel

#endif // ACCEL_LIB_TRANSFORMS_BLOCKEPILOGUE_H
