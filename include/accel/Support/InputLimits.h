//===- InputLimits.h - limits on untrusted input ----------------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Checks that every tool runs on untrusted input before the part of MLIR or
// LLVM that would crash on it (docs/bad-input-catalogue.md, F1 and F4):
//
// - checkInputFormat, on the input before anything parses it: MLIR bytecode
//   is refused unless the user passed --allow-bytecode, as MLIR 22's
//   bytecode reader crashes on malformed bytecode (accel-fuzz-parse found a
//   SEGV in BytecodeReader::Impl::parseIRSection) and we cannot fix it.
// - checkNestingDepth, on MLIR text before the parser sees it. MLIR's parser
//   recurses once per nesting level (upstream llvm#63146): in accel-opt,
//   ~1460 nested `omp.target` regions, ~3930 nested modules or ~6850 nested
//   arrays overflow the default 8 MiB stack (SIGSEGV), and so do chains
//   that nest without brackets (~7450 unary minuses or ~52500 binary
//   operators in one affine expression, ~16000-18000 aliases each defined
//   by the one before). The scan is linear and refuses text nested deeper
//   than a limit far below those depths, with a located error.
// - checkTensorSizes, on a parsed module before it is compiled: a splat
//   constant of 10^10 f32 elements is a few bytes of text but 40 GB once
//   LLVM materializes it, and a 40 GB tensor.empty is allocated by the
//   compiled code. Both are refused above a limit, with a located error.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_SUPPORT_INPUTLIMITS_H
#define ACCEL_SUPPORT_INPUTLIMITS_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBufferRef.h"
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace mlir {
class DialectRegistry;
class Operation;
class ShapedType;
namespace accel {

//===----------------------------------------------------------------------===//
// Input format
//===----------------------------------------------------------------------===//

/// The description of the tools' `--allow-bytecode` flag (one text for
/// all of them).
constexpr const char *kAllowBytecodeDescription =
    "Read MLIR bytecode input (refused by default: MLIR 22's bytecode reader "
    "can crash on malformed bytecode, so pass this only for bytecode you "
    "trust)";

/// Refuses MLIR bytecode (a buffer that starts with the magic "ML\xefR")
/// unless `allowBytecode`: prints "<buffer name>:0:0: error: MLIR bytecode
/// is not read by default ..." to `os`, naming --allow-bytecode, and fails.
/// MLIR text always passes. Upstream's bytecode reader checks much of what
/// it reads but not all: malformed bytecode can crash it (a SEGV in
/// parseIRSection, test/Fuzz/bytecode-reader-segv.test), so the tools read
/// bytecode only when the user vouches for it. Only the start of the
/// buffer counts: a part of a --split-input-file that starts with the magic
/// is read as text by MLIR 22 (measured), not as bytecode.
LogicalResult checkInputFormat(llvm::MemoryBufferRef buffer,
                               llvm::raw_ostream &os, bool allowBytecode);

//===----------------------------------------------------------------------===//
// Nesting depth of MLIR text (F1)
//===----------------------------------------------------------------------===//

/// The deepest nesting the tools parse. The costliest level measured (an
/// `omp.target` region, ~5.7 KiB of stack through parser, verifier and
/// printer) overflows 8 MiB at ~1460 levels, so 512 levels need ~3 MiB: a
/// margin of 2.8x there and 7.6x for nested modules, on the main thread and
/// on Python threads alike (glibc gives threads the 8 MiB of `ulimit -s`:
/// the same depths crash there). A smaller `ulimit -s` or an instrumented
/// build shrinks the margin. Real IR nests a few dozen levels at most (7 in
/// this repository's tests).
constexpr unsigned kMaxNestingDepth = 512;

/// The stack kMaxNestingDepth is sized for: glibc's default (`ulimit -s`
/// 8192), for the main thread and for threads.
constexpr size_t kNestingLimitStackBytes = size_t(8) << 20;

/// `maxDepth` on a thread with at least kNestingLimitStackBytes of stack,
/// proportionally less on a smaller one, and never under 16: with `ulimit
/// -s 1024`, 512 nested modules overflowed MLIR's parser (measured); the
/// limit there is 64. checkNestingDepth and checkBytecodeNesting apply it to
/// the calling thread's stack (pthread_getattr_np) and say so in their
/// error when it lowered the limit.
unsigned nestingLimitForThisThread(unsigned maxDepth = kMaxNestingDepth);

/// Where and why text nests deeper than a limit.
struct NestingViolation {
  /// Byte offset of the first token past the limit.
  size_t offset;
  /// What the level past the limit is: empty for a bracket, otherwise a
  /// parenthetical for the message (an operator, an alias).
  std::string reason;
};

/// Scans MLIR text and returns the first token nested deeper than
/// `maxDepth` levels, or nullopt. A level is an open bracket ((, [, {, <)
/// outside string literals and `//` comments; `->`, `<=` and `>=` are not
/// brackets. Each operator (+, -, *, floordiv, ceildiv, mod) of an
/// expression inside ( ) or [ ] also counts as a level until the next `,`,
/// `=` or `:` ends the expression, since the affine parser recurses once per
/// operator; and a reference to an alias (#name, !name) counts as deep as
/// the alias's definition. Lines starting with `splitMarker` (when not
/// empty) start a new input with no nesting, as accel-opt's
/// --split-input-file parses each part on its own.
std::optional<NestingViolation>
findExcessiveNesting(llvm::StringRef text, unsigned maxDepth = kMaxNestingDepth,
                     llvm::StringRef splitMarker = "");

/// Prints "<buffer name>:LINE:COL: error: MESSAGE" for the byte at `offset`
/// of `buffer` (the end of the buffer past it) to `os`, with the source line
/// and a caret when the line is at most 200 characters long (deep or
/// generated input is often one long line). What the text checks report
/// with.
void printTextError(llvm::MemoryBufferRef buffer, size_t offset,
                    const llvm::Twine &message, llvm::raw_ostream &os);

/// Refuses MLIR text nested deeper than `maxDepth` (see
/// findExcessiveNesting): prints "<buffer name>:LINE:COL: error: nesting
/// deeper than N levels ..." to `os` (with the source line and a caret when
/// the line is short) and fails. MLIR bytecode (it starts with the magic
/// "ML\xefR") is not scanned and passes: its bytes are no text and have no
/// brackets to count; checkBytecodeNesting measures it once read. See
/// docs/bad-input-catalogue.md, F1.
LogicalResult checkNestingDepth(llvm::MemoryBufferRef buffer,
                                llvm::raw_ostream &os,
                                unsigned maxDepth = kMaxNestingDepth,
                                llvm::StringRef splitMarker = "");

/// Refuses MLIR bytecode nested deeper than `maxDepth` (lowered by
/// nestingLimitForThisThread), the bytecode half of checkNestingDepth (MLIR
/// text passes). MLIR 22's bytecode reader recurses once per op level, but
/// little (~100 bytes: 20000 nested modules read on a 2 MiB stack), while
/// the verifier, the printer and the passes overflowed 8 MiB from ~10000
/// levels. So `buffer` is read once without verifying, into a scratch
/// context with `registry`'s dialects (and unregistered ones when
/// `allowUnregisteredDialects`, as the tool reads it), on a thread whose
/// stack is sized by the input, and measured without recursion. Two rules,
/// each against the limit: an op may sit inside at most that many ops, and
/// the attributes and types of an op (its attributes and properties,
/// location, result and block argument types) may nest at most that deep,
/// counting a level for every attribute and type, leaves included (so a few
/// levels more than text counts brackets for the same IR). A violation is
/// refused with "<buffer name>:0:0: error: nesting deeper than N levels
/// (MLIR bytecode: ... at LOC)" on `os`; bytecode that does not read is
/// refused with the reader's first error, since the tool would otherwise
/// read it again on its own stack. The scratch module is taken apart without
/// recursion too. (Reading bytecode at all needs --allow-bytecode,
/// checkInputFormat.)
LogicalResult checkBytecodeNesting(llvm::MemoryBufferRef buffer,
                                   const DialectRegistry &registry,
                                   llvm::raw_ostream &os,
                                   bool allowUnregisteredDialects = false,
                                   unsigned maxDepth = kMaxNestingDepth);

//===----------------------------------------------------------------------===//
// Tensor sizes (F4)
//===----------------------------------------------------------------------===//

/// Constant data a module may hold in all, by default 1 GiB. Constants are
/// compiled into the artifact: a 256 MiB splat took accel-compile 0.9 GB of
/// memory and 5 s and wrote a 256 MiB object and a 256 MiB library, so 1 GiB
/// needs ~3.5 GB. x86-64's small code model addresses static data within
/// 2 GiB, so more than that cannot link anyway.
constexpr uint64_t kDefaultMaxConstantBytes = uint64_t(1) << 30;

/// The largest statically shaped tensor, memref or vector anywhere in a
/// module (a value, an argument, a type in an attribute), by default 16 GiB.
/// Such values are allocated when the code runs, not when it compiles, so
/// the limit is larger: it is what accel-run's fp64 oracle would need for
/// its largest argument (2^31 elements, the most it takes), well above the
/// biggest single weights of today's models (a few GiB), and well below the
/// 40 GB that made accel-compile and accel-run die.
constexpr uint64_t kDefaultMaxTensorBytes = uint64_t(16) << 30;

struct TensorSizeLimits {
  /// Total bytes of the ElementsAttr constants (dense, splat, resource,
  /// sparse: counted at their full static shape) of the module.
  uint64_t maxConstantBytes = kDefaultMaxConstantBytes;
  /// Bytes of one statically shaped tensor, memref or vector type.
  uint64_t maxTensorBytes = kDefaultMaxTensorBytes;
};

/// The bytes a statically shaped `type` holds (elements times element size;
/// UINT64_MAX when that overflows), or nullopt for a dynamic shape.
/// Integers and floats take their width rounded up to whole bytes, index 8,
/// complex twice its element, a nested static shape its own size; any other
/// element type counts as one byte.
std::optional<uint64_t> getStaticByteSize(ShapedType type);

/// Refuses `root` when its constants hold more than
/// `limits.maxConstantBytes` in all or when any statically shaped type in it
/// (op results, block arguments, types inside attributes such as function
/// signatures) holds more than `limits.maxTensorBytes`. The error is an MLIR
/// diagnostic on the op (or argument) that crosses the limit, naming its
/// size, the limit and the tool option that raises it
/// (--max-constant-bytes, --max-tensor-bytes); only the first is reported.
/// Dynamic shapes are not checked.
LogicalResult checkTensorSizes(Operation *root,
                               const TensorSizeLimits &limits = {});

/// Only the constants part of checkTensorSizes. Compilers run it again on
/// the lowered module, just before LLVM materializes the constants: folding
/// makes new ones (`tensor.splat` of a constant folds into a splat constant
/// of the full shape).
LogicalResult checkConstantSizes(Operation *root, uint64_t maxConstantBytes);

} // namespace accel
} // namespace mlir

#endif // ACCEL_SUPPORT_INPUTLIMITS_H
