//===- accel-opt.cpp - the accel optimizer driver -------------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// mlir-opt for accel: our dialects and passes plus the upstream dialects we
// parse. Errors are reported as `error:` diagnostics (file:line:col for the
// input) with exit code 1; a failed run leaves no output file, and leaves a
// file that already had the output's name as it was (`-o in.mlir` on the
// input itself included). --max-compile-seconds bounds a run's time
// (accel/Support/CompileBudget.h).
//
//===----------------------------------------------------------------------===//

#include "accel/InitAll.h"
#include "accel/Support/CompileBudget.h"
#include "accel/Support/InputLimits.h"
#include "accel/Support/ToolInput.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

static llvm::cl::opt<bool>
    allowBytecode("allow-bytecode",
                  llvm::cl::desc(mlir::accel::kAllowBytecodeDescription),
                  llvm::cl::init(false));

static llvm::cl::opt<double> maxCompileSeconds(
    "max-compile-seconds",
    llvm::cl::desc(
        "Stop a run that takes longer than this many seconds of wall-clock "
        "time, with an error and no output (default: 0, no limit; give one "
        "for untrusted input: one MLIR pass can take unbounded time). The "
        "run then happens in a child process, and its output is held in "
        "memory until it is complete"),
    llvm::cl::init(0));

static llvm::cl::opt<uint64_t> maxCompileMemory(
    "max-compile-memory",
    llvm::cl::desc("Stop a run whose resident memory grows past this many "
                   "bytes, with an error and no output (default: 0, no "
                   "limit); the run then happens in a child process"),
    llvm::cl::init(0));

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
      << "cannot write output file '" << path << "': " << ec.message() << "\n";
  return false;
}

static void reportWriteError(llvm::StringRef path, const llvm::Twine &why) {
  llvm::WithColor::error(llvm::errs(), "accel-opt")
      << "cannot write output file '" << path << "': " << why << "\n";
}

