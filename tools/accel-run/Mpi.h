//===- Mpi.h - accel-run's view of MPI (MPICH, loaded at run time) -*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
// accel-run runs a sharded module as one MPI process per grid element
// (docs/distributed.md). It does not link MPI: a run without --ranks needs
// none. A rank loads Debian's MPICH (libmpich.so.12, the ABI upstream's mpi
// lowering targets by default) with its symbols global, so the JIT-compiled
// code's MPI calls resolve to it, and calls the few functions below through
// pointers. The collectives the kernels call are interposed (symbols the JIT
// sees first) to count the bytes they move.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_RUN_MPI_H
#define ACCEL_RUN_MPI_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <vector>

namespace accel_run::mpi {

/// Whether this process was started by an MPI launcher (mpiexec sets PMI_*
/// or the Hydra variables).
bool launchedByMpi();

/// Loads MPICH and calls MPI_Init; sets rank() and size().
llvm::Error initialize();
/// MPI_Finalize (when initialize() succeeded).
void finalize();
int rank();
int size();

/// Rank 0 receives every rank's `local` (equal sizes) in rank order.
llvm::Error gather(llvm::ArrayRef<double> local, std::vector<double> &all);
/// The minimum over the ranks of `value`.
llvm::Expected<int> allMin(int value);
/// The sum over the ranks of `value`.
llvm::Expected<double> allSum(double value);
llvm::Error barrier();

/// What the kernels' MPI calls moved on this rank since the last reset:
/// the payload bytes (count x type size) given to each collective.
struct Traffic {
  uint64_t allreduceBytes = 0, allreduceCalls = 0;
  uint64_t sendBytes = 0, recvBytes = 0;
  uint64_t commSplits = 0;
};
Traffic &traffic();

/// The interposed symbols (name -> address) for the JIT: MPI_Allreduce,
/// MPI_Send, MPI_Recv and MPI_Comm_split, each counting and forwarding.
llvm::StringMap<void *> interposedSymbols();

} // namespace accel_run::mpi

#endif // ACCEL_RUN_MPI_H
