// Input that crashes MLIR 22 itself (docs/bad-input-catalogue.md, row 1;
// include/accel/Support/UpstreamHazards.h): a malformed `permutation` or
// `dimensions` list of linalg's custom parsers, and an empty reassociation
// group of tensor.expand_shape. Upstream mlir-opt crashes on both
// (test/Fuzz/upstream-*.mlir); accel-opt refuses them with a located error
// and exit code 1 (exit-code.py: lit's `not` would accept a crash), before
// MLIR parses or verifies them, and writes no output file.

// RUN: rm -rf %t && mkdir -p %t
// DEFINE: %{fail} = %python %S/../accel-systolic-translate/Inputs/exit-code.py 1 accel-opt
// RUN: %{fail} %s --split-input-file -o %t/out.mlir 2>&1 | FileCheck %s
// RUN: test ! -e %t/out.mlir

// What these checks do not refuse: valid lists in every spelling the
// parsers take, `permutation = array<...>` in attribute dictionaries, names
// and strings that contain the keywords, groups that are not empty.
// RUN: accel-opt %S/Inputs/upstream-hazards-valid.mlir | FileCheck %s --check-prefix=VALID
// VALID-COUNT-2: permutation = [1, 0]
// VALID: dimensions = [0]
// VALID: dimensions = [1]
// VALID: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [1, 2]

// Bytes the lexer does not take as blanks (a vertical tab, found by the
// fuzzer as `permutation = \v[0, 1, 3, 2]`) and a NUL, which it does.
// RUN: %python %S/Inputs/hazard-bytes.py vtab %t/vtab.mlir
// RUN: %{fail} %t/vtab.mlir 2>&1 | FileCheck %s --check-prefix=VTAB
// VTAB: vtab.mlir:2:92: error: malformed `permutation` list: expected '[', integers separated by ',' and ']' (as in `permutation = [1, 0]`), found a character MLIR's lexer does not take (byte 0x0b); refused before MLIR 22's linalg parser sees it, which crashes on such a list
// RUN: %python %S/Inputs/hazard-bytes.py nul %t/nul.mlir
// RUN: accel-opt %t/nul.mlir | FileCheck %s --check-prefix=NUL
// NUL: permutation = [1, 0]
// RUN: %python %S/Inputs/hazard-bytes.py nul-bad %t/nul-bad.mlir
// RUN: %{fail} %t/nul-bad.mlir 2>&1 | FileCheck %s --check-prefix=NULBAD
// NULBAD: nul-bad.mlir:2:96: error: malformed `permutation` list: {{.*}} found 'x'

// MLIR bytecode does not go through the text check: the ops it holds are
// checked where --allow-bytecode reads it (checkBytecodeNesting). Written
// by upstream mlir-opt, which can skip its verifier.
// RUN: mlir-opt --mlir-very-unsafe-disable-verifier-on-parsing --emit-bytecode %S/Inputs/upstream-hazards-expand.mlir -o %t/expand.mlirbc
// RUN: %{fail} --allow-bytecode %t/expand.mlirbc -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=BYTECODE
// RUN: test ! -e %t/out.mlir
// BYTECODE: expand.mlirbc:0:0: error: 'tensor.expand_shape' op reassociation group 1 is empty: every group names at least one dimension (refused before MLIR 22's verifier sees it, which crashes on an empty group) (at {{.*}}upstream-hazards-expand.mlir:4:8)

// A part that does not parse is left to MLIR's parser, which reports its
// own error: the scratch parse stops there too, before any verifier.
// RUN: %{fail} %S/Inputs/upstream-hazards-broken.mlir -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=BROKEN
// RUN: test ! -e %t/out.mlir
// BROKEN: upstream-hazards-broken.mlir:5:44: error: custom op 'tensor.expand_shape' expected 'output_shape'
// BROKEN-NOT: error

// -----

// A list that stops at the end of the line: the parser reads on to `return`.
func.func @unterminated(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %t = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%b : tensor<3x2xf32>) permutation = [1, 0
  // CHECK: upstream-hazards.mlir:[[@LINE+1]]:3: error: malformed `permutation` list: expected '[', integers separated by ',' and ']' (as in `permutation = [1, 0]`), found 'return'; refused before MLIR 22's linalg parser sees it, which crashes on such a list
  return %t : tensor<3x2xf32>
}

// -----

// No bracket, in linalg.broadcast.
func.func @no_bracket(%a: tensor<3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: upstream-hazards.mlir:[[@LINE+1]]:89: error: malformed `dimensions` list: {{.*}} found '0'
  %t = linalg.broadcast ins(%a : tensor<3xf32>) outs(%b : tensor<2x3xf32>) dimensions = 0
  return %t : tensor<2x3xf32>
}

// -----

// The form of the generic syntax is no list for the custom parser.
func.func @array_attr(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<3x2xf32> {
  // CHECK: upstream-hazards.mlir:[[@LINE+1]]:92: error: malformed `permutation` list: {{.*}} found 'array'
  %t = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%b : tensor<3x2xf32>) permutation = array<i64: 1, 0>
  return %t : tensor<3x2xf32>
}

// -----

// Nor is an alias, even of a list.
#perm = array<i64: 1, 0>
func.func @alias(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<3x2xf32> {
  // CHECK: upstream-hazards.mlir:[[@LINE+1]]:92: error: malformed `permutation` list: {{.*}} found '#perm'
  %t = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%b : tensor<3x2xf32>) permutation = #perm
  return %t : tensor<3x2xf32>
}