/// Runs `run` with a stream for `path` and keeps what it wrote only when it
/// succeeds. Upstream's MlirOptMain opens (truncates) the output before the
/// run and removes it on failure, so a failed `-o in.mlir` lost the input
/// and a failed run lost any earlier file of that name
/// (docs/bad-input-catalogue.md, F7). Here a regular file, or a path that
/// does not exist yet, is written to a temporary file in the same folder
/// and renamed over the path on success: a failed or interrupted run
/// changes nothing there. A symlink is written through (the link and its
/// target stay), from memory, after the run succeeded. Devices and pipes
/// (`-o /dev/null`) are streamed to directly: there is nothing to keep.
static llvm::LogicalResult
writeOutput(llvm::StringRef path,
            llvm::function_ref<llvm::LogicalResult(llvm::raw_ostream &)> run) {
  if (path == "-")
    return run(llvm::outs());
  llvm::sys::fs::file_status link;
  bool exists = !llvm::sys::fs::status(path, link, /*follow=*/false);
  bool isLink = exists && link.type() == llvm::sys::fs::file_type::symlink_file;
  bool isRegular =
      exists && link.type() == llvm::sys::fs::file_type::regular_file;
  if (exists && !isLink && !isRegular) {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
    if (ec)
      return reportWriteError(path, ec.message()), llvm::failure();
    return run(os);
  }
  if (isLink) {
    std::string buffer;
    llvm::raw_string_ostream os(buffer);
    if (llvm::failed(run(os)))
      return llvm::failure();
    std::error_code ec;
    llvm::raw_fd_ostream out(path, ec, llvm::sys::fs::OF_None);
    if (ec)
      return reportWriteError(path, ec.message()), llvm::failure();
    out << buffer;
    out.close();
    if (out.has_error())
      return reportWriteError(path, out.error().message()), llvm::failure();
    return llvm::success();
  }
  // A hidden name beside the output: the rename stays within one file
  // system, and a folder listing does not show it as a result.
  llvm::SmallString<256> model = llvm::sys::path::parent_path(path);
  llvm::sys::path::append(model, "." + llvm::sys::path::filename(path) +
                                     ".accel-opt-%%%%%%.tmp");
  llvm::Expected<llvm::sys::fs::TempFile> temp =
      llvm::sys::fs::TempFile::create(model);
  if (!temp)
    return reportWriteError(path, llvm::toString(temp.takeError())),
           llvm::failure();
  // A file that is replaced keeps its permissions, as one overwritten would.
  if (isRegular)
    (void)llvm::sys::fs::setPermissions(temp->FD, link.permissions());
  llvm::LogicalResult result = llvm::failure();
  {
    llvm::raw_fd_ostream os(temp->FD, /*shouldClose=*/false);
    result = run(os);
    os.flush();
    if (llvm::succeeded(result) && os.has_error()) {
      reportWriteError(path, os.error().message());
      os.clear_error();
      result = llvm::failure();
    }
  }
  if (llvm::failed(result)) {
    llvm::consumeError(temp->discard());
    return llvm::failure();
  }
  if (llvm::Error e = temp->keep(path))
    return reportWriteError(path, llvm::toString(std::move(e))),
           llvm::failure();
  return llvm::success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
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
      argc, argv, "accel optimizer driver (version " ACCEL_VERSION_STRING ")\n",
      registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  // These print to stdout and read no input; upstream's driver does them.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, inputFilename, "-", registry));
  if (!checkOutputPath(outputFilename))
    return EXIT_FAILURE;
  // As upstream's driver: reading a terminal looks like a hang otherwise.
  if (inputFilename == "-" &&
      llvm::sys::Process::FileDescriptorIsDisplayed(fileno(stdin)))
    llvm::errs() << "(processing input from stdin now, hit ctrl-c/ctrl-d to "
                    "interrupt)\n";
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::WithColor::error(llvm::errs(), "accel-opt") << errorMessage << "\n";
    return EXIT_FAILURE;
  }
  // Under a budget the rest runs in a child process (after the input
  // is read: a child in a process group of its own must not read a
  // terminal); this one waits and exits with its code.
  mlir::accel::CompileBudget budget;
  budget.seconds = maxCompileSeconds;
  budget.residentBytes = maxCompileMemory;
  if (std::optional<int> code =
          mlir::accel::runWithCompileBudget(budget, "accel-opt", llvm::errs()))
    return *code;
  // Refused before MLIR sees them: bytecode without --allow-bytecode, as
  // MLIR's bytecode reader crashes on some malformed bytecode, and deep
  // input, as MLIR's parser recurses once per nesting level and overflows
  // the stack (docs/bad-input-catalogue.md, F1). Each part of a
  // --split-input-file is parsed on its own (and as text, even when it
  // starts with the bytecode magic).
  mlir::accel::ToolInputOptions inputOptions;
  inputOptions.allowBytecode = allowBytecode;
  inputOptions.allowUnregisteredDialects =
      config.shouldAllowUnregisteredDialects();
  inputOptions.splitMarker = config.inputSplitMarker();
  if (mlir::failed(mlir::accel::checkToolInput(
          input->getMemBufferRef(), registry, llvm::errs(), inputOptions)))
    return EXIT_FAILURE;
  if (mlir::accel::hasCompileBudget()) {
    // The whole output first, then leave to write it: a run stopped by the
    // budget writes nothing, not even to stdout.
    std::string output;
    llvm::raw_string_ostream os(output);
    llvm::LogicalResult result =
        mlir::MlirOptMain(os, std::move(input), registry, config);
    if (!mlir::accel::mayCommit())
      return EXIT_FAILURE;
    return mlir::asMainReturnCode(
        writeOutput(outputFilename, [&](llvm::raw_ostream &out) {
          out << output;
          return result;
        }));
  }
  return mlir::asMainReturnCode(
      writeOutput(outputFilename, [&](llvm::raw_ostream &os) {
        return mlir::MlirOptMain(os, std::move(input), registry, config);
      }));
}
