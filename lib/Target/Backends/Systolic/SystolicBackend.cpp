//===- SystolicBackend.cpp - the systolic-array back end
//--------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel-systolic-pipeline, then each systolic.program as the binary of
// docs/systolic-binary.md and a JSON file: machine, buffers, predicted
// cycles.
//
//===----------------------------------------------------------------------===//

#include "accel/Runtime/KernelMetadata.h"
#include "../Internal.h"
#include "accel/Dialect/Systolic/IR/SystolicOps.h"
#include "accel/Dialect/Systolic/Translate.h"
#include "accel/Pipelines/Pipelines.h"
#include "accel/Systolic/Binary.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::accel;

namespace {

llvm::json::Value configJson(const sysarray::MachineConfig &c) {
  return llvm::json::Object{{"rows", c.rows},
                            {"cols", c.cols},
                            {"input", sysarray::elemTypeName(c.inputType)},
                            {"accumulator", sysarray::elemTypeName(c.accType)},
                            {"spad_rows", c.spadRows},
                            {"spad_banks", c.spadBanks},
                            {"acc_rows", c.accRows},
                            {"acc_banks", c.accBanks},
                            {"dram_bytes_per_cycle", c.dramBytesPerCycle},
                            {"dram_latency", c.dramLatency},
                            {"vector_lanes", c.vectorLanes}};
}

} // namespace

llvm::Expected<std::vector<SystolicProgram>>
mlir::accel::compileSystolicPrograms(ModuleOp module,
                                     const BackendOptions &opts) {
  accel::AccelSystolicPipelineOptions options;
  if (failed(options.parseFromString(opts.pipelineOptions)))
    return backendError("bad --options '" + opts.pipelineOptions +
                        "' for accel-systolic-pipeline");
  PassManager pm(module.getContext());
  accel::buildAccelSystolicPipeline(pm, options);
  if (failed(pm.run(module)))
    return backendError("cannot compile '" + opts.inputName +
                        "' for the systolic array");
  std::vector<SystolicProgram> programs;
  for (auto programOp : module.getOps<systolic::ProgramOp>()) {
    FailureOr<sysarray::Program> program = systolic::toProgram(programOp);
    if (failed(program))
      return backendError("program @" + programOp.getSymName() +
                          " does not verify");
    SystolicProgram compiled{std::move(*program), std::nullopt, std::nullopt};
    if (auto predicted =
            programOp->getAttrOfType<IntegerAttr>("predicted_cycles"))
      compiled.predictedCycles = predicted.getInt();
    if (auto scratch =
            programOp->getAttrOfType<IntegerAttr>("scratch_tensor_bytes"))
      compiled.scratchTensorBytes = scratch.getInt();
    programs.push_back(std::move(compiled));
  }
  return programs;
}

namespace {

llvm::Error compileSystolic(ModuleOp module, ArtifactSink &sink,
                            const BackendOptions &opts) {
  llvm::Expected<std::vector<SystolicProgram>> programs =
      compileSystolicPrograms(module, opts);
  if (!programs)
    return programs.takeError();
  unsigned count = 0;
  for (SystolicProgram &compiled : *programs) {
    sysarray::Program *program = &compiled.program;
    std::string name = program->name;
    if (llvm::Error e =
            sink.add(name + ".bin", sysarray::encodeProgram(*program)))
      return e;
    llvm::json::Array buffers;
    for (const sysarray::Buffer &b : program->buffers) {
      llvm::json::Array shape;
      for (int64_t d : b.shape)
        shape.push_back(d);
      buffers.push_back(llvm::json::Object{
          {"name", b.name},
          {"role", b.role == sysarray::BufferRole::Arg      ? "arg"
                   : b.role == sysarray::BufferRole::Result ? "result"
                                                            : "scratch"},
          {"position", b.position},
          {"dtype", sysarray::elemTypeName(b.type)},
          {"shape", std::move(shape)},
          {"bytes", b.sizeBytes()}});
    }
    llvm::json::Object meta{
        {"format_version", 1},
        {"compiler", mlir::accel::getAccelCompilerId()},
        {"target", "systolic"},
        {"kernel", name},
        {"artifact", name + ".bin"},
        {"machine", configJson(program->config)},
        {"buffers", std::move(buffers)},
        {"instructions", uint64_t(program->instructions.size())}};
    if (compiled.predictedCycles)
      meta["predicted_cycles"] = *compiled.predictedCycles;
    // The scratch values' bytes before they share buffers.
    if (compiled.scratchTensorBytes)
      meta["scratch_tensor_bytes"] = *compiled.scratchTensorBytes;
    std::string json;
    llvm::raw_string_ostream os(json);
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(meta))) << "\n";
    if (llvm::Error e = sink.add(name + ".json", json))
      return e;
    ++count;
  }
  if (!count)
    return backendError("'" + opts.inputName + "' has no function to compile");
  return llvm::Error::success();
}

} // namespace

const TargetBackend &mlir::accel::getSystolicBackend() {
  static const FunctionBackend backend("systolic", compileSystolic);
  return backend;
}
