#!/usr/bin/env python3
"""A Llama decoder block in linalg, as torch-mlir emits it.

    python3 examples/llama_block.py small|8b [--dtype f32|bf16] [-o FILE]
    python3 examples/llama_block.py --sizes S DMODEL HQ HKV D FFN NAME [--dtype ...]

RMSNorm -> Q, K, V projections -> RoPE (half-split: slices, two rotations,
concat) -> heads transposed to [1, H, S, D], K and V repeated to the query
heads (GQA as `repeat_kv` writes it) -> scores (batch_matmul with K
transposed through its maps), scale and additive mask, linalg.softmax,
P V -> heads back, output projection + residual -> RMSNorm -> SwiGLU MLP +
residual. One sequence of S tokens, f32 or (--dtype bf16) bf16 as
torch-mlir lowers a bf16 model: matmuls accumulate in zero-filled f32
tensors and a generic rounds them to bf16, the norms and SiLU upcast to
f32 (the norms round before the weight multiply, as Hugging Face's
LlamaRMSNorm), RoPE, the residual adds and the gate product stay in bf16,
and the attention is written in its half-precision form (bf16 scores and
softmax), which accel-fuse-attention fuses into a bf16 accel.attention
that keeps the scores in f32. A preset's function gets a `_bf16` suffix.

Presets: `small` (16 tokens, d_model 64, 4 query heads and 2 KV heads of
16, FFN 128), run and checked by test/Examples/llama-block.test on the CPU
and the GPU kernel emulator; `8b` (Llama 3 8B's layer: 128 tokens, d_model
4096, 32 query heads and 8 KV heads of 128, FFN 14336), compiled for every
target by the same test. The .mlir files next to this script are its
output (the test checks that they are).
"""

import argparse
import sys


