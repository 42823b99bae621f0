//===- GpuHost.cpp - C host libraries of the GPU back ends ---------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// What accel-compile --target=nvptx|amdgpu writes beside the kernels: one
// C entry point per public function that enqueues the function's kernels
// in order on the caller's stream, on the caller's device buffers and a
// workspace that holds the temporaries (planned here, by liveness); the C
// header; the C source (the images embedded as bytes; it builds with clang
// or gcc on any ELF host); the library and object clang and ld.lld make of
// it; and the program's JSON. The host code opens the driver with dlopen
// at accel_<module>_load(), as the project's launchers do, so nothing links
// against CUDA or HIP. docs/aot.md ("GPU host libraries") is the
// specification; this file and that section change together.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"
#include "accel/Conversion/AccelToGPU/AccelToGPU.h"
#include "accel/Target/CpuAbi.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>

using namespace mlir;
using namespace mlir::accel;
namespace abi = mlir::accel::cpuabi;

namespace {

/// Device pointers must be aligned to this many bytes (the kernels' widest
/// vector access), the workspace and each temporary in it to kWorkspaceAlign
/// (what cudaMalloc and hipMalloc return).
constexpr int64_t kBufferAlign = 16;
constexpr int64_t kWorkspaceAlign = 256;

/// A temporary of a function's program: the kernels that use it (first and
/// last, in launch order) and its place in the workspace.
struct Temporary {
  std::string name;
  int64_t bytes = 0, offset = 0;
  size_t first = 0, last = 0;
};

/// One public function as its host entry point runs it.
struct HostFunction {
  const GpuHostSignature *signature = nullptr;
  std::vector<const KernelMetadata *> kernels;
  /// A sharded function's collectives, in order.
  std::vector<const GpuCollective *> collectives;
  /// What runs, in order: kernels[index], or collectives[index].
  struct Step {
    bool kernel;
    size_t index;
  };
  std::vector<Step> steps;
  std::vector<Temporary> temporaries;
  int64_t workspaceBytes = 0;
  /// Per kernel, per parameter: the C variable that holds the pointer.
  std::vector<std::vector<std::string>> params;
  /// Per collective: the C variables of its input and output.
  std::vector<std::pair<std::string, std::string>> collectiveParams;
  /// The image (gpu.module) that holds the kernels.
  std::string image;
};

int64_t alignTo(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

/// The generated source's own names after "accel_" (Generator::source and
/// the runtimes it writes), and the prefixes of its numbered ones: a public
/// function may not be called so, or accel_<name> would clash.
constexpr llvm::StringLiteral kReservedNames[] = {
    "fail",        "error",        "check",         "check_workspace",
    "lock",        "device",       "symbol",        "open_library",
    "open_driver", "scope",        "enter",         "leave",
    "launch",      "load_locked",  "unload_locked", "cu_device",
    "context",     "modules",      "functions",     "images",
    "image",       "kernels",      "kernel",        "cuda_fail",
    "hip_fail",    "hip_props",    "tensor",        "status_string",
    "task",        "parallel_for", "all_reduce",    "check_comm",
    "open_nccl",   "nccl_fail",    "nccl_comm",     "release_splits",
    "splits",      "split_lock",   "collective",    "collectives"};
constexpr llvm::StringLiteral kReservedPrefixes[] = {"binary", "ptx", "color",
                                                     "key"};

/// Why `name` cannot be a function of the host library of `module`, or "".
std::string whyReserved(llvm::StringRef name, llvm::StringRef module) {
  if (llvm::is_contained(kReservedNames, name))
    return "accel_" + name.str() + " is one of the host library's own names";
  for (llvm::StringRef prefix : kReservedPrefixes)
    if (name.starts_with(prefix) &&
        llvm::all_of(name.drop_front(prefix.size()), llvm::isDigit) &&
        name.size() > prefix.size())
      return "accel_" + name.str() + " is one of the host library's own names";
  for (llvm::StringRef suffix :
       {"load", "unload", "last_error", "info", "abi_version", "load_check",
        "release_communicator"})
    if (name == (module + "_" + suffix).str())
      return "accel_" + name.str() + " is one of the module's functions";
  return "";
}

/// The number after `prefix` in a buffer name ("arg2", "tmp0").
std::optional<unsigned> indexAfter(llvm::StringRef name,
                                   llvm::StringRef prefix) {
  unsigned index;
  if (!name.consume_front(prefix) || name.empty() ||
      name.getAsInteger(10, index))
    return std::nullopt;
  return index;
}

/// Places the temporaries in the workspace: in order of first use, each at
/// the lowest aligned offset where it overlaps no temporary whose kernels
/// it shares a launch interval with. Returns the workspace's size.
int64_t planWorkspace(std::vector<Temporary> &temps) {
  int64_t total = 0;
  for (size_t i = 0; i < temps.size(); ++i) {
    Temporary &t = temps[i];
    // The live ranges already placed that meet this one, by offset.
    std::vector<std::pair<int64_t, int64_t>> busy;
    for (size_t j = 0; j < i; ++j)
      if (temps[j].first <= t.last && t.first <= temps[j].last)
        busy.push_back({temps[j].offset, temps[j].offset + temps[j].bytes});
    llvm::sort(busy);
    int64_t offset = 0;
    for (auto [begin, end] : busy) {
      if (offset + t.bytes <= begin)
        break;
      offset = std::max(offset, alignTo(end, kWorkspaceAlign));
    }
    t.offset = offset;
    total = std::max(total, alignTo(offset + t.bytes, kWorkspaceAlign));
  }
  return total;
}

llvm::Expected<HostFunction>
planFunction(const GpuHostSignature &sig, llvm::ArrayRef<GpuKernel> all,
             llvm::ArrayRef<GpuCollective> allCollectives) {
  HostFunction f;
  f.signature = &sig;
  std::string where = "the GPU host function of @" + sig.name;
  for (const GpuKernel &k : all)
    if (k.function == sig.name) {
      if (f.kernels.empty())
        f.image = k.module;
      else if (k.module != f.image)
        return backendError(where + ": its kernels are in two modules");
      f.kernels.push_back(&k.metadata);
    }
  if (f.kernels.empty())
    return backendError(where + ": @" + sig.name +
                        " has no GPU kernel (it computes nothing on the GPU)");
  for (const GpuCollective &c : allCollectives)
    if (c.function == sig.name) {
      if (c.position > f.kernels.size())
        return backendError(where + ": a collective comes after kernel " +
                            llvm::Twine(c.position) + " of " +
                            llvm::Twine(f.kernels.size()));
      if (sig.grid.empty())
        return backendError(where + ": it has a collective but no grid");
      f.collectives.push_back(&c);
    }
  // Each collective before the kernel that many kernels in.
  for (size_t k = 0; k <= f.kernels.size(); ++k) {
    for (auto [i, c] : llvm::enumerate(f.collectives))
      if (c->position == k)
        f.steps.push_back({false, i});
    if (k < f.kernels.size())
      f.steps.push_back({true, k});
  }
  std::vector<bool> resultWritten(sig.results.size(), false);
  // The C variable of the buffer `name` that step `step` uses with
  // `access`, `bytes` in size (`in` locates the errors).
  auto use = [&](llvm::StringRef name, int64_t bytes, BufferAccess access,
                 size_t step,
                 const std::string &in) -> llvm::Expected<std::string> {
    auto check = [&](const abi::Buffer &b,
                     llvm::StringRef what) -> llvm::Error {
      int64_t have = b.elemBytes;
      for (int64_t d : b.shape)
        have *= d;
      if (have != bytes)
        return backendError(where + ": " + in + " has " + llvm::Twine(bytes) +
                            " bytes; " + what + " has " + llvm::Twine(have));
      return llvm::Error::success();
    };
    if (auto a = indexAfter(name, "arg")) {
      if (*a >= sig.args.size())
        return backendError(where + ": " + in + " names no argument");
      if (llvm::Error e = check(sig.args[*a], "the argument"))
        return std::move(e);
      if (access != BufferAccess::In)
        return backendError(where + ": " + in +
                            " writes an argument; host functions leave "
                            "their arguments as they are");
      return "a" + std::to_string(*a);
    }
    if (auto r = indexAfter(name, "result")) {
      if (*r >= sig.results.size())
        return backendError(where + ": " + in + " names no result");
      if (llvm::Error e = check(sig.results[*r], "the result"))
        return std::move(e);
      if (access != BufferAccess::In)
        resultWritten[*r] = true;
      return "r" + std::to_string(*r);
    }
    if (indexAfter(name, "tmp")) {
      auto it = llvm::find_if(
          f.temporaries, [&](const Temporary &t) { return t.name == name; });
      if (it == f.temporaries.end()) {
        if (access != BufferAccess::Out)
          return backendError(where + ": " + in +
                              " reads a temporary no earlier step wrote");
        f.temporaries.push_back({name.str(), bytes, 0, step, step});
        it = std::prev(f.temporaries.end());
      } else if (it->bytes != bytes) {
        return backendError(where + ": " + in + " has " + llvm::Twine(bytes) +
                            " bytes; an earlier step's " +
                            llvm::Twine(it->bytes));
      }
      it->last = step;
      return "t" + std::to_string(it - f.temporaries.begin());
    }
    return backendError(where + ": " + in +
                        " is no argument, result or temporary");
  };
  f.params.resize(f.kernels.size());
  f.collectiveParams.resize(f.collectives.size());
  for (auto [step, st] : llvm::enumerate(f.steps)) {
    if (!st.kernel) {
      const GpuCollective &c = *f.collectives[st.index];
      std::string in = c.kind + " #" + std::to_string(st.index);
      auto input =
          use(c.input, c.byteSize, BufferAccess::In, step, in + " input");
      if (!input)
        return input.takeError();
      auto output =
          use(c.output, c.byteSize, BufferAccess::Out, step, in + " output");
      if (!output)
        return output.takeError();
      f.collectiveParams[st.index] = {*input, *output};
      continue;
    }
    const KernelMetadata *meta = f.kernels[st.index];
    for (const KernelArgument &arg : meta->arguments) {
      std::string in = "kernel " + meta->kernel + " parameter '" + arg.name + "'";
      if (arg.kind != KernelArgKind::Buffer)
        return backendError(where + ": " + in +
                            " is a scalar; host functions pass buffers only");
      auto var = use(arg.name, arg.byteSize, arg.access, step, in);
      if (!var)
        return var.takeError();
      f.params[st.index].push_back(*var);
    }
  }
  for (auto [i, written] : llvm::enumerate(resultWritten))
    if (!written)
      return backendError(where + ": no kernel writes result " +
                          llvm::Twine(i));
  f.workspaceBytes = planWorkspace(f.temporaries);
  return f;
}

std::string shapeText(llvm::ArrayRef<int64_t> shape) {
  std::string s;
  for (int64_t d : shape)
    s += (s.empty() ? "" : "x") + std::to_string(d);
  return s.empty() ? "scalar" : s;
}

std::string parameterList(const GpuHostSignature &s) {
  std::string text = "(void *stream, void *workspace";
  // A sharded function's NCCL (RCCL) communicator.
  if (!s.grid.empty())
    text += ", void *comm";
  for (size_t i = 0; i < s.args.size(); ++i)
    text += ", const accel_tensor *arg" + std::to_string(i);
  for (size_t i = 0; i < s.results.size(); ++i)
    text += ", accel_tensor *result" + std::to_string(i);
  return text + ")";
}

using abi::blockText;

std::string hashedSymbol(const GpuHostSignature &s) {
  abi::Kernel k;
  k.name = s.name;
  k.signature = s.signature;
  // A sharded function takes a communicator: another ABI for the same type.
  if (!s.grid.empty()) {
    k.signature += " sharded " + shapeText(s.grid);
    for (const abi::Buffer &b : s.args)
      k.signature += blockText(b);
    for (const abi::Buffer &b : s.results)
      k.signature += blockText(b);
  }
  return abi::hashedSymbol(k);
}

/// The row-major grid index of `rank`.
std::vector<int64_t> gridIndex(llvm::ArrayRef<int64_t> grid, int64_t rank) {
  std::vector<int64_t> index(grid.size());
  for (size_t d = grid.size(); d-- > 0;) {
    index[d] = rank % grid[d];
    rank /= grid[d];
  }
  return index;
}

/// The bytes as a C array initializer, 20 a line.
void writeBytes(llvm::raw_ostream &os, llvm::StringRef bytes) {
  for (size_t i = 0; i < bytes.size(); ++i)
    os << (i % 20 == 0 ? "\n  " : "") << unsigned(uint8_t(bytes[i])) << ",";
  os << "\n";
}

struct Generator {
  llvm::StringRef target, chip, m;
  std::string M;
  llvm::ArrayRef<HostFunction> functions;
  const llvm::StringMap<GpuHostImage> &images;
  bool nvidia() const { return target == "nvptx"; }
  /// The grid of a sharded module (empty otherwise), its process count,
  /// and the collectives of all functions (their sites, in order).
  std::vector<int64_t> grid() const {
    for (const HostFunction &f : functions)
      if (!f.signature->grid.empty())
        return f.signature->grid;
    return {};
  }
  int64_t processes() const {
    int64_t p = 1;
    for (int64_t g : grid())
      p *= g;
    return p;
  }
  size_t numCollectives() const {
    size_t n = 0;
    for (const HostFunction &f : functions)
      n += f.collectives.size();
    return n;
  }
  /// Whether a collective reduces over some of the grid's axes only (a
  /// split of the caller's communicator).
  static bool splits(const GpuCollective &c) {
    return c.gridAxes.size() != c.grid.size();
  }
  bool anySplit() const {
    for (const HostFunction &f : functions)
      for (const GpuCollective *c : f.collectives)
        if (splits(*c))
          return true;
    return false;
  }
  llvm::StringRef ncclName() const { return nvidia() ? "NCCL" : "RCCL"; }
  llvm::StringRef ncclLibrary() const {
    return nvidia() ? "libnccl.so.2" : "librccl.so.1";
  }
  static std::string collectiveText(const GpuCollective &c) {
    return c.kind + " (" + c.reduction + " of " + c.input + " into " +
           c.output + ", " + std::to_string(c.count) + " " + c.dtype + ")";
  }

  std::string info() const {
    return llvm::formatv("{{\"format_version\":1,\"abi_version\":{0},"
                         "\"compiler\":\"{1}\",\"target\":\"{2}\","
                         "\"chip\":\"{3}\",\"module\":\"{4}\"}",
                         abi::kAbiVersion, getAccelCompilerId(), target, chip,
                         m)
        .str();
  }

  std::string header() const {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "/* " << m << ".h: C entry points of lib" << m
       << ".so, generated by " << getAccelCompilerId()
       << " (accel-compile --target=" << target << ", chip " << chip
       << ").\n   Do not edit. The ABI is described in docs/aot.md (\"GPU host "
          "libraries\"). */\n"
       << "#ifndef ACCEL_AOT_" << M << "_H\n#define ACCEL_AOT_" << M
       << "_H\n\n#include <stdint.h>\n#include <string.h>\n\n"
       << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
       << abi::sharedHeaderText()
       << "/* What this header was generated with; the library must agree. */\n"
       << "#define ACCEL_" << M << "_ABI_VERSION " << abi::kAbiVersion << "\n"
       << "#define ACCEL_" << M << "_TARGET \"" << target << "\"\n"
       << "#define ACCEL_" << M << "_CHIP \"" << chip << "\"\n"
       << "#define ACCEL_" << M << "_INFO " << abi::cString(info()) << "\n\n"
       << "const char *accel_" << m << "_info(void);\n"
       << "int accel_" << m << "_abi_version(void);\n\n"
       << "/* Opens the " << (nvidia() ? "CUDA driver (libcuda.so.1; the "
                                         "environment variable ACCEL_LIBCUDA "
                                         "names another)"
                                       : "HIP runtime (libamdhip64.so; the "
                                         "environment variable "
                                         "ACCEL_LIBAMDHIP64 names another)")
       << ",\n   checks that `device` can run code for " << chip
       << " and loads the kernels on it"
       << (nvidia() ? " (in its\n   primary context)" : "")
       << ". ACCEL_OK when they are loaded on `device` already;\n"
          "   ACCEL_ERR_DEVICE when any step fails, or when they are loaded on "
          "another\n   device (unload first); accel_"
       << m << "_last_error() says why.\n   Thread-safe. */\n"
       << "int accel_" << m << "_load(int device);\n"
       << "/* Unloads the kernels; no call may be running or be made until the "
          "next load. */\n"
       << "void accel_" << m << "_unload(void);\n"
       << "/* Why the calling thread's last failed call failed (\"\" if none "
          "did). */\n"
       << "const char *accel_" << m << "_last_error(void);\n\n"
       << "/* Refuses a library built from another compilation "
          "(ACCEL_ERR_VERSION). */\n"
       << "static inline int accel_" << m << "_load_check(void) {\n"
       << "  if (accel_" << m << "_abi_version() != ACCEL_" << M
       << "_ABI_VERSION ||\n      strcmp(accel_" << m << "_info(), ACCEL_" << M
       << "_INFO) != 0)\n    return ACCEL_ERR_VERSION;\n  return ACCEL_OK;\n}\n\n";
    if (!grid().empty()) {
      os << "/* Sharded over a grid of shape " << shapeText(grid())
         << " (docs/distributed.md, \"NCCL and RCCL\"):\n   ACCEL_" << M
         << "_PROCESSES processes, one a GPU (the library holds one device a "
            "process), each\n   load the library on its device and call every "
            "function with its block of each\n   tensor and a communicator (an "
         << ncclName()
         << " ncclComm_t) of exactly that many ranks; rank r "
            "has grid\n   index (i0, i1, ...) = r in row-major order, and a "
            "dimension split over grid\n   axes (a, b) holds part i_a * size_b "
            "+ i_b of size/(size_a * size_b).\n   accel_"
         << m << "_load opens " << ncclName() << " (" << ncclLibrary()
         << "; the environment variable\n   ACCEL_LIBNCCL names another). "
            "Every rank must call the functions in the\n   same order, as "
         << ncclName()
         << " needs; a function's all-reduces are enqueued on its stream\n"
            "   between its kernels, and their failures on the GPU show as "
         << ncclName()
         << "'s\n   asynchronous errors "
            "(ncclCommGetAsyncError). */\n"
         << "#define ACCEL_" << M << "_PROCESSES " << processes() << "\n"
         << "/* Destroys the communicators the library split from `comm` "
            "(for all-reduces\n   over some grid axes); call it before "
            "destroying `comm`, on every rank at the\n   same point (NCCL's "
            "destroy may wait for the other ranks), as unloading. A split\n"
            "   is a collective call on the host: a rank that fails before "
            "it leaves the others\n   waiting there. ACCEL_OK. */\n"
         << "int accel_" << m << "_release_communicator(void *comm);\n\n";
    }
    for (const HostFunction &f : functions) {
      const GpuHostSignature &s = *f.signature;
      std::string N = llvm::StringRef(s.name).upper();
      os << "/* " << s.name << abi::commentText(s.signature) << "\n";
      bool sharded = !s.grid.empty();
      auto block = [&](const abi::Buffer &b) -> std::string {
        if (!sharded)
          return "";
        std::string text = blockText(b);
        return text.empty() ? "; the whole tensor"
                            : "; this process's block" + text;
      };
      for (size_t i = 0; i < s.args.size(); ++i)
        os << "   arg" << i << ": " << s.args[i].dtype << "["
           << shapeText(s.args[i].shape) << "] (device memory, read"
           << block(s.args[i]) << ")\n";
      for (size_t i = 0; i < s.results.size(); ++i)
        os << "   result" << i << ": " << s.results[i].dtype << "["
           << shapeText(s.results[i].shape) << "] (device memory, written"
           << block(s.results[i]) << ")\n";
      os << "   " << f.kernels.size() << " kernel"
         << (f.kernels.size() == 1 ? "" : "s");
      if (!f.collectives.empty())
        os << " and " << f.collectives.size() << " " << ncclName() << " call"
           << (f.collectives.size() == 1 ? "" : "s");
      os << " in order:";
      for (const HostFunction::Step &st : f.steps)
        os << " "
           << (st.kernel ? f.kernels[st.index]->kernel
                         : collectiveText(*f.collectives[st.index]));
      if (sharded)
        os << (f.collectives.empty()
                   ? ".\n   It does not communicate: `comm` may be NULL"
                   : ".\n   `comm`: this rank's communicator (ACCEL_ERR_COMM "
                     "when NULL or of another\n   size)");
      os << ".\n   The workspace holds its temporaries: ACCEL_" << N
         << "_WORKSPACE_BYTES of device memory\n   aligned to "
         << kWorkspaceAlign
         << " bytes (NULL when 0), not shared with a call that may run at "
            "the\n   same time. Buffers are contiguous row-major, their data "
            "aligned to "
         << kBufferAlign
         << " bytes.\n   Enqueues the kernels on `stream` (a "
         << (nvidia() ? "CUstream" : "hipStream_t")
         << "; NULL: the default stream) and\n   returns: the results are "
            "ready when the stream's work is. ACCEL_OK or an\n   "
            "accel_status; the kernels' own failures show on the stream. */\n"
         << "#define ACCEL_" << N << "_WORKSPACE_BYTES "
         << f.workspaceBytes << "\n"
         << "int accel_" << s.name << parameterList(s) << ";\n"
         << "/* The same entry point under a name that carries its signature "
            "hash: code\n   compiled against this header calls it. */\n"
         << "int " << hashedSymbol(s) << parameterList(s) << ";\n"
         << "#ifndef ACCEL_" << M << "_PLAIN_SYMBOLS\n"
         << "#define accel_" << s.name << " " << hashedSymbol(s)
         << "\n#endif\n\n";
    }
    os << "#ifdef __cplusplus\n}\n#endif\n\n#endif /* ACCEL_AOT_" << M
       << "_H */\n";
    return text;
  }

  /// The C conditions under which a device of compute capability
  /// (major, minor) runs the cubin / the PTX of `chip`, and the same in
  /// words: the rules of checkComputeCapability (CudaLauncher.h).
  struct Rule {
    std::string code, words;
  };
  std::pair<Rule, Rule> nvidiaRules() const {
    llvm::StringRef digits = chip;
    char suffix = 0;
    digits.consume_front("sm_");
    if (digits.ends_with("a") || digits.ends_with("f")) {
      suffix = digits.back();
      digits = digits.drop_back();
    }
    unsigned version = 0;
    (void)digits.getAsInteger(10, version);
    std::string maj = std::to_string(version / 10),
                min = std::to_string(version % 10);
    std::string need = maj + "." + min;
    Rule exact{"(major == " + maj + " && minor == " + min + ")",
               need + " exactly"};
    Rule family{"(major == " + maj + " && minor >= " + min + ")",
                need + " to " + maj + ".x"};
    Rule later{"(major > " + maj + " || " + family.code + ")",
               need + " and newer"};
    if (suffix == 'a')
      return {exact, exact};
    if (suffix == 'f')
      return {family, family};
    return {family, later};
  }

  std::string source() const {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "/* The host code of lib" << m << ".so (accel-compile --target="
       << target << ", chip " << chip
       << "): the kernels'\n   images and one entry point per function that "
          "launches its kernels in\n   order. Generated; docs/aot.md (\"GPU "
          "host libraries\"). GNU C11 (clang, gcc) on\n   an ELF host with "
          "dlopen and pthreads. */\n"
       << "#define _GNU_SOURCE 1\n#define ACCEL_" << M << "_PLAIN_SYMBOLS\n"
       << "#include \"" << m << ".h\"\n"
       << "#include <dlfcn.h>\n#include <pthread.h>\n#include <stdarg.h>\n"
          "#include <stddef.h>\n#include <stdio.h>\n#include <stdlib.h>\n\n";
    // The images.
    std::vector<std::string> imageNames;
    for (const HostFunction &f : functions) {
      if (llvm::is_contained(imageNames, f.image))
        continue;
      size_t i = imageNames.size();
      imageNames.push_back(f.image);
      const GpuHostImage &img = images.find(f.image)->second;
      os << "/* " << f.image << " */\n";
      if (!img.binary.empty()) {
        os << "static const unsigned char accel_binary" << i << "[] = {";
        writeBytes(os, img.binary);
        os << "};\n";
      }
      if (!img.ptx.empty()) {
        // With its terminating NUL, which the driver's JIT needs.
        os << "static const unsigned char accel_ptx" << i << "[] = {";
        writeBytes(os, llvm::StringRef(img.ptx.c_str(), img.ptx.size() + 1));
        os << "};\n";
      }
    }
    os << "\nstatic const struct accel_image {\n  const void *binary, *ptx;\n"
          "} accel_images[] = {\n";
    for (size_t i = 0; i < imageNames.size(); ++i) {
      const GpuHostImage &img = images.find(imageNames[i])->second;
      os << "    {" << (img.binary.empty() ? "NULL" : "accel_binary" + std::to_string(i))
         << ", " << (img.ptx.empty() ? "NULL" : "accel_ptx" + std::to_string(i))
         << "},\n";
    }
    os << "};\n#define ACCEL_IMAGES " << imageNames.size() << "\n\n";
    // The kernels.
    os << "static const struct accel_kernel {\n  int image;\n  const char "
          "*name;\n  unsigned grid[3], block[3], shared, static_shared;\n} "
          "accel_kernels[] "
          "= {\n";
    size_t numKernels = 0;
    for (const HostFunction &f : functions)
      for (const KernelMetadata *k : f.kernels) {
        size_t image = llvm::find(imageNames, f.image) - imageNames.begin();
        os << "    {" << image << ", \"" << k->kernel << "\", {" << k->grid[0]
           << ", " << k->grid[1] << ", " << k->grid[2] << "}, {"
           << k->block[0] << ", " << k->block[1] << ", " << k->block[2]
           << "}, " << k->dynamicSharedBytes << ", "
           << (k->resources ? k->resources->staticSharedBytes : 0) << "},\n";
        ++numKernels;
      }
    os << "};\n#define ACCEL_KERNELS " << numKernels << "\n\n";
    // The collectives, with each rank's color and key where the
    // communicator is split (the grid's other axes / the reduced ones, in
    // row-major order).
    if (numCollectives() > 0) {
      std::vector<int64_t> g = grid();
      os << "typedef struct ncclComm *accel_nccl_comm;\n";
      size_t site = 0;
      for (const HostFunction &f : functions)
        for (const GpuCollective *c : f.collectives) {
          if (splits(*c)) {
            std::string color, key;
            for (int64_t r = 0; r < processes(); ++r) {
              std::vector<int64_t> index = gridIndex(g, r);
              int64_t cv = 0, kv = 0;
              for (size_t d = 0; d < g.size(); ++d) {
                if (llvm::is_contained(c->gridAxes, int64_t(d)))
                  continue;
                cv = cv * g[d] + index[d];
              }
              for (int64_t d : c->gridAxes)
                kv = kv * g[d] + index[d];
              color += (r ? ", " : "") + std::to_string(cv);
              key += (r ? ", " : "") + std::to_string(kv);
            }
            os << "static const int accel_color" << site << "[] = {" << color
               << "};\nstatic const int accel_key" << site << "[] = {" << key
               << "};\n";
          }
          ++site;
        }
      os << "static const struct accel_collective {\n  const char *name;\n"
            "  int datatype, op;\n  size_t count;\n  /* Per rank, where the "
            "communicator is split; NULL: the caller's. */\n  const int "
            "*color, *key;\n} accel_collectives[] = {\n";
      site = 0;
      for (const HostFunction &f : functions)
        for (auto [i, c] : llvm::enumerate(f.collectives)) {
          std::string name = "@" + f.signature->name + "'s " + c->kind + " #" +
                             std::to_string(i);
          os << "    {\"" << name << "\", " << getNcclDataType(c->dtype) << ", "
             << getNcclRedOp(c->reduction) << ", " << c->count << ", ";
          if (splits(*c))
            os << "accel_color" << site << ", accel_key" << site;
          else
            os << "NULL, NULL";
          os << "},\n";
          ++site;
        }
      os << "};\n#define ACCEL_COLLECTIVES " << numCollectives()
         << "\n#define ACCEL_PROCESSES " << processes() << "\n\n";
    }
    os << R"c(static __thread char accel_error[512];

static int accel_fail(int status, const char *format, ...) {
  /* Formatted apart first: an argument may be the old message. */
  char message[sizeof(accel_error)];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  memcpy(accel_error, message, sizeof(message));
  return status;
}

const char *)c"
       << "accel_" << m << "_last_error(void) { return accel_error; }\n"
       << "const char *accel_" << m << "_info(void) { return ACCEL_" << M
       << "_INFO; }\nint accel_" << m << "_abi_version(void) { return "
       << abi::kAbiVersion << "; }\n\n";
    os << R"c(/* A buffer the caller gives: not NULL, the compiled shape, contiguous
   row-major, aligned. */
__attribute__((unused)) static int accel_check(const accel_tensor *t, const char *name, int64_t rank,
                       const int64_t *sizes) {
  if (!t)
    return accel_fail(ACCEL_ERR_NULL, "%s is NULL", name);
  if (t->rank != rank)
    return accel_fail(ACCEL_ERR_SHAPE, "%s has rank %lld; the function takes %lld",
                      name, (long long)t->rank, (long long)rank);
  int64_t elements = 1, stride = 1;
  for (int64_t d = 0; d < rank; ++d)
    elements *= sizes[d];
  for (int64_t d = rank - 1; d >= 0; --d) {
    if (t->sizes[d] != sizes[d])
      return accel_fail(ACCEL_ERR_SHAPE,
                        "%s has size %lld in dimension %lld; the function takes %lld",
                        name, (long long)t->sizes[d], (long long)d,
                        (long long)sizes[d]);
    /* An empty buffer has no layout to check (PyTorch gives a 4x0 tensor
       strides (1, 1)). */
    if (elements > 0 && sizes[d] != 1 && t->strides[d] != stride)
      return accel_fail(ACCEL_ERR_LAYOUT,
                        "%s has stride %lld in dimension %lld; contiguous row-major is %lld",
                        name, (long long)t->strides[d], (long long)d,
                        (long long)stride);
    stride *= sizes[d];
  }
  if (elements > 0 && !t->data)
    return accel_fail(ACCEL_ERR_NULL, "the data of %s is NULL", name);
  if ((uintptr_t)t->data % )c"
       << kBufferAlign << R"c( != 0)
    return accel_fail(ACCEL_ERR_LAYOUT, "the data of %s is not aligned to )c"
       << kBufferAlign << R"c( bytes", name);
  return ACCEL_OK;
}

__attribute__((unused)) static int accel_check_workspace(void *workspace,
                                                     int64_t bytes) {
  if (bytes > 0 && !workspace)
    return accel_fail(ACCEL_ERR_NULL, "the workspace is NULL; the function needs %lld bytes",
                      (long long)bytes);
  if ((uintptr_t)workspace % )c"
       << kWorkspaceAlign << R"c( != 0)
    return accel_fail(ACCEL_ERR_LAYOUT, "the workspace is not aligned to )c"
       << kWorkspaceAlign << R"c( bytes");
  return ACCEL_OK;
}

static pthread_mutex_t accel_lock = PTHREAD_MUTEX_INITIALIZER;
/* The device the kernels are loaded on, -1 when they are not. */
static int accel_device = -1;

/* A driver entry point: its name (or an older one) and its slot in the
   table of function pointers. */
typedef struct {
  const char *name, *fallback;
  size_t slot;
} accel_symbol;

/* Opens the library $variable names (else `path`) and resolves `symbols`
   into `table`; on success `*library` is the handle. */
static int accel_open_library(const char *variable, const char *path,
                              const char *what, const accel_symbol *symbols,
                              size_t count, void *table, void **library) {
  const char *given = getenv(variable);
  if (given && *given)
    path = given;
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return accel_fail(ACCEL_ERR_DEVICE, "no %s: %s", what, dlerror());
  for (size_t i = 0; i < count; ++i) {
    void *symbol = dlsym(handle, symbols[i].name);
    if (!symbol && symbols[i].fallback)
      symbol = dlsym(handle, symbols[i].fallback);
    if (!symbol) {
      dlclose(handle);
      return accel_fail(ACCEL_ERR_DEVICE, "no usable %s: %s: missing symbol %s",
                        what, path, symbols[i].name);
    }
    memcpy((char *)table + symbols[i].slot, &symbol, sizeof(symbol));
  }
  *library = handle;
  return ACCEL_OK;
}

)c";
    if (numCollectives() > 0)
      writeNcclRuntime(os);
    if (nvidia())
      writeCudaRuntime(os);
    else
      writeHipRuntime(os);
    if (numCollectives() == 0 && !grid().empty())
      os << "\nint accel_" << m << "_release_communicator(void *comm) {\n"
         << "  (void)comm;\n  return ACCEL_OK;\n}\n";
    // The entry points.
    for (const HostFunction &f : functions) {
      const GpuHostSignature &s = *f.signature;
      std::string N = llvm::StringRef(s.name).upper();
      os << "\n/* @" << s.name << " */\n";
      auto sizes = [&](const abi::Buffer &b, const std::string &var) {
        os << "  static const int64_t " << var << "[] = {";
        for (auto [i, d] : llvm::enumerate(b.shape))
          os << (i ? ", " : "") << d;
        os << (b.shape.empty() ? "0" : "") << "};\n";
      };
      os << "int accel_" << s.name << parameterList(s) << " {\n";
      for (size_t i = 0; i < s.args.size(); ++i)
        sizes(s.args[i], "s_arg" + std::to_string(i));
      for (size_t i = 0; i < s.results.size(); ++i)
        sizes(s.results[i], "s_result" + std::to_string(i));
      os << "  int status;\n";
      auto check = [&](const std::string &var, size_t rank) {
        os << "  if ((status = accel_check(" << var << ", \"" << var << "\", "
           << rank << ", s_" << var << ")) != ACCEL_OK)\n    return status;\n";
      };
      for (size_t i = 0; i < s.args.size(); ++i)
        check("arg" + std::to_string(i), s.args[i].shape.size());
      for (size_t i = 0; i < s.results.size(); ++i)
        check("result" + std::to_string(i), s.results[i].shape.size());
      os << "  if ((status = accel_check_workspace(workspace, ACCEL_" << N
         << "_WORKSPACE_BYTES)) != ACCEL_OK)\n    return status;\n";
      std::string ptr = nvidia() ? "CUdeviceptr" : "void *";
      auto cast = [&](const std::string &e) {
        return nvidia() ? "(CUdeviceptr)(uintptr_t)" + e : "(void *)" + e;
      };
      // An argument no kernel reads (a matmul over K = 0) is still checked.
      for (size_t i = 0; i < s.args.size(); ++i)
        os << "  " << ptr << " a" << i << " = "
           << cast("arg" + std::to_string(i) + "->data") << ";\n  (void)a" << i
           << ";\n";
      for (size_t i = 0; i < s.results.size(); ++i)
        os << "  " << ptr << " r" << i << " = "
           << cast("result" + std::to_string(i) + "->data") << ";\n";
      for (auto [i, t] : llvm::enumerate(f.temporaries))
        os << "  " << ptr << " t" << i << " = "
           << cast("((char *)workspace + " + std::to_string(t.offset) + ")")
           << "; /* " << t.name << ", " << t.bytes << " bytes, steps "
           << t.first << "-" << t.last << " */\n";
      os << "  accel_scope scope;\n"
         << "  if ((status = accel_enter(&scope)) != ACCEL_OK)\n"
         << "    return status;\n";
      if (!f.collectives.empty())
        os << "  int rank = 0;\n  status = accel_check_comm(comm, &rank);\n";
      else if (!s.grid.empty())
        os << "  (void)comm;\n";
      size_t base = 0, sites = 0;
      for (const HostFunction &g : functions) {
        if (&g == &f)
          break;
        base += g.kernels.size();
        sites += g.collectives.size();
      }
      for (const HostFunction::Step &st : f.steps) {
        if (!st.kernel) {
          auto [in, out] = f.collectiveParams[st.index];
          os << "  if (status == ACCEL_OK)\n    status = accel_all_reduce("
             << sites + st.index << ", (const void *)(uintptr_t)" << in
             << ", (void *)(uintptr_t)" << out << ", comm, rank, stream);\n";
          continue;
        }
        const std::vector<std::string> &params = f.params[st.index];
        os << "  if (status == ACCEL_OK) {\n    void *params[] = {";
        for (auto [i, p] : llvm::enumerate(params))
          os << (i ? ", " : "") << "&" << p;
        os << (params.empty() ? "NULL" : "") << "};\n    status = accel_launch("
           << base + st.index << ", params, stream);\n  }\n";
      }
      os << "  accel_leave(&scope);\n  return status;\n}\n"
         << "int " << hashedSymbol(s) << parameterList(s)
         << " __attribute__((alias(\"accel_" << s.name << "\")));\n";
    }
    return text;
  }

