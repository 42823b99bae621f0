#!/usr/bin/env python3
# Part of the accel project, under the Apache License v2.0 with LLVM
# Exceptions.
"""Executes the kernels of convert-accel-to-gpu on the CPU and checks them.

usage: emulate_kernels.py KERNELS.mlir [--seed N] [--no-race-check]
                          [--drop-barrier N | --sink-barrier N |
                           --tf32-fma]
       emulate_kernels.py KERNELS.mlir --launch-record DIR [--no-race-check]
                          [--drop-barrier N | --sink-barrier N |
                           --tf32-fma]
       emulate_kernels.py --self-test

KERNELS.mlir is the pass's output printed in generic form
(--mlir-print-op-generic). For every gpu.func with an `accel.launch`
attribute the script fills the inputs with small random integers (exact in
f16/bf16 and in the f32 sums), the output with NaN, runs every block of the
grid with all of its threads in lockstep, and compares the output with
numpy's A.B (+ C) rounded to C's type. It prints `@kernel: OK` lines, or the
first problem, and exits 1 on any mismatch.

With --launch-record DIR the script is the GPU of a record/replay round
trip instead: DIR is what `accel-run --target=nvptx --record=DIR` wrote
(manifest.json, <function>.json, <function>.b<N>.bin). Each recorded
function's kernel (found in KERNELS.mlir by its name; the kernel's
parameters must have the recorded dtypes and shapes, so the kernels may
be another chip's compiled from the same file) runs on the recorded
buffers, and what it writes goes to <function>.b<N>.result.bin; a
function of several kernels (a program: "kernels" in its manifest entry,
its buffers by name) runs them in order on buffers they share and writes
<function>.<name>.result.bin for each buffer they write. Then
`accel-run --replay=DIR` checks them against the fp64 oracle of the whole
function. This is how kernels with epilogues are checked: the script
does not know their semantics, the oracle does. Math functions of
epilogues (math.erf, tanh, exp, sqrt, rsqrt, absf) are modelled as the
float64 function rounded once to f32. That is not what a device runs: the
GPU pipelines replace exp, tanh and erf by upstream MLIR's f32 polynomials
afterwards (accel-gpu-approximate-math), the ones the CPU's vector
epilogues use, whose error against the oracle is measured on the CPU
(docs/numerics.md). So a replay of this emulation checks the kernel's
structure (indices, guards, the epilogue's wiring and types), not the
polynomials.

What it models, from the PTX ISA:
  - cp.async (nvgpu.device_async_copy) lands in shared memory only when a
    device_async_wait lets its group complete (all but the `numGroups`
    newest groups), so a wrong wait count reads stale or NaN data; source
    bytes past `srcElements` are zero-filled; an out-of-bounds source or
    destination is an error.
  - ldmatrix .x4 (.trans): lanes 8i..8i+7 give the row addresses of 8x8
    matrix i; thread t receives row t/4, elements 2(t%4), 2(t%4)+1 of each
    matrix (of its transpose).
  - mma.sync m16n8k16 .row.col: A, B, C/D fragments as in "Matrix
    Fragments for mma.m16n8k16" (f16 via nvgpu.mma.sync, bf16 via
    nvvm.mma.sync on i32 registers holding two bf16, low half first), and
    m16n8k8 .tf32 (one f32 per register; the tensor cores read TF32, so
    the low 13 bits of each register are dropped).
  - loads and stores of global memory inside scf.if run for the threads
    whose condition holds; any out-of-bounds access is an error.
  - wgmma.mma_async (sm_90a, nvvm.wgmma.mma_async) m64nNk16 / k32, and
    m64nNk8 .tf32 (f32 in shared memory, read with its low 13 bits
    dropped; K-major B only): each
    warpgroup of 128 threads must give one pair of shared-memory matrix
    descriptors; they are decoded (start address, leading and stride byte
    offsets, the 128-byte swizzle, which must be the layout) and A (K-major)
    and B (K-major, or N-major when transposed) are read from the shared
    addresses of the canonical layouts, with the swizzle applied to the
    absolute address (bits 4-6 ^= bits 7-9). The dynamic shared memory
    starts at an address that is not 1024-byte aligned (SMEM_BASE), so a
    kernel that does not align its swizzled tiles reads the wrong bytes. D
    is the accumulator fragment of the PTX ISA's figure for wgmma D: thread
    t of warp w of the group holds row 16 w + t / 4 (+ 8) and columns
    8 j + 2 (t % 4) (+ 1). The reads happen at the issue; the bytes stay
    "read by a wgmma in flight" until a wgmma.wait_group retires their
    commit group, and a write to them before that is a race. Not modelled:
    the async proxy (fence.proxy.async is a no-op here).

And from AMD's CDNA2 / CDNA3 / RDNA3 ISA documents (written from their
operand layouts, not from the compiler's GpuLaneLayout, which this checks):
  - the wave size comes from the launch's chip: 64 on gfx9xx (gfx90a,
    gfx942), 32 on gfx11xx (gfx1100, wave32), 32 (warps) on NVIDIA; the
    race detector's "warps" are these waves. A workgroup has at most 1024
    work-items and 64 KiB of LDS (the dynamic shared memory).
  - amdgpu.mfma 16x16x16 f16 / bf16 (gfx90a, gfx942), 16x16x16 i8
    (gfx90a only), 16x16x32 i8 and 16x16x32 f8 (gfx942 only: the FNUZ
    formats f8E4M3FNUZ and f8E5M2FNUZ, A and B of either, f32 sums),
    16x16x8 xf32 (gfx942 only: f32 sources with reducePrecision, read
    with 10 mantissa bits, the low 13 dropped), one
    block, wave64: lane l holds A[l % 16][K0 + i] and B[K0 + i][l % 16]
    with K0 = (l / 16) (k / 4), i < k / 4, and D[4 (l / 16) + i][l % 16],
    i < 4. f8 registers hold codes, decoded by each operand's format.
  - amdgpu.wmma 16x16x16 f16 / bf16 / i8 (gfx1100), wave32: lane l holds
    A[l % 16][0..15] and B[0..15][l % 16], lanes 16-31 a copy of lanes
    0-15 (a kernel whose halves differ fails), and D[2 i + l / 16][l % 16],
    i < 8. Signed i8, no clamp.
  Sums as for mma.sync: exact products and sums rounded once to f32, or
  i32 sums wrapped. Any other instruction for the chip is an error; so is
  an mfma or wmma in divergent code.
  - gpu.shuffle xor across a whole wave (width 64 on gfx9, as a warp's 32
    on NVIDIA; any other width is an error), and llvm.amdgcn.exp2 on f32
    (v_exp_f32: exp2 modelled exact, exp2(-inf) = +0, no subnormal
    results), which the attention kernel of AMD chips uses.
Threads run in lockstep, so the values cannot show a missing barrier; a
race detector does instead (RaceDetector, on unless --no-race-check): it
keeps barrier epochs and, per byte of shared memory, the last write (and
whether it is a cp.async still in flight or landed at its issuer's wait)
and the warps that read it since, and fails a kernel on a RAW, WAR or WAW
across warps, a read of an in-flight cp.async, cp.async data read by
another thread (or by ldmatrix) before a barrier follows the wait, or a
barrier that not all threads reach. Mutations that show it works:
--drop-barrier N skips each kernel's gpu.barrier number N (textual order),
--sink-barrier N moves it down to the next read of shared memory;
--tf32-fma rounds the multiplicands of every math.fma to TF32 (10 stored
bits), what a TF32 tensor-core kernel does, which the f32 gate must fail;
--self-test runs the detector on hand-made access sequences, and checks
the decoding of the f8 formats (against ml_dtypes where installed).
"""
import functools
import json
import math
import os
import re
import sys

import numpy as np

# The shared-window address of dynamic shared memory in the emulation:
# 16-byte aligned, as the hardware promises, but not 1024-byte aligned.
SMEM_BASE = 16

# --------------------------------------------------------------------------
# Types and rounding
# --------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def parse_type(t):
    """'vector<2x2xf32>' / 'memref<2x40x48xbf16, ...>' / 'index' ->
    (kind, shape, element)."""
    t = t.strip()
    m = re.match(r'(vector|memref)<(.*)>$', t)
    if not m:
        return ('scalar', (), t)
    body = m.group(2).split(',')[0].strip()
    parts = body.split('x')
    shape = tuple(-1 if p == '?' else int(p) for p in parts[:-1])
    return (m.group(1), shape, parts[-1])


def struct_type(t):
    """'!llvm.struct<(f32, f32, ...)>' -> (count, element)."""
    m = re.match(r'!llvm\.struct<\((.*)\)>$', t.strip())
    elts = [e.strip() for e in m.group(1).split(',')]
    if len(set(elts)) != 1:
        raise Failure('a struct of mixed types: %s' % t)
    return len(elts), elts[0]


def bf16_round(x):
    """Round float32 values to the nearest bf16 (ties to even)."""
    x = np.asarray(x, dtype=np.float32)
    bits = x.view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    out = rounded.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(x), x, out)


def elt_bytes(elt):
    """Bytes of an element type ('f8E4M3FN' -> 1)."""
    if elt == 'i64':
        return 8
    if elt in ('f32', 'i32'):
        return 4
    if elt in ('f16', 'bf16'):
        return 2
    if elt == 'i8' or elt.startswith('f8'):
        return 1
    raise Failure('unexpected element type %s' % elt)


# The f8 formats: (mantissa bits, exponent bias). OCP (NVIDIA, gfx950):
# f8E4M3FN (S.1111.111 NaN, no inf) and f8E5M2 (IEEE-like: inf, NaN).
# FNUZ (AMD gfx942): one more in the bias, all exponent codes finite, no
# inf, no -0: 0x80 is the only NaN.
F8_FORMATS = {'f8E4M3FN': (3, 7), 'f8E5M2': (2, 15),
              'f8E4M3FNUZ': (3, 8), 'f8E5M2FNUZ': (2, 16)}


_F8_VALUES = {}


def f8_values(elt):
    """The value of each of the 256 codes of an f8 format of F8_FORMATS
    (NaN for NaN codes, inf for the infinities of e5m2); one shared,
    read-only table per format."""
    if elt in _F8_VALUES:
        return _F8_VALUES[elt]
    if elt not in F8_FORMATS:
        raise Failure('unexpected f8 type %s' % elt)
    mbits, bias = F8_FORMATS[elt]
    fnuz = elt.endswith('FNUZ')
    top = (1 << (7 - mbits)) - 1
    out = np.zeros(256)
    for code in range(256):
        sign = -1.0 if code & 0x80 else 1.0
        e = (code >> mbits) & top
        m = code & ((1 << mbits) - 1)
        if fnuz and code == 0x80:
            v = np.nan
        elif elt == 'f8E4M3FN' and e == top and m == (1 << mbits) - 1:
            v = np.nan
        elif elt == 'f8E5M2' and e == top:
            v = np.inf if m == 0 else np.nan
        elif e == 0:
            v = m / (1 << mbits) * 2.0**(1 - bias)
        else:
            v = (1 + m / (1 << mbits)) * 2.0**(e - bias)
        out[code] = sign * v
    out.flags.writeable = False
    _F8_VALUES[elt] = out
    return out


def f8_code(elt, value):
    """The code of a value of an f8 format (an arith.constant of f8 type,
    such as the 0 the AMD kernels pad remainders with): +0 is code 0 in
    every format, -0 is 0x80 in the OCP ones and +0 in FNUZ, which has no
    -0."""
    if value == 0:
        return 0x80 if np.signbit(value) and elt in ('f8E4M3FN',
                                                     'f8E5M2') else 0
    hit = np.nonzero(f8_values(elt) == value)[0]
    if not len(hit):
        raise Failure('%s is not a value of %s' % (value, elt))
    return int(hit[0])


def f8_encode(elt, x):
    """Codes of f32 values rounded to an f8 format as arith.truncf does
    (APFloat): to nearest, ties to the even code; past the largest finite
    value (by half a step or more) inf (f8E5M2) or NaN (f8E4M3FN; the FNUZ
    formats' one NaN, 0x80); NaN to NaN; -0 to 0x80 in the OCP formats, and
    what rounds to 0 to +0 in FNUZ, which has no -0."""
    x = np.asarray(x, dtype=np.float64)
    vals = f8_values(elt)
    fnuz = elt.endswith('FNUZ')
    codes = np.arange(256)
    finite = np.isfinite(vals)
    pos = codes[finite & (vals >= 0) & ~((vals == 0) & np.signbit(vals))]
    pos = pos[np.argsort(vals[pos], kind='stable')]
    pv = vals[pos]
    big = pv[-1]
    step = pv[-1] - pv[-2]
    a = np.abs(np.nan_to_num(x, nan=0.0, posinf=np.inf, neginf=np.inf))
    a = np.where(np.isinf(a), big * 4, a)
    i = np.clip(np.searchsorted(pv, a), 1, len(pv) - 1)
    lo, hi = pv[i - 1], pv[i]
    pick_hi = (a - lo > hi - a) | ((a - lo == hi - a) & (pos[i] % 2 == 0))
    code = np.where(pick_hi, pos[i], pos[i - 1])
    code = np.where(a <= pv[0], pos[0], code)
    over = a >= big + step / 2
    neg = np.signbit(x) & ~np.isnan(x)
    if fnuz:
        out = np.where(neg & (code != 0), code | 0x80, code)
        out = np.where(over | np.isnan(x), 0x80, out)
    else:
        special = 0x7C if elt == 'f8E5M2' else 0x7F
        out = np.where(over, special, code)
        out = np.where(neg, out | 0x80, out)
        out = np.where(np.isnan(x), 0x7F if elt != 'f8E5M2' else 0x7E, out)
    return out.astype(np.float64)


def f8_decode(elt, codes):
    """Values of f8 codes (held as floats); NaN (unfilled shared memory)
    stays NaN."""
    codes = np.asarray(codes, dtype=np.float64)
    nan = np.isnan(codes)
    out = f8_values(elt)[np.where(nan, 0, codes).astype(np.int64)]
    out[nan] = np.nan
    return out


def wgmma_fields(d):
    """A wgmma shared-memory descriptor: (start, leading, stride) in bytes;
    only the 128-byte swizzle without a base offset is expected."""
    d = int(d)
    if (d >> 49) & 7:
        raise Failure('wgmma descriptor with a base offset')
    if d >> 62 != 1:
        raise Failure('wgmma descriptor layout %d, not the 128-byte '
                      'swizzle' % (d >> 62))
    return ((d & 0x3FFF) << 4, ((d >> 16) & 0x3FFF) << 4,
            ((d >> 32) & 0x3FFF) << 4)


