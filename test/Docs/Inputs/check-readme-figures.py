#!/usr/bin/env python3
"""Checks the README's "Measured figures" table: every row names the command
that produced its figure (in backticks, a script of the repository), the
commit (a hash, 7-40 hex digits) and, after it, the machine; the measured
cell holds a figure. Optionally the row labels must be the ones
`bench/run.sh --mode=readme` prints (`--labels FILE`, one a line), and each
commit must be one of the repository's (`--git`, where the checkout has its
full history).

  check-readme-figures.py README.md [--repo ROOT] [--labels FILE] [--git]

Prints one line per problem and a summary; exits 1 on any problem.
Standard library only.
"""
import argparse
import os
import re
import subprocess
import sys

HEADER = "| ratio | measured | command, commit, machine |"
HASH = re.compile(r"(?<![0-9A-Za-z_/.-])([0-9a-f]{7,40})(?![0-9A-Za-z_/.-])")


def table_rows(text):
    """The rows (line number, cells) of the first table with HEADER in the
    '## Measured figures' section."""
    lines = text.splitlines()
    try:
        start = next(i for i, l in enumerate(lines)
                     if l.strip() == "## Measured figures")
    except StopIteration:
        return None
    rows, in_table = [], False
    for i in range(start + 1, len(lines)):
        line = lines[i].strip()
        if line.startswith("## "):
            break
        if line == HEADER:
            in_table = True
            continue
        if in_table:
            if not line.startswith("|"):
                if rows:
                    break
                continue
            if re.fullmatch(r"\|(\s*-+\s*\|)+", line):
                continue
            cells = [c.strip() for c in line.strip("|").split("|")]
            rows.append((i + 1, cells))
    return rows if in_table else None


def git_commits(repo):
    """A function telling whether a hash is a commit of repo, or None when
    the checkout has no full history to ask."""
    def git(*a):
        return subprocess.run(["git", "-C", repo] + list(a),
                              capture_output=True, text=True)
    try:
        p = git("rev-parse", "--is-shallow-repository")
    except OSError:
        return None
    if p.returncode != 0 or p.stdout.strip() != "false":
        return None
    return lambda h: git("cat-file", "-e", h + "^{commit}").returncode == 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("readme")
    ap.add_argument("--repo", help="repository root: commands must name "
                    "its files (default: the README's folder)")
    ap.add_argument("--labels", help="file of the expected row labels")
    ap.add_argument("--git", action="store_true",
                    help="check each commit against the repository's history")
    args = ap.parse_args()
    repo = args.repo or os.path.dirname(os.path.abspath(args.readme))
    with open(args.readme, encoding="utf-8") as f:
        rows = table_rows(f.read())
    if rows is None:
        print(f"error: {args.readme}: no '## Measured figures' section with "
              f"a '{HEADER}' table")
        return 1
    is_commit = git_commits(repo) if args.git else None
    if args.git and is_commit is None:
        print("note: commits not checked against git (no full history here)")
    problems = []

    def bad(line, label, what):
        problems.append(f"error: README line {line} ({label}): {what}")

    for line, cells in rows:
        if len(cells) != 3:
            bad(line, cells[0], f"{len(cells)} cells, not 3")
            continue
        label, measured, source = cells
        if not re.search(r"\d", measured):
            bad(line, label, "the measured cell holds no figure")
        commands = re.findall(r"`([^`]+)`", source)
        if not commands:
            bad(line, label, "no command (in backticks)")
        for cmd in commands:
            words = cmd.split()
            if words and words[0] in ("python3", "python"):
                words = words[1:]
            script = words[0] if words else ""
            if not os.path.isfile(os.path.join(repo, script)):
                bad(line, label, f"the command `{cmd}` runs '{script}', "
                    "which is not a file of the repository")
        outside = re.sub(r"`[^`]*`", " ", source)
        hashes = [h for h in HASH.findall(outside)
                  if re.search(r"[0-9]", h) and re.search(r"[a-f]", h)]
        if not hashes:
            bad(line, label, "no commit (a hash of 7-40 hex digits)")
        else:
            after = outside[outside.rindex(hashes[-1]) + len(hashes[-1]):]
            if not re.search(r"[A-Za-z]{2}", after):
                bad(line, label, "no machine after the commit")
            if is_commit:
                for h in hashes:
                    if not is_commit(h):
                        bad(line, label, f"{h} is not a commit of the "
                            "repository")
    if args.labels:
        with open(args.labels, encoding="utf-8") as f:
            want = [l.rstrip("\n") for l in f if l.strip()]
        have = [cells[0] for _, cells in rows]
        for w in want:
            if w not in have:
                problems.append(f"error: no README row '{w}' (a row "
                                "bench/run.sh --mode=readme prints)")
        for line, cells in rows:
            if cells[0] not in want:
                bad(line, cells[0], "a row bench/run.sh --mode=readme does "
                    "not print (bench/readme_figures.py LABELS)")
    for p in problems:
        print(p)
    print(f"readme-figures: {len(rows)} rows, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
