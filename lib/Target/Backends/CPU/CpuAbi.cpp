//===- CpuAbi.cpp - C ABI of ahead-of-time compiled CPU kernels -----------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "accel/Runtime/KernelMetadata.h"
#include "accel/Target/CpuAbi.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include <set>

using namespace mlir::accel::cpuabi;

namespace {

// CPUID bits from the Intel SDM, vol. 2A, "CPUID". XCR0: bits 1-2 SSE/AVX
// state, 5-7 the AVX-512 opmask and upper registers, 17-18 AMX tile state.
constexpr uint64_t kAvxState = 0x6, kAvx512State = 0xe6, kAmxState = 0x60000;
const Feature kFeatures[] = {
    {"sse3", 1, 0, 2, 0, 0},
    {"ssse3", 1, 0, 2, 9, 0},
    {"sse4.1", 1, 0, 2, 19, 0},
    {"sse4.2", 1, 0, 2, 20, 0},
    {"popcnt", 1, 0, 2, 23, 0},
    {"fma", 1, 0, 2, 12, kAvxState},
    {"avx", 1, 0, 2, 28, kAvxState},
    {"f16c", 1, 0, 2, 29, kAvxState},
    {"bmi", 7, 0, 1, 3, 0},
    {"avx2", 7, 0, 1, 5, kAvxState},
    {"bmi2", 7, 0, 1, 8, 0},
    {"avx512f", 7, 0, 1, 16, kAvx512State},
    {"avx512dq", 7, 0, 1, 17, kAvx512State},
    {"avx512cd", 7, 0, 1, 28, kAvx512State},
    {"avx512bw", 7, 0, 1, 30, kAvx512State},
    {"avx512vl", 7, 0, 1, 31, kAvx512State},
    {"avx512vnni", 7, 0, 2, 11, kAvx512State},
    {"avx512fp16", 7, 0, 3, 23, kAvx512State},
    {"amx-bf16", 7, 0, 3, 22, kAmxState},
    {"amx-tile", 7, 0, 3, 24, kAmxState},
    {"amx-int8", 7, 0, 3, 25, kAmxState},
    {"avx512bf16", 7, 1, 0, 5, kAvx512State},
};

std::string upper(llvm::StringRef s) { return s.upper(); }

} // namespace

std::string mlir::accel::cpuabi::cString(llvm::StringRef s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

namespace {

/// A size of a call as C code (`arg0->sizes[1]`, `(int64_t)16`), or for
/// the header's comment without the cast.
std::string sizeText(const SizeRef &r, bool code) {
  if (r.index < 0)
    return (code ? "(int64_t)" : "") + std::to_string(r.value);
  return (r.result ? "result" : "arg") + std::to_string(r.index) + "->sizes[" +
         std::to_string(r.dim) + "]";
}

/// The condition `c` requires, as C code.
std::string checkText(const SizeCheck &c, bool code) {
  return sizeText(c.lhs, code) + " == " + sizeText(c.rhs, code);
}

std::string shapeText(const Buffer &b) {
  std::string s;
  for (int64_t d : b.shape)
    s +=
        (s.empty() ? "" : "x") + (d < 0 ? std::string("?") : std::to_string(d));
  return s.empty() ? "scalar" : s;
}

} // namespace

std::string mlir::accel::cpuabi::blockText(const Buffer &b) {
  if (b.splitAxes.empty())
    return "";
  Buffer whole = b;
  whole.shape = b.wholeShape;
  std::string text = " of " + b.dtype + "[" + shapeText(whole) + "] split [";
  for (size_t d = 0; d < b.splitAxes.size(); ++d) {
    text += d ? ", [" : "[";
    for (size_t i = 0; i < b.splitAxes[d].size(); ++i)
      text += (i ? ", " : "") + std::to_string(b.splitAxes[d][i]);
    text += "]";
  }
  return text + "]";
}

namespace {

/// The rank-specialized memref descriptor of MLIR's C interface.
std::string descType(size_t rank) {
  return "accel_memref_" + std::to_string(rank);
}

} // namespace

llvm::ArrayRef<Feature> mlir::accel::cpuabi::knownFeatures() {
  return kFeatures;
}

const Feature *mlir::accel::cpuabi::lookupFeature(llvm::StringRef name) {
  for (const Feature &f : kFeatures)
    if (name == f.name)
      return &f;
  return nullptr;
}

llvm::ArrayRef<RuntimeFunction> mlir::accel::cpuabi::runtimeFunctions() {
  static const RuntimeFunction functions[] = {
      {"_mlir_memref_to_llvm_alloc", "alloc"},
      {"_mlir_memref_to_llvm_free", "free"},
      {"accel_allocation_failed", "allocation_failed"},
      {"accel_index_out_of_range", "index_out_of_range"},
      {"accel_parallel_for", "parallel_for"}};
  return functions;
}

std::string mlir::accel::cpuabi::runtimeSymbol(const Artifact &a,
                                               llvm::StringRef suffix) {
  return ("__accel_" + a.module + "_" + suffix).str();
}

uint64_t mlir::accel::cpuabi::signatureHash(const Kernel &k) {
  return llvm::xxh3_64bits(llvm::StringRef(k.name + k.signature));
}

std::string mlir::accel::cpuabi::hashedSymbol(const Kernel &k) {
  return llvm::formatv("accel_{0}_h{1:x-16}", k.name, signatureHash(k)).str();
}

/// "(const accel_tensor *arg0, ..., accel_tensor *result0, ...)", or
/// "(void)": a kernel's C parameters.
static std::string parameterList(const Kernel &k) {
  std::string text = "(";
  bool first = true;
  for (size_t i = 0; i < k.args.size(); ++i, first = false)
    text += (first ? "" : ", ") +
            ("const accel_tensor *arg" + llvm::Twine(i)).str();
  for (size_t i = 0; i < k.results.size(); ++i, first = false)
    text +=
        (first ? "" : ", ") + ("accel_tensor *result" + llvm::Twine(i)).str();
  return text + (first ? "void)" : ")");
}

std::string mlir::accel::cpuabi::infoString(const Artifact &a) {
  return llvm::formatv(
             "{{\"format_version\":{0},\"abi_version\":{1},"
             "\"compiler\":\"{2}\",\"target\":\"cpu\","
             "\"triple\":\"{3}\",\"cpu\":\"{4}\",\"features\":\"{5}\","
             "\"module\":\"{6}\",\"threads\":{7}}",
             kFormatVersion, kAbiVersion, mlir::accel::getAccelCompilerId(), a.triple, a.cpu,
             llvm::join(a.features, ","), a.module, a.threads)
      .str();
}

/// `text` (from the IR: a signature, whose types may hold strings) inside a
/// C comment: every "*/" is broken up, so the comment cannot end early and
/// nothing of the IR becomes C code.
std::string mlir::accel::cpuabi::commentText(llvm::StringRef text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] == '*' && i + 1 < text.size() && text[i + 1] == '/')
      out += ' ';
  }
  return out;
}

