#!/usr/bin/env python3
# Part of the accel project, under the Apache License v2.0 with LLVM
# Exceptions.
"""Executes the kernels of convert-accel-to-gpu on the CPU and checks them.

usage: emulate_kernels.py KERNELS.mlir [--seed N]

KERNELS.mlir is the pass's output printed in generic form
(--mlir-print-op-generic). For every gpu.func with an `accel.launch`
attribute the script fills the inputs with small random integers (exact in
f16/bf16 and in the f32 sums), the output with NaN, runs every block of the
grid with all of its threads in lockstep, and compares the output with
numpy's A.B (+ C) rounded to C's type. It prints `@kernel: OK` lines, or the
first problem, and exits 1 on any mismatch.

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
    nvvm.mma.sync on i32 registers holding two bf16, low half first).
  - loads and stores of global memory inside scf.if run for the threads
    whose condition holds; any out-of-bounds access is an error.
Barriers are no-ops: threads run in lockstep, so this does not find races a
missing barrier would cause on hardware.
"""
import re
import sys

import numpy as np

# --------------------------------------------------------------------------
# Types and rounding
# --------------------------------------------------------------------------


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


def bf16_round(x):
    """Round float32 values to the nearest bf16 (ties to even)."""
    x = np.asarray(x, dtype=np.float32)
    bits = x.view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    out = rounded.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(x), x, out)


def round_to(x, elt):
    x = np.asarray(x, dtype=np.float32)
    if elt == 'f16':
        return x.astype(np.float16).astype(np.float32)
    if elt == 'bf16':
        return bf16_round(x)
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

    def attr(self, key):
        m = re.search(r'\b%s = ([^,}>]+(?:<[^>]*>)?)' % re.escape(key),
                      self.text)
        return m.group(1).strip() if m else None


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
    def __init__(self, array, elt, space):
        self.a = array            # float32 values (f16/bf16 exact) or ints
        self.elt = elt
        self.space = space


