//===- MetadataFuzzer.cpp - libFuzzer target: the binary readers ----------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel-fuzz-metadata: the readers of files other programs write. The first
// input byte picks the reader, the rest is its input:
//
//   even (e.g. '0'): GPU kernel metadata JSON (parseKernelMetadata). What
//     parses must pass verifyKernelMetadata, and toJson of it must parse
//     back to an equal KernelMetadata and print the same text again.
//   odd (e.g. '1'): a systolic program binary (decodeProgram). What decodes
//     must encode back to exactly the input bytes (Binary.h promises one
//     encoding per program).
//
// Besides crashes, a broken round trip aborts with a message naming it.
//
//===----------------------------------------------------------------------===//

#include "accel/Runtime/KernelMetadata.h"
#include "accel/Systolic/Binary.h"
#include <cstdio>
#include <cstdlib>
#include <cstring>

/// As in FuzzSupport.cpp: LLVM's inlined allocators would poison memory
/// that the uninstrumented libLLVM hands out.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

static void fail(const char *what) {
  std::fprintf(stderr, "accel-fuzz-metadata: %s\n", what);
  std::abort();
}

static void fuzzKernelMetadata(llvm::StringRef json) {
  using namespace mlir::accel;
  llvm::Expected<KernelMetadata> parsed = parseKernelMetadata(json);
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return;
  }
  if (llvm::Error e = verifyKernelMetadata(*parsed)) {
    std::fprintf(stderr, "%s\n", llvm::toString(std::move(e)).c_str());
    fail("parseKernelMetadata accepted what verifyKernelMetadata rejects");
  }
  std::string text = toJson(*parsed);
  llvm::Expected<KernelMetadata> again = parseKernelMetadata(text);
  if (!again) {
    std::fprintf(stderr, "%s\n%s\n", text.c_str(),
                 llvm::toString(again.takeError()).c_str());
    fail("toJson wrote metadata that parseKernelMetadata rejects");
  }
  if (*again != *parsed)
    fail("parseKernelMetadata(toJson(m)) != m");
  if (toJson(*again) != text)
    fail("toJson is not stable across a round trip");
}

static void fuzzSystolicBinary(llvm::ArrayRef<uint8_t> bytes) {
  llvm::Expected<sysarray::Program> program = sysarray::decodeProgram(bytes);
  if (!program) {
    llvm::consumeError(program.takeError());
    return;
  }
  std::vector<uint8_t> encoded = sysarray::encodeProgram(*program);
  if (encoded.size() != bytes.size() ||
      (!encoded.empty() &&
       std::memcmp(encoded.data(), bytes.data(), encoded.size()) != 0))
    fail("encodeProgram(decodeProgram(bytes)) != bytes");
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  if (data[0] % 2 == 0)
    fuzzKernelMetadata(
        llvm::StringRef(reinterpret_cast<const char *>(data + 1), size - 1));
  else
    fuzzSystolicBinary(llvm::ArrayRef<uint8_t>(data + 1, size - 1));
  return 0;
}
