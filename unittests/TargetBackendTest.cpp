//===- TargetBackendTest.cpp - the back ends behind one interface ---------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The registry of include/accel/Target/Backend.h and a back end driven
// through the interface alone, into a sink that is not accel-compile's
// staging folder. What each back end emits is tested by lit
// (test/Tools/accel-compile) and kept identical across refactorings by
// scripts/artifact-hashes.py.
//
//===----------------------------------------------------------------------===//

#include "accel/InitAll.h"
#include "accel/Target/Backend.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"
#include <map>
#include <string>

using namespace mlir;
using namespace mlir::accel;

namespace {

/// Keeps the artifacts in memory; files a program writes go to a scratch
/// folder and are read back when adopted.
class MemorySink final : public ArtifactSink {
public:
  MemorySink() {
    llvm::SmallString<128> dir;
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("accel-sink", dir));
    scratch = dir.str().str();
  }
  ~MemorySink() override { llvm::sys::fs::remove_directories(scratch); }
  using ArtifactSink::add;
  llvm::Error add(llvm::StringRef name, llvm::StringRef bytes) override {
    files[name.str()] = bytes.str();
    return llvm::Error::success();
  }
  std::string pathOf(llvm::StringRef name) const override {
    llvm::SmallString<128> path(scratch);
    llvm::sys::path::append(path, name);
    return path.str().str();
  }
  void adopt(llvm::StringRef name) override {
    auto buffer = llvm::MemoryBuffer::getFile(pathOf(name));
    files[name.str()] = buffer ? (*buffer)->getBuffer().str() : "<missing>";
  }
  std::string temporary(llvm::StringRef name) override { return pathOf(name); }

  std::map<std::string, std::string> files;

private:
  std::string scratch;
};

OwningOpRef<ModuleOp> parse(MLIRContext &context, llvm::StringRef text) {
  return parseSourceString<ModuleOp>(text, &context);
}

MLIRContext &getContext() {
  static MLIRContext *context = [] {
    DialectRegistry registry;
    registerAllAccelDialects(registry);
    return new MLIRContext(registry);
  }();
  return *context;
}

TEST(TargetBackend, EveryTargetIsFoundByItsName) {
  EXPECT_EQ(getTargetBackends().size(), 4u);
  for (llvm::StringRef name : {"systolic", "nvptx", "amdgpu", "cpu"}) {
    const TargetBackend *backend = lookupTargetBackend(name);
    ASSERT_NE(backend, nullptr) << name.str();
    EXPECT_EQ(backend->getName(), name);
  }
  EXPECT_EQ(lookupTargetBackend("tpu"), nullptr);
  EXPECT_EQ(lookupTargetBackend(""), nullptr);
}

TEST(TargetBackend, SystolicWritesABinaryAndItsMetadataIntoAnySink) {
  OwningOpRef<ModuleOp> module = parse(getContext(), R"mlir(
    func.func @mm(%a: tensor<40x70xi8>, %b: tensor<70x36xi8>) -> tensor<40x36xi32> {
      %c = tensor.empty() : tensor<40x36xi32>
      %0 = accel.matmul ins(%a, %b : tensor<40x70xi8>, tensor<70x36xi8>) outs(%c : tensor<40x36xi32>) -> tensor<40x36xi32>
      return %0 : tensor<40x36xi32>
    })mlir");
  ASSERT_TRUE(module);
  MemorySink sink;
  BackendOptions options;
  options.inputName = "mm.mlir";
  options.pipelineOptions = "rows=8 cols=8";
  llvm::Error error =
      lookupTargetBackend("systolic")->compile(*module, sink, options);
  ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));
  ASSERT_EQ(sink.files.size(), 2u);
  ASSERT_TRUE(sink.files.count("mm.bin"));
  ASSERT_TRUE(sink.files.count("mm.json"));
  EXPECT_NE(sink.files["mm.json"].find("\"target\": \"systolic\""),
            std::string::npos);
  EXPECT_NE(sink.files["mm.json"].find("\"rows\": 8"), std::string::npos);
}

TEST(TargetBackend, AFailureNamesTheInputAndWritesNothing) {
  for (const TargetBackend *backend : getTargetBackends()) {
    OwningOpRef<ModuleOp> module = parse(getContext(), "module {}");
    ASSERT_TRUE(module);
    MemorySink sink;
    BackendOptions options;
    options.inputName = "empty.mlir";
    options.rocmToolkit = "/nonexistent";
    llvm::Error error = backend->compile(*module, sink, options);
    ASSERT_TRUE(bool(error)) << backend->getName().str();
    std::string message = llvm::toString(std::move(error));
    // The AMD back end checks its linker first; the others find nothing
    // to compile.
    EXPECT_TRUE(message.find("'empty.mlir' has no function to compile") !=
                    std::string::npos ||
                message.find("'/nonexistent' has no executable") !=
                    std::string::npos)
        << backend->getName().str() << ": " << message;
    EXPECT_TRUE(sink.files.empty()) << backend->getName().str();
  }
}

TEST(TargetBackend, BadPipelineOptionsAreAnError) {
  OwningOpRef<ModuleOp> module = parse(getContext(), "module {}");
  MemorySink sink;
  BackendOptions options;
  options.pipelineOptions = "no-such-option=1";
  llvm::Error error =
      lookupTargetBackend("systolic")->compile(*module, sink, options);
  ASSERT_TRUE(bool(error));
  EXPECT_NE(llvm::toString(std::move(error))
                .find("bad --options 'no-such-option=1' for "
                      "accel-systolic-pipeline"),
            std::string::npos);
}

} // namespace
