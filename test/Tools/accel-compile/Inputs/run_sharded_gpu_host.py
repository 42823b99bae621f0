"""Runs a sharded GPU host library (accel-compile of a module with a
shard.grid) on every rank at once, as threads of this process, with the
project's fake driver in place of the GPU (each launch runs the kernel
emulator on the buffers the library passed) and the fake NCCL in place of
NCCL/RCCL (an all-reduce among the threads), then gathers the ranks'
results and checks them against the fp64 oracle accel-run wrote for the
unsharded function (--save-outputs: <fn>.0.ref.npy and .bound.npy).

    run_sharded_gpu_host.py inputs AOT_DIR DIR [--seed N]
        writes each function's whole inputs, DIR/<fn>.arg<i>.npy, for
        `accel-run --entry=<fn> --input ... --save-outputs=DIR`.
    run_sharded_gpu_host.py run AOT_DIR KERNELS.mlir DIR FAKE_DRIVER.so
        FAKE_NCCL.so [--target nvptx|amdgpu] [--only FN] [--comm null|small]
        [--python]

KERNELS.mlir holds the partitioned kernels (accel-opt --accel-shard ...
--convert-accel-to-gpu) the emulator runs. --comm null passes no
communicator, --comm small one of a rank fewer than the grid: both must be
refused. With --python each rank calls through accel.aot's GpuLibrary
(`comm=`), its buffers DLPack arrays that say they are on the GPU.
"""

import ctypes
import json
import os
import sys
import threading

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_gpu_host as host  # noqa: E402

emu = host.emu

DTYPES = {'f32': np.float32, 'f16': np.float16, 'f64': np.float64,
          'i8': np.int8, 'i32': np.int32, 'i64': np.int64}


class UniqueId(ctypes.Structure):
    _fields_ = [('internal', ctypes.c_char * 128)]


def grid_index(grid, rank):
    index = [0] * len(grid)
    for d in reversed(range(len(grid))):
        index[d] = rank % grid[d]
        rank //= grid[d]
    return index


def block(spec, grid, rank):
    """The slices of the whole tensor that `rank` holds (its split axes)."""
    index = grid_index(grid, rank)
    slices = []
    for d, size in enumerate(spec['whole_shape']):
        axes = spec['split_axes'][d] if d < len(spec['split_axes']) else []
        part, parts = 0, 1
        for a in axes:
            part = part * grid[a] + index[a]
            parts *= grid[a]
        step = size // parts
        slices.append(slice(part * step, (part + 1) * step))
    return tuple(slices)


def inputs(aot, out, seed):
    program = host.program_of(aot)
    rng = np.random.default_rng(seed)
    for fn in program['functions']:
        for i, a in enumerate(fn['arguments']):
            shape, dtype = a['whole_shape'], DTYPES[a['dtype']]
            if np.issubdtype(dtype, np.integer):
                v = rng.integers(-8, 9, size=shape).astype(dtype)
            else:
                v = rng.uniform(-1, 1, size=shape).astype(dtype)
            np.save(os.path.join(out, '%s.arg%d.npy' % (fn['name'], i)), v)


