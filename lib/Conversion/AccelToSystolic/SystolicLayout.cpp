//===- SystolicLayout.cpp - where a systolic program's tensors live -------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "SystolicLayout.h"
#include "SystolicElementwise.h"
#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"

using namespace mlir;
using namespace mlir::accel;
using systolic_emit::View;

namespace {

SmallVector<int64_t> rowMajor(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

bool isStaticTensor(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.hasStaticShape();
}

/// Splits each dimension of `l` (of `shape`) into its group of `groups`
/// (`to` the expanded shape): always a view.
DramLayout expand(const DramLayout &l, ArrayRef<ReassociationIndices> groups,
                  ArrayRef<int64_t> to) {
  DramLayout r{l.root, l.offset, SmallVector<int64_t>(to.size(), 1)};
  for (auto [d, group] : llvm::enumerate(groups)) {
    int64_t stride = l.strides[d];
    for (int64_t i = int64_t(group.size()) - 1; i >= 0; --i) {
      r.strides[group[i]] = stride;
      stride *= to[group[i]];
    }
  }
  return r;
}

/// Merges each group of dimensions of `l` (of `shape`) into one; only
/// where the group's dimensions are contiguous in `l` (unit dimensions
/// aside).
std::optional<DramLayout> collapse(const DramLayout &l,
                                   ArrayRef<ReassociationIndices> groups,
                                   ArrayRef<int64_t> shape) {
  DramLayout r{l.root, l.offset, SmallVector<int64_t>(groups.size(), 1)};
  const bool empty = computeProduct(shape) == 0;
  for (auto [d, group] : llvm::enumerate(groups)) {
    // The innermost non-unit dimension's stride; each outer one must be
    // the next one's span.
    int64_t stride = 1, span = -1;
    for (int64_t i = int64_t(group.size()) - 1; i >= 0; --i) {
      int64_t dim = group[i];
      if (shape[dim] == 1)
        continue;
      if (span < 0)
        stride = l.strides[dim];
      else if (!empty && l.strides[dim] != span)
        return std::nullopt;
      span = l.strides[dim] * shape[dim];
    }
    r.strides[d] = stride;
  }
  return r;
}

/// Result dimension i of a transpose is dimension perm[i] of its input.
DramLayout permute(const DramLayout &l, ArrayRef<int64_t> perm) {
  DramLayout r{l.root, l.offset, {}};
  for (int64_t p : perm)
    r.strides.push_back(l.strides[p]);
  return r;
}

DramLayout unpermute(const DramLayout &l, ArrayRef<int64_t> perm) {
  DramLayout r{l.root, l.offset, SmallVector<int64_t>(perm.size(), 1)};
  for (auto [i, p] : llvm::enumerate(perm))
    r.strides[p] = l.strides[i];
  return r;
}

/// The source of a view op.
Value sourceOf(Operation *view) {
  if (auto t = dyn_cast<linalg::TransposeOp>(view))
    return t.getInput();
  return view->getOperand(0);
}

/// The layout of a view's source that gives its result `result`: always
/// for a collapse and a transpose, for an expand where each group is
/// contiguous in `result`, never for a slice (it is only part of its
/// source).
std::optional<DramLayout> sourceLayout(Operation *view,
                                       const DramLayout &result) {
  if (auto e = dyn_cast<tensor::ExpandShapeOp>(view))
    return collapse(result, e.getReassociationIndices(),
                    e.getResultType().getShape());
  if (auto c = dyn_cast<tensor::CollapseShapeOp>(view))
    return expand(result, c.getReassociationIndices(),
                  c.getSrcType().getShape());
  if (auto t = dyn_cast<linalg::TransposeOp>(view))
    return unpermute(result, t.getPermutation());
  return std::nullopt;
}

/// Whether `op`'s kernel writes its result through a layout at all (can
/// be placed): a matmul, an attention, an elementwise generic or a fill;
/// not a row reduction, not a softmax.
bool isPlaceable(Operation *op) {
  if (llvm::isa<MatmulOp, AttentionOp, PagedAttentionOp, linalg::FillOp>(op))
    return true;
  auto g = dyn_cast<linalg::GenericOp>(op);
  return g && !isSystolicRowReduction(g);
}

} // namespace

int64_t DramLayout::offsetOf(ArrayRef<int64_t> shape, int64_t outer,
                             int64_t inner) const {
  int64_t base = offset;
  for (int64_t d = int64_t(shape.size()) - inner - 1; d >= 0; --d) {
    base += (outer % shape[d]) * strides[d];
    outer /= shape[d];
  }
  return base;
}

std::optional<View> DramLayout::matrix(uint32_t buffer,
                                       ArrayRef<int64_t> shape,
                                       int64_t base) const {
  const int64_t rank = shape.size();
  const int64_t rows = rank >= 2 ? shape[rank - 2] : 1,
                cols = rank >= 1 ? shape[rank - 1] : 1;
  const int64_t rowStride = rank >= 2 ? strides[rank - 2] : cols,
                colStride = rank >= 1 ? strides[rank - 1] : 1;
  // A unit dimension's stride is never used.
  if (colStride == 1 || cols <= 1)
    return View{buffer, base, rows <= 1 ? std::max<int64_t>(cols, 1)
                                        : rowStride,
                false};
  if (rowStride == 1 || rows <= 1)
    return View{buffer, base, colStride, true};
  return std::nullopt;
}

std::optional<std::pair<int64_t, int64_t>>
DramLayout::rows(ArrayRef<int64_t> shape) const {
  const int64_t rank = shape.size();
  if (rank == 0)
    return std::make_pair(offset, int64_t(1));
  if (shape.back() > 1 && strides.back() != 1)
    return std::nullopt;
  if (rank == 1)
    return std::make_pair(offset, shape.back());
  SmallVector<ReassociationIndices> groups(1);
  for (int64_t d = 0; d < rank - 1; ++d)
    groups[0].push_back(d);
  groups.push_back({rank - 1});
  std::optional<DramLayout> flat = collapse(*this, groups, shape);
  if (!flat)
    return std::nullopt;
  // Rows of one element apart from the first are never reached.
  int64_t stride = computeProduct(shape.drop_back()) <= 1
                       ? std::max<int64_t>(shape.back(), 1)
                       : flat->strides[0];
  return std::make_pair(offset, stride);
}

/// The ops whose kernels write `v`'s elements (through views,
/// concatenations and insertions).
void mlir::accel::getSystolicWriters(Value v,
                                     SmallVectorImpl<Operation *> &out) {
  Operation *def = v.getDefiningOp();
  if (!def || llvm::isa<tensor::EmptyOp>(def))
    return;
  if (isSystolicView(def))
    return getSystolicWriters(sourceOf(def), out);
  if (auto cat = dyn_cast<tensor::ConcatOp>(def)) {
    for (Value in : cat.getInputs())
      getSystolicWriters(in, out);
    return;
  }
  if (auto ins = dyn_cast<tensor::InsertSliceOp>(def)) {
    getSystolicWriters(ins.getDest(), out);
    getSystolicWriters(ins.getSource(), out);
    return;
  }
  out.push_back(def);
}

bool mlir::accel::isSystolicInsertion(tensor::InsertSliceOp op) {
  return op.getSourceType().getRank() == op.getType().getRank() &&
         op.getType().hasStaticShape() &&
         !ShapedType::isDynamicShape(op.getStaticOffsets()) &&
         !ShapedType::isDynamicShape(op.getStaticSizes()) &&
         !ShapedType::isDynamicShape(op.getStaticStrides());
}

bool mlir::accel::isSystolicView(Operation *op) {
  if (auto t = dyn_cast<linalg::TransposeOp>(op))
    return t.hasPureTensorSemantics();
  if (auto s = dyn_cast<tensor::ExtractSliceOp>(op))
    return !ShapedType::isDynamicShape(s.getStaticOffsets()) &&
           !ShapedType::isDynamicShape(s.getStaticSizes()) &&
           !ShapedType::isDynamicShape(s.getStaticStrides());
  return llvm::isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op);
}

