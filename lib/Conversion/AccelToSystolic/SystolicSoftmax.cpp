//===- SystolicSoftmax.cpp - accel.softmax on the vector unit -------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The softmax kernel of convert-accel-to-systolic (SystolicSoftmax.h).
//
//===----------------------------------------------------------------------===//

#include "SystolicSoftmax.h"
#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::accel;
using namespace mlir::accel::systolic_emit;
using systolic::Bcast;
using systolic::Space;
using systolic::VecOp;

namespace {

unsigned dramBytes(Type t) {
  return cast<RankedTensorType>(t).getElementType().isBF16() ? 2 : 4;
}

} // namespace

FailureOr<SystolicSoftmax>
mlir::accel::analyzeSystolicSoftmax(SoftmaxOp op,
                                    const ::sysarray::MachineConfig &mc) {
  auto in = cast<RankedTensorType>(op.getInput().getType());
  auto out = cast<RankedTensorType>(op.getResult().getType());
  if (!in.hasStaticShape() || !out.hasStaticShape())
    return op.emitOpError("needs static shapes on the systolic target");
  auto isFloat = [](Type t) { return t.isF32() || t.isBF16(); };
  if (!isFloat(in.getElementType()) || !isFloat(out.getElementType()))
    return op.emitOpError("of ")
           << in.getElementType() << " -> " << out.getElementType()
           << " has no systolic lowering: the vector unit reads and writes "
              "f32 or bf16";
  const int64_t rank = in.getRank();
  if (rank < 1 || int64_t(op.getDimension()) != rank - 1)
    return op.emitOpError("over dimension ")
           << op.getDimension() << " of " << rank
           << " has no systolic lowering: the vector unit reduces along the "
              "last dimension (a row of the accumulator)";
  if (mc.accType != ::sysarray::ElemType::F32)
    return op.emitOpError("has no systolic lowering in a program of i8 "
                          "matmuls: the vector unit works on an f32 "
                          "accumulator, theirs is i32");
  SystolicSoftmax k;
  k.input = op.getInput();
  k.result = op.getResult();
  k.n = in.getShape().back();
  k.rows = 1;
  for (int64_t d = 0; d + 1 < rank; ++d)
    k.rows *= in.getDimSize(d);
  k.strips = ceilDiv(std::max<int64_t>(k.n, 1), mc.cols);
  // A block: its rows' strips side by side, then the partial maxima and
  // sums (a column each, a block's rows).
  auto layout = [&](int64_t partials) {
    const int64_t perRow = k.strips + 2 * partials;
    k.partials = partials;
    k.sets = int64_t(mc.accRows) >= 2 * perRow ? 2 : 1;
    k.blockRows = std::max<int64_t>(
        1, std::min<int64_t>(k.rows, mc.accRows / (k.sets * perRow)));
    return perRow <= int64_t(mc.accRows);
  };
  if (!layout(1))
    return op.emitOpError("rows of ")
           << k.n << " elements take " << k.strips + 2
           << " accumulator rows each (their strips of " << mc.cols
           << ", the max and the sum); the machine has " << mc.accRows;
  // Enough partials that a reduction's result lands (4 cycles) before the
  // next one into the same column issues, where the rows still fit.
  const int64_t issue = ceilDiv(k.blockRows * mc.cols, mc.vectorLanes);
  const int64_t partials =
      std::min<int64_t>(k.strips, 1 + ceilDiv(4, std::max<int64_t>(issue, 1)));
  if (partials > 1 && !layout(partials))
    layout(1);
  return k;
}