def run(args, opts):
    aot, kernels_file, folder, fake_path, nccl_path = args
    nvidia = opts['--target'] == 'nvptx'
    prefix = 'fake_cuda' if nvidia else 'fake_hip'
    os.environ['ACCEL_LIBCUDA' if nvidia else 'ACCEL_LIBAMDHIP64'] = \
        os.path.abspath(fake_path)
    os.environ['ACCEL_LIBNCCL'] = os.path.abspath(nccl_path)
    fake = ctypes.CDLL(os.path.abspath(fake_path), mode=ctypes.RTLD_GLOBAL)
    # No NCCL at all: the load must say so (nothing below runs).
    nccl = ctypes.CDLL(os.path.abspath(nccl_path), mode=ctypes.RTLD_GLOBAL) \
        if os.path.exists(nccl_path) else None
    fake_launched = getattr(fake, prefix + '_launched')
    fake_launched.restype = ctypes.c_char_p
    fake_launched.argtypes = [ctypes.c_int]
    fake_count = getattr(fake, prefix + '_count')
    fake_count.argtypes = [ctypes.c_char_p]
    if nccl:
        nccl.fake_nccl_calls.restype = ctypes.c_longlong
        nccl.fake_nccl_bytes.restype = ctypes.c_longlong
        nccl.fake_nccl_splits.restype = ctypes.c_longlong
        nccl.ncclCommInitRank.argtypes = [ctypes.POINTER(ctypes.c_void_p),
                                          ctypes.c_int, UniqueId, ctypes.c_int]

    program = host.program_of(aot)
    module, grid = program['module'], program['grid']
    processes = program['processes']
    errors = []
    callback = host.emulate_launches(fake, prefix, kernels_file, aot, program,
                                     errors)

    lib = ctypes.CDLL(os.path.join(aot, program['library']))
    last_error = lib['accel_%s_last_error' % module]
    last_error.restype = ctypes.c_char_p
    status = lib['accel_%s_load' % module](0)
    print('load: status %d %s' % (status, last_error().decode()), flush=True)
    if status or not nccl:
        sys.exit(1)
    pylib = None
    if opts['--python']:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(
            __file__)), '..', '..', '..', '..', 'python'))
        from accel import aot as accel_aot
        from accel import dlpack
        pylib = accel_aot.load(aot)
        device = (dlpack.CUDA if nvidia else dlpack.ROCM, 0)

        class OnDevice:
            """Host memory that says it is on the GPU (the fake driver's
            device pointers are host pointers)."""

            def __init__(self, typed):
                self.typed = typed

            def __dlpack_device__(self):
                return device

            def __dlpack__(self, stream=None, max_version=None, **kw):
                return self.typed.__dlpack__(max_version=max_version)

    failed = False
    for fn in program['functions']:
        name = fn['name']
        if opts['--only'] and name != opts['--only']:
            continue
        wholes = [np.load(os.path.join(folder, '%s.arg%d.npy' % (name, i)))
                  for i in range(len(fn['arguments']))]
        uid = UniqueId()
        nranks = processes - 1 if opts['--comm'] == 'small' else processes
        nccl.ncclGetUniqueId(ctypes.byref(uid))
        statuses, messages = [None] * nranks, [''] * nranks
        keep = []
        results = [[] for _ in range(nranks)]

        def rank_main(r):
            comm = ctypes.c_void_p()
            if opts['--comm'] != 'null':
                assert nccl.ncclCommInitRank(ctypes.byref(comm), nranks, uid,
                                             r) == 0
            call = [ctypes.c_void_p(0x1000 + r)]
            ws = host.aligned(fn['workspace_bytes'], 0xFF) \
                if fn['workspace_bytes'] else None
            call.append(ctypes.c_void_p(ws.ctypes.data if ws is not None
                                        else None))
            call.append(comm)
            tensors = []
            for i, a in enumerate(fn['arguments']):
                part = np.ascontiguousarray(wholes[i][block(a, grid, r)])
                buf = host.aligned(a['byte_size'], 0)
                buf[:] = part.view(np.uint8).reshape(-1)
                tensors.append((buf, host.tensor(buf, a['shape'])))
            for a in fn['results']:
                # NaN (or 0x7F7F... for integers) until a kernel writes it.
                buf = host.aligned(a['byte_size'], 0xFF
                                   if a['dtype'].startswith('f') else 0x7F)
                tensors.append((buf, host.tensor(buf, a['shape'])))
                results[r].append(buf)
            keep.append((ws, tensors))
            # Twice: the second call reuses the communicator splits of the
            # first; then they are released.
            if pylib is not None:
                specs = fn['arguments'] + fn['results']
                views = [OnDevice(b.view(DTYPES[a['dtype']]).reshape(a['shape']))
                         for (b, _), a in zip(tensors, specs)]
                n = len(fn['arguments'])
                try:
                    for _ in range(2):
                        pylib[name](*views[:n], out=views[n:],
                                    workspace=OnDevice(ws) if ws is not None else None,
                                    stream=0x1000 + r, comm=comm.value)
                    statuses[r] = 0
                except accel_aot.KernelError as e:
                    statuses[r], messages[r] = e.status, pylib.last_error()
                if comm.value:
                    pylib.release_communicator(comm.value)
                return
            call += [ctypes.byref(t) for _, t in tensors]
            for _ in range(2):
                statuses[r] = lib[fn['symbol']](*call)
                if statuses[r]:
                    break
            messages[r] = last_error().decode()
            lib['accel_%s_release_communicator' % module](comm)

        before = (nccl.fake_nccl_calls(), nccl.fake_nccl_bytes(),
                  nccl.fake_nccl_splits())
        launches = fake_count(b'launches')
        threads = [threading.Thread(target=rank_main, args=(r,))
                   for r in range(nranks)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        calls = nccl.fake_nccl_calls() - before[0]
        moved = nccl.fake_nccl_bytes() - before[1]
        splits = nccl.fake_nccl_splits() - before[2]
        ran = sorted(set(fake_launched(i).decode()
                         for i in range(launches, fake_count(b'launches'))))
        predicted = sum(s['byte_size'] for s in fn.get('steps', [])
                        if 'collective' in s)
        # Per rank and call (each rank calls twice).
        print('@%s: status %s%s; launched %s; %d all-reduce calls, %d bytes '
              'a rank and call (the JSON says %d); %d communicator splits a '
              'rank in 2 calls' % (
                  name, ' '.join(map(str, statuses)),
                  ''.join(' (%s)' % m for m in sorted(set(messages)) if m),
                  ', '.join(ran) or 'nothing', calls // nranks // 2,
                  moved // nranks // 2, predicted, splits // nranks))
        if any(statuses) or errors:
            for e in errors:
                print('@%s: FAILED: %s' % (name, e))
            failed = True
            errors.clear()
            continue
        for i, spec in enumerate(fn['results']):
            ref = np.load(os.path.join(folder, '%s.%d.ref.npy' % (name, i)))
            bound = np.load(os.path.join(folder, '%s.%d.bound.npy' % (name, i)))
            dtype = DTYPES[spec['dtype']]
            whole = np.full(ref.shape, np.nan)
            worst, ratio, ok = 0.0, 0.0, True
            for r in range(nranks):
                got = results[r][i].view(dtype).reshape(spec['shape']) \
                    .astype(np.float64)
                where = block(spec, grid, r)
                err = np.abs(got - ref[where])
                ok &= bool(np.all(np.isfinite(got)) and
                           np.all(err <= bound[where]))
                worst = max(worst, float(np.nanmax(err)) if err.size else 0)
                with np.errstate(divide='ignore', invalid='ignore'):
                    q = np.where(bound[where] > 0, err / bound[where],
                                 np.where(err > 0, np.inf, 0))
                ratio = max(ratio, float(np.nanmax(q)) if q.size else 0)
                whole[where] = got
            ok &= bool(np.all(np.isfinite(whole)))
            print('  result #%d %s[%s]: every rank within the gate of the '
                  'unsharded function: max abs err %.2e, err/gate %.3g -> %s'
                  % (i, spec['dtype'], 'x'.join(map(str, ref.shape)), worst,
                     ratio, 'PASS' if ok else 'FAIL'))
            failed |= not ok
    if pylib is not None:
        pylib.unload()
    lib['accel_%s_unload' % module]()
    sys.exit(1 if failed else 0)


def main():
    args = sys.argv[1:]
    opts = {'--target': 'nvptx', '--only': None, '--seed': '1',
            '--comm': 'given'}
    python = '--python' in args
    if python:
        args.remove('--python')
    for flag in list(opts):
        if flag in args:
            i = args.index(flag)
            opts[flag] = args[i + 1]
            del args[i:i + 2]
    if args[:1] == ['inputs'] and len(args) == 3:
        return inputs(args[1], args[2], int(opts['--seed']))
    if args[:1] == ['run'] and len(args) == 6:
        opts['--python'] = python
        return run(args[1:], opts)
    sys.exit(__doc__)


if __name__ == '__main__':
    main()
