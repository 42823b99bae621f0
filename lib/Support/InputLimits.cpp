//===- InputLimits.cpp - limits on untrusted input ------------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The nesting scan is a small lexer of its own: it only has to find the
// tokens that make MLIR's parser recurse, never to decide whether the text is
// valid. Where it cannot tell, it errs towards counting a level too many.
// A mismatched closer is ignored, so broken text can only look deeper than it
// is, and the parser stops at the first error anyway.
//
//===----------------------------------------------------------------------===//

#include "accel/Support/InputLimits.h"
#include "accel/Support/MlirTextLexer.h"
#include "accel/Support/UpstreamHazards.h"
#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <pthread.h>

using namespace mlir;
using namespace mlir::accel;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// Input format
//===----------------------------------------------------------------------===//

LogicalResult mlir::accel::checkInputFormat(llvm::MemoryBufferRef buffer,
                                            llvm::raw_ostream &os,
                                            bool allowBytecode) {
  if (allowBytecode || !isBytecode(buffer))
    return success();
  // Bytecode has no lines: reported at 0:0, as MLIR's own bytecode
  // diagnostics are.
  llvm::WithColor::error(os, (buffer.getBufferIdentifier() + ":0:0").str())
      << "MLIR bytecode is not read by default: MLIR 22's bytecode reader is "
         "not hardened against malformed input (it can crash); pass "
         "--allow-bytecode for bytecode you trust, or give MLIR text\n";
  return failure();
}

//===----------------------------------------------------------------------===//
// Nesting depth
//===----------------------------------------------------------------------===//

namespace {

class NestingScanner {
public:
  NestingScanner(StringRef text, unsigned maxDepth)
      : text(text), maxDepth(maxDepth) {}

  std::optional<NestingViolation> scan(StringRef splitMarker);

private:
  struct Group {
    char open;
    /// Operators of the expression being read in this group.
    unsigned operators;
    /// Whether this `<` opens a dialect symbol's body (`#x.y<`, `!x<`).
    bool body = false;
  };

  unsigned depth() const { return groups.size() + operators; }

  /// Records `level` (a depth reached at `offset`) and whether it is past
  /// the limit.
  bool reach(unsigned level, size_t offset, std::string reason = "") {
    if (defining)
      definitionDepth = std::max(definitionDepth, level);
    if (level <= maxDepth)
      return false;
    violation = NestingViolation{offset, std::move(reason)};
    return true;
  }

  void open(char c, bool body = false) {
    groups.push_back({c, 0, body});
    bodies += body;
  }
  void pop() {
    operators -= groups.back().operators;
    bodies -= groups.back().body;
    groups.pop_back();
  }
  void close(char c) {
    char want = c == ')' ? '(' : c == ']' ? '[' : c == '}' ? '{' : '<';
    // A `<` still open when another bracket closes was no bracket (MLIR
    // only has `<` as a bracket and in `<=`); forget it.
    if (want != '<')
      while (!groups.empty() && groups.back().open == '<')
        pop();
    if (!groups.empty() && groups.back().open == want)
      pop();
  }
  /// `,`, `=` and `:` end an expression: the affine parser has returned
  /// from the recursion of its operators by then.
  void endExpression() {
    if (groups.empty())
      return;
    operators -= groups.back().operators;
    groups.back().operators = 0;
  }
  /// An operator nests one level only in ( ) and [ ], where affine
  /// expressions are; elsewhere `-` is a sign.
  bool addOperator(size_t offset) {
    if (groups.empty() ||
        (groups.back().open != '(' && groups.back().open != '['))
      return false;
    ++groups.back().operators;
    ++operators;
    return reach(depth(), offset,
                 " (each operator of an expression nests a level)");
  }
  void endDefinition() {
    if (defining)
      aliasDepths[definedAlias] = definitionDepth;
    defining = false;
  }
  /// Resets everything but the aliases: a new part of a split input.
  void restart() {
    endDefinition();
    groups.clear();
    operators = 0;
    bodies = 0;
  }