double
mlir::accel::predictSystolicSoftmaxCycles(const SystolicSoftmax &k,
                                          const ::sysarray::MachineConfig &mc) {
  if (k.rows == 0 || k.n == 0)
    return 0;
  const double bw = mc.dramBytesPerCycle;
  const unsigned inBytes = dramBytes(k.input.getType()),
                 outBytes = dramBytes(k.result.getType());
  auto issue = [&](int64_t rows, int64_t cols, double factor = 1) {
    return factor * std::ceil(double(rows * cols) / mc.vectorLanes) + 4;
  };
  double cycles = 2.0 * mc.dramLatency;
  for (int64_t r0 = 0; r0 < k.rows; r0 += k.blockRows) {
    const int64_t rr = std::min(k.blockRows, k.rows - r0);
    // rowmax, sub, exp, rowsum, div a strip: issue cycles alone (the
    // partials and the grouping keep consecutive instructions independent),
    // and the pipeline's latency once a phase.
    double vec = 5 * 4;
    for (int64_t st = 0; st < k.strips; ++st) {
      const int64_t cc = std::min<int64_t>(mc.cols, k.n - st * mc.cols);
      vec += 4 * (issue(rr, cc) - 4) + (issue(rr, cc, 4) - 4);
    }
    vec += 2 * (k.partials - 1) * issue(rr, 1);
    const double load = double(rr * k.n * inBytes) / bw,
                 store = double(rr * k.n * outBytes) / bw;
    cycles += std::max({load, store, vec});
  }
  return cycles;
}

void mlir::accel::emitSystolicSoftmax(Emitter &e, const SystolicSoftmax &k,
                                      const View &inRows,
                                      const View &outRows) {
  if (k.rows == 0 || k.n == 0)
    return;
  const int64_t C = e.machine().cols, br = k.blockRows;
  const int64_t P = k.partials;
  const int64_t setRows = (k.strips + 2 * P) * br;
  int64_t set = 0;
  for (int64_t r0 = 0; r0 < k.rows; r0 += br) {
    const int64_t rr = std::min(br, k.rows - r0);
    const int64_t base = set * setRows;
    set = (set + 1) % k.sets;
    auto strip = [&](int64_t st) { return base + st * br; };
    auto width = [&](int64_t st) { return std::min(C, k.n - st * C); };
    // Partial p of the max at mRow + p * br, of the sum at lRow + p * br;
    // partial 0 ends up holding the row's.
    const int64_t mRow = base + k.strips * br, lRow = mRow + P * br;
    const View in{inRows.buffer, inRows.at(r0, 0), inRows.stride, false},
        out{outRows.buffer, outRows.at(r0, 0), outRows.stride, false};
    for (int64_t st = 0; st < k.strips; ++st)
      e.mvin(in, 0, st * C, rr, width(st), Space::Acc, strip(st));
    // m = the row's max (NaN propagates), strip st into partial st % P.
    for (int64_t st = 0; st < k.strips; ++st)
      e.vector(VecOp::RowMax, mRow + (st % P) * br, strip(st), std::nullopt, rr,
               width(st), Bcast::None, std::nullopt, std::nullopt,
               /*accumulate=*/st >= P);
    for (int64_t p = 1; p < P; ++p)
      e.vector(VecOp::Max, mRow, mRow, mRow + p * br, rr, 1);
    // exp(x - m), a -inf m read as 0: a row of -inf gives zeros. Every
    // strip's sub, then every strip's exp: consecutive instructions of the
    // in-order unit do not wait for each other's results.
    for (int64_t st = 0; st < k.strips; ++st)
      e.vector(VecOp::Sub, strip(st), strip(st), mRow, rr, width(st),
               Bcast::Row, std::nullopt, std::nullopt, false,
               /*infIsZero=*/true);
    for (int64_t st = 0; st < k.strips; ++st)
      e.vector(VecOp::Exp, strip(st), strip(st), std::nullopt, rr, width(st));
    // l = the row's sum (partials of every P-th strip, added at the end);
    // x / l, 0 where l is 0.
    for (int64_t st = 0; st < k.strips; ++st)
      e.vector(VecOp::RowSum, lRow + (st % P) * br, strip(st), std::nullopt, rr,
               width(st), Bcast::None, std::nullopt, std::nullopt,
               /*accumulate=*/st >= P);
    for (int64_t p = 1; p < P; ++p)
      e.vector(VecOp::Add, lRow, lRow, lRow + p * br, rr, 1);
    for (int64_t st = 0; st < k.strips; ++st) {
      e.vector(VecOp::Div, strip(st), strip(st), lRow, rr, width(st),
               Bcast::Row, std::nullopt, std::nullopt, false,
               /*infIsZero=*/true);
      e.mvout(Space::Acc, strip(st), rr, width(st), out, 0, st * C);
    }
  }
}