  void writeCudaRuntime(llvm::raw_ostream &os) const {
    auto [cubinRule, ptxRule] = nvidiaRules();
    os << R"c(/* The CUDA driver API subset, declared here (not from cuda.h) and resolved
   from libcuda with dlopen at load time. */
typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;

static struct {
  void *library;
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
  CUresult (*cuCtxGetCurrent)(CUcontext *);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuModuleLoadData)(CUmodule *, const void *);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, unsigned, CUstream,
                             void **, void **);
  CUresult (*cuGetErrorName)(CUresult, const char **);
} cu;

static CUdevice accel_cu_device;
static CUcontext accel_context;
static CUmodule accel_modules[ACCEL_IMAGES];
static CUfunction accel_functions[ACCEL_KERNELS];

static int accel_cuda_fail(CUresult result, const char *call) {
  const char *name = NULL;
  if (!cu.cuGetErrorName || cu.cuGetErrorName(result, &name) != 0)
    name = NULL;
  if (name)
    return accel_fail(ACCEL_ERR_DEVICE, "%s failed: %s", call, name);
  return accel_fail(ACCEL_ERR_DEVICE, "%s failed: CUDA error %d", call, result);
}
#define ACCEL_CU(call, name)                                                   \
  do {                                                                         \
    CUresult result_ = (call);                                                 \
    if (result_ != 0)                                                          \
      return accel_cuda_fail(result_, name);                                   \
  } while (0)