  StringRef text;
  unsigned maxDepth;
  llvm::SmallVector<Group> groups;
  /// The sum of the groups' operators.
  unsigned operators = 0;
  /// How many of the groups are dialect symbol bodies.
  unsigned bodies = 0;
  /// Aliases ("#name", "!name") and how deep their definitions nest.
  llvm::StringMap<unsigned> aliasDepths;
  bool defining = false;
  /// Whether the definition being read has a token after its `=` yet.
  bool definitionHasValue = false;
  std::string definedAlias;
  unsigned definitionDepth = 0;
  std::optional<NestingViolation> violation;
};

} // namespace

std::optional<NestingViolation> NestingScanner::scan(StringRef splitMarker) {
  MlirTextLexer lexer(text, splitMarker);
  while (!violation) {
    // (In a dialect symbol's body there are no comments, and every `<` and
    // `>` is a bracket to MLIR's scan for its end.)
    MlirToken tok = lexer.next(/*inBody=*/bodies != 0);
    if (tok.kind == MlirToken::Eof)
      break;
    if (tok.kind == MlirToken::SplitMarker) {
      restart();
      continue;
    }
    // An alias definition ends with its line, once its value is complete.
    if (tok.startsLine && defining && definitionHasValue && groups.empty())
      endDefinition();
    if (defining && !tok.isPunct("="))
      definitionHasValue = true;
    StringRef s = tok.spelling;
    switch (tok.kind) {
    case MlirToken::Punct:
      if (s == "(" || s == "[" || s == "{" || s == "<") {
        open(s.front());
        reach(depth(), tok.offset);
      } else if (s == ")" || s == "]" || s == "}" || s == ">") {
        close(s.front());
      } else if (s == "-" || s == "+" || s == "*") {
        addOperator(tok.offset);
      } else if (s == "," || s == "=" || s == ":" || s == "<=" || s == ">=") {
        endExpression();
      }
      // `->` of a function type or an affine map is no operator.
      break;
    case MlirToken::BareId:
      if (s == "floordiv" || s == "ceildiv" || s == "mod")
        addOperator(tok.offset);
      break;
    case MlirToken::Name: {
      char sigil = s.front();
      if (sigil != '#' && sigil != '!')
        break; // values, blocks and symbols
      // A body right after the name (`#linalg.iterator_type<parallel>`,
      // `!llvm.ptr<1>`): a `<` level that knows no comments.
      if (lexer.peek() == '<') {
        size_t at = lexer.position();
        lexer.consumeIf('<');
        open('<', /*body=*/true);
        reach(depth(), at);
        break;
      }
      // Dialect attributes and types (#llvm.x, !llvm.ptr) are no aliases;
      // alias names have no dot.
      if (s.size() == 1 || s.contains('.'))
        break;
      StringRef rest = lexer.rest().ltrim(" \t");
      if (groups.empty() && rest.starts_with("=") && !rest.starts_with("==")) {
        endDefinition();
        defining = true;
        definitionHasValue = false;
        definedAlias = s.str();
        definitionDepth = 0;
        break;
      }
      auto it = aliasDepths.find(s);
      if (it != aliasDepths.end())
        reach(depth() + it->second, tok.offset,
              (" (through the alias " + s + ")").str());
      break;
    }
    default:
      // Numbers (with the sign of an exponent: no operator), strings
      // (brackets in them are text) and bytes MLIR does not take.
      break;
    }
  }
  return violation;
}

std::optional<NestingViolation>
mlir::accel::findExcessiveNesting(StringRef text, unsigned maxDepth,
                                  StringRef splitMarker) {
  return NestingScanner(text, maxDepth).scan(splitMarker);
}

