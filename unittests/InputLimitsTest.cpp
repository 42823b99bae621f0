//===- InputLimitsTest.cpp - the nesting scan and tensor sizes -----------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The lexing corners of findExcessiveNesting (strings, comments, `->`,
// comparisons, names with `-`, numbers with signed exponents, aliases,
// operators) and getStaticByteSize. The tools' use of both is tested by
// lit (test/Tools/*/nesting-limit.test, size-limits.test).
//
//===----------------------------------------------------------------------===//

#include "accel/Support/InputLimits.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <pthread.h>

using namespace mlir;
using namespace mlir::accel;

namespace {

/// The smallest limit `text` passes.
unsigned depthOf(llvm::StringRef text, llvm::StringRef splitMarker = "") {
  unsigned lo = 0, hi = 1 << 20;
  while (lo < hi) {
    unsigned mid = (lo + hi) / 2;
    if (findExcessiveNesting(text, mid, splitMarker))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

std::string repeat(llvm::StringRef s, unsigned n) {
  std::string out;
  for (unsigned i = 0; i < n; ++i)
    out += s;
  return out;
}

TEST(NestingTest, BracketsCountAndTheFirstPastTheLimitIsReported) {
  std::string text = repeat("module {", 600) + repeat("}", 600);
  EXPECT_EQ(depthOf(text), 600u);
  std::optional<NestingViolation> v = findExcessiveNesting(text, 512);
  ASSERT_TRUE(v);
  // The 513th `{`.
  EXPECT_EQ(v->offset, 512 * 8 + 7);
  EXPECT_EQ(v->reason, "");
  EXPECT_FALSE(findExcessiveNesting(text, 600));
  // Each kind of bracket counts; siblings do not add up.
  EXPECT_EQ(depthOf("([{<>}])"), 4u);
  EXPECT_EQ(depthOf("(a)(b)[c]{d}<e>"), 1u);
}

TEST(NestingTest, StringsAndCommentsAreText) {
  EXPECT_EQ(depthOf(R"(x = "((((([[[[{{{{")"), 0u);
  EXPECT_EQ(depthOf(R"(x = "\"((((" (y))"), 1u);
  EXPECT_EQ(depthOf("// ((((((((\n(y)"), 1u);
  // MLIR's strings end at the line's end; the next line is code again.
  EXPECT_EQ(depthOf("x = \"(((\n((a))"), 2u);
  // `//` inside a string is no comment.
  EXPECT_EQ(depthOf(R"(loc("//((") (((a))))"), 3u);
}

TEST(NestingTest, CommentsEndAtACarriageReturnAndNotInADialectBody) {
  // MLIR ends a comment at `\r` as at `\n`: what follows it nests.
  EXPECT_EQ(depthOf("// c\r[[[ ]]]"), 3u);
  // A dialect symbol's body has no comments to MLIR's scan for its end,
  // and the outer parser goes on right after it: `//` there hides nothing.
  EXPECT_EQ(depthOf("{a = #x.y<// >, b = [[[ ]]]}"), 4u);
  EXPECT_EQ(depthOf("!x.y<//> [[ ]]"), 2u);
  // Without a body right after the name, `//` is a comment again.
  EXPECT_EQ(depthOf("#x.y // <[[[\n"), 0u);
  // In a body, `<=` is a bracket and `=`; names take `-`; a name that
  // starts with a digit is digits only (then no body follows it).
  EXPECT_EQ(depthOf("{a = #x<a<=b>//>, b = [[[ ]]]}"), 4u);
  EXPECT_EQ(depthOf("{a = #x.y-z<//>, b = [[[ ]]]}"), 4u);
  EXPECT_EQ(depthOf("!0x<// ((((\n"), 1u);
}

TEST(NestingTest, ArrowsAndComparisonsAreNoBrackets) {
  EXPECT_EQ(depthOf("affine_map<(d0) -> (d0)>"), 2u);
  EXPECT_EQ(depthOf("(i32) -> (i32)"), 1u);
  EXPECT_EQ(depthOf("affine_set<(d0) : (d0 >= 0, d0 <= 5, d0 == 1)>"), 2u);
  // Many constraints do not hide nesting around them.
  std::string sets = repeat("affine_set<(d0) : (d0 >= 0)>, ", 100);
  EXPECT_EQ(depthOf("[[[" + sets + "[[a]]]]]"), 5u);
  // A `<` that never closes (a comparison) is forgotten at the next closer.
  EXPECT_EQ(depthOf(repeat("(a < b)", 100) + "((c))"), 2u);
}

TEST(NestingTest, MismatchedClosersCannotHideNesting) {
  EXPECT_EQ(depthOf("(((]]]]}}}>>>(x)"), 4u);
}

TEST(NestingTest, OperatorsOfAnExpressionNest) {
  EXPECT_EQ(depthOf("(d0 + d1 + d2)"), 3u);
  EXPECT_EQ(depthOf("(d0 * 2 - d1 floordiv 2 + d0 ceildiv 3 mod 4)"), 7u);
  EXPECT_EQ(depthOf("(" + repeat("-", 700) + "d0)"), 701u);
  std::optional<NestingViolation> v = findExcessiveNesting("(d0 + d1 + d2)", 2);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->offset, 9u);
  EXPECT_EQ(v->reason, " (each operator of an expression nests a level)");
  // `,`, `=` and `:` end an expression.
  EXPECT_EQ(depthOf("(" + repeat("d0 + d1, ", 1000) + "d0)"), 2u);
  EXPECT_EQ(depthOf("[" + repeat("-1, ", 1000) + "-1]"), 2u);
  EXPECT_EQ(depthOf("(d0 + 1 == d1 + 2, d0 - 3 >= 0)"), 2u);
  // Operators outside ( ) and [ ] are signs or nothing.
  EXPECT_EQ(depthOf("{" + repeat("-1 ", 1000) + "}"), 1u);
  EXPECT_EQ(depthOf("dense<-1.0> : tensor<4xf32>"), 1u);
  // Names with `-`, exponents and words that only contain the keywords.
  EXPECT_EQ(depthOf("(%a-b-c-d, ^bb-1)"), 1u);
  EXPECT_EQ(depthOf("(1.0e-5 1.0E+5 0x1e)"), 1u);
  EXPECT_EQ(depthOf("(model modulo %mod)"), 1u);
  // Parent expressions stay open while a nested one is read.
  EXPECT_EQ(depthOf("(d0 + d1 + (d2 + d3))"), 5u);
}

TEST(NestingTest, AliasesCountAsDeepAsTheirDefinition) {
  EXPECT_EQ(depthOf("#a = [[1]]\n#b = [#a]\nx = (#b)"), 4u);
  EXPECT_EQ(depthOf("!t = tuple<tuple<i32>>\n!u = !t\nx = (!u)"), 3u);
  // A comment or the end of the line before the value.
  EXPECT_EQ(depthOf("#a = // the value:\n  [[[1]]]\nx = #a"), 3u);
  std::string chain = "#a0 = []\n";
  for (int i = 1; i < 600; ++i)
    chain +=
        "#a" + std::to_string(i) + " = [#a" + std::to_string(i - 1) + "]\n";
  std::optional<NestingViolation> v = findExcessiveNesting(chain, 512);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->reason, " (through the alias #a511)");
  // Dialect attributes and types have a dot: they are no aliases.
  EXPECT_EQ(depthOf("#llvm = [[[1]]]\nx = #llvm.linkage<internal>"), 3u);
}

TEST(NestingTest, SplitInputsStartAfresh) {
  std::string text = "((((\n// -----\n((((\n";
  EXPECT_EQ(depthOf(text), 8u);
  EXPECT_EQ(depthOf(text, "// -----"), 4u);
}

TEST(NestingTest, TheErrorIsLocated) {
  std::string text = "module {\n  module {\n    module {}\n  }\n}\n";
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      llvm::MemoryBuffer::getMemBuffer(text, "in.mlir");
  std::string out;
  llvm::raw_string_ostream os(out);
  EXPECT_TRUE(succeeded(checkNestingDepth(*buffer, os, 3)));
  EXPECT_TRUE(failed(checkNestingDepth(*buffer, os, 2)));
  EXPECT_EQ(out, "in.mlir:3:12: error: nesting deeper than 2 levels\n"
                 "    module {}\n"
                 "           ^\n");
  // A long line is not printed.
  std::string deep = repeat("[", 300);
  buffer = llvm::MemoryBuffer::getMemBuffer(deep, "<python>");
  out.clear();
  EXPECT_TRUE(failed(checkNestingDepth(*buffer, os, 256)));
  EXPECT_EQ(out, "<python>:1:257: error: nesting deeper than 256 levels\n");
}

TEST(NestingTest, BytecodeIsNotScanned) {
  std::string bytecode = std::string("ML\xef", 3) + "R" + repeat("(", 1000);
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      llvm::MemoryBuffer::getMemBuffer(bytecode, "in.mlirbc");
  std::string out;
  llvm::raw_string_ostream os(out);
  EXPECT_TRUE(succeeded(checkNestingDepth(*buffer, os)));
  EXPECT_EQ(out, "");
}

/// nestingLimitForThisThread() on a thread with `stackBytes` of stack.
static unsigned limitOnAStackOf(size_t stackBytes) {
  struct Result {
    unsigned limit = 0;
  } result;
  pthread_attr_t attr;
  EXPECT_EQ(pthread_attr_init(&attr), 0);
  EXPECT_EQ(pthread_attr_setstacksize(&attr, stackBytes), 0);
  pthread_t thread;
  EXPECT_EQ(pthread_create(
                &thread, &attr,
                [](void *out) -> void * {
                  static_cast<Result *>(out)->limit =
                      nestingLimitForThisThread();
                  return nullptr;
                },
                &result),
            0);
  EXPECT_EQ(pthread_join(thread, nullptr), 0);
  pthread_attr_destroy(&attr);
  return result.limit;
}

TEST(NestingTest, TheLimitScalesWithTheStack) {
  EXPECT_EQ(limitOnAStackOf(size_t(8) << 20), kMaxNestingDepth);
  EXPECT_EQ(limitOnAStackOf(size_t(64) << 20), kMaxNestingDepth);
  EXPECT_EQ(limitOnAStackOf(size_t(1) << 20), 64u);
  EXPECT_EQ(limitOnAStackOf(size_t(2) << 20), 128u);
  // Never under 16 levels.
  EXPECT_EQ(limitOnAStackOf(size_t(128) << 10), 16u);
  // An explicit limit is only ever lowered.
  EXPECT_EQ(nestingLimitForThisThread(100), 100u);
}

TEST(InputFormatTest, BytecodeOnlyWhenAllowed) {
  std::string bytecode = std::string("ML\xef", 3) + "R" + "\x06";
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      llvm::MemoryBuffer::getMemBuffer(bytecode, "in.mlirbc");
  std::string out;
  llvm::raw_string_ostream os(out);
  EXPECT_TRUE(failed(checkInputFormat(*buffer, os, /*allowBytecode=*/false)));
  EXPECT_EQ(out, "in.mlirbc:0:0: error: MLIR bytecode is not read by default: "
                 "MLIR 22's bytecode reader is not hardened against malformed "
                 "input (it can crash); pass --allow-bytecode for bytecode you "
                 "trust, or give MLIR text\n");
  out.clear();
  EXPECT_TRUE(succeeded(checkInputFormat(*buffer, os, /*allowBytecode=*/true)));
  // Text passes, the magic past its start included.
  std::string text = " " + bytecode;
  buffer = llvm::MemoryBuffer::getMemBuffer(text, "in.mlir");
  EXPECT_TRUE(
      succeeded(checkInputFormat(*buffer, os, /*allowBytecode=*/false)));
  EXPECT_EQ(out, "");
}

TEST(TensorSizeTest, StaticByteSize) {
  MLIRContext context;
  auto f32 = Float32Type::get(&context);
  auto i1 = IntegerType::get(&context, 1);
  auto i4 = IntegerType::get(&context, 4);
  auto index = IndexType::get(&context);
  EXPECT_EQ(getStaticByteSize(RankedTensorType::get({2, 3}, f32)), 24u);
  // Sub-byte elements take a whole byte each.
  EXPECT_EQ(getStaticByteSize(RankedTensorType::get({8}, i1)), 8u);
  EXPECT_EQ(getStaticByteSize(RankedTensorType::get({8}, i4)), 8u);
  EXPECT_EQ(getStaticByteSize(MemRefType::get({4}, index)), 32u);
  EXPECT_EQ(getStaticByteSize(RankedTensorType::get(
                {4}, ComplexType::get(Float64Type::get(&context)))),
            64u);
  EXPECT_EQ(
      getStaticByteSize(RankedTensorType::get({3}, VectorType::get({4}, f32))),
      48u);
  EXPECT_EQ(getStaticByteSize(RankedTensorType::get({}, f32)), 4u);
  EXPECT_EQ(getStaticByteSize(RankedTensorType::get({0, 1000}, f32)), 0u);
  EXPECT_EQ(
      getStaticByteSize(RankedTensorType::get({ShapedType::kDynamic, 4}, f32)),
      std::nullopt);
  EXPECT_EQ(getStaticByteSize(UnrankedTensorType::get(f32)), std::nullopt);
  // Overflow saturates.
  EXPECT_EQ(getStaticByteSize(RankedTensorType::get(
                {int64_t(1) << 62, int64_t(1) << 62}, f32)),
            UINT64_MAX);
}

} // namespace
