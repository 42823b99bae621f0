"""Runs the GPU host library accel-compile wrote (lib<module>.so) on a
recorded run of accel-run, with the project's fake driver in place of the
real one and the kernel emulator in place of the GPU, and writes what the
kernels left in memory into the record for `accel-run --replay` to check
against the fp64 oracle.

    run_gpu_host.py AOT_DIR KERNELS.mlir RECORD FAKE_DRIVER.so
        [--target nvptx|amdgpu] [--stream N] [--only FN] [--python]

The host library opens the fake driver (ACCEL_LIBCUDA / ACCEL_LIBAMDHIP64)
and launches each function's kernels on the buffers it was given; the fake
driver calls back here at each launch with the kernel's parameters (device
pointers: host memory here), and the kernel runs on the emulator
(emulate_kernels.py, from the gpu.func in KERNELS.mlir) on that memory. So
what the replay checks is what the host function did: which kernels it
launched, in which order, on which buffers and workspace offsets.

With --python the library is loaded and called through accel.aot (its
GpuLibrary), each buffer passed as a DLPack array that says it lives on
the GPU (cuda:0 / rocm:0; host memory here, as the fake driver wants), so
the Python path is checked by the same replay.
"""

import ctypes
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', '..', '..', 'Conversion', 'AccelToGPU',
                                'Inputs'))
import emulate_kernels as emu  # noqa: E402

MAX_RANK = 8


class Tensor(ctypes.Structure):
    _fields_ = [('data', ctypes.c_void_p), ('rank', ctypes.c_int64),
                ('sizes', ctypes.c_int64 * MAX_RANK),
                ('strides', ctypes.c_int64 * MAX_RANK)]


def aligned(nbytes, fill, align=256):
    """A byte array of `nbytes` whose data is aligned to `align`."""
    raw = np.full(nbytes + align, fill, dtype=np.uint8)
    off = (-raw.ctypes.data) % align
    return raw[off:off + nbytes]


def tensor(array, shape):
    t = Tensor()
    t.data = array.ctypes.data
    t.rank = len(shape)
    stride = 1
    for d in reversed(range(len(shape))):
        t.sizes[d] = shape[d]
        t.strides[d] = stride
        stride *= shape[d]
    return t


def program_of(aot):
    """<module>.json: the one JSON file of the folder that names a
    library."""
    for f in sorted(os.listdir(aot)):
        if f.endswith('.json'):
            with open(os.path.join(aot, f)) as fh:
                d = json.load(fh)
            if 'library' in d and 'functions' in d:
                return d
    sys.exit('%s: no host library JSON in %s' % (
        os.path.basename(sys.argv[0]), aot))


def emulate_launches(fake, prefix, kernels_file, aot, program, errors):
    """Makes each launch of the fake driver (`prefix`: fake_cuda, fake_hip)
    run its kernel, from the gpu.func in KERNELS.mlir, on the emulator over
    the memory the launch passed, and write back what the kernel writes.
    Failures go to `errors`. Returns the callback, which must be kept."""
    fake_function = getattr(fake, prefix + '_function')
    fake_function.restype = ctypes.c_char_p
    lines = open(kernels_file).read().splitlines()
    ops, _ = emu.parse_ops(lines, 0, lambda s: False)
    by_name = {}

    def walk(ops):
        for op in ops:
            if op.name == 'gpu.func' and 'accel.launch' in op.text:
                k = emu.Kernel(op)
                by_name[k.name] = k
            for _, body in op.regions:
                walk(body)
    walk(ops)
    metas = {}
    for fn in program['functions']:
        for k in fn['kernels']:
            with open(os.path.join(aot, k['metadata'])) as f:
                metas[k['kernel']] = json.load(f)

    def on_launch(params, user):
        name = fake_function().decode()
        try:
            kernel = by_name[name]
            meta = metas[name]
            bufs = []
            for i, (arg, shape, elt) in enumerate(
                    emu.checked_arguments(kernel, meta, race_check=True)):
                addr = ctypes.cast(params[i],
                                   ctypes.POINTER(ctypes.c_uint64))[0]
                raw = ctypes.string_at(addr, arg['byte_size'])
                bufs.append((addr, arg, emu.Memref(
                    emu.decode_buffer(raw, elt, shape), elt, 'global')))
            emu.run_grid(kernel, [b for _, _, b in bufs])
            for addr, arg, b in bufs:
                if arg['access'] != 'in':
                    out = emu.encode_buffer(b.a, b.elt)
                    ctypes.memmove(addr, out, len(out))
        except Exception as e:  # reported after the call
            errors.append('%s: %s' % (name, e))

    callback = ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_void_p),
                                ctypes.c_void_p)(on_launch)
    getattr(fake, prefix + '_set_kernel')(callback, None)
    return callback


