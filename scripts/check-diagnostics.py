#!/usr/bin/env python3
"""Lists every diagnostic our C++ emits and the test that covers it.

A diagnostic is an emitError / emitOpError / emitWarning / emitRemark call
(or accel-run's fail()) followed by string literals; the first 30 characters
of its first literal fragment (adjacent literals joined, up to a formatv
placeholder) are searched for in test/, python/tests/ and unittests/. Messages that
cannot be provoked from outside are listed, with the reason, in
scripts/diagnostics-allowlist.txt. Exits 1 when a message has no test.

    scripts/check-diagnostics.py [--verbose]
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = ["lib", "tools"]
TESTS = ["test", "python/tests", "unittests"]
CALL = re.compile(r"\b(emitOpError|emitError|emitWarning|emitRemark|fail)\s*\(")
LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')


def statement_after(text, pos):
    """The text from `pos` to the end of the statement (a ';' at depth 0)."""
    depth = 0
    i = pos
    while i < len(text):
        c = text[i]
        if c == '"':
            j = i + 1
            while j < len(text) and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            i = j
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == ";" and depth <= 0:
            return text[pos:i]
        i += 1
    return text[pos:]


def first_fragment(stmt):
    """The first run of adjacent string literals, joined."""
    parts = []
    last_end = None
    for m in LITERAL.finditer(stmt):
        if last_end is not None and stmt[last_end:m.start()].strip():
            break
        parts.append(m.group(1))
        last_end = m.end()
    return "".join(parts).replace('\\"', '"').replace("\\n", "").strip()


def main():
    verbose = "--verbose" in sys.argv
    corpus = []
    for d in TESTS:
        for dirpath, _, files in os.walk(os.path.join(ROOT, d)):
            for f in files:
                # GoogleTest files count too: the simulator's faults are
                # checked there with their exact messages.
                if f.endswith((".mlir", ".py", ".test")) or (
                        d == "unittests" and f.endswith(".cpp")):
                    with open(os.path.join(dirpath, f), errors="replace") as fh:
                        corpus.append((os.path.relpath(os.path.join(dirpath, f), ROOT), fh.read()))
    allowed = set()
    with open(os.path.join(ROOT, "scripts", "diagnostics-allowlist.txt")) as fh:
        for line in fh:
            line = line.split("#", 1)[0].strip()
            if line:
                allowed.add(line)
    uncovered = 0
    total = 0
    for d in SOURCES:
        for dirpath, _, files in os.walk(os.path.join(ROOT, d)):
            for f in sorted(files):
                if not f.endswith(".cpp"):
                    continue
                path = os.path.join(dirpath, f)
                text = open(path).read()
                for m in CALL.finditer(text):
                    stmt = statement_after(text, m.end())
                    frag = first_fragment(stmt)
                    # Fragments too short to identify a message (", got ")
                    # belong to messages identified by their other parts.
                    if len(frag) < 12:
                        continue
                    total += 1
                    line = text.count("\n", 0, m.start()) + 1
                    where = f"{os.path.relpath(path, ROOT)}:{line}"
                    # formatv placeholders are filled in at run time.
                    key = frag.split("{", 1)[0][:30].strip()
                    if len(key) < 10:
                        continue
                    if key in allowed:
                        continue
                    hit = next((name for name, body in corpus if key in body), None)
                    if hit is None:
                        uncovered += 1
                        print(f"UNCOVERED {where}: \"{frag}\"")
                    elif verbose:
                        print(f"covered   {where}: \"{key}\" -> {hit}")
    print(f"check-diagnostics: {total - uncovered} of {total} diagnostics have a test")
    return 1 if uncovered else 0


if __name__ == "__main__":
    sys.exit(main())
