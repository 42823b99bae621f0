//===- UpstreamHazards.cpp - input that crashes MLIR 22 itself ------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The list check reads the text through MlirTextLexer.h, the scanner the
// nesting check uses too, which splits it into tokens as MLIR's lexer does
// where it matters here (a vertical tab is an error token, so `= \v[0]` is a
// malformed list: the fuzzer found that; `%dimensions` is no keyword; a `//`
// inside a dialect attribute's body cannot hide what the outer parser reads
// after it: a review found the last two gaps).
//
//===----------------------------------------------------------------------===//

#include "accel/Support/UpstreamHazards.h"
#include "accel/Support/InputLimits.h"
#include "accel/Support/MlirTextLexer.h"
#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/IR/Block.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/ToolUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::accel;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// Parser hazard: linalg's integer lists
//===----------------------------------------------------------------------===//

namespace {

using Token = MlirToken;

/// Reads MLIR text as MLIR's parser reads it here: a dialect attribute or
/// type with a body right after its name (`#linalg.iterator_type<parallel>`)
/// is one token, its body included, since MLIR finds the body's end by its
/// brackets and strings alone and the outer parser goes on after it.
class Lexer {
public:
  explicit Lexer(StringRef text) : lexer(text) {}
  Token next() {
    Token tok = lexer.next();
    if (tok.kind == Token::Name && (tok.spelling[0] == '#' ||
                                    tok.spelling[0] == '!') &&
        lexer.peek() == '<') {
      lexer.skipDialectBody();
      tok.spelling = lexer.getText().slice(tok.offset, lexer.position());
    }
    return tok;
  }

private:
  MlirTextLexer lexer;
};

/// Whether `tok` is an integer DenseI64ArrayAttr::parse surely takes.
bool isSafeInteger(const Token &tok) {
  return tok.kind == Token::Number && !tok.spelling.empty() &&
         tok.spelling.size() <= 18 &&
         llvm::all_of(tok.spelling, llvm::isDigit);
}

/// Reads the list after `keyword =` from `lexer`; the token that breaks
/// it, or nullopt when the list is one the parser takes.
std::optional<Token> readI64List(Lexer &lexer) {
  Token tok = lexer.next();
  if (!tok.isPunct("["))
    return tok;
  tok = lexer.next();
  if (tok.isPunct("]"))
    return std::nullopt;
  while (true) {
    if (tok.isPunct("-"))
      tok = lexer.next();
    if (!isSafeInteger(tok))
      return tok;
    tok = lexer.next();
    if (tok.isPunct("]"))
      return std::nullopt;
    if (!tok.isPunct(","))
      return tok;
    tok = lexer.next();
  }
}

std::string describe(const Token &tok) {
  if (tok.kind == Token::Eof)
    return "the end of the input";
  if (tok.kind == Token::Error)
    return "a character MLIR's lexer does not take (byte 0x" +
           llvm::utohexstr(uint8_t(tok.spelling.front()), /*LowerCase=*/true,
                           /*Width=*/2) +
           ")";
  StringRef shown = tok.spelling.take_front(40);
  return ("'" + shown + (shown.size() < tok.spelling.size() ? "...'" : "'"))
      .str();
}

} // namespace

