#!/usr/bin/env python3
"""The binaries' contracts have one definition (issue 14).

The strings the controller, the runner and the plugin agree on (label keys,
env names, log markers, the result layout's keys, kinds, the manager's name)
are #defined in the contract headers. This check reads those definitions and
fails when a C string literal anywhere else in lib/, controller/, runner/ or
plugin/ spells one of them out instead of using the name: a second copy that
could drift from the first.

Values that are a single lowercase word ("key", "ready", "start", "s3") are common
words with other meanings in the code and are not searched for; every other
value is (dots, slashes, capitals, underscores or spaces make it specific).

usage: contract-check.py [--root DIR] [--header PATH]... [FILE...]
With no FILE, the C sources git lists under lib/ controller/ runner/ plugin/.
Exit 0 clean, 1 a copy found (each printed as file:line), 2 usage error.
"""

import argparse
import os
import re
import subprocess
import sys

HEADERS = ["lib/core/labels.h", "lib/result/resultdoc.h"]
DIRS = ["lib", "controller", "runner", "plugin"]
DEFINE = re.compile(r'^\s*#\s*define\s+(\w+)\s+"((?:[^"\\]|\\.)*)"\s*(?:/[*/].*)?$')
GENERIC = re.compile(r"^[a-z][a-z0-9]*$")


def contract_values(root, headers):
    """{value: (name, header)} for each #define NAME "value" of the headers."""
    values = {}
    for h in headers:
        path = os.path.join(root, h)
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as f:
            for line in f:
                m = DEFINE.match(line)
                if m and not GENERIC.match(m.group(2)):
                    values.setdefault(m.group(2), (m.group(1), h))
    return values


def literals(text):
    """(line, literal) for each C string literal, comments and chars skipped."""
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            line += text.count("\n", i, j)
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c == "'":
            j = i + 1
            while j < n and text[j] != "'":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        elif c == '"':
            j, start = i + 1, line
            while j < n and text[j] != '"':
                if text[j] == "\n":
                    line += 1
                j += 2 if text[j] == "\\" else 1
            yield start, text[i + 1 : j]
            i = j + 1
        else:
            i += 1


def sources(root):
    try:
        out = subprocess.run(
            ["git", "-C", root, "ls-files", "--"]
            + [f"{d}/*.c" for d in DIRS]
            + [f"{d}/*.h" for d in DIRS],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        out = []
        for d in DIRS:
            for dp, _, fs in os.walk(os.path.join(root, d)):
                out += [
                    os.path.relpath(os.path.join(dp, f), root)
                    for f in fs
                    if f.endswith((".c", ".h"))
                ]
    return sorted(out)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    ap.add_argument("--header", action="append", help="a contract header (repeatable)")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args(argv)
    headers = a.header or HEADERS
    values = contract_values(a.root, headers)
    if not values:
        print("contract-check: no contract definitions found in " + ", ".join(headers))
        return 2
    found = 0
    for rel in a.files or sources(a.root):
        if rel in headers:
            continue
        try:
            with open(os.path.join(a.root, rel), encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            print(f"contract-check: {rel}: {e.strerror}")
            return 2
        for line, lit in literals(text):
            if lit in values:
                name, h = values[lit]
                print(f'{rel}:{line}: "{lit}" is {name} ({h}): use the name')
                found += 1
    if found:
        print(f"contract-check: {found} copies of a contract string")
        return 1
    print(f"contract-check: {len(values)} contract strings, each spelled out only in its header")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
