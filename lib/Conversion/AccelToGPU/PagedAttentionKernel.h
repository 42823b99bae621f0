//===- PagedAttentionKernel.h - decode attention on the GPU -----*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The GPU kernels of accel.paged_attention: flash-decoding over a paged KV
// cache on the CUDA cores (SIMT), the same on NVIDIA and AMD. A decode
// step reads each sequence's keys once and does little arithmetic per
// byte, so the kernels are built for bandwidth: coalesced 16-byte runs of
// K and V rows read where they lie in the pool (through the block table),
// the G * Sq query rows of a KV head (GQA packing) in one block so each
// key is read once per KV head, and the keys of a sequence split over
// blocks (splits) so that a batch of one fills the chip. A second kernel
// combines the splits' partial softmax states.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_CONVERSION_ACCELTOGPU_PAGEDATTENTIONKERNEL_H
#define ACCEL_LIB_CONVERSION_ACCELTOGPU_PAGEDATTENTIONKERNEL_H

#include "KernelConfig.h"
#include "llvm/ADT/DenseMap.h"
#include <string>

namespace mlir::accel {

/// Emits the kernels of `op` at `b`'s insertion point (in a gpu.module),
/// configured by `k` (planGpuPagedAttention); `bufferOf` names the host
/// buffers and `partials` the temporary that holds the splits' states
/// (unused with one split).
///
/// `<name>` (`accel.launch` kind "paged"): parameters Q [B, Hq, Sq, D],
/// the key pool [P, T, Hkv, D], the value pool [P, T, Hkv, Dv], the block
/// table [B, N], kv_lengths [B], then what it writes: O [B, Hq, Sq, Dv]
/// with one split, else the partial states [B, Hkv, splits, G * Sq,
/// Dv + 2] f32 (row g * Sq + i: the unnormalised O row, then its maximum m
/// and sum l, both of logits in the log2 domain).
///
/// `<name>_combine` (kind "paged_combine", with several splits): the
/// partial states in, O out; one thread an element of O.
///
/// A sequence whose length is outside [0, N * T] or one of whose pages
/// (those below ceil(length / T)) is outside [0, P) reads nothing of the
/// pools and gets NaN outputs, as the JIT's CPU kernels give.
void emitGpuPagedAttentionKernels(
    OpBuilder &b, PagedAttentionOp op, StringRef name, const GpuPagedPlan &k,
    StringRef partials, const llvm::DenseMap<Value, std::string> &bufferOf,
    const GpuTargetInfo &target);

} // namespace mlir::accel

#endif // ACCEL_LIB_CONVERSION_ACCELTOGPU_PAGEDATTENTIONKERNEL_H
