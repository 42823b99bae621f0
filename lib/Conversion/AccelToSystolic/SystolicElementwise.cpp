//===- SystolicElementwise.cpp - elementwise kernels on the vector unit ---===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The elementwise kernels of convert-accel-to-systolic
// (SystolicElementwise.h): the analysis of a linalg.generic's body into a
// vector program over accumulator rows, the rows' allocation, and the
// emission block by block.
//
//===----------------------------------------------------------------------===//

#include "SystolicElementwise.h"
#include "accel/Systolic/Simulator.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/STLExtras.h"
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

using namespace mlir;
using namespace mlir::accel;
using namespace mlir::accel::systolic_emit;

namespace {

using Kind = SystolicElementwise::Kind;
using Operand = SystolicElementwise::Operand;
using Instr = SystolicElementwise::Instr;

bool isFloatElement(Type t) { return t.isF32() || t.isBF16(); }

/// The unit's one-operand ops of a body (exp, rsqrt), issued at a quarter
/// rate.
bool isTranscendental(systolic::VecOp op) {
  return op == systolic::VecOp::Exp || op == systolic::VecOp::Rsqrt;
}

/// The unit's one-operand ops of a body: the transcendental ones and
/// round_bf16 (a truncf inside the body).
bool isUnary(systolic::VecOp op) {
  return isTranscendental(op) || op == systolic::VecOp::RoundBf16;
}

/// Builds the vector program of a generic's body.
class ProgramBuilder {
public:
  explicit ProgramBuilder(SystolicElementwise &k) : k(k) {}

  Operand input(int index) {
    return {k.inputs[index].column ? Kind::Column : Kind::Full, index, 0};
  }
  static Operand scalar(float v) { return {Kind::Scalar, -1, v}; }

  /// `a` rounded to bf16: a constant folded, else the unit's round_bf16.
  Operand roundBf16(Operand a) {
    if (a.kind == Kind::Scalar)
      return scalar(sysarray::roundToBF16(a.imm));
    return emit(systolic::VecOp::RoundBf16, a.kind, a);
  }

  /// A new register of `kind` defined by `op` on `a` (and `b`).
  Operand emit(systolic::VecOp op, Kind kind, Operand a, Operand b = {}) {
    int reg = k.numRegs++;
    k.program.push_back({op, reg, a, b, kind});
    return {kind, reg, 0};
  }
  /// `x` as a full block: a column added to zeros (broadcast along the
  /// row), an immediate filled in.
  Operand full(Operand x) {
    if (x.kind == Kind::Full)
      return x;
    if (x.kind == Kind::Scalar)
      return emit(systolic::VecOp::Fill, Kind::Full, x);
    Operand zeros = emit(systolic::VecOp::Fill, Kind::Full, scalar(0));
    return emit(systolic::VecOp::Add, Kind::Full, zeros, x);
  }
  /// `x` as a column (an immediate filled in).
  Operand column(Operand x) {
    if (x.kind != Kind::Scalar)
      return x;
    return emit(systolic::VecOp::Fill, Kind::Column, x);
  }

  /// a op b for a binary op of the unit. The unit's second operand may be
  /// a block, a column (per row) or an immediate; its first is a block or
  /// a column.
  Operand binary(systolic::VecOp op, Operand a, Operand b) {
    if (a.kind == Kind::Scalar && b.kind == Kind::Scalar) {
      float x = a.imm, y = b.imm;
      switch (op) {
      case systolic::VecOp::Add:
        return scalar(x + y);
      case systolic::VecOp::Sub:
        return scalar(x - y);
      case systolic::VecOp::Mul:
        return scalar(x * y);
      case systolic::VecOp::Div:
        return scalar(x / y);
      default:
        return scalar(std::isnan(x) || std::isnan(y) ? NAN : std::max(x, y));
      }
    }
    const bool commutative = op == systolic::VecOp::Add ||
                             op == systolic::VecOp::Mul ||
                             op == systolic::VecOp::Max;
    auto rank = [](Kind kd) {
      return kd == Kind::Full ? 2 : kd == Kind::Column ? 1 : 0;
    };
    // The wider operand first where the order does not matter.
    if (commutative && rank(b.kind) > rank(a.kind))
      std::swap(a, b);
    if (rank(b.kind) > rank(a.kind))
      a = b.kind == Kind::Full ? full(a) : column(a);
    if (a.kind == Kind::Scalar)
      a = column(a);
    return emit(op, a.kind, a, b);
  }

