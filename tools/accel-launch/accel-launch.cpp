//===- accel-launch.cpp - Run recorded kernels on an NVIDIA GPU -----------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The project's own launcher, alone: it runs on a GPU machine that has no
// LLVM, no MLIR and no build of ours. It is linked from the kernel runtime's
// sources (KernelMetadata, KernelArguments, the CUDA driver launcher) and a
// static LLVM Support, with libstdc++ and libgcc static too, so the binary
// needs only the C library; libcuda is opened with dlopen() at run time.
//
//   accel-launch [--repeat=N] [--device=N] RECORD...
//       Launches every function of each folder `accel-run --target=nvptx
//       --record=RECORD` wrote, in order, through the CUDA driver, and writes
//       what its kernels wrote next to the inputs (<fn>.b<N>.result.bin, or
//       <fn>.<buffer>.result.bin for a function of several kernels), where
//       `accel-run --replay=RECORD` checks it against the fp64 oracle.
//   accel-launch --time [--repeat=N] [--device=N] METADATA.json...
//       Times a compiled kernel (accel-compile's metadata and its cubin or
//       PTX) on inputs of deterministic pseudo-random values (floats in [-1,
//       1), the f8 kinds in (-2, 2)), the outputs discarded: the median of N timed launches.
//
// Every failure names the folder, the function and the kernel; exit code 1
// when any function did not run, and that function's result files are
// removed (a stale result is never left to be checked).
//
//===----------------------------------------------------------------------===//

#include "accel/Runtime/CudaLauncher.h"
#include "accel/Runtime/KernelMetadata.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace mlir::accel;
using llvm::StringRef;
using llvm::Twine;

