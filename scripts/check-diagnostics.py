#!/usr/bin/env python3
"""Lists every diagnostic our C++ emits and the test that checks it.

A diagnostic is an emitError / emitOpError / emitWarning / emitRemark call
(or accel-run's fail()) followed by string literals; its key is the first 30
characters of its first literal fragment (adjacent literals joined, up to a
formatv placeholder). A diagnostic counts as covered only where a test
checks that key, not where it merely appears (a comment, a RUN line, an
input). The places that check:

  .mlir / .test   a FileCheck directive (CHECK, a --check-prefix(es) name or
                  any name ending in CHECK, with -NEXT/-SAME/-DAG/-LABEL/
                  -EMPTY/-COUNT-n; never -NOT, which asserts absence), and
                  the text inside {{ }} of expected-error/-warning/-remark/
                  -note annotations (-verify-diagnostics);
  .py             a `match=` argument (pytest.raises), and the left side of
                  an `in` comparison inside an assert or against `str(...)`;
  unittests .cpp  the string literals of an EXPECT_* / ASSERT_* statement,
                  and of the string constants such a statement names.

Messages that cannot be provoked from outside are listed, with the reason, in
scripts/diagnostics-allowlist.txt. Prints covered / allowlisted / uncovered
counts and exits 1 when a message has no test.

    scripts/check-diagnostics.py [--verbose] [--root DIR]

--root checks another tree laid out like this one (lib/, tools/, test/,
python/tests/, unittests/, scripts/diagnostics-allowlist.txt); the lit test
test/Scripts/check-diagnostics.test uses it on a fixture.
"""
import ast
import os
import re
import sys

SOURCES = ["lib", "tools"]
TESTS = ["test", "python/tests", "unittests"]
CALL = re.compile(r"\b(emitOpError|emitError|emitWarning|emitRemark|fail)\s*\(")
LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')

# FileCheck: `// PREFIX:`, `# PREFIX-NEXT:`, `PREFIX-DAG:` ... at the start
# of a line (after a comment marker, if any: .test files need none).
DIRECTIVE = re.compile(
    r"^\s*(?://|#|;)?\s*([A-Za-z][A-Za-z0-9_-]*?)"
    r"(-NEXT|-SAME|-DAG|-LABEL|-EMPTY|-NOT|-COUNT-[0-9]+)?:(.*)$")
PREFIX_OPTION = re.compile(r"-?-check-prefix(?:es)?[= ]([A-Za-z0-9_,-]+)")
# lit's own keywords, which look like directives.
LIT_KEYWORDS = {"RUN", "REQUIRES", "UNSUPPORTED", "XFAIL", "END", "ALLOW_RETRIES",
                "DEFINE", "REDEFINE"}
EXPECTED = re.compile(
    r"expected-(?:error|warning|remark|note)(?:-re)?\s*(?:@\S+)?\s*(?:\d+\s*)?\{\{(.*)\}\}")
GTEST = re.compile(r"\b(?:EXPECT|ASSERT)_[A-Z_]+\s*\(")
CPP_STRING_CONST = re.compile(
    r"\b([A-Za-z_]\w*)\s*(?:\[\s*\])?\s*=\s*((?:\"(?:[^\"\\]|\\.)*\"\s*)+)[;,)]")


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


def unescape(s):
    return s.replace('\\"', '"').replace("\\n", "")


def first_fragment(stmt):
    """The first run of adjacent string literals, joined."""
    parts = []
    last_end = None
    for m in LITERAL.finditer(stmt):
        if last_end is not None and stmt[last_end:m.start()].strip():
            break
        parts.append(m.group(1))
        last_end = m.end()
    return unescape("".join(parts)).strip()


def literal_runs(stmt):
    """Every run of adjacent string literals in `stmt`, each joined."""
    runs, parts, last_end = [], [], None
    for m in LITERAL.finditer(stmt):
        if last_end is not None and stmt[last_end:m.start()].strip():
            runs.append(unescape("".join(parts)))
            parts = []
        parts.append(m.group(1))
        last_end = m.end()
    if parts:
        runs.append(unescape("".join(parts)))
    return runs


