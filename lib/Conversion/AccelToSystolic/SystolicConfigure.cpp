//===- SystolicConfigure.cpp - accel-systolic-configure -------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The configuration stage of the systolic target: attaches an
// #accel.lowering_config to every matmul and attention that
// convert-accel-to-systolic compiles, chosen by SystolicSchedule.cpp for the
// machine the options describe; an op that has one keeps it, completed and
// checked.
//
//===----------------------------------------------------------------------===//

#include "SystolicDequant.h"
#include "SystolicElementwise.h"
#include "accel/Conversion/AccelToSystolic/AccelToSystolic.h"
#include "accel/Dialect/Accel/IR/AccelAttrs.h"
#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "accel/Systolic/ISA.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELSYSTOLICCONFIGUREPASS
#include "accel/Conversion/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;
using namespace mlir::accel;
namespace isa = ::sysarray;

FailureOr<LoweringConfigAttr> mlir::accel::configureSystolicOp(
    Operation *op, const SystolicOptions &options,
    llvm::function_ref<std::optional<SystolicEpilogueShape>(
        const isa::MachineConfig &, bool)>
        epilogue) {
  MLIRContext *ctx = op->getContext();
  FailureOr<SystolicOptions> o = getSystolicOverrides(op, options);
  if (failed(o))
    return failure();
  if (auto mm = llvm::dyn_cast<MatmulOp>(op)) {
    auto aType = mm.getLhs().getType(), cType = mm.getInit().getType();
    std::optional<isa::ElemType> in =
        getSystolicElemType(aType.getElementType());
    std::optional<isa::ElemType> out =
        getSystolicElemType(cType.getElementType());
    // What the array does not take is the conversion's to report.
    if (!in || *in == isa::ElemType::I32 || !out || !aType.hasStaticShape() ||
        !cType.hasStaticShape())
      return LoweringConfigAttr();
    int64_t rank = cType.getRank();
    SystolicMatmulShape shape;
    shape.m = cType.getDimSize(rank - 2);
    shape.n = cType.getDimSize(rank - 1);
    shape.k = aType.getDimSize(rank - 1);
    // An empty C, or K = 0, needs no schedule.
    if (shape.m == 0 || shape.n == 0 || shape.k == 0 ||
        computeProduct(cType.getShape().drop_back(2)) == 0)
      return LoweringConfigAttr();
    isa::MachineConfig mc = getSystolicMachine(*o, *in);
    if (mc.spadRows < 1 || mc.accRows < 1)
      return LoweringConfigAttr();
    shape.inBytes = isa::elemBytes(*in);
    shape.outBytes = isa::elemBytes(*out);
    shape.accumulate = mm.getAccumulate();
    if (epilogue && o->fuseEpilogues) {
      shape.epilogue = epilogue(mc, /*seeded=*/false);
      shape.seededEpilogue = epilogue(mc, /*seeded=*/true);
    }
    FailureOr<SystolicMatmulSchedule> s =
        configureSystolicMatmul(mm, mc, shape, *o);
    if (failed(s))
      return failure();
    // stages: C's blocks in one buffer (1), or two (0, the default).
    return LoweringConfigAttr::get(
        ctx, "systolic", {s->tileM, s->tileN, s->tileK}, {}, {},
        s->cBuffers == 1 ? 1 : 0, stringifySystolicDataflow(s->dataflow));
  }
  if (auto dq = llvm::dyn_cast<DequantMatmulOp>(op)) {
    // Its program's input type is A's (bf16 or f32); what the array does
    // not take is the conversion's to report.
    auto aType = cast<RankedTensorType>(dq.getLhs().getType());
    std::optional<isa::ElemType> in =
        getSystolicElemType(aType.getElementType());
    if (!in || (*in != isa::ElemType::BF16 && *in != isa::ElemType::F32) ||
        !aType.hasStaticShape() || !dq.getInit().getType().hasStaticShape())
      return LoweringConfigAttr();
    isa::MachineConfig mc = getSystolicMachine(*o, *in);
    if (mc.spadRows < 1 || mc.accRows < 1)
      return LoweringConfigAttr();
    FailureOr<SystolicDequant> k = analyzeSystolicDequant(dq, mc, *o);
    if (failed(k))
      return failure();
    if (k->m == 0 || k->n == 0)
      return LoweringConfigAttr();
    return LoweringConfigAttr::get(ctx, "systolic", {k->tileM, k->tileN}, {},
                                   {}, 0, "");
  }
  if (auto pa = llvm::dyn_cast<PagedAttentionOp>(op)) {
    auto qType = pa.getQuery().getType();
    std::optional<isa::ElemType> in =
        getSystolicElemType(qType.getElementType());
    if (!in || *in == isa::ElemType::I8 || *in == isa::ElemType::I32 ||
        !qType.hasStaticShape() ||
        !pa.getKeyCache().getType().hasStaticShape() ||
        !pa.getValueCache().getType().hasStaticShape() ||
        !pa.getBlockTable().getType().hasStaticShape())
      return LoweringConfigAttr();
    isa::MachineConfig mc = getSystolicMachine(*o, *in);
    SystolicAttentionShape g = getSystolicPagedAttentionShape(pa, mc);
    if (g.d == 0 || g.dv == 0 || g.sq == 0 || mc.spadRows < 1 || mc.accRows < 1)
      return LoweringConfigAttr();
    FailureOr<std::pair<int64_t, int64_t>> tiles = chooseSystolicAttentionTiles(
        pa, mc, g, o->attentionTileQ, o->attentionTileKV);
    if (failed(tiles))
      return failure();
    return LoweringConfigAttr::get(
        ctx, "systolic", {tiles->first, tiles->second}, {}, {}, 0, "");
  }
  auto at = llvm::cast<AttentionOp>(op);
  auto qType = at.getQuery().getType(), kType = at.getKey().getType(),
       vType = at.getValue().getType();
  std::optional<isa::ElemType> in =
      getSystolicElemType(qType.getElementType());
  if (!in || *in == isa::ElemType::I8 || *in == isa::ElemType::I32 ||
      !qType.hasStaticShape() ||
      !kType.hasStaticShape() || !vType.hasStaticShape())
    return LoweringConfigAttr();
  SystolicAttentionShape g = getSystolicAttentionShape(at);
  if (g.d == 0 || g.dv == 0)
    return LoweringConfigAttr();
  isa::MachineConfig mc = getSystolicMachine(*o, *in);
  if (mc.spadRows < 1 || mc.accRows < 1)
    return LoweringConfigAttr();
  FailureOr<std::pair<int64_t, int64_t>> tiles = chooseSystolicAttentionTiles(
      at, mc, g, o->attentionTileQ, o->attentionTileKV);
  if (failed(tiles))
    return failure();
  return LoweringConfigAttr::get(ctx, "systolic", {tiles->first, tiles->second},
                                 {}, {}, 0, "");
}