/// The calling thread's stack size in bytes (0 when unknown), rounded up
/// to 256 KiB: glibc reports the main thread's stack a few KiB short of
/// `ulimit -s` (1020 KiB for 1024).
static size_t thisThreadStackBytes() {
  size_t stackBytes = 0;
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    (void)pthread_attr_getstacksize(&attr, &stackBytes);
    pthread_attr_destroy(&attr);
  }
  return llvm::alignTo(stackBytes, size_t(256) << 10);
}

unsigned mlir::accel::nestingLimitForThisThread(unsigned maxDepth) {
  size_t stackBytes = thisThreadStackBytes();
  if (stackBytes == 0 || stackBytes >= kNestingLimitStackBytes)
    return maxDepth;
  uint64_t scaled = uint64_t(maxDepth) * stackBytes / kNestingLimitStackBytes;
  return std::min<uint64_t>(maxDepth, std::max<uint64_t>(scaled, 16));
}

/// " (the most this thread's N KiB stack takes)" when `limit` is below
/// `maxDepth`, which only the stack makes it; else nothing.
static std::string stackNote(unsigned limit, unsigned maxDepth) {
  if (limit >= maxDepth)
    return "";
  return (" (the most this thread's " +
          llvm::Twine(thisThreadStackBytes() >> 10) + " KiB stack takes)")
      .str();
}

void mlir::accel::printTextError(llvm::MemoryBufferRef buffer, size_t offset,
                                 const llvm::Twine &message,
                                 llvm::raw_ostream &os) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(buffer, /*RequiresNullTerminator=*/
                                       false),
      llvm::SMLoc());
  offset = std::min(offset, buffer.getBufferSize());
  llvm::SMLoc loc =
      llvm::SMLoc::getFromPointer(buffer.getBufferStart() + offset);
  // Deep or generated input is often one long line: show it only when it
  // is short, as MLIR's own diagnostics would print all of it.
  StringRef text = buffer.getBuffer();
  size_t lineBegin = text.rfind('\n', offset);
  lineBegin = lineBegin == StringRef::npos ? 0 : lineBegin + 1;
  size_t lineEnd = std::min(text.find('\n', offset), text.size());
  if (lineEnd - lineBegin <= 200) {
    sourceMgr.PrintMessage(os, loc, llvm::SourceMgr::DK_Error, message);
    return;
  }
  auto [line, column] = sourceMgr.getLineAndColumn(loc);
  llvm::WithColor::error(os, (buffer.getBufferIdentifier() + ":" +
                              llvm::Twine(line) + ":" + llvm::Twine(column))
                                 .str())
      << message << "\n";
}

LogicalResult mlir::accel::checkNestingDepth(llvm::MemoryBufferRef buffer,
                                             llvm::raw_ostream &os,
                                             unsigned maxDepth,
                                             StringRef splitMarker) {
  if (isBytecode(buffer))
    return success();
  unsigned limit = nestingLimitForThisThread(maxDepth);
  std::optional<NestingViolation> violation =
      findExcessiveNesting(buffer.getBuffer(), limit, splitMarker);
  if (!violation)
    return success();
  printTextError(buffer, violation->offset,
                 "nesting deeper than " + llvm::Twine(limit) + " levels" +
                     violation->reason + stackNote(limit, maxDepth),
                 os);
  return failure();
}

//===----------------------------------------------------------------------===//
// Nesting depth of MLIR bytecode
//===----------------------------------------------------------------------===//

namespace {

/// An attribute or a type, by its uniqued storage.
struct SubElement {
  const void *ptr;
  bool isType;
};

/// How deep attributes and types nest, measured without recursion (the
/// point is to survive 10^5 levels) and memoized (uniqued values are shared
/// between ops and inside each other).
class SubElementDepths {
public:
  /// 1 for an attribute or type with no sub-elements, else 1 + the deepest
  /// of its immediate sub-elements. A value met again while it is being
  /// measured (a recursive type refers to itself) counts 0 there.
  unsigned of(Attribute attr) {
    return attr ? of({attr.getAsOpaquePointer(), false}) : 0;
  }
  unsigned of(Type type) {
    return type ? of({type.getAsOpaquePointer(), true}) : 0;
  }

private:
  struct Frame {
    const void *ptr;
    SmallVector<SubElement, 4> children;
    size_t next = 0;
    unsigned deepest = 0;
  };