// -----

// A trailing comma, in linalg.reduce's short form.
func.func @trailing_comma(%a: tensor<2x3xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: upstream-hazards.mlir:[[@LINE+1]]:105: error: malformed `dimensions` list: {{.*}} found ']'
  %r = linalg.reduce { arith.addf } ins(%a : tensor<2x3xf32>) outs(%b : tensor<2xf32>) dimensions = [1, ]
  return %r : tensor<2xf32>
}

// -----

// A number past int64 fails in the parser; so would 0x1 in a list the
// parser may not take: more than 18 digits and hexadecimal are refused.
func.func @huge(%a: tensor<3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: upstream-hazards.mlir:[[@LINE+1]]:90: error: malformed `dimensions` list: {{.*}} found '99999999999999999999'
  %t = linalg.broadcast ins(%a : tensor<3xf32>) outs(%b : tensor<2x3xf32>) dimensions = [99999999999999999999]
  return %t : tensor<2x3xf32>
}

// -----

// Cut off after the `=` (the fuzzer's `linalg.reduce dimensions = {`), at
// the end of the input: reported at the keyword.
// CHECK: upstream-hazards.mlir:[[@LINE+1]]:15: error: malformed `dimensions` list: {{.*}} found the end of the input
linalg.reduce dimensions =

// -----

// Without the dialect prefix: the check keys on the keyword, not on the op
// name, so no way of naming the op escapes it.
func.func @keyword_only() {
  // CHECK: upstream-hazards.mlir:[[@LINE+1]]:44: error: malformed `permutation` list: {{.*}} found 'oops'
  "test.op"() : () -> () loc(permutation = oops)
  return
}

// -----

// An empty reassociation group: tensor.expand_shape's verifier crashes on
// it, in the custom form...
func.func @expand(%a: tensor<6x16x8xf32>) -> tensor<3x2x16x8xf32> {
  // CHECK: upstream-hazards.mlir:[[@LINE+1]]:8: error: 'tensor.expand_shape' op reassociation group 2 is empty: every group names at least one dimension (refused before MLIR 22's verifier sees it, which crashes on an empty group)
  %o = tensor.expand_shape %a [[0, 1], [2], []] output_shape [3, 2, 16, 8] : tensor<6x16x8xf32> into tensor<3x2x16x8xf32>
  return %o : tensor<3x2x16x8xf32>
}

// -----

// ... in the generic form ...
func.func @expand_generic(%a: tensor<6x16xf32>) -> tensor<3x2x16xf32> {
  // CHECK: upstream-hazards.mlir:[[@LINE+1]]:8: error: 'tensor.expand_shape' op reassociation group 1 is empty
  %o = "tensor.expand_shape"(%a) <{reassociation = [[0, 1], []], static_output_shape = array<i64: 3, 2, 16>}> : (tensor<6x16xf32>) -> tensor<3x2x16xf32>
  return %o : tensor<3x2x16xf32>
}

// -----

// ... and through an alias, which no text scan could see.
#groups = [[0, 1], []]
func.func @expand_alias(%a: tensor<6x16xf32>) -> tensor<3x2x16xf32> {
  // CHECK: upstream-hazards.mlir:[[@LINE+1]]:8: error: 'tensor.expand_shape' op reassociation group 1 is empty
  %o = "tensor.expand_shape"(%a) <{reassociation = #groups, static_output_shape = array<i64: 3, 2, 16>}> : (tensor<6x16xf32>) -> tensor<3x2x16xf32>
  return %o : tensor<3x2x16xf32>
}

// -----

// collapse_shape and the memref ops report an empty group themselves in
// MLIR 22; they are refused the same way, so that nothing rests on that.
func.func @collapse(%a: memref<3x2x16xf32>) -> memref<6x16xf32> {
  // CHECK: upstream-hazards.mlir:[[@LINE+1]]:8: error: 'memref.collapse_shape' op reassociation group 1 is empty: every group names at least one dimension{{$}}
  %o = memref.collapse_shape %a [[0, 1], []] : memref<3x2x16xf32> into memref<6x16xf32>
  return %o : memref<6x16xf32>
}

// -----

// A generic op's name is a string, and a string may spell a letter as an
// escape: the scratch parse runs on any text with a backslash too.
func.func @expand_escaped(%a: tensor<6x16xf32>) -> tensor<3x2x16xf32> {
  // CHECK: upstream-hazards.mlir:[[@LINE+1]]:8: error: 'tensor.expand_shape' op reassociation group 1 is empty
  %o = "tensor.expand\5Fshape"(%a) <{reassociation = [[0, 1], []], static_output_shape = array<i64: 3, 2, 16>}> : (tensor<6x16xf32>) -> tensor<3x2x16xf32>
  return %o : tensor<3x2x16xf32>
}

// -----

// A `//` in a dialect attribute's body (found by a review; upstream
// mlir-opt crashes on this part) is no comment to MLIR's scan for the
// body's end, which the outer parser goes on after: the list after it is
// checked.
func.func @comment_in_body(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<3x2xf32> {
  // CHECK: upstream-hazards.mlir:[[@LINE+1]]:129: error: malformed `permutation` list: {{.*}} found 'x'
  %t = linalg.transpose {x = #linalg.iterator_type<// >} ins(%a : tensor<2x3xf32>) outs(%b : tensor<3x2xf32>) permutation = [1, x]
parallel>
  return %t : tensor<3x2xf32>
}