def wgmma_swizzle(addr):
    """The 128-byte swizzle, a function of the absolute address bits."""
    return addr ^ (((addr >> 7) & 7) << 4)


def wgmma_b_addresses(sb, lbo, sbo, k_, n_, trans_b, eb):
    """Swizzled shared addresses of B[k][n] (k_ x n_) by the PTX ISA's
    canonical layouts: N-major (transposed) or K-major."""
    kb, nb = np.meshgrid(np.arange(k_), np.arange(n_), indexing='ij')
    if trans_b:
        addr = (sb + (nb // 64) * lbo + (kb // 8) * sbo + (kb % 8) * 128
                + (nb % 64) * eb)
    else:
        addr = sb + (nb // 8) * sbo + (nb % 8) * 128 + kb * eb
    return wgmma_swizzle(addr)


def wrap(x, bits):
    """Two's complement wrap of exact integers held in float64 / int64."""
    x = np.asarray(x).astype(np.int64)
    return ((x + (1 << (bits - 1))) % (1 << bits)) - (1 << (bits - 1))


def round_to(x, elt):
    # i32 and i8 are exact integers in float64; f8 memory holds its codes.
    if elt in ('i32', 'i8'):
        x = np.asarray(x, dtype=np.float64)
        return np.where(np.isnan(x), x,
                        wrap(np.nan_to_num(x), 32 if elt == 'i32' else 8))
    if elt.startswith('f8'):
        return np.asarray(x, dtype=np.float64)
    x = np.asarray(x, dtype=np.float32)
    if elt == 'f16':
        return x.astype(np.float16).astype(np.float32)
    if elt == 'bf16':
        return bf16_round(x)
    if elt == 'tf32':
        # accel-lower-precision's compute = tf32 (truncf to tf32, extf back
        # in one kernel; the GPU pipelines expand it to integer arithmetic).
        return np.where(np.isnan(x), x, round_to_tf32(x)).astype(np.float32)
    return x


# --------------------------------------------------------------------------
# Parsing the generic form
# --------------------------------------------------------------------------

OP = re.compile(r'^\s*(?:(%[\w$.]+)(?::(\d+))?\s*=\s*)?"([\w.]+)"\((.*?)\)(.*)$')


class Op:
    def __init__(self, name, results, operands, text):
        self.name = name
        self.results = results
        self.operands = operands
        self.text = text          # everything after the operand list
        self.regions = []         # [ (block_args, [ops]) ]
        self.result_types = []
        # gpu.barrier: its number among its kernel's, in textual order.
        self.barrier_index = None
        # attr() and operand_types() of the finished text, once each (the
        # emulator asks every time it executes the op).
        self.attrs = {}
        self.operand_types_ = None

    def attr(self, key):
        if key not in self.attrs:
            m = re.search(r'\b%s = ([^,}>]+(?:<[^>]*>)?)' % re.escape(key),
                          self.text)
            self.attrs[key] = m.group(1).strip() if m else None
        return self.attrs[key]


def split_types(s):
    """'(a, b<1, 2>, c)' or 'a' -> list of type strings."""
    s = s.strip()
    if s.startswith('(') and s.endswith(')'):
        s = s[1:-1]
    out, depth, cur = [], 0, ''
    for ch in s:
        if ch in '<({[':
            depth += 1
        elif ch in '>)}]':
            depth -= 1
        if ch == ',' and depth == 0:
            out.append(cur.strip())
            cur = ''
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def result_types_of(sig):
    """The part after the last top-level ' -> '."""
    depth = 0
    idx = -1
    for i, ch in enumerate(sig):
        if ch in '<({[':
            depth += 1
        elif ch in '>)}]':
            depth -= 1
        elif depth == 0 and sig.startswith('->', i):
            idx = i
    return split_types(sig[idx + 2:]) if idx >= 0 else []


def parse_ops(lines, i, stop):
    """Parses ops from lines[i] until a line matching `stop`; returns
    (ops, index of the stop line)."""
    ops = []
    while i < len(lines):
        line = lines[i]
        s = line.strip()
        if not s:
            i += 1
            continue
        if stop(s):
            return ops, i
        if s.startswith('#') and ' = ' in s:
            # An attribute alias (#loop_annotation = ...): no op.
            i += 1
            continue
        m = OP.match(line)
        if not m:
            raise SyntaxError('cannot parse line %d: %s' % (i + 1, s[:120]))
        res, count, name, operands, rest = m.groups()
        results = []
        if res:
            n = int(count) if count else 1
            results = [res] if n == 1 else ['%s#%d' % (res, k)
                                             for k in range(n)]
        op = Op(name, results,
                [o.strip() for o in operands.split(',') if o.strip()], rest)
        if rest.rstrip().endswith('({'):
            i += 1
            while True:
                args = []
                if lines[i].strip().startswith('^'):
                    args = re.findall(r'(%[\w$.]+):', lines[i])
                    i += 1
                body, i = parse_ops(lines, i, lambda t: t.startswith('}'))
                op.regions.append((args, body))
                close = lines[i].strip()
                if close.startswith('}, {'):
                    i += 1
                    continue
                # "}) {attrs} : (types) -> results"
                op.text += ' ' + close
                sig = close.split(' : ', 1)[1] if ' : ' in close else ''
                op.result_types = result_types_of(sig)
                break
        else:
            sig = rest.rsplit(' : ', 1)[1] if ' : ' in rest else ''
            op.result_types = result_types_of(sig)
        ops.append(op)
        i += 1
    return ops, i


# --------------------------------------------------------------------------
# Execution
# --------------------------------------------------------------------------


class Memref:
    def __init__(self, array, elt, space, base=0):
        self.a = array            # float32 values (f16/bf16 exact) or ints
        self.elt = elt
        self.space = space
        self.base = base          # byte offset in dynamic shared memory

    def byte_ranges(self, idx, threads, extent):
        """Per thread in `threads`, the bytes of `extent` elements from
        element `idx` on: (bytes, owner index into threads), flat."""
        eb = elt_bytes(self.elt)
        flat = np.ravel_multi_index([ix[threads] for ix in idx],
                                    self.a.shape, mode='clip')
        start = self.base + flat * eb
        n = extent * eb
        bytes_ = (start[:, None] + np.arange(n)[None, :]).ravel()
        owner = np.repeat(np.arange(len(threads)), n)
        return bytes_, owner


class Failure(Exception):
    pass


class RaceDetector:
    """Shared-memory race detection for one thread block.

    The emulator runs the threads in lockstep, which gives the values a
    hardware run may not: a missing gpu.barrier changes nothing here. This
    keeps, per byte of dynamic shared memory, the last write and the warps
    that read it since, in barrier epochs (every gpu.barrier, which all
    threads must reach, ends one), and reports an access that no barrier
    or cp.async wait orders against a conflicting one:
      1. RAW: a read of a byte that another thread stored in this epoch
         (another lane of the same warp too: with independent thread
         scheduling that needs __syncwarp, which no op here models; on
         AMD, whose waves run their LDS accesses in order, the compiler
         may still move one lane's load above another lane's store when
         no barrier orders them; and ldmatrix, a collective read, counts
         as every lane's);
      2. WAR: a store or cp.async to a byte that another warp read in this
         epoch;
      3. a read of a byte whose cp.async is still in flight (not covered by
         the issuing thread's wait), or, after that wait, by any thread but
         the issuer before a barrier: wait_group makes the data visible to
         the issuing thread only, the barrier to the block. ldmatrix is a
         collective read of the warp, so it needs the barrier even for its
         own lanes' copies;
      4. WAW: two warps writing a byte in one epoch with different values,
         or a write to a byte with a cp.async in flight (their order is
         undefined).
    WAR and WAW are checked between warps only: within one warp ldmatrix
    (.sync.aligned) has been reached by every lane before any lane goes on.
    """
    NONE, STORE, INFLIGHT, LANDED = 0, 1, 2, 3
    KIND = {STORE: 'a store', INFLIGHT: 'a cp.async', LANDED: 'a cp.async'}

    def __init__(self, nbytes, threads, where='', wave=32):
        self.T = threads
        self.W = wave             # lanes of a warp (wave)
        self.where = where
        self.epoch = 0
        self.w_kind = np.zeros(nbytes, dtype=np.int8)
        self.w_epoch = np.full(nbytes, -1, dtype=np.int64)
        self.w_thread = np.full(nbytes, -1, dtype=np.int64)
        self.w_id = np.full(nbytes, -1, dtype=np.int64)
        self.w_value = np.full(nbytes, np.nan)
        self.land_epoch = np.full(nbytes, -1, dtype=np.int64)
        self.r_epoch = np.full(nbytes, -1, dtype=np.int64)
        self.r_warps = np.zeros(nbytes, dtype=np.int64)
        self.copies = {}          # copy id -> its bytes
        self.next_id = 0

    def race(self, rule, text):
        raise Failure('shared-memory race (%s)%s: %s' % (rule, self.where,
                                                         text))

    def writer(self, b):
        t = int(self.w_thread[b])
        return 'thread %d (warp %d)' % (t, t // self.W)

    def barrier(self, mask):
        if not mask.all():
            raise Failure('gpu.barrier%s reached by %d of %d threads '
                          '(divergent barrier)' % (self.where, mask.sum(),
                                                   self.T))
        self.epoch += 1

    def read(self, bytes_, threads, what):
        """`threads`: the reading thread of each byte, or -(warp + 1) for a
        collective read of a warp (ldmatrix)."""
        collective = threads < 0
        warps = np.where(collective, -threads - 1, threads // self.W)
        kind = self.w_kind[bytes_]
        e = self.epoch
        bad = kind == self.INFLIGHT
        if bad.any():
            i = int(np.argmax(bad))
            b = bytes_[i]
            self.race('read of an in-flight cp.async', '%s by %s reads byte '
                      '%d, whose cp.async by %s is not covered by a wait yet'
                      % (what, self.reader(threads[i]), b, self.writer(b)))
        bad = ((kind == self.LANDED) & (self.land_epoch[bytes_] == e)
               & (collective | (self.w_thread[bytes_] != threads)))
        if bad.any():
            i = int(np.argmax(bad))
            b = bytes_[i]
            self.race('cp.async data read before a barrier', '%s by %s reads '
                      'byte %d, whose cp.async by %s landed at its wait '
                      'with no gpu.barrier since' % (
                          what, self.reader(threads[i]), b, self.writer(b)))
        bad = ((kind == self.STORE) & (self.w_epoch[bytes_] == e)
               & (collective | (self.w_thread[bytes_] != threads)))
        if bad.any():
            i = int(np.argmax(bad))
            b = bytes_[i]
            self.race('RAW', '%s by %s reads byte %d, stored by %s with no '
                      'gpu.barrier in between' % (
                          what, self.reader(threads[i]), b, self.writer(b)))
        stale = self.r_epoch[bytes_] != e
        self.r_warps[bytes_[stale]] = 0
        self.r_epoch[bytes_] = e
        # Each byte's readers, repeated bytes included.
        np.bitwise_or.at(self.r_warps, bytes_,
                         np.left_shift(np.int64(1), warps.astype(np.int64)))

    def reader(self, t):
        t = int(t)
        return 'warp %d' % (-t - 1) if t < 0 else 'thread %d (warp %d)' % (
            t, t // self.W)

    def write(self, bytes_, threads, values, what, asynchronous=False):
        """Records a store (or the issue of a cp.async, `asynchronous`) of
        `values` (NaN where unknown) by `threads`; returns the copy id."""
        warps = threads // self.W
        e = self.epoch
        mine = np.left_shift(1, warps)
        bad = (self.r_epoch[bytes_] == e) & (self.r_warps[bytes_] & ~mine != 0)
        if bad.any():
            i = int(np.argmax(bad))
            b = bytes_[i]
            others = [w for w in range(64)
                      if (int(self.r_warps[b]) >> w) & 1 and w != warps[i]]
            self.race('WAR across warps', '%s by thread %d (warp %d) writes '
                      'byte %d, which warp %d read with no gpu.barrier in '
                      'between' % (what, threads[i], warps[i], b, others[0]))
        kind = self.w_kind[bytes_]
        bad = kind == self.INFLIGHT
        if bad.any():
            i = int(np.argmax(bad))
            b = bytes_[i]
            self.race('write over an in-flight cp.async', '%s by thread %d '
                      'writes byte %d while the cp.async of %s to it is not '
                      'covered by a wait' % (what, threads[i], b,
                                             self.writer(b)))
        same = (((kind == self.STORE) & (self.w_epoch[bytes_] == e))
                | ((kind == self.LANDED) & (self.land_epoch[bytes_] == e)))
        bad = (same & (self.w_thread[bytes_] // self.W != warps)
               & ~(self.w_value[bytes_] == values))
        if bad.any():
            i = int(np.argmax(bad))
            b = bytes_[i]
            self.race('WAW across warps', '%s by thread %d (warp %d) writes '
                      'byte %d, which %s wrote with another value with no '
                      'gpu.barrier in between' % (what, threads[i], warps[i],
                                                  b, self.writer(b)))
        # Two warps writing one byte in this very op.
        order = np.lexsort((warps, bytes_))
        sb, sw, sv = bytes_[order], warps[order], values[order]
        dup = (sb[1:] == sb[:-1]) & (sw[1:] != sw[:-1]) & ~(sv[1:] == sv[:-1])
        if dup.any():
            i = int(np.argmax(dup))
            self.race('WAW across warps', '%s: warps %d and %d write byte %d '
                      'with different values' % (what, sw[i], sw[i + 1],
                                                 sb[i]))
        cid = self.next_id
        self.next_id += 1
        self.w_kind[bytes_] = self.INFLIGHT if asynchronous else self.STORE
        self.w_epoch[bytes_] = e
        self.w_thread[bytes_] = threads
        self.w_id[bytes_] = cid
        self.w_value[bytes_] = values
        self.land_epoch[bytes_] = -1
        if asynchronous:
            self.copies[cid] = bytes_
        return cid

    def land(self, cid):
        """The issuing thread's wait covered cp.async `cid`."""
        b = self.copies.pop(cid)
        b = b[(self.w_id[b] == cid) & (self.w_kind[b] == self.INFLIGHT)]
        self.w_kind[b] = self.LANDED
        self.land_epoch[b] = self.epoch


class Block:
    """One thread block, all threads in lockstep."""

    def __init__(self, kernel, block_id, buffers, smem_bytes, threads):
        self.k = kernel
        self.T = threads
        self.block_id = block_id
        self.env = {}
        self.pending = []     # committed groups (lists of copies)
        self.uncommitted = []
        self.smem_bytes = smem_bytes
        self.smem_used = []
        self.smem_views = []
        for name, buf in zip(kernel.args, buffers):
            self.env[name] = buf
        self.race = (RaceDetector(smem_bytes, threads,
                                  ' in block %s' % (block_id,), kernel.wave)
                     if kernel.race_check else None)
        self.sunk_barrier = None
        self.wgmma_uncommitted = []   # byte arrays read by issued wgmmas
        self.wgmma_groups = []        # committed groups of them

    def before_shared_read(self):
        if self.sunk_barrier is not None:
            self.race.barrier(self.sunk_barrier)
            self.sunk_barrier = None

    def val(self, name):
        return self.env[name]

    def run(self, ops, mask):
        for op in ops:
            r = self.execute(op, mask)
            if r is not None:
                return r
        return None

    # -- helpers ------------------------------------------------------------
    def bcast(self, v):
        return np.broadcast_to(np.asarray(v), (self.T,)).copy()

    def index_arrays(self, names):
        return [self.val(n).astype(np.int64) for n in names]

    def check_bounds(self, mem, idx, active, what, extent=1):
        shape = mem.a.shape
        for d, (ix, n) in enumerate(zip(idx, shape)):
            last = d == len(shape) - 1
            hi = ix + (extent if last else 1)
            bad = active & ((ix < 0) | (hi > n))
            if bad.any():
                t = int(np.argmax(bad))
                raise Failure('%s out of bounds in block %s thread %d: index '
                              '%s of %s' % (what, self.block_id, t,
                                            [int(i[t]) for i in idx], shape))

    def shared_bytes(self, mem, idx, ts, extent, values=None):
        """The bytes threads `ts` access from element `idx` on (`extent`
        elements), the thread of each byte and, given (len(ts), extent)
        element values, the value of each byte."""
        bytes_, owner = mem.byte_ranges(idx, ts, extent)
        out = (bytes_, ts[owner])
        if values is not None:
            v = np.repeat(round_to(np.asarray(values, dtype=np.float64),
                                   mem.elt).reshape(len(ts), extent),
                          elt_bytes(mem.elt), axis=1).ravel()
            out += (v,)
        return out

    def check_wgmma_reads(self, bytes_, what):
        """A write to bytes a wgmma in flight reads is a race."""
        for group in self.wgmma_groups + [self.wgmma_uncommitted]:
            for read in group:
                hit = np.intersect1d(bytes_, read)
                if hit.size:
                    raise Failure('shared-memory race (write under a wgmma '
                                  'in flight) in block %s: %s writes byte '
                                  '%d, which a wgmma not yet retired by '
                                  'wgmma.wait_group reads' % (
                                      self.block_id, what, hit[0]))

    def gather(self, mem, idx, active, extent, what):
        self.check_bounds(mem, idx, active, what, extent)
        if self.race is not None and mem.space == 'shared':
            self.before_shared_read()
            bytes_, who = self.shared_bytes(mem, idx, np.nonzero(active)[0],
                                            extent)
            self.race.read(bytes_, who, what)
        safe = [np.where(active, ix, 0) for ix in idx]
        out = []
        for e in range(extent):
            s = list(safe)
            s[-1] = np.where(active, safe[-1] + e, 0)
            out.append(mem.a[tuple(s)])
        return np.stack(out, axis=-1)

    def scatter(self, mem, idx, values, active, what):
        extent = values.shape[-1]
        self.check_bounds(mem, idx, active, what, extent)
        ts = np.nonzero(active)[0]
        if mem.space == 'shared' and (self.wgmma_groups
                                      or self.wgmma_uncommitted):
            self.check_wgmma_reads(mem.byte_ranges(idx, ts, extent)[0], what)
        if (self.race is not None and mem.space == 'shared'
                and what != 'cp.async destination'):
            self.race.write(*self.shared_bytes(mem, idx, ts, extent,
                                               values[ts]), what)
        for e in range(extent):
            s = [ix[ts] for ix in idx]
            s[-1] = s[-1] + e
            mem.a[tuple(s)] = round_to(values[ts, e], mem.elt)

    # -- ops ----------------------------------------------------------------
    def execute(self, op, mask):
        n = op.name
        env = self.env
        ins = [env[o] for o in op.operands] if n not in (
            'nvgpu.device_async_wait',) else []
        rt = op.result_types
        out = None
        if n == 'arith.constant':
            kind, shape, elt = parse_type(rt[0])
            dense = re.search(r'value = dense<([^>]*)>', op.text)
            v = re.search(r'value = ([-+\w.]+)', op.text).group(1)
            if elt.startswith('f8'):
                # f8 values are held as their codes (a hex literal is one).
                lit = dense.group(1) if dense else v
                code = (int(lit, 16) if lit.startswith('0x')
                        else f8_code(elt, float(lit)))
                out = np.full((self.T,) + shape, code, dtype=np.float32)
            elif dense:
                # i32 accumulators hold exact integers beyond 2^24.
                out = np.full((self.T,) + shape, float(dense.group(1)),
                              dtype=np.float64 if elt == 'i32'
                              else np.float32)
            elif elt == 'f32' and v.startswith('0x'):
                out = self.bcast(np.uint32(int(v, 16)).view(np.float32))
            elif elt in ('f32', 'f16', 'bf16'):
                out = self.bcast(np.float32(float(v)))
            else:
                out = self.bcast(np.int64(int(v)))
        elif n in ('arith.addi', 'arith.muli', 'arith.divui', 'arith.remui',
                   'arith.minui', 'arith.subi', 'arith.andi', 'arith.ori',
                   'arith.xori', 'arith.shrui'):
            a, b = ins
            out = {'arith.addi': lambda: a + b, 'arith.muli': lambda: a * b,
                   'arith.divui': lambda: a // np.where(b == 0, 1, b),
                   'arith.remui': lambda: a % np.where(b == 0, 1, b),
                   'arith.minui': lambda: np.minimum(a, b),
                   'arith.subi': lambda: a - b,
                   'arith.andi': lambda: a & b,
                   'arith.ori': lambda: a | b,
                   'arith.xori': lambda: a ^ b,
                   'arith.shrui': lambda: a >> b}[n]()
        elif n in ('arith.extui', 'arith.extsi'):
            # Integers are held signed: zero extension keeps the source's
            # low bits as an unsigned value (an i8 of -1 becomes 255).
            width = int(parse_type(operand_types(op)[0])[2][1:])
            v = np.asarray(ins[0]).astype(np.int64)
            out = (v & ((1 << width) - 1) if n == 'arith.extui'
                   else wrap(v, width))
        elif n == 'arith.index_castui':
            out = ins[0].astype(np.int64)
        elif n == 'memref.extract_aligned_pointer_as_index':
            if ins[0] != 'dynamic_shared_memory':
                raise Failure('extract_aligned_pointer_as_index of a memref '
                              'other than the dynamic shared memory')
            out = self.bcast(np.int64(SMEM_BASE))
        elif n in ('nvvm.fence.proxy', 'nvvm.wgmma.fence.aligned'):
            pass
        elif n == 'nvvm.wgmma.commit.group.sync.aligned':
            self.wgmma_groups.append(self.wgmma_uncommitted)
            self.wgmma_uncommitted = []
        elif n == 'nvvm.wgmma.wait.group.sync.aligned':
            keep = int(op.attr('group').split(':')[0])
            while len(self.wgmma_groups) > keep:
                self.wgmma_groups.pop(0)
        elif n == 'nvvm.wgmma.mma_async':
            out = self.wgmma(op, ins, mask)
        elif n == 'llvm.mlir.zero':
            count, elt = struct_type(rt[0])
            out = np.zeros((self.T, count),
                           dtype=np.float64 if elt == 'i32' else np.float32)
        elif n == 'llvm.insertvalue':
            pos = int(re.search(r'position = array<i64: (\d+)>',
                                op.text).group(1))
            out = ins[0].copy()
            out[:, pos] = ins[1]
        elif n == 'arith.cmpi':
            pred = int(op.attr('predicate').split(':')[0])
            a, b = ins
            out = {0: a == b, 1: a != b, 2: a < b, 3: a <= b, 4: a > b,
                   5: a >= b, 6: a < b, 7: a <= b, 8: a > b, 9: a >= b}[pred]
        elif n == 'arith.select':
            c, a, b = ins
            cc = c.reshape(c.shape + (1,) * (a.ndim - 1))
            out = np.where(cc, a, b)
        elif n in ('arith.maxsi', 'arith.minsi'):
            a, b = ins
            out = (np.maximum if n == 'arith.maxsi' else np.minimum)(a, b)
        elif n in ('arith.addf', 'arith.subf', 'arith.mulf', 'arith.divf',
                   'arith.maximumf', 'arith.minimumf', 'arith.maxnumf',
                   'arith.minnumf'):
            # f32 arithmetic, rounded like the GPU's (IEEE, round to
            # nearest); maximumf / minimumf propagate NaN, maxnumf /
            # minnumf return the other operand.
            elt = parse_type(operand_types(op)[0])[2]
            if elt not in ('f32', 'f16', 'bf16'):
                raise Failure('the emulator computes %s on f32 (and exact '
                              'f16 / bf16) only' % n)
            a, b = (np.asarray(x, dtype=np.float32) for x in ins)
            with np.errstate(divide='ignore', invalid='ignore',
                             over='ignore'):
                out = {'arith.addf': np.add, 'arith.subf': np.subtract,
                       'arith.mulf': np.multiply, 'arith.divf': np.divide,
                       'arith.maximumf': np.maximum,
                       'arith.minimumf': np.minimum,
                       'arith.maxnumf': np.fmax,
                       'arith.minnumf': np.fmin}[n](a, b)
            out = round_to(out, elt)
        elif n == 'math.fma':
            # a * b + c rounded once: the float64 product of two f32 is
            # exact, the float64 sum then rounded to f32 (a double rounding
            # that differs from the GPU's single one in rare ties only;
            # exact on the small integers of the direct mode).
            if parse_type(operand_types(op)[0])[2] != 'f32':
                raise Failure('the emulator computes math.fma on f32 only')
            a, b, c = (np.asarray(x, dtype=np.float64) for x in ins)
            if self.k.tf32_fma:
                a, b = round_to_tf32(a), round_to_tf32(b)
            with np.errstate(all='ignore'):
                out = (a * b + c).astype(np.float32)
        elif n == 'arith.negf':
            out = -np.asarray(ins[0], dtype=np.float32)
        elif n in MATH_FUNCTIONS:
            # The float64 function rounded once (see the module's doc).
            if parse_type(operand_types(op)[0])[2] != 'f32':
                raise Failure('the emulator computes %s on f32 only' % n)
            with np.errstate(all='ignore'):
                out = MATH_FUNCTIONS[n](np.asarray(ins[0], dtype=np.float64))
            out = out.astype(np.float32)
        elif n == 'arith.cmpf':
            pred = int(op.attr('predicate').split(':')[0])
            a, b = ins
            unordered = np.isnan(a) | np.isnan(b)
            ordered = {1: a == b, 2: a > b, 3: a >= b, 4: a < b, 5: a <= b,
                       6: a != b}
            if pred == 0:
                out = np.zeros_like(unordered)
            elif pred in ordered:
                out = ~unordered & ordered[pred]
            elif pred == 7:
                out = ~unordered
            elif 8 <= pred <= 13:
                out = unordered | ordered[pred - 7]
            elif pred == 14:
                out = unordered
            else:
                out = np.ones_like(unordered)
        elif n == 'llvm.call_intrinsic':
            # ex2.approx.ftz.f32 (NVIDIA, within 2 ulp of exp2) and
            # llvm.amdgcn.exp2 on f32 (AMD's v_exp_f32, 1 ulp; it returns
            # no subnormals): modelled exact, exp2(-inf) = +0, subnormal
            # results flushed to 0.
            intrin = re.search(r'intrin = "([\w.]+)"', op.text)
            intrin = intrin.group(1) if intrin else None
            if intrin == 'llvm.amdgcn.exp2':
                if (not self.k.chip.startswith('gfx')
                        or operand_types(op) != ['f32'] or rt != ['f32']):
                    raise Failure('llvm.amdgcn.exp2 is the f32 exp2 of AMD '
                                  'chips here, not %s on %s' % (
                                      op.text.rsplit(' : ', 1)[1],
                                      self.k.chip))
            elif intrin != 'llvm.nvvm.ex2.approx.ftz.f32':
                raise Failure('the emulator does not know %s' % op.text)
            with np.errstate(over='ignore'):
                out = np.exp2(np.asarray(ins[0], dtype=np.float32))
            out = np.where(np.abs(out) < np.float32(2.0**-126),
                           np.float32(0), out)
        elif n == 'gpu.shuffle':
            # Every lane reads the value of lane (lane xor offset) of its
            # warp (wave); all lanes take part: the width is the warp's
            # 32 on NVIDIA, the wave's 64 (gfx9) or 32 (gfx11) on AMD.
            if 'shuffle_mode xor' not in op.text:
                raise Failure('the emulator knows xor shuffles only')
            offset, width = int(ins[1][0]), int(ins[2][0])
            if width != self.k.wave or not mask.all():
                raise Failure('gpu.shuffle with width %d on %s (waves of '
                              '%d) or in divergent code' % (
                                  width, self.k.chip, self.k.wave))
            if not 0 <= offset < width:
                raise Failure('gpu.shuffle xor %d with width %d' % (offset,
                                                                   width))
            warp, lane = self.lane_views()
            env[op.results[0]] = ins[0][warp * width + (lane ^ offset)]
            env[op.results[1]] = self.bcast(True)
            return None
        elif n == 'arith.sitofp':
            # Exact integers (float64) to f32, rounded once.
            if parse_type(rt[0])[2] != 'f32':
                raise Failure('the emulator converts integers to f32 only')
            out = np.asarray(ins[0], dtype=np.float64).astype(np.float32)
        elif n in ('arith.fptosi', 'arith.fptoui'):
            # To an integer, toward zero. Out of the type's range the
            # result is poison, which a select may still discard (the
            # library-free rounding converts every lane): 0 here, which
            # no reference of a stored poison (NaN) matches.
            kind, _, elt = parse_type(rt[0])
            width = int(elt[1:])
            lo, hi = (0, 2**width - 1) if n == 'arith.fptoui' else \
                (-2**(width - 1), 2**(width - 1) - 1)
            with np.errstate(all='ignore'):
                out = np.trunc(np.asarray(ins[0], dtype=np.float64))
            bad = ~((out >= lo) & (out <= hi))
            out = np.where(bad, 0, np.nan_to_num(out)).astype(np.int64)
        elif n == 'arith.bitcast':
            # f32 <-> i32 (integers held as signed int64).
            src, dst = parse_type(operand_types(op)[0])[2], \
                parse_type(rt[0])[2]
            if (src, dst) == ('f32', 'i32'):
                out = np.asarray(ins[0], dtype=np.float32).view(np.int32) \
                    .astype(np.int64)
            elif (src, dst) == ('i32', 'f32'):
                out = wrap(ins[0], 32).astype(np.int32).view(np.float32)
            else:
                raise Failure('arith.bitcast from %s to %s' % (src, dst))
        elif n == 'arith.extf':
            src = parse_type(operand_types(op)[0])[2]
            out = (f8_decode(src, ins[0]) if src.startswith('f8')
                   else ins[0]).astype(np.float32)
        elif n == 'arith.truncf':
            dst = parse_type(rt[0])[2]
            out = (f8_encode(dst, ins[0]) if dst.startswith('f8')
                   else round_to(ins[0], dst))
        elif n == 'gpu.thread_id':
            out = np.arange(self.T, dtype=np.int64)
        elif n == 'gpu.block_id':
            d = 'xyz'.index(re.search(r'dim (\w)', op.text).group(1))
            out = self.bcast(np.int64(self.block_id[d]))
        elif n == 'gpu.dynamic_shared_memory':
            out = 'dynamic_shared_memory'
        elif n == 'memref.view':
            kind, shape, elt = parse_type(rt[0])
            offset = int(ins[1][0])
            size = int(np.prod(shape)) * elt_bytes(elt)
            if offset + size > self.smem_bytes:
                raise Failure('shared view [%d, %d) beyond the %d bytes of '
                              'dynamic shared memory' % (
                                  offset, offset + size, self.smem_bytes))
            # A second view of the same bytes (f8 read as i8 by ldmatrix)
            # shares the storage: f8 memory holds its codes.
            alias = [m for (lo, hi, m) in self.smem_views
                     if (lo, hi) == (offset, offset + size)
                     and m.a.shape == shape and elt_bytes(m.elt) == 1
                     and elt_bytes(elt) == 1]
            for lo, hi in self.smem_used:
                if offset < hi and lo < offset + size and not alias:
                    raise Failure('shared views overlap')
            self.smem_used.append((offset, offset + size))
            out = Memref(alias[0].a if alias else
                         np.full(shape, np.nan, dtype=np.float32), elt,
                         'shared', offset)
            self.smem_views.append((offset, offset + size, out))
        elif n == 'gpu.barrier':
            # The mutations --drop-barrier N (removes the kernel's barrier
            # N, in the order of the text) and --sink-barrier N (moves it
            # down to the next read of shared memory).
            if self.race is not None:
                if op.barrier_index == self.k.sink_barrier:
                    self.sunk_barrier = mask.copy()
                elif op.barrier_index != self.k.drop_barrier:
                    self.race.barrier(mask)
        elif n == 'nvgpu.device_async_copy':
            seg = [int(x) for x in re.search(
                r'operandSegmentSizes = array<i32: ([\d, ]+)>',
                op.text).group(1).split(',')]
            names = op.operands
            dst = env[names[0]]
            didx = self.index_arrays(names[1:1 + seg[1]])
            p = 1 + seg[1]
            src = env[names[p]]
            sidx = self.index_arrays(names[p + 1:p + 1 + seg[3]])
            p += 1 + seg[3]
            count = int(op.attr('dstElements').split(':')[0])
            src_n = (env[names[p]].astype(np.int64) if seg[4]
                     else self.bcast(np.int64(count)))
            if 'bypassL1' in op.text and count * elt_bytes(dst.elt) != 16:
                raise Failure('bypassL1 on a copy of %d elements' % count)
            cid = None
            if self.wgmma_groups or self.wgmma_uncommitted:
                self.check_wgmma_reads(dst.byte_ranges(
                    didx, np.nonzero(mask)[0], count)[0], 'cp.async')
            if self.race is not None:
                # The copy's writes start at the issue; the values (read
                # from the source now, for the WAW check only) land at the
                # wait.
                self.check_bounds(dst, didx, mask, 'cp.async destination',
                                  count)
                ts = np.nonzero(mask)[0]
                vals = self.copy_values(src, sidx, count, src_n, mask)
                cid = self.race.write(
                    *self.shared_bytes(dst, didx, ts, count, vals[ts]),
                    'cp.async', asynchronous=True)
            self.uncommitted.append((dst, didx, src, sidx, count, src_n,
                                     mask.copy(), cid))
            out = self.bcast(np.int64(0))
        elif n == 'nvgpu.device_async_create_group':
            self.pending.append(self.uncommitted)
            self.uncommitted = []
            out = self.bcast(np.int64(0))
        elif n == 'nvgpu.device_async_wait':
            keep = int(op.attr('numGroups').split(':')[0])
            while len(self.pending) > keep:
                for copy in self.pending.pop(0):
                    self.land(*copy[:7])
                    if copy[7] is not None:
                        self.race.land(copy[7])
        elif n == 'nvgpu.ldmatrix':
            out = self.ldmatrix(op, ins)
        elif n == 'vector.extract':
            pos = [int(x) for x in re.search(
                r'static_position = array<i64: ([\d, ]+)>',
                op.text).group(1).split(',')]
            v = ins[0]
            out = v[(slice(None),) + tuple(pos)].copy()
        elif n == 'vector.insert':
            pos = [int(x) for x in re.search(
                r'static_position = array<i64: ([\d, ]+)>',
                op.text).group(1).split(',')]
            v, dest = ins
            out = dest.copy()
            out[(slice(None),) + tuple(pos)] = v
        elif n == 'vector.broadcast':
            # A scalar (or a vector of trailing dimensions) to every
            # element of the result.
            shape = parse_type(rt[0])[1]
            v = np.asarray(ins[0])
            src = v.shape[1:]
            v = v.reshape((self.T,) + (1,) * (len(shape) - len(src)) + src)
            out = np.broadcast_to(v, (self.T,) + shape).copy()
        elif n == 'vector.from_elements':
            kind, shape, elt = parse_type(rt[0])
            out = np.stack(ins, axis=-1).reshape((self.T,) + shape)
        elif n == 'vector.bitcast':
            src = parse_type(op.text.rsplit(' : ', 1)[1].split('->')[0]
                             .strip(' ()'))[2]
            if elt_bytes(src) == 1:
                # vector<4nxi8> (f8 codes read as i8, packed int4 or int8
                # weights) -> vector<nxi32>, little-endian: byte 4 w of
                # the source in the low byte of word w.
                v = (np.asarray(ins[0]).astype(np.int64) & 0xFF).reshape(
                    self.T, -1, 4)
                out = (v[:, :, 0] | (v[:, :, 1] << 8) | (v[:, :, 2] << 16)
                       | (v[:, :, 3] << 24))
            elif src == 'f32':
                # vector<1xf32> -> vector<1xi32> (a TF32 fragment register):
                # the f32 bit pattern.
                out = np.asarray(ins[0]).astype(np.float32).view(
                    np.uint32).astype(np.int64)
            elif src == 'f16':
                # vector<2xf16> -> vector<1xi32>, element 0 in the low half.
                bits = ins[0].astype(np.float16).view(np.uint16).astype(
                    np.uint64)
                out = (bits[:, 0] | (bits[:, 1] << 16)).reshape(self.T, 1)
            else:
                # vector<2xbf16> -> vector<1xi32>, element 0 in the low half.
                v = ins[0].astype(np.float32)
                bits = (v.view(np.uint32) >> 16).astype(np.uint64)
                out = (bits[:, 0] | (bits[:, 1] << 16)).reshape(self.T, 1)
        elif n == 'nvgpu.mma.sync':
            out = self.mma(ins[0], ins[1], ins[2])
        elif n == 'nvvm.mma.sync':
            out = self.nvvm_mma(op, ins)
        elif n == 'amdgpu.mfma':
            out = self.mfma(op, ins, mask)
        elif n == 'amdgpu.wmma':
            out = self.wmma(op, ins, mask)
        elif n == 'llvm.inline_asm' and 'wgmma.mma_async' in op.text:
            out = self.wgmma_rs(op, ins, mask)
        elif n == 'llvm.inline_asm':
            out = self.f8_mma(op, ins)
        elif n == 'llvm.extractvalue':
            pos = int(re.search(r'position = array<i64: (\d+)>',
                                op.text).group(1))
            out = ins[0][:, pos].copy()
        elif n in ('vector.load', 'memref.load'):
            mem = ins[0]
            idx = [i.astype(np.int64) for i in ins[1:]]
            kind, shape, elt = parse_type(rt[0])
            extent = shape[0] if kind == 'vector' else 1
            if kind == 'vector':
                self.check_alignment(op, mem, idx, mask, extent)
            v = self.gather(mem, idx, mask, extent, n)
            out = v if kind == 'vector' else v[:, 0]
            if elt == 'i1':
                out = out != 0
        elif n in ('vector.store', 'memref.store'):
            value, mem = ins[0], ins[1]
            idx = [i.astype(np.int64) for i in ins[2:]]
            vals = value if value.ndim == 2 else value.reshape(self.T, 1)
            if n == 'vector.store':
                self.check_alignment(op, mem, idx, mask, vals.shape[1])
            self.scatter(mem, idx, vals, mask, n)
        elif n == 'scf.for':
            lb, ub, step = (int(ins[0][0]), int(ins[1][0]), int(ins[2][0]))
            carried = ins[3:]
            args, body = op.regions[0]
            for iv in range(lb, ub, step):
                env[args[0]] = self.bcast(np.int64(iv))
                for a, v in zip(args[1:], carried):
                    env[a] = v
                carried = self.run(body, mask)
            for r, v in zip(op.results, carried):
                env[r] = v
            return None
        elif n == 'scf.if':
            cond = ins[0].astype(bool)
            then = self.run(op.regions[0][1], mask & cond)
            other = (self.run(op.regions[1][1], mask & ~cond)
                     if len(op.regions) > 1 and op.regions[1][1] else None)
            for k, r in enumerate(op.results):
                t, e = then[k], other[k]
                c = cond.reshape(cond.shape + (1,) * (t.ndim - 1))
                env[r] = np.where(c, t, e)
            return None
        elif n == 'scf.yield':
            return list(ins)
        elif n == 'gpu.return':
            if self.wgmma_groups or self.wgmma_uncommitted:
                raise Failure('the kernel returns with wgmma groups in '
                              'flight')
            if self.pending or self.uncommitted:
                raise Failure('the kernel returns with cp.async groups '
                              'pending')
            return []
        else:
            raise Failure('the emulator does not know %s' % n)
        if op.results:
            env[op.results[0]] = out
        return None

    def shared_at(self, addresses):
        """The views and element indices of shared addresses (absolute:
        SMEM_BASE + the byte offset in dynamic shared memory)."""
        off = addresses - SMEM_BASE
        out = np.full(off.shape, np.nan)
        for lo, hi, view in self.smem_views:
            eb = elt_bytes(view.elt)
            inside = (off >= lo) & (off < hi)
            if inside.any():
                if ((off[inside] - lo) % eb).any():
                    raise Failure('wgmma reads a misaligned element')
                out[inside] = view.a.ravel()[(off[inside] - lo) // eb]
        if np.isnan(out).any() and not ((off >= 0).all()
                                        and (off < self.smem_bytes).all()):
            raise Failure('wgmma reads outside the dynamic shared memory')
        return out

    def wgmma_reads(self, addrs, g, eb):
        """Shared bytes at `addrs` read by warpgroup g's wgmma: a collective
        read for the race detector (as ldmatrix is of a warp), and bytes
        that no copy may overwrite until a wait_group retires the wgmma."""
        if self.race is not None:
            self.before_shared_read()
            for addr in addrs:
                bytes_ = ((addr.ravel() - SMEM_BASE)[:, None]
                          + np.arange(eb)[None, :]).ravel()
                self.race.read(bytes_, np.full(bytes_.shape, -(4 * g) - 1),
                               'wgmma')
        for addr in addrs:
            self.wgmma_uncommitted.append(np.unique(
                ((addr.ravel() - SMEM_BASE)[:, None]
                 + np.arange(eb)[None, :]).ravel()))

    def wgmma_rs(self, op, ins, mask):
        """Inline PTX wgmma.mma_async m64nNk16 f32.<bf16|f16> with A from
        registers (mma.sync's m16n8k16 A fragment in each warp of the
        warpgroup: rows 16w + l/4 (+8), k 2(l%4) (+1, +8)) and B from a
        descriptor: D (+)= A.B, operands (a0..a3, desc_b, scale_d, d...)."""
        asm = re.search(r'asm_string = "([^"]*)"', op.text).group(1)
        m = re.search(r'wgmma\.mma_async\.sync\.aligned\.m64n(\d+)k16\.f32\.'
                      r'(bf16|f16)\.(bf16|f16) \{([^}]*)\}, \{\$(\d+), \$(\d+), '
                      r'\$(\d+), \$(\d+)\}, \$(\d+), p, 1, 1, (\d);', asm)
        if not m or 'setp.ne.b32 p, $%d, 0' % (int(m.group(1)) // 2 + 5) \
                not in asm:
            raise Failure('unexpected llvm.inline_asm: %s' % asm)
        n_ = int(m.group(1))
        nd = n_ // 2
        if [int(m.group(i)) for i in range(5, 10)] != list(
                range(nd, nd + 5)) or len(ins) != nd + 6:
            raise Failure('wgmma operands out of place: %s' % asm)
        trans_b = m.group(10) == '1'
        if m.group(2) != m.group(3):
            raise Failure('wgmma with mixed A and B types')
        if not mask.all() or self.T % 128:
            raise Failure('wgmma needs whole warpgroups, all threads active')
        regs = [np.asarray(x).astype(np.int64) & 0xFFFFFFFF for x in ins[0:4]]
        desc_b, scale_d = ins[4], ins[5]
        acc = np.stack(ins[6:6 + nd], axis=1)

        def halves(r):
            lo, hi = r & 0xFFFF, r >> 16
            if m.group(2) == 'f16':
                return [h.astype(np.uint16).view(np.float16).astype(np.float64)
                        for h in (lo, hi)]
            return [(h.astype(np.uint32) << 16).view(np.float32).astype(
                np.float64) for h in (lo, hi)]

        tl = np.arange(128)
        w, lane = tl // 32, tl % 32
        i = np.arange(nd)
        rows = (16 * w[:, None] + lane[:, None] // 4 + 8 * ((i[None, :] % 4) // 2))
        cols = 8 * (i[None, :] // 4) + 2 * (lane[:, None] % 4) + i[None, :] % 2
        out = acc.copy()
        for g in range(self.T // 128):
            ts = np.arange(128 * g, 128 * g + 128)
            if (desc_b[ts] != desc_b[ts[0]]).any() or (
                    scale_d[ts] != scale_d[ts[0]]).any():
                raise Failure('wgmma operands differ within warpgroup %d' % g)
            A = np.full((64, 16), np.nan)
            r0 = 16 * w + lane // 4
            k0 = 2 * (lane % 4)
            for j, (dr, dk) in enumerate(((0, 0), (8, 0), (0, 8), (8, 8))):
                lo, hi = halves(regs[j][ts])
                A[r0 + dr, k0 + dk] = lo
                A[r0 + dr, k0 + dk + 1] = hi
            sb, lbo_b, sbo_b = wgmma_fields(desc_b[ts[0]])
            addr_b = wgmma_b_addresses(sb, lbo_b, sbo_b, 16, n_, trans_b, 2)
            self.wgmma_reads((addr_b,), g, 2)
            B = self.shared_at(addr_b)
            C = np.zeros((64, n_))
            if scale_d[ts[0]]:
                C[rows, cols] = acc[ts][:, :]
            D = (A @ B.astype(np.float64) + C).astype(np.float32)
            out[ts] = D[rows, cols]
        return out

    def wgmma(self, op, ins, mask):
        """nvvm.wgmma.mma_async m64nNkK: D (+)= A.B per warpgroup."""
        acc, desc_a, desc_b = ins
        shape = re.search(r'm = (\d+), n = (\d+), k = (\d+)', op.text)
        m_, n_, k_ = (int(x) for x in shape.groups())
        types = re.findall(r'type([ABD]) = #nvvm\.wgmma_type<(\w+)>', op.text)
        t = dict(types)
        trans_b = 'layoutB = #nvvm.mma_layout<row>' in op.text
        if 'layoutA = #nvvm.mma_layout<row>' not in op.text:
            raise Failure('wgmma with a transposed A')
        scale_d = 'scaleD = #nvvm.wgmma_scale_out<one>' in op.text
        if 'scale_in<neg>' in op.text:
            raise Failure('wgmma with negated inputs')
        if m_ != 64 or not mask.all() or self.T % 128:
            raise Failure('wgmma needs m = 64 and whole warpgroups, all '
                          'threads active')
        eb = (1 if t['A'] in ('e4m3', 'e5m2', 's8')
              else 4 if t['A'] == 'tf32' else 2)
        if k_ * eb != 32:
            raise Failure('wgmma k = %d on %s' % (k_, t['A']))
        if trans_b and eb != 2:
            raise Failure('wgmma transposes 16-bit B only')
        decode8 = {'e4m3': f8_values('f8E4M3FN'), 'e5m2': f8_values('f8E5M2')}

        fields, swizzle = wgmma_fields, wgmma_swizzle
        tl = np.arange(128)
        w, lane = tl // 32, tl % 32
        i = np.arange(n_ // 2)
        rows = (16 * w[:, None] + lane[:, None] // 4 + 8 * ((i[None, :] % 4) // 2))
        cols = 8 * (i[None, :] // 4) + 2 * (lane[:, None] % 4) + i[None, :] % 2
        out = acc.copy()
        for g in range(self.T // 128):
            ts = np.arange(128 * g, 128 * g + 128)
            for d in (desc_a, desc_b):
                if (d[ts] != d[ts[0]]).any():
                    raise Failure('wgmma descriptors differ within warpgroup '
                                  '%d' % g)
            sa, _, sbo_a = fields(desc_a[ts[0]])
            sb, lbo_b, sbo_b = fields(desc_b[ts[0]])
            mm, kk = np.meshgrid(np.arange(64), np.arange(k_), indexing='ij')
            addr_a = sa + (mm // 8) * sbo_a + (mm % 8) * 128 + kk * eb
            addr_b = wgmma_b_addresses(sb, lbo_b, sbo_b, k_, n_, trans_b, eb)
            addr_a = swizzle(addr_a)
            self.wgmma_reads((addr_a, addr_b), g, eb)
            A = self.shared_at(addr_a)
            B = self.shared_at(addr_b)
            if t['A'] in decode8:
                A = decode8[t['A']][A.astype(np.int64)]
            if t['B'] in decode8:
                B = decode8[t['B']][B.astype(np.int64)]
            if t['A'] == 'tf32':
                # m64nNk8 .tf32 reads TF32: each f32's low 13 bits dropped.
                A, B = ((np.asarray(x, dtype=np.float32).view(np.uint32)
                         & np.uint32(0xFFFFE000)).view(np.float32)
                        for x in (A, B))
            C = np.zeros((64, n_))
            if scale_d:
                C[rows, cols] = acc[ts][:, :]
            D = A.astype(np.float64) @ B.astype(np.float64) + C
            if t['D'] == 's32':
                if np.isnan(D).any():
                    raise Failure('wgmma s8 on unfilled shared memory')
                D = wrap(D, 32).astype(np.float64)
            else:
                D = D.astype(np.float32)
            out[ts] = D[rows, cols]
        return out

    def check_alignment(self, op, mem, idx, mask, extent):
        align = int(op.attr('alignment').split(':')[0]) if op.attr(
            'alignment') else 1
        bytes_ = elt_bytes(mem.elt)
        flat = np.ravel_multi_index(
            [np.where(mask, ix, 0) for ix in idx], mem.a.shape,
            mode='clip') * bytes_
        if (mask & (flat % align != 0)).any():
            raise Failure('%s at a byte offset that is not %d-aligned' % (
                op.name, align))

    def land(self, dst, didx, src, sidx, count, src_n, active):
        """Completes one cp.async: `src_n` elements, the rest zeros."""
        vals = self.copy_values(src, sidx, count, src_n, active)
        self.check_copy_alignment(dst, didx, src, sidx, count, src_n, active)
        self.scatter(dst, didx, vals, active, 'cp.async destination')

    def copy_values(self, src, sidx, count, src_n, active):
        """The (T, count) values a cp.async copies, zero-filled past
        `src_n`."""
        if ((src_n > count) | (src_n < 0)).any():
            raise Failure('cp.async srcElements out of [0, %d]' % count)
        reading = active & (src_n > 0)
        self.check_bounds(src, sidx, reading, 'cp.async source',
                          extent=1)
        vals = np.zeros((self.T, count), dtype=np.float32)
        for e in range(count):
            live = reading & (e < src_n)
            if live.any():
                s = [np.where(live, ix, 0) for ix in sidx]
                s[-1] = np.where(live, sidx[-1] + e, 0)
                self.check_bounds(src, s, live, 'cp.async source')
                vals[:, e] = np.where(live, src.a[tuple(s)], 0)
        return vals

    def check_copy_alignment(self, dst, didx, src, sidx, count, src_n,
                             active):
        reading = active & (src_n > 0)
        # 16-byte copies need 16-byte aligned addresses on both sides.
        eb = elt_bytes(dst.elt)
        for mem, idx, side in ((dst, didx, 'destination'),
                               (src, sidx, 'source')):
            flat = np.ravel_multi_index(
                [np.where(reading if side == 'source' else active, ix, 0)
                 for ix in idx], mem.a.shape, mode='clip') * eb
            if ((reading if side == 'source' else active)
                    & (flat % (eb * count) != 0)).any():
                raise Failure('cp.async %s not %d-byte aligned' % (
                    side, eb * count))

    def lane_views(self):
        """(warp, lane) of every thread: warps of 32 on NVIDIA, waves of
        the chip's size on AMD."""
        t = np.arange(self.T)
        return t // self.k.wave, t % self.k.wave

    def ldmatrix(self, op, ins):
        mem = ins[0]
        idx = [i.astype(np.int64) for i in ins[1:]]
        trans = 'transpose = true' in op.text
        tiles = int(op.attr('numTiles').split(':')[0])
        # A row is 16 bytes; a thread gets 32 bits of it (`per` elements).
        eb = elt_bytes(mem.elt)
        per = 4 // eb
        if trans and eb != 2:
            raise Failure('ldmatrix .trans of %s (16-bit elements only)' %
                          mem.elt)
        self.check_bounds(mem, idx, np.ones(self.T, bool), 'ldmatrix',
                          16 // eb)
        flat = np.ravel_multi_index(idx, mem.a.shape) * eb
        if (flat % 16 != 0).any():
            raise Failure('ldmatrix row address not 16-byte aligned')
        warp, lane = self.lane_views()
        if self.race is not None:
            # Lanes 0 .. 8 tiles - 1 of each warp give a 16-byte row; the
            # warp reads them collectively.
            self.before_shared_read()
            ts = np.nonzero(lane < 8 * tiles)[0]
            bytes_, who = self.shared_bytes(mem, idx, ts, 16 // eb)
            self.race.read(bytes_, -(who // 32) - 1, 'ldmatrix')
        out = np.zeros((self.T, tiles, per), dtype=np.float32)
        for i in range(tiles):
            for j in range(per):
                if not trans:
                    src_lane = 8 * i + lane // 4
                    col = (lane % 4) * per + j
                else:
                    src_lane = 8 * i + (lane % 4) * 2 + j
                    col = lane // 4
                src = warp * 32 + src_lane
                s = [ix[src] for ix in idx]
                s[-1] = s[-1] + col
                out[:, i, j] = mem.a[tuple(s)]
        return out

    def warp_mma(self, afr, bfr, cfr, integer=False):
        """afr (T,4,per), bfr (T,2,per), cfr (T,2,2) -> D fragments:
        m16n8k8 (per = 1, TF32), m16n8k16 (per = 2) or m16n8k32 (per = 4,
        8-bit inputs), whose
        registers hold `per` consecutive K of a row of A / column of B.
        f32 sums are rounded to f32, integer sums wrap to i32."""
        warps = self.T // 32
        per = afr.shape[-1]
        half = 4 * per
        warp, lane = self.lane_views()
        g, q = lane // 4, lane % 4
        A = np.zeros((warps, 16, 2 * half))
        B = np.zeros((warps, 2 * half, 8))
        C = np.zeros((warps, 16, 8))
        for j in range(per):
            c = per * q + j
            A[warp, g, c] = afr[:, 0, j]
            A[warp, g + 8, c] = afr[:, 1, j]
            A[warp, g, c + half] = afr[:, 2, j]
            A[warp, g + 8, c + half] = afr[:, 3, j]
            B[warp, c, g] = bfr[:, 0, j]
            B[warp, c + half, g] = bfr[:, 1, j]
        for j in range(2):
            C[warp, g, 2 * q + j] = cfr[:, 0, j]
            C[warp, g + 8, 2 * q + j] = cfr[:, 1, j]
        D = np.einsum('wmk,wkn->wmn', A, B) + C
        if integer:
            if np.isnan(D).any():
                raise Failure('mma.sync s8 on unfilled shared memory')
            D = wrap(D, 32).astype(np.float64)
        else:
            D = D.astype(np.float32)
        d = np.zeros((self.T, 2, 2), dtype=D.dtype)
        for j in range(2):
            d[:, 0, j] = D[warp, g, 2 * q + j]
            d[:, 1, j] = D[warp, g + 8, 2 * q + j]
        return d

    def mma(self, a, b, c):
        if a.shape[1:] != (4, 2) or b.shape[1:] != (2, 2):
            raise Failure('unexpected mma fragment shapes')
        return self.warp_mma(a, b, c)

    def nvvm_mma(self, op, ins):
        if ('m = 16, n = 8, k = 32' in op.text and 'mma_type<s8>' in op.text
                and 'mma_int_overflow<wrapped>' in op.text):
            return self.s8_mma(ins)
        if ('m = 16, n = 8, k = 8' in op.text
                and 'mma_type<tf32>' in op.text):
            return self.tf32_mma(ins)
        if 'm = 16, n = 8, k = 16' not in op.text or 'bf16' not in op.text:
            raise Failure('unexpected nvvm.mma.sync')

        def unpack(regs):
            r = np.stack([x.astype(np.uint64) for x in regs], axis=1)
            lo = ((r & 0xFFFF) << 16).astype(np.uint32).view(np.float32)
            hi = ((r >> 16) << 16).astype(np.uint32).view(np.float32)
            return np.stack([lo, hi], axis=-1)

        a = unpack(ins[0:4])
        b = unpack(ins[4:6])
        c = np.stack(ins[6:10], axis=1).reshape(self.T, 2, 2)
        return self.warp_mma(a, b, c).reshape(self.T, 4)

    def tf32_mma(self, ins):
        """mma.sync m16n8k8 f32.tf32.tf32.f32: one f32 register per element
        of A (a0: row g, column q; a1: row g + 8; a2, a3: column q + 4) and
        B (b0: row q, column g; b1: row q + 4), q = lane % 4, g = lane / 4.
        The tensor cores read TF32: the low 13 bits of each register are
        ignored (dropped here), so a kernel that feeds f32 values which
        are not TF32 computes with truncated ones."""
        def tf32(regs):
            r = np.stack([np.asarray(x).astype(np.int64) & 0xFFFFE000
                          for x in regs], axis=1)
            return r.astype(np.uint32).view(np.float32).reshape(
                self.T, len(regs), 1)

        a = tf32(ins[0:4])
        b = tf32(ins[4:6])
        c = np.stack(ins[6:10], axis=1).reshape(self.T, 2, 2)
        return self.warp_mma(a, b, c).reshape(self.T, 4)

    @staticmethod
    def bytes_of(regs):
        """i32 registers -> (T, regs, 4) bytes, the low byte first."""
        r = np.stack([np.asarray(x).astype(np.int64) & 0xFFFFFFFF
                      for x in regs], axis=1)
        return np.stack([(r >> (8 * i)) & 0xFF for i in range(4)], axis=-1)

    def s8_mma(self, ins):
        """mma.sync m16n8k32 s32.s8.s8.s32 (wrapping)."""
        a = wrap(self.bytes_of(ins[0:4]), 8).astype(np.float64)
        b = wrap(self.bytes_of(ins[4:6]), 8).astype(np.float64)
        c = np.stack(ins[6:10], axis=1).reshape(self.T, 2, 2)
        return self.warp_mma(a, b, c, integer=True).reshape(self.T, 4)

    def f8_mma(self, op, ins):
        """Inline PTX mma.sync m16n8k32 f32.<e4m3|e5m2>x2.f32."""
        asm = re.search(r'asm_string = "([^"]*)"', op.text).group(1)
        m = re.match(r'mma\.sync\.aligned\.m16n8k32\.row\.col\.f32\.'
                     r'(e4m3|e5m2)\.(e4m3|e5m2)\.f32 \{\$0,\$1,\$2,\$3\}, '
                     r'\{\$4,\$5,\$6,\$7\}, \{\$8,\$9\}, '
                     r'\{\$10,\$11,\$12,\$13\};$', asm)
        if not m or len(ins) != 10:
            raise Failure('unexpected llvm.inline_asm: %s' % asm)
        decode = {'e4m3': f8_values('f8E4M3FN'),
                  'e5m2': f8_values('f8E5M2')}
        a = decode[m.group(1)][self.bytes_of(ins[0:4])]
        b = decode[m.group(2)][self.bytes_of(ins[4:6])]
        c = np.stack(ins[6:10], axis=1).reshape(self.T, 2, 2)
        return self.warp_mma(a, b, c).reshape(self.T, 4)

    def amd_matrix_checks(self, op, mask, table, what):
        """Checks an amdgpu.mfma / wmma against the chip's instructions;
        returns (k, A's shape, C's shape, whether the sums are i32, A's and
        B's element types). A and B have one type, but for the f8 of
        gfx942, which mixes f8E4M3FNUZ and f8E5M2FNUZ (fp8_bf8, bf8_fp8)."""
        a_t, b_t, c_t = (parse_type(t) for t in operand_types(op))
        d_t = parse_type(op.result_types[0])
        m_, n_, k_ = (int(op.attr(x).split(':')[0]) for x in 'mnk')
        elt = a_t[2]
        if (self.k.chip, elt) not in table:
            raise Failure('%s of %s on %s: no such instruction' % (
                what, elt, self.k.chip))
        if (m_, n_, k_) != (16, 16, table[(self.k.chip, elt)]):
            raise Failure('%s %dx%dx%d of %s: %s has 16x16x%d' % (
                what, m_, n_, k_, elt, self.k.chip,
                table[(self.k.chip, elt)]))
        fnuz = ('f8E4M3FNUZ', 'f8E5M2FNUZ')
        if (b_t[2] != elt and not (elt in fnuz and b_t[2] in fnuz)
                or b_t[1] != a_t[1]):
            raise Failure('%s of %s and %s' % (what, a_t, b_t))
        integer = elt == 'i8'
        if c_t != d_t or c_t[2] != ('i32' if integer else 'f32'):
            raise Failure('%s of %s accumulating in %s' % (what, elt,
                                                           c_t[2]))
        if not mask.all():
            raise Failure('%s in divergent code (the whole wave must run '
                          'it)' % what)
        return k_, a_t[1], c_t[1], integer, elt, b_t[2]

    @staticmethod
    def amd_finish(D, integer, what):
        """Rounds the exact float64 sums: f32 once (as warp_mma does for
        mma.sync), i32 wrapped (no clamp)."""
        if integer:
            if np.isnan(D).any():
                raise Failure('%s i8 on unfilled LDS' % what)
            return wrap(D, 32).astype(np.float64)
        return D.astype(np.float32)

    def mfma(self, op, ins, mask):
        """amdgpu.mfma 16x16xk, one block, wave64, with the operand layouts
        of the CDNA2 / CDNA3 ISA documents: lane l (R = l % 16, G = l / 16)
        holds A[R][G k/4 + i] and B[G k/4 + i][R] for i < k/4 (k/4
        consecutive K), and D[4 G + i][R] for i < 4."""
        k_, a_shape, c_shape, integer, a_elt, b_elt = self.amd_matrix_checks(
            op, mask, AMD_MFMA_K, 'amdgpu.mfma')
        for key, want in (('blocks', 1), ('cbsz', 0), ('abid', 0)):
            if int(op.attr(key).split(':')[0]) != want:
                raise Failure('amdgpu.mfma with %s = %s' % (key,
                                                             op.attr(key)))
        if 'mfma_perm_b none' not in op.text or 'negate' in op.text:
            raise Failure('amdgpu.mfma with a B permutation or negation')
        xf32 = a_elt == 'f32'
        if xf32 != bool(re.search(r'\breducePrecision\b', op.text)):
            # f32 sources are the xf32 instruction only (reducePrecision);
            # without it the wrapper would pick none on gfx942.
            raise Failure('amdgpu.mfma of %s %s reducePrecision' % (
                a_elt, 'without' if xf32 else 'with'))
        per = k_ // 4
        if a_shape != (per,) or c_shape != (4,) or self.k.wave != 64:
            raise Failure('amdgpu.mfma 16x16x%d takes %d inputs and 4 '
                          'accumulators a lane of a wave64' % (k_, per))
        # f8 registers hold codes: decoded by each operand's own format.
        a, b = (f8_decode(e, x) if e.startswith('f8') else x
                for e, x in ((a_elt, ins[0]), (b_elt, ins[1])))
        if xf32:
            # v_mfma_f32_16x16x8_xf32 reads TF32's 10 mantissa bits of each
            # f32 register: the low 13 bits are dropped (the inputs of a
            # compute = tf32 program have none).
            a, b = (
                (np.asarray(x, dtype=np.float32).view(np.uint32)
                 & np.uint32(0xFFFFE000)).view(np.float32).astype(np.float64)
                for x in (a, b))
        c = ins[2]
        W = self.T // 64
        warp, lane = self.lane_views()
        R, G = lane % 16, lane // 16
        A = np.zeros((W, 16, k_))
        B = np.zeros((W, k_, 16))
        C = np.zeros((W, 16, 16))
        for i in range(per):
            A[warp, R, G * per + i] = a[:, i]
            B[warp, G * per + i, R] = b[:, i]
        for i in range(4):
            C[warp, 4 * G + i, R] = c[:, i]
        D = self.amd_finish(np.einsum('wmk,wkn->wmn', A, B) + C, integer,
                            'amdgpu.mfma')
        out = np.zeros((self.T, 4), dtype=D.dtype)
        for i in range(4):
            out[:, i] = D[warp, 4 * G + i, R]
        return out

    def wmma(self, op, ins, mask):
        """amdgpu.wmma 16x16x16, wave32, with the operand layouts of the
        RDNA3 ISA document: lane l (R = l % 16, H = l / 16) holds all 16 K
        of A[R][:] and of B[:][R], lanes 16-31 a copy of lanes 0-15 (the
        ISA asks for the copy: a kernel whose halves differ fails here),
        and D (f32 / i32) element i at D[2 i + H][R]."""
        k_, a_shape, c_shape, integer, _, _ = self.amd_matrix_checks(
            op, mask, AMD_WMMA_K, 'amdgpu.wmma')
        for flag in ('unsignedA', 'unsignedB', 'clamp'):
            if re.search(r'\b%s\b' % flag, op.text):
                raise Failure('amdgpu.wmma with %s' % flag)
        if op.attr('subwordOffset') and int(
                op.attr('subwordOffset').split(':')[0]) != 0:
            raise Failure('amdgpu.wmma with a subword offset')
        if a_shape != (16,) or c_shape != (8,) or self.k.wave != 32:
            raise Failure('amdgpu.wmma 16x16x16 takes 16 inputs and 8 '
                          'accumulators a lane of a wave32')
        a, b, c = ins
        W = self.T // 32
        warp, lane = self.lane_views()
        R, H = lane % 16, lane // 16
        lo, hi = H == 0, H == 1
        for x, name in ((a, 'A'), (b, 'B')):
            same = (x[lo] == x[hi]) | (np.isnan(x[lo]) & np.isnan(x[hi]))
            if not same.all():
                t, i = (int(v) for v in np.argwhere(~same)[0])
                t = int(np.nonzero(lo)[0][t])
                raise Failure('amdgpu.wmma: thread %d holds another %s '
                              'element %d than thread %d: lanes 16-31 of a '
                              'wave must repeat lanes 0-15' % (
                                  t + 16, name, i, t))
        A = np.zeros((W, 16, 16))
        B = np.zeros((W, 16, 16))
        C = np.zeros((W, 16, 16))
        A[warp[lo], R[lo], :] = a[lo]
        B[warp[lo], :, R[lo]] = b[lo]
        for i in range(8):
            C[warp, 2 * i + H, R] = c[:, i]
        D = self.amd_finish(np.einsum('wmk,wkn->wmn', A, B) + C, integer,
                            'amdgpu.wmma')
        out = np.zeros((self.T, 8), dtype=D.dtype)
        for i in range(8):
            out[:, i] = D[warp, 2 * i + H, R]
        return out


def operand_types(op):
    """The operand types of a generic op ('(a, b) -> c' -> [a, b])."""
    if op.operand_types_ is None:
        op.operand_types_ = operand_types_of(op.text)
    return op.operand_types_


def operand_types_of(text):
    sig = text.rsplit(' : ', 1)[1]
    depth = 0
    for i, ch in enumerate(sig):
        if ch in '<({[':
            depth += 1
        elif ch in '>)}]':
            depth -= 1
        elif depth == 0 and sig.startswith('->', i):
            return split_types(sig[:i])
    return split_types(sig)


# The 16x16 matrix instructions of the AMD ISA documents the kernels may
# use, by chip and input type: the instruction's K.
#   CDNA2 (gfx90a): v_mfma_f32_16x16x16f16, v_mfma_f32_16x16x16bf16_1k,
#     v_mfma_i32_16x16x16i8;
#   CDNA3 (gfx942): v_mfma_f32_16x16x16_f16, v_mfma_f32_16x16x16_bf16,
#     v_mfma_i32_16x16x32_i8 (CDNA3 has no 16x16x16 i8),
#     v_mfma_f32_16x16x32_{fp8,bf8}_{fp8,bf8} (fp8 = f8E4M3FNUZ, bf8 =
#     f8E5M2FNUZ; A and B may differ; CDNA2 has no f8, CDNA3 no OCP f8);
#   RDNA3 (gfx1100): v_wmma_f32_16x16x16_f16, v_wmma_f32_16x16x16_bf16,
#     v_wmma_i32_16x16x16_iu8.
AMD_MFMA_K = {('gfx90a', 'f16'): 16, ('gfx90a', 'bf16'): 16,
              ('gfx90a', 'i8'): 16, ('gfx942', 'f16'): 16,
              ('gfx942', 'bf16'): 16, ('gfx942', 'i8'): 32,
              ('gfx942', 'f8E4M3FNUZ'): 32, ('gfx942', 'f8E5M2FNUZ'): 32,
              ('gfx942', 'f32'): 8}
AMD_WMMA_K = {('gfx1100', 'f16'): 16, ('gfx1100', 'bf16'): 16,
              ('gfx1100', 'i8'): 16}


def wave_size(chip):
    """Lanes of a warp (wave): 32 on NVIDIA, 64 on CDNA (gfx9xx), 32 on
    RDNA (gfx10xx, gfx11xx: wave32, what the kernels are compiled for)."""
    if re.match(r'sm_\d+a?$', chip):
        return 32
    if re.match(r'gfx9[0-9a-f]{2}$', chip):
        return 64
    if re.match(r'gfx1[01][0-9a-f]{2}$', chip):
        return 32
    raise Failure('unknown chip %s' % chip)


class Kernel:
    def __init__(self, op):
        self.op = op
        self.name = re.search(r'sym_name = "([^"]+)"', op.text).group(1)
        launch = re.search(r'accel\.launch = \{(.*?)\}', op.text).group(1)

        def arr(key):
            m = re.search(r'\b%s = array<i64: ([\d, ]+)>' % key, launch)
            return [int(x) for x in m.group(1).split(',')]
        self.grid = arr('grid')
        self.block = arr('block')
        self.smem = int(re.search(r'dynamic_shared_memory = (\d+)',
                                  launch).group(1))
        self.access = re.findall(r'"(\w+)"', re.search(
            r'access = \[([^\]]*)\]', launch).group(1))
        m = re.search(r'\bchip = "(\w+)"', launch)
        self.chip = m.group(1) if m else 'sm_80'
        self.wave = None          # check_launch(), whose failure is reported
        args, body = op.regions[0]
        self.args = args
        self.body = body
        sig = re.search(r'function_type = \((.*?)\) -> \(\)', op.text)
        self.types = [parse_type(t) for t in split_types(sig.group(1))]
        self.race_check = True
        self.drop_barrier = None
        self.tf32_fma = False
        self.sink_barrier = None
        self.barriers = 0

        def number(ops):
            for o in ops:
                if o.name == 'gpu.barrier':
                    o.barrier_index = self.barriers
                    self.barriers += 1
                for _, body in o.regions:
                    number(body)
        number(self.body)

    def check_launch(self):
        """The wave size of the chip, and the limits of an AMD workgroup
        (the ISA documents: at most 1024 work-items and 64 KiB of LDS)."""
        self.wave = wave_size(self.chip)
        if self.block[0] % self.wave:
            raise Failure('%d threads are not whole waves of %d' % (
                self.block[0], self.wave))
        if self.chip.startswith('gfx') and (self.block[0] > 1024
                                            or self.smem > 65536):
            raise Failure('a workgroup of %d work-items and %d bytes of LDS '
                          '(at most 1024 and 65536)' % (self.block[0],
                                                        self.smem))


def emulate(kernel, rng):
    # Parameters: A, B, [C read], C written; with K = 0 no A and B.
    if 'kind = "dequant"' in kernel.op.text:
        raise Failure('is a dequant_matmul kernel, whose result this script '
                      'cannot compute: check it on a record '
                      '(--launch-record)')
    if 'kind = "paged' in kernel.op.text:
        raise Failure('is a paged_attention kernel, whose result this script '
                      'cannot compute: check it on a record '
                      '(--launch-record)')
    if (re.search(r'\bepilogue = ', kernel.op.text)
            or 'kind = "elementwise"' in kernel.op.text):
        raise Failure('has an epilogue, whose result this script cannot '
                      'compute: check it on a record (--launch-record)')
    types = kernel.types
    c_t = types[-1]
    accumulate = len(types) in (2, 4)
    m, n = c_t[1][-2:]
    if len(types) <= 2:
        k, trans = 0, False
    else:
        a_t, b_t = types[0], types[1]
        k = a_t[1][-1]
        if b_t[1][-2:] == (n, k) and (n, k) != (k, n):
            trans = True
        elif b_t[1][-2:] == (k, n) and (n, k) != (k, n):
            trans = False
        else:
            raise Failure('cannot tell whether B is transposed (N == K)')
    bufs = []
    for (kind, shape, elt), acc in zip(types, kernel.access):
        if acc != 'in':
            x = np.full(shape, np.nan, dtype=np.float64)
        elif elt == 'i8':
            # The whole range: the i32 sums are large, and exact.
            x = rng.integers(-128, 128, size=shape).astype(np.float64)
        elif elt == 'i32':
            # A C within 2^19 of the ends of i32, so that some sums wrap
            # (a saturating mma fails this).
            x = (rng.integers(2**31 - 2**19, 2**31, size=shape)
                 * rng.choice([-1, 1], size=shape)).astype(np.float64)
        elif elt.startswith('f8'):
            # Codes of every finite value up to 16 in magnitude (normal
            # and subnormal; never a NaN code, 0x80 in FNUZ); f8 memory
            # holds codes.
            vals = f8_values(elt)
            codes = np.nonzero(np.abs(vals) <= 16)[0]
            x = rng.choice(codes, size=shape).astype(np.float64)
        elif types[0][2] == 'f32' and 'mma = "fma"' not in kernel.op.text:
            # f32 inputs of a tensor-core kernel (mma.sync m16n8k8 TF32:
            # the matmul's accel.tf32_inputs): TF32 values, which it must
            # multiply exactly, with f32 sums (the gate below).
            x = round_to_tf32(rng.standard_normal(size=shape))
        elif types[0][2] == 'f32':
            # f32 inputs (the fma kernel): full 24-bit significands, so
            # that a kernel rounding them (to TF32's 11 bits) or summing
            # in less than f32 fails the gate below.
            x = rng.standard_normal(size=shape).astype(np.float32)
        else:
            x = rng.integers(-3, 4, size=shape).astype(np.float32)
        bufs.append(Memref(round_to(x, elt), elt, 'global'))
    threads = kernel.block[0]
    for bz in range(kernel.grid[2]):
        for by in range(kernel.grid[1]):
            for bx in range(kernel.grid[0]):
                blk = Block(kernel, (bx, by, bz), bufs, kernel.smem, threads)
                blk.run(kernel.body, np.ones(threads, dtype=bool))
    def value(buf):
        if buf.elt.startswith('f8'):
            return f8_values(buf.elt)[buf.a.astype(np.int64)]
        return buf.a.astype(np.float64)
    ref = np.zeros(c_t[1])
    mag = np.zeros(c_t[1])
    if k > 0:
        A, B = value(bufs[0]), value(bufs[1])
        if trans:
            B = np.swapaxes(B, -1, -2)
        if c_t[2] == 'i32':
            # Bit-exact: int64 sums, wrapped to i32.
            ref = A.astype(np.int64) @ B.astype(np.int64)
        else:
            ref = A @ B
            mag = np.abs(A) @ np.abs(B)
    if accumulate:
        ref = ref + (bufs[-2].a.astype(np.int64) if c_t[2] == 'i32'
                     else bufs[-2].a)
        mag = mag + np.abs(bufs[-2].a)
    if c_t[2] == 'i32':
        ref = wrap(ref, 32).astype(np.float64)
    else:
        exact = round_to(ref.astype(np.float32), c_t[2])
    got = bufs[-1].a
    if np.isnan(got).any():
        idx = np.argwhere(np.isnan(got))[0]
        raise Failure('C%s is NaN: never written, or computed from shared '
                      'memory no copy had filled' % [int(i) for i in idx])
    if c_t[2] == 'i32':
        bad = got != ref
    elif types[0][2].startswith('f8') or types[0][2] == 'f32':
        # f8 and f32 sums are not exact in f32: the matmul gate
        # (docs/numerics.md),
        # u_out |r| + gamma_K(2^-24) (|A||B| + |C|).
        u = 2.0**-24
        gamma = k * u / (1 - k * u)
        bad = (np.abs(got - ref) >
               UNIT_ROUNDOFF[c_t[2]] * np.abs(ref) + gamma * mag)
    else:
        ref = exact
        bad = got != ref
    if bad.any():
        idx = np.argwhere(bad)[0]
        raise Failure('C%s = %s, expected %s (%d elements differ)' % (
            [int(i) for i in idx], got[tuple(idx)], ref[tuple(idx)],
            bad.sum()))
    return 'M=%d N=%d K=%d%s' % (m, n, k, ' transpose_b' if trans else '')


def round_to_tf32(x):
    """f32 values rounded to TF32's 10 stored significand bits (to
    nearest, ties to even), as float64."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0xFFF + ((bits >> 13) & 1)) & 0xFFFFE000
    return bits.astype(np.uint32).view(np.float32).astype(np.float64)


# The math functions epilogues use, in float64 (rounded to f32 after).
MATH_FUNCTIONS = {
    'math.erf': np.vectorize(math.erf, otypes=[np.float64]),
    'math.tanh': np.tanh,
    'math.exp': np.exp,
    'math.sqrt': np.sqrt,
    'math.rsqrt': lambda x: 1.0 / np.sqrt(x),
    'math.absf': np.abs,
    # Rounding to integers (quantised outputs): exact.
    'math.roundeven': np.rint,
    'math.round': lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5),
    'math.floor': np.floor,
    'math.ceil': np.ceil,
    'math.trunc': np.trunc,
}


# Unit roundoff and the attention gate's atol (docs/numerics.md) by type.
UNIT_ROUNDOFF = {'f32': 2.0**-24, 'f16': 2.0**-11, 'bf16': 2.0**-8}
ATTENTION_ATOL = {'f32': 1e-5, 'f16': 1e-2, 'bf16': 2e-2}


def emulate_attention(kernel, rng):
    """Runs an accel.attention kernel on normal-distributed Q, K, V and
    compares O with a float64 softmax(scale Q.K^T) V, held to the attention
    gate of docs/numerics.md plus the rounding of P to the input type
    (u_P max|v|); rows that keep no key must be exactly 0."""
    launch = re.search(r'accel\.launch = \{(.*?)\}', kernel.op.text).group(1)
    if re.search(r'\bepilogue = \d', launch):
        raise Failure('has an epilogue, whose result this script cannot '
                      'compute: check it on a record (--launch-record)')
    scale = float(re.search(r'\bscale = ([-+\d.e]+)', launch).group(1))
    m = re.search(r'\bcausal_offset = (-?\d+)', launch)
    offset = int(m.group(1)) if m else None
    m = re.search(r'\bmask = "(\w+)"', launch)
    mask_kind = m.group(1) if m else None
    types = kernel.types
    o_t = types[-1]
    bsz, hq, sq, dv = o_t[1]
    bufs = []
    for i, ((kind, shape, elt), acc) in enumerate(zip(types, kernel.access)):
        if acc != 'in':
            x = np.full(shape, np.nan, dtype=np.float32)
        elif i == 3 and mask_kind == 'bool':
            # 70 % of the keys kept, and (with rows) the first row of the
            # mask none: rows that keep no key.
            x = (rng.random(size=shape) < 0.7).astype(np.float32)
            if len(shape) >= 2 and shape[-2] > 1:
                x[..., 0, :] = 0
            bufs.append(Memref(x, elt, 'global'))
            continue
        elif i == 3 and mask_kind == 'additive':
            # Biases, and -inf for a tenth of the keys and (with rows) for
            # every key of the first row of the mask: rows that keep no key.
            x = rng.standard_normal(size=shape).astype(np.float32) * 2
            x[rng.random(size=shape) < 0.1] = -np.inf
            if len(shape) >= 2 and shape[-2] > 1:
                x[..., 0, :] = -np.inf
        else:
            x = rng.standard_normal(size=shape).astype(np.float32) * 1.5
        bufs.append(Memref(round_to(x, elt), elt, 'global'))
    threads = kernel.block[0]
    for bz in range(kernel.grid[2]):
        for by in range(kernel.grid[1]):
            for bx in range(kernel.grid[0]):
                blk = Block(kernel, (bx, by, bz), bufs, kernel.smem, threads)
                blk.run(kernel.body, np.ones(threads, dtype=bool))
    ref = np.zeros(o_t[1])
    kept_any = np.zeros((bsz, hq, sq), dtype=bool)
    skv, d, hkv, in_elt = 0, 0, hq, o_t[2]
    bound = ATTENTION_ATOL[o_t[2]]
    if len(types) >= 4:
        q = bufs[0].a.astype(np.float64)
        k = bufs[1].a.astype(np.float64)
        v = bufs[2].a.astype(np.float64)
        hkv, skv, d = k.shape[1], k.shape[2], k.shape[3]
        in_elt = types[0][2]
        group = hq // hkv
        k = np.repeat(k, group, axis=1)
        v = np.repeat(v, group, axis=1)
        logits = scale * np.einsum('bhid,bhjd->bhij', q, k)
        i = np.arange(sq)[:, None]
        j = np.arange(skv)[None, :]
        keep = np.ones((bsz, hq, sq, skv), dtype=bool)
        if offset is not None:
            keep &= j <= i + offset
        if mask_kind is not None:
            full = np.broadcast_to(bufs[3].a.astype(np.float64),
                                   (bsz, hq, sq, skv))
            if mask_kind == 'bool':
                keep &= full != 0
            else:
                logits = logits + full
                keep &= np.isfinite(full)
        kept_any = keep.any(axis=-1)
        s = np.where(keep, logits, -np.inf)
        mx = np.max(s, axis=-1, keepdims=True)
        mx = np.where(np.isfinite(mx), mx, 0)
        p = np.where(keep, np.exp(s - mx), 0)
        lsum = p.sum(axis=-1, keepdims=True)
        ref = np.einsum('bhij,bhjd->bhid', p, v) / np.where(lsum == 0, 1,
                                                           lsum)
        vmax = np.abs(v).max()
        bound += (2 * vmax * 2 * 2.0**-24 * np.abs(np.where(keep, logits, 0)).max()
                  + (UNIT_ROUNDOFF[o_t[2]] + 2 * np.sqrt(skv) * 2.0**-24
                     + UNIT_ROUNDOFF[in_elt]) * vmax)
    got = bufs[-1].a
    if np.isnan(got).any():
        idx = np.argwhere(np.isnan(got))[0]
        raise Failure('O%s is NaN: never written, or computed from shared '
                      'memory no copy had filled' % [int(i) for i in idx])
    empty = ~kept_any
    if (got[empty] != 0).any():
        idx = np.argwhere((got != 0) & empty[..., None])[0]
        raise Failure('O%s = %s, but row %d keeps no key and must be 0' % (
            [int(i) for i in idx], got[tuple(idx)], idx[2]))
    err = np.abs(got - ref)
    if (err > bound).any():
        idx = np.argwhere(err > bound)[0]
        raise Failure('O%s = %s, expected %s (error %.3g > bound %.3g; %d '
                      'elements beyond)' % (
                          [int(i) for i in idx], got[tuple(idx)],
                          ref[tuple(idx)], err.max(), bound,
                          (err > bound).sum()))
    return ('B=%d Hq=%d Hkv=%d Sq=%d Skv=%d D=%d Dv=%d%s%s, max error %.2g '
            '<= %.2g' % (bsz, hq, hkv, sq, skv, d, dv,
                         '' if offset is None else ' causal(%d)' % offset,
                         '' if mask_kind is None else ' %s mask %s' % (
                             mask_kind, 'x'.join(map(str, types[3][1]))),
                         err.max(), bound))


def decode_buffer(raw, elt, shape):
    """A recorded buffer's bytes as the emulator holds memory: float32
    values for f32 / f16 / bf16 and 0 / 1 for i1, exact integers in float64
    for i8 / i32 / i64, codes for f8."""
    if elt == 'f32':
        a = np.frombuffer(raw, '<f4').astype(np.float32)
    elif elt == 'f16':
        a = np.frombuffer(raw, '<f2').astype(np.float32)
    elif elt == 'bf16':
        a = (np.frombuffer(raw, '<u2').astype(np.uint32) << 16).view(
            np.float32)
    elif elt == 'i8':
        a = np.frombuffer(raw, np.int8).astype(np.float64)
    elif elt == 'i32':
        a = np.frombuffer(raw, '<i4').astype(np.float64)
    elif elt == 'i64':
        # Block tables and lengths: exact below 2^53; beyond, the kernels'
        # range checks still see a value out of range.
        a = np.frombuffer(raw, '<i8').astype(np.float64)
    elif elt.startswith('f8'):
        a = np.frombuffer(raw, np.uint8).astype(np.float64)
    elif elt == 'i1':
        # A byte per element (a bool mask), as the kernels load it.
        a = (np.frombuffer(raw, np.uint8) != 0).astype(np.float32)
    else:
        raise Failure('cannot decode a recorded buffer of %s' % elt)
    return a.reshape(shape).copy()


def encode_buffer(a, elt):
    """decode_buffer's inverse: the bytes the kernel left in memory."""
    if elt == 'i64':
        return a.astype('<i8').tobytes()
    if elt == 'f32':
        return a.astype('<f4').tobytes()
    if elt == 'f16':
        return a.astype('<f2').tobytes()
    if elt == 'bf16':
        # Rounded to bf16 first (stores round, but not every producer of a
        # bf16 value does), so the high half is the value.
        return (bf16_round(a.astype(np.float32)).view(np.uint32)
                >> 16).astype('<u2').tobytes()
    if elt == 'i8':
        return wrap(a, 8).astype(np.int8).tobytes()
    if elt == 'i32':
        return wrap(a, 32).astype('<i4').tobytes()
    return a.astype(np.uint8).tobytes()


def run_grid(kernel, bufs):
    """Runs every block of `kernel`'s grid on the memrefs `bufs`."""
    threads = kernel.block[0]
    for bz in range(kernel.grid[2]):
        for by in range(kernel.grid[1]):
            for bx in range(kernel.grid[0]):
                blk = Block(kernel, (bx, by, bz), bufs, kernel.smem, threads)
                blk.run(kernel.body, np.ones(threads, dtype=bool))


def checked_arguments(kernel, meta, race_check):
    """`kernel` ready to run on the buffers of its recorded metadata `meta`:
    the launch checked, one recorded buffer per parameter, each of the
    parameter's element type and shape. Returns the recorded arguments with
    the parameters' (shape, element type)."""
    kernel.race_check = race_check
    kernel.check_launch()
    args = meta['arguments']
    if len(args) != len(kernel.types):
        raise Failure('@%s: %d recorded buffers for %d parameters' % (
            kernel.name, len(args), len(kernel.types)))
    for i, (arg, (kind, shape, elt)) in enumerate(zip(args, kernel.types)):
        if arg['dtype'] != elt or tuple(arg['shape']) != shape:
            raise Failure('@%s buffer %d (%s) was recorded as %s %s; the '
                          'parameter is %s %s' % (
                              kernel.name, i, arg['name'], arg['dtype'],
                              arg['shape'], elt, list(shape)))
    return [(arg, shape, elt) for arg, (kind, shape, elt) in
            zip(args, kernel.types)]


def launch_program(fn, by_name, folder, race_check):
    """A recorded function of several kernels (a program): its buffers by
    name (<fn>.<name>.bin), its kernels' metadata in launch order. Runs
    the kernels in order on the shared buffers (a buffer a kernel views in
    another shape, through a reshape, is the same memory) and writes every
    buffer a kernel wrote as <fn>.<name>.result.bin. Returns whether all
    ran."""
    name = fn['name']
    try:
        metas = []
        for path in fn['kernels']:
            with open(os.path.join(folder, path)) as f:
                metas.append(json.load(f))
        flat = {}      # buffer name -> (flat float array, element type)
        written = set()
        for meta in metas:
            kernel = by_name.get(meta['kernel'])
            if kernel is None:
                raise Failure('no kernel @%s in the kernels file' %
                              meta['kernel'])
            bufs = []
            for arg, shape, elt in checked_arguments(kernel, meta,
                                                     race_check):
                if arg['name'] not in flat:
                    with open(os.path.join(
                            folder, fn['buffers'][arg['name']]), 'rb') as f:
                        a = decode_buffer(f.read(), elt, (-1,))
                    flat[arg['name']] = (np.ascontiguousarray(a), elt)
                a, e = flat[arg['name']]
                if e != elt or a.size != int(np.prod(shape)):
                    raise Failure('@%s views buffer %s as %s %s' % (
                        kernel.name, arg['name'], elt, list(shape)))
                # A view: what the kernel stores lands in the shared array.
                bufs.append(Memref(a.reshape(shape), elt, 'global'))
                if arg['access'] != 'in':
                    written.add(arg['name'])
            run_grid(kernel, bufs)
            print('@%s: launched (%s, grid %s, %d threads)' % (
                kernel.name, kernel.chip, 'x'.join(map(str, kernel.grid)),
                kernel.block[0]))
        for buf in sorted(written):
            a, elt = flat[buf]
            with open(os.path.join(folder, '%s.%s.result.bin' % (name, buf)),
                      'wb') as f:
                f.write(encode_buffer(a, elt))
        print('@%s: program of %d kernels ran, %d buffers written' % (
            name, len(metas), len(written)))
        return True
    except Failure as e:
        print('@%s: FAILED: %s' % (name, e))
        return False


def launch_record(kernels, folder, race_check):
    """Runs each function of the record in `folder` with its kernel from
    `kernels` on the recorded buffers and writes what it stored (see the
    module's doc). Returns whether all ran."""
    with open(os.path.join(folder, 'manifest.json')) as f:
        manifest = json.load(f)
    by_name = {k.name: k for k in kernels}
    ok = True
    for fn in manifest['functions']:
        if 'kernels' in fn:
            ok &= launch_program(fn, by_name, folder, race_check)
            continue
        with open(os.path.join(folder, fn['metadata'])) as f:
            meta = json.load(f)
        kernel = by_name.get(meta['kernel'])
        try:
            if kernel is None:
                raise Failure('no kernel @%s in the kernels file' %
                              meta['kernel'])
            args = meta['arguments']
            bufs = []
            for i, (arg, shape, elt) in enumerate(
                    checked_arguments(kernel, meta, race_check)):
                with open(os.path.join(folder, fn['buffers'][i]), 'rb') as f:
                    bufs.append(Memref(decode_buffer(f.read(), elt, shape),
                                       elt, 'global'))
            threads = kernel.block[0]
            run_grid(kernel, bufs)
            written = 0
            for i, arg in enumerate(args):
                if arg['access'] == 'in':
                    continue
                path = os.path.join(folder, '%s.b%d.result.bin' % (
                    fn['name'], i))
                with open(path, 'wb') as f:
                    f.write(encode_buffer(bufs[i].a, bufs[i].elt))
                written += 1
            print('@%s: launched (%s, grid %s, %d threads, %d buffers '
                  'written)' % (kernel.name, kernel.chip,
                                'x'.join(map(str, kernel.grid)), threads,
                                written))
        except Failure as e:
            print('@%s: FAILED: %s' % (meta['kernel'], e))
            ok = False
    return ok


def main():
    args = sys.argv[1:]
    record = None
    if '--launch-record' in args:
        i = args.index('--launch-record')
        record = args[i + 1]
        del args[i:i + 2]
    seed = 0
    if '--seed' in args:
        i = args.index('--seed')
        seed = int(args[i + 1])
        del args[i:i + 2]
    race_check = '--no-race-check' not in args
    tf32_fma = '--tf32-fma' in args
    args = [a for a in args if a not in ('--no-race-check', '--tf32-fma')]
    mutation = {}
    for flag in ('--drop-barrier', '--sink-barrier'):
        if flag in args:
            i = args.index(flag)
            mutation[flag] = int(args[i + 1])
            del args[i:i + 2]
    if len(mutation) > 1:
        sys.exit('emulate_kernels.py: one mutation at most')
    if args == ['--self-test']:
        sys.exit(self_test())
    if len(args) != 1:
        sys.exit(__doc__)
    lines = open(args[0]).read().splitlines()
    ops, _ = parse_ops(lines, 0, lambda s: False)
    kernels = []

    def walk(ops):
        for op in ops:
            if op.name == 'gpu.func' and 'accel.launch' in op.text:
                kernels.append(Kernel(op))
            for _, body in op.regions:
                walk(body)
    walk(ops)
    if not kernels:
        sys.exit('emulate_kernels.py: no kernel with accel.launch in %s' %
                 args[0])
    if record is not None:
        for kernel in kernels:
            kernel.tf32_fma = tf32_fma
            kernel.drop_barrier = mutation.get('--drop-barrier')
            kernel.sink_barrier = mutation.get('--sink-barrier')
        sys.exit(0 if launch_record(kernels, record, race_check) else 1)
    rng = np.random.default_rng(seed)
    failed = False
    for kernel in kernels:
        kernel.race_check = race_check
        kernel.drop_barrier = mutation.get('--drop-barrier')
        kernel.sink_barrier = mutation.get('--sink-barrier')
        kernel.tf32_fma = tf32_fma
        if mutation and list(mutation.values())[0] >= kernel.barriers:
            # Nothing to mutate; the kernel runs as it is.
            print('@%s: no barrier %d to mutate' % (
                kernel.name, list(mutation.values())[0]))
        try:
            kernel.check_launch()
            if 'kind = "attention"' in kernel.op.text:
                desc = emulate_attention(kernel, rng)
            else:
                desc = emulate(kernel, rng)
            print('@%s: OK (%s, grid %s, %d threads)' % (
                kernel.name, desc, 'x'.join(map(str, kernel.grid)),
                kernel.block[0]))
        except Failure as e:
            print('@%s: FAILED: %s' % (kernel.name, e))
            failed = True
    sys.exit(1 if failed else 0)


def self_test():
    """Runs RaceDetector on hand-made access sequences, one per rule, each
    with a variant the synchronization makes correct, then checks the f8
    decoding (check_f8_values); prints one line per case and returns 1 if
    any verdict is wrong."""
    def store(d, t, b, v=1.0):
        d.write(np.array(b), np.full(len(b), t), np.full(len(b), v),
                'store')

    def copy(d, t, b):
        return d.write(np.array(b), np.full(len(b), t),
                       np.full(len(b), np.nan), 'cp.async',
                       asynchronous=True)

    def load(d, t, b):
        d.read(np.array(b), np.full(len(b), t), 'load')

    def ldmatrix(d, w, b):
        d.read(np.array(b), np.full(len(b), -w - 1), 'ldmatrix')

    every = np.ones(64, dtype=bool)

    def raw(d, sync):
        store(d, 0, [0, 1])
        if sync:
            d.barrier(every)
        load(d, 32, [1])

    def raw_other_lane(d, sync):
        store(d, 0, [0, 1])
        if sync:
            d.barrier(every)
        load(d, 1, [1])

    def raw_same_thread(d, sync):
        store(d, 0, [0, 1])
        load(d, 0, [1])

    def war(d, sync):
        ldmatrix(d, 1, list(range(16)))
        if sync:
            d.barrier(every)
        c = copy(d, 0, list(range(16)))
        d.land(c)

    def inflight(d, sync):
        c = copy(d, 5, [8, 9])
        if sync:
            d.land(c)
        load(d, 5, [9])

    def landed_other_thread(d, sync):
        c = copy(d, 5, [8, 9])
        d.land(c)
        if sync:
            d.barrier(every)
        load(d, 6, [9])

    def landed_ldmatrix_own_warp(d, sync):
        c = copy(d, 5, list(range(16)))
        d.land(c)
        if sync:
            d.barrier(every)
        ldmatrix(d, 0, list(range(16)))

    def barrier_before_wait(d, sync):
        c = copy(d, 5, [8, 9])
        d.barrier(every)
        d.land(c)
        if sync:
            d.barrier(every)
        load(d, 40, [9])

    def waw(d, sync):
        store(d, 0, [4], 1.0)
        if sync:
            d.barrier(every)
        store(d, 33, [4], 2.0)

    def waw_same_value(d, sync):
        store(d, 0, [4], 1.0)
        store(d, 33, [4], 1.0)

    def waw_one_op(d, sync):
        d.write(np.array([4, 4]), np.array([0, 33]),
                np.array([1.0, 1.0 if sync else 2.0]), 'store')

    def copy_over_inflight(d, sync):
        c = copy(d, 0, [4])
        if sync:
            d.land(c)
            d.barrier(every)
        copy(d, 1, [4])

    def divergent_barrier(d, sync):
        d.barrier(every if sync else np.arange(64) < 32)

    cases = [
        ('raw', raw, True), ('raw-other-lane', raw_other_lane, True),
        ('raw-same-thread', raw_same_thread, False),
        ('war', war, True), ('inflight', inflight, True),
        ('landed-other-thread', landed_other_thread, True),
        ('landed-ldmatrix-own-warp', landed_ldmatrix_own_warp, True),
        ('barrier-before-wait', barrier_before_wait, True),
        ('waw', waw, True), ('waw-same-value', waw_same_value, False),
        ('waw-one-op', waw_one_op, True),
        ('copy-over-inflight', copy_over_inflight, True),
        ('divergent-barrier', divergent_barrier, True)]
    wrong = 0
    for name, case, racy in cases:
        for sync in (False, True):
            try:
                case(RaceDetector(64, 64), sync)
                verdict = 'ok'
            except Failure as e:
                verdict = str(e)
            expect_race = racy and not sync
            if (verdict != 'ok') != expect_race:
                wrong += 1
            print('%s%s: %s' % (name, ' (synchronized)' if sync else '',
                                verdict))
    f8_problem, f8_how = check_f8_values()
    print('f8 codes: %s %s (%s)' % (' '.join(F8_FORMATS),
                                   f8_problem or 'ok', f8_how))
    return 1 if wrong or f8_problem else 0


def check_f8_values():
    """f8_values against codes worked out by hand from the format
    definitions (OCP 8-bit FP spec; the FNUZ formats of LLVM's APFloat /
    AMD's CDNA3 ISA), and all 256 codes of each format against ml_dtypes
    when it is installed (NaN for NaN, the sign of 0 included). Returns
    (the first mismatch or None, what was checked)."""
    nan = np.nan
    fixed = {
        'f8E4M3FN': {0x00: 0.0, 0x01: 2.0**-9, 0x08: 2.0**-6, 0x38: 1.0,
                     0x7E: 448.0, 0x7F: nan, 0x80: -0.0, 0xFE: -448.0,
                     0xFF: nan},
        'f8E5M2': {0x01: 2.0**-16, 0x04: 2.0**-14, 0x3C: 1.0,
                   0x7B: 57344.0, 0x7C: np.inf, 0x7D: nan, 0x80: -0.0,
                   0xFC: -np.inf},
        # Bias 8; S.1111.111 is 240, not NaN; 0x80 (-0) is the only NaN.
        'f8E4M3FNUZ': {0x00: 0.0, 0x01: 2.0**-10, 0x07: 7 * 2.0**-10,
                       0x08: 2.0**-7, 0x38: 0.5, 0x40: 1.0, 0x7F: 240.0,
                       0x80: nan, 0x81: -2.0**-10, 0xC0: -1.0,
                       0xFF: -240.0},
        # Bias 16; exponent 31 is finite (no inf); 0x80 the only NaN.
        'f8E5M2FNUZ': {0x00: 0.0, 0x01: 2.0**-17, 0x04: 2.0**-15,
                       0x40: 1.0, 0x7C: 32768.0, 0x7F: 57344.0, 0x80: nan,
                       0x83: -3 * 2.0**-17, 0xFF: -57344.0}}
    how = 'fixed codes'

    def same(x, y):
        return bool((np.isnan(x) and np.isnan(y)) or (
            x == y and np.signbit(x) == np.signbit(y)))
    for elt, codes in fixed.items():
        vals = f8_values(elt)
        for code, want in codes.items():
            if not same(vals[code], want):
                return '%s code 0x%02X is %r, not %r' % (
                    elt, code, vals[code], want), how
    for elt in ('f8E4M3FNUZ', 'f8E5M2FNUZ'):
        vals = f8_values(elt)
        if np.isnan(vals).sum() != 1 or np.isinf(vals).any():
            return '%s has another NaN than 0x80, or an inf' % elt, how
    try:
        import ml_dtypes
    except ImportError:
        return None, how + '; no ml_dtypes to compare every code with'
    how += ', every code against ml_dtypes'
    for elt, name in (('f8E4M3FN', 'float8_e4m3fn'),
                      ('f8E5M2', 'float8_e5m2'),
                      ('f8E4M3FNUZ', 'float8_e4m3fnuz'),
                      ('f8E5M2FNUZ', 'float8_e5m2fnuz')):
        ref = np.arange(256, dtype=np.uint8).view(
            getattr(ml_dtypes, name)).astype(np.float64)
        vals = f8_values(elt)
        for code in range(256):
            if not same(vals[code], ref[code]):
                return '%s code 0x%02X is %r, ml_dtypes.%s says %r' % (
                    elt, code, vals[code], name, ref[code]), how
        # Rounding to the format (arith.truncf, f8_encode): every finite
        # value, every midpoint between neighbours (the ties) and 2000
        # normal values within the range, as ml_dtypes rounds them.
        fin = np.sort(vals[np.isfinite(vals)])
        rng = np.random.default_rng(0)
        x = np.concatenate([fin, (fin[:-1] + fin[1:]) / 2,
                            rng.normal(0, fin[-1] / 8, 2000)])
        x = x[np.abs(x) <= fin[-1]].astype(np.float32)
        got = f8_encode(elt, x).astype(np.uint8)
        want = x.astype(getattr(ml_dtypes, name)).view(np.uint8)
        bad = np.nonzero(got != want)[0]
        if len(bad):
            i = bad[0]
            return '%s rounds %r to 0x%02X, ml_dtypes.%s to 0x%02X' % (
                elt, float(x[i]), got[i], name, want[i]), how
    how += ', rounding to them against ml_dtypes'
    return None, how


if __name__ == '__main__':
    main()
