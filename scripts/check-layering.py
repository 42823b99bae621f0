#!/usr/bin/env python3
"""Checks the link graph of accel's libraries against docs/architecture.md.

    scripts/check-layering.py BUILD/accel-library-deps.txt [docs/architecture.md]

The graph is the file the CMake configuration writes (one line per library
of lib/: `Library: Dep Dep ...`, the accel libraries it links). The rules are
the "Layers" table of docs/architecture.md (`| library | layer | may link |`).
Fails, naming each fault, when a library links one the table does not allow,
when a library of the build is missing from the table, or when the table
names a library the build does not have.
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read_rules(path):
    rules = {}
    in_table = False
    for line in open(path):
        if line.startswith("| library | layer | may link |"):
            in_table = True
            continue
        if in_table:
            if not line.startswith("|"):
                break
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) != 3 or set(cells[0]) <= {"-"}:
                continue
            lib = cells[0].strip("`")
            allowed = set(re.findall(r"`([^`]+)`", cells[2]))
            rules[lib] = allowed
    return rules


def read_graph(path):
    graph = {}
    for line in open(path):
        if ":" not in line:
            continue
        lib, deps = line.split(":", 1)
        graph[lib.strip()] = set(deps.split())
    return graph


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.strip().splitlines()[2].strip())
    graph = read_graph(sys.argv[1])
    doc = sys.argv[2] if len(sys.argv) == 3 else os.path.join(
        ROOT, "docs", "architecture.md")
    rules = read_rules(doc)
    if not rules:
        sys.exit(f"check-layering: no layer table in {doc}")
    faults = []
    for lib in sorted(graph):
        if lib not in rules:
            faults.append(f"{lib} is a library of the build but not in the "
                          f"layer table of {os.path.basename(doc)}")
            continue
        for dep in sorted(graph[lib] - rules[lib]):
            faults.append(f"{lib} links {dep}, which its layer may not "
                          f"(may link: {', '.join(sorted(rules[lib])) or 'none'})")
    for lib in sorted(set(rules) - set(graph)):
        faults.append(f"{lib} is in the layer table but not a library of the "
                      "build")
    for f in faults:
        print(f"check-layering: error: {f}")
    if faults:
        return 1
    print(f"check-layering: {len(graph)} libraries, "
          f"{sum(len(d) for d in graph.values())} links, all allowed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