  SystolicElementwise &k;
};

/// The row-major strides of a static shape.
SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

LogicalResult analyzeBody(linalg::GenericOp g, SystolicElementwise &k) {
  ProgramBuilder pb(k);
  Block &body = g.getRegion().front();
  DenseMap<Value, Operand> valueOf;
  // A reduction's combiner (what the body yields: the output's value
  // combined with a term) is the unit's rowsum or rowmax: the program
  // computes the term.
  Operation *combiner = nullptr;
  Value term = body.getTerminator()->getOperand(0);
  if (k.reduce) {
    BlockArgument acc = body.getArguments().back();
    combiner = term.getDefiningOp();
    if (!combiner || !acc.hasOneUse() || combiner->getNumOperands() != 2 ||
        !llvm::is_contained(combiner->getOperands(), Value(acc)) ||
        !(k.reduce == systolic::VecOp::RowSum
              ? isa<arith::AddFOp>(combiner)
              : isa<arith::MaximumFOp>(combiner)))
      return g.emitOpError("has no systolic lowering: the vector unit "
                           "reduces by an addf or maximumf of the output's "
                           "value and a term (rowsum, rowmax)");
    term = combiner->getOperand(0) == acc ? combiner->getOperand(1)
                                          : combiner->getOperand(0);
  }
  // The inputs, then the output's initial value when the body reads it
  // (analyzeSystolicElementwise made it the last input).
  for (auto [i, arg] :
       llvm::enumerate(body.getArguments().take_front(k.inputs.size())))
    valueOf[arg] = pb.input(int(i));
  auto notModelled = [&](Operation &op, StringRef why) {
    return g.emitOpError("has no systolic lowering: the vector unit ")
           << why << " ('" << op.getName() << "' in its body)";
  };
  constexpr StringLiteral kOps = "has add, sub, mul, div, max (maximumf, a "
                                 "ReLU's select), exp, rsqrt and negation";
  // A value of the program, or a float constant defined outside the body.
  auto get = [&](Value v) -> std::optional<Operand> {
    auto it = valueOf.find(v);
    if (it != valueOf.end())
      return it->second;
    FloatAttr attr;
    if (matchPattern(v, m_Constant(&attr)))
      return ProgramBuilder::scalar(float(attr.getValueAsDouble()));
    return std::nullopt;
  };
  for (Operation &op : body.without_terminator()) {
    if (&op == combiner)
      continue;
    SmallVector<Operand> ins;
    for (Value v : op.getOperands()) {
      if (isa<arith::SelectOp>(op) && v == op.getOperand(0))
        continue; // the condition, matched below
      std::optional<Operand> o = get(v);
      // Only a comparison (read by a select) defines no register.
      if (!o)
        return notModelled(op, kOps);
      ins.push_back(*o);
    }
    Operand out;
    if (auto c = dyn_cast<arith::ConstantOp>(op)) {
      auto attr = dyn_cast<FloatAttr>(c.getValue());
      if (!attr)
        return notModelled(op, "takes float constants only");
      out = ProgramBuilder::scalar(float(attr.getValueAsDouble()));
    } else if (isa<arith::AddFOp>(op)) {
      out = pb.binary(systolic::VecOp::Add, ins[0], ins[1]);
    } else if (isa<arith::SubFOp>(op)) {
      out = pb.binary(systolic::VecOp::Sub, ins[0], ins[1]);
    } else if (isa<arith::MulFOp>(op)) {
      out = pb.binary(systolic::VecOp::Mul, ins[0], ins[1]);
    } else if (isa<arith::DivFOp>(op)) {
      out = pb.binary(systolic::VecOp::Div, ins[0], ins[1]);
    } else if (isa<arith::MaximumFOp>(op)) {
      // maximumf propagates NaN, as the unit's max does.
      out = pb.binary(systolic::VecOp::Max, ins[0], ins[1]);
    } else if (isa<arith::NegFOp>(op)) {
      out = pb.binary(systolic::VecOp::Mul, ins[0], ProgramBuilder::scalar(-1));
    } else if (isa<math::ExpOp>(op)) {
      if (ins[0].kind == Kind::Scalar)
        out = ProgramBuilder::scalar(std::exp(ins[0].imm));
      else
        out = pb.emit(systolic::VecOp::Exp, ins[0].kind, ins[0]);
    } else if (isa<math::RsqrtOp>(op)) {
      // 1 / sqrt in f32 (two roundings; the oracle allows 2 units).
      if (ins[0].kind == Kind::Scalar)
        out = ProgramBuilder::scalar(1.0f / std::sqrt(ins[0].imm));
      else
        out = pb.emit(systolic::VecOp::Rsqrt, ins[0].kind, ins[0]);
    } else if (auto sel = dyn_cast<arith::SelectOp>(op)) {
      // ReLU as frontends write it: select(x > c or NaN, x, c) is max(x, c)
      // (NaN propagates in both).
      auto cmp = sel.getCondition().getDefiningOp<arith::CmpFOp>();
      FloatAttr c;
      if (!cmp ||
          (cmp.getPredicate() != arith::CmpFPredicate::UGT &&
           cmp.getPredicate() != arith::CmpFPredicate::UGE) ||
          cmp.getLhs() != sel.getTrueValue() ||
          cmp.getRhs() != sel.getFalseValue() ||
          !matchPattern(sel.getFalseValue(), m_Constant(&c)))
        return notModelled(op, "selects only as a ReLU does: select(cmpf "
                               "ugt/uge x, c), x, c) with a constant c");
      out = pb.binary(systolic::VecOp::Max, ins[0], ins[1]);
    } else if (isa<arith::CmpFOp>(op)) {
      // Read by a select (checked there); no register of its own.
      if (!llvm::all_of(op.getUsers(),
                        [](Operation *u) { return isa<arith::SelectOp>(u); }))
        return notModelled(op, "has no comparisons (only a ReLU's select "
                               "reads one)");
      continue;
    } else if (auto ext = dyn_cast<arith::ExtFOp>(op)) {
      // bf16 to f32 is exact; the accumulator holds f32.
      out = ins[0];
    } else if (auto trunc = dyn_cast<arith::TruncFOp>(op)) {
      // f32 to bf16, round to nearest even. What the body yields the store
      // rounds (mvout); a rounding in the middle of the body (PyTorch's
      // RMSNorm casts x * rsqrt(...) to bf16 before the weight's product)
      // is the unit's round_bf16.
      if (!trunc.getType().isBF16())
        return notModelled(op, "rounds to bf16 only");
      out =
          trunc->hasOneUse() && isa<linalg::YieldOp>(*trunc->getUsers().begin())
              ? ins[0]
              : pb.roundBf16(ins[0]);
    } else {
      return notModelled(op, kOps);
    }
    // bf16 arithmetic rounds each result (the unit computes in f32): a
    // value read further in the body is rounded there, one only yielded by
    // the store. max, negation and selects of bf16 values are exact.
    Value result = op.getResult(0);
    bool onlyYielded =
        result.hasOneUse() && isa<linalg::YieldOp>(*result.getUsers().begin());
    if (result.getType().isBF16() && !onlyYielded &&
        isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp,
            math::ExpOp, math::RsqrtOp>(op))
      out = pb.roundBf16(out);
    valueOf[result] = out;
  }
  // The yielded value is an input, a computed value or a constant (the
  // output's initial value was refused before).
  std::optional<Operand> yielded = get(term);
  if (!yielded)
    return notModelled(*body.getTerminator(), kOps);
  k.result = pb.full(*yielded);
  return success();
}

/// Sets k.slotOf and k.slots: an input's slot from the start, an
/// instruction's from its definition, each freed after its last use (a
/// vector op reads its sources before it writes, so its result may take a
/// dying source's slot).
void planSlots(SystolicElementwise &k) {
  const int n = k.numRegs;
  SmallVector<int> lastUse(n, -1);
  const int end = int(k.program.size());
  for (auto [i, in] : llvm::enumerate(k.program))
    for (const Operand *o : {&in.a, &in.b})
      if (o->reg >= 0)
        lastUse[o->reg] = int(i);
  if (k.result.reg >= 0)
    lastUse[k.result.reg] = end;
  k.slotOf.assign(n, -1);
  k.slots = 0;
  SmallVector<int> freeSlots;
  auto take = [&] {
    if (!freeSlots.empty())
      return freeSlots.pop_back_val();
    return k.slots++;
  };
  for (int r = 0; r < int(k.inputs.size()); ++r)
    if (lastUse[r] >= 0)
      k.slotOf[r] = take();
  for (auto [i, in] : llvm::enumerate(k.program)) {
    // Sources dying here free their slots first.
    for (const Operand *o : {&in.a, &in.b})
      if (o->reg >= 0 && lastUse[o->reg] == int(i) &&
          !llvm::is_contained(freeSlots, k.slotOf[o->reg]))
        freeSlots.push_back(k.slotOf[o->reg]);
    k.slotOf[in.dst] = take();
    if (lastUse[in.dst] < 0)
      freeSlots.push_back(k.slotOf[in.dst]);
  }
}

} // namespace