bool mlir::accel::writesSystolicLayout(Value v, const DramLayout &layout) {
  Operation *op = v.getDefiningOp();
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!op || !type || op->getNumResults() != 1)
    return false;
  // The DMA stores rows of contiguous elements, or (mvout's transpose)
  // columns; the vector unit's kernels store rows, or a row at a time
  // through the transpose where the columns are strided.
  if (!isPlaceable(op))
    return false;
  if (llvm::isa<MatmulOp, AttentionOp, PagedAttentionOp>(op))
    return layout.matrix(0, type.getShape(), 0).has_value();
  return true;
}

FailureOr<SystolicLayouts> SystolicLayouts::build(func::FuncOp func) {
  SystolicLayouts l;
  for (BlockArgument a : func.getArguments())
    if (isStaticTensor(a))
      l.layouts[a] = {a, 0, rowMajor(shapeOf(a))};
  // Views the function returns own their result buffer.
  llvm::SmallPtrSet<Operation *, 4> returned;
  for (Value v : func.getBody().front().getTerminator()->getOperands())
    if (Operation *def = v.getDefiningOp(); def && isSystolicView(def))
      returned.insert(def);
  for (Operation &op : func.getBody().front()) {
    if (isSystolicView(&op)) {
      if (!l.lookup(sourceOf(&op)) || !isStaticTensor(op.getResult(0)))
        continue; // not in DRAM: whoever reads it says so
      if (returned.contains(&op))
        if (failed(l.makeRoot(op.getResult(0), &op,
                              "the function returns it")))
          return failure();
      if (!returned.contains(&op) && failed(l.viewForward(&op)))
        if (failed(l.makeRoot(op.getResult(0), &op,
                              "it merges dimensions that are not contiguous "
                              "in its source's layout")))
          return failure();
      continue;
    }
    if (llvm::isa<tensor::EmptyOp, arith::ConstantOp>(op))
      continue;
    for (Value r : op.getResults())
      if (isStaticTensor(r))
        l.layouts[r] = {r, 0, rowMajor(shapeOf(r))};
    // A concatenation along the last dimension places its inputs, an
    // insertion its source (and its destination).
    if (auto cat = dyn_cast<tensor::ConcatOp>(op);
        cat && isStaticTensor(cat.getResult()) &&
        int64_t(cat.getDim()) == cat.getResultType().getRank() - 1)
      if (failed(l.placeParts(cat)))
        return failure();
    if (auto ins = dyn_cast<tensor::InsertSliceOp>(op);
        ins && isSystolicInsertion(ins))
      if (failed(l.placeParts(ins)))
        return failure();
  }
  return l;
}