// Shared by every generated header (CPU libraries and GPU host libraries);
// the guard lets several be included.
std::string mlir::accel::cpuabi::sharedHeaderText() {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "#ifndef ACCEL_AOT_ABI\n#define ACCEL_AOT_ABI " << kAbiVersion
     << "\n#define ACCEL_MAX_RANK " << kMaxRank
     << "\n#define ACCEL_MAX_THREADS 1024\n"
     << R"c(/* A buffer: sizes and strides in elements, row-major contiguous. */
typedef struct accel_tensor {
  void *data;
  int64_t rank;
  int64_t sizes[ACCEL_MAX_RANK];
  int64_t strides[ACCEL_MAX_RANK];
} accel_tensor;

enum accel_status {
  ACCEL_OK = 0,
  ACCEL_ERR_NULL = 1,         /* a buffer or its data is NULL */
  ACCEL_ERR_SHAPE = 2,        /* rank or sizes differ from the compiled ones */
  ACCEL_ERR_LAYOUT = 3,       /* strides are not contiguous row-major (GPU: or misaligned) */
  ACCEL_ERR_CPU_FEATURES = 4, /* this CPU lacks a compiled-for feature */
  ACCEL_ERR_VERSION = 5,      /* header and library do not match */
  ACCEL_ERR_ALLOC = 6,        /* a temporary could not be allocated */
  ACCEL_ERR_THREADS = 7,      /* a thread setting the library cannot honour */
  ACCEL_ERR_DEVICE = 8,       /* GPU: no driver, a device that cannot run the code, or a driver call failed */
  ACCEL_ERR_COMM = 9,         /* sharded: MPI not running with the grid's process count; GPU: no NCCL (RCCL), a communicator of the wrong size, or an NCCL call failed */
  ACCEL_ERR_INDEX = 10        /* index data out of range: a paged attention's block table or kv_lengths (nothing was run) */
};

/* A caller's parallel-for (docs/aot.md, "Threads"): calls
   task(task_context, i) exactly once for every i in [0, n), on any of its
   threads, in any order, and returns when every call has returned. */
typedef void (*accel_task)(void *task_context, int64_t i);
typedef void (*accel_parallel_for)(void *runner, int64_t n, accel_task task,
                                   void *task_context);

static inline const char *accel_status_string(int status) {
  switch (status) {
  case ACCEL_OK: return "ok";
  case ACCEL_ERR_NULL: return "a buffer or its data is NULL";
  case ACCEL_ERR_SHAPE: return "a buffer's rank or sizes differ from the compiled shapes";
  case ACCEL_ERR_LAYOUT: return "a buffer is not contiguous row-major or is misaligned";
  case ACCEL_ERR_CPU_FEATURES: return "this CPU lacks instruction set features the library was compiled for";
  case ACCEL_ERR_VERSION: return "the library does not match this header (ABI version, compiler, target or features)";
  case ACCEL_ERR_ALLOC: return "a temporary could not be allocated (its size overflows, is over the library's limit, or malloc failed)";
  case ACCEL_ERR_THREADS: return "a thread setting the library cannot honour (fewer than 1, over ACCEL_MAX_THREADS, or more than 1 for a library compiled with threads=1)";
  case ACCEL_ERR_DEVICE: return "the GPU driver is missing or failed, the library is not loaded, or the device cannot run its code (the library's last_error() says which)";
  case ACCEL_ERR_COMM: return "sharded: MPI is not running with the grid's process count (CPU), or the communicator is NULL or has another number of ranks than the module's grid, or an NCCL (RCCL) call failed (GPU; the library's last_error() says which)";
  case ACCEL_ERR_INDEX: return "index data out of range: a paged attention's kv_lengths outside [0, pages * page size] or a block table entry outside the pool (nothing was run)";
default:
  return "unknown status";
}
}
#endif /* ACCEL_AOT_ABI */

)c";
  return text;
}

std::string mlir::accel::cpuabi::headerText(const Artifact &a) {
  std::string text;
  llvm::raw_string_ostream os(text);
  std::string m = a.module, M = upper(m);
  os << "/* " << m << ".h: C entry points of lib" << m
     << ".so, generated by " << mlir::accel::getAccelCompilerId()
     << " (accel-compile --target=cpu).\n   Do not edit. The ABI is described in "
        "docs/aot.md. */\n"
     << "#ifndef ACCEL_AOT_" << M << "_H\n#define ACCEL_AOT_" << M
     << "_H\n\n#include <stdint.h>\n#include <string.h>\n\n"
     << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  os << sharedHeaderText();
  std::string info = infoString(a);
  os << "/* What this header was generated with; the library must agree. */\n"
     << "#define ACCEL_" << M << "_ABI_VERSION " << kAbiVersion << "\n"
     << "#define ACCEL_" << M << "_FEATURES "
     << cString(llvm::join(a.features, ",")) << "\n"
     << "#define ACCEL_" << M << "_INFO " << cString(info) << "\n\n"
     << "/* The library's identity: " << info << " */\n"
     << "const char *accel_" << m << "_info(void);\n"
     << "int accel_" << m << "_abi_version(void);\n"
     << "/* ACCEL_OK, or ACCEL_ERR_CPU_FEATURES when this CPU (or its OS) "
        "lacks\n   one of ACCEL_"
     << M << "_FEATURES; accel_" << m << "_missing_features() names them. */\n"
     << "int accel_" << m << "_check_cpu(void);\n"
     << "const char *accel_" << m << "_missing_features(void);\n\n"
     << "/* Call once after loading: refuses a library built from another "
        "compilation\n   (ACCEL_ERR_VERSION) or one this CPU cannot run "
        "(ACCEL_ERR_CPU_FEATURES). */\n"
     << "static inline int accel_" << m << "_load_check(void) {\n"
     << "  if (accel_" << m << "_abi_version() != ACCEL_" << M
     << "_ABI_VERSION ||\n      strcmp(accel_" << m << "_info(), ACCEL_" << M
     << "_INFO) != 0)\n    return ACCEL_ERR_VERSION;\n"
     << "  return accel_" << m << "_check_cpu();\n}\n\n";
  os << "/* Temporaries of 128 KiB and more are kept between calls, up to "
        "ACCEL_CACHE_MB\n   (environment, read at the first free; default "
        "4096, 0: none), so that a\n   call does not fault their pages in "
        "again; this frees them (those in use\n   stay with their calls). */\n"
     << "void accel_" << m << "_release_memory(void);\n\n"
     << "/* The most memory the kernels' temporaries held at once (bytes of "
        "their blocks,\n   every thread together) since the library was "
        "loaded or since a call\n   with `reset` nonzero, which then starts "
        "the count again from what they\n   hold now. */\n"
     << "uint64_t accel_" << m << "_peak_temporary_bytes(int reset);\n\n";
  os << "/* Threads (docs/aot.md, \"Threads\"). "
     << (a.threads > 1
             ? "Compiled with threads=" + std::to_string(a.threads) +
                   ": the kernels' parallel\n   loops are split for that "
                   "many threads and run on the library's own threads\n   "
                   "(the calling thread and ACCEL_" +
                   M + "_THREADS - 1 more), or on a caller's\n   "
                   "parallel-for once one is set. "
             : "Compiled with threads=1: the kernels are sequential "
               "and run on\n   the calling thread. ")
     << "Not to be called while a kernel of this\n   library runs. */\n"
     << "#define ACCEL_" << M << "_THREADS " << a.threads << "\n"
     << "/* How many of the library's own threads a loop runs on (the "
        "caller's\n   included); ACCEL_ERR_THREADS for n < 1, n > "
        "ACCEL_MAX_THREADS, or n > 1\n   in a library compiled with "
        "threads=1. */\n"
     << "int accel_" << m << "_set_num_threads(int n);\n"
     << "int accel_" << m << "_num_threads(void);\n"
     << "/* Runs the parallel loops through `fn` (an application's thread "
        "pool), each\n   split into at most 4 * width tasks; fn NULL: the "
        "library's own threads\n   again. ACCEL_ERR_THREADS for width < 1 "
        "or over ACCEL_MAX_THREADS. */\n"
     << "int accel_" << m
     << "_set_parallel_for(accel_parallel_for fn, void *runner, int width);"
        "\n\n";
  if (!a.grid.empty()) {
    int64_t processes = 1;
    std::string shape;
    for (int64_t g : a.grid) {
      processes *= g;
      shape += (shape.empty() ? "" : "x") + std::to_string(g);
    }
    os << "/* Sharded over a grid of shape " << shape
       << " (docs/distributed.md): an "
          "MPI program (MPICH)\n   runs exactly ACCEL_"
       << M
       << "_PROCESSES processes, calls MPI_Init, and every process\n"
          "   calls each function with its block of each tensor. Process r "
          "has grid\n   index (i0, i1, ...) = r in row-major order; a "
          "dimension split over grid\n   axes (a, b) holds part i_a * "
          "size_b + i_b of size/(size_a * size_b). The\n   functions "
          "communicate over MPI_COMM_WORLD: every process must call\n   "
          "them in the same order. A call outside MPI (not initialised, "
          "or\n   finalised) or with another number of processes returns "
          "ACCEL_ERR_COMM\n   before anything runs. */\n"
       << "#define ACCEL_" << M << "_PROCESSES " << processes << "\n\n";
  }
  auto block = [](const Buffer &b) { return blockText(b); };
  for (const Kernel &k : a.kernels) {
    os << "/* " << k.name << commentText(k.signature)
       << "\n   signature hash 0x"
       << llvm::utohexstr(signatureHash(k), /*LowerCase=*/true) << "\n";
    for (size_t i = 0; i < k.args.size(); ++i)
      os << "   arg" << i << ": " << k.args[i].dtype << "["
         << shapeText(k.args[i]) << "]"
         << (a.grid.empty() ? "" : block(k.args[i]).empty()
                                       ? " (the whole tensor)"
                                       : " (this process's block" +
                                             block(k.args[i]) + ")")
         << "\n";
    for (size_t i = 0; i < k.results.size(); ++i)
      os << "   result" << i << ": " << k.results[i].dtype << "["
         << shapeText(k.results[i]) << "] (written into the caller's buffer"
         << (a.grid.empty() ? "" : block(k.results[i]).empty()
                                       ? "; the whole tensor"
                                       : "; this process's block" +
                                             block(k.results[i]))
         << ")\n";
    if (!k.sizeChecks.empty()) {
      os << "   Dynamic sizes its ops tie together (else ACCEL_ERR_SHAPE):\n";
      for (const SizeCheck &c : k.sizeChecks)
        os << "     " << checkText(c, /*code=*/false) << "\n";
    }
    os << "   Returns ACCEL_OK or an accel_status. */\n";
    std::string params = parameterList(k);
    std::string hashed = hashedSymbol(k);
    os << "int accel_" << k.name << params << ";\n"
       << "/* The same kernel under a name that carries its signature hash: "
          "code compiled\n   against this header calls it, so a library whose "
          "accel_"
       << k.name
       << " has another\n   signature (other element types under the same "
          "shapes, which no check\n   above sees) fails to link or load "
          "instead of running. */\n"
       << "int " << hashed << params << ";\n"
       << "#ifndef ACCEL_" << M << "_PLAIN_SYMBOLS\n"
       << "#define accel_" << k.name << " " << hashed << "\n#endif\n\n";
  }
  os << "#ifdef __cplusplus\n}\n#endif\n\n#endif /* ACCEL_AOT_" << M
     << "_H */\n";
  return text;
}

