//===- FuzzSupport.cpp - shared helpers of the libFuzzer targets ----------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"
#include "accel/InitAll.h"
#include "accel/Support/InputLimits.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
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

/// `text` without leading whitespace as MLIR's lexer sees it: a NUL byte
/// inside the buffer is skipped like a blank (Lexer::lexToken), so
/// "permutation\0= x" reaches the same crash as "permutation = x" (found by
/// accel-fuzz-cpu-pipeline, test/Fuzz/Inputs/pipeline-upstream-nul.bin).
static llvm::StringRef skipBlanks(llvm::StringRef text) {
  // Exactly the lexer's blanks: a vertical tab or form feed is an error
  // to it, so `permutation = \v[0, 1]` is a malformed list that reaches
  // the crash (found by accel-fuzz-cpu-pipeline when this skipped them too,
  // test/Fuzz/Inputs/pipeline-upstream-vtab.bin).
  return text.ltrim(llvm::StringRef(" \t\n\r\0", 5));
}

/// Whether `text` starts with what DenseI64ArrayAttr::parse surely takes:
/// `[` ws, integers of at most 18 digits separated by commas, `]`.
/// Anything else (comments, hex, huge numbers) counts as malformed: a
/// false "malformed" only skips an input.
static bool startsWithI64List(llvm::StringRef text) {
  if (!text.consume_front("["))
    return false;
  text = skipBlanks(text);
  if (text.consume_front("]"))
    return true;
  while (true) {
    text.consume_front("-");
    size_t digits = 0;
    while (digits < text.size() && llvm::isDigit(text[digits]))
      ++digits;
    if (digits == 0 || digits > 18)
      return false;
    text = skipBlanks(text.drop_front(digits));
    if (text.consume_front("]"))
      return true;
    if (!text.consume_front(","))
      return false;
    text = skipBlanks(text);
  }
}

bool accel_fuzz::hitsKnownUpstreamCrash(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  // 1. linalg.transpose, linalg.broadcast and linalg.reduce: their custom
  // parsers (parseDenseI64ArrayAttr in LinalgOps.cpp) store the result of
  // DenseI64ArrayAttr::parse without checking it, so a list after
  // `permutation =` or `dimensions =` that does not parse becomes a null
  // attribute and crashes in NamedAttrList::set (a null dereference).
  // test/Fuzz/upstream-linalg-dense-i64-list.mlir.
  if (text.contains("linalg.transpose") || text.contains("linalg.broadcast") ||
      text.contains("linalg.reduce")) {
    for (llvm::StringRef key : {"permutation", "dimensions"}) {
      for (size_t pos = text.find(key); pos != llvm::StringRef::npos;
           pos = text.find(key, pos + 1)) {
        llvm::StringRef rest = skipBlanks(text.drop_front(pos + key.size()));
        if (rest.consume_front("=") && !startsWithI64List(skipBlanks(rest)))
          return true;
      }
    }
  }
  // 2. tensor/memref expand_shape and collapse_shape: their verifiers
  // (getSymbolLessAffineMaps) read the first expression of every
  // reassociation group, so an empty group (`[[0, 1], []]`) is a SEGV in
  // MLIR 22, upstream mlir-opt alike (found by accel-fuzz-cpu-pipeline on
  // 2026-12-01 as `[\0]`; test/Fuzz/upstream-empty-reassociation.mlir).
  // Any empty list in such an input counts: a false match only skips it.
  if (text.contains("expand_shape") || text.contains("collapse_shape")) {
    for (size_t pos = text.find('['); pos != llvm::StringRef::npos;
         pos = text.find('[', pos + 1))
      if (skipBlanks(text.drop_front(pos + 1)).starts_with("]"))
        return true;
  }
  return false;
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
  if (failed(accel::checkInputFormat(buffer->getMemBufferRef(), llvm::nulls(),
                                     /*allowBytecode=*/false)) ||
      failed(
          accel::checkNestingDepth(buffer->getMemBufferRef(), llvm::nulls())))
    return nullptr;
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  ParserConfig config(&context, /*verifyAfterParse=*/true);
  return parseSourceFile<ModuleOp>(sourceMgr, config);
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