def block(S, Dm, Hq, Hkv, D, F, name, dt='f32', weights='nk'):
    """The block's MLIR text. `dt` is the activations' and weights' type:
    'f32', or 'bf16' spelled as torch-mlir lowers a bf16 model (each matmul
    accumulates in a zero-filled f32 tensor and a generic rounds it to bf16;
    the norms upcast to f32 and round before the weight multiply, as
    Hugging Face's LlamaRMSNorm; RoPE, the residual adds and the gate
    product in bf16; SiLU in f32). The attention is written in its
    half-precision form (scores, scale, mask and softmax in bf16), which
    accel-fuse-attention fuses into a bf16 accel.attention that keeps the
    scores in f32. `weights` is the projections' layout: 'nk' (default)
    as nn.Linear stores them, [out features, in features], each transposed
    by a linalg.transpose into the matmul (torch-mlir's aten.linear), or
    'kn', [in, out], multiplied directly."""
    if weights not in ('nk', 'kn'):
        raise ValueError('weights must be nk or kn')
    nk = weights == 'nk'
    Dkv = Hkv * D
    R = Hq // Hkv
    h = D // 2
    bf = dt == 'bf16'
    if dt not in ('f32', 'bf16'):
        raise ValueError('dt must be f32 or bf16')
    L = []

    def w(s):
        # '§' stands for the activation type; 'f32' is an accumulator's.
        L.append(s.replace('§', dt))
    w('#id2 = affine_map<(i, j) -> (i, j)>')
    w('#row2 = affine_map<(i, j) -> (i)>')
    w('#col2 = affine_map<(i, j) -> (j)>')
    w('#id3 = affine_map<(s, h, d) -> (s, h, d)>')
    w('#sd3 = affine_map<(s, h, d) -> (s, d)>')
    w('#id4 = affine_map<(b, h, s, d) -> (b, h, s, d)>')
    w('#rep4 = affine_map<(b, h, s, d) -> (b, h floordiv %d, s, d)>' % R)
    w('')
    w('// A Llama decoder block: x [%d tokens, d_model %d], %d query heads and %d' % (S, Dm, Hq, Hkv))
    w('// key/value heads of %d, FFN %d. mask is the additive attention mask' % (D, F))
    w('// (callers pass the causal one: 0 on and below the diagonal, -inf above).')
    def wt(k, n):
        # A projection weight's shape: [n, k] as nn.Linear stores it.
        return (n, k) if nk else (k, n)
    w('func.func @%s(%%x: tensor<%dx%dx§>, %%wn1: tensor<%dx§>, %%wq: tensor<%dx%dx§>, %%wk: tensor<%dx%dx§>, %%wv: tensor<%dx%dx§>, %%cos: tensor<%dx%dx§>, %%sin: tensor<%dx%dx§>, %%mask: tensor<%dx%dx§>, %%wo: tensor<%dx%dx§>, %%wn2: tensor<%dx§>, %%wg: tensor<%dx%dx§>, %%wu: tensor<%dx%dx§>, %%wd: tensor<%dx%dx§>) -> tensor<%dx%dx§> {' % (
        (name, S, Dm, Dm) + wt(Dm, Dm) + wt(Dm, Dkv) + wt(Dm, Dkv) +
        (S, h, S, h, S, S) + wt(Dm, Dm) + (Dm,) + wt(Dm, F) + wt(Dm, F) +
        wt(F, Dm) + (S, Dm)))
    w('  %zero = arith.constant 0.0 : f32')
    if bf:
        w('  %zerob = arith.constant 0.0 : bf16')
    zt = '%zerob' if bf else '%zero'

    def ext(v):
        # `v` (a block argument of the activation type) as f32.
        if not bf:
            return v
        w('    %sf = arith.extf %s : bf16 to f32' % (v, v))
        return v + 'f'

    def round_mul(v, g, tmp):
        # y = v * g with v an f32 value: in bf16, v is rounded first and
        # the product is a bf16 one (torch's `.to(bf16) * weight`).
        if bf:
            w('    %%%s = arith.truncf %s : f32 to bf16' % (tmp, v))
            w('    %%y = arith.mulf %%%s, %s : bf16' % (tmp, g))
        else:
            w('    %%y = arith.mulf %s, %s : f32' % (v, g))
        w('    linalg.yield %y : §')

    def rms(x, g, out):
        w('  // RMSNorm(%s) * %s' % (x, g))
        w('  %%%s_e0 = tensor.empty() : tensor<%dxf32>' % (out, S))
        w('  %%%s_z = linalg.fill ins(%%zero : f32) outs(%%%s_e0 : tensor<%dxf32>) -> tensor<%dxf32>' % (out, out, S, S))
        w('  %%%s_ss = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%%%s : tensor<%dx%dx§>) outs(%%%s_z : tensor<%dxf32>) {' % (out, x, S, Dm, out, S))
        w('  ^bb0(%a: §, %acc: f32):')
        a = ext('%a')
        w('    %%sq = arith.mulf %s, %s : f32' % (a, a))
        w('    %s = arith.addf %acc, %sq : f32')
        w('    linalg.yield %s : f32')
        w('  } -> tensor<%dxf32>' % S)
        w('  %%%s_e1 = tensor.empty() : tensor<%dx%dx§>' % (out, S, Dm))
        w('  %%%s = linalg.generic {indexing_maps = [#id2, #row2, #col2, #id2], iterator_types = ["parallel", "parallel"]} ins(%%%s, %%%s_ss, %%%s : tensor<%dx%dx§>, tensor<%dxf32>, tensor<%dx§>) outs(%%%s_e1 : tensor<%dx%dx§>) {' % (out, x, out, g, S, Dm, S, Dm, out, S, Dm))
        w('  ^bb0(%a: §, %s: f32, %g: §, %o: §):')
        w('    %%c = arith.constant %d.0 : f32' % Dm)
        w('    %eps = arith.constant 1.0e-5 : f32')
        w('    %mean = arith.divf %s, %c : f32')
        w('    %v = arith.addf %mean, %eps : f32')
        w('    %r = math.rsqrt %v : f32')
        a = ext('%a')
        w('    %%xr = arith.mulf %s, %%r : f32' % a)
        round_mul('%xr', '%g', 'xt')
        w('  } -> tensor<%dx%dx§>' % (S, Dm))

    def mm(a, b, out, M, K, N):
        acc = out + '_f' if bf else out
        if nk:
            # torch-mlir's aten.linear: the [N, K] weight transposed.
            w('  %%%s_te = tensor.empty() : tensor<%dx%dx§>' % (b, K, N))
            w('  %%%s_t = linalg.transpose ins(%%%s : tensor<%dx%dx§>) outs(%%%s_te : tensor<%dx%dx§>) permutation = [1, 0]' % (b, b, N, K, b, K, N))
            b += '_t'
        w('  %%%s_e = tensor.empty() : tensor<%dx%dxf32>' % (out, M, N))
        w('  %%%s_z = linalg.fill ins(%%zero : f32) outs(%%%s_e : tensor<%dx%dxf32>) -> tensor<%dx%dxf32>' % (out, out, M, N, M, N))
        w('  %%%s = linalg.matmul ins(%%%s, %%%s : tensor<%dx%dx§>, tensor<%dx%dx§>) outs(%%%s_z : tensor<%dx%dxf32>) -> tensor<%dx%dxf32>' % (acc, a, b, M, K, K, N, out, M, N, M, N))
        if bf:
            w('  %%%s_c = tensor.empty() : tensor<%dx%dxbf16>' % (out, M, N))
            w('  %%%s = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%%%s : tensor<%dx%dxf32>) outs(%%%s_c : tensor<%dx%dxbf16>) {' % (out, acc, M, N, out, M, N))
            w('  ^bb0(%a: f32, %o: bf16):')
            w('    %t = arith.truncf %a : f32 to bf16')
            w('    linalg.yield %t : bf16')
            w('  } -> tensor<%dx%dxbf16>' % (M, N))

    def rope(x, H, out):
        w('  // RoPE (half-split) of %s: [%d, %d, %d]' % (x, S, H, D))
        w('  %%%s_1 = tensor.extract_slice %%%s[0, 0, 0] [%d, %d, %d] [1, 1, 1] : tensor<%dx%dx%dx§> to tensor<%dx%dx%dx§>' % (out, x, S, H, h, S, H, D, S, H, h))
        w('  %%%s_2 = tensor.extract_slice %%%s[0, 0, %d] [%d, %d, %d] [1, 1, 1] : tensor<%dx%dx%dx§> to tensor<%dx%dx%dx§>' % (out, x, h, S, H, h, S, H, D, S, H, h))
        w('  %%%s_e = tensor.empty() : tensor<%dx%dx%dx§>' % (out, S, H, h))
        for part, body in (('a', ['%ac = arith.mulf %a, %c : §', '%bs = arith.mulf %b, %s : §', '%r = arith.subf %ac, %bs : §']),
                           ('b', ['%bc = arith.mulf %b, %c : §', '%as = arith.mulf %a, %s : §', '%r = arith.addf %bc, %as : §'])):
            w('  %%%s_%s = linalg.generic {indexing_maps = [#id3, #id3, #sd3, #sd3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%%%s_1, %%%s_2, %%cos, %%sin : tensor<%dx%dx%dx§>, tensor<%dx%dx%dx§>, tensor<%dx%dx§>, tensor<%dx%dx§>) outs(%%%s_e : tensor<%dx%dx%dx§>) {' % (out, part, out, out, S, H, h, S, H, h, S, h, S, h, out, S, H, h))
            w('  ^bb0(%a: §, %b: §, %c: §, %s: §, %o: §):')
            for l in body:
                w('    ' + l)
            w('    linalg.yield %r : §')
            w('  } -> tensor<%dx%dx%dx§>' % (S, H, h))
        w('  %%%s = tensor.concat dim(2) %%%s_a, %%%s_b : (tensor<%dx%dx%dx§>, tensor<%dx%dx%dx§>) -> tensor<%dx%dx%dx§>' % (out, out, out, S, H, h, S, H, h, S, H, D))
    rms('x', 'wn1', 'h1')
    mm('h1', 'wq', 'qp', S, Dm, Dm)
    mm('h1', 'wk', 'kp', S, Dm, Dkv)
    mm('h1', 'wv', 'vp', S, Dm, Dkv)
    w('  %%q3 = tensor.expand_shape %%qp [[0], [1, 2]] output_shape [%d, %d, %d] : tensor<%dx%dx§> into tensor<%dx%dx%dx§>' % (S, Hq, D, S, Dm, S, Hq, D))
    w('  %%k3 = tensor.expand_shape %%kp [[0], [1, 2]] output_shape [%d, %d, %d] : tensor<%dx%dx§> into tensor<%dx%dx%dx§>' % (S, Hkv, D, S, Dkv, S, Hkv, D))
    w('  %%v3 = tensor.expand_shape %%vp [[0], [1, 2]] output_shape [%d, %d, %d] : tensor<%dx%dx§> into tensor<%dx%dx%dx§>' % (S, Hkv, D, S, Dkv, S, Hkv, D))
    rope('q3', Hq, 'qr')
    rope('k3', Hkv, 'kr')
    # [S, H, D] -> [1, H, S, D]
    def heads(x, H, out):
        w('  %%%s_e = tensor.empty() : tensor<%dx%dx%dx§>' % (out, H, S, D))
        w('  %%%s_t = linalg.transpose ins(%%%s : tensor<%dx%dx%dx§>) outs(%%%s_e : tensor<%dx%dx%dx§>) permutation = [1, 0, 2]' % (out, x, S, H, D, out, H, S, D))
        w('  %%%s = tensor.expand_shape %%%s_t [[0, 1], [2], [3]] output_shape [1, %d, %d, %d] : tensor<%dx%dx%dx§> into tensor<1x%dx%dx%dx§>' % (out, out, H, S, D, H, S, D, H, S, D))
    heads('qr', Hq, 'qh')
    heads('kr', Hkv, 'kh')
    heads('v3', Hkv, 'vh')
    # repeat_kv: [1, Hkv, S, D] -> [1, Hq, S, D]
    for src, out in (('kh', 'kx'), ('vh', 'vx')):
        w('  %%%s_e = tensor.empty() : tensor<1x%dx%dx%dx§>' % (out, Hq, S, D))
        w('  %%%s = linalg.generic {indexing_maps = [#rep4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%%%s : tensor<1x%dx%dx%dx§>) outs(%%%s_e : tensor<1x%dx%dx%dx§>) {' % (out, src, Hkv, S, D, out, Hq, S, D))
        w('  ^bb0(%a: §, %o: §):')
        w('    linalg.yield %a : §')
        w('  } -> tensor<1x%dx%dx%dx§>' % (Hq, S, D))
    # attention: [Hq, S, D] batch_matmul chain
    w('  %%qb = tensor.collapse_shape %%qh [[0, 1], [2], [3]] : tensor<1x%dx%dx%dx§> into tensor<%dx%dx%dx§>' % (Hq, S, D, Hq, S, D))
    w('  %%kb = tensor.collapse_shape %%kx [[0, 1], [2], [3]] : tensor<1x%dx%dx%dx§> into tensor<%dx%dx%dx§>' % (Hq, S, D, Hq, S, D))
    w('  %%vb = tensor.collapse_shape %%vx [[0, 1], [2], [3]] : tensor<1x%dx%dx%dx§> into tensor<%dx%dx%dx§>' % (Hq, S, D, Hq, S, D))
    w('  %%s_e = tensor.empty() : tensor<%dx%dx%dx§>' % (Hq, S, S))
    w('  %%s_z = linalg.fill ins(%s : §) outs(%%s_e : tensor<%dx%dx%dx§>) -> tensor<%dx%dx%dx§>' % (zt, Hq, S, S, Hq, S, S))
    w('  %%sc = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>] ins(%%qb, %%kb : tensor<%dx%dx%dx§>, tensor<%dx%dx%dx§>) outs(%%s_z : tensor<%dx%dx%dx§>) -> tensor<%dx%dx%dx§>' % (Hq, S, D, Hq, S, D, Hq, S, S, Hq, S, S))
    w('  %%sm_e = tensor.empty() : tensor<%dx%dx%dx§>' % (Hq, S, S))
    w('  %%sm = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%%sc, %%mask : tensor<%dx%dx%dx§>, tensor<%dx%dx§>) outs(%%sm_e : tensor<%dx%dx%dx§>) {' % (Hq, S, S, S, S, Hq, S, S))
    w('  ^bb0(%a: §, %m: §, %o: §):')
    w('    %%scale = arith.constant %.9e : §' % (1.0 / D ** 0.5))
    w('    %s = arith.mulf %a, %scale : §')
    w('    %r = arith.addf %s, %m : §')
    w('    linalg.yield %r : §')
    w('  } -> tensor<%dx%dx%dx§>' % (Hq, S, S))
    w('  %%p_e = tensor.empty() : tensor<%dx%dx%dx§>' % (Hq, S, S))
    w('  %%probs = linalg.softmax dimension(2) ins(%%sm : tensor<%dx%dx%dx§>) outs(%%p_e : tensor<%dx%dx%dx§>) -> tensor<%dx%dx%dx§>' % (Hq, S, S, Hq, S, S, Hq, S, S))
    w('  %%a_e = tensor.empty() : tensor<%dx%dx%dx§>' % (Hq, S, D))
    w('  %%a_z = linalg.fill ins(%s : §) outs(%%a_e : tensor<%dx%dx%dx§>) -> tensor<%dx%dx%dx§>' % (zt, Hq, S, D, Hq, S, D))
    w('  %%att = linalg.batch_matmul ins(%%probs, %%vb : tensor<%dx%dx%dx§>, tensor<%dx%dx%dx§>) outs(%%a_z : tensor<%dx%dx%dx§>) -> tensor<%dx%dx%dx§>' % (Hq, S, S, Hq, S, D, Hq, S, D, Hq, S, D))
    # back to [S, Hq*D]
    w('  %%at_e = tensor.empty() : tensor<%dx%dx%dx§>' % (S, Hq, D))
    w('  %%at = linalg.transpose ins(%%att : tensor<%dx%dx%dx§>) outs(%%at_e : tensor<%dx%dx%dx§>) permutation = [1, 0, 2]' % (Hq, S, D, S, Hq, D))
    w('  %%ao = tensor.collapse_shape %%at [[0], [1, 2]] : tensor<%dx%dx%dx§> into tensor<%dx%dx§>' % (S, Hq, D, S, Dm))
    mm('ao', 'wo', 'op', S, Dm, Dm)

    def residual(a, b, out, empty=None):
        empty = empty or out + '_e'
        w('  %%%s = tensor.empty() : tensor<%dx%dx§>' % (empty, S, Dm))
        w('  %%%s = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%%%s, %%%s : tensor<%dx%dx§>, tensor<%dx%dx§>) outs(%%%s : tensor<%dx%dx§>) {' % (out, a, b, S, Dm, S, Dm, empty, S, Dm))
        w('  ^bb0(%a: §, %b: §, %o: §):')
        w('    %s = arith.addf %a, %b : §')
        w('    linalg.yield %s : §')
        w('  } -> tensor<%dx%dx§>' % (S, Dm))
    residual('op', 'x', 'r1')
    rms('r1', 'wn2', 'h2')
    mm('h2', 'wg', 'gate', S, Dm, F)
    mm('h2', 'wu', 'up', S, Dm, F)
    w('  %%sw_e = tensor.empty() : tensor<%dx%dx§>' % (S, F))
    w('  %%sw = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%%gate, %%up : tensor<%dx%dx§>, tensor<%dx%dx§>) outs(%%sw_e : tensor<%dx%dx§>) {' % (S, F, S, F, S, F))
    w('  ^bb0(%a: §, %b: §, %o: §):')
    w('    %one = arith.constant 1.0 : f32')
    a = ext('%a')
    w('    %%n = arith.negf %s : f32' % a)
    w('    %ex = math.exp %n : f32')
    w('    %d = arith.addf %ex, %one : f32')
    w('    %%s = arith.divf %s, %%d : f32' % a)
    round_mul('%s', '%b', 'st')
    w('  } -> tensor<%dx%dx§>' % (S, F))
    mm('sw', 'wd', 'dn', S, F, Dm)
    residual('dn', 'r1', 'out', 'y_e')
    w('  return %%out : tensor<%dx%dx§>' % (S, Dm))
    w('}')
    return '\n'.join(L) + '\n'


