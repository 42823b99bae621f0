//===- MlirTextLexer.cpp - the one scanner of untrusted MLIR text ---------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "accel/Support/MlirTextLexer.h"
#include "llvm/ADT/SmallVector.h"

using namespace mlir::accel;
using llvm::StringRef;

void MlirTextLexer::skipBlanks(bool inBody) {
  while (pos < text.size()) {
    // A split marker counts where a line starts with it, before anything
    // else on that line is read (it is usually a comment itself).
    if (!splitMarker.empty() && pos != markerReportedAt &&
        (pos == 0 || text[pos - 1] == '\n') &&
        text.substr(pos).starts_with(splitMarker))
      return;
    char c = text[pos];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0') {
      sawNewline |= c == '\n';
      ++pos;
      continue;
    }
    if (!inBody && c == '/' && pos + 1 < text.size() && text[pos + 1] == '/') {
      // A comment ends at a newline or a carriage return, as in MLIR's
      // Lexer::skipComment.
      pos = std::min(text.find_first_of("\n\r", pos), text.size());
      continue;
    }
    return;
  }
}

void MlirTextLexer::skipString() {
  for (++pos; pos < text.size() && text[pos] != '"' && text[pos] != '\n'; ++pos)
    if (text[pos] == '\\')
      ++pos;
  if (pos < text.size() && text[pos] == '"')
    ++pos;
  pos = std::min(pos, text.size());
}

MlirToken MlirTextLexer::next(bool inBody) {
  skipBlanks(inBody);
  size_t start = pos;
  if (pos >= text.size())
    return make(MlirToken::Eof, start);
  if (!splitMarker.empty() && pos != markerReportedAt &&
      (pos == 0 || text[pos - 1] == '\n') &&
      text.substr(pos).starts_with(splitMarker)) {
    markerReportedAt = pos;
    MlirToken marker{MlirToken::SplitMarker,
                     text.substr(pos, splitMarker.size()), pos, true};
    return marker;
  }
  MlirToken tok;
  char c = text[pos];
  auto peekAt = [&](size_t at) { return at < text.size() ? text[at] : '\0'; };
  if (llvm::isAlpha(c) || c == '_') {
    while (++pos < text.size() && isIdChar(text[pos]))
      ;
    tok = make(MlirToken::BareId, start);
  } else if (llvm::isDigit(c)) {
    // Digits, letters (hex, exponents, a suffix MLIR would split off) and
    // dots, and the sign of a decimal exponent (1.0e-5).
    bool hex = c == '0' && (peekAt(pos + 1) == 'x' || peekAt(pos + 1) == 'X');
    while (++pos < text.size()) {
      char d = text[pos];
      if (isIdChar(d))
        continue;
      if (!hex && (d == '-' || d == '+') &&
          (text[pos - 1] == 'e' || text[pos - 1] == 'E'))
        continue;
      break;
    }
    tok = make(MlirToken::Number, start);
  } else {
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
      if (c != '@' && llvm::isDigit(peekAt(pos + 1)))
        while (++pos < text.size() && llvm::isDigit(text[pos]))
          ;
      else
        while (++pos < text.size() &&
               (isIdChar(text[pos]) || (c != '@' && text[pos] == '-')))
          ;
      tok = make(MlirToken::Name, start);
      break;
    case '"':
      skipString();
      tok = make(MlirToken::String, start);
      break;
    case '-':
      pos += peekAt(pos + 1) == '>' ? 2 : 1; // `->`
      tok = make(MlirToken::Punct, start);
      break;
    case '<':
    case '>':
      // `<=` and `>=` of an affine constraint; in a dialect body every `<`
      // and `>` is a bracket to MLIR's scan for its end.
      pos += !inBody && peekAt(pos + 1) == '=' ? 2 : 1;
      tok = make(MlirToken::Punct, start);
      break;
    case '(':
    case ')':
    case '[':
    case ']':
    case '{':
    case '}':
    case ',':
    case '=':
    case ':':
    case '+':
    case '*':
    case '?':
    case '|':
    case '/':
      ++pos;
      tok = make(MlirToken::Punct, start);
      break;
    default:
      // A vertical tab, a form feed, a non-ASCII byte...: an error token to
      // MLIR's lexer.
      ++pos;
      tok = make(MlirToken::Error, start);
      break;
    }
  }
  sawNewline = false;
  return tok;
}

void MlirTextLexer::skipDialectBody() {
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
      if (open.empty() || open.pop_back_val() != want)
        return;
      break;
    }
    case '"':
      skipString();
      break;
    default:
      sawNewline |= c == '\n';
      ++pos;
      break;
    }
  } while (!open.empty());
}