bool mlir::accel::isSystolicRowReduction(linalg::GenericOp g) {
  const unsigned n = g.getNumLoops();
  if (n < 1 || g.getNumDpsInits() != 1 || g.getNumResults() != 1 ||
      g.getNumReductionLoops() != 1 ||
      g.getIteratorTypesArray().back() != utils::IteratorType::reduction)
    return false;
  AffineMap out = g.getMatchingIndexingMap(g.getDpsInitOperand(0));
  return out == AffineMap::getMultiDimIdentityMap(n, g.getContext())
                    .getMajorSubMap(n - 1);
}

/// The loops an elementwise kernel over `shape` keeps: the unit ones index
/// nothing and are dropped, but at least two (or all) are kept, the last
/// ones first.
static SmallVector<int64_t> keptLoops(ArrayRef<int64_t> shape) {
  const int64_t rank = shape.size();
  SmallVector<bool> keep(rank, false);
  int64_t n = 0;
  for (int64_t d = 0; d < rank; ++d)
    if (shape[d] != 1) {
      keep[d] = true;
      ++n;
    }
  for (int64_t d = rank - 1; d >= 0 && n < std::min<int64_t>(2, rank); --d)
    if (!keep[d]) {
      keep[d] = true;
      ++n;
    }
  SmallVector<int64_t> kept;
  for (int64_t d = 0; d < rank; ++d)
    if (keep[d])
      kept.push_back(d);
  return kept;
}

/// Where a kernel's result goes: its own buffer, or where it is placed
/// (part of a concatenation, laid out as a view of it is read).
static SystolicElementwise::Output outputOf(Operation *op,
                                           const SystolicLayouts &layouts) {
  Value r = op->getResult(0);
  if (const DramLayout *l = layouts.lookup(r))
    return {l->root, l->offset, l->strides};
  return {r, 0,
          rowMajorStrides(cast<RankedTensorType>(r.getType()).getShape())};
}

