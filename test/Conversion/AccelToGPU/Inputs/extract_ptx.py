#!/usr/bin/env python3
# Part of the accel project, under the Apache License v2.0 with LLVM
# Exceptions.
"""Prints the PTX that gpu-module-to-binary{format=isa} embedded in a module.

usage: extract_ptx.py FILE [BINARY_NAME]

Each `gpu.binary @name [#gpu.object<#nvvm.target<...>, "...PTX...">]` holds
the PTX as an MLIR string literal (with \\XX escapes). Without BINARY_NAME
every binary's PTX is printed, each after a `// gpu.binary @name` line; with
it only that binary's. Exits 1 when there is none.
"""
import re
import sys

BINARY = re.compile(r'gpu\.binary\s+@([\w$.]+)\s*\[(.*?)\]\s*$', re.S | re.M)
OBJECT = re.compile(
    r'#gpu\.object<#nvvm\.target<[^>]*>'
    r'(?:\s*,\s*properties\s*=\s*\{[^}]*\})?\s*,\s*(?:assembly\s*=\s*)?'
    r'"((?:[^"\\]|\\.)*)"', re.S)


def unescape(s):
    return re.sub(
        r'\\([0-9A-Fa-f]{2}|\\|")',
        lambda m: m.group(1) if m.group(1) in ('\\', '"')
        else chr(int(m.group(1), 16)), s)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    text = open(sys.argv[1]).read()
    want = sys.argv[2] if len(sys.argv) == 3 else None
    found = 0
    for m in BINARY.finditer(text):
        if want and m.group(1) != want:
            continue
        for obj in OBJECT.finditer(m.group(2)):
            found += 1
            if not want:
                sys.stdout.write("// gpu.binary @%s\n" % m.group(1))
            sys.stdout.write(unescape(obj.group(1)))
    if not found:
        sys.exit("extract_ptx.py: no PTX %sin %s" %
                 ("of @%s " % want if want else "", sys.argv[1]))


if __name__ == "__main__":
    main()
