"""check-workarounds.py SRC_ROOT checks include/accel/Support/
UpstreamWorkarounds.def, the table of MLIR 22 bugs the tools guard against:
every row's sentinel test exists, is XFAIL and runs upstream mlir-opt; every
row's guard is declared in a header under include/accel/Support and called
from lib/Support/ToolInput.cpp (the one front door); and every XFAIL
sentinel under test/Fuzz that runs upstream mlir-opt has a row. Prints one
line per row, or the first problem and exits 1."""

import os
import re
import sys

root = sys.argv[1]
table = open(os.path.join(root, "include/accel/Support/UpstreamWorkarounds.def")).read()
rows = re.findall(r'^ACCEL_UPSTREAM_WORKAROUND\(\s*(\w+),\s*"(\w+)",\s*"([^"]+)"', table, re.M)
if not rows:
    sys.exit("check-workarounds.py: no rows in UpstreamWorkarounds.def")
support = os.path.join(root, "include/accel/Support")
headers = "".join(open(os.path.join(support, f)).read()
                  for f in os.listdir(support) if f.endswith(".h"))
door = open(os.path.join(root, "lib/Support/ToolInput.cpp")).read()
lib = "".join(open(os.path.join(root, "lib/Support", f)).read()
              for f in os.listdir(os.path.join(root, "lib/Support")) if f.endswith(".cpp"))
problems = []
for name, guard, sentinel in rows:
    path = os.path.join(root, sentinel)
    if not os.path.exists(path):
        problems.append(f"{name}: sentinel {sentinel} does not exist")
        continue
    text = open(path).read()
    if not re.search(r"^// XFAIL: \*$", text, re.M):
        problems.append(f"{name}: sentinel {sentinel} is not XFAIL")
    if not re.search(r"^// RUN: .*\bmlir-opt\b", text, re.M):
        problems.append(f"{name}: sentinel {sentinel} does not run upstream mlir-opt")
    if not re.search(r"\b" + guard + r"\s*\(", headers):
        problems.append(f"{name}: guard {guard} is declared in no header of include/accel/Support")
    # The guard runs from the front door, directly or through a check it calls.
    if not re.search(r"\b" + guard + r"\s*\(", door + lib):
        problems.append(f"{name}: guard {guard} is called nowhere in lib/Support")
    print(f"{name}: {guard} <- {sentinel}")
listed = {s for _, _, s in rows}
fuzz = os.path.join(root, "test/Fuzz")
for f in sorted(os.listdir(fuzz)):
    rel = f"test/Fuzz/{f}"
    full = os.path.join(fuzz, f)
    if not os.path.isfile(full):
        continue
    text = open(full, errors="replace").read()
    if re.search(r"^// XFAIL: \*$", text, re.M) and re.search(
            r"^// RUN: .*\bmlir-opt\b", text, re.M) and rel not in listed:
        problems.append(f"{rel} is an XFAIL sentinel with no row in UpstreamWorkarounds.def")
if problems:
    sys.exit("check-workarounds.py: " + problems[0])
