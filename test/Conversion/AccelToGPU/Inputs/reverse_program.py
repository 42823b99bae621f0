#!/usr/bin/env python3
# Part of the accel project, under the Apache License v2.0 with LLVM
# Exceptions.
"""Reverses the launch order of one recorded program (a function of several
kernels) in an accel-run --record folder, so that a test can show a replay
failing when kernels run before the ones whose results they read.

usage: reverse_program.py RECORD_DIR FUNCTION"""
import json
import os
import sys


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    folder, name = argv[1], argv[2]
    path = os.path.join(folder, 'manifest.json')
    with open(path) as f:
        manifest = json.load(f)
    for fn in manifest['functions']:
        if fn['name'] == name and 'kernels' in fn:
            fn['kernels'].reverse()
            break
    else:
        sys.exit('reverse_program.py: no program @%s in %s' % (name, path))
    with open(path, 'w') as f:
        json.dump(manifest, f, indent=2)


if __name__ == '__main__':
    main(sys.argv)
