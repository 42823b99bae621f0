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
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/STLExtras.h"
#include <cmath>
#include <numeric>

using namespace mlir;
using namespace mlir::accel;
using namespace mlir::accel::systolic_emit;

namespace {

using Kind = SystolicElementwise::Kind;
using Operand = SystolicElementwise::Operand;
using Instr = SystolicElementwise::Instr;

bool isFloatElement(Type t) { return t.isF32() || t.isBF16(); }

/// Builds the vector program of a generic's body.
class ProgramBuilder {
public:
  explicit ProgramBuilder(SystolicElementwise &k) : k(k) {}

  Operand input(int index) {
    return {k.inputs[index].column ? Kind::Column : Kind::Full, index, 0};
  }
  static Operand scalar(float v) { return {Kind::Scalar, -1, v}; }

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
  for (auto [i, arg] :
       llvm::enumerate(body.getArguments().take_front(g.getNumDpsInputs())))
    valueOf[arg] = pb.input(int(i));
  auto notModelled = [&](Operation &op, StringRef why) {
    return g.emitOpError("has no systolic lowering: the vector unit ")
           << why << " ('" << op.getName() << "' in its body)";
  };
  constexpr StringLiteral kOps = "has add, sub, mul, div, max (maximumf, a "
                                 "ReLU's select), exp and negation";
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
      // The store rounds f32 to bf16 (mvout, round to nearest even): only a
      // rounding of what the body yields.
      if (!trunc.getType().isBF16() || !trunc->hasOneUse() ||
          !isa<linalg::YieldOp>(*trunc->getUsers().begin()))
        return notModelled(op, "rounds to bf16 only as the result's store "
                               "(a truncf the body yields)");
      out = ins[0];
    } else {
      return notModelled(op, kOps);
    }
    valueOf[op.getResult(0)] = out;
  }
  // The yielded value is an input, a computed value or a constant (the
  // output's initial value was refused before).
  std::optional<Operand> yielded = get(body.getTerminator()->getOperand(0));
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

FailureOr<SystolicElementwise>
mlir::accel::analyzeSystolicElementwise(Operation *op) {
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
    return k;
  }
  auto g = cast<linalg::GenericOp>(op);
  const int64_t rank = outType.getRank();
  if (g.getNumDpsInits() != 1 || g.getNumResults() != 1 ||
      g.getNumParallelLoops() != g.getNumLoops() ||
      !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity() ||
      g.getNumLoops() != rank)
    return g.emitOpError("has no systolic lowering: the vector unit runs "
                         "elementwise generics (parallel loops, one result "
                         "in the loops' order)");
  if (!g.getRegion().front().getArguments().back().use_empty())
    return g.emitOpError("has no systolic lowering: its body reads its "
                         "output's initial value");
  for (OpOperand *in : g.getDpsInputOperands()) {
    auto t = dyn_cast<RankedTensorType>(in->get().getType());
    if (!t || !t.hasStaticShape() || !isFloatElement(t.getElementType()))
      return g.emitOpError("has no systolic lowering: operand #")
             << in->getOperandNumber()
             << " is not a static f32 or bf16 tensor (the DMA moves those "
                "into the accumulator)";
    AffineMap map = g.getMatchingIndexingMap(in);
    SmallVector<int64_t> own = rowMajorStrides(t.getShape());
    SystolicElementwise::Input input{in->get(), SmallVector<int64_t>(rank, 0),
                                     false};
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
    input.column = rank == 0 || input.strides[rank - 1] == 0;
    if (!input.column && input.strides[rank - 1] != 1)
      return g.emitOpError("has no systolic lowering: operand #")
             << in->getOperandNumber()
             << " is not contiguous along the output's last dimension";
    k.inputs.push_back(std::move(input));
  }
  k.numRegs = int(k.inputs.size());
  if (failed(analyzeBody(g, k)))
    return failure();
  planSlots(k);
  return k;
}

