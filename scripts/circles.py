#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""No circle between source files (make circles, run by make lint).

The graph is read from what the compiler and the linker see, not from the
text of the sources:

  - the dependency files the compiler wrote (-MMD, build/rel/**/*.d): a
    file that includes x.h (directly or through another header) depends
    on x.c, when there is one beside it;
  - the symbols of each object (nm): an object that uses a function or a
    global variable another object defines depends on that object's file.
    This is what sees a process-wide global that two files share although
    neither includes the other's header.

A circle is a strongly connected component of more than one file. Each is
named with its files and, for each arrow inside it, the symbols (or the
includes) that tie it. A circle that is known and being fixed by its owner
may be listed in the allowlist (scripts/circles.allow: one circle an
entry, its files separated by spaces); an allowed circle must exist exactly as
listed, so the list only shrinks: a listed circle that is gone, or that
changed, is an error too.

Exit status: 0 no circle but the allowed ones, 1 a circle (or a stale
allowlist entry), 2 the build is missing (run make first).
"""
import argparse
import os
import subprocess
import sys

SRC_DIRS = ("lib", "runner", "controller", "plugin")


def sources(root, dirs):
    """The .c files under root/dirs, as paths relative to root."""
    out = []
    for d in dirs:
        for base, subdirs, files in os.walk(os.path.join(root, d)):
            subdirs.sort()
            for f in sorted(files):
                if f.endswith(".c"):
                    out.append(os.path.relpath(os.path.join(base, f), root))
    return out


def read_deps(path):
    """The prerequisites of the first rule of a make dependency file."""
    with open(path, encoding="utf-8") as f:
        text = f.read().replace("\\\n", " ")
    first = text.split("\n", 1)[0]
    if ":" not in first:
        return []
    return first.split(":", 1)[1].split()


def include_arrows(root, build, srcs, known):
    """{(a, b): {"#include h"}}: a's object was compiled with b's header."""
    arrows = {}
    for s in srcs:
        d = os.path.join(build, s[:-2] + ".d")
        for h in read_deps(d):
            h = os.path.normpath(h)
            if os.path.isabs(h):
                h = os.path.relpath(h, root)
            if not h.endswith(".h"):
                continue
            c = h[:-2] + ".c"
            if c != s and c in known:
                arrows.setdefault((s, c), set()).add("#include " + h)
    return arrows


def symbol_arrows(build, srcs):
    """{(a, b): {symbol}}: a's object uses a symbol b's object defines."""
    objs = {os.path.join(build, s[:-2] + ".o"): s for s in srcs}
    res = subprocess.run(["nm", "-P", "-A", *objs], capture_output=True, text=True, check=False)
    if res.returncode != 0:
        sys.exit("circles: nm failed: " + res.stderr.strip())
    defined, used = {}, {}
    for line in res.stdout.splitlines():
        # "build/rel/x.o: name T value size"
        obj, _, rest = line.partition(": ")
        parts = rest.split()
        if obj not in objs or len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            used.setdefault(objs[obj], set()).add(name)
        elif kind in "TDBRGSCVWi":  # global: text, data, bss, rodata, small, common, weak
            defined.setdefault(name, set()).add(objs[obj])
    arrows = {}
    for a, names in used.items():
        for name in names:
            for b in defined.get(name, ()):
                if b != a:
                    arrows.setdefault((a, b), set()).add(name)
    return arrows


def components(nodes, edges):
    """Strongly connected components (Tarjan's algorithm, iterative)."""
    succ = {n: [] for n in nodes}
    for a, b in edges:
        succ[a].append(b)
    for n in succ:
        succ[n].sort()
    index, low, on, stack, comps = {}, {}, set(), [], []
    counter = 0
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on.add(v)
            if i < len(succ[v]):
                work.append((v, i + 1))
                w = succ[v][i]
                if w not in index:
                    work.append((w, 0))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                comps.append(sorted(comp))
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
    return comps


def read_allow(path):
    """[(line number, frozenset of files)] of the allowlist: a circle a line,
    its files separated by spaces; an indented line continues the circle
    above it; '#' starts a comment."""
    out = []
    if not path or not os.path.exists(path):
        return out
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            files = line.split("#", 1)[0].split()
            if not files:
                continue
            if line[0] in " \t" and out:
                out[-1] = (out[-1][0], out[-1][1] | frozenset(files))
            else:
                out.append((n, frozenset(files)))
    return out


def describe(comp, arrows):
    lines = [", ".join(comp)]
    members = set(comp)
    for (a, b), why in sorted(arrows.items()):
        if a in members and b in members:
            syms = sorted(w for w in why if not w.startswith("#"))
            incs = sorted(w for w in why if w.startswith("#"))
            lines.append("  %s -> %s: %s" % (a, b, ", ".join(syms + incs)))
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=".", help="the source tree (default: .)")
    ap.add_argument("--build", help="the objects and .d files (default: ROOT/build/rel)")
    ap.add_argument("--allow", help="the allowlist (default: ROOT/scripts/circles.allow)")
    ap.add_argument("--list", action="store_true", help="print every circle, allowed or not")
    ap.add_argument("dirs", nargs="*", default=list(SRC_DIRS), help="source folders")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    build = os.path.abspath(args.build) if args.build else os.path.join(root, "build", "rel")
    allow_path = args.allow if args.allow is not None else "scripts/circles.allow"
    allow_path = os.path.relpath(os.path.abspath(allow_path), root) if args.allow else allow_path
    os.chdir(root)
    srcs = sources(".", args.dirs)
    missing = [s for s in srcs if not os.path.exists(os.path.join(build, s[:-2] + ".o"))
               or not os.path.exists(os.path.join(build, s[:-2] + ".d"))]
    if missing:
        print("circles: no object or dependency file in %s for: %s (run make first)"
              % (build, " ".join(missing)), file=sys.stderr)
        return 2
    known = set(srcs)
    arrows = include_arrows(".", build, srcs, known)
    for k, v in symbol_arrows(build, srcs).items():
        arrows.setdefault(k, set()).update(v)
    comps = [c for c in components(known, arrows) if len(c) > 1]
    allowed = read_allow(allow_path)
    allowed_sets = {files for _, files in allowed}
    rc = 0
    seen = set()
    for c in comps:
        ok = frozenset(c) in allowed_sets
        seen.add(frozenset(c))
        if args.list or not ok:
            text = describe(c, arrows)
            tag = " (allowed: %s)" % allow_path if ok else ""
            print("circle of %d files%s: %s" % (len(c), tag, text[0]))
            print("\n".join(text[1:]))
        if not ok:
            rc = 1
    for n, files in allowed:
        if files not in seen:
            print("circles: %s:%d: the allowed circle %s does not exist (any more, or not as "
                  "listed): remove or correct the line" % (allow_path, n, " ".join(sorted(files))))
            rc = 1
    nallowed = sum(1 for c in comps if frozenset(c) in allowed_sets)
    if rc == 0:
        print("circles: no circle between %d files (%d allowed, being fixed: %s)"
              % (len(srcs), nallowed, allow_path))
    else:
        print("circles: a circle between files: break it (a file of its own for what both "
              "use), or, if its owner is fixing it, list it in %s" % allow_path)
    return rc


if __name__ == "__main__":
    sys.exit(main())