static int accel_open_driver(void) {
  if (cu.library)
    return ACCEL_OK;
  static const accel_symbol symbols[] = {
#define S(f, name, fallback) {name, fallback, offsetof(__typeof__(cu), f)}
      S(cuInit, "cuInit", NULL),
      S(cuDeviceGet, "cuDeviceGet", NULL),
      S(cuDeviceGetAttribute, "cuDeviceGetAttribute", NULL),
      S(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", NULL),
      S(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"),
      S(cuCtxGetCurrent, "cuCtxGetCurrent", NULL),
      S(cuCtxSetCurrent, "cuCtxSetCurrent", NULL),
      S(cuModuleLoadData, "cuModuleLoadData", NULL),
      S(cuModuleUnload, "cuModuleUnload", NULL),
      S(cuModuleGetFunction, "cuModuleGetFunction", NULL),
      S(cuFuncSetAttribute, "cuFuncSetAttribute", NULL),
      S(cuLaunchKernel, "cuLaunchKernel", NULL),
      S(cuGetErrorName, "cuGetErrorName", NULL),
#undef S
  };
  return accel_open_library("ACCEL_LIBCUDA", "libcuda.so.1", "NVIDIA driver",
                            symbols, sizeof(symbols) / sizeof(symbols[0]),
                            &cu, &cu.library);
}

/* Makes the library's context current for a call; accel_leave restores the
   caller's. */
typedef struct { CUcontext previous; int set; } accel_scope;
static int accel_enter(accel_scope *scope) {
  scope->set = 0;
  if (accel_device < 0)
    return accel_fail(ACCEL_ERR_DEVICE, "the kernels are not loaded: call accel_)c"
       << m << R"c(_load first");
  ACCEL_CU(cu.cuCtxGetCurrent(&scope->previous), "cuCtxGetCurrent");
  if (scope->previous != accel_context) {
    ACCEL_CU(cu.cuCtxSetCurrent(accel_context), "cuCtxSetCurrent");
    scope->set = 1;
  }
  return ACCEL_OK;
}
static void accel_leave(accel_scope *scope) {
  if (scope->set)
    (void)cu.cuCtxSetCurrent(scope->previous);
}

static int accel_launch(int k, void **params, void *stream) {
  const struct accel_kernel *kernel = &accel_kernels[k];
  CUresult result = cu.cuLaunchKernel(
      accel_functions[k], kernel->grid[0], kernel->grid[1], kernel->grid[2],
      kernel->block[0], kernel->block[1], kernel->block[2], kernel->shared,
      (CUstream)stream, params, NULL);
  if (result != 0) {
    accel_cuda_fail(result, "cuLaunchKernel");
    return accel_fail(ACCEL_ERR_DEVICE, "launching %s: %s", kernel->name,
                      accel_error);
  }
  return ACCEL_OK;
}

/* Unloads the modules in the library's context (cuModuleUnload works on
   the current one), restores the caller's and releases the primary
   context. */
static void accel_unload_locked(void) {
  CUcontext previous = NULL;
  int restore = accel_context && cu.cuCtxGetCurrent(&previous) == 0 &&
                cu.cuCtxSetCurrent(accel_context) == 0;
  for (int i = 0; i < ACCEL_IMAGES; ++i)
    if (accel_modules[i]) {
      (void)cu.cuModuleUnload(accel_modules[i]);
      accel_modules[i] = NULL;
    }
  if (restore)
    (void)cu.cuCtxSetCurrent(previous);
  if (accel_context)
    (void)cu.cuDevicePrimaryCtxRelease(accel_cu_device);
  accel_context = NULL;
  accel_device = -1;
}

static int accel_load_locked(int device) {
  int status = accel_open_driver();
  if (status != ACCEL_OK)
    return status;
  ACCEL_CU(cu.cuInit(0), "cuInit");
  ACCEL_CU(cu.cuDeviceGet(&accel_cu_device, device), "cuDeviceGet");
  int major = 0, minor = 0, optin = 0;
  ACCEL_CU(cu.cuDeviceGetAttribute(&major, 75, accel_cu_device), "cuDeviceGetAttribute");
  ACCEL_CU(cu.cuDeviceGetAttribute(&minor, 76, accel_cu_device), "cuDeviceGetAttribute");
  ACCEL_CU(cu.cuDeviceGetAttribute(&optin, 97, accel_cu_device), "cuDeviceGetAttribute");
  /* The rules of the launcher's checkComputeCapability: a cubin runs within
     its major version, PTX on later devices too ("a" chips: exactly). */
  int cubin_runs = )c"
       << cubinRule.code << ";\n  int ptx_runs = " << ptxRule.code << R"c(;
  for (int k = 0; k < ACCEL_KERNELS; ++k)
    if ((long long)accel_kernels[k].shared + accel_kernels[k].static_shared > optin)
      return accel_fail(ACCEL_ERR_DEVICE,
                        "%s needs %u bytes of dynamic and %u of static shared memory; "
                        "device %d allows %d",
                        accel_kernels[k].name, accel_kernels[k].shared,
                        accel_kernels[k].static_shared, device, optin);
  CUcontext previous = NULL;
  ACCEL_CU(cu.cuCtxGetCurrent(&previous), "cuCtxGetCurrent");
  ACCEL_CU(cu.cuDevicePrimaryCtxRetain(&accel_context, accel_cu_device),
           "cuDevicePrimaryCtxRetain");
  status = ACCEL_OK;
  CUresult result = cu.cuCtxSetCurrent(accel_context);
  if (result != 0)
    status = accel_cuda_fail(result, "cuCtxSetCurrent");
  for (int i = 0; status == ACCEL_OK && i < ACCEL_IMAGES; ++i) {
    const void *image = cubin_runs && accel_images[i].binary
                            ? accel_images[i].binary
                            : ptx_runs ? accel_images[i].ptx : NULL;
    if (!image) {
      status = accel_fail(ACCEL_ERR_DEVICE,
                          "device %d has compute capability %d.%d; this library's "
                          "code is for )c"
       << chip << R"c( (%s)", device, major, minor,
                          accel_images[i].binary ? ")c"
       << "its cubin runs on " << cubinRule.words << ", its PTX on "
       << ptxRule.words << R"c(" : ")c"
       << "its PTX runs on " << ptxRule.words << R"c(");
      break;
    }
    result = cu.cuModuleLoadData(&accel_modules[i], image);
    if (result != 0)
      status = accel_cuda_fail(result, "cuModuleLoadData");
  }
  for (int k = 0; status == ACCEL_OK && k < ACCEL_KERNELS; ++k) {
    result = cu.cuModuleGetFunction(&accel_functions[k],
                                    accel_modules[accel_kernels[k].image],
                                    accel_kernels[k].name);
    if (result != 0) {
      status = accel_cuda_fail(result, "cuModuleGetFunction");
      break;
    }
    /* Dynamic shared memory above 48 KiB needs the function's opt-in. */
    if (accel_kernels[k].shared > 48 * 1024) {
      result = cu.cuFuncSetAttribute(accel_functions[k], 8,
                                     (int)accel_kernels[k].shared);
      if (result != 0)
        status = accel_cuda_fail(result, "cuFuncSetAttribute");
    }
  }
  (void)cu.cuCtxSetCurrent(previous);
  if (status != ACCEL_OK)
    accel_unload_locked();
  else
    accel_device = device;
  return status;
}
)c";
    writeLoadUnload(os);
  }

  void writeHipRuntime(llvm::raw_ostream &os) const {
    os << R"c(/* The HIP runtime API subset, declared here (not from hip_runtime_api.h)
   and resolved from libamdhip64 with dlopen at load time. */
typedef int hipError_t;
typedef struct ihipModule_t *hipModule_t;
typedef struct ihipModuleSymbol_t *hipFunction_t;
typedef struct ihipStream_t *hipStream_t;

/* The leading fields of hipDeviceProp_tR0600 (ROCm 6; the layout the
   launcher reads, HipLauncher.cpp); the runtime writes the whole of it. */
typedef struct {
  char name[256];
  char uuid[16];
  char luid[8];
  unsigned luidDeviceNodeMask;
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  char fieldsUpToGcnArchName[1160 - 304];
  char gcnArchName[256];
  char fieldsAfterGcnArchName[1472 - 1416];
} accel_hip_props;

static struct {
  void *library;
  hipError_t (*hipInit)(unsigned);
  hipError_t (*hipGetDeviceCount)(int *);
  hipError_t (*hipGetDeviceProperties)(accel_hip_props *, int);
  hipError_t (*hipGetDevice)(int *);
  hipError_t (*hipSetDevice)(int);
  hipError_t (*hipModuleLoadData)(hipModule_t *, const void *);
  hipError_t (*hipModuleUnload)(hipModule_t);
  hipError_t (*hipModuleGetFunction)(hipFunction_t *, hipModule_t, const char *);
  hipError_t (*hipModuleLaunchKernel)(hipFunction_t, unsigned, unsigned,
                                      unsigned, unsigned, unsigned, unsigned,
                                      unsigned, hipStream_t, void **, void **);
  const char *(*hipGetErrorName)(hipError_t);
} hip;

static hipModule_t accel_modules[ACCEL_IMAGES];
static hipFunction_t accel_functions[ACCEL_KERNELS];

static int accel_hip_fail(hipError_t result, const char *call) {
  const char *name = hip.hipGetErrorName ? hip.hipGetErrorName(result) : NULL;
  if (name)
    return accel_fail(ACCEL_ERR_DEVICE, "%s failed: %s", call, name);
  return accel_fail(ACCEL_ERR_DEVICE, "%s failed: HIP error %d", call, result);
}
#define ACCEL_HIP(call, name)                                                  \
  do {                                                                         \
    hipError_t result_ = (call);                                               \
    if (result_ != 0)                                                          \
      return accel_hip_fail(result_, name);                                    \
  } while (0)

static int accel_open_driver(void) {
  if (hip.library)
    return ACCEL_OK;
  static const accel_symbol symbols[] = {
#define S(f, name, fallback) {name, fallback, offsetof(__typeof__(hip), f)}
      S(hipInit, "hipInit", NULL),
      S(hipGetDeviceCount, "hipGetDeviceCount", NULL),
      /* ROCm 6's layout; ROCm 5's hipGetDeviceProperties has another. */
      S(hipGetDeviceProperties, "hipGetDevicePropertiesR0600", NULL),
      S(hipGetDevice, "hipGetDevice", NULL),
      S(hipSetDevice, "hipSetDevice", NULL),
      S(hipModuleLoadData, "hipModuleLoadData", NULL),
      S(hipModuleUnload, "hipModuleUnload", NULL),
      S(hipModuleGetFunction, "hipModuleGetFunction", NULL),
      S(hipModuleLaunchKernel, "hipModuleLaunchKernel", NULL),
      S(hipGetErrorName, "hipGetErrorName", NULL),
#undef S
  };
  return accel_open_library("ACCEL_LIBAMDHIP64", "libamdhip64.so",
                            "HIP runtime", symbols,
                            sizeof(symbols) / sizeof(symbols[0]), &hip,
                            &hip.library);
}

/* Makes the library's device current for a call; accel_leave restores the
   caller's. */
typedef struct { int previous, set; } accel_scope;
static int accel_enter(accel_scope *scope) {
  scope->set = 0;
  if (accel_device < 0)
    return accel_fail(ACCEL_ERR_DEVICE, "the kernels are not loaded: call accel_)c"
       << m << R"c(_load first");
  ACCEL_HIP(hip.hipGetDevice(&scope->previous), "hipGetDevice");
  if (scope->previous != accel_device) {
    ACCEL_HIP(hip.hipSetDevice(accel_device), "hipSetDevice");
    scope->set = 1;
  }
  return ACCEL_OK;
}
static void accel_leave(accel_scope *scope) {
  if (scope->set)
    (void)hip.hipSetDevice(scope->previous);
}

static int accel_launch(int k, void **params, void *stream) {
  const struct accel_kernel *kernel = &accel_kernels[k];
  hipError_t result = hip.hipModuleLaunchKernel(
      accel_functions[k], kernel->grid[0], kernel->grid[1], kernel->grid[2],
      kernel->block[0], kernel->block[1], kernel->block[2], kernel->shared,
      (hipStream_t)stream, params, NULL);
  if (result != 0) {
    accel_hip_fail(result, "hipModuleLaunchKernel");
    return accel_fail(ACCEL_ERR_DEVICE, "launching %s: %s", kernel->name,
                      accel_error);
  }
  return ACCEL_OK;
}

static void accel_unload_locked(void) {
  for (int i = 0; i < ACCEL_IMAGES; ++i)
    if (accel_modules[i]) {
      (void)hip.hipModuleUnload(accel_modules[i]);
      accel_modules[i] = NULL;
    }
  accel_device = -1;
}

static int accel_load_locked(int device) {
  int status = accel_open_driver();
  if (status != ACCEL_OK)
    return status;
  ACCEL_HIP(hip.hipInit(0), "hipInit");
  int count = 0;
  ACCEL_HIP(hip.hipGetDeviceCount(&count), "hipGetDeviceCount");
  if (device < 0 || device >= count)
    return accel_fail(ACCEL_ERR_DEVICE, "no device %d (there are %d)", device, count);
  accel_hip_props props;
  ACCEL_HIP(hip.hipGetDeviceProperties(&props, device), "hipGetDeviceProperties");
  props.gcnArchName[sizeof(props.gcnArchName) - 1] = 0;
  /* "gfx942:sramecc+:xnack-": the processor before the features. */
  size_t length = strcspn(props.gcnArchName, ":");
  if (length != strlen(")c"
       << chip << R"c(") || strncmp(props.gcnArchName, ")c" << chip
       << R"c(", length) != 0)
    return accel_fail(ACCEL_ERR_DEVICE,
                      "device %d is %s; this library's code object is for )c"
       << chip << R"c( only", device, props.gcnArchName);
  for (int k = 0; k < ACCEL_KERNELS; ++k)
    if ((size_t)accel_kernels[k].shared + accel_kernels[k].static_shared >
        props.sharedMemPerBlock)
      return accel_fail(ACCEL_ERR_DEVICE,
                        "%s needs %u bytes of dynamic and %u of static LDS; "
                        "device %d allows %zu",
                        accel_kernels[k].name, accel_kernels[k].shared,
                        accel_kernels[k].static_shared, device,
                        props.sharedMemPerBlock);
  int previous = 0;
  ACCEL_HIP(hip.hipGetDevice(&previous), "hipGetDevice");
  ACCEL_HIP(hip.hipSetDevice(device), "hipSetDevice");
  hipError_t result = 0;
  for (int i = 0; status == ACCEL_OK && i < ACCEL_IMAGES; ++i) {
    result = hip.hipModuleLoadData(&accel_modules[i], accel_images[i].binary);
    if (result != 0)
      status = accel_hip_fail(result, "hipModuleLoadData");
  }
  for (int k = 0; status == ACCEL_OK && k < ACCEL_KERNELS; ++k) {
    result = hip.hipModuleGetFunction(&accel_functions[k],
                                      accel_modules[accel_kernels[k].image],
                                      accel_kernels[k].name);
    if (result != 0)
      status = accel_hip_fail(result, "hipModuleGetFunction");
  }
  if (status != ACCEL_OK)
    accel_unload_locked();
  else
    accel_device = device;
  (void)hip.hipSetDevice(previous);
  return status;
}
)c";
    writeLoadUnload(os);
  }

  /// NCCL (RCCL) as the collectives use it: the API subset declared here
  /// and resolved with dlopen at load time, the caller's communicator
  /// checked, and the splits of it that collectives over some grid axes
  /// reduce in, made on first use and kept per communicator.
  void writeNcclRuntime(llvm::raw_ostream &os) const {
    os << R"c(
/* The )c"
       << ncclName()
       << R"c( API subset (ncclResult_t is an int, 0 = ncclSuccess). */
static struct {
  void *library;
  int (*ncclAllReduce)(const void *, void *, size_t, int, int, accel_nccl_comm, void *);
  int (*ncclCommCount)(accel_nccl_comm, int *);
  int (*ncclCommUserRank)(accel_nccl_comm, int *);
  int (*ncclCommSplit)(accel_nccl_comm, int, int, accel_nccl_comm *, void *);
  int (*ncclCommDestroy)(accel_nccl_comm);
  const char *(*ncclGetErrorString)(int);
} nccl;

static int accel_open_nccl(void) {
  if (nccl.library)
    return ACCEL_OK;
  static const accel_symbol symbols[] = {
#define S(f) {#f, NULL, offsetof(__typeof__(nccl), f)}
      S(ncclAllReduce), S(ncclCommCount), S(ncclCommUserRank),
      S(ncclCommDestroy), S(ncclGetErrorString),)c"
       << (anySplit() ? "\n      S(ncclCommSplit)," : "") << R"c(
#undef S
  };
  int status = accel_open_library("ACCEL_LIBNCCL", ")c"
       << ncclLibrary() << R"c(", ")c" << ncclName() << R"c(", symbols,
                                  sizeof(symbols) / sizeof(symbols[0]), &nccl,
                                  &nccl.library);
  return status == ACCEL_OK ? ACCEL_OK : ACCEL_ERR_COMM;
}

