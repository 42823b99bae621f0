"""stop-compile.py [--ignored] SIGNAL OUT -- CMD... starts CMD (an
accel-compile that writes into OUT under --max-compile-seconds), waits until
its child has made the staging folder in OUT, sends SIGNAL (TERM, INT or
HUP) to accel-compile itself and checks what the budget promises
(compile-budget.test): it exits 128 + the signal, the child it compiled in
is gone, and OUT is gone (it did not exist before). Prints "stopped" when
all hold. CMD starts with SIGNAL at its default disposition (a shell that
starts jobs in the background ignores SIGINT), or, with --ignored, ignored
(as `nohup` does for SIGHUP): then the compile must go on after SIGNAL, and
SIGTERM stops it."""

import os
import signal
import subprocess
import sys
import time

args = sys.argv[1:]
ignored = args[0] == "--ignored"
if ignored:
    args = args[1:]
sig = getattr(signal, "SIG" + args[0])
out = args[1]
cmd = args[3:]


def children(pid):
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:  # the parent pid
            found.append(int(entry))
    return found


proc = subprocess.Popen(
    cmd, preexec_fn=lambda: signal.signal(sig, signal.SIG_IGN if ignored else signal.SIG_DFL))
deadline = time.time() + 60
while time.time() < deadline:
    if os.path.isdir(out) and any(n.startswith(".accel-compile-") for n in os.listdir(out)):
        break
    if proc.poll() is not None:
        sys.exit(f"stop-compile.py: {cmd[0]} ended early with {proc.returncode}")
    time.sleep(0.05)
else:
    proc.kill()
    sys.exit("stop-compile.py: no staging folder appeared")
kids = children(proc.pid)
if not kids:
    sys.exit("stop-compile.py: accel-compile has no child to compile in")
proc.send_signal(sig)
if ignored:
    try:
        code = proc.wait(timeout=1)
        sys.exit(f"stop-compile.py: an ignored signal ended {cmd[0]} ({code})")
    except subprocess.TimeoutExpired:
        pass
    sig = signal.SIGTERM
    proc.send_signal(sig)
code = proc.wait(timeout=60)
if code != 128 + sig:
    sys.exit(f"stop-compile.py: exit code {code}, expected {128 + sig}")
for kid in kids:
    try:
        os.kill(kid, 0)
        sys.exit(f"stop-compile.py: the child {kid} is still there")
    except ProcessLookupError:
        pass
if os.path.exists(out):
    sys.exit(f"stop-compile.py: {out} is still there: {os.listdir(out)}")
print("stopped")
