#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The tree says where things are (make layout, run by make lint).

  - Include guards name the header's path: SB_ and the path in capitals,
    each character other than a letter or a digit as '_' (lib/report/dist.h:
    SB_LIB_REPORT_DIST_H). The header's first directive is #ifndef GUARD,
    the next #define GUARD, its last #endif.
  - Every source folder (a folder of lib/, runner/, controller/ or plugin/
    holding a .c or .h file) names its one concern: a README.md whose first
    line says it, or a main header named after the folder (lib/kube/kube.h)
    whose first comment does.

What their owners are fixing may be listed in scripts/layout.allow (a
folder or a header a line); a listed item that passes is an error too, so
the list only shrinks. --fix-guards rewrites the guards of the headers
named (or of every header under the folders named) to their paths.

Exit status: 0 everything in place but the allowed items, 1 otherwise.
"""
import argparse
import os
import re
import sys

SRC_DIRS = ("lib", "runner", "controller", "plugin")


def guard_of(path):
    return "SB_" + re.sub(r"[^A-Za-z0-9]", "_", path[:-2]).upper() + "_H"


def walk(root, dirs):
    """{folder: [files]} of the folders under dirs holding .c or .h files."""
    out = {}
    for d in dirs:
        for base, subdirs, files in os.walk(os.path.join(root, d)):
            subdirs[:] = sorted(s for s in subdirs if not s.startswith("."))
            src = sorted(f for f in files if f.endswith((".c", ".h")))
            if src:
                out[os.path.relpath(base, root)] = src
    return out


DIRECTIVE = re.compile(r"^\s*#\s*(\w+)\s*(\S*)")


def check_guard(root, path):
    """None when the guard is right, else what is wrong."""
    want = guard_of(path)
    with open(os.path.join(root, path), encoding="utf-8") as f:
        lines = f.read().split("\n")
    dirs = [(n, m.group(1), m.group(2)) for n, line in enumerate(lines, 1)
            for m in [DIRECTIVE.match(line)] if m]
    if len(dirs) < 3 or dirs[0][1] != "ifndef" or dirs[1][1] != "define" or dirs[-1][1] != "endif":
        return "%s:1: no include guard (#ifndef %s, #define %s ... #endif)" % (path, want, want)
    if dirs[0][2] != want or dirs[1][2] != want:
        return "%s:%d: include guard %s, not %s (its path)" % (path, dirs[0][0], dirs[0][2], want)
    return None


def fix_guard(root, path):
    full = os.path.join(root, path)
    with open(full, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^#ifndef (\w+)\n#define \1\n", text, re.M)
    if not m:
        return False
    want = guard_of(path)
    text = text[:m.start()] + "#ifndef %s\n#define %s\n" % (want, want) + text[m.end():]
    with open(full, "w", encoding="utf-8") as f:
        f.write(text)
    return True


def first_comment(root, path):
    """The first comment of a header after its SPDX line, as one string."""
    with open(os.path.join(root, path), encoding="utf-8") as f:
        text = f.read()
    for m in re.finditer(r"/\*(.*?)\*/", text, re.S):
        body = " ".join(w.strip(" *") for w in m.group(1).split("\n")).strip()
        if body and not body.startswith("SPDX-License-Identifier"):
            return body
    return ""


def check_folder(root, folder):
    readme = os.path.join(root, folder, "README.md")
    if os.path.exists(readme):
        with open(readme, encoding="utf-8") as f:
            first = f.readline().strip()
        if first:
            return None
        return "%s/README.md: its first line is empty (it names the folder's concern)" % folder
    main = os.path.join(folder, os.path.basename(folder) + ".h")
    if os.path.exists(os.path.join(root, main)) and first_comment(root, main):
        return None
    return ("%s: no README.md naming the folder's one concern in its first line (nor a main "
            "header %s whose first comment does)" % (folder, main))


def read_allow(path):
    out = []
    if path and os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                item = line.split("#", 1)[0].strip()
                if item:
                    out.append((n, item.rstrip("/")))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=".", help="the source tree (default: .)")
    ap.add_argument("--allow", help="the allowlist (default: ROOT/scripts/layout.allow)")
    ap.add_argument("--fix-guards", action="store_true",
                    help="rewrite the guards of the headers (or folders) named to their paths")
    ap.add_argument("paths", nargs="*", help="with --fix-guards: headers or folders; else: "
                    "the source folders (default: %s)" % " ".join(SRC_DIRS))
    args = ap.parse_args()
    root = args.root
    if args.fix_guards:
        heads = []
        for p in args.paths:
            if p.endswith(".h"):
                heads.append(p)
            else:
                heads += [os.path.join(d, f) for d, fs in walk(root, [p]).items() for f in fs
                          if f.endswith(".h")]
        for h in heads:
            if check_guard(root, h) and fix_guard(root, h):
                print("layout: %s: guard %s" % (h, guard_of(h)))
        return 0
    allow_path = args.allow if args.allow is not None else os.path.join(root, "scripts", "layout.allow")
    allowed = read_allow(allow_path)
    allowed_items = {item for _, item in allowed}
    folders = walk(root, args.paths or SRC_DIRS)
    problems = {}
    for folder, files in folders.items():
        why = check_folder(root, folder)
        if why:
            problems[folder] = why
        for f in files:
            if f.endswith(".h"):
                path = os.path.join(folder, f)
                why = check_guard(root, path)
                if why:
                    problems[path] = why
    rc = 0
    for item, why in sorted(problems.items()):
        if item not in allowed_items:
            print("layout: " + why)
            rc = 1
    for n, item in allowed:
        if item not in problems:
            print("layout: %s:%d: %s is in place (or gone): remove the line" % (allow_path, n, item))
            rc = 1
    nheads = sum(1 for fs in folders.values() for f in fs if f.endswith(".h"))
    if rc == 0:
        print("layout: %d folders and %d headers checked: each folder names its concern, each "
              "guard its path, but %d items being fixed (%s)"
              % (len(folders), nheads, len(allowed), os.path.normpath(allow_path)))
    return rc


if __name__ == "__main__":
    sys.exit(main())