class Failure(Exception):
    pass


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
        for name, buf in zip(kernel.args, buffers):
            self.env[name] = buf

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

    def gather(self, mem, idx, active, extent, what):
        self.check_bounds(mem, idx, active, what, extent)
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
            if dense:
                out = np.full((self.T,) + shape, float(dense.group(1)),
                              dtype=np.float32)
            elif elt in ('f32', 'f16', 'bf16'):
                out = self.bcast(np.float32(float(v)))
            else:
                out = self.bcast(np.int64(int(v)))
        elif n in ('arith.addi', 'arith.muli', 'arith.divui', 'arith.remui',
                   'arith.minui', 'arith.subi', 'arith.andi'):
            a, b = ins
            out = {'arith.addi': lambda: a + b, 'arith.muli': lambda: a * b,
                   'arith.divui': lambda: a // np.where(b == 0, 1, b),
                   'arith.remui': lambda: a % np.where(b == 0, 1, b),
                   'arith.minui': lambda: np.minimum(a, b),
                   'arith.subi': lambda: a - b,
                   'arith.andi': lambda: a & b}[n]()
        elif n == 'arith.cmpi':
            pred = int(op.attr('predicate').split(':')[0])
            a, b = ins
            out = {0: a == b, 1: a != b, 2: a < b, 3: a <= b, 4: a > b,
                   5: a >= b, 6: a < b, 7: a <= b, 8: a > b, 9: a >= b}[pred]
        elif n == 'arith.select':
            c, a, b = ins
            cc = c.reshape(c.shape + (1,) * (a.ndim - 1))
            out = np.where(cc, a, b)
        elif n == 'arith.extf':
            out = ins[0].astype(np.float32)
        elif n == 'arith.truncf':
            out = round_to(ins[0], parse_type(rt[0])[2])
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
            size = int(np.prod(shape)) * (4 if elt == 'f32' else 2)
            if offset + size > self.smem_bytes:
                raise Failure('shared view [%d, %d) beyond the %d bytes of '
                              'dynamic shared memory' % (
                                  offset, offset + size, self.smem_bytes))
            for lo, hi in self.smem_used:
                if offset < hi and lo < offset + size:
                    raise Failure('shared views overlap')
            self.smem_used.append((offset, offset + size))
            out = Memref(np.full(shape, np.nan, dtype=np.float32), elt,
                         'shared')
        elif n == 'gpu.barrier':
            pass
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
            if 'bypassL1' in op.text and count * 2 != 16:
                raise Failure('bypassL1 on a copy of %d elements' % count)
            self.uncommitted.append((dst, didx, src, sidx, count, src_n,
                                     mask.copy()))
            out = self.bcast(np.int64(0))
        elif n == 'nvgpu.device_async_create_group':
            self.pending.append(self.uncommitted)
            self.uncommitted = []
            out = self.bcast(np.int64(0))
        elif n == 'nvgpu.device_async_wait':
            keep = int(op.attr('numGroups').split(':')[0])
            while len(self.pending) > keep:
                for copy in self.pending.pop(0):
                    self.land(*copy)
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
        elif n == 'vector.from_elements':
            kind, shape, elt = parse_type(rt[0])
            out = np.stack(ins, axis=-1).reshape((self.T,) + shape)
        elif n == 'vector.bitcast':
            # vector<2xbf16> -> vector<1xi32>, element 0 in the low half.
            v = ins[0].astype(np.float32)
            bits = (v.view(np.uint32) >> 16).astype(np.uint64)
            out = (bits[:, 0] | (bits[:, 1] << 16)).reshape(self.T, 1)
        elif n == 'nvgpu.mma.sync':
            out = self.mma(ins[0], ins[1], ins[2])
        elif n == 'nvvm.mma.sync':
            out = self.nvvm_mma(op, ins)
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
            if self.pending or self.uncommitted:
                raise Failure('the kernel returns with cp.async groups '
                              'pending')
            return []
        else:
            raise Failure('the emulator does not know %s' % n)
        if op.results:
            env[op.results[0]] = out
        return None

    def check_alignment(self, op, mem, idx, mask, extent):
        align = int(op.attr('alignment').split(':')[0]) if op.attr(
            'alignment') else 1
        bytes_ = 4 if mem.elt == 'f32' else 2
        flat = np.ravel_multi_index(
            [np.where(mask, ix, 0) for ix in idx], mem.a.shape,
            mode='clip') * bytes_
        if (mask & (flat % align != 0)).any():
            raise Failure('%s at a byte offset that is not %d-aligned' % (
                op.name, align))

    def land(self, dst, didx, src, sidx, count, src_n, active):
        """Completes one cp.async: `src_n` elements, the rest zeros."""
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
        # 16-byte copies need 16-byte aligned addresses on both sides.
        for mem, idx, side in ((dst, didx, 'destination'),
                               (src, sidx, 'source')):
            flat = np.ravel_multi_index(
                [np.where(reading if side == 'source' else active, ix, 0)
                 for ix in idx], mem.a.shape, mode='clip') * 2
            if ((reading if side == 'source' else active)
                    & (flat % (2 * count) != 0)).any():
                raise Failure('cp.async %s not %d-byte aligned' % (
                    side, 2 * count))
        self.scatter(dst, didx, vals, active, 'cp.async destination')

    def lane_views(self):
        t = np.arange(self.T)
        return t // 32, t % 32

    def ldmatrix(self, op, ins):
        mem = ins[0]
        idx = [i.astype(np.int64) for i in ins[1:]]
        trans = 'transpose = true' in op.text
        tiles = int(op.attr('numTiles').split(':')[0])
        self.check_bounds(mem, idx, np.ones(self.T, bool), 'ldmatrix', 8)
        flat = np.ravel_multi_index(idx, mem.a.shape) * 2
        if (flat % 16 != 0).any():
            raise Failure('ldmatrix row address not 16-byte aligned')
        warp, lane = self.lane_views()
        out = np.zeros((self.T, tiles, 2), dtype=np.float32)
        for i in range(tiles):
            for j in range(2):
                if not trans:
                    src_lane = 8 * i + lane // 4
                    col = (lane % 4) * 2 + j
                else:
                    src_lane = 8 * i + (lane % 4) * 2 + j
                    col = lane // 4
                src = warp * 32 + src_lane
                s = [ix[src] for ix in idx]
                s[-1] = s[-1] + col
                out[:, i, j] = mem.a[tuple(s)]
        return out

    def warp_mma(self, afr, bfr, cfr):
        """afr (T,4,2), bfr (T,2,2), cfr (T,2,2) -> D fragments."""
        warps = self.T // 32
        warp, lane = self.lane_views()
        g, q = lane // 4, lane % 4
        A = np.zeros((warps, 16, 16))
        B = np.zeros((warps, 16, 8))
        C = np.zeros((warps, 16, 8))
        for j in range(2):
            c = 2 * q + j
            A[warp, g, c] = afr[:, 0, j]
            A[warp, g + 8, c] = afr[:, 1, j]
            A[warp, g, c + 8] = afr[:, 2, j]
            A[warp, g + 8, c + 8] = afr[:, 3, j]
            B[warp, c, g] = bfr[:, 0, j]
            B[warp, c + 8, g] = bfr[:, 1, j]
            C[warp, g, c] = cfr[:, 0, j]
            C[warp, g + 8, c] = cfr[:, 1, j]
        D = (np.einsum('wmk,wkn->wmn', A, B) + C).astype(np.float32)
        d = np.zeros((self.T, 2, 2), dtype=np.float32)
        for j in range(2):
            d[:, 0, j] = D[warp, g, 2 * q + j]
            d[:, 1, j] = D[warp, g + 8, 2 * q + j]
        return d

    def mma(self, a, b, c):
        if a.shape[1:] != (4, 2) or b.shape[1:] != (2, 2):
            raise Failure('unexpected mma fragment shapes')
        return self.warp_mma(a, b, c)

    def nvvm_mma(self, op, ins):
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
        args, body = op.regions[0]
        self.args = args
        self.body = body
        sig = re.search(r'function_type = \((.*?)\) -> \(\)', op.text)
        self.types = [parse_type(t) for t in split_types(sig.group(1))]