static int accel_nccl_fail(int result, const char *call, const char *what) {
  const char *text = nccl.ncclGetErrorString ? nccl.ncclGetErrorString(result) : NULL;
  return accel_fail(ACCEL_ERR_COMM, "%s: %s failed: %s (error %d)", what, call,
                    text ? text : "unknown", result);
}

/* The caller's communicator: not NULL, of the grid's size; `*rank` is
   this process's rank in it. */
static int accel_check_comm(void *comm, int *rank) {
  if (!comm)
    return accel_fail(ACCEL_ERR_COMM, "the communicator is NULL; this function "
                      "all-reduces over )c"
       << ncclName() << R"c(");
  int count = 0, result = nccl.ncclCommCount((accel_nccl_comm)comm, &count);
  if (result != 0)
    return accel_nccl_fail(result, "ncclCommCount", "the communicator");
  if (count != ACCEL_PROCESSES)
    return accel_fail(ACCEL_ERR_COMM, "the communicator has %d ranks; the module's "
                      "grid has %d processes", count, ACCEL_PROCESSES);
  result = nccl.ncclCommUserRank((accel_nccl_comm)comm, rank);
  if (result != 0)
    return accel_nccl_fail(result, "ncclCommUserRank", "the communicator");
  return ACCEL_OK;
}