  static SmallVector<SubElement, 4> childrenOf(SubElement e) {
    SmallVector<SubElement, 4> children;
    auto onAttr = [&](Attribute a) {
      children.push_back({a.getAsOpaquePointer(), false});
    };
    auto onType = [&](Type t) {
      children.push_back({t.getAsOpaquePointer(), true});
    };
    if (e.isType)
      Type::getFromOpaquePointer(e.ptr).walkImmediateSubElements(onAttr,
                                                                 onType);
    else
      Attribute::getFromOpaquePointer(e.ptr).walkImmediateSubElements(onAttr,
                                                                      onType);
    return children;
  }

  unsigned of(SubElement root) {
    if (auto it = depths.find(root.ptr); it != depths.end())
      return it->second;
    depths[root.ptr] = 0;
    SmallVector<Frame> stack;
    stack.push_back({root.ptr, childrenOf(root)});
    while (!stack.empty()) {
      Frame &top = stack.back();
      if (top.next < top.children.size()) {
        SubElement child = top.children[top.next++];
        if (auto it = depths.find(child.ptr); it != depths.end()) {
          top.deepest = std::max(top.deepest, it->second);
          continue;
        }
        depths[child.ptr] = 0;
        // `top` is invalid once the stack grows.
        stack.push_back({child.ptr, childrenOf(child)});
        continue;
      }
      unsigned depth = top.deepest + 1;
      depths[top.ptr] = depth;
      stack.pop_back();
      if (!stack.empty())
        stack.back().deepest = std::max(stack.back().deepest, depth);
    }
    return depths[root.ptr];
  }

  llvm::DenseMap<const void *, unsigned> depths;
};

/// Ops of `block` and everything nested in them, parents before children.
SmallVector<Operation *> opsInPreorder(Block &block) {
  SmallVector<Operation *> order, stack;
  for (Operation &op : llvm::reverse(block))
    stack.push_back(&op);
  while (!stack.empty()) {
    Operation *op = stack.pop_back_val();
    order.push_back(op);
    for (Region &region : llvm::reverse(op->getRegions()))
      for (Block &inner : llvm::reverse(region))
        for (Operation &child : llvm::reverse(inner))
          stack.push_back(&child);
  }
  return order;
}

/// Frees what `block` holds without recursing into regions (Operation's
/// destructor recurses once per level): every use is dropped, then each op
/// is erased after everything nested in it.
void destroyWithoutRecursion(Block &block) {
  SmallVector<Operation *> order = opsInPreorder(block);
  for (Operation *op : order) {
    for (OpOperand &operand : op->getOpOperands())
      operand.drop();
    for (BlockOperand &successor : op->getBlockOperands())
      successor.drop();
  }
  for (Operation *op : llvm::reverse(order))
    op->erase();
}

/// "FILE:LINE:COL" of a file location, else "an unknown location". Other
/// locations are not printed: a location can itself be nested deeply.
std::string describeLocation(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return (file.getFilename().getValue() + ":" + llvm::Twine(file.getLine()) +
            ":" + llvm::Twine(file.getColumn()))
        .str();
  return "an unknown location";
}

/// What checkBytecodeNesting measures, on the thread it makes: the reader
/// still recurses once per op level (measured: ~100 bytes of stack a level;
/// 20000 nested modules need 2 MiB), so it gets a stack sized by the input.
struct BytecodeNestingCheck {
  llvm::MemoryBufferRef buffer;
  const DialectRegistry *registry;
  bool allowUnregisteredDialects;
  unsigned maxDepth;
  /// Empty, or the error: what is nested too deeply and where, or why the
  /// bytecode does not read.
  std::string violation;
  /// Whether `violation` is printed as it is (the reader's own error, or
  /// an op findVerifierHazard refuses) rather than as a nesting violation.
  bool unreadable = false;

