"""Breaks a generated GPU host source on purpose: swaps the first two
kernel launches of the entry point accel_<FN>, so that the second kernel
runs before the first one wrote what it reads.

    swap_launches.py HOST.c FN
"""
import re
import sys

path, fn = sys.argv[1:]
text = open(path).read()
start = text.index('int accel_%s(' % fn)
end = text.index('\n}\n', start)
body = text[start:end]
launch = re.compile(r'  if \(status == ACCEL_OK\) \{\n.*?\n  \}\n', re.S)
blocks = launch.findall(body)
if len(blocks) < 2:
    sys.exit('swap_launches.py: accel_%s launches fewer than two kernels' % fn)
first, second = blocks[0], blocks[1]
body = body.replace(first + second, second + first, 1)
open(path, 'w').write(text[:start] + body + text[end:])