def lit_checked(text, known_prefixes):
    """What a .mlir/.test file checks: FileCheck directives (not -NOT) and
    the text of expected-* annotations."""
    prefixes = {"CHECK"}
    for m in PREFIX_OPTION.finditer(text):
        prefixes.update(p for p in m.group(1).split(",") if p)
    if "RUN:" not in text:  # an input another file's RUN line checks with
        prefixes |= known_prefixes
    out = []
    for line in text.splitlines():
        m = DIRECTIVE.match(line)
        if m:
            name, kind, rest = m.groups()
            if (kind != "-NOT" and name not in LIT_KEYWORDS and
                    (name in prefixes or name.endswith("CHECK"))):
                out.append(rest)
        for e in EXPECTED.finditer(line):
            out.append(e.group(1))
    return out


def _const_strings(node):
    """The constant text of a str / f-string / implicit concatenation."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
        v = node.value
        return [v.decode("utf-8", "replace") if isinstance(v, bytes) else v]
    if isinstance(node, ast.JoinedStr):
        return ["".join(v.value for v in node.values
                        if isinstance(v, ast.Constant) and isinstance(v.value, str))]
    return []


def _is_str_call(node):
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and
            node.func.id == "str")


def py_checked(text):
    """What a Python test checks: pytest `match=` patterns (their regex
    escapes undone) and `"text" in ...` inside an assert or against str()."""
    if "match=" not in text and "assert" not in text and " in str(" not in text:
        return []
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    out = []

    def contains(node):
        if (isinstance(node, ast.Compare) and
                any(isinstance(op, ast.In) for op in node.ops)):
            out.extend(_const_strings(node.left))

    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for kw in node.keywords:
                if kw.arg == "match":
                    out += [re.sub(r"\\(.)", r"\1", s) for s in _const_strings(kw.value)]
        elif isinstance(node, ast.Assert):
            for sub in ast.walk(node.test):
                contains(sub)
        elif isinstance(node, ast.Compare) and any(_is_str_call(c) for c in node.comparators):
            contains(node)
    return out


CPP_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|//[^\n]*|/\*.*?\*/',
                       re.S)


def strip_cpp_comments(text):
    """`text` with its // and /* */ comments blanked, string literals kept."""
    return CPP_TOKEN.sub(lambda m: " " if m.group(0)[0] == "/" else m.group(0), text)


def balanced(text, pos):
    """The text of the bracket that opens at `pos`, without the brackets."""
    close = {"(": ")", "[": "]", "{": "}"}
    stack = []
    i = pos
    while i < len(text):
        c = text[i]
        if c == '"':
            j = i + 1
            while j < len(text) and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            i = j
        elif c in close:
            stack.append(close[c])
        elif stack and c == stack[-1]:
            stack.pop()
            if not stack:
                return text[pos + 1:i]
        i += 1
    return text[pos + 1:]


def split_top(text, brackets="([{"):
    """`text` split at the commas outside brackets and string literals."""
    pairs = {"(": ")", "[": "]", "{": "}", "<": ">"}
    parts, depth, start, i = [], 0, 0, 0
    while i < len(text):
        c = text[i]
        if c == '"':
            j = i + 1
            while j < len(text) and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            i = j
        elif c in brackets:
            depth += 1
        elif c in (pairs[b] for b in brackets):
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
        i += 1
    parts.append(text[start:])
    return [p.strip() for p in parts]


def struct_fields(text, name):
    """The field names of `struct name { ... };`, in order."""
    m = re.search(r"\bstruct\s+" + re.escape(name) + r"\s*\{", text)
    if not m:
        return []
    fields = []
    for decl in balanced(text, m.end() - 1).split(";"):
        decl = decl.split("=", 1)[0].strip()
        if not decl or "(" in decl.split("<", 1)[0]:
            continue
        for i, part in enumerate(split_top(decl, "([{<")):
            ids = re.findall(r"[A-Za-z_]\w*", part)
            if ids:
                fields.append(ids[-1])
    return fields


# A check: a GoogleTest assertion, or a helper of the file named expect...
# (`expectError(bytes, "message")`) that makes one.
CHECK_CALL = re.compile(r"\b(?:(?:EXPECT|ASSERT)_[A-Z_]+|expect[A-Z]\w*)\s*\(")
RANGE_FOR = re.compile(
    r"\bfor\s*\(\s*(?:const\s+)?(\w+)\s*&?\s*(\w+)\s*:\s*(\w+)\s*\)")


