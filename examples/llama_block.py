#!/usr/bin/env python3
"""A Llama decoder block in linalg, as torch-mlir emits it.

    python3 examples/llama_block.py small|8b [-o FILE]
    python3 examples/llama_block.py --sizes S DMODEL HQ HKV D FFN NAME

RMSNorm -> Q, K, V projections -> RoPE (half-split: slices, two rotations,
concat) -> heads transposed to [1, H, S, D], K and V repeated to the query
heads (GQA as `repeat_kv` writes it) -> scores (batch_matmul with K
transposed through its maps), scale and additive mask, linalg.softmax,
P V -> heads back, output projection + residual -> RMSNorm -> SwiGLU MLP +
residual. f32, one sequence of S tokens.

Presets: `small` (16 tokens, d_model 64, 4 query heads and 2 KV heads of
16, FFN 128), run and checked by test/Examples/llama-block.test on the CPU
and the GPU kernel emulator; `8b` (Llama 3 8B's layer: 128 tokens, d_model
4096, 32 query heads and 8 KV heads of 128, FFN 14336), compiled for every
target by the same test. The .mlir files next to this script are its
output (the test checks that they are).
"""

import argparse
import sys


def block(S, Dm, Hq, Hkv, D, F, name, dt='f32'):
    Dkv = Hkv * D
    R = Hq // Hkv
    h = D // 2
    t = dt
    L = []
    w = L.append
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
    w('func.func @%s(%%x: tensor<%dx%dx%s>, %%wn1: tensor<%dx%s>, %%wq: tensor<%dx%dx%s>, %%wk: tensor<%dx%dx%s>, %%wv: tensor<%dx%dx%s>, %%cos: tensor<%dx%dx%s>, %%sin: tensor<%dx%dx%s>, %%mask: tensor<%dx%dx%s>, %%wo: tensor<%dx%dx%s>, %%wn2: tensor<%dx%s>, %%wg: tensor<%dx%dx%s>, %%wu: tensor<%dx%dx%s>, %%wd: tensor<%dx%dx%s>) -> tensor<%dx%dx%s> {' % (
        name, S, Dm, t, Dm, t, Dm, Dm, t, Dm, Dkv, t, Dm, Dkv, t, S, h, t, S, h, t, S, S, t, Dm, Dm, t, Dm, t, Dm, F, t, Dm, F, t, F, Dm, t, S, Dm, t))
    w('  %zero = arith.constant 0.0 : f32')
    def rms(x, g, out):
        w('  // RMSNorm(%s) * %s' % (x, g))
        w('  %%%s_e0 = tensor.empty() : tensor<%dxf32>' % (out, S))
        w('  %%%s_z = linalg.fill ins(%%zero : f32) outs(%%%s_e0 : tensor<%dxf32>) -> tensor<%dxf32>' % (out, out, S, S))
        w('  %%%s_ss = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%%%s : tensor<%dx%dx%s>) outs(%%%s_z : tensor<%dxf32>) {' % (out, x, S, Dm, t, out, S))
        w('  ^bb0(%a: f32, %acc: f32):')
        w('    %sq = arith.mulf %a, %a : f32')
        w('    %s = arith.addf %acc, %sq : f32')
        w('    linalg.yield %s : f32')
        w('  } -> tensor<%dxf32>' % S)
        w('  %%%s_e1 = tensor.empty() : tensor<%dx%dx%s>' % (out, S, Dm, t))
        w('  %%%s = linalg.generic {indexing_maps = [#id2, #row2, #col2, #id2], iterator_types = ["parallel", "parallel"]} ins(%%%s, %%%s_ss, %%%s : tensor<%dx%dx%s>, tensor<%dxf32>, tensor<%dx%s>) outs(%%%s_e1 : tensor<%dx%dx%s>) {' % (out, x, out, g, S, Dm, t, S, Dm, t, out, S, Dm, t))
        w('  ^bb0(%a: f32, %s: f32, %g: f32, %o: f32):')
        w('    %%c = arith.constant %d.0 : f32' % Dm)
        w('    %eps = arith.constant 1.0e-5 : f32')
        w('    %mean = arith.divf %s, %c : f32')
        w('    %v = arith.addf %mean, %eps : f32')
        w('    %r = math.rsqrt %v : f32')
        w('    %xr = arith.mulf %a, %r : f32')
        w('    %y = arith.mulf %xr, %g : f32')
        w('    linalg.yield %y : f32')
        w('  } -> tensor<%dx%dx%s>' % (S, Dm, t))
    def mm(a, b, out, M, K, N):
        w('  %%%s_e = tensor.empty() : tensor<%dx%dxf32>' % (out, M, N))
        w('  %%%s_z = linalg.fill ins(%%zero : f32) outs(%%%s_e : tensor<%dx%dxf32>) -> tensor<%dx%dxf32>' % (out, out, M, N, M, N))
        w('  %%%s = linalg.matmul ins(%%%s, %%%s : tensor<%dx%dxf32>, tensor<%dx%dxf32>) outs(%%%s_z : tensor<%dx%dxf32>) -> tensor<%dx%dxf32>' % (out, a, b, M, K, K, N, out, M, N, M, N))
    def rope(x, H, out):
        w('  // RoPE (half-split) of %s: [%d, %d, %d]' % (x, S, H, D))
        w('  %%%s_1 = tensor.extract_slice %%%s[0, 0, 0] [%d, %d, %d] [1, 1, 1] : tensor<%dx%dx%dxf32> to tensor<%dx%dx%dxf32>' % (out, x, S, H, h, S, H, D, S, H, h))
        w('  %%%s_2 = tensor.extract_slice %%%s[0, 0, %d] [%d, %d, %d] [1, 1, 1] : tensor<%dx%dx%dxf32> to tensor<%dx%dx%dxf32>' % (out, x, h, S, H, h, S, H, D, S, H, h))
        w('  %%%s_e = tensor.empty() : tensor<%dx%dx%dxf32>' % (out, S, H, h))
        for part, body in (('a', ['%ac = arith.mulf %a, %c : f32', '%bs = arith.mulf %b, %s : f32', '%r = arith.subf %ac, %bs : f32']),
                           ('b', ['%bc = arith.mulf %b, %c : f32', '%as = arith.mulf %a, %s : f32', '%r = arith.addf %bc, %as : f32'])):
            w('  %%%s_%s = linalg.generic {indexing_maps = [#id3, #id3, #sd3, #sd3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%%%s_1, %%%s_2, %%cos, %%sin : tensor<%dx%dx%dxf32>, tensor<%dx%dx%dxf32>, tensor<%dx%dxf32>, tensor<%dx%dxf32>) outs(%%%s_e : tensor<%dx%dx%dxf32>) {' % (out, part, out, out, S, H, h, S, H, h, S, h, S, h, out, S, H, h))
            w('  ^bb0(%a: f32, %b: f32, %c: f32, %s: f32, %o: f32):')
            for l in body:
                w('    ' + l)
            w('    linalg.yield %r : f32')
            w('  } -> tensor<%dx%dx%dxf32>' % (S, H, h))
        w('  %%%s = tensor.concat dim(2) %%%s_a, %%%s_b : (tensor<%dx%dx%dxf32>, tensor<%dx%dx%dxf32>) -> tensor<%dx%dx%dxf32>' % (out, out, out, S, H, h, S, H, h, S, H, D))
    rms('x', 'wn1', 'h1')
    mm('h1', 'wq', 'qp', S, Dm, Dm)
    mm('h1', 'wk', 'kp', S, Dm, Dkv)
    mm('h1', 'wv', 'vp', S, Dm, Dkv)
    w('  %%q3 = tensor.expand_shape %%qp [[0], [1, 2]] output_shape [%d, %d, %d] : tensor<%dx%dxf32> into tensor<%dx%dx%dxf32>' % (S, Hq, D, S, Dm, S, Hq, D))
    w('  %%k3 = tensor.expand_shape %%kp [[0], [1, 2]] output_shape [%d, %d, %d] : tensor<%dx%dxf32> into tensor<%dx%dx%dxf32>' % (S, Hkv, D, S, Dkv, S, Hkv, D))
    w('  %%v3 = tensor.expand_shape %%vp [[0], [1, 2]] output_shape [%d, %d, %d] : tensor<%dx%dxf32> into tensor<%dx%dx%dxf32>' % (S, Hkv, D, S, Dkv, S, Hkv, D))
    rope('q3', Hq, 'qr')
    rope('k3', Hkv, 'kr')
    # [S, H, D] -> [1, H, S, D]
    def heads(x, H, out):
        w('  %%%s_e = tensor.empty() : tensor<%dx%dx%dxf32>' % (out, H, S, D))
        w('  %%%s_t = linalg.transpose ins(%%%s : tensor<%dx%dx%dxf32>) outs(%%%s_e : tensor<%dx%dx%dxf32>) permutation = [1, 0, 2]' % (out, x, S, H, D, out, H, S, D))
        w('  %%%s = tensor.expand_shape %%%s_t [[0, 1], [2], [3]] output_shape [1, %d, %d, %d] : tensor<%dx%dx%dxf32> into tensor<1x%dx%dx%dxf32>' % (out, out, H, S, D, H, S, D, H, S, D))
    heads('qr', Hq, 'qh')
    heads('kr', Hkv, 'kh')
    heads('v3', Hkv, 'vh')
    # repeat_kv: [1, Hkv, S, D] -> [1, Hq, S, D]
    for src, out in (('kh', 'kx'), ('vh', 'vx')):
        w('  %%%s_e = tensor.empty() : tensor<1x%dx%dx%dxf32>' % (out, Hq, S, D))
        w('  %%%s = linalg.generic {indexing_maps = [#rep4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%%%s : tensor<1x%dx%dx%dxf32>) outs(%%%s_e : tensor<1x%dx%dx%dxf32>) {' % (out, src, Hkv, S, D, out, Hq, S, D))
        w('  ^bb0(%a: f32, %o: f32):')
        w('    linalg.yield %a : f32')
        w('  } -> tensor<1x%dx%dx%dxf32>' % (Hq, S, D))
    # attention: [Hq, S, D] batch_matmul chain
    w('  %%qb = tensor.collapse_shape %%qh [[0, 1], [2], [3]] : tensor<1x%dx%dx%dxf32> into tensor<%dx%dx%dxf32>' % (Hq, S, D, Hq, S, D))
    w('  %%kb = tensor.collapse_shape %%kx [[0, 1], [2], [3]] : tensor<1x%dx%dx%dxf32> into tensor<%dx%dx%dxf32>' % (Hq, S, D, Hq, S, D))
    w('  %%vb = tensor.collapse_shape %%vx [[0, 1], [2], [3]] : tensor<1x%dx%dx%dxf32> into tensor<%dx%dx%dxf32>' % (Hq, S, D, Hq, S, D))
    w('  %%s_e = tensor.empty() : tensor<%dx%dx%dxf32>' % (Hq, S, S))
    w('  %%s_z = linalg.fill ins(%%zero : f32) outs(%%s_e : tensor<%dx%dx%dxf32>) -> tensor<%dx%dx%dxf32>' % (Hq, S, S, Hq, S, S))
    w('  %%sc = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>] ins(%%qb, %%kb : tensor<%dx%dx%dxf32>, tensor<%dx%dx%dxf32>) outs(%%s_z : tensor<%dx%dx%dxf32>) -> tensor<%dx%dx%dxf32>' % (Hq, S, D, Hq, S, D, Hq, S, S, Hq, S, S))
    w('  %%sm_e = tensor.empty() : tensor<%dx%dx%dxf32>' % (Hq, S, S))
    w('  %%sm = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%%sc, %%mask : tensor<%dx%dx%dxf32>, tensor<%dx%dxf32>) outs(%%sm_e : tensor<%dx%dx%dxf32>) {' % (Hq, S, S, S, S, Hq, S, S))
    w('  ^bb0(%a: f32, %m: f32, %o: f32):')
    w('    %%scale = arith.constant %.9e : f32' % (1.0 / D ** 0.5))
    w('    %s = arith.mulf %a, %scale : f32')
    w('    %r = arith.addf %s, %m : f32')
    w('    linalg.yield %r : f32')
    w('  } -> tensor<%dx%dx%dxf32>' % (Hq, S, S))
    w('  %%p_e = tensor.empty() : tensor<%dx%dx%dxf32>' % (Hq, S, S))
    w('  %%probs = linalg.softmax dimension(2) ins(%%sm : tensor<%dx%dx%dxf32>) outs(%%p_e : tensor<%dx%dx%dxf32>) -> tensor<%dx%dx%dxf32>' % (Hq, S, S, Hq, S, S, Hq, S, S))
    w('  %%a_e = tensor.empty() : tensor<%dx%dx%dxf32>' % (Hq, S, D))
    w('  %%a_z = linalg.fill ins(%%zero : f32) outs(%%a_e : tensor<%dx%dx%dxf32>) -> tensor<%dx%dx%dxf32>' % (Hq, S, D, Hq, S, D))
    w('  %%att = linalg.batch_matmul ins(%%probs, %%vb : tensor<%dx%dx%dxf32>, tensor<%dx%dx%dxf32>) outs(%%a_z : tensor<%dx%dx%dxf32>) -> tensor<%dx%dx%dxf32>' % (Hq, S, S, Hq, S, D, Hq, S, D, Hq, S, D))
    # back to [S, Hq*D]
    w('  %%at_e = tensor.empty() : tensor<%dx%dx%dxf32>' % (S, Hq, D))
    w('  %%at = linalg.transpose ins(%%att : tensor<%dx%dx%dxf32>) outs(%%at_e : tensor<%dx%dx%dxf32>) permutation = [1, 0, 2]' % (Hq, S, D, S, Hq, D))
    w('  %%ao = tensor.collapse_shape %%at [[0], [1, 2]] : tensor<%dx%dx%dxf32> into tensor<%dx%dxf32>' % (S, Hq, D, S, Dm))
    mm('ao', 'wo', 'op', S, Dm, Dm)
    w('  %%r1_e = tensor.empty() : tensor<%dx%dxf32>' % (S, Dm))
    w('  %%r1 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%%op, %%x : tensor<%dx%dxf32>, tensor<%dx%dxf32>) outs(%%r1_e : tensor<%dx%dxf32>) {' % (S, Dm, S, Dm, S, Dm))
    w('  ^bb0(%a: f32, %b: f32, %o: f32):')
    w('    %s = arith.addf %a, %b : f32')
    w('    linalg.yield %s : f32')
    w('  } -> tensor<%dx%dxf32>' % (S, Dm))
    rms('r1', 'wn2', 'h2')
    mm('h2', 'wg', 'gate', S, Dm, F)
    mm('h2', 'wu', 'up', S, Dm, F)
    w('  %%sw_e = tensor.empty() : tensor<%dx%dxf32>' % (S, F))
    w('  %%sw = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%%gate, %%up : tensor<%dx%dxf32>, tensor<%dx%dxf32>) outs(%%sw_e : tensor<%dx%dxf32>) {' % (S, F, S, F, S, F))
    w('  ^bb0(%a: f32, %b: f32, %o: f32):')
    w('    %one = arith.constant 1.0 : f32')
    w('    %n = arith.negf %a : f32')
    w('    %ex = math.exp %n : f32')
    w('    %d = arith.addf %ex, %one : f32')
    w('    %s = arith.divf %a, %d : f32')
    w('    %y = arith.mulf %s, %b : f32')
    w('    linalg.yield %y : f32')
    w('  } -> tensor<%dx%dxf32>' % (S, F))
    mm('sw', 'wd', 'dn', S, F, Dm)
    w('  %%y_e = tensor.empty() : tensor<%dx%dxf32>' % (S, Dm))
    w('  %%out = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%%dn, %%r1 : tensor<%dx%dxf32>, tensor<%dx%dxf32>) outs(%%y_e : tensor<%dx%dxf32>) {' % (S, Dm, S, Dm, S, Dm))
    w('  ^bb0(%a: f32, %b: f32, %o: f32):')
    w('    %s = arith.addf %a, %b : f32')
    w('    linalg.yield %s : f32')
    w('  } -> tensor<%dx%dxf32>' % (S, Dm))
    w('  return %%out : tensor<%dx%dxf32>' % (S, Dm))
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
    text = ('// Generated by examples/llama_block.py %s; do not edit.\n' %
            (args.preset or '--sizes ' + ' '.join(args.sizes))) + \
        block(S, Dm, Hq, Hkv, D, F, name)
    if args.output:
        with open(args.output, 'w') as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == '__main__':
    main()
