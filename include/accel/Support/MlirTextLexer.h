//===- MlirTextLexer.h - the one scanner of untrusted MLIR text -*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The checks that run on MLIR text before MLIR's parser sees it (nesting
// depth, InputLimits.h; linalg lists that crash MLIR 22's parser,
// UpstreamHazards.h) read it through this lexer, so that both split text
// into tokens the same way, and the way MLIR's own lexer does where it
// matters to them:
//
// - blanks are exactly space, tab, newline, carriage return and NUL (a
//   vertical tab or a form feed is an error token to MLIR);
// - `//` comments run to a newline or a carriage return, except inside a
//   dialect symbol's body (`#x.y<...>`, `!x<...>`), which MLIR's parser
//   scans by its brackets and strings alone, without comments: a `//` there
//   must not hide what the outer parser reads after the body;
// - string literals end at their closing quote or at the end of the line;
// - `%`, `^`, `#`, `!` and `@` names are one token each (with `-`, but for
//   `@`; digits only when they start with one, as MLIR's suffix-id);
// - `->` is one token, and so are `<=` and `>=` outside a dialect body (the
//   affine constraints' operators), where they are no brackets;
// - a number takes the sign of its exponent (`1.0e-5`) unless it is
//   hexadecimal.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_SUPPORT_MLIRTEXTLEXER_H
#define ACCEL_SUPPORT_MLIRTEXTLEXER_H

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include <cstddef>

namespace mlir {
namespace accel {

/// One token of MLIR text.
struct MlirToken {
  enum Kind {
    /// The end of the text.
    Eof,
    /// A bare identifier (a keyword, an op name, `floordiv`).
    BareId,
    /// Digits, with letters, dots and an exponent's sign.
    Number,
    /// Punctuation: one of ( ) [ ] { } < > , = : + * ? | / - and the
    /// two-character `->`, `<=`, `>=`.
    Punct,
    /// A `%`, `^`, `#`, `!` or `@` name, without a dialect body after it.
    Name,
    /// A string literal, quotes included (unterminated at a line end).
    String,
    /// A byte MLIR's lexer does not take.
    Error,
    /// A line that starts with the split marker given to the lexer; the
    /// marker is not consumed (the next token reads it as the text it is).
    SplitMarker,
  };
  Kind kind;
  llvm::StringRef spelling;
  /// Byte offset of the token's first character.
  size_t offset;
  /// Whether a newline lies between the previous token and this one (or
  /// this is the first token).
  bool startsLine;

  bool isPunct(llvm::StringRef p) const {
    return kind == Punct && spelling == p;
  }
};

/// Splits MLIR text into MlirTokens (see the file comment).
class MlirTextLexer {
public:
  /// Lines starting with `splitMarker` (when not empty) give a SplitMarker
  /// token first, as accel-opt's --split-input-file parses each part on
  /// its own.
  explicit MlirTextLexer(llvm::StringRef text, llvm::StringRef splitMarker = "")
      : text(text), splitMarker(splitMarker) {}

  /// The next token. `inBody`: the lexer is inside a dialect symbol's body,
  /// where `//` starts no comment and `<=`, `>=` are a bracket and `=`.
  MlirToken next(bool inBody = false);

  /// The byte right after the last token ('\0' at the end).
  char peek() const { return pos < text.size() ? text[pos] : '\0'; }
  /// Skips `c` when it is the next byte.
  bool consumeIf(char c) {
    if (peek() != c)
      return false;
    ++pos;
    return true;
  }
  /// Skips a dialect symbol's body from its `<`, as MLIR's
  /// Parser::parseDialectSymbolBody scans it: nested (, [, {, < and their
  /// closers, `->` as one token, strings through the lexer, and no
  /// comments. A closer that does not match ends the body (MLIR stops with
  /// an error there), and so does the end of the text.
  void skipDialectBody();

  /// Bytes read so far.
  size_t position() const { return pos; }
  /// The text from the current position on.
  llvm::StringRef rest() const { return text.substr(pos); }
  llvm::StringRef getText() const { return text; }

  /// Characters of a bare identifier after its first (MLIR's bare-id).
  static bool isIdChar(char c) {
    return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.';
  }

private:
  /// Skips blanks and (outside a body) comments; stops early at a line that
  /// starts with the split marker not yet reported.
  void skipBlanks(bool inBody);
  void skipString();
  MlirToken make(MlirToken::Kind kind, size_t start) const {
    return {kind, text.slice(start, pos), start, sawNewline};
  }

  llvm::StringRef text;
  llvm::StringRef splitMarker;
  size_t pos = 0;
  /// Whether a newline was skipped since the last token.
  bool sawNewline = true;
  /// The offset of the last SplitMarker token (so it is given once).
  size_t markerReportedAt = llvm::StringRef::npos;
};

} // namespace accel
} // namespace mlir

#endif // ACCEL_SUPPORT_MLIRTEXTLEXER_H