FailureOr<SystolicElementwise>
mlir::accel::analyzeSystolicElementwise(Operation *op,
                                        const SystolicLayouts &layouts) {
  SystolicElementwise k;
  k.op = op;
  auto outType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!outType || !outType.hasStaticShape() ||
      !isFloatElement(outType.getElementType()))
    return op->emitOpError("has no systolic lowering: the vector unit "
                           "writes static f32 or bf16 tensors");
  k.shape.assign(outType.getShape().begin(), outType.getShape().end());
  if (auto fill = dyn_cast<linalg::FillOp>(op)) {
    FloatAttr value;
    if (!matchPattern(fill.getInputs()[0], m_Constant(&value)))
      return op->emitOpError("has no systolic lowering: the vector unit "
                             "fills with constants only");
    ProgramBuilder pb(k);
    k.result = pb.full(ProgramBuilder::scalar(float(value.getValueAsDouble())));
    planSlots(k);
    k.out = outputOf(op, layouts);
    return k;
  }
  auto g = cast<linalg::GenericOp>(op);
  int64_t rank = outType.getRank();
  if (isSystolicRowReduction(g)) {
    // The loop space; the initial value, a constant fill.
    rank += 1;
    k.shape = g.getStaticLoopRanges();
    auto *combiner =
        g.getRegion().front().getTerminator()->getOperand(0).getDefiningOp();
    const bool isMax = combiner && isa<arith::MaximumFOp>(combiner);
    k.reduce = isMax ? systolic::VecOp::RowMax : systolic::VecOp::RowSum;
    auto fill = g.getDpsInitOperand(0)->get().getDefiningOp<linalg::FillOp>();
    FloatAttr init;
    if (!fill || !matchPattern(fill.getInputs()[0], m_Constant(&init)))
      return g.emitOpError("has no systolic lowering: its reduction starts "
                           "from a value that is not a constant fill");
    const double c = init.getValueAsDouble();
    if (isMax ? !(std::isinf(c) && c < 0) : c != 0.0)
      k.reduceInit = float(c);
  } else if (g.getNumDpsInits() != 1 || g.getNumResults() != 1 ||
             g.getNumParallelLoops() != g.getNumLoops() ||
             !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity() ||
             g.getNumLoops() != rank) {
    return g.emitOpError("has no systolic lowering: the vector unit runs "
                         "elementwise generics (parallel loops, one result "
                         "in the loops' order) and reductions over the last "
                         "loop");
  }
  // A body that reads the output's initial value (accel-fuse-epilogues's
  // in-place form, outs(%matmul)) reads it as one more input; a
  // tensor.empty holds nothing to read.
  SmallVector<OpOperand *> read(g.getDpsInputOperands());
  if (!k.reduce && !g.getRegion().front().getArguments().back().use_empty()) {
    OpOperand *init = g.getDpsInitOperand(0);
    if (init->get().getDefiningOp<tensor::EmptyOp>())
      return g.emitOpError("has no systolic lowering: its body reads its "
                           "output's initial value, a tensor.empty");
    read.push_back(init);
  }
  for (OpOperand *in : read) {
    auto t = dyn_cast<RankedTensorType>(in->get().getType());
    if (!t || !t.hasStaticShape() || !isFloatElement(t.getElementType()))
      return g.emitOpError("has no systolic lowering: operand #")
             << in->getOperandNumber()
             << " is not a static f32 or bf16 tensor (the DMA moves those "
                "into the accumulator)";
    AffineMap map = g.getMatchingIndexingMap(in);
    SmallVector<int64_t> own = rowMajorStrides(t.getShape());
    SystolicElementwise::Input input{in->get(), SmallVector<int64_t>(rank, 0),
                                     false, 0};
    // Read where it lives: a view (a slice, a reshape, a transpose) reads
    // its root's buffer through its layout (SystolicLayout.h).
    if (const DramLayout *l = layouts.lookup(in->get())) {
      own = l->strides;
      input.offset = l->offset;
      input.value = l->root;
    }
    int64_t lastDim = -1;
    for (auto [p, expr] : llvm::enumerate(map.getResults())) {
      if (auto d = dyn_cast<AffineDimExpr>(expr)) {
        unsigned pos = d.getPosition();
        if (int64_t(pos) <= lastDim)
          return g.emitOpError("has no systolic lowering: operand #")
                 << in->getOperandNumber()
                 << " is read transposed (the dimensions of an elementwise "
                    "kernel's inputs keep the output's order)";
        lastDim = pos;
        if (t.getDimSize(p) == k.shape[pos])
          input.strides[pos] = own[p];
        else if (t.getDimSize(p) != 1)
          return g.emitOpError("has no systolic lowering: operand #")
                 << in->getOperandNumber() << " has " << t.getDimSize(p)
                 << " elements along loop " << pos << " of " << k.shape[pos];
        continue;
      }
      auto c = dyn_cast<AffineConstantExpr>(expr);
      if (!c || c.getValue() != 0 || t.getDimSize(p) != 1)
        return g.emitOpError("has no systolic lowering: operand #")
               << in->getOperandNumber()
               << " is read through a map other than a broadcast";
    }
    // (Columns at a stride, interleaved RoPE's x[2i] and x[2i+1], are
    // moved in a row at a time through the DMA's transpose: loadInput.)
    k.inputs.push_back(std::move(input));
  }
  // Unit loops index nothing: dropped, so that a loop space of [S, N, 1]
  // (a reshape folded into the generic) runs as rows of N, not of 1.
  SmallVector<int64_t> kept;
  if (k.reduce)
    for (int64_t d = 0; d < rank; ++d)
      kept.push_back(d);
  else
    kept = keptLoops(k.shape);
  auto keep = [&](SmallVector<int64_t> &v) {
    SmallVector<int64_t> r;
    for (int64_t d : kept)
      r.push_back(v[d]);
    v = std::move(r);
  };
  keep(k.shape);
  for (SystolicElementwise::Input &input : k.inputs) {
    keep(input.strides);
    input.column = input.strides.empty() || input.strides.back() == 0;
  }
  k.numRegs = int(k.inputs.size());
  if (failed(analyzeBody(g, k)))
    return failure();
  planSlots(k);
  if (k.reduce) {
    k.out = {op->getResult(0), 0, rowMajorStrides(outType.getShape())};
  } else {
    k.out = outputOf(op, layouts);
    keep(k.out.strides);
  }
  return k;
}

