"""small-stack.py BYTES CMD... runs CMD with its stack limited to BYTES (the
soft RLIMIT_STACK, which sizes the main thread's stack at exec) and exits
with CMD's exit code (a signal gives 128 + its number); CMD's output passes
through. The reference (anchors-reliability.md, row 3) asks for deep-nesting
tests with the default 8 MiB stack and with 1 MiB."""

import resource
import subprocess
import sys

limit = int(sys.argv[1])


def lower_stack_limit():
    _, hard = resource.getrlimit(resource.RLIMIT_STACK)
    if hard != resource.RLIM_INFINITY:
        limit_here = min(limit, hard)
    else:
        limit_here = limit
    resource.setrlimit(resource.RLIMIT_STACK, (limit_here, hard))


code = subprocess.call(sys.argv[2:], preexec_fn=lower_stack_limit)
sys.exit(128 - code if code < 0 else code)