  void run() {
    MLIRContext context(*registry, MLIRContext::Threading::DISABLED);
    context.allowUnregisteredDialects(allowUnregisteredDialects);
    // The reader's first error, which refuses the input: bytecode that does
    // not read here would be read again by the tool, on its own stack, as
    // deep as it goes before the error (a truncated file).
    ScopedDiagnosticHandler firstError(&context, [&](Diagnostic &diag) {
      if (diag.getSeverity() == DiagnosticSeverity::Error &&
          violation.empty()) {
        violation = diag.str();
        unreadable = true;
      }
      return success();
    });
    Block block;
    ParserConfig config(&context, /*verifyAfterParse=*/false);
    if (succeeded(readBytecodeFile(buffer, &block, config)))
      measure(block);
    else if (violation.empty()) {
      violation = "the bytecode does not read";
      unreadable = true;
    }
    destroyWithoutRecursion(block);
  }

  void measure(Block &block) {
    SubElementDepths subElements;
    // Depth of each op: 1 at the top, one more per enclosing op.
    SmallVector<std::pair<Operation *, unsigned>> worklist;
    for (Operation &op : block)
      worklist.push_back({&op, 1});
    while (!worklist.empty()) {
      auto [op, depth] = worklist.pop_back_val();
      if (depth > maxDepth) {
        violation = ("an op inside " + llvm::Twine(depth - 1) +
                     " nested ops, at " + describeLocation(op->getLoc()))
                        .str();
        return;
      }
      // An op MLIR 22's verifier would crash on (UpstreamHazards.h): the
      // tool verifies what it reads, so it is refused here, where the IR
      // is at hand.
      if (std::optional<std::string> hazard = findVerifierHazard(op)) {
        violation = *hazard + " (at " + describeLocation(op->getLoc()) + ")";
        unreadable = true;
        return;
      }
      unsigned deepest = std::max(subElements.of(op->getAttrDictionary()),
                                  subElements.of(Attribute(op->getLoc())));
      for (Type type : op->getResultTypes())
        deepest = std::max(deepest, subElements.of(type));
      for (Region &region : op->getRegions())
        for (Block &inner : region) {
          for (BlockArgument arg : inner.getArguments())
            deepest = std::max(deepest, subElements.of(arg.getType()));
          for (Operation &child : inner)
            worklist.push_back({&child, depth + 1});
        }
      if (deepest > maxDepth) {
        violation = ("attributes or types " + llvm::Twine(deepest) +
                     " levels deep in a " + op->getName().getStringRef() +
                     ", at " + describeLocation(op->getLoc()))
                        .str();
        return;
      }
    }
  }
};

void *runBytecodeNestingCheck(void *check) {
  static_cast<BytecodeNestingCheck *>(check)->run();
  return nullptr;
}

} // namespace

