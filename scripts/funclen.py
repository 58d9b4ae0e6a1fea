#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The function-length rule: no product function over 120 lines.

Counts each C function's lines from its opening brace to its closing brace
(both included) in the files given, or in every tracked lib/, controller/,
runner/ and plugin/ *.c. The code is clang-formatted in the kernel's brace
style (.clang-format), so a function body opens with a "{" alone at column 0
and closes with a "}" alone at column 0; the function's name is the
identifier before the first "(" of the signature above the "{".

Prints file:line:name: N lines (over MAX) for each function over the limit
and exits 1; exits 0 with a one-line summary when there is none; exits 2 on
bad usage or an unreadable file. Usage: funclen.py [--max N] [file.c ...]
"""
import re
import subprocess
import sys

DIRS = ("lib", "controller", "runner", "plugin")
NAME = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def functions(path):
    """(line of the "{", name, length) of each function in path."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    out = []
    i = 0
    while i < len(lines):
        if lines[i].rstrip() != "{":
            i += 1
            continue
        # the signature: the lines above, back to a blank line, a ";", a "}" or a comment end
        sig = []
        k = i - 1
        while k >= 0:
            s = lines[k].rstrip()
            if not s or s.endswith(";") or s.endswith("}") or s.endswith("*/") or s.startswith("#"):
                break
            sig.insert(0, s)
            k -= 1
        m = NAME.search(" ".join(sig))
        name = m.group(1) if m else "?"
        j = i + 1
        while j < len(lines) and lines[j].rstrip() != "}":
            j += 1
        out.append((i + 1, name, j - i + 1))
        i = j + 1
    return out


def main(argv):
    limit = 120
    files = []
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--max":
            if not args or not args[0].isdigit():
                print("funclen: --max needs a number of lines", file=sys.stderr)
                return 2
            limit = int(args.pop(0))
        elif a.startswith("-"):
            print(f"funclen: unknown option {a} (usage: funclen.py [--max N] [file.c ...])",
                  file=sys.stderr)
            return 2
        else:
            files.append(a)
    if not files:
        ls = subprocess.run(["git", "ls-files"] + [f"{d}/*.c" for d in DIRS],
                            capture_output=True, text=True, check=False)
        if ls.returncode:
            print("funclen: git ls-files failed: " + ls.stderr.strip(), file=sys.stderr)
            return 2
        files = ls.stdout.split()
    over = 0
    count = 0
    for path in files:
        try:
            fns = functions(path)
        except OSError as e:
            print(f"funclen: {path}: {e.strerror}", file=sys.stderr)
            return 2
        for line, name, n in fns:
            count += 1
            if n > limit:
                print(f"{path}:{line}:{name}: {n} lines (over {limit})")
                over += 1
    if over:
        print(f"funclen: {over} function(s) over {limit} lines (split them along their seams)")
        return 1
    print(f"funclen: {count} functions in {len(files)} files, none over {limit} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
