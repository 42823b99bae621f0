//===- UpstreamHazards.cpp - input that crashes MLIR 22 itself ------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The list check has a small lexer of its own, which splits text into
// tokens as MLIR's lexer does where it matters here: blanks are exactly
// space, tab, newline, carriage return and NUL (a vertical tab or a form
// feed is an error token to MLIR, so `= \v[0]` is a malformed list: the
// fuzzer found that); `//` comments run to a newline or a carriage return;
// string literals end at their closing quote or at the end of the line;
// `%`, `^`, `#`, `!` and `@` names are one token each (with `-` but for
// `@`), so `%dimensions` is no keyword; and the body of a dialect attribute
// or type (`#x.y<...>`) is scanned as MLIR's parser scans it, by brackets
// and strings without comments, so that a `//` inside it cannot hide what
// the outer parser reads after it. (A review found the last three gaps.)
//
//===----------------------------------------------------------------------===//

#include "accel/Support/UpstreamHazards.h"
#include "accel/Support/InputLimits.h"
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

struct Token {
  enum Kind { Eof, BareId, Number, Punct, Name, String, Error };
  Kind kind;
  StringRef spelling;
  size_t offset;
};

class Lexer {
public:
  explicit Lexer(StringRef text) : text(text) {}

  Token next() {
    skipBlanksAndComments();
    size_t start = pos;
    if (pos >= text.size())
      return {Token::Eof, StringRef(), text.size()};
    char c = text[pos];
    if (llvm::isAlpha(c) || c == '_') {
      while (++pos < text.size() && isIdChar(text[pos]))
        ;
      return make(Token::BareId, start);
    }
    if (llvm::isDigit(c)) {
      // Digits, letters (hex, exponents, a suffix MLIR would split off)
      // and dots: the validator only takes plain decimal digits anyway.
      while (++pos < text.size() &&
             (isIdChar(text[pos]) ||
              ((text[pos] == '-' || text[pos] == '+') &&
               (text[pos - 1] == 'e' || text[pos - 1] == 'E'))))
        ;
      return make(Token::Number, start);
    }
    switch (c) {
    case '%':
    case '^':
    case '#':
    case '!':
    case '@':
      // Value, block, attribute and type names may contain `-` (MLIR's
      // suffix-id), and are digits only when they start with one (`!0`,
      // then whatever follows is a token of its own); symbol names are
      // bare identifiers.
      if (c != '@' && pos + 1 < text.size() && llvm::isDigit(text[pos + 1]))
        while (++pos < text.size() && llvm::isDigit(text[pos]))
          ;
      else
        while (++pos < text.size() &&
               (isIdChar(text[pos]) || (c != '@' && text[pos] == '-')))
          ;
      // A dialect attribute or type with a body right after its name
      // (`#linalg.iterator_type<parallel>`): MLIR finds the body's end by
      // its brackets and strings alone, without comments, and the outer
      // parser goes on after it. So the body is part of this token.
      if ((c == '#' || c == '!') && pos < text.size() && text[pos] == '<')
        skipDialectBody();
      return make(Token::Name, start);
    case '"':
      skipString();
      return make(Token::String, start);
    case '-':
      ++pos;
      if (pos < text.size() && text[pos] == '>')
        ++pos; // `->`
      return make(Token::Punct, start);
    case '(':
    case ')':
    case '[':
    case ']':
    case '{':
    case '}':
    case '<':
    case '>':
    case ',':
    case '=':
    case ':':
    case '+':
    case '*':
    case '?':
    case '|':
    case '/':
      ++pos;
      return make(Token::Punct, start);
    default:
      // A vertical tab, a form feed, a non-ASCII byte...: an error token
      // to MLIR's lexer.
      ++pos;
      return make(Token::Error, start);
    }
  }

private:
  static bool isIdChar(char c) {
    return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.';
  }

  Token make(Token::Kind kind, size_t start) const {
    return {kind, text.slice(start, pos), start};
  }

  void skipBlanksAndComments() {
    while (pos < text.size()) {
      char c = text[pos];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0') {
        ++pos;
        continue;
      }
      if (c == '/' && pos + 1 < text.size() && text[pos + 1] == '/') {
        // A comment ends at a newline or a carriage return, as in MLIR's
        // Lexer::skipComment.
        size_t end = text.find_first_of("\n\r", pos);
        pos = end == StringRef::npos ? text.size() : end;
        continue;
      }
      return;
    }
  }

  /// Skips a string literal from its opening quote, as lexString does: to
  /// the closing quote, or to a newline or the end (where MLIR's lexer
  /// stops with an error).
  void skipString() {
    for (++pos; pos < text.size() && text[pos] != '"' && text[pos] != '\n';
         ++pos)
      if (text[pos] == '\\')
        ++pos;
    if (pos < text.size() && text[pos] == '"')
      ++pos;
    pos = std::min(pos, text.size());
  }

  /// Skips a dialect symbol's body from its `<`, as MLIR's
  /// Parser::parseDialectSymbolBody scans it: nested (, [, {, < and their
  /// closers, `->` as one token, strings through the lexer, and no
  /// comments. A closer that does not match ends the body (MLIR stops
  /// with an error there).
  void skipDialectBody() {
    llvm::SmallVector<char, 8> open;
    do {
      if (pos >= text.size())
        return;
      char c = text[pos];
      switch (c) {
      case '<':
      case '[':
      case '(':
      case '{':
        open.push_back(c);
        ++pos;
        break;
      case '-':
        pos += pos + 1 < text.size() && text[pos + 1] == '>' ? 2 : 1;
        break;
      case '>':
      case ']':
      case ')':
      case '}': {
        char want = c == '>' ? '<' : c == ']' ? '[' : c == ')' ? '(' : '{';
        ++pos;
        if (open.pop_back_val() != want)
          return;
        break;
      }
      case '"':
        skipString();
        break;
      default:
        ++pos;
        break;
      }
    } while (!open.empty());
  }

  StringRef text;
  size_t pos = 0;
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
  if (tok.kind != Token::Punct || tok.spelling != "[")
    return tok;
  tok = lexer.next();
  if (tok.kind == Token::Punct && tok.spelling == "]")
    return std::nullopt;
  while (true) {
    if (tok.kind == Token::Punct && tok.spelling == "-")
      tok = lexer.next();
    if (!isSafeInteger(tok))
      return tok;
    tok = lexer.next();
    if (tok.kind == Token::Punct && tok.spelling == "]")
      return std::nullopt;
    if (tok.kind != Token::Punct || tok.spelling != ",")
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
  Token before{Token::Eof, StringRef(), 0};
  Token current = lexer.next();
  while (current.kind != Token::Eof) {
    Token next = lexer.next();
    bool isKeyword =
        current.kind == Token::BareId &&
        (current.spelling == "permutation" || current.spelling == "dimensions");
    bool inDictionary = before.kind == Token::Punct &&
                        (before.spelling == "{" || before.spelling == ",");
    if (isKeyword && !inDictionary && next.kind == Token::Punct &&
        next.spelling == "=") {
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
