//===- CpuPipelineFuzzer.cpp - libFuzzer target: the CPU pipeline ---------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel-fuzz-cpu-pipeline: parses and verifies the input as
// accel-fuzz-parse does; a valid module then goes through the passes of
// buildAccelCpuPipeline with its default options (no JIT, no code
// generation), as `accel-opt --accel-cpu-pipeline FILE` would run them. A
// pass may reject the module with a diagnostic; it must never crash, assert,
// trip a sanitizer or report an `LLVM ERROR`.
//
// Inputs over 4 KiB, and modules with a shaped type of more than 2^20
// elements or rank above 8, are skipped: the pipeline's cost grows with
// tensor sizes (constant folding, unrolled vector transfers), and one input
// must stay within libFuzzer's -timeout=10 and -rss_limit_mb=2048.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"
#include "accel/Pipelines/Pipelines.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"

static constexpr size_t kMaxInputBytes = 4096;
static constexpr uint64_t kMaxElements = uint64_t(1) << 20;
static constexpr int64_t kMaxRank = 8;

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  accel_fuzz::installFatalErrorHandler();
  (void)accel_fuzz::getRegistry();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > kMaxInputBytes || accel_fuzz::hitsKnownUpstreamCrash(data, size))
    return -1; // Not added to the corpus.
  mlir::MLIRContext context(accel_fuzz::getRegistry(),
                            mlir::MLIRContext::Threading::DISABLED);
  mlir::ScopedDiagnosticHandler swallow(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });
  mlir::OwningOpRef<mlir::ModuleOp> module =
      accel_fuzz::parseAndVerify(context, data, size);
  // Inputs that do not parse are accel-fuzz-parse's business: kept out of
  // this corpus (-1), so that mutations start from valid modules and new
  // coverage has to come from the passes rather than from parser errors.
  if (!module || accel_fuzz::hasLargeTypes(*module, kMaxElements, kMaxRank))
    return -1;
  mlir::PassManager pm(&context);
  mlir::accel::AccelCpuPipelineOptions options;
  mlir::accel::buildAccelCpuPipeline(pm, options);
  (void)pm.run(*module);
  return 0;
}
