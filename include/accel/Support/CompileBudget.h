//===- CompileBudget.h - a time limit on a compilation ----------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A compilation of untrusted IR can take unbounded time or memory in one
// pass (30 nested `scf.for` with `iter_args` take one-shot bufferization
// over 120 s; docs/bad-input-catalogue.md, row 41), and an MLIR pass cannot
// be stopped from outside. So a tool with a budget compiles in a child
// process that it kills when the budget is spent, and keeps its promise of
// no partial output by a handshake:
//
//   - the child names every folder it creates for staging (and the output
//     folder, when it made it), so the parent can remove them once the
//     child is dead;
//   - before it moves anything into place, the child asks the parent for
//     leave to commit; the parent grants it only while the budget lasts,
//     and from then on waits for the child without a deadline or a kill,
//     signals included (committing is renaming a few files for
//     accel-compile, writing the output it holds for accel-opt, which can
//     block on a full pipe as without a budget). A child that is refused,
//     or whose parent is gone, writes nothing more.
//   - a child that ends without leave to commit, however it ends (an error,
//     `LLVM ERROR`, a signal), has what it reported removed too.
//
// The child runs in a process group of its own, so killing the group also
// ends the programs it runs (clang, ld.lld, ptxas). The parent passes
// SIGINT, SIGTERM and SIGHUP on the same way: the child's group is killed,
// its folders are removed, and the tool exits 128 + the signal; a signal
// the tool was started with ignored (`nohup`) stays ignored. A parent
// killed with SIGKILL takes the child with it (PR_SET_PDEATHSIG); what the
// child staged then stays, as after any SIGKILL. The child ignores
// SIGTTOU, so that writing to the terminal from the background does not
// stop it; it must not read the terminal (read the input before forking).
//
// Fork before anything starts a thread (an MLIRContext has a thread pool):
// only the forking thread lives on in the child.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_SUPPORT_COMPILEBUDGET_H
#define ACCEL_SUPPORT_COMPILEBUDGET_H

#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace mlir {
namespace accel {

/// What a compilation may use; 0 is no limit.
struct CompileBudget {
  /// Wall-clock seconds, from the fork to the request to commit.
  double seconds = 0;
  /// The child's resident memory (VmRSS), sampled every 20 ms: a short
  /// spike between two samples can pass, a pass that keeps what it
  /// allocates cannot. The programs the child runs are not counted.
  uint64_t residentBytes = 0;
  /// The options that set them, for the errors.
  llvm::StringRef secondsOption = "--max-compile-seconds";
  llvm::StringRef residentBytesOption = "--max-compile-memory";
};

/// Starts the supervised child when `budget` has a limit. In the parent,
/// returns once the child is done, with the code the tool exits with: the
/// child's exit code; 1 after printing "TOOL: error: ..." to `errs` when a
/// limit was reached before the child asked to commit (the child's group
/// killed, its folders removed); 128 + N when the child died of signal N
/// (reported the same way) or the parent got signal N. In the child,
/// returns nullopt and the tool goes on. A negative time is an error (1).
/// Without a limit it does not fork
/// and returns nullopt: the calls below are then no-ops, and commits are
/// always granted.
std::optional<int> runWithCompileBudget(const CompileBudget &budget,
                                        llvm::StringRef tool,
                                        llvm::raw_ostream &errs);

/// Whether this process is a supervised child.
bool hasCompileBudget();

/// In a supervised child: `path` is removed (with everything in it) if the
/// child is killed or ends before it has leave to commit. A staging folder;
/// report it before making it, so that no moment is left when it exists
/// unreported.
void removeIfStopped(llvm::StringRef path);

/// In a supervised child: `path` is removed if the child is stopped, but
/// only when it is empty then. An output folder the child created.
void removeIfStoppedAndEmpty(llvm::StringRef path);

/// In a supervised child: withdraws an earlier removeIfStopped(path), for
/// a path reported before it was made that turned out to be taken.
void keepIfStopped(llvm::StringRef path);

/// In a supervised child: asks for leave to move the output into place and
/// waits for the answer; false when the budget has run out (the parent is
/// about to kill this process) or the parent is gone. Call it once, just
/// before committing; a refused child must not write anything more. Always
/// true when not supervised.
bool mayCommit();

} // namespace accel
} // namespace mlir

#endif // ACCEL_SUPPORT_COMPILEBUDGET_H