std::string mlir::accel::cpuabi::wrapperText(const Artifact &a) {
  std::string text;
  llvm::raw_string_ostream os(text);
  std::string m = a.module;
  os << "/* The C wrapper of lib" << m
     << ".so (accel-compile --target=cpu). Compiled for baseline\n"
        "   x86-64, so the CPU check runs on any x86-64 CPU before any "
        "kernel code. */\n"
     << "/* The definitions below are the plain accel_<name>; each kernel's\n"
        "   signature-hashed name is an alias of it. */\n"
     << "#define _GNU_SOURCE 1 /* posix_memalign() and madvise() for the "
        "temporaries;\n   syscall() for AMX's permission, pthread_sigmask() "
        "*/\n"
     << "#define ACCEL_" << upper(m) << "_PLAIN_SYMBOLS\n"
     << "#include \"" << m << ".h\"\n#include <cpuid.h>\n#include <setjmp.h>\n"
     << "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
     << "#include <sys/mman.h>\n#include <unistd.h>\n"
     << (a.threads > 1
             ? "#include <pthread.h>\n#include <signal.h>\n#include <time.h>\n"
               "#include <unistd.h>\n"
             : "")
     << (llvm::is_contained(a.features, "amx-tile")
             ? "#include <sys/syscall.h>\n#include <unistd.h>\n\n"
             : "\n")
     << "/* The functions the kernels call for their temporaries. */\n"
     << "#define ACCEL_RT(name) __accel_" << m << "_##name\n\n";
  // MLIR's memref descriptors, one struct per rank used.
  std::set<size_t> ranks;
  for (const Kernel &k : a.kernels) {
    for (const Buffer &b : k.args)
      ranks.insert(b.shape.size());
    for (const Buffer &b : k.results)
      ranks.insert(b.shape.size());
  }
  for (size_t r : ranks) {
    os << "typedef struct { void *allocated; void *aligned; int64_t offset;";
    if (r)
      os << " int64_t sizes[" << r << "]; int64_t strides[" << r << "];";
    os << " } " << descType(r) << ";\n";
  }
  os << "\nstatic const struct { const char *name; unsigned leaf, subleaf, "
        "reg, bit; unsigned long long xcr0; } required[] = {\n";
  for (const std::string &name : a.features) {
    const Feature *f = lookupFeature(name);
    os << llvm::formatv("  {{\"{0}\", {1}, {2}, {3}, {4}, {5:x}ULL},\n",
                        f->name, f->leaf, f->subleaf, f->reg, f->bit, f->xcr0);
  }
  os << "  {0, 0, 0, 0, 0, 0}};\n"
     << R"c(
static unsigned cpuid_reg(unsigned leaf, unsigned subleaf, unsigned reg) {
  unsigned r[4] = {0, 0, 0, 0};
  if (__get_cpuid_max(leaf & 0x80000000u, 0) < leaf)
    return 0;
  __cpuid_count(leaf, subleaf, r[0], r[1], r[2], r[3]);
  return r[reg];
}

/* The register state the OS saves; 0 without OSXSAVE. */
static unsigned long long xcr0(void) {
  unsigned lo, hi;
  if (!(cpuid_reg(1, 0, 2) & (1u << 27)))
    return 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return ((unsigned long long)hi << 32) | lo;
}

/* 0: not checked yet, 1: every feature is there, 2: some are missing. */
static int cpu_state;
static char missing[512];

)c";
  os << "const char *accel_" << m << "_info(void) {\n  return "
     << cString(infoString(a)) << ";\n}\n\n"
     << "int accel_" << m << "_abi_version(void) { return " << kAbiVersion
     << "; }\n\n"
     << "static void release_blocks(void);\n"
     << "void accel_" << m << "_release_memory(void) { release_blocks(); }\n\n"
     << "static uint64_t peak_blocks(int reset);\n"
     << "uint64_t accel_" << m
     << "_peak_temporary_bytes(int reset) { return peak_blocks(reset); }\n\n"
     << "int accel_" << m << "_check_cpu(void) {\n"
     << R"c(  int state = __atomic_load_n(&cpu_state, __ATOMIC_ACQUIRE);
  if (!state) {
    char text[sizeof missing] = "";
    unsigned long long os_state = xcr0();
    int i;
    for (i = 0; required[i].name; ++i) {
      int ok = (cpuid_reg(required[i].leaf, required[i].subleaf,
                          required[i].reg) >> required[i].bit) & 1u;
      if ((os_state & required[i].xcr0) != required[i].xcr0)
        ok = 0;
      if (!ok && strlen(text) + strlen(required[i].name) + 2 < sizeof text) {
        if (text[0])
          strcat(text, ",");
        strcat(text, required[i].name);
      }
    }
    memcpy(missing, text, sizeof text);
    state = text[0] ? 2 : 1;
)c";
  // AMX: Linux gives a process the tile state only when asked
  // (arch_prctl ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA); without it the
  // first tile instruction is a SIGILL. Asked here, before any kernel runs;
  // a refusal is a missing feature.
  if (llvm::is_contained(a.features, "amx-tile"))
    os << R"c(    if (state == 1 && syscall(SYS_arch_prctl, 0x1023, 18) != 0) {
      strcpy(missing, "amx-tile (the OS refused the tile data permission)");
      state = 2;
    }
)c";
  os << R"c(    __atomic_store_n(&cpu_state, state, __ATOMIC_RELEASE);
  }
  return state == 1 ? ACCEL_OK : ACCEL_ERR_CPU_FEATURES;
}

)c";
  os << "const char *accel_" << m << "_missing_features(void) {\n"
     << "  accel_" << m << "_check_cpu();\n  return missing;\n}\n"
     << R"c(
