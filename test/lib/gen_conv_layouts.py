"""Writes test/E2E/conv-layouts-force.mlir (no argument) or
test/GPU/emulate-conv-layouts.mlir (argument `emulate`: f16 entries only)
from CONV_LINALG in e2e_cases.py, so that the programs and the cases that
check them cannot drift apart:
    python3 test/lib/gen_conv_layouts.py > test/E2E/conv-layouts-force.mlir
    python3 test/lib/gen_conv_layouts.py emulate > test/GPU/emulate-conv-layouts.mlir
"""
import sys
sys.path.insert(0, __import__('os').path.dirname(__file__))
import numpy as np
import e2e_cases as E
PAR = '"parallel"'
lines = ['''// linalg convolutions in every layout stc-sparsify-convolutions supports
// (NHWC/FHWC with a tensor.pad in front, NHWC/HWCF with stride and
// dilation, NCHW/FCHW with a per-channel bias and ReLU after the conv,
// grouped NGCHW/FGCHW, ragged C = 3, a 1x1), with the filter a function
// argument, under --sparsity=force: the filter is pruned 2:4 along the
// input channels at run time and the convolution becomes stc.conv (the pad
// folded into stc.conv, the bias and ReLU fused: checked on the IR), run on
// the CPU (test/E2E/conv-layouts-force.mlir) or, f16 only, on the GPU
// kernels through the emulator (test/GPU/emulate-conv-layouts.mlir), against
// a float64
// NumPy convolution of the pruned filter in NHWC (CONV_LINALG in
// test/lib/e2e_cases.py converts layouts itself). Written by
// test/lib/gen_conv_layouts.py from CONV_LINALG; do not edit by hand.
// The bias add and the ReLU are separate linalg.generic ops, as frontends
// emit them.
// REQUIRES: numpy
// RUN: stc-compile %s --sparsity=force --emit=stc -o - | FileCheck %s --implicit-check-not=linalg.conv''']
EMU = sys.argv[1:] == ['emulate']
ENTRIES = {e: v for e, v in E.CONV_LINALG.items() if not EMU or v[0] == 'f16'}
for e in ENTRIES:
    lines.append(f'// RUN: %e2e --mlir %s --case convl_{e}' + ('_emulate' if EMU else ''))
def T(shape, dt): return 'tensor<' + 'x'.join(map(str, shape)) + 'x' + dt + '>'
for e, (dt, layout, xs, ws, stride, dil, pad, groups, bias_relu) in ENTRIES.items():
    (pt, pb), (pl, pr) = pad
    geometry = dict(stride=stride, dilation=dil, pad_low=(pt, pl), pad_high=(pb, pr), groups=groups)
    ys = E._from_nhwc(layout, E.stc_ref.conv2d_nhwc_ref(E._to_nhwc(layout, np.zeros(xs)), E._to_fhwc(layout, np.zeros(ws)), **geometry), groups).shape
    F = E._to_fhwc(layout, np.zeros(ws)).shape[0]
    args = [f'%x: {T(xs, dt)}', f'%w: {T(ws, dt)}'] + ([f'%b: {T((F,), dt)}'] if bias_relu else [])
    lines += ['', f'// CHECK-LABEL: func.func @{e}']
    chk = '// CHECK: stc.conv'
    if bias_relu: chk += ' {{.*}}bias({{.*}}activation = #stc.activation<relu>'
    lines.append(chk)
    if pt or pb or pl or pr:
        lines.append(f'// CHECK-SAME: pad_high = array<i64: {pb}, {pr}>, pad_low = array<i64: {pt}, {pl}>')
    lines.append(f'func.func @{e}({", ".join(args)}) -> {T(ys, dt)} {{')
    lines.append(f'  %zero = arith.constant 0.0 : {dt}')
    src, xt = '%x', T(xs, dt)
    if pt or pb or pl or pr:
        rank = len(xs)
        hd, wd = (rank - 2, rank - 1) if 'chw' in layout.split('_')[0] else (1, 2)
        low = [0] * rank; high = [0] * rank
        low[hd], low[wd], high[hd], high[wd] = pt, pl, pb, pr
        ps = list(xs); ps[hd] += pt + pb; ps[wd] += pl + pr
        idx = ', '.join(f'%i{k}: index' for k in range(rank))
        lines += [f'  %xp = tensor.pad %x low[{", ".join(map(str, low))}] high[{", ".join(map(str, high))}] {{',
                  f'  ^bb0({idx}):', f'    tensor.yield %zero : {dt}', f'  }} : {T(xs, dt)} to {T(ps, dt)}']
        src, xt = '%xp', T(ps, dt)
    lines += [f'  %e = tensor.empty() : {T(ys, dt)}',
              f'  %z = linalg.fill ins(%zero : {dt}) outs(%e : {T(ys, dt)}) -> {T(ys, dt)}',
              f'  %c = linalg.conv_2d_{layout} {{dilations = dense<{dil}> : tensor<2xi64>, strides = dense<{stride}> : tensor<2xi64>}}',
              f'      ins({src}, %w : {xt}, {T(ws, dt)}) outs(%z : {T(ys, dt)}) -> {T(ys, dt)}']
    res = '%c'
    if bias_relu:
        rank = len(ys)
        cd = 1 if layout.startswith('nchw') else 3
        dims = ', '.join(f'd{k}' for k in range(rank))
        its = ', '.join([PAR] * rank)
        lines += [f'  %y = linalg.generic {{indexing_maps = [affine_map<({dims}) -> ({dims})>, affine_map<({dims}) -> (d{cd})>, affine_map<({dims}) -> ({dims})>],',
                  f'      iterator_types = [{its}]}}',
                  f'      ins(%c, %b : {T(ys, dt)}, {T((F,), dt)}) outs(%e : {T(ys, dt)}) {{',
                  f'  ^bb0(%a: {dt}, %bb: {dt}, %o: {dt}):',
                  f'    %s = arith.addf %a, %bb : {dt}',
                  f'    linalg.yield %s : {dt}',
                  f'  }} -> {T(ys, dt)}',
                  f'  %relu = linalg.generic {{indexing_maps = [affine_map<({dims}) -> ({dims})>, affine_map<({dims}) -> ({dims})>],',
                  f'      iterator_types = [{its}]}}',
                  f'      ins(%y : {T(ys, dt)}) outs(%e : {T(ys, dt)}) {{',
                  f'  ^bb0(%a: {dt}, %o: {dt}):',
                  f'    %r = arith.maximumf %a, %zero : {dt}',
                  f'    linalg.yield %r : {dt}',
                  f'  }} -> {T(ys, dt)}']
        res = '%relu'
    lines += [f'  return {res} : {T(ys, dt)}', '}']
print('\n'.join(lines))
