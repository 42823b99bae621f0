//===- GpuConfigure.cpp - accel-gpu-configure -----------------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The configuration stage of the GPU targets: attaches an
// #accel.lowering_config to every matmul and attention that
// convert-accel-to-gpu compiles (the top-level ops of public functions),
// chosen by KernelConfig.cpp for the chip; an op that has one keeps it,
// completed and checked. A dequant_matmul is checked (planGpuDequant) and
// gets none.
//
//===----------------------------------------------------------------------===//

#include "KernelConfig.h"
#include "accel/Conversion/AccelToGPU/AccelToGPU.h"
#include "accel/Dialect/Accel/IR/AccelAttrs.h"
#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELGPUCONFIGUREPASS
#include "accel/Conversion/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;
using namespace mlir::accel;

FailureOr<GemmKernel>
mlir::accel::planGpuMatmul(MatmulOp mm, const GpuTargetInfo &target,
                           const GpuConfigOverrides &options) {
  // The op, then its config.
  FailureOr<GemmKernel> k = analyzeGpuMatmul(mm, target);
  if (failed(k))
    return failure();
  FailureOr<GpuConfigOverrides> o = getGpuOverrides(mm, target, options);
  if (failed(o) || failed(configureGpuMatmul(mm, *k, target, *o)))
    return failure();
  return k;
}

FailureOr<AttentionPlan>
mlir::accel::planGpuAttention(AttentionOp op, const GpuTargetInfo &target,
                              const GpuConfigOverrides &options) {
  FailureOr<AttentionPlan> k = analyzeGpuAttention(op, target);
  if (failed(k))
    return failure();
  FailureOr<GpuConfigOverrides> o = getGpuOverrides(op, target, options);
  if (failed(o) || failed(configureGpuAttention(op, *k, target, *o)))
    return failure();
  return k;
}

FailureOr<LoweringConfigAttr>
mlir::accel::configureGpuOp(Operation *op, const GpuTargetInfo &target,
                            const GpuConfigOverrides &options) {
  MLIRContext *ctx = op->getContext();
  if (auto mm = dyn_cast<MatmulOp>(op)) {
    FailureOr<GemmKernel> k = planGpuMatmul(mm, target, options);
    if (failed(k))
      return failure();
    return getGpuMatmulConfigAttr(ctx, *k, target);
  }
  FailureOr<AttentionPlan> k =
      planGpuAttention(cast<AttentionOp>(op), target, options);
  if (failed(k))
    return failure();
  return getGpuAttentionConfigAttr(ctx, *k, target);
}

namespace {

struct AccelGpuConfigurePass
    : public mlir::accel::impl::AccelGpuConfigurePassBase<
          AccelGpuConfigurePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    GpuConfigOverrides options = GpuConfigOverrides::fromOptions(
        mma, tileM, tileN, tileK, warps, stages);
    std::unique_ptr<GpuTargetInfo> target =
        setUpGpuPass(module, chip, "accel-gpu-configure", options);
    if (!target)
      return signalPassFailure();
    for (auto func : module.getOps<func::FuncOp>()) {
      if (!func.isPublic() || func.isExternal())
        continue;
      if (failed(checkGpuKernelFunction(func)))
        return signalPassFailure();
      for (Operation &op : func.getBody().front()) {
        // A dequant_matmul's kernel has nothing a config would record
        // (planGpuDequant chooses it from the shape); it is checked here,
        // so that both passes refuse the same ops.
        if (auto dq = dyn_cast<DequantMatmulOp>(op)) {
          if (failed(planGpuDequant(dq, *target)))
            return signalPassFailure();
          continue;
        }
        // So is a paged_attention's (planGpuPagedAttention).
        if (auto paged = dyn_cast<PagedAttentionOp>(op)) {
          if (failed(planGpuPagedAttention(paged, *target)))
            return signalPassFailure();
          continue;
        }
        if (!isa<MatmulOp, AttentionOp>(op))
          continue;
        FailureOr<LoweringConfigAttr> config =
            configureGpuOp(&op, *target, options);
        if (failed(config))
          return signalPassFailure();
        op.setAttr(kLoweringConfigAttrName, *config);
      }
    }
  }
};

} // namespace