PRESETS = {
    'small': (16, 64, 4, 2, 16, 128, 'llama_block_small'),
    '8b': (128, 4096, 32, 8, 128, 14336, 'llama_block_8b'),
}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('preset', nargs='?', choices=sorted(PRESETS))
    p.add_argument('--sizes', nargs=7, metavar=('S', 'DMODEL', 'HQ', 'HKV',
                                                 'D', 'FFN', 'NAME'))
    p.add_argument('--dtype', choices=('f32', 'bf16'), default='f32',
                   help='activations and weights (default f32)')
    p.add_argument('--weights', choices=('nk', 'kn'), default='nk',
                   help="projection weights as nn.Linear stores them, "
                   "[out, in], transposed into each matmul as torch-mlir "
                   "emits aten.linear (nk, the default), or [in, out] (kn)")
    p.add_argument('-o', '--output')
    args = p.parse_args()
    if args.sizes:
        sizes = tuple(int(v) for v in args.sizes[:6]) + (args.sizes[6],)
    elif args.preset:
        sizes = PRESETS[args.preset]
    else:
        p.error('give a preset or --sizes')
    S, Dm, Hq, Hkv, D, F, name = sizes
    if Dm != Hq * D or Hq % Hkv or D % 2:
        p.error('d_model must be HQ * D, HQ a multiple of HKV, D even')
    how = args.preset or '--sizes ' + ' '.join(args.sizes)
    if args.dtype != 'f32':
        how += ' --dtype ' + args.dtype
        name += '_' + args.dtype if args.preset else ''
    if args.weights != 'nk':
        how += ' --weights ' + args.weights
    text = ('// Generated by examples/llama_block.py %s; do not edit.\n' % how) + \
        block(S, Dm, Hq, Hkv, D, F, name, args.dtype, args.weights)
    if args.output:
        with open(args.output, 'w') as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == '__main__':
    main()
