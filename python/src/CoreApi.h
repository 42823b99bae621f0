//===- CoreApi.h - the MLIR work behind accel._core --------------*- C++
//-*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The boundary between the Python extension and the compiler. LLVM and MLIR
// are built without exceptions, nanobind needs them, so the two halves are
// compiled with different flags: CoreApi.cpp (project flags) does all the MLIR
// work, Module.cpp (-fexceptions) binds it. This header is the only thing they
// share, so it uses nothing but the standard library.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_PYTHON_COREAPI_H
#define ACCEL_PYTHON_COREAPI_H

#include <string>

namespace mlir {
namespace accel {
namespace python {

/// What a call produced: on success the printed IR, on failure the
/// diagnostics as located text ("<python>:3:5: error: ..."). Nothing here
/// aborts: parse errors, verifier errors, invalid pipelines and pass failures
/// all come back as ok = false.
struct CoreResult {
  bool ok = false;
  std::string output;
  std::string diagnostics;
};

/// The name the input buffer has in diagnostics.
constexpr const char *kSourceName = "<python>";

/// Parses `text` (a module, or ops that are wrapped into one), verifies it and
/// prints it, in the generic op form when `generic` is set.
CoreResult parseModule(const std::string &text, bool generic);

/// Parses and verifies `text`, runs `pipeline` on it and prints the result.
/// `pipeline` is either anchored, "builtin.module(pass1,pass2)", as
/// accel-opt's --pass-pipeline takes it, or a bare pass list,
/// "pass1,func.func(pass2)". Passes anchored on nested ops must be nested
/// (func.func(...)), as in accel-opt's --pass-pipeline.
CoreResult runPipeline(const std::string &text, const std::string &pipeline);

/// "accel <version>+<git commit>", the compiler id written into kernel
/// metadata.
std::string compilerId();

} // namespace python
} // namespace accel
} // namespace mlir

#endif // ACCEL_PYTHON_COREAPI_H
