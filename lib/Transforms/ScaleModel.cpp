//===- ScaleModel.cpp - a sharded module's step time per process ----------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
// accel-scale-model: the roofline of a function on one device, then of one
// process's part after accel-shard, plus its collectives over the target's
// interconnect (the catalogue's link figures; ring algorithms). See
// Passes.td and docs/distributed.md.
//
//===----------------------------------------------------------------------===//

#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "accel/Target/Catalogue.h"
#include "accel/Transforms/Passes.h"
#include "accel/Transforms/Roofline.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELSCALEMODELPASS
#include "accel/Transforms/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;
using namespace mlir::accel;

namespace {
/// One function's prediction.
struct Step {
  std::string name;
  int64_t processes = 1;
  double oneDevice = 0, compute = 0;
  double payload = 0, wire = 0, comm = 0;
  int64_t collectives = 0;
  bool timed = true; // false when the target has no interconnect figures
};
} // namespace

/// The roofline seconds of the accel ops directly in `func` on `target`;
/// failure (after a remark) when one has no estimate.
static FailureOr<double> computeSeconds(func::FuncOp func, TargetAttr target) {
  double total = 0;
  WalkResult walk = func.walk([&](Operation *op) {
    if (!isa<MatmulOp, SoftmaxOp, AttentionOp>(op))
      return WalkResult::advance();
    std::optional<RooflineCost> cost = getRooflineCost(op);
    std::optional<double> seconds =
        cost ? getRooflineSeconds(*cost, target) : std::nullopt;
    if (!seconds) {
      op->emitError() << "accel-scale-model: no roofline estimate on "
                      << target.getName()
                      << " (dynamic shapes, or a precision it has no peak "
                         "for)";
      return WalkResult::interrupt();
    }
    total += *seconds;
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return total;
}

namespace {
struct AccelScaleModelPass
    : public accel::impl::AccelScaleModelPassBase<AccelScaleModelPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<TargetAttr> resolved = resolveTarget(
        module, targetName, "accel-scale-model", "x86-64-avx512");
    if (failed(resolved))
      return signalPassFailure();
    TargetAttr target = *resolved;
    const TargetSpec *spec = findTargetSpec(target.getName());
    bool hasLinks = spec && (spec->linkGBps > 0 || spec->scaleOutGBps > 0);

    // 1. One device: the annotated functions, whole.
    SmallVector<Step> steps;
    llvm::StringMap<double> oneDevice;
    for (auto func : module.getOps<func::FuncOp>()) {
      bool annotated = false;
      func.walk([&](shard::ShardOp) { annotated = true; });
      if (func.isExternal() || !annotated)
        continue;
      FailureOr<double> t = computeSeconds(func, target);
      if (failed(t))
        return signalPassFailure();
      oneDevice[func.getSymName()] = *t;
    }
    if (oneDevice.empty())
      return;
    if (!hasLinks)
      module.emitWarning()
          << "accel-scale-model: " << target.getName()
          << " has no interconnect figures in the catalogue; the bytes are "
             "predicted, not the communication time";

    // 2. One process's part.
    OpPassManager shardPm(ModuleOp::getOperationName());
    shardPm.addPass(createAccelShardPass());
    if (failed(runPipeline(shardPm, module)))
      return signalPassFailure();
    SymbolTableCollection symbols;
    for (auto func : module.getOps<func::FuncOp>()) {
      auto found = oneDevice.find(func.getSymName());
      if (found == oneDevice.end())
        continue;
      Step step;
      step.name = func.getSymName().str();
      step.oneDevice = found->second;
      step.timed = hasLinks;
      if (auto grid = func->getAttrOfType<DenseI64ArrayAttr>("accel.grid"))
        for (int64_t g : grid.asArrayRef())
          step.processes *= g;
      FailureOr<double> t = computeSeconds(func, target);
      if (failed(t))
        return signalPassFailure();
      step.compute = *t;
      WalkResult walk = func.walk([&](Operation *op) {
        // Partitioning accel ops makes all-reduces (split K), and
        // resharding all-gathers, all-to-alls and all-slices (local).
        if (isa<shard::AllSliceOp>(op))
          return WalkResult::advance();
        auto reduce = dyn_cast<shard::AllReduceOp>(op);
        auto gather = dyn_cast<shard::AllGatherOp>(op);
        auto toAll = dyn_cast<shard::AllToAllOp>(op);
        if (!reduce && !gather && !toAll) {
          if (isa<shard::BroadcastOp, shard::GatherOp, shard::ReduceOp,
                  shard::ReduceScatterOp, shard::ScatterOp, shard::ShiftOp,
                  shard::SendOp, shard::RecvOp, shard::UpdateHaloOp>(op)) {
            op->emitError() << "accel-scale-model does not model this "
                               "collective (all_reduce, all_gather, "
                               "all_to_all)";
            return WalkResult::interrupt();
          }
          return WalkResult::advance();
        }
        FlatSymbolRefAttr gridName = reduce   ? reduce.getGridAttr()
                                     : gather ? gather.getGridAttr()
                                              : toAll.getGridAttr();
        ArrayRef<shard::GridAxis> axes = reduce   ? reduce.getGridAxes()
                                         : gather ? gather.getGridAxes()
                                                  : toAll.getGridAxes();
        shard::GridOp grid = shard::getGridOrNull(op, gridName, symbols);
        int64_t p = 1;
        for (shard::GridAxis a : axes)
          p *= grid.getShape()[a];
        double payload = getRooflineBytes(op->getOperand(0).getType());
        // Ring algorithms: an all-reduce is a reduce-scatter and an
        // all-gather, each p - 1 steps of payload / p; an all-gather of
        // payload-sized parts is p - 1 steps of payload; an all-to-all
        // keeps 1/p of its payload and sends the rest, p - 1 steps.
        double wire = reduce   ? 2.0 * double(p - 1) / double(p) * payload
                      : gather ? double(p - 1) * payload
                               : double(p - 1) / double(p) * payload;
        double ringSteps = reduce ? 2.0 * double(p - 1) : double(p - 1);
        step.payload += payload;
        step.wire += wire;
        ++step.collectives;
        if (hasLinks && p > 1) {
          bool scaleUp = p <= spec->scaleUpDevices && spec->linkGBps > 0;
          double bw = (scaleUp ? spec->linkGBps : spec->scaleOutGBps) * 1e9;
          step.comm += wire / bw + ringSteps * spec->linkLatencyUs * 1e-6;
        }
        return WalkResult::advance();
      });
      if (walk.wasInterrupted())
        return signalPassFailure();
      double total = step.compute + step.comm;
      InFlightDiagnostic remark = func.emitRemark();
      remark << llvm::formatv(
          "scale model on {0}: {1} processes; one device {2:e3} s; per "
          "process compute {3:e3} s, {4} collectives moving {5:f0} bytes "
          "({6:f0} on the wire)",
          target.getName(), step.processes, step.oneDevice, step.compute,
          step.collectives, step.payload, step.wire);
      if (step.timed)
        remark << llvm::formatv(
            ", communication {0:e3} s; step {1:e3} s, speedup {2:f2}",
            step.comm, total, total > 0 ? step.oneDevice / total : 0.0);
      steps.push_back(step);
    }

    if (reportFile.empty())
      return;
    std::string error;
    auto file = openOutputFile(reportFile, &error);
    if (!file) {
      mlir::emitError(module.getLoc()) << "accel-scale-model: " << error;
      return signalPassFailure();
    }
    raw_ostream &os = file->os();
    os << "function\ttarget\tprocesses\tone_device_s\tcompute_s\t"
          "collectives\tpayload_bytes\twire_bytes\tcomm_s\tstep_s\tspeedup\n";
    for (const Step &s : steps) {
      double total = s.compute + s.comm;
      os << llvm::formatv("{0}\t{1}\t{2}\t{3:e4}\t{4:e4}\t{5}\t{6:f0}\t{7:f0}"
                          "\t",
                          s.name, target.getName(), s.processes, s.oneDevice,
                          s.compute, s.collectives, s.payload, s.wire);
      if (s.timed)
        os << llvm::formatv("{0:e4}\t{1:e4}\t{2:f3}\n", s.comm, total,
                            total > 0 ? s.oneDevice / total : 0.0);
      else
        os << "-\t-\t-\n";
    }
    file->keep();
  }
};
} // namespace
