//===- UpstreamHazardsTest.cpp - input that crashes MLIR 22 itself --------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The lexing corners of findMalformedLinalgList (blanks as MLIR's lexer
// has them, comments, strings, prefixed names, dictionaries, numbers) and
// findVerifierHazard on ops built in memory. The tools' use of both is
// tested by lit (test/Tools/accel-opt/upstream-hazards.mlir and one case in
// each tool's tests).
//
//===----------------------------------------------------------------------===//

#include "accel/Support/UpstreamHazards.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::accel;

namespace {

/// The offset findMalformedLinalgList reports, or -1 for none.
long hazardAt(llvm::StringRef text) {
  std::optional<TextHazard> hazard = findMalformedLinalgList(text);
  return hazard ? long(hazard->offset) : -1;
}

TEST(MalformedLinalgList, ListsTheParserTakesPass) {
  EXPECT_EQ(hazardAt("permutation = [1, 0]"), -1);
  EXPECT_EQ(hazardAt("permutation = []"), -1);
  EXPECT_EQ(hazardAt("dimensions=[0,1,2]"), -1);
  EXPECT_EQ(hazardAt("dimensions = [-1, 2]"), -1); // the verifier's business
  EXPECT_EQ(hazardAt("dimensions = [- 1]"), -1);   // `-` is its own token
  EXPECT_EQ(hazardAt("dimensions = [007]"), -1);
  EXPECT_EQ(hazardAt("dimensions = [999999999999999999]"), -1); // 18 digits
  // MLIR's blanks, NUL included, and comments between tokens.
  EXPECT_EQ(hazardAt("permutation\t=\r\n[ 1 ,\n 0 ]"), -1);
  EXPECT_EQ(hazardAt(llvm::StringRef("permutation\0= [1\0, 0]", 22)), -1);
  EXPECT_EQ(hazardAt("permutation = // the order\n [1, // one\n 0]"), -1);
}

TEST(MalformedLinalgList, MalformedListsAreFound) {
  // At the token that breaks the list.
  EXPECT_EQ(hazardAt("permutation = [1, 0"), 0); // at the end: the keyword
  EXPECT_EQ(hazardAt("x permutation = [1, 0"), 2);
  EXPECT_EQ(hazardAt("permutation = [1, 0 }"), 20);
  EXPECT_EQ(hazardAt("permutation = 1"), 14);
  EXPECT_EQ(hazardAt("permutation = [1,]"), 17);
  EXPECT_EQ(hazardAt("permutation = [,]"), 15);
  EXPECT_EQ(hazardAt("permutation = [1 0]"), 17);
  EXPECT_EQ(hazardAt("permutation = [--1]"), 16);
  EXPECT_EQ(hazardAt("permutation = [1.0]"), 15);
  EXPECT_EQ(hazardAt("permutation = [0x1]"), 15); // hexadecimal: refused
  EXPECT_EQ(hazardAt("permutation = [1e3]"), 15);
  EXPECT_EQ(hazardAt("permutation = [1000000000000000000]"), 15); // 19
  EXPECT_EQ(hazardAt("permutation = [12abc]"), 15);
  EXPECT_EQ(hazardAt("permutation = array<i64: 1, 0>"), 14);
  EXPECT_EQ(hazardAt("permutation = #perm"), 14);
  EXPECT_EQ(hazardAt("permutation = [%x]"), 15);
  EXPECT_EQ(hazardAt("permutation = [\"1\"]"), 15);
  EXPECT_EQ(hazardAt("dimensions = {"), 13);
  // No blanks to MLIR's lexer: a vertical tab, a form feed.
  EXPECT_EQ(hazardAt("permutation = \v[1, 0]"), 14);
  EXPECT_EQ(hazardAt("permutation = [1,\f0]"), 17);
  // The keyword as the linalg parsers meet it: after `)`, `}`, `>`, the
  // op name.
  EXPECT_EQ(hazardAt("outs(%b : t) permutation = x"), 27);
  EXPECT_EQ(hazardAt("{a} dimensions = x"), 17);
  EXPECT_EQ(hazardAt("<{a}> dimensions = x"), 19);
  EXPECT_EQ(hazardAt("linalg.reduce dimensions = x"), 27);
  // Every keyword of a text is checked, not only the first.
  EXPECT_EQ(hazardAt("permutation = [1, 0] dimensions = x"), 34);
}

TEST(MalformedLinalgList, OtherTokensAreNoKeywords) {
  // Entries of attribute dictionaries (`{` or `,` before them): the
  // generic form of the ops, or any other op's attributes.
  EXPECT_EQ(hazardAt("{permutation = array<i64: 1, 0>}"), -1);
  EXPECT_EQ(hazardAt("<{permutation = array<i64: 1, 0>}>"), -1);
  EXPECT_EQ(hazardAt("{a = 1, dimensions = \"x\"}"), -1);
  // Names, strings, comments and longer identifiers.
  EXPECT_EQ(hazardAt("%permutation = x"), -1);
  EXPECT_EQ(hazardAt("#dimensions = x"), -1);
  EXPECT_EQ(hazardAt("@permutation = x"), -1);
  EXPECT_EQ(hazardAt("^dimensions = x"), -1);
  EXPECT_EQ(hazardAt("\"permutation = x\""), -1);
  EXPECT_EQ(hazardAt("\"a\\\" permutation = x\""), -1); // escaped quote
  EXPECT_EQ(hazardAt("// permutation = x"), -1);
  EXPECT_EQ(hazardAt("my_permutation = x"), -1);
  EXPECT_EQ(hazardAt("linalg.permutation = x"), -1);
  EXPECT_EQ(hazardAt("permutations = x"), -1);
  // Without `=`, the parser fails on its own (parseEqual).
  EXPECT_EQ(hazardAt("permutation [1, 0"), -1);
  EXPECT_EQ(hazardAt("permutation == x"), 13); // `=` then `=`: no list
  // A string that runs to the end of its line, as MLIR's lexer has it.
  EXPECT_EQ(hazardAt("\"open\npermutation = x"), 20);
}

TEST(MalformedLinalgList, LexingAsMLIRDoes) {
  // A carriage return ends a comment, before the keyword or inside a list.
  EXPECT_EQ(hazardAt("x // c\rpermutation = [1, x]"), 25);
  EXPECT_EQ(hazardAt("permutation = [1, // c\r x]\n 0]"), 24);
  // A dialect attribute's body ends by its brackets, comments or not: what
  // follows it on the line is read.
  EXPECT_EQ(hazardAt("{x = #linalg.iterator_type<// >} ins(%a : t) outs(%b : t) "
                     "permutation = [1, x]\nparallel>"),
            76);
  EXPECT_EQ(hazardAt("!x.t<\"a>\" -> (b)> permutation = x"), 32);
  // Attribute and type names with `-` are one token: no keyword in them.
  EXPECT_EQ(hazardAt("#my-permutation = affine_map<(d0) -> (d0)>"), -1);
  EXPECT_EQ(hazardAt("!t-dimensions = tensor<2xf32>"), -1);
  // A symbol name has no `-`: `@a-permutation` is `@a`, `-`, a keyword.
  EXPECT_EQ(hazardAt("@a-permutation = x"), 17);
  // A name that starts with a digit is digits only: `!0linalg.transpose<`
  // is the alias `!0` and an op name, not a type with a body to skip.
  EXPECT_EQ(hazardAt("!0 = i32\n%c = arith.constant 0 : "
                     "!0linalg.transpose<{ // <{\n}> permutation = [x]"),
            78);
}

TEST(MalformedLinalgList, TheMessageNamesKeywordAndToken) {
  std::optional<TextHazard> hazard =
      findMalformedLinalgList("dimensions = [1, oops]");
  ASSERT_TRUE(hazard);
  EXPECT_NE(hazard->message.find("malformed `dimensions` list"),
            std::string::npos);
  EXPECT_NE(hazard->message.find("found 'oops'"), std::string::npos);
  hazard = findMalformedLinalgList("permutation = \v");
  ASSERT_TRUE(hazard);
  EXPECT_NE(hazard->message.find("(byte 0x0b)"), std::string::npos);
  hazard = findMalformedLinalgList("permutation =");
  ASSERT_TRUE(hazard);
  EXPECT_NE(hazard->message.find("found the end of the input"),
            std::string::npos);
}

TEST(VerifierHazard, EmptyReassociationGroups) {
  MLIRContext context;
  context.loadDialect<tensor::TensorDialect>();
  OpBuilder b(&context);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  Type f32 = b.getF32Type();
  Value src = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{6, 16}, f32);
  auto groups = [&](std::initializer_list<std::initializer_list<int64_t>> gs) {
    SmallVector<Attribute> attrs;
    for (auto g : gs)
      attrs.push_back(b.getI64ArrayAttr(llvm::to_vector(g)));
    return b.getArrayAttr(attrs);
  };
  OperationState state(loc, "tensor.expand_shape");
  state.addOperands(src);
  state.addTypes(RankedTensorType::get({3, 2, 16}, f32));
  state.addAttribute("reassociation", groups({{0, 1}, {}}));
  state.addAttribute("static_output_shape", b.getDenseI64ArrayAttr({3, 2, 16}));
  Operation *expand = b.create(state);
  std::optional<std::string> why = findVerifierHazard(expand);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("reassociation group 1 is empty"), std::string::npos);
  EXPECT_NE(why->find("crashes on an empty group"), std::string::npos);
  // Groups that are not empty, and other ops, pass.
  expand->setAttr("reassociation", groups({{0, 1}, {2}}));
  EXPECT_FALSE(findVerifierHazard(expand));
  EXPECT_FALSE(findVerifierHazard(src.getDefiningOp()));
}

} // namespace
