#!/usr/bin/python3
"""gen-crd-docs.py: docs/benchmarkrun.md from the BenchmarkRun CRD.

    scripts/gen-crd-docs.py            print the page
    scripts/gen-crd-docs.py --write    write docs/benchmarkrun.md (make crd-docs)
    scripts/gen-crd-docs.py --check    exit 1 (with a diff) when the page is out of date
    --file=PATH                        write or check PATH instead of docs/benchmarkrun.md

Every field of the CRD's schema (manifests/crd/storagebench.io_benchmarkruns.yaml)
with its type, default, validation and description, one table per object;
the printer columns; and the examples of manifests/examples/ with their
header comments. Deterministic: the same inputs give the same bytes.
Needs python3-yaml.
"""
import difflib
import os
import re
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CRD = os.path.join(ROOT, "manifests", "crd", "storagebench.io_benchmarkruns.yaml")
EXAMPLES = os.path.join(ROOT, "manifests", "examples")
OUT = os.path.join(ROOT, "docs", "benchmarkrun.md")

INTRO = """\
How to read the tables: **Field** is the key in the object named by the
section title (`spec.volume` → `spec: {volume: {size: ...}}`), `[]` marks
a list whose items are described in their own section. **Default** is what
the API server fills in when the field is left out (`default` in the
schema); a dash means the controller decides (the description says how).
**Validation** is what the API server checks before the object is stored:
a `kubectl apply` that breaks it is refused with the field's path.

The controller checks more when it reads the spec (fio options of
workloads and job files with the runner's own parser, sizes against the
volume, durations, names): a spec that fails there is not retried; the run
goes to phase `Failed` with condition reason `InvalidSpec` and a message
that names the field, for example
`spec.size: 20g is larger than spec.volume.size 10Gi` or
`spec.fioJob:3: bs: '4q' is not a block size`; a spec that asks more of
its runner pods than the runner policy allows fails the same way
(`spec.runner.hostNetwork: true is not allowed by the runner policy ...`,
see [security.md](security.md))
(`kubectl describe br NAME` shows it, and an `InvalidSpec` event).
Kubernetes 1.20 to 1.24 have no CEL validation rules, so every check that
needs more than one field lives in the controller.
"""


# Fields the CRD describes without a description: what the controller puts
# there (controller/run/reconcile.c, plan.c). Used only where the schema has no
# description of its own, so the CRD's text always wins.
FALLBACK = {
    "spec.runner.seccompProfile.type": "RuntimeDefault, Localhost (with localhostProfile) or Unconfined.",
    "spec.runner.seccompProfile.localhostProfile":
        "Path of the profile relative to the kubelet's seccomp root (/var/lib/kubelet/seccomp), "
        "e.g. storagebench/seccomp-iouring.json (charts/storagebench/files/seccomp-iouring.json).",
    "spec.runner.containerSecurityContext.capabilities.add[]": "A capability name, e.g. SYS_NICE.",
    "spec.runner.env[].name": "Variable name (not SB_*: those are the runner's).",
    "spec.runner.env[].value": "Its value.",
    "status.conditions[].type": "Succeeded.",
    "status.conditions[].status": "True (done), False (failed) or Unknown (running).",
    "status.conditions[].reason": "Completed, Running, InvalidSpec, StorageClassNotFound, "
        "VolumeBindTimeout, VolumeLost, RunnerFailed, RunTimeout, ...",
    "status.conditions[].message": "The reason in words, naming the class and the field or object.",
    "status.conditions[].lastTransitionTime": "When status last changed between True, False and Unknown.",
    "status.conditions[].observedGeneration": "The spec generation the condition describes.",
    "status.classes[].name": "The storage class.",
    "status.classes[].phase": "Pending, Binding, Running, Succeeded or Failed.",
    "status.classes[].iterationsDone": "Iterations recorded (result ConfigMaps <run>-<class>-<iteration>).",
    "status.classes[].pvc": "The PersistentVolumeClaim of the class (<run>-<class>).",
    "status.classes[].pod": "The current or last runner pod (<run>-<class>-<attempt>).",
    "status.classes[].attempts": "Runner pods created so far for the class.",
    "status.classes[].engine": "The I/O engine that ran, e.g. io_uring or \"psync (fallback)\" when "
        "io_uring was blocked.",
    "status.classes[].reason": "Why the class failed: StorageClassNotFound, VolumeBindTimeout, "
        "VolumeLost, RunnerFailed, RunTimeout.",
    "status.classes[].message": "The reason in words; for RunnerFailed the runner pod's termination message.",
    "status.summary[].class": "The storage class.",
    "status.summary[].workload": "The workload (a profile's workload, spec.workloads[].name or a fio job section).",
    "status.summary[].metric": "read-iops, read-bw, read-lat-mean, read-lat-p50, read-lat-p99, "
        "read-lat-p99.9, the same for write, sync-lat-mean, sync-lat-p99; with "
        "spec.workloads[].steadyState also steady (100 when the iteration reached steady "
        "state, else 0) and steady-after (seconds until it did).",
    "status.summary[].unit": "IOPS, B/s, ns, % (steady) or s (steady-after).",
    "status.summary[].mean": "Mean over the iterations.",
    "status.summary[].stddev": "Sample standard deviation over the iterations (0 with one iteration).",
    "status.summary[].min": "Smallest value of an iteration.",
    "status.summary[].max": "Largest value of an iteration.",
    "status.summary[].n": "Iterations the figures are computed from.",
}


