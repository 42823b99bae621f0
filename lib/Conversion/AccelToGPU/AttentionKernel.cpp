//===- AttentionKernel.cpp - accel.attention to a FlashAttention kernel ---===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The forward kernel of FlashAttention-2 (Dao, 2023) for accel.attention on
// NVIDIA tensor cores. A block of 4 warps owns 64 query rows of one
// (batch, query head), each warp 16 of them:
//
//   - the Q tile [64][D] is copied once to shared memory (cp.async) and from
//     there into registers as mma.sync A fragments (ldmatrix);
//   - the keys are visited in blocks of blockN (64; TF32: 64 or 32); a ring
//     of `stages` shared buffers holds K [blockN][D] and V [blockN][Dv] of
//     the next blocks in flight while the warps work on the oldest (one
//     cp.async group per block);
//   - S = Q.K^T with mma.sync m16n8k16 (m16n8k8 .tf32 for TF32 values; K
//     rows are the col-major B operand: ldmatrix without .trans), scaled by
//     scale*log2(e) so that exp2
//     (ex2.approx) stands for exp;
//   - online softmax in registers: each row lives in the 4 lanes of a quad,
//     so its max and (at the end) its sum are reduced with two xor
//     shuffles; the running max m, the correction exp2(m_old - m_new) of
//     the O accumulators and of the row sum l, P = exp2(S - m);
//   - P, rounded to the input type, goes straight back into A fragments:
//     the C fragment of two adjacent m16n8 tiles is the A fragment of one
//     m16n8k16 (the FA2 register trick), so P never touches shared memory;
//   - O += P.V with mma.sync (V rows are the row-major B operand: ldmatrix
//     .trans);
//   - causal: the key blocks wholly above the band are never visited (the
//     loop bound depends on the query block) and the keys of the others
//     are masked by index; keys past Skv are masked too;
//   - O / l, with 0 for a row that kept no key (l = 0), rounded and stored
//     behind a row guard.
//
// MHA, GQA and MQA differ only in the K/V head a block reads. A mask (i1:
// keep the key; f32/f16/bf16: added to the scaled logits) of any shape
// that broadcasts to [B, Hq, Sq, Skv] is read from global memory per logit
// (an element of the thread's fragment each). Sequence lengths and windows
// are not compiled (located errors).
//
//===----------------------------------------------------------------------===//

#include "AttentionKernel.h"
#include "AttentionKernelBuilder.h"
#include "KernelConfig.h"
#include "KernelUtils.h"
#include "accel/Conversion/AccelToGPU/AccelToGPU.h"
#include "accel/Conversion/AccelToGPU/GpuTargetInfo.h"
#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include <cmath>
#include <limits>
#include <map>

using namespace mlir;
using namespace mlir::accel;

void GpuAttentionBuilder::emit(Value gQ, Value gKArg, Value gVArg, Value gMask,
                               Value gO) {
  gK = gKArg;
  gV = gVArg;
  // The kernel the configuration stage chose (KernelConfig.cpp).
  StringRef kernel = getGpuAttentionKernelName(k, target);
  if (kernel == "wgmma")
    return emitWgmma(gQ, gMask, gO);
  if (kernel == "fma")
    return emitFma(gQ, gMask, gO);
  if (kernel == "mfma" || kernel == "wmma")
    return emitLds(*k.lanes, gQ, gMask, gO);
  return emitMmaSync(gQ, gMask, gO);
}

void GpuAttentionBuilder::storeO(Value v, Value gO, Value head, Value row,
                                 Value col0, int64_t colStride,
                                 int64_t alignBytes) {
  if (!epilogue && colStride == 1) {
    vector::StoreOp::create(b, loc, v, gO,
                            ValueRange{batchIdx, head, row, col0}, false,
                            llvm::MaybeAlign(alignBytes));
    return;
  }
  int64_t n = cast<VectorType>(v.getType()).getNumElements();
  for (int64_t e = 0; e < n; ++e) {
    Value x = vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{e});
    Value col = add(col0, e * colStride);
    if (epilogue)
      x = emitGpuEpilogueElement(b, loc, *epilogue, x, gEpilogue,
                                 {batchIdx, head, row, col});
    memref::StoreOp::create(b, loc, x, gO,
                            ValueRange{batchIdx, head, row, col});
  }
}

Value GpuAttentionBuilder::maskedLogit(Value dot, Value keyBase, int64_t c,
                                       Value qRow, Value head, Value gMask,
                                       Value diag) {
  constexpr double log2e = 1.4426950408889634;
  const bool maskTail = k.skv % k.blockN != 0;
  const bool boolMask = gMask && k.maskType.isInteger(1);
  Value v = arith::MulFOp::create(b, loc, dot, f32(k.scale * log2e));
  Value m;
  if (gMask)
    m = loadMask(gMask, head, qRow, add(keyBase, c));
  if (gMask && !boolMask) {
    Value mf = m.getType().isF32()
                   ? m
                   : arith::ExtFOp::create(b, loc, b.getF32Type(), m)
                         .getResult();
    v = arith::AddFOp::create(b, loc, v,
                              arith::MulFOp::create(b, loc, mf, f32(log2e)));
  }
  // The padding past Skv and the band apply in the loop over the diagonal
  // and partial key blocks only (bandMask, unmaskedKeyBlocks).
  const bool tail = bandMask && maskTail, band = bandMask && k.causal;
  if (!tail && !band && !boolMask)
    return v;
  Value keep = both(
      tail ? cmp(arith::CmpIPredicate::slt, keyBase, cst(k.skv - c)) : Value(),
      band ? cmp(arith::CmpIPredicate::sle, diag, cst(k.offset - c)) : Value());
  keep = both(keep, boolMask ? m : Value());
  return arith::SelectOp::create(b, loc, keep, v,
                                 f32(-std::numeric_limits<double>::infinity()));
}