/* Per collective site, the communicators split from the callers'. */
#define ACCEL_SPLITS 8
static struct {
  accel_nccl_comm parent, child;
} accel_splits[ACCEL_COLLECTIVES][ACCEL_SPLITS];
static pthread_mutex_t accel_split_lock = PTHREAD_MUTEX_INITIALIZER;

/* Runs collective `site` on the stream. The split, on first use with a
   communicator, is a collective call of every rank at the same site; it is
   made without the lock held (ranks may be threads of this process). */
static int accel_all_reduce(int site, const void *in, void *out, void *comm,
                            int rank, void *stream) {
  const struct accel_collective *c = &accel_collectives[site];
  accel_nccl_comm use = (accel_nccl_comm)comm;
  if (c->color) {
    /* The split of `comm` made at this site, or a free slot reserved for
       it before the (collective) split, so that a full table fails before
       any rank splits. */
    use = NULL;
    int slot = -1;
    pthread_mutex_lock(&accel_split_lock);
    for (int i = 0; i < ACCEL_SPLITS && !use; ++i)
      if (accel_splits[site][i].parent == (accel_nccl_comm)comm)
        use = accel_splits[site][i].child;
    for (int i = 0; i < ACCEL_SPLITS && !use && slot < 0; ++i)
      if (!accel_splits[site][i].parent) {
        slot = i;
        accel_splits[site][i].parent = (accel_nccl_comm)comm;
      }
    pthread_mutex_unlock(&accel_split_lock);
    if (!use && slot < 0)
      return accel_fail(ACCEL_ERR_COMM, "%s: more than %d communicators split "
                        "at once; release one with accel_)c"
       << m << R"c(_release_communicator", c->name, ACCEL_SPLITS);
    if (!use) {
      accel_nccl_comm child = NULL;
      int result = nccl.ncclCommSplit((accel_nccl_comm)comm, c->color[rank],
                                      c->key[rank], &child, NULL);
      pthread_mutex_lock(&accel_split_lock);
      if (result != 0)
        accel_splits[site][slot].parent = NULL;
      else
        accel_splits[site][slot].child = use = child;
      pthread_mutex_unlock(&accel_split_lock);
      if (result != 0)
        return accel_nccl_fail(result, "ncclCommSplit", c->name);
    }
  }
  int result = nccl.ncclAllReduce(in, out, c->count, c->datatype, c->op, use, stream);
  if (result != 0)
    return accel_nccl_fail(result, "ncclAllReduce", c->name);
  return ACCEL_OK;
}

