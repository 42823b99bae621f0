//===- CpuAbi.cpp - C ABI of ahead-of-time compiled CPU kernels -----------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

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

std::string cString(llvm::StringRef s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

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
      {"accel_allocation_failed", "allocation_failed"}};
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
             "\"compiler\":\"accel {2}\",\"target\":\"cpu\","
             "\"triple\":\"{3}\",\"cpu\":\"{4}\",\"features\":\"{5}\","
             "\"module\":\"{6}\"}",
             kFormatVersion, kAbiVersion, ACCEL_VERSION_STRING, a.triple, a.cpu,
             llvm::join(a.features, ","), a.module)
      .str();
}

/// `text` (from the IR: a signature, whose types may hold strings) inside a
/// C comment: every "*/" is broken up, so the comment cannot end early and
/// nothing of the IR becomes C code.
static std::string commentText(llvm::StringRef text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] == '*' && i + 1 < text.size() && text[i + 1] == '/')
      out += ' ';
  }
  return out;
}

std::string mlir::accel::cpuabi::headerText(const Artifact &a) {
  std::string text;
  llvm::raw_string_ostream os(text);
  std::string m = a.module, M = upper(m);
  os << "/* " << m << ".h: C entry points of lib" << m
     << ".so, generated by accel-compile " ACCEL_VERSION_STRING
        " --target=cpu.\n   Do not edit. The ABI is described in "
        "docs/aot.md. */\n"
     << "#ifndef ACCEL_AOT_" << M << "_H\n#define ACCEL_AOT_" << M
     << "_H\n\n#include <stdint.h>\n#include <string.h>\n\n"
     << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  // Shared by every generated header; the guard lets several be included.
  os << "#ifndef ACCEL_AOT_ABI\n#define ACCEL_AOT_ABI " << kAbiVersion
     << "\n#define ACCEL_MAX_RANK " << kMaxRank << "\n"
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
  ACCEL_ERR_LAYOUT = 3,       /* strides are not contiguous row-major */
  ACCEL_ERR_CPU_FEATURES = 4, /* this CPU lacks a compiled-for feature */
  ACCEL_ERR_VERSION = 5,      /* header and library do not match */
  ACCEL_ERR_ALLOC = 6         /* a temporary could not be allocated */
};

static inline const char *accel_status_string(int status) {
  switch (status) {
  case ACCEL_OK: return "ok";
  case ACCEL_ERR_NULL: return "a buffer or its data is NULL";
  case ACCEL_ERR_SHAPE: return "a buffer's rank or sizes differ from the compiled shapes";
  case ACCEL_ERR_LAYOUT: return "a buffer is not contiguous row-major";
  case ACCEL_ERR_CPU_FEATURES: return "this CPU lacks instruction set features the library was compiled for";
  case ACCEL_ERR_VERSION: return "the library does not match this header (ABI version, compiler, target or features)";
  case ACCEL_ERR_ALLOC: return "a temporary could not be allocated (its size overflows, is over the library's limit, or malloc failed)";
default:
  return "unknown status";
}
}
#endif /* ACCEL_AOT_ABI */

)c";
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
  if (!a.grid.empty()) {
    int64_t processes = 1;
    std::string shape;
    for (int64_t g : a.grid) {
      processes *= g;
      shape += (shape.empty() ? "" : "x") + std::to_string(g);
    }
    os << "/* Sharded over a grid of shape " << shape << " (docs/distributed.md): an "
          "MPI program (MPICH)\n   runs exactly ACCEL_"
       << M << "_PROCESSES processes, calls MPI_Init, and every process\n"
          "   calls each function with its block of each tensor. Process r "
          "has grid\n   index (i0, i1, ...) = r in row-major order; a "
          "dimension split over grid\n   axes (a, b) holds part i_a * "
          "size_b + i_b of size/(size_a * size_b). The\n   functions "
          "communicate over MPI_COMM_WORLD: every process must call\n   "
          "them in the same order. */\n"
       << "#define ACCEL_" << M << "_PROCESSES " << processes << "\n\n";
  }
  auto block = [](const Buffer &b) {
    if (b.splitAxes.empty())
      return std::string();
    std::string text = " of ";
    Buffer whole = b;
    whole.shape = b.wholeShape;
    text += b.dtype + "[" + shapeText(whole) + "] split [";
    for (size_t d = 0; d < b.splitAxes.size(); ++d) {
      text += d ? ", [" : "[";
      for (size_t i = 0; i < b.splitAxes[d].size(); ++i)
        text += (i ? ", " : "") + std::to_string(b.splitAxes[d][i]);
      text += "]";
    }
    return text + "]";
  };
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
     << (llvm::is_contained(a.features, "amx-tile")
             ? "#define _GNU_SOURCE 1 /* syscall(), for AMX's permission */\n"
             : "")
     << "#define ACCEL_" << upper(m) << "_PLAIN_SYMBOLS\n"
     << "#include \"" << m << ".h\"\n#include <cpuid.h>\n#include <setjmp.h>\n"
     << "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
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