LogicalResult mlir::accel::checkBytecodeNesting(llvm::MemoryBufferRef buffer,
                                                const DialectRegistry &registry,
                                                llvm::raw_ostream &os,
                                                bool allowUnregisteredDialects,
                                                unsigned maxDepth) {
  if (!isBytecode(buffer))
    return success();
  // The limit of the thread that verifies and prints what is read.
  unsigned limit = nestingLimitForThisThread(maxDepth);
  BytecodeNestingCheck check{
      buffer, &registry, allowUnregisteredDialects, limit, {}};
  // 32 bytes of stack per byte of input, 64 MiB at least: a level of op
  // nesting takes ~20 bytes of bytecode and ~100 bytes of the reader's
  // stack, so a 3x margin for bytecode that is all nesting. Only what is
  // touched gets memory. Where so much cannot be reserved, less is tried.
  uint64_t stackBytes = std::max<uint64_t>(
      uint64_t(64) << 20,
      std::min<uint64_t>(uint64_t(buffer.getBufferSize()) * 32, uint64_t(8)
                                                                    << 30));
  bool ran = false;
  for (; stackBytes >= (uint64_t(64) << 20); stackBytes /= 2) {
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0)
      break;
    pthread_t thread;
    bool started =
        pthread_attr_setstacksize(&attr, size_t(stackBytes)) == 0 &&
        pthread_create(&thread, &attr, runBytecodeNestingCheck, &check) == 0;
    pthread_attr_destroy(&attr);
    if (started) {
      // A failed join leaves the thread's state unknown: no second try.
      ran = pthread_join(thread, nullptr) == 0;
      break;
    }
  }
  // Bytecode has no lines: reported at 0:0, as MLIR's own bytecode
  // diagnostics are.
  std::string where = (buffer.getBufferIdentifier() + ":0:0").str();
  if (!ran) {
    // The tool's own read would recurse on a stack this could not provide.
    llvm::WithColor::error(os, where)
        << "cannot check the nesting of MLIR bytecode: no thread with a "
           "stack of 64 MiB or more could be started\n";
    return failure();
  }
  if (check.violation.empty())
    return success();
  if (check.unreadable)
    llvm::WithColor::error(os, where) << check.violation << "\n";
  else
    llvm::WithColor::error(os, where)
        << "nesting deeper than " << limit
        << " levels (MLIR bytecode: " << check.violation << ")"
        << stackNote(limit, maxDepth) << "\n";
  return failure();
}

//===----------------------------------------------------------------------===//
// Tensor sizes
//===----------------------------------------------------------------------===//

namespace {

constexpr uint64_t kSaturated = UINT64_MAX;

/// Bytes of one element of type `t` (see getStaticByteSize).
uint64_t elementBytes(Type t) {
  if (t.isIntOrFloat())
    return std::max<uint64_t>(1,
                              llvm::divideCeil(t.getIntOrFloatBitWidth(), 8));
  if (isa<IndexType>(t))
    return 8;
  if (auto complex = dyn_cast<ComplexType>(t))
    return llvm::SaturatingMultiply<uint64_t>(
        2, elementBytes(complex.getElementType()));
  if (auto shaped = dyn_cast<ShapedType>(t))
    if (std::optional<uint64_t> bytes = getStaticByteSize(shaped))
      return *bytes;
  return 1;
}

std::string describeBytes(uint64_t bytes) {
  if (bytes == kSaturated)
    return "2^64 bytes or more";
  return (llvm::Twine(bytes) + " bytes").str();
}

/// Walks one op's constants and types against the limits; emits the first
/// error and stops.
class SizeChecker {
public:
  SizeChecker(const TensorSizeLimits &limits, bool checkTypes)
      : limits(limits), checkTypes(checkTypes) {}

  LogicalResult check(Operation *root) {
    // The location says which op; printing it (a whole function, for a
    // function's signature) would only bury the message.
    MLIRContext *context = root->getContext();
    bool printOp = context->shouldPrintOpOnDiagnostic();
    context->printOpOnDiagnostic(false);
    // Constants first, all of them: they are what a compiler materializes,
    // so a huge one is reported as a constant even when a signature also
    // has its type. Then types in pre-order: a signature before its body.
    WalkResult result = root->walk([&](Operation *op) {
      return failed(checkConstants(op)) ? WalkResult::interrupt()
                                        : WalkResult::advance();
    });
    if (!result.wasInterrupted() && checkTypes)
      result = root->walk<WalkOrder::PreOrder>([&](Operation *op) {
        return failed(checkTypesOf(op)) ? WalkResult::interrupt()
                                        : WalkResult::advance();
      });
    context->printOpOnDiagnostic(printOp);
    return failure(result.wasInterrupted());
  }

private:
  LogicalResult checkConstants(Operation *op) {
    for (NamedAttribute attr : op->getAttrs()) {
      WalkResult result = attr.getValue().walk([&](ElementsAttr constant) {
        return failed(checkConstant(op, attr.getName(), constant))
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      });
      if (result.wasInterrupted())
        return failure();
    }
    return success();
  }

