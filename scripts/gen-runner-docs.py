#!/usr/bin/env python3
"""Regenerates the option table of docs/runner.md from the runner itself.

The table sits between the markers <!-- options:begin --> and
<!-- options:end -->; it is built from `storagebench-runner --cmdhelp`,
whose rows come from the option table in lib/fiojob/opts.c. With --check the
script only compares and exits 1 when the document is out of date.
"""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "runner.md")
BEGIN, END = "<!-- options:begin -->", "<!-- options:end -->"


def table(runner):
    out = subprocess.run([runner, "--cmdhelp"], capture_output=True, text=True, check=True).stdout
    rows = ["| option | status | meaning, or why not |", "|---|---|---|"]
    for line in out.splitlines():
        name, status, rest = line[:28].strip(), line[29:38].strip(), line[39:].strip()
        alias = ""
        if rest.endswith(")") and " (alias: " in rest:
            rest, alias = rest.rsplit(" (alias: ", 1)
            alias = alias[:-1]
        shown = f"`{name}`" + (f" (`{alias}`)" if alias else "")
        rows.append(f"| {shown} | {status} | {rest.replace('|', '/')} |")
    return "\n".join(rows) + "\n"


def main():
    runner = os.environ.get("SB_RUNNER", os.path.join(ROOT, "bin", "storagebench-runner"))
    with open(DOC) as f:
        doc = f.read()
    a, b = doc.index(BEGIN) + len(BEGIN), doc.index(END)
    new = doc[:a] + "\n" + table(runner) + doc[b:]
    if "--check" in sys.argv:
        if new != doc:
            print("docs/runner.md: the option table is out of date: run scripts/gen-runner-docs.py")
            return 1
        return 0
    with open(DOC, "w") as f:
        f.write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
