//===- Epilogue.h - matmul epilogues inside GPU GEMM kernels ----*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A matmul's epilogue on the GPU: the elementwise linalg.generic that
// consumes an accel.matmul's C (what accel-fuse-epilogues leaves: bias,
// activation, residual, scale, a cast, fused into one generic) is applied
// by the GEMM kernel to each element of C while it is in registers, before
// the store. The kernel then reads the generic's other operands (a bias
// row, a per-row scale, a residual) from global memory at the element's
// indices, and writes the generic's result instead of C.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_CONVERSION_ACCELTOGPU_EPILOGUE_H
#define ACCEL_LIB_CONVERSION_ACCELTOGPU_EPILOGUE_H

#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include <optional>
#include <string>

namespace mlir::accel {

/// Threads per block of a standalone elementwise kernel.
constexpr int64_t kGpuElementwiseThreads = 256;

/// An elementwise linalg.generic a GEMM kernel applies to its C tile (or,
/// with no matmul under it, a kernel of its own).
struct GpuEpilogue {
  linalg::GenericOp op;
  /// The generic's operand (ins, then outs) that is the matmul's C (none
  /// for a standalone elementwise kernel).
  std::optional<unsigned> matmulOperand;
  /// The operands the kernel reads from memory, in operand order, one per
  /// tensor: each becomes a kernel parameter after A, B and C's initial
  /// value.
  SmallVector<unsigned> bufferOperands;
  /// Operands that read a tensor an earlier operand of bufferOperands
  /// reads too (through another map: RoPE's halves of x), by operand
  /// number: the index of that parameter in bufferOperands.
  llvm::DenseMap<unsigned, unsigned> sameBufferAs;
  /// The operands that are splat constants, by operand number.
  llvm::DenseMap<unsigned, TypedAttr> splats;
  /// The element type the kernel stores (the generic's result's).
  Type outType;
};

/// Whether a kernel reads and writes elements of `t` (whole bytes of the
/// types the launcher and the oracle know: f32, f16, bf16, i8, i32).
bool isGpuStorableType(Type t);

/// Why `op` cannot be in the body a GPU kernel evaluates per element, or ""
/// when it can: scalar arith and math ops and linalg.index.
std::string whyNotInGpuBody(Operation &op);

/// Why `g`'s body cannot be evaluated per element in a kernel ("its body
/// holds ...", "its body uses a value defined outside ..."), or "": the
/// ops whyNotInGpuBody takes, reading nothing from outside the body but
/// scalar constants. Elementwise and row kernels share it.
std::string whyNotGpuBody(linalg::GenericOp g);

/// Why a kernel cannot load operand `operand` of `g` from memory at every
/// point of the loop box `loops` (what follows "operand #N "), or "": a
/// statically shaped tensor of a storable type read through a map whose
/// results are loop indices, constants, or sums, multiples, quotients and
/// remainders of them, never negative and inside the tensor. Elementwise
/// and row kernels share it.
std::string whyNotGpuBufferOperand(linalg::GenericOp g, OpOperand &operand,
                                   ArrayRef<int64_t> loops);

/// The index `e` (one whyNotGpuBufferOperand accepted) at the loop indices
/// `ivs`, in unsigned index arithmetic.
Value emitGpuIndex(OpBuilder &b, Location loc, AffineExpr e,
                   ArrayRef<Value> ivs);

/// The epilogue of `producer` (an accel.matmul or accel.attention): the
/// only user of its result when that is a linalg.generic. std::nullopt
/// when the result has no generic user, or when a row reduction reads it
/// (the result is then stored for the row kernel); a located error when the
/// generic is one the kernel cannot apply (not elementwise over the
/// result, an operand it cannot index, a body op that is not scalar arith
/// or math) or when the result has other users besides it.
FailureOr<std::optional<GpuEpilogue>> findGpuEpilogue(Operation *producer);

/// A standalone elementwise generic as a GPU kernel of its own (no matmul
/// under it: a residual add, SwiGLU's product, a cast): the same operands
/// and bodies an epilogue takes, every operand read from memory or a splat;
/// a located error otherwise.
FailureOr<GpuEpilogue> analyzeGpuElementwise(linalg::GenericOp g);

/// The epilogue's body for the element at loop indices `ivs` (C's
/// indices: [batch,] row, column): `c` is the matmul's element (C's type),
/// `buffers` the kernel's memrefs of `e.bufferOperands`. Loads of those
/// buffers and the body's ops are built at `b`'s insertion point, which
/// must be where the element is known to be inside C. Returns the element
/// to store, of type `e.outType`.
Value emitGpuEpilogueElement(OpBuilder &b, Location loc, const GpuEpilogue &e,
                             Value c, ArrayRef<Value> buffers,
                             ArrayRef<Value> ivs);

} // namespace mlir::accel

#endif // ACCEL_LIB_CONVERSION_ACCELTOGPU_EPILOGUE_H
