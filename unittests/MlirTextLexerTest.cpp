//===- MlirTextLexerTest.cpp - the one scanner of untrusted MLIR text -----===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The tokens the nesting check (InputLimits) and the upstream-hazard check
// (UpstreamHazards) both read: each corner here is one where MLIR's lexer
// and a naive one disagree, and where the two checks once disagreed with
// each other.
//
//===----------------------------------------------------------------------===//

#include "accel/Support/MlirTextLexer.h"
#include "gtest/gtest.h"
#include <string>
#include <vector>

using namespace mlir::accel;

namespace {

/// The tokens of `text` as "K:spelling" (K: I bare-id, N number, P punct,
/// $ name, S string, E error, M split marker), every token read outside a
/// dialect body.
std::vector<std::string> lex(llvm::StringRef text,
                             llvm::StringRef marker = "") {
  MlirTextLexer lexer(text, marker);
  std::vector<std::string> out;
  for (MlirToken tok = lexer.next(); tok.kind != MlirToken::Eof;
       tok = lexer.next()) {
    const char *kind = "INP$SEM";
    out.push_back(std::string(1, kind[tok.kind - 1]) + ":" +
                  tok.spelling.str());
  }
  return out;
}

using V = std::vector<std::string>;

TEST(MlirTextLexer, BlanksAreThoseOfMlirsLexer) {
  // NUL is a blank; a vertical tab and a form feed are error tokens.
  EXPECT_EQ(lex(llvm::StringRef("a\0b", 3)), (V{"I:a", "I:b"}));
  EXPECT_EQ(lex("a\vb"), (V{"I:a", "E:\v", "I:b"}));
  EXPECT_EQ(lex("a\fb"), (V{"I:a", "E:\f", "I:b"}));
}

TEST(MlirTextLexer, CommentsEndAtNewlineOrCarriageReturn) {
  EXPECT_EQ(lex("a // b [ c\nd"), (V{"I:a", "I:d"}));
  EXPECT_EQ(lex("a // b\rd"), (V{"I:a", "I:d"}));
}

TEST(MlirTextLexer, StringsEndAtTheirQuoteOrTheLine) {
  EXPECT_EQ(lex(R"("a \" [ b" c)"), (V{R"(S:"a \" [ b")", "I:c"}));
  EXPECT_EQ(lex("\"open [\nx"), (V{"S:\"open [", "I:x"}));
}

TEST(MlirTextLexer, PrefixedNames) {
  // `-` belongs to %, ^, #, ! names (suffix-id), not to @ symbols.
  EXPECT_EQ(lex("%a-b ^bb-1 #x-y !t-u @s-t"),
            (V{"$:%a-b", "$:^bb-1", "$:#x-y", "$:!t-u", "$:@s", "P:-",
               "I:t"}));
  // A name that starts with a digit is digits only.
  EXPECT_EQ(lex("%0abc !0linalg.x"),
            (V{"$:%0", "I:abc", "$:!0", "I:linalg.x"}));
  // `%dimensions` is a name, not the keyword.
  EXPECT_EQ(lex("%dimensions"), (V{"$:%dimensions"}));
}

TEST(MlirTextLexer, PunctuationAndOperators) {
  EXPECT_EQ(lex("(d0) -> (d0 - 1)"),
            (V{"P:(", "I:d0", "P:)", "P:->", "P:(", "I:d0", "P:-", "N:1",
               "P:)"}));
  EXPECT_EQ(lex("d0 <= 3, d1 >= 0"),
            (V{"I:d0", "P:<=", "N:3", "P:,", "I:d1", "P:>=", "N:0"}));
}

TEST(MlirTextLexer, NumbersTakeTheirExponentsSign) {
  EXPECT_EQ(lex("1.0e-5 - 2"), (V{"N:1.0e-5", "P:-", "N:2"}));
  // Not in hexadecimal: 0x1e is a number, -5 an operator and a number.
  EXPECT_EQ(lex("0x1e-5"), (V{"N:0x1e", "P:-", "N:5"}));
}

TEST(MlirTextLexer, DialectBodiesHaveNoComments) {
  // In a body, `//` is no comment and `<=` is a bracket and `=`.
  MlirTextLexer lexer("#x.y<\"a\" // ]> b\n>");
  MlirToken name = lexer.next();
  EXPECT_EQ(name.spelling, "#x.y");
  EXPECT_TRUE(lexer.consumeIf('<'));
  std::vector<std::string> body;
  for (MlirToken tok = lexer.next(/*inBody=*/true);
       tok.kind != MlirToken::Eof; tok = lexer.next(/*inBody=*/true))
    body.push_back(tok.spelling.str());
  EXPECT_EQ(body, (V{"\"a\"", "/", "/", "]", ">", "b", ">"}));
  MlirTextLexer bracket("<=");
  EXPECT_EQ(bracket.next(/*inBody=*/true).spelling, "<");
}

TEST(MlirTextLexer, SkipDialectBodyScansBracketsAndStrings) {
  MlirTextLexer lexer("#a<[x // ] (\">\")> tail");
  lexer.next();
  lexer.skipDialectBody();
  EXPECT_EQ(lexer.rest(), " tail");
  // A closer that does not match ends the body.
  MlirTextLexer bad("#a<(]> tail");
  bad.next();
  bad.skipDialectBody();
  EXPECT_EQ(bad.rest(), "> tail");
}

TEST(MlirTextLexer, SplitMarkersStartALine) {
  EXPECT_EQ(lex("a\n// -----\nb // -----\nc", "// -----"),
            (V{"I:a", "M:// -----", "I:b", "I:c"}));
  // Only at the start of a line, and once.
  EXPECT_EQ(lex("  // -----\nd", "// -----"), (V{"I:d"}));
}

TEST(MlirTextLexer, TokensKnowWhetherTheyStartALine) {
  MlirTextLexer lexer("a b // c\nd");
  EXPECT_TRUE(lexer.next().startsLine);
  EXPECT_FALSE(lexer.next().startsLine);
  EXPECT_TRUE(lexer.next().startsLine);
}

} // namespace
