//===- Npy.cpp - read and write .npy arrays -------------------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The .npy format (numpy/lib/format.py): magic "\x93NUMPY", a version, a
// header length, a Python dict literal with 'descr', 'fortran_order' and
// 'shape', then the raw data.
//
//===----------------------------------------------------------------------===//

#include "Npy.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <cstring>

using namespace llvm;
using namespace accel_run;

static Error fail(StringRef path, const Twine &why) {
  return createStringError(inconvertibleErrorCode(),
                           "'" + path + "': " + why);
}

/// The value of `key` in the header dict, up to the next top-level comma.
static std::optional<StringRef> dictValue(StringRef header, StringRef key) {
  size_t at = header.find(("'" + key + "'").str());
  if (at == StringRef::npos)
    return std::nullopt;
  StringRef rest = header.drop_front(at + key.size() + 2).ltrim();
  if (!rest.consume_front(":"))
    return std::nullopt;
  rest = rest.ltrim();
  if (rest.starts_with("(")) {
    size_t close = rest.find(')');
    return close == StringRef::npos ? std::nullopt
                                    : std::optional(rest.take_front(close + 1));
  }
  size_t end = rest.find_first_of(",}");
  return rest.take_front(end).trim();
}

Expected<NpyArray> accel_run::readNpy(StringRef path) {
  auto buffer = MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buffer)
    return fail(path, "cannot read: " + buffer.getError().message());
  StringRef bytes = (*buffer)->getBuffer();
  if (bytes.size() < 10 || !bytes.starts_with("\x93NUMPY"))
    return fail(path, "not a .npy file (bad magic)");
  uint8_t major = bytes[6];
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = uint8_t(bytes[8]) | (size_t(uint8_t(bytes[9])) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return fail(path, "truncated header");
    headerLen = 0;
    for (int i = 0; i < 4; ++i)
      headerLen |= size_t(uint8_t(bytes[8 + i])) << (8 * i);
    headerStart = 12;
  } else {
    return fail(path, "unsupported .npy version " + Twine(int(major)));
  }
  if (headerStart + headerLen > bytes.size())
    return fail(path, "truncated header");
  StringRef header = bytes.substr(headerStart, headerLen);

  NpyArray array;
  std::optional<StringRef> descr = dictValue(header, "descr");
  std::optional<StringRef> fortran = dictValue(header, "fortran_order");
  std::optional<StringRef> shape = dictValue(header, "shape");
  if (!descr || !fortran || !shape)
    return fail(path, "header lacks descr, fortran_order or shape");
  if (*fortran != "False")
    return fail(path, "Fortran-ordered arrays are not supported; save with "
                      "np.ascontiguousarray");
  array.descr = descr->trim("'\"").str();
  StringRef dims = shape->trim("()");
  SmallVector<StringRef> parts;
  dims.split(parts, ',', -1, /*KeepEmpty=*/false);
  int64_t count = 1;
  for (StringRef p : parts) {
    int64_t d;
    if (p.trim().getAsInteger(10, d) || d < 0)
      return fail(path, "bad shape " + *shape);
    array.shape.push_back(d);
    if (MulOverflow(count, d, count))
      return fail(path, "shape " + *shape + " overflows");
  }

  StringRef d = array.descr;
  char order = d.empty() ? '?' : d[0];
  if (order == '>' && !d.ends_with("1"))
    return fail(path, "big-endian data (" + d + ") is not supported");
  StringRef kind = d.drop_front(order == '<' || order == '>' || order == '|' ||
                                        order == '='
                                    ? 1
                                    : 0);
  unsigned width = 0;
  if (kind.size() < 2 || kind.drop_front().getAsInteger(10, width))
    return fail(path, "unsupported dtype '" + d + "'");
  char code = kind[0];
  bool known = (code == 'b' && width == 1) ||
               (code == 'i' && (width == 1 || width == 2 || width == 4 ||
                                width == 8)) ||
               (code == 'u' && width == 1) ||
               (code == 'f' && (width == 2 || width == 4 || width == 8));
  if (!known)
    return fail(path, "unsupported dtype '" + d + "' (bool, int8-64, uint8, "
                      "float16/32/64 are read)");
  StringRef data = bytes.drop_front(headerStart + headerLen);
  if (data.size() != size_t(count) * width)
    return fail(path, "holds " + Twine(data.size()) + " data bytes, shape " +
                          *shape + " of '" + d + "' needs " +
                          Twine(count * width));
  array.data.resize(count);
  const char *p = data.data();
  for (int64_t i = 0; i < count; ++i, p += width) {
    double v = 0;
    if (code == 'b' || code == 'u') {
      v = uint8_t(*p);
    } else if (code == 'i') {
      int64_t x = 0;
      std::memcpy(&x, p, width);
      int shift = 64 - 8 * width;
      v = double((x << shift) >> shift);
    } else if (width == 2) {
      uint16_t bits;
      std::memcpy(&bits, p, 2);
      v = APFloat(APFloat::IEEEhalf(), APInt(16, bits)).convertToDouble();
    } else if (width == 4) {
      float f;
      std::memcpy(&f, p, 4);
      v = f;
    } else {
      std::memcpy(&v, p, 8);
    }
    array.data[i] = v;
  }
  return array;
}

Error accel_run::writeNpy(StringRef path, ArrayRef<int64_t> shape,
                          ArrayRef<double> data) {
  std::string dims;
  for (int64_t d : shape)
    dims += std::to_string(d) + ", ";
  if (shape.size() > 1)
    dims.resize(dims.size() - 2);
  std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (" +
                       dims + "), }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  return writeFileReplacing(path, [&](raw_ostream &os) {
    os << "\x93NUMPY" << char(1) << char(0) << char(header.size() & 0xff)
       << char(header.size() >> 8) << header;
    os.write(reinterpret_cast<const char *>(data.data()), data.size() * 8);
  });
}

Error accel_run::writeFileReplacing(StringRef path,
                                    function_ref<void(raw_ostream &)> write) {
  // A hidden name beside the file, so that the rename stays within one file
  // system; O_EXCL (createUniqueFile) never opens something planted there.
  SmallString<256> model = sys::path::parent_path(path);
  sys::path::append(model,
                    "." + sys::path::filename(path) + ".accel-run-%%%%%%.tmp");
  Expected<sys::fs::TempFile> temp = sys::fs::TempFile::create(model);
  if (!temp)
    return fail(path, "cannot write: " + toString(temp.takeError()));
  std::error_code ec;
  {
    raw_fd_ostream os(temp->FD, /*shouldClose=*/false);
    write(os);
    os.flush();
    if (os.has_error()) {
      ec = os.error();
      os.clear_error();
    }
  }
  if (ec) {
    consumeError(temp->discard());
    return fail(path, "cannot write: " + ec.message());
  }
  if (Error e = temp->keep(path))
    return fail(path, "cannot write: " + toString(std::move(e)));
  return Error::success();
}