def main():
    args = sys.argv[1:]
    opts = {'--target': 'nvptx', '--stream': '0', '--only': None}
    for flag in list(opts):
        if flag in args:
            i = args.index(flag)
            opts[flag] = args[i + 1]
            del args[i:i + 2]
    python = '--python' in args
    if python:
        args.remove('--python')
    if len(args) != 4:
        sys.exit(__doc__)
    aot, kernels_file, record, fake_path = args
    nvidia = opts['--target'] == 'nvptx'
    prefix = 'fake_cuda' if nvidia else 'fake_hip'
    os.environ['ACCEL_LIBCUDA' if nvidia else 'ACCEL_LIBAMDHIP64'] = \
        os.path.abspath(fake_path)
    # The same file the host library opens: one instance, one state.
    fake = ctypes.CDLL(os.path.abspath(fake_path), mode=ctypes.RTLD_GLOBAL)
    fake_function = getattr(fake, prefix + '_function')
    fake_function.restype = ctypes.c_char_p
    fake_launched = getattr(fake, prefix + '_launched')
    fake_launched.restype = ctypes.c_char_p
    fake_launched.argtypes = [ctypes.c_int]
    fake_stream = getattr(fake, prefix + '_stream')
    fake_stream.restype = ctypes.c_void_p
    fake_count = getattr(fake, prefix + '_count')
    fake_count.argtypes = [ctypes.c_char_p]

    # <module>.json: the one JSON file of the folder that names a library.
    program = program_of(aot)
    module = program['module']
    errors = []
    callback = emulate_launches(fake, prefix, kernels_file, aot, program,
                                errors)

    lib = ctypes.CDLL(os.path.join(aot, program['library']))
    info = lib['accel_%s_info' % module]
    info.restype = ctypes.c_char_p
    last_error = lib['accel_%s_last_error' % module]
    last_error.restype = ctypes.c_char_p
    if lib['accel_%s_abi_version' % module]() != program['abi_version'] or \
            info().decode() != program['info']:
        sys.exit('run_gpu_host.py: the library is not the one its JSON '
                 'describes')
    if python:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(
            __file__)), '..', '..', '..', '..', 'python'))
        from accel import aot as accel_aot
        from accel import dlpack
        device = (dlpack.CUDA if nvidia else dlpack.ROCM, 0)
        try:
            pylib = accel_aot.load(aot)
        except RuntimeError as e:
            print('load: %s' % e)
            sys.exit(1)
        print('load: %r' % pylib)

        class OnDevice:
            """A DLPack producer over host memory that says it is on the
            GPU (the fake driver's device pointers are host pointers)."""

            def __init__(self, typed):
                self.typed = typed

            def __dlpack_device__(self):
                return device

            def __dlpack__(self, stream=None, max_version=None, **kw):
                assert stream == (int(opts['--stream']) or (1 if nvidia else 0)), stream
                return self.typed.__dlpack__(max_version=max_version)

        import ml_dtypes
        dtypes = {'f32': np.float32, 'f16': np.float16, 'bf16': ml_dtypes.bfloat16,
                  'i8': np.int8, 'i32': np.int32}
    else:
        status = lib['accel_%s_load' % module](0)
        print('load: status %d %s' % (status, last_error().decode()))
        if status:
            sys.exit(1)

    with open(os.path.join(record, 'manifest.json')) as f:
        manifest = json.load(f)
    recorded = {fn['name']: fn for fn in manifest['functions']}
    stream = int(opts['--stream'])
    failed = False
    for fn in program['functions']:
        name = fn['name']
        if opts['--only'] and name != opts['--only']:
            continue
        rec = recorded[name]
        # The record's buffers by the kernels' names (argN, resultN, tmpN)
        # and the files they are in.
        if 'kernels' in rec:
            files = dict(rec['buffers'])
        else:
            with open(os.path.join(record, rec['metadata'])) as f:
                meta = json.load(f)
            files = {a['name']: rec['buffers'][i]
                     for i, a in enumerate(meta['arguments'])}
        args, results = [], []
        for i, a in enumerate(fn['arguments']):
            with open(os.path.join(record, files['arg%d' % i]), 'rb') as f:
                data = f.read()
            buf = aligned(a['byte_size'], 0)
            buf[:] = np.frombuffer(data, np.uint8)
            args.append((buf, tensor(buf, a['shape'])))
        for r in fn['results']:
            buf = aligned(r['byte_size'], 0xFF)
            results.append((buf, tensor(buf, r['shape'])))
        ws = aligned(fn['workspace_bytes'], 0xFF) \
            if fn['workspace_bytes'] else None
        launches = fake_count(b'launches')
        if python:
            def on_device(buf, spec):
                return OnDevice(buf.view(dtypes[spec['dtype']]).reshape(spec['shape']))
            ins = [on_device(b, a) for (b, _), a in zip(args, fn['arguments'])]
            outs = [on_device(b, r) for (b, _), r in zip(results, fn['results'])]
            space = None
            if ws is not None:
                space = OnDevice(ws)
            try:
                pylib[name](*ins, out=outs, workspace=space, stream=stream or None)
                status = 0
            except accel_aot.KernelError as e:
                status = e.status
                print('@%s: %s' % (name, e))
        else:
            call = [ctypes.c_void_p(stream),
                    ctypes.c_void_p(ws.ctypes.data if ws is not None else None)]
            call += [ctypes.byref(t) for _, t in args]
            call += [ctypes.byref(t) for _, t in results]
            status = lib[fn['symbol']](*call)
        ran = [fake_launched(i).decode()
               for i in range(launches, fake_count(b'launches'))]
        print('@%s: status %d%s; launched %s on stream %#x' % (
            name, status, (' (%s)' % last_error().decode()) if status else '',
            ', '.join(ran) or 'nothing', fake_stream() or 0))
        if status or errors:
            for e in errors:
                print('@%s: FAILED: %s' % (name, e))
            failed = True
            errors.clear()
            continue
        # What the replay reads: each buffer some kernel wrote, as
        # <fn>.<name>.result.bin (a program) or <fn>.b<N>.result.bin.
        def bytes_of(buffer):
            if buffer.startswith('result'):
                return results[int(buffer[6:])][0].tobytes()
            t = next(t for t in fn['temporaries'] if t['name'] == buffer)
            return ws[t['offset']:t['offset'] + t['byte_size']].tobytes()
        if 'kernels' in rec:
            written = set()
            for k in rec['kernels']:
                with open(os.path.join(record, k)) as f:
                    for a in json.load(f)['arguments']:
                        if a['access'] != 'in':
                            written.add(a['name'])
            for buffer in sorted(written):
                with open(os.path.join(record, '%s.%s.result.bin' % (
                        name, buffer)), 'wb') as f:
                    f.write(bytes_of(buffer))
        else:
            for i, a in enumerate(meta['arguments']):
                if a['access'] != 'in':
                    with open(os.path.join(record, '%s.b%d.result.bin' % (
                            name, i)), 'wb') as f:
                        f.write(bytes_of(a['name']))
    if python:
        pylib.unload()
    else:
        lib['accel_%s_unload' % module]()
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