/* Rank, sizes (shape[i] < 0: any) and a row-major contiguous layout. */
static int check_tensor(const accel_tensor *t, int64_t rank,
                        const int64_t *shape) {
  int64_t i, count = 1, stride = 1;
  if (!t)
    return ACCEL_ERR_NULL;
  if (t->rank != rank)
    return ACCEL_ERR_SHAPE;
  for (i = 0; i < rank; ++i) {
    if (t->sizes[i] < 0 || (shape[i] >= 0 && t->sizes[i] != shape[i]))
      return ACCEL_ERR_SHAPE;
    count *= t->sizes[i];
  }
  if (count && !t->data)
    return ACCEL_ERR_NULL;
  for (i = rank - 1; i >= 0; --i) {
    if (t->sizes[i] > 1 && t->strides[i] != stride)
      return ACCEL_ERR_LAYOUT;
    stride *= t->sizes[i];
  }
  return ACCEL_OK;
}

/* Fills a descriptor (all fields are 8 bytes): allocated, aligned, offset,
   sizes, strides. */
static void describe(void *desc, const accel_tensor *t) {
  char *p = (char *)desc;
  int64_t zero = 0, strides[ACCEL_MAX_RANK], stride = 1, i;
  for (i = t->rank - 1; i >= 0; --i) {
    strides[i] = stride;
    stride *= t->sizes[i];
  }
  memcpy(p, &t->data, 8);
  memcpy(p + 8, &t->data, 8);
  memcpy(p + 16, &zero, 8);
  memcpy(p + 24, t->sizes, 8 * t->rank);
  memcpy(p + 24 + 8 * t->rank, strides, 8 * t->rank);
}

/* The bytes a row-major contiguous tensor spans. */
static uint64_t span_bytes(const accel_tensor *t, size_t elem) {
  uint64_t count = 1;
  int64_t i;
  for (i = 0; i < t->rank; ++i)
    count *= (uint64_t)t->sizes[i];
  return count * elem;
}

/* Whether two tensors' bytes overlap. */
static int overlap(const accel_tensor *a, size_t aelem, const accel_tensor *b,
                   size_t belem) {
  uintptr_t p = (uintptr_t)a->data, q = (uintptr_t)b->data;
  uint64_t n = span_bytes(a, aelem), m = span_bytes(b, belem);
  return n && m && p < q + m && q < p + n;
}

__attribute__((visibility("hidden"))) void *ACCEL_RT(alloc)(uint64_t bytes);

/* The buffer a result the kernel writes in place goes to: the caller's
   when it has the alignment the kernel's accesses assume of it (`align`,
   at least the element's) and overlaps no other buffer of the call
   (`shared`), else a temporary of the call (64-byte aligned, as every
   ACCEL_RT(alloc) block), which take_result then copies out. */
static void describe_result(void *desc, const accel_tensor *t, size_t elem,
                            size_t align, int shared) {
  void *block;
  if (align < elem)
    align = elem;
  if (!shared && (uintptr_t)t->data % align == 0) {
    describe(desc, t);
    return;
  }
  block = ACCEL_RT(alloc)(span_bytes(t, elem));
  describe(desc, t);
  memcpy(desc, &block, 8);
  memcpy((char *)desc + 8, &block, 8);
}

/* The temporaries of what runs on this thread: an entry point's call, or
   one task of a parallel loop (on a thread of the library or of the
   caller's pool, which may be the calling thread: frames nest). The
   kernels take memory only through ACCEL_RT(alloc): each frame frees what
   it still holds when it ends, and a temporary that cannot be allocated
   ends the frame (longjmp back to where it began; nothing of the kernel's
   own is left to clean up: it keeps no state). A task's failure makes its
   loop's call end with ACCEL_ERR_ALLOC once the loop is over. */
struct frame {
  struct frame *outer;
  jmp_buf failed;
  void **live; /* first, the 8 slots of `slots`: no malloc for the list */
  size_t count, capacity;
  void *slots[8];
};
static _Thread_local struct frame *call;

/* Called by the kernels for a temporary whose size overflows, is negative
   or is over the compiled limit (accel-cpu-guard-allocations), and below
   when malloc fails. */
__attribute__((visibility("hidden"), noreturn)) void
ACCEL_RT(allocation_failed)(void) {
  if (!call) {
    fputs("accel: a kernel's temporary could not be allocated outside a "
          "call of its entry point\n", stderr);
    abort();
  }
  longjmp(call->failed, 1);
}

/* Called by the kernels when run-time index data is out of range (a paged
   attention's block table or lengths, checked before anything reads the
   pool): the call returns ACCEL_ERR_INDEX. */
__attribute__((visibility("hidden"), noreturn)) void
ACCEL_RT(index_out_of_range)(void) {
  if (!call) {
    fputs("accel: a kernel's index data is out of range outside a call of "
          "its entry point\n", stderr);
    abort();
  }
  longjmp(call->failed, 2);
}

/* Large temporaries are kept for the next call instead of going back to
   malloc: glibc returns blocks over its mmap threshold to the kernel on
   free, so every call would fault in and zero their pages again (40 % of
   a bf16 Llama block's time at 128 tokens). A freed block of at least
   CACHE_MIN bytes goes to a small cache; an allocation takes the smallest
   cached block that holds it and is at most twice its size. The cache
   holds at most `limit` bytes (ACCEL_CACHE_MB in the environment, read at
   the first free; 0 turns it off; default 4096) in CACHE_SLOTS blocks; a
   block that does not fit evicts smaller ones. It is emptied by
   accel_<module>_release_memory(), and before giving up on a failed
   allocation. Each block's data follows a 16-byte header (the bytes it
   holds, the offset of the data from the block's start) at the end of the
   64 bytes before it: the data is 64-byte aligned (a cache line, a 512-bit
   vector, an AMX tile row) or, from 2 MiB, starts a run of whole 2 MiB
   pages that are huge pages where the OS allows it. */
#define CACHE_MIN ((size_t)1 << 17)
#define CACHE_SLOTS 64
#define HEADER 64
#define HUGE_PAGE ((size_t)2 << 20)
static struct {
  char *data[CACHE_SLOTS];
  size_t bytes[CACHE_SLOTS];
  size_t held;
  long long limit; /* -1: not read yet */
} cache = {{0}, {0}, 0, -1};
/* The process that holds the lock (0: free): a child of fork() finds its
   parent's id there when another thread of the parent held it, and takes
   the lock over (the parent's threads are gone). */