namespace {

/// Each input's element offset at index `o` of the output's outer
/// dimensions (all but the last two, flattened).
SmallVector<int64_t> inputBases(const SystolicElementwise &k, int64_t o) {
  const int64_t rank = k.shape.size();
  SmallVector<int64_t> base;
  for (const SystolicElementwise::Input &in : k.inputs)
    base.push_back(in.offset);
  for (int64_t d = rank - 3, rest = o; d >= 0; --d) {
    int64_t idx = rest % k.shape[d];
    rest /= k.shape[d];
    for (auto [i, in] : llvm::enumerate(k.inputs))
      base[i] += idx * in.strides[d];
  }
  return base;
}

/// The result's view for index `o` of the outer dimensions: its rows at
/// the output's row stride.
View outputView(const SystolicElementwise &k,
                const llvm::DenseMap<Value, uint32_t> &bufferOf, int64_t o) {
  const int64_t rank = k.shape.size();
  int64_t base = k.out.offset;
  for (int64_t d = rank - 3, rest = o; d >= 0; --d) {
    base += (rest % k.shape[d]) * k.out.strides[d];
    rest /= k.shape[d];
  }
  const int64_t rowStride =
      rank >= 2 ? k.out.strides[rank - 2] : (rank == 1 ? k.shape[0] : 1);
  return View{bufferOf.lookup(k.out.value), base, rowStride, false};
}

/// Moves input `i`'s block of rr x cc at (r0, c0) (`base`: its offset for
/// the block's outer index) into accumulator row `row` on.
void loadInput(Emitter &e, const SystolicElementwise &k, int i,
               const llvm::DenseMap<Value, uint32_t> &bufferOf, int64_t base,
               int64_t r0, int64_t c0, int64_t rr, int64_t cc, int64_t row) {
  const int64_t rank = k.shape.size();
  const SystolicElementwise::Input &in = k.inputs[i];
  auto strideAt = [&](int64_t d) {
    return d >= 0 && d < rank ? in.strides[d] : int64_t(0);
  };
  const int64_t rowStride = strideAt(rank - 2);
  const int64_t colStride = in.column ? 1 : strideAt(rank - 1);
  int64_t offset = base + r0 * rowStride;
  if (!in.column)
    offset += c0 * colStride;
  const uint32_t buffer = bufferOf.lookup(in.value);
  // The same row for every row of the block (a bias over the columns) is
  // moved in once, then doubled by vector copies, so the DMA reads it
  // once, not rr times.
  const bool once = !in.column && rowStride == 0 && rr > 1;
  const int64_t moved = once ? 1 : rr;
  if (!in.column && colStride != 1 && cc > 1) {
    // Columns at a stride: each row is a DRAM column block the DMA's
    // transpose turns into one accumulator row.
    for (int64_t r = 0; r < moved; ++r)
      e.mvin(View{buffer, offset + r * rowStride, colStride, true}, 0, 0, 1, cc,
             systolic::Space::Acc, row + r);
  } else {
    e.mvin(View{buffer, offset, rowStride, false}, 0, 0, moved,
           in.column ? 1 : cc, systolic::Space::Acc, row);
  }
  if (!once)
    return;
  for (int64_t have = 1; have < rr; have *= 2)
    e.vector(systolic::VecOp::Copy, row + have, row, std::nullopt,
             std::min(have, rr - have), cc);
}

/// One block of the kernel: rows r0 .. r0 + rr and columns c0 .. c0 + cc
/// of the output's 2-D slice `o`. `slotRow` gives a register's first
/// accumulator row; the input `preloaded` (-1: none) is there already.
void emitBlock(Emitter &e, const SystolicElementwise &k,
               const llvm::DenseMap<Value, uint32_t> &bufferOf, int64_t o,
               int64_t r0, int64_t c0, int64_t rr, int64_t cc,
               llvm::function_ref<int64_t(int)> slotRow, int preloaded,
               bool store = true) {
  SmallVector<int64_t> base = inputBases(k, o);
  // The load queue is in order and a load waits for the earlier readers of
  // its rows: the input in the result's slot (free only once the previous
  // result there is stored) goes last, so it holds up no other load.
  SmallVector<int> order, last;
  for (int i = 0, e = int(k.inputs.size()); i < e; ++i)
    (k.result.reg >= 0 && k.slotOf[i] == k.slotOf[k.result.reg] ? last : order)
        .push_back(i);
  order.append(last.begin(), last.end());
  for (int i : order)
    if (k.slotOf[i] >= 0 && i != preloaded)
      loadInput(e, k, i, bufferOf, base[i], r0, c0, rr, cc, slotRow(i));
  for (const Instr &in : k.program) {
    const int64_t cols = in.kind == Kind::Full ? cc : 1;
    std::optional<int64_t> srcB;
    systolic::Bcast bcast = systolic::Bcast::None;
    std::optional<float> imm;
    if (in.op == systolic::VecOp::Fill) {
      e.fill(slotRow(in.dst), rr, cols, in.a.imm);
      continue;
    }
    if (!isUnary(in.op)) {
      if (in.b.kind == Kind::Scalar) {
        bcast = systolic::Bcast::Scalar;
        imm = in.b.imm;
      } else {
        srcB = slotRow(in.b.reg);
        if (in.b.kind == Kind::Column && in.kind == Kind::Full)
          bcast = systolic::Bcast::Row;
      }
    }
    e.vector(in.op, slotRow(in.dst), slotRow(in.a.reg), srcB, rr, cols, bcast,
             imm);
  }
  if (!store)
    return;
  const View out = outputView(k, bufferOf, o);
  const int64_t colStride = k.out.strides.empty() ? 1 : k.out.strides.back();
  if (colStride == 1 || cc == 1) {
    // (One column at a stride is rows of one element: from column c0's.)
    e.mvout(systolic::Space::Acc, slotRow(k.result.reg), rr, cc,
            View{out.buffer, out.at(r0, 0) + c0 * colStride, out.stride, false},
            0, 0);
    return;
  }
  // Columns at a stride (interleaved pairs written back): each row stored
  // as a DRAM column block through the DMA's transpose.
  for (int64_t r = 0; r < rr; ++r)
    e.mvout(
        systolic::Space::Acc, slotRow(k.result.reg) + r, 1, cc,
        View{out.buffer, out.at(r0 + r, 0) + c0 * colStride, colStride, true},
        0, 0);
}

unsigned dramBytes(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType().isBF16() ? 2 : 4;
}

} // namespace

