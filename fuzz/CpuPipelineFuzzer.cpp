//===- CpuPipelineFuzzer.cpp - libFuzzer target: the CPU pipeline ---------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel-fuzz-cpu-pipeline: parses and verifies the input as
// accel-fuzz-parse does; a valid module then goes through the passes of
// buildAccelCpuPipeline as accel-compile runs it (no JIT, no code
// generation): the default options plus guard-allocations with accel-compile's
// 16 GiB limit, so the allocation checks run too (`accel-opt
// --accel-cpu-pipeline="guard-allocations=1 max-allocation-bytes=17179869184"
// FILE`). A pass may reject the module with a diagnostic; it must never
// crash, assert, trip a sanitizer or report an `LLVM ERROR`.
//
// Inputs over 4 KiB, and modules with a shaped type of more than 2^20
// elements or rank above 8, are skipped: the pipeline's cost grows with
// tensor sizes (constant folding, unrolled vector transfers), and one input
// must stay within libFuzzer's -timeout=10 and -rss_limit_mb=2048.
//
// One MLIRContext and one PassManager serve ACCEL_FUZZ_CONTEXT_INPUTS
// inputs in a row (default 256), then are replaced; 1 gives each input a
// fresh context. A fresh context per input loads again every dialect the
// input and the pipeline use (docs/reliability.md, "Fuzzing", measures the
// cost). Reusing it keeps the inputs independent in what they compute
// (each input is its own module, and passes keep no state between runs)
// but not in what the context interns: a crash that needs an earlier
// input's attributes or types may not reproduce alone. Run a reproducer
// with ACCEL_FUZZ_CONTEXT_INPUTS=1 to check, and with the inputs of the
// crashing run (libFuzzer's log) otherwise. An input with resource blobs,
// which the context keeps by name, gets a context of its own.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"
#include "accel/Pipelines/Pipelines.h"
#include "accel/Support/InputLimits.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringRef.h"
#include <cstdio>
#include <cstdlib>
#include <memory>

static constexpr size_t kMaxInputBytes = 4096;
static constexpr uint64_t kMaxElements = uint64_t(1) << 20;
static constexpr int64_t kMaxRank = 8;

namespace {
/// The context and pass manager the next inputs share.
struct Session {
  Session()
      : context(accel_fuzz::getRegistry(),
                mlir::MLIRContext::Threading::DISABLED),
        pm(&context) {
    mlir::accel::AccelCpuPipelineOptions options;
    options.guardAllocations = true;
    options.maxAllocationBytes = mlir::accel::kDefaultMaxTensorBytes;
    mlir::accel::buildAccelCpuPipeline(pm, options);
  }
  mlir::MLIRContext context;
  mlir::PassManager pm;
  unsigned inputs = 0;
};

unsigned inputsPerContext() {
  static const unsigned n = [] {
    const char *text = std::getenv("ACCEL_FUZZ_CONTEXT_INPUTS");
    unsigned value = 256;
    if (text && (llvm::StringRef(text).getAsInteger(10, value) || value == 0)) {
      std::fprintf(stderr,
                   "accel-fuzz-cpu-pipeline: ACCEL_FUZZ_CONTEXT_INPUTS "
                   "must be a positive integer, got '%s'\n",
                   text);
      std::exit(2);
    }
    return value;
  }();
  return n;
}

std::unique_ptr<Session> session;
} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  accel_fuzz::installFatalErrorHandler();
  (void)accel_fuzz::getRegistry();
  (void)inputsPerContext();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > kMaxInputBytes)
    return -1; // Not added to the corpus.
  // Resource blobs (`{-# dialect_resources ... #-}`, `dense_resource<>`)
  // are kept by name in the context: an input with any gets a context of
  // its own, so no later input sees its blobs.
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  bool ownContext = text.contains("{-#") || text.contains("dense_resource");
  if (!session || session->inputs >= inputsPerContext() || ownContext)
    session = std::make_unique<Session>();
  ++session->inputs;
  if (ownContext)
    session->inputs = inputsPerContext();
  mlir::MLIRContext &context = session->context;
  mlir::ScopedDiagnosticHandler swallow(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });
  mlir::OwningOpRef<mlir::ModuleOp> module =
      accel_fuzz::parseAndVerify(context, data, size);
  // Inputs that do not parse are accel-fuzz-parse's business: kept out of
  // this corpus (-1), so that mutations start from valid modules and new
  // coverage has to come from the passes rather than from parser errors.
  if (!module || accel_fuzz::hasLargeTypes(*module, kMaxElements, kMaxRank))
    return -1;
  (void)session->pm.run(*module);
  return 0;
}
