//===- accel-systolic-translate.cpp - systolic text <-> binary ------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Encodes a `systolic.program` in the binary format of
// docs/systolic-binary.md, and decodes such a binary back into a module:
//
//   accel-systolic-translate --to-binary in.mlir -o out.bin [--program=@name]
//   accel-systolic-translate --from-binary in.bin -o out.mlir
//
// One program per binary file: --to-binary needs --program when the module
// holds several. The output is written to a temporary file next to it and
// renamed into place, so a failed run leaves nothing behind and never a
// partial file. Every error is an `error:` line and exit code 1.
//
//===----------------------------------------------------------------------===//

#include "accel/Dialect/Systolic/Translate.h"
#include "accel/InitAll.h"
#include "accel/Support/InputLimits.h"
#include "accel/Support/ToolInput.h"
#include "accel/Systolic/Binary.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace cl = llvm::cl;

namespace {

enum class Mode { Unset, ToBinary, FromBinary };

cl::opt<Mode> mode(cl::desc("Direction:"), cl::init(Mode::Unset),
                   cl::values(clEnumValN(Mode::ToBinary, "to-binary",
                                         "systolic.program text -> binary"),
                              clEnumValN(Mode::FromBinary, "from-binary",
                                         "binary -> systolic.program text")));
cl::opt<std::string> inputFilename(cl::Positional, cl::desc("<input file>"),
                                   cl::init("-"));
cl::opt<std::string> outputFilename("o", cl::desc("Output file ('-': stdout)"),
                                    cl::value_desc("filename"), cl::init("-"));
cl::opt<std::string>
    programName("program",
                cl::desc("With --to-binary: the systolic.program to encode "
                         "(@name or name), when the module has several"),
                cl::value_desc("@name"));
cl::opt<bool> allowBytecode(
    "allow-bytecode",
    cl::desc("With --to-binary: read MLIR bytecode input (refused by "
             "default: MLIR 22's bytecode reader can crash on malformed "
             "bytecode, so pass this only for bytecode you trust)"),
    cl::init(false));

constexpr const char *kTool = "accel-systolic-translate";

int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), kTool) << message << "\n";
  return 1;
}

/// Writes through a temporary file in the output's folder, renamed over
/// the output at the end (llvm::writeToOutput); "-" is stdout.
int writeOutput(llvm::function_ref<void(llvm::raw_ostream &)> write) {
  if (llvm::Error e =
          llvm::writeToOutput(outputFilename, [&](llvm::raw_ostream &os) {
            write(os);
            return llvm::Error::success();
          }))
    return fail("cannot write output file '" + outputFilename +
                "': " + llvm::errorToErrorCode(std::move(e)).message());
  return 0;
}

int toBinary(MLIRContext &context) {
  llvm::SourceMgr sourceMgr;
  std::string error;
  auto file = openInputFile(inputFilename, &error);
  if (!file)
    return fail(error);
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  // Input that would crash MLIR is refused with a located error
  // (ToolInput.h). Parsing verifies the module, so every program in it is
  // valid.
  accel::ToolInputOptions inputOptions;
  inputOptions.allowBytecode = allowBytecode;
  OwningOpRef<ModuleOp> module = accel::loadToolInput(
      std::move(file), sourceMgr, context, llvm::errs(), inputOptions);
  if (!module)
    return 1;

  llvm::Expected<systolic::ProgramOp> chosen = systolic::selectProgram(
      *module, StringRef(programName).ltrim('@'), inputFilename,
      "; a binary holds one: pick it with --program=@name");
  if (!chosen)
    return fail(llvm::toString(chosen.takeError()));

  FailureOr<::sysarray::Program> program = systolic::toProgram(*chosen);
  if (failed(program))
    return 1;
  std::vector<uint8_t> bytes = ::sysarray::encodeProgram(*program);
  return writeOutput([&](llvm::raw_ostream &os) {
    os.write(reinterpret_cast<const char *>(bytes.data()), bytes.size());
  });
}

int fromBinary(MLIRContext &context) {
  auto file = llvm::MemoryBuffer::getFileOrSTDIN(inputFilename,
                                                 /*IsText=*/false);
  if (std::error_code ec = file.getError())
    return fail("cannot read '" + inputFilename + "': " + ec.message());
  llvm::ArrayRef<uint8_t> bytes(
      reinterpret_cast<const uint8_t *>((*file)->getBufferStart()),
      (*file)->getBufferSize());
  llvm::Expected<::sysarray::Program> program =
      ::sysarray::decodeProgram(bytes);
  if (!program)
    return fail("'" + inputFilename +
                "': " + llvm::toString(program.takeError()));

  // A well-formed binary can still break the ISA's rules (an mvin past its
  // buffer, a compute without a preload): the verifier says which
  // instruction, by its "instruction N" location.
  context.getDiagEngine().registerHandler([&](Diagnostic &diag) {
    llvm::raw_ostream &os = llvm::errs();
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      llvm::WithColor::error(os, kTool);
    else if (diag.getSeverity() == DiagnosticSeverity::Warning)
      llvm::WithColor::warning(os, kTool);
    else
      llvm::WithColor::note(os, kTool);
    os << "'" << inputFilename << "'";
    if (auto name = dyn_cast<NameLoc>(diag.getLocation()))
      os << ", " << name.getName().getValue();
    os << ": " << diag << "\n";
    for (Diagnostic &note : diag.getNotes()) {
      llvm::WithColor::note(os, kTool) << "'" << inputFilename << "'";
      if (auto name = dyn_cast<NameLoc>(note.getLocation()))
        os << ", " << name.getName().getValue();
      os << ": " << note << "\n";
    }
    return success();
  });
  // The op dump MLIR appends to verifier errors is noise here: the
  // location already names the instruction.
  context.printOpOnDiagnostic(false);
  Location loc = FileLineColLoc::get(&context, inputFilename, 0, 0);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  OpBuilder builder(&context);
  builder.setInsertionPointToEnd(module->getBody());
  systolic::fromProgram(builder, loc, *program);
  if (failed(verify(*module)))
    return 1;
  return writeOutput([&](llvm::raw_ostream &os) { module->print(os); });
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(
      argc, argv,
      "systolic program text <-> binary (docs/systolic-binary.md)\n");
  if (mode == Mode::Unset)
    return fail("choose a direction: --to-binary or --from-binary");
  if (mode == Mode::FromBinary && !programName.empty())
    return fail("--program applies to --to-binary only (a binary holds one "
                "program)");
  DialectRegistry registry;
  mlir::accel::registerAllAccelDialects(registry);
  MLIRContext context(registry);
  context.loadDialect<systolic::SystolicDialect>();
  return mode == Mode::ToBinary ? toBinary(context) : fromBinary(context);
}