namespace {

/// The blocks of a kernel on its own: rows x the array's columns of the
/// loop space, and how many sets of slots alternate between them (between
/// blocks; a reduction's between strips, its rows' result column after
/// them).
struct Blocking {
  int64_t m = 1, n = 1, outer = 1, rows = 1, sets = 1;
};
Blocking blockingOf(const SystolicElementwise &k,
                    const ::sysarray::MachineConfig &mc) {
  Blocking b;
  const int64_t rank = k.shape.size();
  b.n = rank >= 1 ? k.shape[rank - 1] : 1;
  b.m = rank >= 2 ? k.shape[rank - 2] : 1;
  for (int64_t d = 0; d + 2 < rank; ++d)
    b.outer *= k.shape[d];
  // Two sets of slots where the accumulator holds them: block i + 1's
  // loads overlap block i's vector work and store (the simulator orders
  // each row's readers and writers, so one set would wait for the last).
  const int64_t column = k.reduce ? 1 : 0;
  b.sets = int64_t(mc.accRows) >= 2 * k.slots + column ? 2 : 1;
  b.rows = std::min<int64_t>(
      b.m, std::max<int64_t>(1, mc.accRows / (b.sets * k.slots + column)));
  return b;
}

/// The model's cycles of one block of rr x cc on its own: the load queue,
/// the store queue and the vector unit run decoupled (the simulator's
/// default timing model), so the slowest of them.
double blockCycles(const SystolicElementwise &k,
                   const ::sysarray::MachineConfig &mc, int64_t rr,
                   int64_t cc) {
  const int64_t rank = k.shape.size();
  const double bw = mc.dramBytesPerCycle;
  auto issue = [&](int64_t rows, int64_t cols) {
    return std::ceil(double(rows * cols) / mc.vectorLanes) + 4;
  };
  double load = 0, vec = 0;
  for (auto [i, in] : llvm::enumerate(k.inputs)) {
    if (k.slotOf[i] < 0)
      continue;
    const double bytes = dramBytes(in.value);
    const bool rowBroadcast =
        !in.column && rank >= 2 && in.strides[rank - 2] == 0 && rr > 1;
    load += bytes * (in.column ? rr : rowBroadcast ? cc : rr * cc) / bw;
    if (rowBroadcast)
      for (int64_t have = 1; have < rr; have *= 2)
        vec += issue(std::min(have, rr - have), cc);
  }
  for (const Instr &in : k.program) {
    const int64_t cols = in.kind == Kind::Full ? cc : 1;
    vec += issue(rr, cols) +
           (isTranscendental(in.op) ? 3 * (issue(rr, cols) - 4) : 0);
  }
  const double store = double(rr * cc) * dramBytes(k.op->getResult(0)) / bw;
  return std::max({load, store, vec});
}

} // namespace

namespace {

double predictReductionCycles(const SystolicElementwise &k,
                              const ::sysarray::MachineConfig &mc,
                              bool oneSlice) {
  const Blocking b = blockingOf(k, mc);
  if (b.outer * b.m * b.n == 0)
    return 0;
  double cycles = 2.0 * mc.dramLatency;
  for (int64_t r0 = 0; r0 < b.m; r0 += b.rows) {
    const int64_t rr = std::min(b.rows, b.m - r0);
    for (int64_t c0 = 0; c0 < b.n; c0 += mc.cols) {
      const int64_t cc = std::min<int64_t>(mc.cols, b.n - c0);
      // The strip's program (its store aside) and its rowsum / rowmax.
      cycles += blockCycles(k, mc, rr, cc) +
                std::ceil(double(rr * cc) / mc.vectorLanes) + 4;
    }
  }
  return (oneSlice ? 1 : b.outer) * cycles;
}

/// A row reduction: per block of rows, strip by strip of the reduced loop,
/// the inputs moved in and the program run (two sets of slots alternating
/// between strips), its value reduced into the rows' column (rowsum /
/// rowmax, accumulated after the first strip); then the initial value
/// combined and the column stored.
void emitReduction(Emitter &e, const SystolicElementwise &k,
                   const llvm::DenseMap<Value, uint32_t> &bufferOf) {
  const ::sysarray::MachineConfig &mc = e.machine();
  const Blocking b = blockingOf(k, mc);
  const uint32_t outBuf = bufferOf.lookup(k.op->getResult(0));
  const int64_t colRow = b.sets * k.slots * b.rows;
  const bool sum = *k.reduce == systolic::VecOp::RowSum;
  int64_t set = 0;
  for (int64_t o = 0; o < b.outer; ++o)
    for (int64_t r0 = 0; r0 < b.m; r0 += b.rows) {
      const int64_t rr = std::min(b.rows, b.m - r0);
      if (b.n == 0) {
        // Nothing to reduce: the initial value.
        e.fill(colRow, rr, 1,
               k.reduceInit
                   ? *k.reduceInit
                   : (sum ? 0.0f : -std::numeric_limits<float>::infinity()));
        e.mvout(systolic::Space::Acc, colRow, rr, 1,
                View{outBuf, o * b.m, 1, false}, r0, 0);
        continue;
      }
      for (int64_t c0 = 0; c0 < b.n; c0 += mc.cols) {
        const int64_t cc = std::min<int64_t>(mc.cols, b.n - c0);
        const int64_t setBase = set * k.slots * b.rows;
        set = (set + 1) % b.sets;
        auto slotRow = [&](int reg) {
          return setBase + int64_t(k.slotOf[reg]) * b.rows;
        };
        emitBlock(e, k, bufferOf, o, r0, c0, rr, cc, slotRow,
                  /*preloaded=*/-1, /*store=*/false);
        e.vector(*k.reduce, colRow, slotRow(k.result.reg), std::nullopt, rr, cc,
                 systolic::Bcast::None, std::nullopt, std::nullopt,
                 /*accumulate=*/c0 > 0);
      }
      if (k.reduceInit)
        e.vector(sum ? systolic::VecOp::Add : systolic::VecOp::Max, colRow,
                 colRow, std::nullopt, rr, 1, systolic::Bcast::Scalar,
                 *k.reduceInit);
      e.mvout(systolic::Space::Acc, colRow, rr, 1,
              View{outBuf, o * b.m, 1, false}, r0, 0);
    }
}

} // namespace