  LogicalResult checkTypesOf(Operation *op) {
    for (NamedAttribute attr : op->getAttrs()) {
      WalkResult result = attr.getValue().walk([&](ShapedType type) {
        return failed(checkType(type,
                                [&]() {
                                  return op->emitOpError()
                                         << "has " << type
                                         << " in its attribute '"
                                         << attr.getName().getValue() << "'";
                                }))
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      });
      if (result.wasInterrupted())
        return failure();
    }
    for (OpResult value : op->getResults())
      if (failed(checkValueType(value.getType(), [&](ShapedType type) {
            return op->emitOpError() << "result #" << value.getResultNumber()
                                     << " has type " << type;
          })))
        return failure();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (failed(checkValueType(arg.getType(), [&](ShapedType type) {
                return emitError(arg.getLoc())
                       << "block argument #" << arg.getArgNumber() << " of '"
                       << op->getName() << "' has type " << type;
              })))
            return failure();
    return success();
  }

  LogicalResult checkConstant(Operation *op, StringAttr name,
                              ElementsAttr constant) {
    std::optional<uint64_t> bytes = getStaticByteSize(constant.getShapedType());
    if (!bytes)
      return success();
    total = llvm::SaturatingAdd(total, *bytes);
    if (total <= limits.maxConstantBytes)
      return success();
    InFlightDiagnostic diag = op->emitOpError();
    diag << "has a constant of type " << constant.getShapedType()
         << " in its attribute '" << name.getValue()
         << "': " << describeBytes(*bytes);
    if (*bytes != total)
      diag << ", " << describeBytes(total) << " of constants in all";
    diag << ", over the limit of " << limits.maxConstantBytes
         << " bytes (--max-constant-bytes)";
    return failure();
  }

  /// Checks every shaped type in `type` (a tuple or function type holds
  /// several).
  LogicalResult
  checkValueType(Type type,
                 llvm::function_ref<InFlightDiagnostic(ShapedType)> report) {
    WalkResult result = type.walk([&](ShapedType shaped) {
      return failed(checkType(shaped, [&]() { return report(shaped); }))
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    });
    return failure(result.wasInterrupted());
  }

  LogicalResult checkType(ShapedType type,
                          llvm::function_ref<InFlightDiagnostic()> report) {
    std::optional<uint64_t> bytes = getStaticByteSize(type);
    if (!bytes || *bytes <= limits.maxTensorBytes)
      return success();
    report() << ": " << describeBytes(*bytes) << ", over the limit of "
             << limits.maxTensorBytes << " bytes (--max-tensor-bytes)";
    return failure();
  }

  const TensorSizeLimits &limits;
  bool checkTypes;
  uint64_t total = 0;
};

} // namespace

std::optional<uint64_t> mlir::accel::getStaticByteSize(ShapedType type) {
  if (!type.hasRank() || !type.hasStaticShape())
    return std::nullopt;
  uint64_t bytes = elementBytes(type.getElementType());
  for (int64_t dim : type.getShape()) {
    bytes = llvm::SaturatingMultiply(bytes, uint64_t(dim));
    if (bytes == 0)
      return 0;
  }
  return bytes;
}

LogicalResult mlir::accel::checkTensorSizes(Operation *root,
                                            const TensorSizeLimits &limits) {
  return SizeChecker(limits, /*checkTypes=*/true).check(root);
}

LogicalResult mlir::accel::checkConstantSizes(Operation *root,
                                              uint64_t maxConstantBytes) {
  TensorSizeLimits limits;
  limits.maxConstantBytes = maxConstantBytes;
  return SizeChecker(limits, /*checkTypes=*/false).check(root);
}