def emulate(kernel, rng):
    # Parameters: A, B, [C read], C written; with K = 0 no A and B.
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
        if acc == 'in':
            x = rng.integers(-3, 4, size=shape).astype(np.float32)
        else:
            x = np.full(shape, np.nan, dtype=np.float32)
        bufs.append(Memref(round_to(x, elt), elt, 'global'))
    threads = kernel.block[0]
    for bz in range(kernel.grid[2]):
        for by in range(kernel.grid[1]):
            for bx in range(kernel.grid[0]):
                blk = Block(kernel, (bx, by, bz), bufs, kernel.smem, threads)
                blk.run(kernel.body, np.ones(threads, dtype=bool))
    ref = np.zeros(c_t[1])
    if k > 0:
        A = bufs[0].a.astype(np.float64)
        B = bufs[1].a.astype(np.float64)
        if trans:
            B = np.swapaxes(B, -1, -2)
        ref = A @ B
    if accumulate:
        ref = ref + bufs[-2].a
    ref = round_to(ref.astype(np.float32), c_t[2])
    got = bufs[-1].a
    if np.isnan(got).any():
        idx = np.argwhere(np.isnan(got))[0]
        raise Failure('C%s is NaN: never written, or computed from shared '
                      'memory no copy had filled' % [int(i) for i in idx])
    bad = got != ref
    if bad.any():
        idx = np.argwhere(bad)[0]
        raise Failure('C%s = %s, expected %s (%d elements differ)' % (
            [int(i) for i in idx], got[tuple(idx)], ref[tuple(idx)],
            bad.sum()))
    return m, n, k, trans


def main():
    args = sys.argv[1:]
    seed = 0
    if '--seed' in args:
        i = args.index('--seed')
        seed = int(args[i + 1])
        del args[i:i + 2]
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
    rng = np.random.default_rng(seed)
    failed = False
    for kernel in kernels:
        try:
            m, n, k, trans = emulate(kernel, rng)
            print('@%s: OK (M=%d N=%d K=%d%s, grid %s, %d threads)' % (
                kernel.name, m, n, k, ' transpose_b' if trans else '',
                'x'.join(map(str, kernel.grid)), kernel.block[0]))
        except Failure as e:
            print('@%s: FAILED: %s' % (kernel.name, e))
            failed = True
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