/* Destroys the splits of `comm` (every one when NULL). */
static void accel_release_splits(accel_nccl_comm comm) {
  pthread_mutex_lock(&accel_split_lock);
  for (int s = 0; s < ACCEL_COLLECTIVES; ++s)
    for (int i = 0; i < ACCEL_SPLITS; ++i)
      if (accel_splits[s][i].parent && accel_splits[s][i].child &&
          (!comm || accel_splits[s][i].parent == comm)) {
        (void)nccl.ncclCommDestroy(accel_splits[s][i].child);
        accel_splits[s][i].parent = accel_splits[s][i].child = NULL;
      }
  pthread_mutex_unlock(&accel_split_lock);
}
)c"
       << "\nint accel_" << m << "_release_communicator(void *comm) {\n"
       << "  if (comm && nccl.library)\n"
       << "    accel_release_splits((accel_nccl_comm)comm);\n"
       << "  return ACCEL_OK;\n}\n";
  }

  void writeLoadUnload(llvm::raw_ostream &os) const {
    os << "\nint accel_" << m << "_load(int device) {\n"
       << R"c(  if (device < 0)
    return accel_fail(ACCEL_ERR_DEVICE, "no device %d", device);
  pthread_mutex_lock(&accel_lock);
  int status = ACCEL_OK;
  if (accel_device == device)
    status = ACCEL_OK;
  else if (accel_device >= 0)
    status = accel_fail(ACCEL_ERR_DEVICE,
                        "the kernels are loaded on device %d: unload them first",
                        accel_device);
  else
)c"
       << (numCollectives() > 0
               ? "  {\n    status = accel_open_nccl();\n    if (status == "
                 "ACCEL_OK)\n      status = accel_load_locked(device);\n  }\n"
               : "    status = accel_load_locked(device);\n")
       << R"c(  pthread_mutex_unlock(&accel_lock);
  return status;
}
)c"
       << "\nvoid accel_" << m << "_unload(void) {\n"
       << R"c(  pthread_mutex_lock(&accel_lock);
  if (accel_device >= 0)
    accel_unload_locked();
  pthread_mutex_unlock(&accel_lock);
)c"
       << (numCollectives() > 0
               ? "  if (nccl.library)\n    accel_release_splits(NULL);\n"
               : "")
       << "}\n";
  }

  llvm::json::Value metadata() const {
    llvm::json::Array fns;
    for (const HostFunction &f : functions) {
      const GpuHostSignature &s = *f.signature;
      auto buffers = [](llvm::ArrayRef<abi::Buffer> list) {
        llvm::json::Array out;
        for (const abi::Buffer &b : list) {
          int64_t bytes = b.elemBytes;
          for (int64_t d : b.shape)
            bytes *= d;
          llvm::json::Object o{{"dtype", b.dtype},
                               {"shape", llvm::json::Array(b.shape)},
                               {"byte_size", bytes}};
          // In a sharded module: the whole tensor and its split (what
          // accel-compile's CPU JSON says).
          if (!b.wholeShape.empty() || !b.splitAxes.empty()) {
            llvm::json::Array axes;
            for (const std::vector<int64_t> &a : b.splitAxes)
              axes.push_back(llvm::json::Array(a));
            o["whole_shape"] = llvm::json::Array(b.wholeShape);
            o["split_axes"] = std::move(axes);
          }
          out.push_back(std::move(o));
        }
        return out;
      };
      llvm::json::Array temps, kernels;
      for (const Temporary &t : f.temporaries)
        temps.push_back(llvm::json::Object{{"name", t.name},
                                           {"byte_size", t.bytes},
                                           {"offset", t.offset},
                                           {"first_kernel", int64_t(t.first)},
                                           {"last_kernel", int64_t(t.last)}});
      for (const KernelMetadata *k : f.kernels)
        kernels.push_back(llvm::json::Object{{"kernel", k->kernel},
                                             {"metadata", k->kernel + ".json"}});
      llvm::json::Object fn{{"name", s.name},
                            {"symbol", hashedSymbol(s)},
                            {"signature", s.signature},
                            {"arguments", buffers(s.args)},
                            {"results", buffers(s.results)},
                            {"workspace_bytes", f.workspaceBytes},
                            {"temporaries", std::move(temps)},
                            {"kernels", std::move(kernels)}};
      // A sharded function: its steps in order (the temporaries'
      // first/last count these), the collectives among them.
      if (!s.grid.empty()) {
        llvm::json::Array steps;
        for (const HostFunction::Step &st : f.steps) {
          if (st.kernel) {
            steps.push_back(
                llvm::json::Object{{"kernel", f.kernels[st.index]->kernel}});
            continue;
          }
          const GpuCollective &c = *f.collectives[st.index];
          steps.push_back(
              llvm::json::Object{{"collective", c.kind},
                                 {"reduction", c.reduction},
                                 {"input", c.input},
                                 {"output", c.output},
                                 {"dtype", c.dtype},
                                 {"count", c.count},
                                 {"byte_size", c.byteSize},
                                 {"grid_axes", llvm::json::Array(c.gridAxes)}});
        }
        fn["steps"] = std::move(steps);
      }
      fns.push_back(std::move(fn));
    }
    llvm::json::Object top{{"format_version", 1},
                           {"abi_version", abi::kAbiVersion},
                           {"compiler", getAccelCompilerId()},
                           {"target", target},
                           {"chip", chip},
                           {"module", m},
                           {"info", info()},
                           {"header", (m + ".h").str()},
                           {"source", (m + "_host.c").str()},
                           {"library", ("lib" + m + ".so").str()},
                           {"object", (m + ".o").str()},
                           {"functions", std::move(fns)}};
    if (!grid().empty()) {
      top["grid"] = llvm::json::Array(grid());
      top["processes"] = processes();
      top["collective_library"] = ncclLibrary();
    }
    return top;
  }
};

} // namespace

