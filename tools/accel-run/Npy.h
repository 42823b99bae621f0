//===- Npy.h - read and write .npy arrays -----------------------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_TOOLS_ACCEL_RUN_NPY_H
#define ACCEL_TOOLS_ACCEL_RUN_NPY_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
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

/// Writes `data` as a float64 .npy file.
llvm::Error writeNpy(llvm::StringRef path, llvm::ArrayRef<int64_t> shape,
                     llvm::ArrayRef<double> data);

} // namespace accel_run

#endif // ACCEL_TOOLS_ACCEL_RUN_NPY_H
