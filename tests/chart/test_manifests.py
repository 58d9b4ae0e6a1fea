"""Plain manifests without a cluster: manifests/install.yaml is what `make
manifests` renders, the chart's crds/ is the CRD of manifests/crd/, and
every example in manifests/examples/ is valid against the CRD's schema
(with a small structural-schema validator: types, required, enums,
patterns, bounds, unknown fields)."""
import filecmp
import os
import re
import subprocess
import tempfile

import pytest
import yaml

from conftest import CHART, CRD, CRD_DIR, EXAMPLES, ROOT, need_helm

RUNNER = os.path.join(ROOT, "bin", "storagebench-runner")
EXAMPLE_FILES = sorted(f for f in os.listdir(EXAMPLES) if f.endswith(".yaml"))


def test_install_yaml_is_what_make_manifests_renders():
    need_helm()
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "install.yaml")
        adm = os.path.join(d, "admission-policy.yaml")
        p = subprocess.run(["make", "-s", "--no-print-directory", "manifests", f"MANIFESTS_OUT={out}",
                            f"ADMISSION_OUT={adm}", "CHART_SYNC_CRDS=0"], cwd=ROOT, capture_output=True,
                           text=True)
        assert p.returncode == 0, p.stdout + p.stderr
        with open(out) as f:
            fresh = f.read()
        with open(adm) as f:
            fresh_adm = f.read()
    with open(os.path.join(ROOT, "manifests", "install.yaml")) as f:
        committed = f.read()
    assert committed == fresh, "manifests/install.yaml is out of date: run make manifests"
    with open(os.path.join(ROOT, "manifests", "admission-policy.yaml")) as f:
        assert f.read() == fresh_adm, "manifests/admission-policy.yaml is out of date: run make manifests"


def test_install_yaml_holds_the_namespace_crd_and_controller():
    with open(os.path.join(ROOT, "manifests", "install.yaml")) as f:
        objs = [d for d in yaml.safe_load_all(f) if d]
    kinds = [(o["kind"], o["metadata"].get("namespace"), o["metadata"]["name"]) for o in objs]
    assert kinds[0] == ("Namespace", None, "storagebench-system")  # before what goes in it
    assert kinds[1] == ("CustomResourceDefinition", None, "benchmarkruns.storagebench.io")
    assert ("Deployment", "storagebench-system", "storagebench-controller") in kinds
    assert ("ServiceAccount", "default", "storagebench-runner") in kinds
    assert ("Lease", "storagebench-system", "storagebench-controller") in kinds
    with open(CRD) as f:
        assert objs[1] == yaml.safe_load(f)


def test_chart_crds_are_the_crds_of_manifests_crd():
    crds = os.path.join(CHART, "crds")
    mine = sorted(os.listdir(crds))
    theirs = sorted(f for f in os.listdir(CRD_DIR) if f.endswith(".yaml"))
    assert mine == theirs, "run make manifests (it copies manifests/crd/ into the chart)"
    match, mismatch, errors = filecmp.cmpfiles(CRD_DIR, crds, theirs, shallow=False)
    assert mismatch == [] and errors == [], "charts/storagebench/crds differs from manifests/crd: make manifests"


# ---------------------------------------------------------------- schema


def load_schema():
    with open(CRD) as f:
        crd = yaml.safe_load(f)
    return crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]


def validate(obj, schema, path="", errors=None):
    """Errors of obj against a structural OpenAPI v3 schema ([] = valid)."""
    errors = [] if errors is None else errors
    t = schema.get("type")
    types = {"object": dict, "array": list, "string": str, "boolean": bool, "integer": int,
             "number": (int, float)}
    if t and (not isinstance(obj, types[t]) or (t in ("integer", "number") and isinstance(obj, bool))):
        errors.append(f"{path or '.'}: {obj!r} is not of type {t}")
        return errors
    if "enum" in schema and obj not in schema["enum"]:
        errors.append(f"{path}: {obj!r} not in {schema['enum']}")
    if t == "string":
        if "pattern" in schema and not re.search(schema["pattern"], obj):
            errors.append(f"{path}: {obj!r} does not match {schema['pattern']}")
        if len(obj) > schema.get("maxLength", 1 << 30) or len(obj) < schema.get("minLength", 0):
            errors.append(f"{path}: length {len(obj)} out of bounds")
    if t in ("integer", "number"):
        if obj < schema.get("minimum", float("-inf")) or obj > schema.get("maximum", float("inf")):
            errors.append(f"{path}: {obj} out of [{schema.get('minimum')}, {schema.get('maximum')}]")
    if t == "array":
        if len(obj) < schema.get("minItems", 0) or len(obj) > schema.get("maxItems", 1 << 30):
            errors.append(f"{path}: {len(obj)} items out of bounds")
        for i, item in enumerate(obj):
            validate(item, schema.get("items", {}), f"{path}[{i}]", errors)
    if t == "object":
        props = schema.get("properties", {})
        for r in schema.get("required", []):
            if r not in obj:
                errors.append(f"{path}.{r}: required")
        for k, v in obj.items():
            if k in props:
                validate(v, props[k], f"{path}.{k}", errors)
            elif "additionalProperties" in schema:
                validate(v, schema["additionalProperties"], f"{path}.{k}", errors)
            elif props and not schema.get("x-kubernetes-preserve-unknown-fields"):
                errors.append(f"{path}.{k}: unknown field (the API server would drop it)")
    return errors


