//===- JaxFfi.cpp - accel CPU kernels as XLA FFI custom calls -------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// One XLA FFI handler, `AccelXlaCall`, through which `accel.jax` runs any
// entry point of an accel CPU library inside a jitted JAX function. XLA
// hands it the call's operand and result buffers (dense, row-major: the
// layouts jax.ffi.ffi_call asks for by default); it describes each as the
// C ABI's `accel_tensor` (docs/aot.md) and calls the entry point whose
// address the `entry` attribute carries, with one pointer per buffer. A
// non-zero status becomes an XLA error naming the kernel and the status.
//
// The entry point's address is an attribute rather than a handler per
// kernel: the library is loaded by Python (ctypes, after the checks of
// accel.aot.load) and the handler is compiled once, with the package, against
// the XLA FFI headers that jaxlib ships (its C API is versioned; XLA checks
// the handler's API version when it registers it). Python checks the
// operands' dtypes and shapes against the library's metadata when the call
// is traced; the library's wrapper checks the sizes again at every call.
//
//===----------------------------------------------------------------------===//

#include "xla/ffi/api/ffi.h"

#include <array>
#include <cstdint>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>

namespace ffi = xla::ffi;

namespace {

// The C ABI's tensor descriptor (docs/aot.md, ABI version 6).
constexpr int64_t kMaxRank = 8;
struct AccelTensor {
  void *data;
  int64_t rank;
  int64_t sizes[kMaxRank];
  int64_t strides[kMaxRank];
};

// The entry points Python allowed (AccelXlaAllow): an address that is not
// one of them (a jitted function exported from another process, say) is
// refused rather than called.
std::shared_mutex allowedLock;
std::unordered_set<int64_t> &allowed() {
  static auto *set = new std::unordered_set<int64_t>();
  return *set;
}

bool isAllowed(int64_t entry) {
  std::shared_lock<std::shared_mutex> lock(allowedLock);
  return allowed().count(entry) != 0;
}

// The most buffers (operands and results) one call passes.
constexpr size_t kMaxBuffers = 32;

template <size_t... I>
int callWith(void *entry, AccelTensor **tensors, std::index_sequence<I...>) {
  using Fn = int (*)(decltype((void)I, static_cast<AccelTensor *>(nullptr))...);
  return reinterpret_cast<Fn>(entry)(tensors[I]...);
}

template <size_t... N>
constexpr std::array<int (*)(void *, AccelTensor **), sizeof...(N)>
callTable(std::index_sequence<N...>) {
  return {+[](void *entry, AccelTensor **tensors) {
    return callWith(entry, tensors, std::make_index_sequence<N>());
  }...};
}

// callers[n] calls an entry point of n buffer arguments.
constexpr auto callers = callTable(std::make_index_sequence<kMaxBuffers + 1>());

ffi::Error describe(const ffi::AnyBuffer &buffer, std::string_view kernel,
                    size_t index, AccelTensor &tensor) {
  auto dims = buffer.dimensions();
  if (dims.size() > static_cast<size_t>(kMaxRank))
    return ffi::Error::InvalidArgument(
        "accel kernel " + std::string(kernel) + ": buffer " +
        std::to_string(index) + " has rank " + std::to_string(dims.size()) +
        ", the C ABI takes at most 8");
  tensor.data = buffer.untyped_data();
  tensor.rank = static_cast<int64_t>(dims.size());
  int64_t stride = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    tensor.sizes[i] = dims[i];
    tensor.strides[i] = stride;
    stride *= dims[i];
  }
  return ffi::Error::Success();
}

const char *statusString(int status) {
  switch (status) {
  case 1:
    return "a buffer or its data is NULL";
  case 2:
    return "a buffer's rank or sizes differ from the compiled shapes";
  case 3:
    return "a buffer is not contiguous row-major or is misaligned";
  case 4:
    return "this CPU lacks instruction set features the library was "
           "compiled for";
  case 5:
    return "the library does not match its header";
  case 6:
    return "a temporary could not be allocated";
  default:
    return "unknown status";
  }
}

ffi::Error accelCall(ffi::RemainingArgs args, ffi::RemainingRets rets,
                     int64_t entry, std::string_view kernel) {
  size_t count = args.size() + rets.size();
  if (!isAllowed(entry))
    return ffi::Error::InvalidArgument(
        "accel kernel " + std::string(kernel) +
        ": its entry point is not one this process loaded (accel.jax.kernel "
        "allows each; a jitted function does not carry its library to "
        "another process)");
  if (count > kMaxBuffers)
    return ffi::Error::InvalidArgument(
        "accel kernel " + std::string(kernel) + " has " +
        std::to_string(count) + " buffers; the XLA handler passes at most " +
        std::to_string(kMaxBuffers));
  std::array<AccelTensor, kMaxBuffers> tensors{};
  std::array<AccelTensor *, kMaxBuffers> pointers{};
  for (size_t i = 0; i < args.size(); ++i) {
    auto buffer = args.get<ffi::AnyBuffer>(i);
    if (buffer.has_error())
      return buffer.error();
    if (ffi::Error err = describe(*buffer, kernel, i, tensors[i]);
        err.failure())
      return err;
    pointers[i] = &tensors[i];
  }
  for (size_t i = 0; i < rets.size(); ++i) {
    auto buffer = rets.get<ffi::AnyBuffer>(i);
    if (buffer.has_error())
      return buffer.error();
    size_t at = args.size() + i;
    if (ffi::Error err = describe(**buffer, kernel, at, tensors[at]);
        err.failure())
      return err;
    pointers[at] = &tensors[at];
  }
  void *fn = reinterpret_cast<void *>(static_cast<intptr_t>(entry));
  int status = callers[count](fn, pointers.data());
  if (status != 0)
    return ffi::Error(ffi::ErrorCode::kInternal,
                      "accel_" + std::string(kernel) + " returned " +
                          std::to_string(status) + ": " + statusString(status));
  return ffi::Error::Success();
}

} // namespace

// Exported: accel.jax finds them with ctypes (the library is built with
// hidden visibility).
extern "C" __attribute__((visibility("default"))) XLA_FFI_Error *
AccelXlaCall(XLA_FFI_CallFrame *callFrame);

// Lets the handler call `entry` (the address of a loaded accel_<fn>_h<hash>).
extern "C" __attribute__((visibility("default"))) void
AccelXlaAllow(int64_t entry) {
  std::unique_lock<std::shared_mutex> lock(allowedLock);
  allowed().insert(entry);
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(AccelXlaCall, accelCall,
                              ffi::Ffi::Bind()
                                  .RemainingArgs()
                                  .RemainingRets()
                                  .Attr<int64_t>("entry")
                                  .Attr<std::string_view>("kernel"));
