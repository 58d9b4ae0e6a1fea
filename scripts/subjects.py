#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Commit subjects of at most 72 characters (run by make lint).

Checks every commit in BASE..HEAD, merge commits included, where BASE is
the commit named in scripts/subjects.base (the history up to and including
it is exempt). Each offender is named with its hash, its length and its
subject. Exit status: 0 every subject fits, 1 one does not, 2 the
history cannot be read (not a git checkout, or BASE not in this clone:
a shallow clone needs `git fetch --unshallow`).
"""
import argparse
import os
import subprocess
import sys

MAX = 72


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=False)


def read_base(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                return line
    return None


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", default=os.path.dirname(here), help="the repository (default: this tree)")
    ap.add_argument("--base", help="the last exempt commit (default: scripts/subjects.base)")
    ap.add_argument("--max", type=int, default=MAX, help="the longest subject allowed (72)")
    args = ap.parse_args()
    base_file = os.path.join(here, "subjects.base")
    base = args.base or read_base(base_file)
    if not base:
        print("subjects: no base commit in %s" % base_file, file=sys.stderr)
        return 2
    r = git(args.repo, "rev-parse", "--verify", "--quiet", base + "^{commit}")
    if r.returncode != 0:
        print("subjects: the base commit %s is not in %s (a shallow clone? git fetch --unshallow)"
              % (base, args.repo), file=sys.stderr)
        return 2
    # %x00-separated: a subject may hold anything but a NUL
    r = git(args.repo, "log", "--format=%H%x00%s", base + "..HEAD")
    if r.returncode != 0:
        print("subjects: git log failed: " + r.stderr.strip(), file=sys.stderr)
        return 2
    bad = n = 0
    for line in r.stdout.splitlines():
        h, _, subject = line.partition("\0")
        n += 1
        if len(subject) > args.max:
            bad += 1
            print("subjects: %s: %d characters (at most %d): %s" % (h[:12], len(subject), args.max, subject))
    if bad:
        print("subjects: %d of %d commits after %s have a subject over %d characters: "
              "reword them (git rebase -i) before they are merged" % (bad, n, base[:12], args.max))
        return 1
    print("subjects: the %d commits after %s have subjects of at most %d characters" % (n, base[:12], args.max))
    return 0


if __name__ == "__main__":
    sys.exit(main())
