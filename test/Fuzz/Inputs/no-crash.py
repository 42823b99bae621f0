"""no-crash.py CMD... runs CMD with the default 8 MiB stack (the soft
RLIMIT_STACK, whatever the caller's) and succeeds unless a signal killed it:
an error exit is fine, a crash is not. What the XFAIL sentinels of
include/accel/Support/UpstreamWorkarounds.def run upstream mlir-opt
through (lit's `not` would fail on the crash but also on success, and a
fixed mlir-opt may well exit 0 or 1)."""

import resource
import subprocess
import sys

STACK = 8 << 20


def default_stack():
    _, hard = resource.getrlimit(resource.RLIMIT_STACK)
    soft = STACK if hard == resource.RLIM_INFINITY else min(STACK, hard)
    resource.setrlimit(resource.RLIMIT_STACK, (soft, hard))


code = subprocess.call(sys.argv[1:], preexec_fn=default_stack,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
if code < 0:
    sys.stderr.write(f"no-crash.py: {sys.argv[1]} was killed by signal {-code}\n")
    sys.exit(1)