static int cache_owner;

static void cache_lock(void) {
  int self = (int)getpid(), seen;
  for (;;) {
    seen = 0;
    if (__atomic_compare_exchange_n(&cache_owner, &seen, self, 0,
                                    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
      return;
    if (seen != self)
      __atomic_compare_exchange_n(&cache_owner, &seen, 0, 0, __ATOMIC_RELAXED,
                                  __ATOMIC_RELAXED);
    else
      __builtin_ia32_pause();
  }
}
static void cache_unlock(void) {
  __atomic_store_n(&cache_owner, 0, __ATOMIC_RELEASE);
}

static void header_of(char *data, size_t *bytes, size_t *lead) {
  memcpy(bytes, data - 16, sizeof *bytes);
  memcpy(lead, data - 8, sizeof *lead);
}

/* Frees cached block i (with the lock held). */
static void drop_slot(size_t i) {
  size_t bytes, lead;
  header_of(cache.data[i], &bytes, &lead);
  free(cache.data[i] - lead);
  cache.data[i] = NULL;
  cache.held -= cache.bytes[i];
}

/* Frees every cached block (with the lock held). */
static void empty_cache(void) {
  size_t i;
  for (i = 0; i < CACHE_SLOTS; ++i)
    if (cache.data[i])
      drop_slot(i);
}

/* A new block holding at least `bytes`, or NULL. */
static char *new_block(size_t bytes) {
  void *start;
  char *data;
  size_t lead = HEADER, holds = bytes;
  if (bytes >= HUGE_PAGE) {
    /* Whole 2 MiB pages for the data (a packed weight of 100 MB walked by
       tile loads misses the TLB on 4 KiB pages), after a first 2 MiB whose
       last bytes hold the header and which stays on small pages. */
    holds = (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    lead = HUGE_PAGE;
    if (holds < bytes)
      return NULL;
  }
  if (holds + lead < holds || posix_memalign(&start, HEADER < lead ? lead : HEADER,
                                             holds + lead))
    return NULL;
  data = (char *)start + lead;
  if (lead == HUGE_PAGE)
    madvise(data, holds, MADV_HUGEPAGE);
  memcpy(data - 16, &holds, sizeof holds);
  memcpy(data - 8, &lead, sizeof lead);
  return data;
}

/* Bytes the kernels' temporaries asked for and hold now, and the most
   they held at once (accel_<module>_peak_temporary_bytes): counted when a
   block is taken (the request is kept in its header, 24 bytes before the
   data) and given back, whether it comes from the cache or malloc. The
   blocks themselves may be larger (a cached block up to twice the
   request; 2 MiB pages for the large ones, whose untouched tail is not
   resident). */
static size_t live_bytes, peak_bytes;

static void count_block(char *data, size_t asked, int taken) {
  size_t bytes = asked, now, peak;
  if (taken)
    memcpy(data - 24, &bytes, sizeof bytes);
  else
    memcpy(&bytes, data - 24, sizeof bytes);
  if (!taken) {
    __atomic_sub_fetch(&live_bytes, bytes, __ATOMIC_RELAXED);
    return;
  }
  now = __atomic_add_fetch(&live_bytes, bytes, __ATOMIC_RELAXED);
  peak = __atomic_load_n(&peak_bytes, __ATOMIC_RELAXED);
  while (now > peak && !__atomic_compare_exchange_n(&peak_bytes, &peak, now,
                                                    1, __ATOMIC_RELAXED,
                                                    __ATOMIC_RELAXED))
    ;
}

/* With `reset`, the peak is swapped for what is held now in one step (a
   rise from a call running meanwhile goes to one side or the other). */
static uint64_t peak_blocks(int reset) {
  if (!reset)
    return __atomic_load_n(&peak_bytes, __ATOMIC_RELAXED);
  return __atomic_exchange_n(&peak_bytes,
                             __atomic_load_n(&live_bytes, __ATOMIC_RELAXED),
                             __ATOMIC_RELAXED);
}

/* A block of at least `bytes`, or NULL. */
static void *take_block(size_t bytes) {
  size_t best = CACHE_SLOTS, i;
  char *data = NULL;
  if (bytes >= CACHE_MIN) {
    cache_lock();
    for (i = 0; i < CACHE_SLOTS; ++i)
      if (cache.data[i] && cache.bytes[i] >= bytes &&
          cache.bytes[i] / 2 <= bytes &&
          (best == CACHE_SLOTS || cache.bytes[i] < cache.bytes[best]))
        best = i;
    if (best != CACHE_SLOTS) {
      data = cache.data[best];
      cache.data[best] = NULL;
      cache.held -= cache.bytes[best];
    }
    cache_unlock();
    if (data) {
      count_block(data, bytes, 1);
      return data;
    }
  }
  data = new_block(bytes);
  if (!data) {
    /* The cache may hold what the allocation needs: give it back and try
       once more. */
    cache_lock();
    empty_cache();
    cache_unlock();
    data = new_block(bytes);
  }
  if (data)
    count_block(data, bytes, 1);
  return data;
}

static void give_block(void *q) {
  char *data = (char *)q;
  size_t bytes, lead, i, smallest;
  count_block(data, 0, 0);
  header_of(data, &bytes, &lead);
  if (bytes >= CACHE_MIN) {
    cache_lock();
    if (cache.limit < 0) {
      const char *env = getenv("ACCEL_CACHE_MB");
      long long mb = env ? atoll(env) : 4096;
      mb = mb < 0 ? 0 : mb > ((long long)1 << 30) ? (long long)1 << 30 : mb;
      cache.limit = mb << 20;
    }
    /* Room for it, evicting smaller blocks (never a larger one). */
    while (bytes <= (size_t)cache.limit) {
      smallest = CACHE_SLOTS;
      for (i = 0; i < CACHE_SLOTS; ++i) {
        if (!cache.data[i] && cache.held + bytes <= (size_t)cache.limit)
          break;
        if (cache.data[i] && (smallest == CACHE_SLOTS ||
                              cache.bytes[i] < cache.bytes[smallest]))
          smallest = i;
      }
      if (i < CACHE_SLOTS) {
        cache.data[i] = data;
        cache.bytes[i] = bytes;
        cache.held += bytes;
        data = NULL;
        break;
      }
      if (smallest == CACHE_SLOTS || cache.bytes[smallest] >= bytes)
        break;
      drop_slot(smallest);
    }
    cache_unlock();
  }
  if (data)
    free(data - lead);
}

/* Frees the cached temporaries (accel_<module>_release_memory). */
static void release_blocks(void) {
  cache_lock();
  empty_cache();
  cache_unlock();
}

__attribute__((visibility("hidden"))) void *ACCEL_RT(alloc)(uint64_t bytes) {
  void *p;
  struct frame *f = call;
  if (f && f->count == f->capacity) {
    size_t capacity = 2 * f->capacity;
    void **live = (void **)malloc(capacity * sizeof *live);
    if (!live)
      ACCEL_RT(allocation_failed)();
    memcpy(live, f->live, f->count * sizeof *live);
    if (f->live != f->slots)
      free(f->live);
    f->live = live;
    f->capacity = capacity;
  }
  p = take_block(bytes ? (size_t)bytes : 1);
  if (!p)
    ACCEL_RT(allocation_failed)();
  if (f)
    f->live[f->count++] = p;
  return p;
}

__attribute__((visibility("hidden"))) void ACCEL_RT(free)(void *p) {
  size_t i;
  struct frame *f = call;
  if (!p)
    return;
  for (i = f ? f->count : 0; i-- > 0;)
    if (f->live[i] == p) {
      f->live[i] = f->live[--f->count];
      break;
    }
  give_block(p);
}

static void begin_frame(struct frame *f) {
  f->outer = call;
  f->live = f->slots;
  f->count = 0;
  f->capacity = sizeof f->slots / sizeof *f->slots;
  call = f;
}

/* Frees what the frame still holds: after a failed allocation, every
   temporary it made; after a call that ended, the buffers of its results
   (copied out by then) and anything else the kernel did not free. The frame
   is a local of the function that calls setjmp and changes after it (its
   list of temporaries); C leaves such a local's value indeterminate after
   longjmp unless it is volatile, but its address is in `call`, so the
   compiler cannot keep it in registers, and end_frame reads it only through
   that pointer. */
static void end_frame(void) {
  struct frame *f = call;
  size_t i;
  for (i = 0; i < f->count; ++i)
    give_block(f->live[i]);
  if (f->live != f->slots)
    free(f->live);
  call = f->outer;
}

/* Copies a returned memref into the caller's buffer. What the kernel
   allocated for it is freed with the call's other temporaries by end_frame,
   after every result is copied: a buffer returned twice is read twice. */
static int take_result(const void *desc, int64_t rank, size_t elem,
                       accel_tensor *t) {
  const char *p = (const char *)desc;
  void *aligned;
  int64_t offset, sizes[ACCEL_MAX_RANK], count = 1, i;
  int status = ACCEL_OK;
  memcpy(&aligned, p + 8, 8);
  memcpy(&offset, p + 16, 8);
  memcpy(sizes, p + 24, 8 * rank);
  for (i = 0; i < rank; ++i) {
    if (sizes[i] != t->sizes[i])
      status = ACCEL_ERR_SHAPE;
    count *= sizes[i];
  }
  if (status == ACCEL_OK && count &&
      (char *)aligned + offset * (int64_t)elem != (char *)t->data)
    memmove(t->data, (char *)aligned + offset * (int64_t)elem,
            (size_t)count * elem);
  return status;
}
)c";
  if (a.threads <= 1) {
    os << "\nint accel_" << m
       << "_set_num_threads(int n) {\n  return n == 1 ? ACCEL_OK : "
          "ACCEL_ERR_THREADS;\n}\n\nint accel_"
       << m << "_num_threads(void) { return 1; }\n\n"
       << "/* Sequential kernels: a parallel-for is never called. */\n"
       << "int accel_" << m
       << "_set_parallel_for(accel_parallel_for fn, void *runner, int width) "
          "{\n  (void)fn;\n  (void)runner;\n  return width >= 1 && width <= "
          "ACCEL_MAX_THREADS ? ACCEL_OK : ACCEL_ERR_THREADS;\n}\n";
  } else {
    os << "\n#define THREADS " << a.threads << "\n"
       << R"c(
/* The parallel loops: the kernels call ACCEL_RT(parallel_for)(body,
   context, count) (accel-cpu-outline-parallel), which must run
   body(context, begin, end) over ranges that cover [0, count). They are cut
   into `chunks` contiguous ranges, each run once as a task in a frame of its
   own. */
typedef void (*accel_body)(void *context, int64_t begin, int64_t end);
struct job {
  accel_body body;
  void *context;
  int64_t count, chunks;
  int width;    /* the library's threads that share it */
  int64_t done; /* atomic: chunks run */
  int failed;   /* atomic: a task's temporary could not be allocated */
  unsigned char taken[4 * ACCEL_MAX_THREADS]; /* atomic, per chunk */
};

static void run_task(void *p, int64_t i) {
  struct job *j = (struct job *)p;
  int64_t q, r, begin;
  struct frame frame;
  if (i < 0 || i >= j->chunks || __atomic_load_n(&j->failed, __ATOMIC_RELAXED))
    return;
  q = j->count / j->chunks;
  r = j->count % j->chunks;
  begin = i * q + (i < r ? i : r);
  begin_frame(&frame);
  /* 1: a temporary could not be allocated, 2: index data out of range. */
  switch (setjmp(frame.failed)) {
  case 0:
    break;
  case 2:
    end_frame();
    __atomic_store_n(&j->failed, 2, __ATOMIC_RELAXED);
    return;
  default:
    end_frame();
    __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
    return;
  }
  j->body(j->context, begin, begin + q + (i < r));
  end_frame();
}

/* Runs chunk i unless another thread took it. */
static void take(struct job *j, int64_t i) {
  if (__atomic_load_n(&j->taken[i], __ATOMIC_RELAXED) ||
      __atomic_exchange_n(&j->taken[i], 1, __ATOMIC_RELAXED))
    return;
  run_task(j, i);
  __atomic_fetch_add(&j->done, 1, __ATOMIC_RELEASE);
}

/* Thread `self` (0: the calling thread) first runs its own contiguous
   share of the chunks, the rows OpenMP's static schedule would give it, so
   that a kernel called in a loop finds its data in the caches of the core
   that used it last time (handing chunks out in the order threads arrive
   moved 256^3 GEMM blocks between cores at every call, 15 % slower); then
   any chunk still left, so that a late or slow thread holds nobody up. */
static void work(struct job *j, int self) {
  int64_t per = j->chunks / j->width, extra = j->chunks % j->width, i,
          begin = 0, end = 0;
  if (self < j->width) {
    begin = self * per + (self < extra ? self : extra);
    end = begin + per + (self < extra);
  }
  for (i = begin; i < end; ++i)
    take(j, i);
  for (i = 0; i < j->chunks; ++i)
    take(j, (end + i) % j->chunks);
}

/* The library's own threads: `width` - 1 workers beside the calling
   thread, started at the first loop that needs them; idle, they spin for
   SPIN_NS (a kernel's next loop follows within microseconds), then sleep.
   A worker takes part in the loop in `job` under the count `users`, which
   the calling thread waits to drop to 0 after taking the job back, so no
   worker touches a job after its call returned. One loop at a time: a loop
   that finds the threads busy (another thread's call) runs on its own
   thread. */
static struct {
  pthread_mutex_t submit, lock;
  pthread_cond_t wake;
  int width, started, quit;
  pid_t pid; /* of the process, remembered at load (fork: forget_if_forked) */
  unsigned generation;
  struct job *job;
  int users;
  accel_parallel_for runner_fn;
  void *runner;
  int runner_width;
  pthread_t threads[ACCEL_MAX_THREADS];
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
          PTHREAD_COND_INITIALIZER, THREADS};

/* How long an idle worker spins before it sleeps: OpenMP's blocktime as
   bench/run.sh sets it (KMP_BLOCKTIME=1); waking a sleeping thread takes
   tens of microseconds, as long as a small kernel. */
#define SPIN_NS 1000000
static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void *worker(void *arg) {
  int index = (int)(intptr_t)arg;
  unsigned seen = 0;
  for (;;) {
    unsigned generation;
    unsigned spins = 0;
    int64_t until = 0;
    struct job *j;
    while ((generation = __atomic_load_n(&pool.generation,
                                         __ATOMIC_ACQUIRE)) == seen) {
      if (__atomic_load_n(&pool.quit, __ATOMIC_ACQUIRE))
        return 0;
      __builtin_ia32_pause();
      if (++spins % 64)
        continue;
      if (!until)
        until = now_ns() + SPIN_NS;
      if (now_ns() < until)
        continue;
      pthread_mutex_lock(&pool.lock);
      while (__atomic_load_n(&pool.generation, __ATOMIC_ACQUIRE) == seen &&
             !pool.quit)
        pthread_cond_wait(&pool.wake, &pool.lock);
      pthread_mutex_unlock(&pool.lock);
    }
    seen = generation;
    if (index + 1 >= __atomic_load_n(&pool.width, __ATOMIC_RELAXED))
      continue;
    __atomic_fetch_add(&pool.users, 1, __ATOMIC_SEQ_CST);
    j = __atomic_load_n(&pool.job, __ATOMIC_SEQ_CST);
    if (j)
      work(j, index + 1);
    __atomic_fetch_sub(&pool.users, 1, __ATOMIC_SEQ_CST);
  }
}

/* A child of fork() has only the forking thread: it forgets the parent's
   workers (joining them at exit would wait on threads of another process)
   and starts its own when a loop needs them; the locks may have been held
   by another thread of the parent. Noticed by the process id, remembered
   when the library is loaded (no pthread_atfork: a library registers its
   handler through glibc's libc_nonshared.a, which this one does not link);
   the first thread of the child to notice claims the reset. */
__attribute__((constructor)) static void remember_process(void) {
  __atomic_store_n(&pool.pid, getpid(), __ATOMIC_RELAXED);
}

static void forget_if_forked(void) {
  pthread_mutex_t unlocked = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t idle = PTHREAD_COND_INITIALIZER;
  pid_t self = getpid(), old = __atomic_load_n(&pool.pid, __ATOMIC_ACQUIRE);
  if (old == self || !__atomic_compare_exchange_n(&pool.pid, &old, self, 0,
                                                  __ATOMIC_ACQ_REL,
                                                  __ATOMIC_ACQUIRE))
    return;
  pool.submit = unlocked;
  pool.lock = unlocked;
  pool.wake = idle;
  pool.started = 0;
  pool.users = 0;
  pool.job = 0;
}

/* Workers block every signal: the application's handlers run on its own
   threads. */
static void start_workers(int width) {
  sigset_t all, old;
  if (pool.started >= width - 1)
    return;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  while (pool.started < width - 1 &&
         pthread_create(&pool.threads[pool.started], 0, worker,
                        (void *)(intptr_t)pool.started) == 0)
    ++pool.started;
  pthread_sigmask(SIG_SETMASK, &old, 0);
}

__attribute__((destructor)) static void stop_workers(void) {
  int i;
  forget_if_forked();
  if (!pool.started)
    return;
  pthread_mutex_lock(&pool.lock);
  __atomic_store_n(&pool.quit, 1, __ATOMIC_RELEASE);
  pthread_cond_broadcast(&pool.wake);
  pthread_mutex_unlock(&pool.lock);
  for (i = 0; i < pool.started; ++i)
    pthread_join(pool.threads[i], 0);
  pool.started = 0;
}

static int64_t chunks_for(int64_t count, int width) {
  return count < 4 * (int64_t)width ? count : 4 * (int64_t)width;
}

__attribute__((visibility("hidden"))) void
ACCEL_RT(parallel_for)(accel_body body, void *context, int64_t count) {
  struct job j; /* `taken` is cleared only for the chunks a loop has */
  int width;
  if (count <= 0)
    return;
  j.body = body;
  j.context = context;
  j.count = count;
  j.width = 1;
  j.done = 0;
  j.failed = 0;
  if (pool.runner_fn) {
    j.chunks = chunks_for(count, pool.runner_width);
    pool.runner_fn(pool.runner, j.chunks, run_task, &j);
  } else {
    width = __atomic_load_n(&pool.width, __ATOMIC_RELAXED);
    if (width <= 1 || count == 1) {
      body(context, 0, count); /* in the caller's frame */
      return;
    }
    forget_if_forked();
    if (pthread_mutex_trylock(&pool.submit)) {
      body(context, 0, count);
      return;
    }
    start_workers(width);
    if (width > pool.started + 1)
      width = pool.started + 1;
    j.chunks = chunks_for(count, width);
    j.width = width;
    memset(j.taken, 0, (size_t)j.chunks);
    __atomic_store_n(&pool.job, &j, __ATOMIC_SEQ_CST);
    pthread_mutex_lock(&pool.lock);
    __atomic_fetch_add(&pool.generation, 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);
    work(&j, 0);
    while (__atomic_load_n(&j.done, __ATOMIC_ACQUIRE) < j.chunks)
      __builtin_ia32_pause();
    __atomic_store_n(&pool.job, (struct job *)0, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&pool.users, __ATOMIC_SEQ_CST))
      __builtin_ia32_pause();
    pthread_mutex_unlock(&pool.submit);
  }
  if (__atomic_load_n(&j.failed, __ATOMIC_RELAXED) == 2)
    ACCEL_RT(index_out_of_range)();
  if (__atomic_load_n(&j.failed, __ATOMIC_RELAXED))
    ACCEL_RT(allocation_failed)();
}

)c";
    os << "int accel_" << m << "_set_num_threads(int n) {\n" << R"c(  if (n < 1 || n > ACCEL_MAX_THREADS)
    return ACCEL_ERR_THREADS;
  forget_if_forked();
  pthread_mutex_lock(&pool.submit);
  __atomic_store_n(&pool.width, n, __ATOMIC_RELAXED);
  pthread_mutex_unlock(&pool.submit);
  return ACCEL_OK;
}

)c";
    os << "int accel_" << m << "_num_threads(void) {\n"
       << "  return pool.runner_fn ? pool.runner_width\n"
       << "                        : __atomic_load_n(&pool.width, "
          "__ATOMIC_RELAXED);\n}\n\n";
    os << "int accel_" << m
       << "_set_parallel_for(accel_parallel_for fn, void *runner, int width) "
          "{\n"
       << R"c(  if (width < 1 || width > ACCEL_MAX_THREADS)
    return ACCEL_ERR_THREADS;
  forget_if_forked();
  pthread_mutex_lock(&pool.submit);
  pool.runner_fn = fn;
  pool.runner = runner;
  pool.runner_width = width;
  pthread_mutex_unlock(&pool.submit);
  return ACCEL_OK;
}
)c";
  }
  // A sharded module's functions run in an MPI program of exactly the
  // grid's processes: checked before any kernel code (or MPI call) runs.
  if (!a.grid.empty()) {
    int64_t processes = 1;
    for (int64_t g : a.grid)
      processes *= g;
    os << R"c(
/* MPICH's ABI, which the library links: MPI_Comm is an int. */
extern int MPI_Initialized(int *flag);
extern int MPI_Finalized(int *flag);
extern int MPI_Comm_size(int comm, int *size);

/* ACCEL_ERR_COMM unless MPI is initialised, not finalised, and
   MPI_COMM_WORLD has the grid's process count. */
static int check_processes(void) {
  int initialized = 0, finalized = 0, size = 0;
  if (MPI_Initialized(&initialized) != 0 || !initialized ||
      MPI_Finalized(&finalized) != 0 || finalized)
    return ACCEL_ERR_COMM;
  if (MPI_Comm_size(0x44000000 /* MPI_COMM_WORLD */, &size) != 0 ||
      size != )c"
       << processes << R"c()
    return ACCEL_ERR_COMM;
  return ACCEL_OK;
}
)c";
  }
  for (const Kernel &k : a.kernels) {
    size_t nArgs = k.args.size(), nResults = k.results.size();
    // Results come back through a pointer: the descriptor for one, a struct
    // of descriptors for several.
    std::string resultType;
    if (nResults > 1) {
      resultType = k.name + "_results";
      os << "\ntypedef struct {";
      for (size_t i = 0; i < nResults; ++i)
        os << " " << descType(k.results[i].shape.size()) << " r" << i << ";";
      os << " } " << resultType << ";\n";
    } else if (nResults == 1) {
      resultType = descType(k.results[0].shape.size());
    }
    os << "\nvoid _mlir_ciface_" << k.name << "(";
    bool first = true;
    if (nResults)
      os << resultType << " *", first = false;
    for (size_t i = 0; i < nArgs; ++i, first = false)
      os << (first ? "" : ", ") << descType(k.args[i].shape.size()) << " *";
    for (int64_t r : k.resultArgs)
      os << (first ? "" : ", ") << descType(k.results[r].shape.size()) << " *",
          first = false;
    if (first)
      os << "void";
    os << ");\n\nint accel_" << k.name << "(";
    first = true;
    for (size_t i = 0; i < nArgs; ++i, first = false)
      os << (first ? "" : ", ") << "const accel_tensor *arg" << i;
    for (size_t i = 0; i < nResults; ++i, first = false)
      os << (first ? "" : ", ") << "accel_tensor *result" << i;
    if (first)
      os << "void";
    os << ") {\n  int status = accel_" << m << "_check_cpu();\n";
    if (!a.grid.empty())
      os << "  if (status == ACCEL_OK)\n    status = check_processes();\n";
    auto check = [&](const Buffer &b, std::string name) {
      os << "  {\n    static const int64_t shape[] = {";
      for (int64_t d : b.shape)
        os << d << ", ";
      os << "0};\n    if (status == ACCEL_OK)\n      status = check_tensor("
         << name << ", " << b.shape.size() << ", shape);\n  }\n";
    };
    for (size_t i = 0; i < nArgs; ++i)
      check(k.args[i], "arg" + std::to_string(i));
    for (size_t i = 0; i < nResults; ++i)
      check(k.results[i], "result" + std::to_string(i));
    // After check_tensor: the ranks are right, so every size read exists.
    for (const SizeCheck &c : k.sizeChecks)
      os << "  if (status == ACCEL_OK && !(" << checkText(c, /*code=*/true)
         << "))\n    status = ACCEL_ERR_SHAPE;\n";
    os << "  if (status != ACCEL_OK)\n    return status;\n";
    for (size_t i = 0; i < nArgs; ++i)
      os << "  " << descType(k.args[i].shape.size()) << " d" << i
         << ";\n  describe(&d" << i << ", arg" << i << ");\n";
    // Only status and out change after setjmp, and the failure path reads
    // neither.
    os << "  struct frame frame;\n  begin_frame(&frame);\n"
       << "  switch (setjmp(frame.failed)) {\n  case 0:\n    break;\n"
       << "  case 2:\n    end_frame();\n    return ACCEL_ERR_INDEX;\n"
       << "  default:\n    end_frame();\n    return ACCEL_ERR_ALLOC;\n  }\n"
       << "  {\n";
    if (nResults)
      os << "    " << resultType << " out;\n";
    // Results written in place: the caller's buffer unless it is shared
    // with another buffer of the call (then a temporary, copied out).
    for (auto [j, r] : llvm::enumerate(k.resultArgs)) {
      std::string t = "result" + std::to_string(r);
      size_t elem = k.results[r].elemBytes;
      os << "    " << descType(k.results[r].shape.size()) << " w" << r
         << ";\n    describe_result(&w" << r << ", " << t << ", " << elem
         << ", " << k.resultArgAlignments[j] << ", 0";
      for (size_t i = 0; i < nArgs; ++i)
        os << "\n        || overlap(" << t << ", " << elem << ", arg" << i
           << ", " << k.args[i].elemBytes << ")";
      for (size_t j = 0; j < nResults; ++j)
        if (j != size_t(r))
          os << "\n        || overlap(" << t << ", " << elem << ", result" << j
             << ", " << k.results[j].elemBytes << ")";
      os << ");\n";
    }
    os << "    _mlir_ciface_" << k.name << "(";
    first = true;
    if (nResults)
      os << "&out", first = false;
    for (size_t i = 0; i < nArgs; ++i, first = false)
      os << (first ? "" : ", ") << "&d" << i;
    for (int64_t r : k.resultArgs)
      os << (first ? "" : ", ") << "&w" << r, first = false;
    os << ");\n";
    for (size_t i = 0; i < nResults; ++i) {
      std::string desc = nResults > 1 ? "&out.r" + std::to_string(i) : "&out";
      os << "    {\n      int s = take_result(" << desc << ", "
         << k.results[i].shape.size() << ", " << k.results[i].elemBytes
         << ", result" << i << ");\n      if (status == ACCEL_OK)\n"
         << "        status = s;\n    }\n";
    }
    os << "  }\n  end_frame();\n  return status;\n}\n"
       << "int " << hashedSymbol(k) << parameterList(k)
       << " __attribute__((alias(\"accel_" << k.name << "\")));\n";
  }
  return text;
}