std::optional<TextHazard>
mlir::accel::findMalformedLinalgList(StringRef text) {
  Lexer lexer(text);
  // The token before the current one (none at the start).
  Token before{Token::Eof, StringRef(), 0, true};
  Token current = lexer.next();
  while (current.kind != Token::Eof) {
    Token next = lexer.next();
    bool isKeyword =
        current.kind == Token::BareId &&
        (current.spelling == "permutation" || current.spelling == "dimensions");
    bool inDictionary = before.isPunct("{") || before.isPunct(",");
    if (isKeyword && !inDictionary && next.isPunct("=")) {
      std::optional<Token> bad = readI64List(lexer);
      if (bad) {
        return TextHazard{
            bad->kind == Token::Eof ? current.offset : bad->offset,
            ("malformed `" + current.spelling + "` list: expected '[', "
             "integers separated by ',' and ']' (as in `" +
             current.spelling + " = [1, 0]`), found " + describe(*bad) +
             "; refused before MLIR 22's linalg parser sees it, which "
             "crashes on such a list")
                .str()};
      }
      // The list was read: go on after it.
      before = next;
      current = lexer.next();
      continue;
    }
    before = current;
    current = next;
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Verifier hazard: empty reassociation groups
//===----------------------------------------------------------------------===//

std::optional<std::string> mlir::accel::findVerifierHazard(Operation *op) {
  StringRef name = op->getName().getStringRef();
  if (name != "tensor.expand_shape" && name != "tensor.collapse_shape" &&
      name != "memref.expand_shape" && name != "memref.collapse_shape")
    return std::nullopt;
  std::optional<Attribute> reassociation =
      op->getInherentAttr("reassociation");
  auto groups =
      reassociation ? dyn_cast_or_null<ArrayAttr>(*reassociation) : ArrayAttr();
  if (!groups)
    return std::nullopt;
  for (auto [i, group] : llvm::enumerate(groups)) {
    auto indices = dyn_cast<ArrayAttr>(group);
    if (indices && indices.empty())
      return ("'" + name + "' op reassociation group " + llvm::Twine(i) +
              " is empty: every group names at least one dimension" +
              (name == "tensor.expand_shape"
                   ? " (refused before MLIR 22's verifier sees it, which "
                     "crashes on an empty group)"
                   : ""))
          .str();
  }
  return std::nullopt;
}

namespace {

/// Parses one part of the input without verifying, in a scratch context,
/// and reports the first op findVerifierHazard names, as MLIR would report
/// an error on it.
LogicalResult checkPart(std::unique_ptr<llvm::MemoryBuffer> part,
                        llvm::MemoryBufferRef whole,
                        const DialectRegistry &registry, llvm::raw_ostream &os,
                        bool allowUnregisteredDialects) {
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.allowUnregisteredDialects(allowUnregisteredDialects);
  context.printOpOnDiagnostic(false);
  // As MLIR's own tools do it: the whole input first, then the part, which
  // lies inside the whole input's memory (a part of a split is a view, not
  // a copy), so that errors point at lines of the whole input.
  llvm::SourceMgr sourceMgr;
  if (part->getBufferStart() != whole.getBufferStart() ||
      part->getBufferSize() != whole.getBufferSize())
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBuffer(whole,
                                         /*RequiresNullTerminator=*/false),
        llvm::SMLoc());
  sourceMgr.AddNewSourceBuffer(std::move(part), llvm::SMLoc());
  Block block;
  {
    // A part that does not parse passes: the tool's own parse stops at the
    // same error, before it verifies anything, and reports it.
    ScopedDiagnosticHandler quiet(&context,
                                  [](Diagnostic &) { return success(); });
    ParserConfig config(&context, /*verifyAfterParse=*/false);
    if (failed(parseSourceFile(sourceMgr, &block, config)))
      return success();
  }
  Operation *culprit = nullptr;
  std::string why;
  for (Operation &top : block) {
    top.walk([&](Operation *op) {
      if (std::optional<std::string> hazard = findVerifierHazard(op)) {
        culprit = op;
        why = std::move(*hazard);
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (culprit)
      break;
  }
  if (!culprit)
    return success();
  SourceMgrDiagnosticHandler handler(sourceMgr, &context, os);
  culprit->emitError(why);
  return failure();
}

} // namespace

LogicalResult mlir::accel::checkUpstreamHazards(llvm::MemoryBufferRef buffer,
                                                const DialectRegistry &registry,
                                                llvm::raw_ostream &os,
                                                bool allowUnregisteredDialects,
                                                StringRef splitMarker) {
  if (isBytecode(buffer))
    return success(); // checkBytecodeNesting looks at the ops it holds
  // Each part of a split on its own, as the tool parses it; a view, not a
  // copy (MLIR's lexer takes a part that is not NUL-terminated, as its own
  // split does).
  return splitAndProcessBuffer(
      llvm::MemoryBuffer::getMemBuffer(buffer,
                                       /*RequiresNullTerminator=*/false),
      [&](std::unique_ptr<llvm::MemoryBuffer> part,
          const llvm::MemoryBufferRef &whole, llvm::raw_ostream &) {
        StringRef text = part->getBuffer();
        if (std::optional<TextHazard> hazard = findMalformedLinalgList(text)) {
          printTextError(whole,
                         size_t(text.data() - whole.getBufferStart()) +
                             hazard->offset,
                         hazard->message, os);
          return failure();
        }
        // Every op is named in the text: without these names there is
        // nothing for the scratch parse to find. A generic op's name is a
        // string, which may spell any letter as an escape
        // (`"tensor.expand\5Fshape"`): a backslash anywhere parses too.
        if (!text.contains("expand_shape") &&
            !text.contains("collapse_shape") && !text.contains('\\'))
          return success();
        return checkPart(std::move(part), whole, registry, os,
                         allowUnregisteredDialects);
      },
      // What it writes between parts is output, and there is none.
      llvm::nulls(), splitMarker, /*outputSplitMarker=*/"");
}