def cpp_checked(text):
    """What a GoogleTest file checks: the literals of EXPECT_*/ASSERT_*
    statements (and of expect...() helpers), of the string constants they
    name, and of the table column they read in a loop over a table
    (`for (const Case &c : cases) EXPECT_...(..., c.message)`)."""
    text = strip_cpp_comments(text)
    consts = {}
    for m in CPP_STRING_CONST.finditer(text):
        consts.setdefault(m.group(1), []).extend(literal_runs(m.group(2)))
    out = []
    for m in CHECK_CALL.finditer(text):
        if text[:m.start()].rstrip().endswith(("void", "bool", "auto")):
            continue  # the helper's own definition
        stmt = statement_after(text, m.end())
        out += literal_runs(stmt)
        for name in set(re.findall(r"\b[A-Za-z_]\w*\b", stmt)) & consts.keys():
            out += consts[name]
    for m in RANGE_FOR.finditer(text):
        struct, var, table = m.groups()
        rest = text[m.end():].lstrip()
        body = balanced(rest, 0) if rest.startswith("{") else statement_after(rest, 0)
        read = set()
        for c in CHECK_CALL.finditer(body):
            read.update(re.findall(r"\b" + re.escape(var) + r"\.(\w+)",
                                   statement_after(body, c.end())))
        fields = struct_fields(text, struct)
        columns = [fields.index(f) for f in read if f in fields]
        decl = None
        for d in re.finditer(r"\b" + re.escape(table) + r"\s*(?:\[\s*\])?\s*=?\s*\{",
                             text[:m.start()]):
            decl = d
        if not columns or decl is None:
            continue
        for row in split_top(balanced(text, decl.end() - 1)):
            if not row.startswith("{"):
                continue
            cells = split_top(balanced(row, 0))
            for col in columns:
                if col < len(cells):
                    out += literal_runs(cells[col])
    return out


def checked_corpus(root):
    """[(file, [checked text])] over the test directories."""
    files = []
    for d in TESTS:
        for dirpath, _, names in os.walk(os.path.join(root, d)):
            for f in sorted(names):
                if f.endswith((".mlir", ".test", ".py")) or (
                        d == "unittests" and f.endswith(".cpp")):
                    path = os.path.join(dirpath, f)
                    with open(path, errors="replace") as fh:
                        files.append((os.path.relpath(path, root), fh.read()))
    known_prefixes = set()
    for name, body in files:
        if name.endswith((".mlir", ".test")):
            for m in PREFIX_OPTION.finditer(body):
                known_prefixes.update(p for p in m.group(1).split(",") if p)
    corpus = []
    for name, body in files:
        if name.endswith((".mlir", ".test")):
            checked = lit_checked(body, known_prefixes)
        elif name.endswith(".py"):
            checked = py_checked(body)
        else:
            checked = cpp_checked(body)
        if checked:
            corpus.append((name, "\n".join(checked)))
    return corpus


def main():
    args = sys.argv[1:]
    verbose = "--verbose" in args
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if "--root" in args:
        root = os.path.abspath(args[args.index("--root") + 1])
    corpus = checked_corpus(root)
    allowed = set()
    with open(os.path.join(root, "scripts", "diagnostics-allowlist.txt")) as fh:
        for line in fh:
            line = line.split("#", 1)[0].strip()
            if line:
                allowed.add(line)
    used_allowed = set()
    total = covered = allowlisted = uncovered = short = 0
    for d in SOURCES:
        for dirpath, _, files in sorted(os.walk(os.path.join(root, d))):
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
                    where = f"{os.path.relpath(path, root)}:{line}"
                    # formatv placeholders are filled in at run time.
                    key = frag.split("{", 1)[0][:30].strip()
                    if len(key) < 10:
                        short += 1
                        if verbose:
                            print(f"short     {where}: \"{frag}\" (begins with a placeholder)")
                        continue
                    if key in allowed:
                        allowlisted += 1
                        used_allowed.add(key)
                        if verbose:
                            print(f"allowed   {where}: \"{key}\"")
                        continue
                    hit = next((name for name, body in corpus if key in body), None)
                    if hit is None:
                        uncovered += 1
                        print(f"UNCOVERED {where}: \"{frag}\"")
                    else:
                        covered += 1
                        if verbose:
                            print(f"covered   {where}: \"{key}\" -> {hit}")
    for key in sorted(allowed - used_allowed):
        print(f"note: allowlist entry \"{key}\" matches no diagnostic; remove it")
    print(f"check-diagnostics: {total} diagnostics: {covered} covered by a test, "
          f"{allowlisted} allowlisted, {uncovered} uncovered"
          f"{f', {short} not identifiable (placeholder first)' if short else ''}")
    return 1 if uncovered else 0


if __name__ == "__main__":
    sys.exit(main())