/* The temporaries of the call running on this thread. The kernels run on
   the calling thread (accel-compile builds them without threads) and take
   memory only through ACCEL_RT(alloc): each entry point frees what its call
   still holds when it ends, and a temporary that cannot be allocated ends
   the call with ACCEL_ERR_ALLOC (longjmp back to the entry point; nothing
   of the kernel's own is left to clean up: it keeps no state). */
static _Thread_local struct {
  int active;
  jmp_buf failed;
  void **live; /* first, the 8 slots of `slots`: no malloc for the list */
  size_t count, capacity;
  void *slots[8];
} call;

/* Called by the kernels for a temporary whose size overflows, is negative
   or is over the compiled limit (accel-cpu-guard-allocations), and below
   when malloc fails. */
__attribute__((visibility("hidden"), noreturn)) void
ACCEL_RT(allocation_failed)(void) {
  if (!call.active) {
    fputs("accel: a kernel's temporary could not be allocated outside a "
          "call of its entry point\n", stderr);
    abort();
  }
  longjmp(call.failed, 1);
}

__attribute__((visibility("hidden"))) void *ACCEL_RT(alloc)(uint64_t bytes) {
  void *p;
  if (call.active && call.count == call.capacity) {
    size_t capacity = 2 * call.capacity;
    void **live = (void **)malloc(capacity * sizeof *live);
    if (!live)
      ACCEL_RT(allocation_failed)();
    memcpy(live, call.live, call.count * sizeof *live);
    if (call.live != call.slots)
      free(call.live);
    call.live = live;
    call.capacity = capacity;
  }
  p = malloc(bytes ? (size_t)bytes : 1);
  if (!p)
    ACCEL_RT(allocation_failed)();
  if (call.active)
    call.live[call.count++] = p;
  return p;
}

__attribute__((visibility("hidden"))) void ACCEL_RT(free)(void *p) {
  size_t i;
  if (!p)
    return;
  for (i = call.active ? call.count : 0; i-- > 0;)
    if (call.live[i] == p) {
      call.live[i] = call.live[--call.count];
      break;
    }
  free(p);
}

static void begin_call(void) {
  call.active = 1;
  call.live = call.slots;
  call.count = 0;
  call.capacity = sizeof call.slots / sizeof *call.slots;
}

/* Frees what the call still holds: after a failed allocation, every
   temporary it made; after a call that ended, the buffers of its results
   (copied out by then) and anything else the kernel did not free. */
static void end_call(void) {
  size_t i;
  for (i = 0; i < call.count; ++i)
    free(call.live[i]);
  if (call.live != call.slots)
    free(call.live);
  call.live = 0;
  call.count = call.capacity = 0;
  call.active = 0;
}

/* Copies a returned memref into the caller's buffer. What the kernel
   allocated for it is freed with the call's other temporaries by end_call,
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
    os << "  begin_call();\n  if (setjmp(call.failed)) {\n    end_call();\n"
       << "    return ACCEL_ERR_ALLOC;\n  }\n  {\n";
    if (nResults)
      os << "    " << resultType << " out;\n";
    os << "    _mlir_ciface_" << k.name << "(";
    first = true;
    if (nResults)
      os << "&out", first = false;
    for (size_t i = 0; i < nArgs; ++i, first = false)
      os << (first ? "" : ", ") << "&d" << i;
    os << ");\n";
    for (size_t i = 0; i < nResults; ++i) {
      std::string desc = nResults > 1 ? "&out.r" + std::to_string(i) : "&out";
      os << "    {\n      int s = take_result(" << desc << ", "
         << k.results[i].shape.size() << ", " << k.results[i].elemBytes
         << ", result" << i << ");\n      if (status == ACCEL_OK)\n"
         << "        status = s;\n    }\n";
    }
    os << "  }\n  end_call();\n  return status;\n}\n"
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
      {"compiler", std::string("accel ") + ACCEL_VERSION_STRING},
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