LogicalResult SystolicLayouts::viewForward(Operation *op) {
  // (A copy: the map may grow below.)
  const DramLayout src = layouts.find(sourceOf(op))->second;
  Value result = op->getResult(0);
  if (auto e = dyn_cast<tensor::ExpandShapeOp>(op)) {
    layouts[result] = expand(src, e.getReassociationIndices(),
                             e.getResultType().getShape());
    return success();
  }
  if (auto c = dyn_cast<tensor::CollapseShapeOp>(op)) {
    std::optional<DramLayout> r = collapse(src, c.getReassociationIndices(),
                                           c.getSrcType().getShape());
    if (!r)
      return failure();
    layouts[result] = *r;
    return success();
  }
  if (auto t = dyn_cast<linalg::TransposeOp>(op)) {
    layouts[result] = permute(src, t.getPermutation());
    return success();
  }
  auto s = cast<tensor::ExtractSliceOp>(op);
  DramLayout r{src.root, src.offset, {}};
  llvm::SmallBitVector dropped = s.getDroppedDims();
  for (int64_t d = 0; d < s.getSourceType().getRank(); ++d) {
    r.offset += s.getStaticOffsets()[d] * src.strides[d];
    if (!dropped.test(d))
      r.strides.push_back(src.strides[d] * s.getStaticStrides()[d]);
  }
  layouts[result] = r;
  return success();
}

LogicalResult SystolicLayouts::makeRoot(Value v, Operation *view,
                                        StringRef because) {
  DramLayout own{v, 0, rowMajor(shapeOf(v))};
  layouts[v] = own;
  // The source's layout inside the new root.
  std::optional<DramLayout> src = sourceLayout(view, own);
  if (!src)
    return view->emitOpError("has no systolic lowering: ")
           << because
           << ", and a slice's source cannot be written into a buffer of "
              "the slice's own (a systolic program does not copy tensors)";
  return place(sourceOf(view), *src, view,
               ("has no systolic lowering: " + because +
                ", so the op that makes its source must write it into a "
                "buffer of its own, but ")
                   .str());
}

