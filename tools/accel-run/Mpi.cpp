//===- Mpi.cpp - accel-run's view of MPI (MPICH, loaded at run time) ------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "Mpi.h"

#include "llvm/ADT/Twine.h"
#include <cstdlib>
#include <dlfcn.h>

// MPICH's types and constants (its ABI: handles are ints). Only the
// declarations are used; the functions come from dlsym.
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

using namespace accel_run;

namespace {
struct Api {
  void *handle = nullptr;
  decltype(&MPI_Init) init = nullptr;
  decltype(&MPI_Finalize) finalize = nullptr;
  decltype(&MPI_Comm_rank) commRank = nullptr;
  decltype(&MPI_Comm_size) commSize = nullptr;
  decltype(&MPI_Gather) gather = nullptr;
  decltype(&MPI_Allreduce) allreduce = nullptr;
  decltype(&MPI_Barrier) barrier = nullptr;
  decltype(&MPI_Type_size) typeSize = nullptr;
  decltype(&MPI_Send) send = nullptr;
  decltype(&MPI_Recv) recv = nullptr;
  decltype(&MPI_Comm_split) commSplit = nullptr;
  int rank = 0, size = 1;
  bool initialized = false;
};
Api api;
mpi::Traffic counters;

llvm::Error check(int code, const char *what) {
  if (code == MPI_SUCCESS)
    return llvm::Error::success();
  return llvm::createStringError(llvm::Twine(what) + " failed (MPI error " +
                                 llvm::Twine(code) + ")");
}

uint64_t payload(int count, MPI_Datatype type) {
  int bytes = 0;
  if (api.typeSize(type, &bytes) != MPI_SUCCESS || count < 0)
    return 0;
  return uint64_t(count) * uint64_t(bytes);
}

// The kernels' calls, counted and forwarded.
int countedAllreduce(const void *send, void *recv, int count,
                     MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  counters.allreduceBytes += payload(count, type);
  ++counters.allreduceCalls;
  return api.allreduce(send, recv, count, type, op, comm);
}
int countedSend(const void *buf, int count, MPI_Datatype type, int dest,
                int tag, MPI_Comm comm) {
  counters.sendBytes += payload(count, type);
  return api.send(buf, count, type, dest, tag, comm);
}
int countedRecv(void *buf, int count, MPI_Datatype type, int source, int tag,
                MPI_Comm comm, MPI_Status *status) {
  counters.recvBytes += payload(count, type);
  return api.recv(buf, count, type, source, tag, comm, status);
}
int countedCommSplit(MPI_Comm comm, int color, int key, MPI_Comm *out) {
  ++counters.commSplits;
  return api.commSplit(comm, color, key, out);
}
} // namespace

bool mpi::launchedByMpi() {
  return std::getenv("PMI_RANK") || std::getenv("PMI_SIZE") ||
         std::getenv("MPI_LOCALRANKID") || std::getenv("OMPI_COMM_WORLD_SIZE");
}

llvm::Error mpi::initialize() {
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
  // MPICH's UCX transport patches malloc and mmap to track registered
  // memory; under AddressSanitizer (which owns the allocator) that faults
  // in MPI_Init. Ranks on one machine register nothing: turn the hooks off
  // (before UCX reads its environment), unless the user set them.
  setenv("UCX_MEM_MALLOC_HOOKS", "no", /*overwrite=*/0);
  setenv("UCX_MEM_EVENTS", "no", /*overwrite=*/0);
#endif
#endif
  // RTLD_GLOBAL: the JIT-compiled kernels' MPI calls resolve here.
  for (const char *name : {"libmpich.so.12", "libmpich.so"}) {
    api.handle = dlopen(name, RTLD_NOW | RTLD_GLOBAL);
    if (api.handle)
      break;
  }
  if (!api.handle)
    return llvm::createStringError(
        "cannot load MPICH (libmpich.so.12): " + llvm::Twine(dlerror()) +
        "; install libmpich-dev (scripts/setup.sh does)");
  const std::pair<void **, const char *> bindings[] = {
      {reinterpret_cast<void **>(&api.init), "MPI_Init"},
      {reinterpret_cast<void **>(&api.finalize), "MPI_Finalize"},
      {reinterpret_cast<void **>(&api.commRank), "MPI_Comm_rank"},
      {reinterpret_cast<void **>(&api.commSize), "MPI_Comm_size"},
      {reinterpret_cast<void **>(&api.gather), "MPI_Gather"},
      {reinterpret_cast<void **>(&api.allreduce), "MPI_Allreduce"},
      {reinterpret_cast<void **>(&api.barrier), "MPI_Barrier"},
      {reinterpret_cast<void **>(&api.typeSize), "MPI_Type_size"},
      {reinterpret_cast<void **>(&api.send), "MPI_Send"},
      {reinterpret_cast<void **>(&api.recv), "MPI_Recv"},
      {reinterpret_cast<void **>(&api.commSplit), "MPI_Comm_split"}};
  for (auto [slot, name] : bindings) {
    *slot = dlsym(api.handle, name);
    if (!*slot)
      return llvm::createStringError("libmpich has no " + llvm::Twine(name));
  }
  if (llvm::Error e = check(api.init(nullptr, nullptr), "MPI_Init"))
    return e;
  api.initialized = true;
  if (llvm::Error e =
          check(api.commRank(MPI_COMM_WORLD, &api.rank), "MPI_Comm_rank"))
    return e;
  return check(api.commSize(MPI_COMM_WORLD, &api.size), "MPI_Comm_size");
}

void mpi::finalize() {
  if (api.initialized)
    api.finalize();
  api.initialized = false;
}

int mpi::rank() { return api.rank; }
int mpi::size() { return api.size; }

llvm::Error mpi::gather(llvm::ArrayRef<double> local,
                        std::vector<double> &all) {
  if (api.rank == 0)
    all.resize(local.size() * size_t(api.size));
  if (local.size() > size_t(INT32_MAX))
    return llvm::createStringError("a local result of more than 2^31 "
                                   "elements cannot be gathered");
  return check(api.gather(local.data(), int(local.size()), MPI_DOUBLE,
                          api.rank == 0 ? all.data() : nullptr,
                          int(local.size()), MPI_DOUBLE, 0, MPI_COMM_WORLD),
               "MPI_Gather");
}

llvm::Expected<int> mpi::allMin(int value) {
  int out = value;
  if (llvm::Error e = check(api.allreduce(&value, &out, 1, MPI_INT, MPI_MIN,
                                          MPI_COMM_WORLD),
                            "MPI_Allreduce"))
    return std::move(e);
  return out;
}

llvm::Expected<double> mpi::allSum(double value) {
  double out = value;
  if (llvm::Error e = check(api.allreduce(&value, &out, 1, MPI_DOUBLE,
                                          MPI_SUM, MPI_COMM_WORLD),
                            "MPI_Allreduce"))
    return std::move(e);
  return out;
}

llvm::Error mpi::barrier() {
  return check(api.barrier(MPI_COMM_WORLD), "MPI_Barrier");
}

mpi::Traffic &mpi::traffic() { return counters; }

llvm::StringMap<void *> mpi::interposedSymbols() {
  llvm::StringMap<void *> symbols;
  symbols["MPI_Allreduce"] = reinterpret_cast<void *>(&countedAllreduce);
  symbols["MPI_Send"] = reinterpret_cast<void *>(&countedSend);
  symbols["MPI_Recv"] = reinterpret_cast<void *>(&countedRecv);
  symbols["MPI_Comm_split"] = reinterpret_cast<void *>(&countedCommSplit);
  return symbols;
}
