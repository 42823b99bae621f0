//===- UpstreamHazards.h - input that crashes MLIR 22 itself ----*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Two malformed forms of IR crash Debian's MLIR 22 itself, in code accel
// cannot change (upstream mlir-opt crashes the same way); the fuzzers found
// both (docs/reliability.md, "Fuzzing"; docs/bad-input-catalogue.md, row 1).
// Every tool refuses them with a located error before MLIR sees them:
//
// 1. The custom parsers of linalg.transpose, linalg.broadcast and
//    linalg.reduce (parseDenseI64ArrayAttr in LinalgOps.cpp) store what
//    DenseI64ArrayAttr::parse returns after `permutation =` or
//    `dimensions =` without checking it: a list that does not parse becomes
//    a null attribute, and NamedAttrList::set dereferences it. Found as text
//    (findMalformedLinalgList), since the crash is in the parser.
// 2. The verifier of tensor.expand_shape reads the first expression of
//    every reassociation group (getSymbolLessAffineMaps), so an empty group
//    (`[[0, 1], []]`, custom or generic form, or through an alias) is a
//    SEGV. Found on the parsed, not yet verified IR (findVerifierHazard):
//    the group can hide behind an attribute alias, so no text scan is exact.
//
// Each has a test under test/Fuzz/ that runs upstream mlir-opt on the same
// input and is expected to fail (XFAIL) while MLIR 22 crashes; once it
// XPASSes, the installed MLIR is fixed and the check here can go.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_SUPPORT_UPSTREAMHAZARDS_H
#define ACCEL_SUPPORT_UPSTREAMHAZARDS_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBufferRef.h"
#include <cstddef>
#include <optional>
#include <string>

namespace mlir {
class DialectRegistry;
class Operation;
namespace accel {

/// A place in MLIR text that would crash MLIR 22's parser.
struct TextHazard {
  /// Byte offset of the token the error points at.
  size_t offset;
  /// The error message (without "error:").
  std::string message;
};

/// Finds the first `permutation = ...` or `dimensions = ...` whose list
/// linalg's custom parsers would not parse, or nullopt. Such a keyword
/// counts wherever it is a bare identifier followed by `=` and not an entry
/// of an attribute dictionary (the token before it is neither `{` nor `,`):
/// the linalg parsers read it after `ins(...)`/`outs(...)`, an attribute
/// dictionary or the op name, never after `{` or `,`, so no crashing input
/// is missed wherever the op name comes from (custom form, a default
/// dialect), and `{permutation = array<i64: 1, 0>}` in a generic form is
/// not checked. A list passes when it is `[`, then integers (an optional
/// `-`, at most 18 decimal digits) separated by commas, then `]`, with
/// blanks and `//` comments between tokens as MLIR's lexer skips them (see
/// UpstreamHazards.cpp for how the lexer follows MLIR's).
/// Anything else is refused, including hexadecimal or huge numbers that the
/// parser might take: refusing an odd but valid list is an error message,
/// missing a malformed one is a crash.
std::optional<TextHazard> findMalformedLinalgList(llvm::StringRef text);

/// Why `op`, parsed but not verified, would crash its own verifier in
/// MLIR 22, or nullopt: a tensor.expand_shape, tensor.collapse_shape,
/// memref.expand_shape or memref.collapse_shape with an empty reassociation
/// group (only tensor.expand_shape crashes, measured; the other three report
/// it themselves, and are refused here the same way so that the rule does
/// not rest on that).
std::optional<std::string> findVerifierHazard(Operation *op);

/// Refuses MLIR text that would crash MLIR 22 itself (see the file comment):
/// prints "<buffer name>:LINE:COL: error: ..." to `os`, with the source line
/// and a caret, and fails. The parser hazard is found by
/// findMalformedLinalgList. The verifier hazard needs the IR: when the text
/// names `expand_shape` or `collapse_shape` or has a backslash (an op name
/// appears in the text, but a generic one is a string that may spell it
/// with escapes), it is parsed once more without verifying, into
/// a scratch context with `registry`'s dialects (unregistered ones allowed
/// when the tool allows them), each part of a `splitMarker` split on its
/// own as the tool parses it, and every op is given to findVerifierHazard;
/// text that does not parse passes, since the tool's own parse stops at the
/// same error before it verifies anything. Run checkNestingDepth first (the
/// scratch parse recurses like the tool's). MLIR bytecode passes:
/// checkBytecodeNesting applies findVerifierHazard to what it reads.
LogicalResult checkUpstreamHazards(llvm::MemoryBufferRef buffer,
                                   const DialectRegistry &registry,
                                   llvm::raw_ostream &os,
                                   bool allowUnregisteredDialects = false,
                                   llvm::StringRef splitMarker = "");

} // namespace accel
} // namespace mlir

#endif // ACCEL_SUPPORT_UPSTREAMHAZARDS_H
