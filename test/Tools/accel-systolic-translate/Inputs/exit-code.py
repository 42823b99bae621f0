"""exit-code.py CODE CMD... runs CMD (its output passes through) and
succeeds only if CMD exits with CODE: lit's `not` accepts any failure, the
tools promise exit code 1 on every error."""

import subprocess
import sys

code = subprocess.call(sys.argv[2:])
if code != int(sys.argv[1]):
    sys.stderr.write(f"exit-code.py: exit code {code}, expected {sys.argv[1]}\n")
    sys.exit(1)