llvm::Expected<GpuHostInputs>
mlir::accel::collectGpuHostInputs(ModuleOp module,
                                  const BackendOptions &opts) {
  llvm::Expected<std::string> name = cModuleName(module, opts);
  if (!name)
    return name.takeError();
  // A sharded module's functions are each process's part from here on.
  llvm::Expected<std::vector<int64_t>> grid =
      partitionShardedModule(module, opts);
  if (!grid)
    return grid.takeError();
  GpuHostInputs inputs{*name, {}};
  std::vector<GpuHostSignature> &out = inputs.signatures;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal() || !func.isPublic())
      continue;
    GpuHostSignature s;
    s.name = func.getSymName().str();
    // Problems are reported once the kernels are compiled: the pipeline's
    // located errors (a name PTX cannot take, a dynamic shape) come first.
    if (!isCIdentifier(s.name)) {
      s.problem = "the function name '" + s.name + "' is not a C identifier";
      out.push_back(std::move(s));
      continue;
    }
    if (std::string why = whyReserved(s.name, inputs.module); !why.empty()) {
      s.problem = "the function name '" + s.name +
                  "' is reserved in a GPU host library (" + why + ")";
      out.push_back(std::move(s));
      continue;
    }
    // ACCEL_<NAME>_WORKSPACE_BYTES: names that differ only in case clash.
    for (const GpuHostSignature &other : out)
      if (llvm::StringRef(other.name).equals_insensitive(s.name))
        s.problem = "the function names '" + other.name + "' and '" +
                    s.name + "' differ only in case, as the GPU host "
                    "library's macros cannot";
    FunctionType type = func.getFunctionType();
    llvm::raw_string_ostream(s.signature) << type;
    auto buffer = [&](Type t, const std::string &what)
        -> llvm::Expected<abi::Buffer> {
      auto shaped = dyn_cast<ShapedType>(t);
      auto memref = dyn_cast<MemRefType>(t);
      if (!shaped || !shaped.hasStaticShape() ||
          !(isa<RankedTensorType>(t) ||
            (memref && memref.getLayout().isIdentity())) ||
          shaped.getRank() > abi::kMaxRank ||
          !shaped.getElementType().isIntOrFloat())
        return backendError(
            "@" + s.name + " " + what +
            ": a GPU host function takes statically shaped tensors (or "
            "identity-layout memrefs) of rank <= 8 with integer or float "
            "elements");
      abi::Buffer b;
      llvm::raw_string_ostream(b.dtype) << shaped.getElementType();
      b.elemBytes = (shaped.getElementTypeBitWidth() + 7) / 8;
      b.shape.assign(shaped.getShape().begin(), shaped.getShape().end());
      return b;
    };
    for (auto [i, t] : llvm::enumerate(type.getInputs())) {
      if (!s.problem.empty())
        break;
      auto b = buffer(t, "argument " + std::to_string(i));
      if (!b) {
        s.problem = llvm::toString(b.takeError());
        break;
      }
      s.args.push_back(std::move(*b));
    }
    for (auto [i, t] : llvm::enumerate(type.getResults())) {
      if (!s.problem.empty())
        break;
      auto b = buffer(t, "result " + std::to_string(i));
      if (!b) {
        s.problem = llvm::toString(b.takeError());
        break;
      }
      s.results.push_back(std::move(*b));
    }
    if (!grid->empty()) {
      s.grid = *grid;
      describeShardedBlocks(func, s.grid, s.args, "accel.arg_split_axes");
      describeShardedBlocks(func, s.grid, s.results, "accel.result_split_axes");
    }
    out.push_back(std::move(s));
  }
  return inputs;
}