double mlir::accel::emitSystolicElementwise(
    Emitter &e, const SystolicElementwise &k,
    const llvm::DenseMap<Value, uint32_t> &bufferOf) {
  const ::sysarray::MachineConfig &mc = e.machine();
  const int64_t rank = k.shape.size();
  const int64_t n = rank >= 1 ? k.shape[rank - 1] : 1;
  const int64_t m = rank >= 2 ? k.shape[rank - 2] : 1;
  int64_t outer = 1;
  for (int64_t d = 0; d + 2 < rank; ++d)
    outer *= k.shape[d];
  if (outer * m * n == 0)
    return 0;
  const int64_t width = mc.cols;
  // Two sets of slots where the accumulator holds them: block i + 1's
  // loads overlap block i's vector work and store (the simulator orders
  // each row's readers and writers, so one set would wait for the last).
  const int64_t sets = int64_t(mc.accRows) >= 2 * k.slots ? 2 : 1;
  const int64_t rows =
      std::min<int64_t>(m, std::max<int64_t>(1, mc.accRows / (sets * k.slots)));
  int64_t set = 0;
  const uint32_t outBuf = bufferOf.lookup(k.op->getResult(0));
  const int64_t outBytes = cast<RankedTensorType>(k.op->getResult(0).getType())
                                   .getElementType()
                                   .isBF16()
                               ? 2
                               : 4;
  auto strideAt = [&](const SystolicElementwise::Input &in, int64_t d) {
    return d >= 0 && d < rank ? in.strides[d] : int64_t(0);
  };
  // The model: per block the larger of its DMA and vector cycles (the sets
  // overlap blocks), and the DRAM latency of the first load (if any) and
  // the last store.
  double predicted = (k.inputs.empty() ? 1.0 : 2.0) * mc.dramLatency;
  for (int64_t o = 0; o < outer; ++o) {
    // The outer dimensions' indices of block o, and each input's offset.
    SmallVector<int64_t> base(k.inputs.size(), 0);
    for (int64_t d = rank - 3, rest = o; d >= 0; --d) {
      int64_t idx = rest % k.shape[d];
      rest /= k.shape[d];
      for (auto [i, in] : llvm::enumerate(k.inputs))
        base[i] += idx * in.strides[d];
    }
    for (int64_t r0 = 0; r0 < m; r0 += rows) {
      const int64_t rr = std::min(rows, m - r0);
      for (int64_t c0 = 0; c0 < n; c0 += width) {
        const int64_t cc = std::min(width, n - c0);
        const double dma0 = e.dma, vec0 = e.vec;
        const int64_t setBase = set * k.slots * rows;
        set = (set + 1) % sets;
        auto slotRow = [&](int reg) {
          return setBase + int64_t(k.slotOf[reg]) * rows;
        };
        for (auto [i, in] : llvm::enumerate(k.inputs)) {
          if (k.slotOf[i] < 0)
            continue;
          const int64_t rowStride = strideAt(in, rank - 2);
          int64_t offset = base[i] + r0 * rowStride;
          if (!in.column)
            offset += c0 * strideAt(in, rank - 1);
          View view{bufferOf.lookup(in.value), offset, rowStride, false};
          if (in.column || rowStride != 0 || rr == 1) {
            e.mvin(view, 0, 0, rr, in.column ? 1 : cc, systolic::Space::Acc,
                   slotRow(int(i)));
            continue;
          }
          // The same row for every row of the block (a bias over the
          // columns): one row moved in, then doubled by vector copies, so
          // the DMA reads it once, not rr times.
          e.mvin(view, 0, 0, 1, cc, systolic::Space::Acc, slotRow(int(i)));
          for (int64_t have = 1; have < rr; have *= 2)
            e.vector(systolic::VecOp::Copy, slotRow(int(i)) + have,
                     slotRow(int(i)), std::nullopt, std::min(have, rr - have),
                     cc);
        }
        for (const Instr &in : k.program) {
          const int64_t cols = in.kind == Kind::Full ? cc : 1;
          std::optional<int64_t> srcB;
          systolic::Bcast bcast = systolic::Bcast::None;
          std::optional<float> imm;
          if (in.op == systolic::VecOp::Fill) {
            e.fill(slotRow(in.dst), rr, cols, in.a.imm);
            continue;
          }
          if (in.op != systolic::VecOp::Exp) {
            if (in.b.kind == Kind::Scalar) {
              bcast = systolic::Bcast::Scalar;
              imm = in.b.imm;
            } else {
              srcB = slotRow(in.b.reg);
              if (in.b.kind == Kind::Column && in.kind == Kind::Full)
                bcast = systolic::Bcast::Row;
            }
          }
          e.vector(in.op, slotRow(in.dst), slotRow(in.a.reg), srcB, rr, cols,
                   bcast, imm);
        }
        e.mvout(systolic::Space::Acc, slotRow(k.result.reg), rr, cc,
                View{outBuf, o * m * n, n, false}, r0, c0);
        predicted += std::max(
            e.dma - dma0 + double(rr * cc * outBytes) / mc.dramBytesPerCycle,
            e.vec - vec0);
      }
    }
  }
  return predicted;
}
