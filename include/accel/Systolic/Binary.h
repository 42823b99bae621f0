//===- Binary.h - the systolic program binary format ------------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Encodes a systolic `Program` (ISA.h) into the binary format the array
// loads and decodes it back. docs/systolic-binary.md gives the layout byte
// by byte: a little-endian header with the machine, the buffer table, the
// program name, then one 32-byte word per instruction.
//
// The decoder is strict and total: any input either decodes to the one
// program that encodes to exactly those bytes, or gives an llvm::Error that
// names the byte offset of the problem (truncation, bad magic or version,
// unknown enum values, nonzero reserved or unused bytes, counts beyond the
// input). It never allocates more than the input's size warrants.
//
// The decoder checks the encoding and the header (the machine's parameters,
// buffer names, types and sizes), not the program's meaning: an mvin past
// the end of its buffer decodes fine. The `systolic` dialect's verifier
// (accel-systolic-translate --from-binary runs it) and the simulator check
// that.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_SYSTOLIC_BINARY_H
#define ACCEL_SYSTOLIC_BINARY_H

#include "accel/Systolic/ISA.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace sysarray {

/// "ACSY", the first four bytes of every program.
inline constexpr char kBinaryMagic[4] = {'A', 'C', 'S', 'Y'};
/// The format version this code writes and reads.
inline constexpr uint16_t kBinaryVersion = 1;
/// Bytes of the fixed header, of a buffer entry before its dims and name,
/// and of one instruction word.
inline constexpr size_t kHeaderBytes = 64;
inline constexpr size_t kBufferEntryBytes = 16;
inline constexpr size_t kInstructionBytes = 32;
/// A buffer holds at most 2^48 bytes (the `systolic` dialect's limit too).
inline constexpr uint64_t kMaxBufferBytes = uint64_t(1) << 48;

/// Encodes `program`. The program must be one the decoder accepts back (the
/// `systolic` dialect's verifier guarantees it for toProgram's output):
/// valid machine and buffers, and zero (kNone for bRow) in every field an
/// instruction does not use. Fields outside that contract are not encoded.
std::vector<uint8_t> encodeProgram(const Program &program);

/// Decodes a whole file; see the header comment for what it checks.
llvm::Expected<Program> decodeProgram(llvm::ArrayRef<uint8_t> bytes);

} // namespace sysarray

#endif // ACCEL_SYSTOLIC_BINARY_H