llvm::json::Value mlir::accel::cpuabi::metadata(const Artifact &a) {
  auto buffers = [](const std::vector<Buffer> &list, llvm::StringRef prefix) {
    llvm::json::Array out;
    for (size_t i = 0; i < list.size(); ++i) {
      llvm::json::Array shape;
      int64_t count = 1;
      for (int64_t d : list[i].shape) {
        shape.push_back(d < 0 ? llvm::json::Value(nullptr)
                              : llvm::json::Value(d));
        count = d < 0 || count < 0 ? -1 : count * d;
      }
      llvm::json::Object b{{"name", (prefix + llvm::Twine(i)).str()},
                           {"dtype", list[i].dtype},
                           {"shape", std::move(shape)}};
      if (!list[i].wholeShape.empty() || !list[i].splitAxes.empty()) {
        llvm::json::Array axes, whole;
        for (const std::vector<int64_t> &d : list[i].splitAxes)
          axes.push_back(llvm::json::Array(d));
        for (int64_t d : list[i].wholeShape)
          whole.push_back(d < 0 ? llvm::json::Value(nullptr)
                                : llvm::json::Value(d));
        b["split_axes"] = std::move(axes);
        b["whole_shape"] = std::move(whole);
      }
      b["bytes"] = count < 0 ? llvm::json::Value(nullptr)
                             : llvm::json::Value(count * list[i].elemBytes);
      out.push_back(std::move(b));
    }
    return out;
  };
  llvm::json::Array kernels;
  for (const Kernel &k : a.kernels)
    kernels.push_back(llvm::json::Object{
        {"name", k.name},
        {"symbol", "accel_" + k.name},
        {"hashed_symbol", hashedSymbol(k)},
        {"signature", k.name + k.signature},
        {"signature_hash",
         "0x" + llvm::utohexstr(signatureHash(k), /*LowerCase=*/true)},
        {"arguments", buffers(k.args, "arg")},
        {"results", buffers(k.results, "result")}});
  llvm::json::Array features;
  for (const std::string &f : a.features)
    features.push_back(f);
  llvm::json::Object meta{
      {"format_version", kFormatVersion},
      {"abi_version", kAbiVersion},
      {"compiler", mlir::accel::getAccelCompilerId()},
      {"target", "cpu"},
      {"triple", a.triple},
      {"cpu", a.cpu},
      {"features", std::move(features)},
      {"module", a.module},
      {"object", a.module + ".o"},
      {"library", "lib" + a.module + ".so"},
      {"header", a.module + ".h"},
      {"info", infoString(a)},
      {"kernels", std::move(kernels)}};
  if (!a.grid.empty())
    meta["grid"] = llvm::json::Array(a.grid);
  return meta;
}