double mlir::accel::predictSystolicElementwiseCycles(
    const SystolicElementwise &k, const ::sysarray::MachineConfig &mc,
    bool oneSlice) {
  if (k.reduce)
    return predictReductionCycles(k, mc, oneSlice);
  const Blocking b = blockingOf(k, mc);

  if (b.outer * b.m * b.n == 0)
    return 0;
  // Per block the slowest queue (the sets overlap blocks), and the DRAM
  // latency of the first load (if any) and of the last store.
  double cycles = 0;
  for (int64_t r0 = 0; r0 < b.m; r0 += b.rows)
    for (int64_t c0 = 0; c0 < b.n; c0 += mc.cols)
      cycles += blockCycles(k, mc, std::min(b.rows, b.m - r0),
                            std::min<int64_t>(mc.cols, b.n - c0));
  return (oneSlice ? 1 : b.outer) * cycles +
         (k.inputs.empty() ? 1.0 : 2.0) * mc.dramLatency;
}

double mlir::accel::emitSystolicElementwise(
    Emitter &e, const SystolicElementwise &k,
    const llvm::DenseMap<Value, uint32_t> &bufferOf) {
  const ::sysarray::MachineConfig &mc = e.machine();
  if (k.reduce) {
    emitReduction(e, k, bufferOf);
    return predictSystolicElementwiseCycles(k, mc);
  }
  const Blocking b = blockingOf(k, mc);

  if (b.outer * b.m * b.n == 0)
    return 0;
  int64_t set = 0;
  for (int64_t o = 0; o < b.outer; ++o)
    for (int64_t r0 = 0; r0 < b.m; r0 += b.rows) {
      const int64_t rr = std::min(b.rows, b.m - r0);
      for (int64_t c0 = 0; c0 < b.n; c0 += mc.cols) {
        const int64_t cc = std::min<int64_t>(mc.cols, b.n - c0);
        const int64_t setBase = set * k.slots * b.rows;
        set = (set + 1) % b.sets;
        emitBlock(
            e, k, bufferOf, o, r0, c0, rr, cc,
            [&](int reg) { return setBase + int64_t(k.slotOf[reg]) * b.rows; },
            /*preloaded=*/-1);
      }
    }
  return predictSystolicElementwiseCycles(k, mc);
}

namespace {

/// Folds the kernel's first op on C, C + X, into C's initial value: X
/// (a block or a row broadcast, an input read nowhere else) is moved into
/// C's rows before the matmul accumulates onto it, and the add's result is
/// C itself. Returns X's input index, or -1 when the kernel has no such
/// add.
int foldInitialAdd(SystolicElementwise &k, int cInput) {
  auto usesOf = [&](int reg) {
    int n = k.result.reg == reg ? 1 : 0;
    for (const Instr &in : k.program)
      n += (in.a.reg == reg) + (in.b.reg == reg);
    return n;
  };
  if (usesOf(cInput) != 1)
    return -1;
  auto it = llvm::find_if(k.program, [&](const Instr &in) {
    return in.a.reg == cInput || in.b.reg == cInput;
  });
  if (it == k.program.end() || it->op != systolic::VecOp::Add ||
      it->kind != Kind::Full)
    return -1;
  const Operand x = it->a.reg == cInput ? it->b : it->a;
  if (x.kind != Kind::Full || x.reg < 0 || x.reg >= int(k.inputs.size()) ||
      x.reg == cInput || k.inputs[x.reg].column || usesOf(x.reg) != 1)
    return -1;
  const int sum = it->dst;
  k.program.erase(it);
  for (Instr &in : k.program)
    for (Operand *o : {&in.a, &in.b})
      if (o->reg == sum)
        o->reg = cInput;
  if (k.result.reg == sum)
    k.result.reg = cInput;
  planSlots(k);
  return x.reg;
}

} // namespace

namespace {

/// The ops that read `c`, directly or through reshapes of it (a
/// tensor.expand_shape or collapse_shape is a view of the same bytes:
/// reshape propagation moves a frontend's head split above the cast that
/// follows a projection).
void readersOf(Value c, SmallVectorImpl<Operation *> &readers) {
  for (Operation *user : c.getUsers()) {
    if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(user))
      readersOf(user->getResult(0), readers);
    else
      readers.push_back(user);
  }
}

/// `k` over the loop space `shape` of as many elements: possible when it
/// reads every input it uses and writes its output contiguously in row
/// order over its own loops (a pointwise kernel on a reshaped view), so
/// that the elements pair up in the same order over either space.
std::optional<SystolicElementwise> reshapedKernel(const SystolicElementwise &k,
                                                  ArrayRef<int64_t> shape) {
  if (ArrayRef<int64_t>(k.shape) == shape)
    return k;
  if (k.reduce || computeProduct(k.shape) != computeProduct(shape))
    return std::nullopt;
  const SmallVector<int64_t> own = rowMajorStrides(k.shape),
                             strides = rowMajorStrides(shape);
  SystolicElementwise r = k;
  r.shape.assign(shape.begin(), shape.end());
  for (auto [i, in] : llvm::enumerate(r.inputs)) {
    if (k.slotOf[i] < 0) {
      // Unused: read nowhere, only its strides' rank must agree.
      in.strides = strides;
      continue;
    }
    if (in.column || ArrayRef<int64_t>(in.strides) != ArrayRef<int64_t>(own))
      return std::nullopt;
    in.strides = strides;
  }
  if (ArrayRef<int64_t>(r.out.strides) != ArrayRef<int64_t>(own))
    return std::nullopt;
  r.out.strides = strides;
  return r;
}

} // namespace