scf::ForOp GpuAttentionBuilder::keyLoop(
    Value m0, Value nBlocks, ValueRange init,
    function_ref<void(OpBuilder &, Location, Value, ValueRange)> step) {
  const bool split = k.causal || k.skv % k.blockN != 0;
  Value nFull = split ? unmaskedKeyBlocks(m0, nBlocks) : nBlocks;
  bandMask = false;
  auto loop = scf::ForOp::create(b, loc, cst(0), nFull, cst(1), init, step);
  bandMask = true;
  if (!split)
    return loop;
  // Values the first body cached (copy coordinates) do not dominate the
  // second.
  forgetCopyCoordsIn(loop);
  return scf::ForOp::create(b, loc, nFull, nBlocks, cst(1), loop.getResults(),
                            step);
}

GpuAttentionBuilder::SoftmaxStep
GpuAttentionBuilder::onlineSoftmax(ArrayRef<Value> x, Value blockMax,
                                   Value rowMax, Value sum) {
  SoftmaxStep step;
  step.rowMax = maxF(rowMax, blockMax);
  // A query whose keys are all removed so far keeps max -inf: exponents
  // are then taken against 0, so that P = 0 and alpha = 1 (not NaN).
  Value empty =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, step.rowMax,
                            f32(-std::numeric_limits<double>::infinity()));
  Value base = arith::SelectOp::create(b, loc, empty, f32(0), step.rowMax);
  step.alpha = exp2(arith::SubFOp::create(b, loc, rowMax, base));
  Value blockSum;
  for (Value v : x) {
    step.p.push_back(exp2(arith::SubFOp::create(b, loc, v, base)));
    blockSum = blockSum ? arith::AddFOp::create(b, loc, blockSum, step.p.back())
                        : step.p.back();
  }
  step.sum = arith::AddFOp::create(
      b, loc, arith::MulFOp::create(b, loc, sum, step.alpha), blockSum);
  return step;
}

//===----------------------------------------------------------------------===//
// The kernel's function
//===----------------------------------------------------------------------===//

void mlir::accel::emitGpuAttentionKernel(
    OpBuilder &b, AttentionOp op, StringRef name, const AttentionPlan &k,
    const GpuEpilogue *epilogue, const DenseMap<Value, std::string> &bufferOf,
    const GpuTargetInfo &target) {
  MLIRContext *ctx = b.getContext();
  Location loc = op.getLoc();
  SmallVector<Type> params;
  SmallVector<Attribute> args, access;
  auto addParam = [&](Value v, StringRef how) {
    params.push_back(MemRefType::get(cast<ShapedType>(v.getType()).getShape(),
                                     getElementTypeOrSelf(v.getType())));
    args.push_back(StringAttr::get(ctx, bufferOf.lookup(v)));
    access.push_back(StringAttr::get(ctx, how));
  };
  // Without keys nothing is read (a bare pointer cannot stand for an empty
  // memref): the kernel only writes zeros.
  if (k.skv > 0) {
    addParam(op.getQuery(), "in");
    addParam(op.getKey(), "in");
    addParam(op.getValue(), "in");
    if (op.getMask())
      addParam(op.getMask(), "in");
  }
  // The epilogue's buffers (a residual, a bias: read at their own shapes),
  // then what the kernel writes: the epilogue's result or O.
  Value written = op.getResult();
  if (epilogue) {
    for (unsigned n : epilogue->bufferOperands)
      addParam(epilogue->op->getOperand(n), "in");
    written = epilogue->op->getResult(0);
  }
  addParam(written, "out");

  int64_t threads = k.warps() * target.getWarpSize();
  SmallVector<NamedAttribute> launch = {
      b.getNamedAttr("tile", b.getDenseI64ArrayAttr({k.blockM, k.blockN})),
      b.getNamedAttr("stages", b.getI64IntegerAttr(k.stages)),
      b.getNamedAttr("scale", b.getF64FloatAttr(k.scale))};
  if (!k.registerStaged)
    launch.push_back(b.getNamedAttr(
        "mma", b.getStringAttr(getGpuAttentionKernelName(k, target))));
  if (k.causal)
    launch.push_back(
        b.getNamedAttr("causal_offset", b.getI64IntegerAttr(k.offset)));
  if (k.maskType)
    launch.push_back(b.getNamedAttr(
        "mask",
        b.getStringAttr(k.maskType.isInteger(1) ? "bool" : "additive")));
  // How many of the parameters before the written buffer the epilogue
  // reads.
  if (epilogue)
    launch.push_back(b.getNamedAttr(
        "epilogue", b.getI64IntegerAttr(epilogue->bufferOperands.size())));
  auto func = createGpuKernel(b, loc, name, params, k.grid(), threads,
                              k.skv > 0 ? k.sharedBytes() : 0, target.getChip(),
                              args, access, "attention", launch);

  Block *entry = &func.getBody().front();
  OpBuilder body = OpBuilder::atBlockEnd(entry);
  GpuAttentionBuilder builder(body, loc, k, target, entry);
  unsigned next = k.skv > 0 ? (k.maskType ? 4 : 3) : 0;
  builder.epilogue = epilogue;
  if (epilogue)
    for (size_t i = 0; i < epilogue->bufferOperands.size(); ++i)
      builder.gEpilogue.push_back(entry->getArgument(next++));
  Value gO = entry->getArgument(next);
  if (k.skv > 0)
    builder.emit(entry->getArgument(0), entry->getArgument(1),
                 entry->getArgument(2),
                 k.maskType ? entry->getArgument(3) : Value(), gO);
  else
    builder.emit(Value(), Value(), Value(), Value(), gO);
}