LogicalResult SystolicLayouts::placeParts(tensor::ConcatOp cat) {
  const std::string because =
      "has no systolic lowering: the op that makes each input writes its "
      "part of the concatenation's buffer, but ";
  const DramLayout layout = layouts.find(cat.getResult())->second;
  const int64_t last = layout.strides.size() - 1;
  int64_t column = 0;
  for (Value in : cat.getInputs()) {
    DramLayout part = layout;
    part.offset += column * layout.strides[last];
    column += shapeOf(in).back();
    if (failed(place(in, part, cat, because)))
      return failure();
  }
  return success();
}

LogicalResult SystolicLayouts::placeParts(tensor::InsertSliceOp ins) {
  const DramLayout layout = layouts.find(ins.getResult())->second;
  const std::string because =
      "has no systolic lowering: the op that makes the inserted slice "
      "writes it into the destination's buffer, and the destination is "
      "updated in place, but ";
  DramLayout part{layout.root, layout.offset, {}};
  for (int64_t d = 0; d < ins.getType().getRank(); ++d) {
    part.offset += ins.getStaticOffsets()[d] * layout.strides[d];
    part.strides.push_back(layout.strides[d] * ins.getStaticStrides()[d]);
  }
  // The destination is updated in place: every op that writes it must
  // run before every op that writes the slice, which overwrites it.
  Value dest = ins.getDest();
  if (!dest.getDefiningOp<tensor::EmptyOp>()) {
    SmallVector<Operation *> before, after;
    getSystolicWriters(dest, before);
    getSystolicWriters(ins.getSource(), after);
    for (Operation *a : before)
      for (Operation *b : after)
        if (a->getBlock() != b->getBlock() || !a->isBeforeInBlock(b))
          return ins.emitOpError(because)
                 << "'" << b->getName()
                 << "', which writes the slice, runs before '" << a->getName()
                 << "', which writes the destination";
    if (failed(place(dest, layout, ins, because)))
      return failure();
  }
  return place(ins.getSource(), part, ins, because);
}

LogicalResult SystolicLayouts::place(Value v, DramLayout layout,
                                     Operation *blame, StringRef because) {
  auto refuse = [&](StringRef why) {
    InFlightDiagnostic d = blame->emitOpError(because);
    d << why;
    return d;
  };
  Operation *def = v.getDefiningOp();
  if (!def)
    return refuse("it is a function argument (a systolic program does not "
                  "copy tensors)");
  if (!v.hasOneUse())
    return refuse("it (made by '")
           << def->getName()
           << "') is also read elsewhere (a systolic program does not copy "
              "tensors)";
  if (isSystolicView(def)) {
    std::optional<DramLayout> src = sourceLayout(def, layout);
    if (!src)
      return refuse("it is made by '")
             << def->getName()
             << "', whose source cannot be written through it (a systolic "
                "program does not copy tensors)";
    layouts[v] = layout;
    return place(sourceOf(def), *src, blame, because);
  }
  if (auto cat = dyn_cast<tensor::ConcatOp>(def)) {
    layouts[v] = layout;
    return placeParts(cat);
  }
  if (auto ins = dyn_cast<tensor::InsertSliceOp>(def);
      ins && isSystolicInsertion(ins)) {
    layouts[v] = layout;
    return placeParts(ins);
  }
  if (!isPlaceable(def))
    return refuse("it is made by '")
           << def->getName()
           << "', which writes only a buffer of its own (only matmuls, "
              "attentions and elementwise kernels write in place; a "
              "systolic program does not copy tensors)";
  if (!writesSystolicLayout(v, layout))
    return refuse("it is made by '")
           << def->getName()
           << "', which cannot write that layout (the DMA stores rows or, "
              "from a matmul or an attention, columns of contiguous "
              "elements; a systolic program does not copy tensors)";
  layouts[v] = layout;
  return success();
}