def load_example(name):
    with open(os.path.join(EXAMPLES, name)) as f:
        text = f.read()
    docs = [d for d in yaml.safe_load_all(text) if d]
    return text, docs


SCHEDULE_CRD = os.path.join(ROOT, "manifests", "crd", "storagebench.io_benchmarkschedules.yaml")


def load_schedule_schema():
    with open(SCHEDULE_CRD) as f:
        return yaml.safe_load(f)["spec"]["versions"][0]["schema"]["openAPIV3Schema"]


@pytest.mark.parametrize("name", EXAMPLE_FILES)
def test_example_is_valid_against_the_crd_schema(name):
    _, docs = load_example(name)
    assert docs, name
    for d in docs:
        assert d["apiVersion"] == "storagebench.io/v1alpha1"
        assert d["kind"] in ("BenchmarkRun", "BenchmarkSchedule")
        assert "namespace" not in d["metadata"], "examples go to the namespace kubectl -n names"
        if d["kind"] == "BenchmarkRun":
            assert validate(d, load_schema()) == []
        else:
            # the schedule, and its run template as a BenchmarkRun
            assert validate(d, load_schedule_schema()) == []
            run = {"apiVersion": d["apiVersion"], "kind": "BenchmarkRun", "metadata": {"name": "t"},
                   "spec": d["spec"]["runTemplate"]["spec"]}
            assert validate(run, load_schema()) == []


def test_the_schema_check_finds_errors():
    # the validator above is not vacuous
    bad = {"apiVersion": "storagebench.io/v1alpha1", "kind": "BenchmarkRun", "metadata": {"name": "x"},
           "spec": {"storageClasses": [], "profile": "fast", "iterations": 0, "volume": {"size": "ten"},
                    "runtime": "soon", "runner": {"hostNetwork": "yes"}, "typo": 1,
                    "workloads": [{"name": "A_b", "rw": "randread", "iodepth": 0}]}}
    errs = "\n".join(validate(bad, load_schema()))
    for needle in (".spec.storageClasses: 0 items", ".spec.profile: 'fast' not in",
                   ".spec.iterations: 0 out of", ".spec.volume.size: 'ten' does not match",
                   ".spec.runtime: 'soon'", ".spec.runner.hostNetwork: 'yes' is not of type boolean",
                   ".spec.typo: unknown field", ".spec.workloads[0].name: 'A_b'",
                   ".spec.workloads[0].iodepth: 0 out of"):
        assert needle in errs, needle


@pytest.mark.parametrize("name", [f for f in EXAMPLE_FILES if f not in ("demo.yaml", "schedule.yaml")])
def test_example_says_which_page_it_reproduces(name):
    text, _ = load_example(name)
    header = text.split("apiVersion:")[0]
    assert re.search(r"Reproduces", header), name
    assert re.search(r"reference page\s+#?\s*\d{3}_[0-9a-f]{16}", header), name


def test_examples_cover_every_reference_page_case():
    specs = {n: load_example(n)[1][0]["spec"] for n in EXAMPLE_FILES}
    sc = [s for s in specs.values() if s.get("profile") == "storage-cluster" and
          s.get("volume", {}).get("volumeMode", "Filesystem") == "Filesystem"]
    assert any(s["storageClasses"] == ["ssd", "bulk", "cephfs"] for s in sc)
    assert any(s.get("profile") == "mixed" for s in specs.values())
    assert any(s.get("profile") == "quick" for s in specs.values())
    nvme = [s for s in specs.values() if s.get("profile") == "nvme" or
            any(w.get("iodepth") == 64 and w.get("bs") in ("1M", "1m") and w.get("numjobs") == 8
                for w in s.get("workloads", []))]
    assert nvme
    assert any(s.get("volume", {}).get("volumeMode") == "Block" for s in specs.values())
    assert any("fioJob" in s for s in specs.values())


@pytest.mark.parametrize("name", [f for f in EXAMPLE_FILES if "fioJob" in load_example(f)[1][0]["spec"]])
def test_fio_job_examples_parse_with_the_runner(name):
    """The runner's own parser accepts the job file (the controller runs the
    same parser; test_install checks the controller end to end)."""
    if not os.access(RUNNER, os.X_OK):
        pytest.fail(f"{RUNNER} is missing: make all")
    job = load_example(name)[1][0]["spec"]["fioJob"]
    assert not re.search(r"^\s*(filename|directory)\s*=", job, re.M), "the runner sets these"
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "job.fio")
        with open(path, "w") as f:
            f.write(job)
        p = subprocess.run([RUNNER, "--parse-only", f"--directory={d}", path], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "every option understood" in p.stderr + p.stdout


def test_crd_rw_enum_is_the_runners_rw_list():
    """spec.workloads[].rw's enum in the CRD names exactly the rw modes the
    runner accepts (its own --cmdhelp=rw line), so neither refuses what the
    other offers."""
    if not os.access(RUNNER, os.X_OK):
        pytest.fail(f"{RUNNER} is missing: make all")
    with open(CRD) as f:
        crd = yaml.safe_load(f)
    wl = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"][
        "properties"]["workloads"]["items"]["properties"]
    enum = wl["rw"]["enum"]
    line = subprocess.run([RUNNER, "--cmdhelp=rw"], capture_output=True, text=True, check=True).stdout
    listed = re.match(r"rw\s+supported\s+([a-z/, ]+?)\s*(\(|$)", line)
    assert listed, line
    runner = {m for part in listed.group(1).split(",") for m in part.strip().split("/") if m}
    assert set(enum) == runner, (sorted(enum), sorted(runner))