namespace {

struct AccelSystolicConfigurePass
    : public mlir::accel::impl::AccelSystolicConfigurePassBase<
          AccelSystolicConfigurePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SystolicOptions options = SystolicOptions{rows,
                                              cols,
                                              spadKib,
                                              accKib,
                                              spadBanks,
                                              accBanks,
                                              dramBytesPerCycle,
                                              dramLatency,
                                              vectorLanes,
                                              dataflow,
                                              tileM,
                                              tileN,
                                              tileK,
                                              attentionTileQ,
                                              attentionTileKV,
                                              fuseEpilogues,
                                              cBuffers};
    if (failed(checkSystolicOptions(module, "accel-systolic-configure",
                                    options)))
      return signalPassFailure();
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      // The elementwise kernels, as the conversion analyses them (what it
      // cannot run is its to report: quietly skipped here).
      // All analysed first: the map does not grow while its entries are
      // referenced.
      DenseMap<Operation *, SystolicElementwise> kernels;
      {
        ScopedDiagnosticHandler quiet(func.getContext(),
                                      [](Diagnostic &) { return success(); });
        FailureOr<SystolicLayouts> layouts = SystolicLayouts::build(func);
        for (Operation &op : func.getBody().front())
          if (succeeded(layouts) &&
              llvm::isa<linalg::GenericOp, linalg::FillOp>(op))
            if (FailureOr<SystolicElementwise> k =
                    analyzeSystolicElementwise(&op, *layouts);
                succeeded(k))
              kernels[&op] = std::move(*k);
      }
      auto kernelOf = [&](Operation *op) -> const SystolicElementwise * {
        auto it = kernels.find(op);
        return it == kernels.end() ? nullptr : &it->second;
      };
      for (Operation &op : func.getBody().front()) {
        if (!llvm::isa<MatmulOp, AttentionOp, PagedAttentionOp,
                       DequantMatmulOp>(op))
          continue;
        std::optional<SystolicEpilogue> ep, seeded;
        if (auto mm = dyn_cast<MatmulOp>(op)) {
          ep = matchSystolicEpilogue(mm, kernelOf);
          if (ep && !mm.getAccumulate())
            seeded = seedSystolicEpilogue(*ep);
        }
        auto epilogue = [&](const isa::MachineConfig &mc,
                            bool wantSeeded) -> std::optional<SystolicEpilogueShape> {
          const std::optional<SystolicEpilogue> &e = wantSeeded ? seeded : ep;
          if (!e)
            return std::nullopt;
          return describeSystolicEpilogue(*e, mc);
        };
        FailureOr<LoweringConfigAttr> config =
            configureSystolicOp(&op, options, epilogue);
        if (failed(config))
          return signalPassFailure();
        if (*config)
          op.setAttr(kLoweringConfigAttrName, *config);
      }
    }
  }
};

} // namespace
