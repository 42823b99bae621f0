//===- Npy.h - read and write .npy arrays -----------------------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_TOOLS_ACCEL_RUN_NPY_H
#define ACCEL_TOOLS_ACCEL_RUN_NPY_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include <string>
#include <vector>

namespace accel_run {

/// A .npy array as doubles, with the numpy dtype string it was stored as.
struct NpyArray {
  std::string descr;
  llvm::SmallVector<int64_t> shape;
  std::vector<double> data;
};

/// Reads a little-endian, C-ordered .npy file of bool, int8/16/32/64,
/// uint8, float16/32/64. Errors name the file and what is wrong with it.
llvm::Expected<NpyArray> readNpy(llvm::StringRef path);

/// Writes a file through `write`, into a temporary file in the same folder
/// that is renamed over `path` once it is complete: a symlink already at
/// `path` is replaced, not followed (rename does not follow its target),
/// and a failure, or an interrupted run, leaves no partial file.
llvm::Error
writeFileReplacing(llvm::StringRef path,
                   llvm::function_ref<void(llvm::raw_ostream &)> write);

/// Writes `data` as a float64 .npy file (through writeFileReplacing).
llvm::Error writeNpy(llvm::StringRef path, llvm::ArrayRef<int64_t> shape,
                     llvm::ArrayRef<double> data);

} // namespace accel_run

#endif // ACCEL_TOOLS_ACCEL_RUN_NPY_H
