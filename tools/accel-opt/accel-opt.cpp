//===- accel-opt.cpp - the accel optimizer driver -------------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// mlir-opt for accel: our dialects and passes plus the upstream dialects we
// parse. Errors are reported as `error:` diagnostics (file:line:col for the
// input) with exit code 1; a failed run leaves no output file.
//
//===----------------------------------------------------------------------===//

#include "accel/InitAll.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/WithColor.h"

/// Checks up front that `path` can be written, so that a bad `-o` gets an
/// `error:` line of ours instead of a bare message after all the work.
static bool checkOutputPath(llvm::StringRef path) {
  if (path == "-")
    return true;
  llvm::StringRef dir = llvm::sys::path::parent_path(path);
  if (dir.empty())
    dir = ".";
  std::error_code ec;
  if (!llvm::sys::fs::is_directory(dir))
    ec = std::make_error_code(std::errc::no_such_file_or_directory);
  else
    ec = llvm::sys::fs::access(dir, llvm::sys::fs::AccessMode::Write);
  if (!ec && llvm::sys::fs::is_directory(path))
    ec = std::make_error_code(std::errc::is_a_directory);
  if (!ec)
    return true;
  llvm::WithColor::error(llvm::errs(), "accel-opt")
      << "cannot write output file '" << path << "': " << ec.message()
      << "\n";
  return false;
}

int main(int argc, char **argv) {
  llvm::setBugReportMsg(
      "PLEASE submit a bug report to the accel issue tracker and include the "
      "input .mlir file, the accel-opt command line and the crash backtrace "
      "below.\n");
  mlir::accel::registerAllAccelPasses();
  mlir::DialectRegistry registry;
  mlir::accel::registerAllAccelDialects(registry);
  // As in mlir-opt: gpu-module-to-binary translates kernels to LLVM IR.
  mlir::registerAllToLLVMIRTranslations(registry);
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv,
      "accel optimizer driver (version " ACCEL_VERSION_STRING ")\n",
      registry);
  if (!checkOutputPath(outputFilename))
    return EXIT_FAILURE;
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, inputFilename, outputFilename, registry));
}