llvm::Error mlir::accel::stageGpuHostLibrary(
    llvm::StringRef target, llvm::StringRef chip, const GpuHostInputs &inputs,
    llvm::ArrayRef<GpuKernel> kernels,
    llvm::ArrayRef<GpuCollective> collectives,
    const llvm::StringMap<GpuHostImage> &images, ArtifactSink &sink,
    const BackendOptions &opts) {
  llvm::StringRef module = inputs.module;
  std::vector<HostFunction> functions;
  for (const GpuHostSignature &s : inputs.signatures) {
    if (!s.problem.empty())
      return backendError(s.problem);
    llvm::Expected<HostFunction> f = planFunction(s, kernels, collectives);
    if (!f)
      return f.takeError();
    if (!images.count(f->image))
      return backendError("the GPU host function of @" + s.name +
                          ": no image of " + f->image);
    functions.push_back(std::move(*f));
  }
  if (functions.empty())
    return llvm::Error::success();
  Generator gen{target, chip, module, module.upper(), functions, images};
  llvm::Expected<std::string> clang =
      findTool(opts.clang, {"clang-22", "clang"}, "clang", target);
  if (!clang)
    return clang.takeError();
  llvm::Expected<std::string> lld =
      findTool(opts.lld, {"ld.lld"}, "ld-lld", target);
  if (!lld)
    return lld.takeError();
  std::string m = module.str();
  if (llvm::Error e = sink.add(m + ".h", gen.header()))
    return e;
  if (llvm::Error e = sink.add(m + "_host.c", gen.source()))
    return e;
  std::string objectName = m + ".o", libraryName = "lib" + m + ".so";
  std::string object = sink.pathOf(objectName);
  std::string include = "-I" + llvm::sys::path::parent_path(object).str();
  if (llvm::Error e = runTool(
          sink, "compiling the host code of '" + m + "' with " + *clang,
          {*clang, "--target=x86_64-unknown-linux-gnu", "-O2", "-fPIC",
           "-std=c11", "-Wall", "-Werror", include, "-c",
           sink.pathOf(m + "_host.c"), "-o", object}))
    return e;
  sink.adopt(objectName);
  if (llvm::Error e = linkSharedLibrary(sink, *lld, libraryName, object,
                                       systemCLibraries()))
    return e;
  std::string json;
  llvm::raw_string_ostream os(json);
  os << llvm::formatv("{0:2}", gen.metadata()) << "\n";
  return sink.add(m + ".json", json);
}
