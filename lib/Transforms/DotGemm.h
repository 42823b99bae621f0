//===- DotGemm.h - 2-D bf16/i8 GEMMs on buffers for the CPU kernels -*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// What the CPU's dot-product kernels share: the contraction they take
// (C[m, n] += ext(A[m, k]) * ext(B[k, n]) on row-major buffers of static
// sizes, bf16 -> f32 or i8 -> i32) and the packing of B into column panels
// of K groups (the layout both AVX-512's vdpbf16ps/vpdpbusd and AMX's
// tdpbf16ps/tdpbssd multiply from). Used by accel-cpu-dot-kernels and
// accel-cpu-amx-kernels.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_TRANSFORMS_DOTGEMM_H
#define ACCEL_LIB_TRANSFORMS_DOTGEMM_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include <optional>

namespace mlir::accel {

/// The element types of a dot GEMM.
enum class DotKind {
  /// bf16 x bf16 summed in f32: two k values per 32-bit lane.
  Bf16,
  /// i8 x i8 summed in i32: four k values per 32-bit lane.
  I8,
};

/// A contraction the dot kernels handle: C[M, N] += A[M, K] * B[K, N].
struct DotGemm {
  linalg::LinalgOp op;
  DotKind kind;
  Value a, b, c;
  int64_t m, n, k;
  /// B is stored as [N, K] (element (k, n) at b[n, k]: a linear layer's
  /// weight in PyTorch's layout), which packDotB reads directly. Set by
  /// accel-cpu-amx-kernels for a B that a linalg.transpose made from such
  /// a buffer (matchTransposedB).
  bool bTransposed = false;

  /// K values one 32-bit lane takes: 2 (bf16) or 4 (i8).
  int64_t groupSize() const { return kind == DotKind::Bf16 ? 2 : 4; }
  /// A's and B's element type (bf16, i8) and C's (f32, i32).
  Type inputType() const {
    return cast<MemRefType>(a.getType()).getElementType();
  }
  Type accumulatorType() const {
    return cast<MemRefType>(c.getType()).getElementType();
  }
};

/// Where element t of column `col`'s group `kk` lies in a packDotB buffer
/// of panels of `nr` columns: [col / nr, kk, (col mod nr) G + t].
SmallVector<Value> dotPanelIndex(OpBuilder &b, Location loc, const DotGemm &g,
                                 int64_t nr, Value kk, Value col, int64_t t);

/// A B stored as [N, K] behind `g`'s B: when g.b is a buffer that a 2-D
/// linalg.transpose (permutation [1, 0]) fills from a buffer with unit
/// inner stride just before the GEMM (only allocations and fills of other
/// buffers between them) and nothing but the two reads or writes it, the
/// transpose; the GEMM may then read its input instead.
linalg::TransposeOp matchTransposedB(const DotGemm &g);

/// matchTransposedB for any GEMM: the transpose that fills `b` (an
/// allocation `gemm` reads as its B) as above, or null.
linalg::TransposeOp matchTransposeInto(Operation *gemm, Value b);

/// B's rows [k0, k0 + rows) x columns [col0, col0 + cols) as a view of
/// g.b (of its [N, K] buffer, swapped, when g.bTransposed): a GEMM over
/// that slab is `g` with this B, K = rows and N = cols.
Value viewOfB(OpBuilder &b, Location loc, const DotGemm &g, OpFoldResult k0,
              OpFoldResult col0, int64_t rows, int64_t cols);

/// matchTransposedB's transpose, with `g` then reading its input
/// (bTransposed); null, and `g` unchanged, when there is none.
linalg::TransposeOp adoptTransposedB(DotGemm &g);

/// Erases `transpose` (adoptTransposedB's, once its GEMM is built and gone)
/// and its copy's allocation when nothing else uses it.
void eraseTransposeOfB(Operation *transpose);

/// The 16 x 16 transpose of 32-bit words: `rows` are 16 vectors of 64
/// bytes (any element type), taken as 16 words each; returns the 16
/// columns, column j holding word j of every row, as vector<16xi32>. A
/// vector.transpose, for lowerWordTransposes to lower.
SmallVector<Value> transposeWords(OpBuilder &b, Location loc,
                                  ArrayRef<Value> rows);

/// Lowers the 16 x 16 transposes of 32-bit words in `root` (packDotB's for
/// a B stored [N, K], the transpose and dequant kernels' blocks) to 4
/// rounds of shuffles: unpacks, then lane permutes (Shuffle16x16), not
/// element by element.
LogicalResult lowerWordTransposes(Operation *root);

/// Whether `op` is a contraction on buffers with maps (m, k), (k, n),
/// (m, n) over loops (m, n, k), k a reduction: C[m, n] += A[m, k] B[k, n].
bool isPlainGemm(linalg::LinalgOp op);

/// `op` as a row-major GEMM with static sizes whose operands a dot
/// instruction takes: maps (m, k), (k, n), (m, n) over loops (m, n, k), unit
/// inner strides, and the body `out + ext(a) * ext(b)` with bf16 -> f32
/// (extf) or i8 -> i32 (extsi) widening.
std::optional<DotGemm> matchDotGemm(linalg::LinalgOp op);

/// Whether the last dimension of `t` is contiguous (vector loads of a
/// row need it).
bool unitInnerStride(MemRefType t);

/// Whether `op` already runs inside a parallel loop (scf.forall or
/// scf.parallel, e.g. FlashAttention's heads): a kernel there keeps its own
/// loops sequential.
bool insideParallelLoop(Operation *op);

/// Opens a loop over [0, count): an scf.forall when `parallel`, else an
/// scf.for, and moves `b` into its body (callers hold an InsertionGuard);
/// returns the induction variable.
Value openLoop(OpBuilder &b, Location loc, int64_t count, bool parallel);

/// B packed in panels of `nr` columns (a multiple of 16) and groups of G = 2
/// or 4 k values: a new buffer [ceil(N16 / nr), groups, nr x G] (N16: N
/// rounded up to 16; groups: ceil(K / G) rounded up to a multiple of
/// `groupMultiple`), column n's group kk at [n / nr, kk, (n mod nr) G + t]
/// = B[G kk + t, n], zeros past N and past K. Emitted at `b`'s insertion
/// point; with `parallel`, the whole groups of rows are the tasks of an
/// scf.forall. With `into` (a buffer of that shape), it packs there instead
/// of into a new buffer. With `g.bTransposed` (B stored [N, K]) a group of
/// a column is one 32-bit word of B's row: per 16 columns and 16 groups,
/// 16 row loads and a 16 x 16 transpose of words (vector.transpose, for
/// the caller to lower) give 16 panels.
Value packDotB(OpBuilder &b, Location loc, const DotGemm &g, int64_t nr,
               int64_t groupMultiple = 1, bool parallel = false,
               Value into = {});

} // namespace mlir::accel

#endif // ACCEL_LIB_TRANSFORMS_DOTGEMM_H