namespace {

struct Options {
  unsigned repeat = 0;
  int device = 0;
  bool time = false;
  std::vector<std::string> paths;
};

llvm::Error makeError(const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Expected<std::vector<uint8_t>> readBytes(const std::string &path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return makeError("cannot read '" + path +
                     "': " + buffer.getError().message());
  StringRef data = (*buffer)->getBuffer();
  return std::vector<uint8_t>(data.begin(), data.end());
}

/// Writes `bytes` to `path` through a temporary file renamed into place, so
/// a reader never sees part of it.
llvm::Error writeBytes(const std::string &path, llvm::ArrayRef<uint8_t> bytes) {
  std::string temporary = path + ".partial";
  std::error_code ec;
  {
    llvm::raw_fd_ostream os(temporary, ec, llvm::sys::fs::OF_None);
    if (ec)
      return makeError("cannot write '" + temporary + "': " + ec.message());
    os.write(reinterpret_cast<const char *>(bytes.data()), bytes.size());
    os.close();
    if (os.has_error()) {
      os.clear_error();
      llvm::sys::fs::remove(temporary);
      return makeError("cannot write '" + temporary + "'");
    }
  }
  if ((ec = llvm::sys::fs::rename(temporary, path))) {
    llvm::sys::fs::remove(temporary);
    return makeError("cannot write '" + path + "': " + ec.message());
  }
  return llvm::Error::success();
}

StringRef asChars(llvm::ArrayRef<uint8_t> bytes) {
  return StringRef(reinterpret_cast<const char *>(bytes.data()), bytes.size());
}

/// The kernel image `meta` names in `folder`, checked against the sha256 its
/// metadata records: a cubin where there is one, else the PTX (the driver
/// JIT-compiles it; the NUL it needs is appended).
llvm::Expected<std::pair<std::vector<uint8_t>, bool>>
loadImage(const std::string &folder, const KernelMetadata &meta) {
  const bool ptx = meta.cubin.empty();
  const std::string &file = ptx ? meta.ptx : meta.cubin;
  const std::string &sha256 = ptx ? meta.ptxSha256 : meta.cubinSha256;
  if (file.empty())
    return makeError("kernel '" + meta.kernel + "' names no PTX or cubin");
  if (meta.target != "nvptx")
    return makeError("kernel '" + meta.kernel + "' is for target '" +
                     meta.target + "'; this launcher runs nvptx kernels");
  std::string path = folder + "/" + file;
  llvm::Expected<std::vector<uint8_t>> bytes = readBytes(path);
  if (!bytes)
    return bytes.takeError();
  // Evidence names its code: an image whose bytes are not those the
  // compiler recorded is not run.
  if (sha256.empty())
    return makeError("'" + path + "' has no sha256 in the metadata of '" +
                     meta.kernel + "'");
  if (computeSha256Hex(asChars(*bytes)) != sha256)
    return makeError("'" + path + "' does not match the sha256 of '" +
                     meta.kernel + "' (changed after it was compiled)");
  if (ptx)
    bytes->push_back(0);
  return std::make_pair(std::move(*bytes), ptx);
}

llvm::Expected<KernelMetadata> loadMetadata(const std::string &path) {
  llvm::Expected<std::vector<uint8_t>> text = readBytes(path);
  if (!text)
    return text.takeError();
  llvm::Expected<KernelMetadata> meta = parseKernelMetadata(asChars(*text));
  if (!meta)
    return makeError("'" + path + "': " + toString(meta.takeError()));
  for (const KernelArgument &arg : meta->arguments)
    if (arg.kind != KernelArgKind::Buffer)
      return makeError("'" + path + "': scalar argument '" + arg.name +
                       "' is not recorded; this launcher passes buffers only");
  return std::move(*meta);
}

std::string formatMillis(std::vector<float> millis) {
  if (millis.empty())
    return "";
  std::sort(millis.begin(), millis.end());
  return llvm::formatv(" {0:f4} ms (median of {1})", millis[millis.size() / 2],
                       millis.size());
}

/// One function of a record folder: its kernels in launch order and its
/// buffers (file, bytes); kernel k's buffer arguments index `params[k]`.
struct RecordedFunction {
  std::string name;
  std::vector<KernelMetadata> kernels;
  std::vector<std::string> files;
  std::vector<std::vector<uint8_t>> storage;
  std::vector<std::vector<unsigned>> params;
  std::vector<bool> written;
  /// Buffer n's result file.
  std::vector<std::string> resultFiles;
};

llvm::Expected<RecordedFunction> readFunction(const std::string &folder,
                                              const llvm::json::Object &entry) {
  RecordedFunction fn;
  std::optional<StringRef> name = entry.getString("name");
  if (!name || !isPlainFileName(*name))
    return makeError("a function without a plain file name");
  fn.name = name->str();
  auto where = [&](const Twine &what) {
    return makeError("@" + fn.name + ": " + what);
  };
  const llvm::json::Array *list = entry.getArray("buffers");
  const llvm::json::Object *named = entry.getObject("buffers");
  std::vector<std::string> metaFiles;
  if (std::optional<StringRef> meta = entry.getString("metadata")) {
    if (!list)
      return where("'buffers' is not a list");
    metaFiles.push_back(meta->str());
  } else if (const llvm::json::Array *kernels = entry.getArray("kernels")) {
    if (!named)
      return where("'buffers' is not an object of named buffers");
    for (const llvm::json::Value &k : *kernels) {
      std::optional<StringRef> file = k.getAsString();
      if (!file)
        return where("'kernels' holds a non-string");
      metaFiles.push_back(file->str());
    }
  } else {
    return where("neither 'metadata' nor 'kernels'");
  }
  if (metaFiles.empty())
    return where("no kernels");
  llvm::StringMap<unsigned> byName;
  auto addBuffer = [&](StringRef file, StringRef resultFile) -> llvm::Error {
    if (!isPlainFileName(file))
      return where("buffer file '" + file + "' is not a plain file name");
    llvm::Expected<std::vector<uint8_t>> bytes =
        readBytes(folder + "/" + file.str());
    if (!bytes)
      return bytes.takeError();
    fn.files.push_back(file.str());
    fn.storage.push_back(std::move(*bytes));
    fn.resultFiles.push_back(resultFile.str());
    fn.written.push_back(false);
    return llvm::Error::success();
  };
  for (const std::string &file : metaFiles) {
    if (!isPlainFileName(file))
      return where("metadata '" + file + "' is not a plain file name");
    llvm::Expected<KernelMetadata> meta = loadMetadata(folder + "/" + file);
    if (!meta)
      return meta.takeError();
    fn.kernels.push_back(std::move(*meta));
  }
  if (list) {
    // One kernel: buffer argument i is the list's file i.
    const KernelMetadata &meta = fn.kernels.front();
    if (list->size() != meta.arguments.size())
      return where(Twine(list->size()) + " buffers recorded; kernel '" +
                   meta.kernel + "' takes " + Twine(meta.arguments.size()));
    std::vector<unsigned> params;
    for (auto [i, v] : llvm::enumerate(*list)) {
      std::optional<StringRef> file = v.getAsString();
      if (!file)
        return where("'buffers' holds a non-string");
      if (llvm::Error e = addBuffer(
              *file, (fn.name + ".b" + Twine(i) + ".result.bin").str()))
        return std::move(e);
      params.push_back(i);
    }
    fn.params.push_back(std::move(params));
  } else {
    // Several kernels: their arguments name the buffers they share.
    for (const auto &kv : *named) {
      std::optional<StringRef> file = kv.second.getAsString();
      if (!file)
        return where("buffer '" + StringRef(kv.first) + "' is not a file");
      if (!isPlainFileName(kv.first))
        return where("buffer name '" + StringRef(kv.first) +
                     "' cannot name a result file");
      byName[kv.first] = fn.files.size();
      if (llvm::Error e = addBuffer(
              *file,
              (fn.name + "." + StringRef(kv.first) + ".result.bin").str()))
        return std::move(e);
    }
    for (const KernelMetadata &meta : fn.kernels) {
      std::vector<unsigned> params;
      for (const KernelArgument &arg : meta.arguments) {
        auto it = byName.find(arg.name);
        if (it == byName.end())
          return where("kernel '" + meta.kernel + "' reads buffer '" +
                       arg.name + "', which is not recorded");
        params.push_back(it->second);
      }
      fn.params.push_back(std::move(params));
    }
  }
  for (auto [k, meta] : llvm::enumerate(fn.kernels))
    for (auto [arg, b] : llvm::zip(meta.arguments, fn.params[k])) {
      if (int64_t(fn.storage[b].size()) != arg.byteSize)
        return where("buffer '" + fn.files[b] + "' holds " +
                     Twine(fn.storage[b].size()) + " bytes; kernel '" +
                     meta.kernel + "' argument '" + arg.name + "' has " +
                     Twine(arg.byteSize));
      if (arg.access != BufferAccess::In)
        fn.written[b] = true;
    }
  return std::move(fn);
}

/// The result files a function entry of a manifest can have, from the
/// entry alone (its name and its buffers), whatever else in it is wrong.
std::vector<std::string> resultFilesOf(const llvm::json::Object &entry) {
  std::vector<std::string> files;
  std::optional<StringRef> name = entry.getString("name");
  if (!name || !isPlainFileName(*name))
    return files;
  if (const llvm::json::Array *list = entry.getArray("buffers"))
    for (size_t i = 0; i < list->size(); ++i)
      files.push_back((*name + ".b" + Twine(i) + ".result.bin").str());
  if (const llvm::json::Object *named = entry.getObject("buffers"))
    for (const auto &kv : *named)
      if (isPlainFileName(kv.first))
        files.push_back(
            (*name + "." + StringRef(kv.first) + ".result.bin").str());
  return files;
}

/// Launches every function of `folder`; the number that ran, and whether
/// the folder could be read at all.
unsigned launchRecord(CudaDriver &driver, const std::string &folder,
                      const Options &options, unsigned &functions,
                      std::string &device) {
  auto fail = [&](const Twine &message) {
    llvm::errs() << "accel-launch: error: " << folder << ": " << message
                 << "\n";
  };
  llvm::Expected<std::vector<uint8_t>> text =
      readBytes(folder + "/manifest.json");
  if (!text) {
    fail(toString(text.takeError()));
    ++functions;
    return 0;
  }
  llvm::Expected<llvm::json::Value> manifest =
      llvm::json::parse(asChars(*text));
  if (!manifest) {
    fail("manifest.json: " + toString(manifest.takeError()));
    ++functions;
    return 0;
  }
  const llvm::json::Object *root = manifest->getAsObject();
  const llvm::json::Array *entries =
      root ? root->getArray("functions") : nullptr;
  if (!root || root->getInteger("format_version") != 1 || !entries ||
      entries->empty()) {
    fail("manifest.json is not a version 1 record of some functions "
         "(format_version, functions)");
    ++functions;
    return 0;
  }
  std::optional<StringRef> compiler = root->getString("compiler");
  llvm::outs() << folder << ": recorded by "
               << (compiler ? *compiler : StringRef("an unknown compiler"))
               << "\n";
  unsigned ran = 0;
  for (const llvm::json::Value &value : *entries) {
    ++functions;
    const llvm::json::Object *entry = value.getAsObject();
    if (!entry) {
      fail("a function entry is not an object");
      continue;
    }
    // No result of an earlier launch may outlive a failed one, whatever
    // fails: the function's result files go first.
    for (const std::string &file : resultFilesOf(*entry))
      llvm::sys::fs::remove(folder + "/" + file);
    llvm::Expected<RecordedFunction> fn = readFunction(folder, *entry);
    if (!fn) {
      fail(toString(fn.takeError()));
      continue;
    }
    LaunchOptions launch;
    launch.device = options.device;
    launch.timedLaunches = options.repeat;
    std::string line = "@" + fn->name + ":";
    bool ok = true;
    for (auto [k, meta] : llvm::enumerate(fn->kernels)) {
      auto image = loadImage(folder, meta);
      if (!image) {
        fail("@" + fn->name + ": " + toString(image.takeError()));
        ok = false;
        break;
      }
      llvm::SmallVector<HostBuffer> buffers;
      for (unsigned b : fn->params[k])
        buffers.push_back(HostBuffer{fn->storage[b]});
      llvm::Expected<LaunchResult> result =
          driver.launch(meta, image->first, image->second, buffers, {}, launch);
      if (!result) {
        fail("@" + fn->name + " kernel '" + meta.kernel +
             "': " + toString(result.takeError()));
        ok = false;
        break;
      }
      device = llvm::formatv("{0} (compute capability {1}.{2})",
                             result->deviceName, result->computeCapabilityMajor,
                             result->computeCapabilityMinor);
      line += " " + meta.kernel + formatMillis(result->launchMillis);
    }
    if (!ok)
      continue;
    for (auto [b, file] : llvm::enumerate(fn->resultFiles)) {
      if (!fn->written[b])
        continue;
      if (llvm::Error e = writeBytes(folder + "/" + file, fn->storage[b])) {
        fail("@" + fn->name + ": " + toString(std::move(e)));
        ok = false;
      }
    }
    if (!ok) {
      for (const std::string &file : fn->resultFiles)
        llvm::sys::fs::remove(folder + "/" + file);
      continue;
    }
    llvm::outs() << line << "\n";
    ++ran;
  }
  return ran;
}

/// Deterministic pseudo-random bytes of `dtype` values: floats in [-1, 1)
/// (the f8 kinds in (-2, 2)), integers in [-8, 8).
void fillRandom(std::vector<uint8_t> &bytes, StringRef dtype, uint64_t &state) {
  auto next = [&]() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return uint32_t(state >> 33);
  };
  auto unit = [&]() { return float(next() & 0xFFFFFF) / float(1 << 23) - 1; };
  auto fill = [&](auto make) {
    using T = decltype(make());
    for (size_t i = 0; i + sizeof(T) <= bytes.size(); i += sizeof(T)) {
      T v = make();
      std::memcpy(&bytes[i], &v, sizeof(T));
    }
  };
  if (dtype == "f32")
    fill([&] { return unit(); });
  else if (dtype == "f64")
    fill([&] { return double(unit()); });
  else if (dtype == "bf16")
    fill([&] {
      float f = unit();
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      return uint16_t(bits >> 16);
    });
  else if (dtype == "f16")
    fill([&] {
      _Float16 h = _Float16(unit());
      uint16_t bits;
      std::memcpy(&bits, &h, 2);
      return bits;
    });
  else if (dtype.starts_with("f8"))
    // Sign, a biased exponent at most the bias (|x| < 2 in every f8 kind),
    // any mantissa: never a NaN or an infinity (0x80, NaN in the FNUZ
    // kinds, becomes 0).
    fill([&] {
      uint8_t b = uint8_t(next()) & 0xBF;
      return uint8_t(b == 0x80 ? 0 : b);
    });
  else if (dtype == "i1")
    fill([&] { return uint8_t(next() & 1); });
  else if (dtype == "i8")
    fill([&] { return int8_t(int(next() % 16) - 8); });
  else if (dtype == "i16")
    fill([&] { return int16_t(int(next() % 16) - 8); });
  else if (dtype == "i32")
    fill([&] { return int32_t(int(next() % 16) - 8); });
  else
    fill([&] { return int64_t(int(next() % 16) - 8); });
}

/// Times the kernel of one accel-compile metadata file; whether it ran.
bool timeKernel(CudaDriver &driver, const std::string &path,
                const Options &options, std::string &device) {
  auto fail = [&](const Twine &message) {
    llvm::errs() << "accel-launch: error: " << path << ": " << message << "\n";
    return false;
  };
  llvm::Expected<KernelMetadata> meta = loadMetadata(path);
  if (!meta)
    return fail(toString(meta.takeError()));
  std::string folder = llvm::sys::path::parent_path(path).str();
  if (folder.empty())
    folder = ".";
  auto image = loadImage(folder, *meta);
  if (!image)
    return fail(toString(image.takeError()));
  std::vector<std::vector<uint8_t>> storage;
  uint64_t state = 0x5eed;
  for (const KernelArgument &arg : meta->arguments) {
    storage.emplace_back(arg.byteSize);
    fillRandom(storage.back(), arg.dtype, state);
  }
  llvm::SmallVector<HostBuffer> buffers;
  for (std::vector<uint8_t> &s : storage)
    buffers.push_back(HostBuffer{s});
  LaunchOptions launch;
  launch.device = options.device;
  launch.timedLaunches = std::max(options.repeat, 1u);
  llvm::Expected<LaunchResult> result =
      driver.launch(*meta, image->first, image->second, buffers, {}, launch);
  if (!result)
    return fail("kernel '" + meta->kernel +
                "': " + toString(result.takeError()));
  device = llvm::formatv("{0} (compute capability {1}.{2})", result->deviceName,
                         result->computeCapabilityMajor,
                         result->computeCapabilityMinor);
  llvm::outs() << path << ": " << meta->kernel
               << formatMillis(result->launchMillis) << "\n";
  return true;
}

int usage(const Twine &message) {
  llvm::errs() << "accel-launch: error: " << message << "\n"
               << "usage: accel-launch [--repeat=N] [--device=N] RECORD...\n"
                  "       accel-launch --time [--repeat=N] [--device=N] "
                  "METADATA.json...\n";
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    StringRef arg = argv[i];
    unsigned value;
    if (arg == "--version") {
      llvm::outs() << getAccelCompilerId() << "\n";
      return 0;
    }
    if (arg == "--time")
      options.time = true;
    else if (arg.consume_front("--repeat=")) {
      if (arg.getAsInteger(10, value) || value > 100000)
        return usage("--repeat takes a count in [0, 100000]");
      options.repeat = value;
    } else if (arg.consume_front("--device=")) {
      if (arg.getAsInteger(10, value) || value > 1024)
        return usage("--device takes a device ordinal");
      options.device = int(value);
    } else if (arg.starts_with("-"))
      return usage("unknown option '" + arg + "'");
    else
      options.paths.push_back(arg.str());
  }
  if (options.paths.empty())
    return usage(options.time ? "no metadata files" : "no record folders");
  llvm::Expected<std::unique_ptr<CudaDriver>> driver = CudaDriver::open();
  if (!driver) {
    llvm::errs() << "accel-launch: error: " << toString(driver.takeError())
                 << "\n";
    return 1;
  }
  std::string device;
  unsigned ran = 0, total = 0;
  for (const std::string &path : options.paths) {
    if (options.time) {
      ++total;
      ran += timeKernel(**driver, path, options, device);
    } else {
      ran += launchRecord(**driver, path, options, total, device);
    }
  }
  llvm::outs() << "accel-launch: " << ran << " of " << total
               << (options.time ? " kernels timed" : " functions launched")
               << (device.empty() ? "" : " on " + device) << "\n";
  return ran == total ? 0 : 1;
}