std::optional<SystolicEpilogue> mlir::accel::matchSystolicEpilogue(
    Operation *matmul,
    llvm::function_ref<const SystolicElementwise *(Operation *)> kernelOf) {
  Value c = matmul->getResult(0);
  auto cType = cast<RankedTensorType>(c.getType());
  // The first elementwise kernel in the block that reads C (or a reshape
  // of it).
  SmallVector<Operation *> readers;
  readersOf(c, readers);
  const SystolicElementwise *kernel = nullptr;
  for (Operation *user : readers) {
    const SystolicElementwise *k = kernelOf(user);
    if (k && user->getBlock() == matmul->getBlock() &&
        (!kernel || user->isBeforeInBlock(kernel->op)))
      kernel = k;
  }
  if (!kernel || kernel->reduce)
    return std::nullopt;
  // The kernel's loops are C's (unit batch dimensions dropped), C's rows
  // and columns kept; a kernel over a reshape of C when it pairs the
  // elements up in the same order (reshapedKernel).
  const int64_t rank = cType.getRank();
  SmallVector<int64_t> kept = keptLoops(cType.getShape()), shape;
  for (int64_t d : kept)
    shape.push_back(cType.getDimSize(d));
  if (kept.size() < 2 || kept[kept.size() - 2] != rank - 2 ||
      kept.back() != rank - 1)
    return std::nullopt;
  std::optional<SystolicElementwise> applied = reshapedKernel(*kernel, shape);
  if (!applied)
    return std::nullopt;
  // C read once, as a whole (the identity); everything else it reads is
  // in DRAM before the matmul runs (its program moves there).
  int cInput = -1;
  SmallVector<int64_t> identity = rowMajorStrides(applied->shape);
  for (auto [i, in] : llvm::enumerate(applied->inputs)) {
    if (in.value == c) {
      if (cInput >= 0 || in.column || in.offset != 0 ||
          ArrayRef<int64_t>(in.strides) != ArrayRef<int64_t>(identity))
        return std::nullopt;
      cInput = int(i);
      continue;
    }
    if (Operation *def = in.value.getDefiningOp())
      if (def->getBlock() != matmul->getBlock() ||
          !def->isBeforeInBlock(matmul))
        return std::nullopt;
  }
  if (cInput < 0 || applied->slotOf[cInput] < 0)
    return std::nullopt;
  SystolicEpilogue ep;
  ep.original = kernel;
  ep.kernel = std::move(*applied);
  ep.cInput = cInput;
  ep.storeC = llvm::any_of(readers,
                           [&](Operation *user) { return user != kernel->op; });
  return ep;
}

std::optional<SystolicEpilogue>
mlir::accel::seedSystolicEpilogue(const SystolicEpilogue &ep) {
  // A C that something else reads is stored as C, not C + X.
  if (ep.storeC)
    return std::nullopt;
  SystolicEpilogue seeded = ep;
  seeded.initInput = foldInitialAdd(seeded.kernel, ep.cInput);
  if (seeded.initInput < 0)
    return std::nullopt;
  return seeded;
}

SystolicEpilogueShape
mlir::accel::describeSystolicEpilogue(const SystolicEpilogue &ep,
                                      const ::sysarray::MachineConfig &mc) {
  const SystolicElementwise &k = ep.kernel;
  const int64_t rank = k.shape.size();
  SystolicEpilogueShape s;
  // On its own the kernel is the one before the fold.
  s.separateCycles =
      predictSystolicElementwiseCycles(*ep.original, mc, /*oneSlice=*/true);
  s.slots = k.slots - 1;
  for (auto [i, in] : llvm::enumerate(k.inputs)) {
    if (int(i) == ep.cInput || (k.slotOf[i] < 0 && int(i) != ep.initInput))
      continue;
    const unsigned bytes = dramBytes(in.value);
    if (in.column) {
      s.colBytes += bytes;
    } else if (in.strides[rank - 2] == 0) {
      // One row read per strip, doubled by copies (about one block's worth
      // of issue cycles, and their latencies).
      s.rowBytes += bytes;
      s.vectorOps += 1;
      s.vectorInstrs += 4;
    } else {
      s.elemBytes += bytes;
    }
  }
  for (const Instr &in : k.program) {
    s.vectorOps += isTranscendental(in.op) ? 4 : 1;
    s.vectorInstrs += 1;
  }
  s.storeBytes = dramBytes(k.op->getResult(0)) +
                 (ep.storeC ? dramBytes(k.inputs[ep.cInput].value) : 0);
  return s;
}

void mlir::accel::emitSystolicEpilogue(
    Emitter &e, const SystolicEpilogue &ep,
    const llvm::DenseMap<Value, uint32_t> &bufferOf, int64_t outer, int64_t r0,
    int64_t c0, int64_t rows, int64_t cols, int64_t cRow, int64_t spareRow,
    int64_t slotRows) {
  const SystolicElementwise &k = ep.kernel;
  const int cSlot = k.slotOf[ep.cInput];
  // C's slot is the strip itself; the others follow one another from
  // spareRow.
  emitBlock(
      e, k, bufferOf, outer, r0, c0, rows, cols,
      [&](int reg) {
        const int slot = k.slotOf[reg];
        if (slot == cSlot)
          return cRow;
        return spareRow + int64_t(slot < cSlot ? slot : slot - 1) * slotRows;
      },
      ep.cInput);
}

void mlir::accel::emitSystolicEpilogueInit(
    Emitter &e, const SystolicEpilogue &ep,
    const llvm::DenseMap<Value, uint32_t> &bufferOf, int64_t outer, int64_t r0,
    int64_t c0, int64_t rows, int64_t cols, int64_t cRow) {
  const SystolicElementwise &k = ep.kernel;
  loadInput(e, k, ep.initInput, bufferOf, inputBases(k, outer)[ep.initInput],
            r0, c0, rows, cols, cRow);
}
