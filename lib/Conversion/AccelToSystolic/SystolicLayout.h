//===- SystolicLayout.h - systolic tensors' DRAM layouts --------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The DRAM layout of every tensor of a function compiled for the systolic
// array. A tensor lives in the buffer of a *root* (a function argument, a
// result, or the result of an op of the program) at an element offset,
// with an element stride per dimension. The ops that only give bytes
// another shape are views and move no data:
//
//  - tensor.expand_shape, tensor.collapse_shape, linalg.transpose and a
//    static tensor.extract_slice (rank-reducing or not) take their
//    source's layout, reshaped, permuted or offset;
//  - where a view cannot be read that way (a collapse of dimensions that
//    are not contiguous in the source, e.g. attention's heads transposed
//    back next to each other before the output projection), the view's
//    result is a root of its own and the op that makes the source writes
//    its result there, through the inverse layout ("placement"); so does a
//    view the function returns;
//  - tensor.concat along the last dimension places its inputs side by
//    side in its own layout (RoPE's halves); tensor.insert_slice places
//    its source in its slice of the destination, and the destination
//    (unless a tensor.empty) in its own layout (interleaved RoPE's
//    stride-2 inserts).
//
// Placement walks back through views to the op that makes the value; each
// value on the way must have no other reader, and the op must be one that
// writes through a layout (a matmul, an attention, an elementwise kernel
// or a concatenation). Otherwise the view is a located error: a systolic
// program does not copy tensors.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_CONVERSION_ACCELTOSYSTOLIC_SYSTOLICLAYOUT_H
#define ACCEL_LIB_CONVERSION_ACCELTOSYSTOLIC_SYSTOLICLAYOUT_H

#include "SystolicEmitter.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::accel {

/// Where a tensor's elements are: element (i0, .., in) of the tensor is
/// element offset + Σ i_d · strides[d] of root's buffer.
struct DramLayout {
  Value root;
  int64_t offset = 0;
  SmallVector<int64_t> strides;

  /// The element offset of index `outer` of the dimensions before the
  /// last `inner` ones (flattened, row-major over `shape`).
  int64_t offsetOf(ArrayRef<int64_t> shape, int64_t outer,
                   int64_t inner = 2) const;
  /// The matrix of the last two dimensions (`rows` x `cols` of `shape`)
  /// at element `base` as a DMA view: rows at a stride and contiguous
  /// columns, or read transposed (contiguous rows, columns at a stride);
  /// std::nullopt when neither dimension is contiguous.
  std::optional<systolic_emit::View> matrix(uint32_t buffer,
                                            ArrayRef<int64_t> shape,
                                            int64_t base) const;
  /// The rows of the tensor (every dimension but the last flattened) at
  /// one stride, with contiguous columns: the offset of row 0 and the
  /// stride; std::nullopt when the dimensions do not flatten so.
  std::optional<std::pair<int64_t, int64_t>>
  rows(ArrayRef<int64_t> shape) const;
};

/// Whether `op` only gives its source's bytes another shape (a view of
/// the systolic target).
bool isSystolicView(Operation *op);

/// The ops whose kernels write `v`'s elements (through views,
/// concatenations and insertions).
void getSystolicWriters(Value v, SmallVectorImpl<Operation *> &out);

/// Whether `op` is an insertion the layouts place: static offsets, sizes
/// and strides, the source of the destination's rank (the source's op
/// writes its slice of the destination's buffer; the destination, unless
/// a tensor.empty, is updated in place).
bool isSystolicInsertion(tensor::InsertSliceOp op);

/// Whether the kernel of the op that makes `v` can write it through
/// `layout` (`v` be placed there): a matmul or an attention where one of the
/// last two dimensions is contiguous (the DMA stores rows, or columns
/// transposed), an elementwise generic or a fill (rows, or a row at a time
/// through the transpose where the columns are strided; not a row reduction,
/// not a softmax).
bool writesSystolicLayout(Value v, const DramLayout &layout);

/// The layouts of one function's tensors.
class SystolicLayouts {
public:
  /// Lays out `func`'s tensors; a located error names the view that
  /// needs a copy and why.
  static FailureOr<SystolicLayouts> build(func::FuncOp func);

  /// The layout of `v`; null for a value that is not in DRAM (a
  /// tensor.empty, a constant).
  const DramLayout *lookup(Value v) const {
    auto it = layouts.find(v);
    return it == layouts.end() ? nullptr : &it->second;
  }
  /// Whether `v` owns a buffer (it is its own layout's root).
  bool isRoot(Value v) const {
    const DramLayout *l = lookup(v);
    return l && l->root == v;
  }

private:
  LogicalResult viewForward(Operation *view);
  /// `v` (made by a view) owns a buffer `because`; the op that makes the
  /// view's source writes it there.
  LogicalResult makeRoot(Value v, Operation *view, StringRef because);
  /// `v` is written through `layout`; the error is located at `blame`,
  /// its message starts with `because` and says why not.
  LogicalResult place(Value v, DramLayout layout, Operation *blame,
                      StringRef because);
  /// A last-dimension concatenation's inputs, side by side in its layout.
  LogicalResult placeParts(tensor::ConcatOp cat);
  /// An insertion's source, at its slice of the insertion's layout, and
  /// its destination (unless a tensor.empty), in the layout itself.
  LogicalResult placeParts(tensor::InsertSliceOp ins);

  llvm::DenseMap<Value, DramLayout> layouts;
};

} // namespace mlir::accel

#endif // ACCEL_LIB_CONVERSION_ACCELTOSYSTOLIC_SYSTOLICLAYOUT_H