def md_escape(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def one_line(text):
    return re.sub(r"\s+", " ", str(text or "")).strip()


def type_of(s):
    t = s.get("type", "")
    if t == "array":
        it = s.get("items", {})
        inner = it.get("type", "object")
        return f"[]{inner}"
    if t == "object" and "additionalProperties" in s:
        return f"map[string]{s['additionalProperties'].get('type', 'object')}"
    if s.get("format"):
        return f"{t} ({s['format']})"
    return t or "any"


def validation(s, required):
    v = []
    if required:
        v.append("required")
    if "enum" in s:
        v.append("one of " + ", ".join(f"`{e}`" for e in s["enum"]))
    if "pattern" in s:
        v.append(f"matches `{s['pattern']}`")
    if s.get("exclusiveMinimum") and "minimum" in s:
        v.append(f"above {s['minimum']}" + (f", at most {s['maximum']}" if "maximum" in s else ""))
    else:
        v += bounds(s, "minimum", "maximum", "")
    v += bounds(s, "minLength", "maxLength", " characters")
    v += bounds(s, "minItems", "maxItems", " items")
    it = s.get("items", {})
    if s.get("type") == "array":
        if "pattern" in it:
            v.append(f"each matches `{it['pattern']}`")
        if "maxLength" in it:
            v.append(f"each at most {it['maxLength']} characters")
        if "enum" in it:
            v.append("each one of " + ", ".join(f"`{e}`" for e in it["enum"]))
    if s.get("x-kubernetes-preserve-unknown-fields") and s.get("properties"):
        v.append("typed subset: the controller refuses any other field by name")
    elif s.get("x-kubernetes-preserve-unknown-fields") or it.get("x-kubernetes-preserve-unknown-fields"):
        v.append("free-form; the controller checks it field by field")
    return "; ".join(v)


def bounds(s, lo, hi, unit):
    if lo in s and hi in s:
        return [f"{s[lo]} to {s[hi]}{unit}"]
    if lo in s:
        return [f"at least {s[lo]}{unit}"]
    if hi in s:
        return [f"at most {s[hi]}{unit}"]
    return []


def default_of(s):
    if "default" not in s:
        return "-"
    d = s["default"]
    if isinstance(d, bool):
        return f"`{str(d).lower()}`"
    if d == {}:
        return "`{}`"
    return f"`{d}`"


def sections(path, s, out):
    """(path, schema) of every object that has properties, depth first."""
    props = s.get("properties")
    if s.get("type") == "array":
        sections(path + "[]", s.get("items", {}), out)
        return
    if not props:
        return
    out.append((path, s))
    for name, sub in props.items():
        if name in ("apiVersion", "kind", "metadata") and path == "":
            continue
        sections(f"{path}.{name}" if path else name, sub, out)


def table(path, s):
    lines = [f"### `{path}`", ""]
    if s.get("description") and path not in ("spec", "status"):
        lines += [one_line(s["description"]), ""]
    lines += ["| Field | Type | Default | Validation | Description |", "|---|---|---|---|---|"]
    req = set(s.get("required", []))
    for name, sub in s["properties"].items():
        if path == "" and name in ("apiVersion", "kind", "metadata"):
            continue
        desc = one_line(sub.get("description", "")) or FALLBACK.get(f"{path}.{name}", "")
        has_section = sub.get("properties") or (sub.get("type") == "array" and
                                                sub.get("items", {}).get("properties"))
        if has_section:
            target = f"{path}.{name}" + ("[]" if sub.get("type") == "array" else "")
            anchor = re.sub(r"[^a-z0-9-]", "", target.lower().replace(".", ""))
            desc += f" See [`{target}`](#{anchor})."
        lines.append(f"| `{name}` | {type_of(sub)} | {md_escape(default_of(sub))} | "
                     f"{md_escape(validation(sub, name in req))} | {md_escape(desc.strip())} |")
    return lines + [""]


def example_sections():
    lines = []
    for name in sorted(os.listdir(EXAMPLES)):
        if not name.endswith(".yaml"):
            continue
        with open(os.path.join(EXAMPLES, name)) as f:
            text = f.read()
        comment, body = [], []
        for line in text.splitlines():
            if not body and (line.startswith("#") or not line.strip()):
                comment.append(line[1:].strip() if line.startswith("#") else "")
            else:
                body.append(line)
        lines += [f"### `manifests/examples/{name}`", ""]
        paras = re.split(r"\n\s*\n", "\n".join(comment).strip())
        for para in paras:
            para = re.sub(r"\s+", " ", para).strip()
            if para:
                lines += [para, ""]
        lines += ["```yaml"] + body + ["```", ""]
    return lines


def render():
    with open(CRD) as f:
        crd = yaml.safe_load(f)
    spec = crd["spec"]
    ver = spec["versions"][0]
    schema = ver["schema"]["openAPIV3Schema"]
    names = spec["names"]
    lines = [
        "# BenchmarkRun reference",
        "",
        "<!-- Generated by scripts/gen-crd-docs.py from manifests/crd/storagebench.io_benchmarkruns.yaml",
        "     and manifests/examples/: do not edit, run `make crd-docs` (a test fails when this page",
        "     is out of date). -->",
        "",
        one_line(schema.get("description")),
        "",
        "| | |",
        "|---|---|",
        f"| API version | `{spec['group']}/{ver['name']}` |",
        f"| Kind | `{names['kind']}` (list: `{names['listKind']}`) |",
        f"| Scope | {spec['scope']} |",
        f"| Names for kubectl | `{names['plural']}`, `{names['singular']}`, "
        + ", ".join(f"`{n}`" for n in names.get("shortNames", [])) + " |",
        f"| Status subresource | {'yes' if 'status' in ver.get('subresources', {}) else 'no'} |",
        "",
        "Contents: [fields](#fields), [status](#status), [kubectl get columns](#kubectl-get-columns),",
        "[examples](#examples).",
        "",
        "## Fields",
        "",
        INTRO,
    ]
    secs = []
    sections("", schema, secs)
    status_started = False
    for path, s in secs:
        if path == "":
            continue
        if path.startswith("status") and not status_started:
            status_started = True
            lines += ["## Status", "",
                      "Written by the controller only (the status subresource): "
                      + one_line(s.get("description")),
                      "The run is over when `phase` is `Succeeded` or `Failed`; the condition "
                      "`Succeeded` is `True`, `False` or `Unknown` (running) with a CamelCase "
                      "reason such as `Completed`, `InvalidSpec`, `StorageClassNotFound`, "
                      "`VolumeBindTimeout`, `RunnerFailed`, `RunTimeout`.", ""]
        lines += table(path, s)
    lines += ["## kubectl get columns", "", "| Column | From | Shown | Description |", "|---|---|---|---|"]
    for c in ver.get("additionalPrinterColumns", []):
        shown = "with `-o wide`" if c.get("priority", 0) > 0 else "always"
        lines.append(f"| {c['name']} | `{c['jsonPath']}` | {shown} | {md_escape(one_line(c.get('description', '')))} |")
    lines += ["", "## Examples", "",
              "Every file in `manifests/examples/` (apply with `kubectl -n NAMESPACE apply -f FILE`; "
              "replace the storage class names with yours, see `kubectl get storageclass`).", ""]
    lines += example_sections()
    text = "\n".join(lines).rstrip("\n") + "\n"
    return re.sub(r"\n{3,}", "\n\n", text)


def main(argv):
    global OUT
    for a in argv:
        if a.startswith("--file="):
            OUT = os.path.abspath(a.split("=", 1)[1])
    text = render()
    if "--write" in argv:
        with open(OUT, "w") as f:
            f.write(text)
        print(f"gen-crd-docs: wrote {os.path.relpath(OUT, ROOT)}")
        return 0
    if "--check" in argv:
        try:
            with open(OUT) as f:
                old = f.read()
        except FileNotFoundError:
            old = ""
        if old == text:
            return 0
        sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), text.splitlines(True),
                                                   "docs/benchmarkrun.md", "generated"))
        print("gen-crd-docs: docs/benchmarkrun.md is out of date: make crd-docs", file=sys.stderr)
        return 1
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
