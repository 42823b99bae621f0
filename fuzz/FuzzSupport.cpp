//===- FuzzSupport.cpp - shared helpers of the libFuzzer targets ----------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"
#include "accel/InitAll.h"
#include "accel/Support/ToolInput.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdio>
#include <cstdlib>

using namespace mlir;

/// Built into the targets so that a reproducer behaves the same whatever
/// ASAN_OPTIONS says. allow_user_poisoning=0: llvm::BumpPtrAllocator
/// poisons the rest of each new slab and unpoisons what it hands out, but
/// only where it is inlined into instrumented code. Debian's libMLIR is not
/// instrumented, so an attribute it allocates in a slab our code started
/// stays poisoned, and reading it from our code would be reported as a
/// use-after-poison that is not one.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

static void abortOnFatalError(void *, const char *reason, bool) {
  // What report_fatal_error would have printed, then a signal libFuzzer and
  // the sanitizers turn into a crash report with the stack.
  std::fprintf(stderr, "LLVM ERROR: %s\n", reason);
  std::abort();
}

void accel_fuzz::installFatalErrorHandler() {
  llvm::install_fatal_error_handler(abortOnFatalError, nullptr);
}

const DialectRegistry &accel_fuzz::getRegistry() {
  static const DialectRegistry *registry = [] {
    auto *r = new DialectRegistry();
    accel::registerAllAccelDialects(*r);
    return r;
  }();
  return *registry;
}

OwningOpRef<ModuleOp> accel_fuzz::parseAndVerify(MLIRContext &context,
                                                 const uint8_t *data,
                                                 size_t size) {
  // A copy: the text lexer needs a terminating NUL. What every tool refuses
  // before MLIR's parser sees it is refused here too, so the targets fuzz
  // what the tools accept: bytecode without --allow-bytecode (MLIR 22's
  // bytecode reader crashes on malformed input,
  // test/Fuzz/bytecode-reader-segv.test) and text nested deeper than 512
  // levels (the parser overflows the stack: 10562 nested `[` did, in this
  // harness, before it applied the check; docs/bad-input-catalogue.md, F1).
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "fuzz-input");
  // And what would crash MLIR 22 itself (a malformed linalg list, an empty
  // reassociation group): the front door is the tools' own
  // (accel::loadToolInput), so that the fuzzers test it rather than skip
  // what it guards against (they did until 2026-12-01, with a filter of
  // their own).
  accel::ToolInputOptions options;
  options.allowUnregisteredDialects = context.allowsUnregisteredDialects();
  llvm::SourceMgr sourceMgr;
  return accel::loadToolInput(std::move(buffer), sourceMgr, context,
                              llvm::nulls(), options);
}

bool accel_fuzz::hasLargeTypes(ModuleOp module, uint64_t maxElements,
                               int64_t maxRank) {
  bool large = false;
  AttrTypeWalker walker;
  walker.addWalk([&](Type type) {
    auto shaped = dyn_cast<ShapedType>(type);
    if (!shaped || !shaped.hasRank())
      return WalkResult::advance();
    if (shaped.getRank() > maxRank) {
      large = true;
      return WalkResult::interrupt();
    }
    uint64_t elements = 1;
    for (int64_t dim : shaped.getShape()) {
      if (ShapedType::isDynamic(dim) || dim == 0)
        continue;
      // Checked before multiplying: the product may not fit in 64 bits.
      if (uint64_t(dim) > maxElements / elements) {
        large = true;
        return WalkResult::interrupt();
      }
      elements *= uint64_t(dim);
    }
    return WalkResult::advance();
  });
  module->walk([&](Operation *op) {
    for (Type type : op->getResultTypes())
      if (walker.walk(type).wasInterrupted())
        return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Type type : block.getArgumentTypes())
          if (walker.walk(type).wasInterrupted())
            return WalkResult::interrupt();
    if (walker.walk(op->getAttrDictionary()).wasInterrupted())
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return large;
}
