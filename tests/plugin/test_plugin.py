"""kubectl-storagebench against the test cluster: list, report, compare,
logs, version, and their errors, on runs driven by a real controller."""
import json
import os
import re
import tempfile
import xml.etree.ElementTree as ET

import yaml

from conftest import BIN, VERSION_FILE, br, plugin, runner_pods, sb, small


def test_version_help_and_kubectl_finds_the_plugin(env):
    with open(VERSION_FILE) as f:
        version = f.read().strip()
    r = plugin("version", kubeconfig=False)
    assert (r.rc, r.out) == (0, f"kubectl-storagebench {version}\n"), r
    # kubectl finds bin/kubectl-storagebench on PATH
    r = plugin("version", via_kubectl=True, kubeconfig=False)
    assert (r.rc, r.out) == (0, f"kubectl-storagebench {version}\n"), r
    found = sb.run(["/usr/bin/env", f"PATH={BIN}:/usr/bin:/bin", sb.KUBECTL, "plugin", "list"],
                   check=False)
    assert os.path.join(BIN, "kubectl-storagebench") in found.stdout, found.stdout + found.stderr
    for cmd in ("list", "report", "compare", "logs", "history", "version"):
        r = plugin(cmd, "--help", kubeconfig=False)
        assert r.rc == 0 and f"Usage: kubectl storagebench {cmd}" in r.out, r
    r = plugin("--help", via_kubectl=True, kubeconfig=False)
    assert r.rc == 0 and "compare BASELINE CURRENT" in r.out, r


def test_usage_errors_exit_2(env):
    r = plugin("report")
    assert r.rc == 2 and "error: report needs one NAME" in r.err, r
    assert "See 'kubectl storagebench report --help'" in r.err
    r = plugin("lsit")
    assert r.rc == 2 and "unknown command 'lsit'" in r.err, r
    r = plugin("report", "base", "--format", "pdf")
    assert r.rc == 2 and "'pdf' is not one of txt, md, csv, json, svg" in r.err, r
    r = plugin("logs", "base", "--iteration", "0")
    assert r.rc == 2 and "--iteration: '0' is not a number" in r.err, r


def test_list(env):
    r = plugin("list", "-n", env.main)
    assert r.rc == 0, r
    lines = r.out.splitlines()
    assert lines[0].split() == ["NAME", "PHASE", "PROGRESS", "CLASSES", "REPORT", "AGE"]
    rows = {ln.split()[0]: ln.split() for ln in lines[1:]}
    assert sorted(rows) == ["base", "broken", "cur", "slow"]
    assert rows["base"][1:5] == ["Succeeded", "2/2", "fast", "base-report"]
    assert rows["cur"][1:5] == ["Succeeded", "2/2", "fast", "cur-report"]
    assert rows["broken"][1:5] == ["Failed", "1/2", "nope,fast", "broken-report"]
    assert re.fullmatch(r"\d+(s|m\d*s?)", rows["base"][5]), rows["base"]
    # the same through kubectl, and with $KUBECONFIG instead of --kubeconfig
    k = plugin("list", "-n", env.main, via_kubectl=True)
    assert k.rc == 0 and k.out.splitlines()[0] == lines[0], k
    e = plugin("list", f"--namespace={env.main}", kubeconfig=False, env={"KUBECONFIG": sb.KUBECONFIG})
    assert e.rc == 0 and len(e.out.splitlines()) == 5, e


def test_kubeconfig_list_is_merged_like_kubectl(env, tmp_path):
    """KUBECONFIG=a:missing:b with the context (and its namespace) in a and
    the cluster and user in b: both kubectl and the plugin merge the files."""
    with open(sb.KUBECONFIG) as f:
        whole = yaml.safe_load(f)
    ctx = whole["contexts"][0]
    ctx["context"]["namespace"] = env.main
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "Config", "contexts": [ctx],
                                 "current-context": ctx["name"]}))
    b.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "Config", "current-context": "elsewhere",
                                 "clusters": whole["clusters"], "users": whole["users"]}))
    merged = {"KUBECONFIG": f"{a}:{tmp_path / 'missing'}:{b}"}
    r = plugin("list", kubeconfig=False, env=merged)
    assert r.rc == 0, r
    names = sorted(ln.split()[0] for ln in r.out.splitlines()[1:])
    assert names == ["base", "broken", "cur", "slow"], r
    k = sb.run(["/usr/bin/env", f"KUBECONFIG={merged['KUBECONFIG']}", sb.KUBECTL, "get",
                "benchmarkruns", "-o", "name"], check=False)
    assert sorted(n.rsplit("/", 1)[1] for n in k.stdout.split()) == names, k.stdout + k.stderr
    # the first file alone has no cluster: the error names what is missing
    r = plugin("list", kubeconfig=False, env={"KUBECONFIG": str(a)})
    assert r.rc == 1 and "clusters: missing (looking for 'storagebench')" in r.err, r


def test_context_flag_like_kubectl(env, tmp_path):
    """--context picks another context than current-context, as kubectl's."""
    with open(sb.KUBECONFIG) as f:
        whole = yaml.safe_load(f)
    good = whole["contexts"][0]
    good["name"], good["context"]["namespace"] = "good", env.main
    dead = {"name": "dead", "cluster": {"server": "https://127.0.2.1:1",
                                        **{k: v for k, v in whole["clusters"][0]["cluster"].items()
                                           if k != "server"}}}
    whole["clusters"].append(dead)
    whole["contexts"] = [good, {"name": "elsewhere", "context": {
        "cluster": "dead", "user": good["context"]["user"]}}]
    whole["current-context"] = "elsewhere"
    kc = tmp_path / "config"
    kc.write_text(yaml.safe_dump(whole))
    r = plugin("list", "--context", "good", kubeconfig=False, env={"KUBECONFIG": str(kc)})
    assert r.rc == 0, r
    names = sorted(ln.split()[0] for ln in r.out.splitlines()[1:])
    assert names == ["base", "broken", "cur", "slow"], r
    k = sb.run(["/usr/bin/env", f"KUBECONFIG={kc}", sb.KUBECTL, "--context", "good", "get",
                "benchmarkruns", "-o", "name"], check=False)
    assert sorted(n.rsplit("/", 1)[1] for n in k.stdout.split()) == names, k.stdout + k.stderr
    r = plugin("list", f"--kubeconfig={kc}", kubeconfig=False)
    assert r.rc == 1 and "cannot reach the API server https://127.0.2.1:1" in r.err, r
    r = plugin("list", f"--kubeconfig={kc}", "--context=nope", kubeconfig=False)
    assert r.rc == 1 and "contexts: no entry named 'nope'" in r.err, r


def test_exec_credential_plugin_like_kubectl(env, tmp_path):
    """A kubeconfig whose user is an exec plugin (as on EKS, GKE, AKS): the
    plugin's token authenticates the plugin as it does kubectl; a plugin
    that fails is named with its exit status."""
    with open(sb.KUBECONFIG) as f:
        whole = yaml.safe_load(f)
    token = whole["users"][0]["user"]["token"]
    helper = tmp_path / "sb-credentials"
    helper.write_text(
        "#!/bin/sh\n"
        f"echo run >> {tmp_path / 'runs'}\n"
        "[ -n \"$SB_FAIL\" ] && { echo 'sb-credentials: not logged in' >&2; exit 4; }\n"
        "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",'\\\n"
        "'\"status\":{\"token\":\"%s\"}}\\n' \"$SB_TOKEN\"\n")
    helper.chmod(0o755)
    whole["users"][0]["user"] = {"exec": {
        "apiVersion": "client.authentication.k8s.io/v1", "command": str(helper),
        "env": [{"name": "SB_TOKEN", "value": token}], "interactiveMode": "Never",
        "installHint": "see the test"}}
    whole["contexts"][0]["context"]["namespace"] = env.main
    kc = tmp_path / "config"
    kc.write_text(yaml.safe_dump(whole))
    r = plugin("list", kubeconfig=False, env={"KUBECONFIG": str(kc)})
    assert r.rc == 0, r
    names = sorted(ln.split()[0] for ln in r.out.splitlines()[1:])
    assert names == ["base", "broken", "cur", "slow"], r
    assert (tmp_path / "runs").read_text().count("run") == 1  # one run, its token kept
    k = sb.run(["/usr/bin/env", f"KUBECONFIG={kc}", sb.KUBECTL, "get", "benchmarkruns", "-o", "name"],
               check=False)
    assert sorted(n.rsplit("/", 1)[1] for n in k.stdout.split()) == names, k.stdout + k.stderr
    bad = plugin("list", kubeconfig=False, env={"KUBECONFIG": str(kc), "SB_FAIL": "1"})
    assert bad.rc == 1, bad
    assert f"exec plugin '{helper}' exited with status 4" in bad.err, bad
    assert "sb-credentials: not logged in" in bad.err, bad  # its stderr passes through


def test_list_all_namespaces_and_empty(env):
    r = plugin("list", "-A")
    assert r.rc == 0, r
    lines = r.out.splitlines()
    assert lines[0].split()[:2] == ["NAMESPACE", "NAME"]
    pairs = {tuple(ln.split()[:2]) for ln in lines[1:]}
    assert {(env.main, "base"), (env.main, "cur"), (env.main, "broken"),
            (env.idle, "waiting")} <= pairs
    with sb.namespace("plugin-empty") as empty:
        r = plugin("list", "-n", empty)
        assert (r.rc, r.out) == (0, ""), r
        assert f"No resources found in {empty} namespace." in r.err


def test_report_every_format(env):
    cm = sb.kubectl_json("-n", env.main, "get", "configmap", "base-report")
    r = plugin("report", "base", "-n", env.main)
    assert r.rc == 0, r
    assert "fast: rr: " in r.out and "read IOPS on average with a standard deviation of" in r.out
    assert "over 2 iterations" in r.out
    assert r.out == cm["data"]["report.txt"]  # the same renderer as the controller
    md = plugin("report", f"{env.main}/base", "--format=md")
    assert md.rc == 0 and "- fast: rr: " in md.out and "|" in md.out, md
    csv = plugin("report", "base", "-n", env.main, "--format", "csv")
    assert csv.rc == 0, csv
    assert csv.out.splitlines()[0] == "target,workload,metric,unit,n,mean,stddev,min,max,median,cv"
    assert any(ln.startswith("fast,rr,read-iops,IOPS,2,") for ln in csv.out.splitlines())
    js = plugin("report", "base", "-n", env.main, "--format", "json")
    assert js.rc == 0, js
    doc = json.loads(js.out)
    assert doc["kind"] == "StoragebenchReport" and doc["name"] == "base"
    assert doc == json.loads(cm["data"]["report.json"])
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "base.svg")
        svg = plugin("report", "base", "-n", env.main, "--format", "svg", "-o", path)
        assert (svg.rc, svg.out) == (0, ""), svg
        root = ET.parse(path).getroot()
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        assert "fast" in ET.tostring(root, encoding="unicode")


def test_report_errors(env):
    r = plugin("report", "nope", "-n", env.main)
    assert r.rc == 1 and f"benchmarkrun 'nope' not found in namespace '{env.main}'" in r.err, r
    r = plugin("report", f"{env.main}/slow")
    assert r.rc == 1 and r.out == "", r
    assert re.search(r"benchmarkrun 'slow' has not finished: phase (Pending|Running), "
                     r"progress 0/1\n", r.err), r


def test_report_of_a_failed_run_is_partial(env):
    r = plugin("report", "broken", "-n", env.main)
    assert r.rc == 1, r
    assert "fast: rr: " in r.out and "nope" not in r.out  # what was measured
    assert "error: benchmarkrun 'broken' failed:" in r.err
    assert "class nope: StorageClassNotFound" in r.err
    assert "is partial" in r.err


def test_compare(env):
    r = plugin("compare", "base", "cur", "-n", env.main)
    assert r.rc == 0, r
    assert r.out.startswith("storagebench comparison: base -> cur\n"), r
    lines = [ln for ln in r.out.splitlines() if re.match(r"fast: (rr|sw): ", ln)]
    assert len(lines) == 2, r.out  # one headline metric per workload
    for ln in lines:  # "fast: rr: +1.1% (p=0.98, not significant)"
        assert re.fullmatch(r"fast: (rr|sw): [+-]\d+\.\d% \(p=[0-9.e-]+, (not )?significant.*\)",
                            ln), ln
    # the table names the metric of each line
    table = [ln.split("|") for ln in r.out.splitlines() if ln.startswith("fast ")]
    assert [[c.strip() for c in row[:3]] for row in table] == [["fast", "rr", "read-iops"],
                                                              ["fast", "sw", "write-iops"]], r.out
    # json, NAMESPACE/NAME and kubectl
    j = plugin("compare", f"{env.main}/base", f"{env.main}/cur", "--format=json", via_kubectl=True)
    assert j.rc == 0, j
    doc = json.loads(j.out)
    assert (doc["kind"], doc["baseline"], doc["current"]) == ("StoragebenchComparison", "base", "cur")
    m = doc["results"][0]["metrics"]["read-iops"]
    assert m["baseline"]["n"] == 2 and m["current"]["n"] == 2 and m["p"] is not None
    md = plugin("compare", "base", "cur", "-n", env.main, "--format", "md")
    assert md.rc == 0 and "| target" in md.out, md


def test_compare_names_the_missing_report(env):
    r = plugin("compare", f"{env.main}/slow", "nope", "-n", env.main)
    assert r.rc == 1 and r.out == "", r
    assert "benchmarkrun 'slow' has not finished" in r.err, r  # both are named
    assert f"benchmarkrun 'nope' not found in namespace '{env.main}'" in r.err, r
    r = plugin("compare", "gone", "base", "-n", env.main)
    assert r.rc == 1 and f"benchmarkrun 'gone' not found in namespace '{env.main}'" in r.err, r
    # a failed run with a partial report still compares, with a warning
    r = plugin("compare", "base", "broken", "-n", env.main)
    assert r.rc == 0 and "fast: rr: " in r.out and "(n too small)" in r.out, r
    assert "warning: benchmarkrun 'broken' (current) failed" in r.err


def test_logs_of_runner_pods(env):
    pods = runner_pods(env.main, "cur")  # cleanup: Never keeps them
    assert [p["metadata"]["name"] for p in pods] == ["cur-fast-1"]
    r = plugin("logs", "cur", "-n", env.main)
    assert r.rc == 0, r
    assert r.out.startswith("==> pod/cur-fast-1 (class fast, attempt 1, Succeeded) <==\n"), r
    for it in (1, 2):
        assert f"Started iteration iteration={it} of=2" in r.out
        assert f"=== fast, iteration {it} of 2" in r.out
    assert "Runner finished" in r.out
    two = plugin("logs", "cur", "-n", env.main, "--iteration", "2", "--class", "fast")
    assert two.rc == 0, two
    assert "=== fast, iteration 2 of 2" in two.out and "iteration 1 of 2" not in two.out, two
    none = plugin("logs", "cur", "-n", env.main, "--class", "disk")
    assert none.rc == 1 and "has no runner pods and no results for class disk" in none.err, none


def test_logs_of_a_running_run(env):
    sb.wait_pod_phase("slow-fast-1", env.main, phases=("Running",), timeout=60)

    def started():
        x = plugin("logs", "slow", "-n", env.main)
        return x if "Started iteration" in x.out else None
    r = sb.wait_for(started, timeout=30, what="the runner's first lines in `logs slow`")
    assert r.rc == 0, r
    assert r.out.startswith("==> pod/slow-fast-1 (class fast, attempt 1, Running) <==\n"), r
    assert "Runner started run=slow class=fast iterations=1" in r.out
    assert "Started iteration iteration=1 of=1" in r.out


def test_logs_after_cleanup_show_results(env):
    sb.wait_for(lambda: not runner_pods(env.main, "base"), timeout=60, what="cleanup of base")
    r = plugin("logs", "base", "-n", env.main, via_kubectl=True)
    assert r.rc == 0, r
    assert "runner pods of benchmarkrun 'base' were cleaned up" in r.err
    assert "spec.cleanup: Always" in r.err
    lines = r.out.splitlines()
    assert lines[0].split() == ["ITERATION", "CLASS", "WORKLOAD", "RW", "IOPS", "BANDWIDTH",
                                "LAT-MEAN", "LAT-P99"]
    rows = [ln.split()[:4] for ln in lines[1:]]
    assert rows == [["1", "fast", "rr", "read"], ["1", "fast", "sw", "write"],
                    ["2", "fast", "rr", "read"], ["2", "fast", "sw", "write"]], r.out
    assert all(re.search(r"[KMG]iB/s|B/s", ln) for ln in lines[1:])
    two = plugin("logs", "base", "-n", env.main, "--iteration=2")
    assert two.rc == 0 and [ln.split()[0] for ln in two.out.splitlines()[1:]] == ["2", "2"], two
    # the failed run: its unknown class never ran, its other class has results
    b = plugin("logs", "broken", "-n", env.main)
    assert b.rc == 0 and [ln.split()[:2] for ln in b.out.splitlines()[1:]] == \
        [["1", "fast"], ["1", "fast"]], b
    w = plugin("logs", "broken", "-n", env.main, "--class", "nope")
    assert w.rc == 1 and "has no runner pods and no results for class nope" in w.err, w


def test_bad_kubeconfig(env):
    r = plugin("list", "--kubeconfig=/nonexistent/config", kubeconfig=False)
    assert r.rc == 1 and "kubeconfig '/nonexistent/config' not found" in r.err, r
    with tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
        # a valid file pointing at a port nobody listens on
        with open(sb.KUBECONFIG) as src:
            f.write(src.read().replace(sb.API_URL, "https://127.0.2.1:1"))
        f.flush()
        r = plugin("list", f"--kubeconfig={f.name}", kubeconfig=False)
        assert r.rc == 1 and "cannot reach the API server https://127.0.2.1:1" in r.err, r


def test_logs_follow_streams_a_run_to_its_end(env):
    """logs -f started before the run has a pod: the runner's lines of every
    iteration as they come, then the end of the run. The pods are deleted
    when the run ends (cleanup Always), so only a stream can have read them."""
    sb.apply(small("followed", iterations=2), namespace=env.main)
    try:
        r = plugin("logs", "followed", "-n", env.main, "-f", timeout=300)
        assert r.rc == 0, r
        assert br(env.main, "followed")["status"]["phase"] == "Succeeded"
        assert r.out.startswith("==> pod/followed-fast-1 (class fast, attempt 1) <==\n"), r
        for it in (1, 2):
            assert f"Started iteration iteration={it} of=2" in r.out, r
            assert f"=== fast, iteration {it} of 2" in r.out, r
        assert r.out.count("Runner finished") == 1 and r.out.endswith("\n"), r  # once
        assert "benchmarkrun 'followed' Succeeded: 2 iterations on 1 storage class" in r.err, r
        # a run that fails: its pod's log (or, if it ended first, its
        # results), then why, exit 1, so `logs -f && report` stops there
        sb.apply(small("followed-bad", classes=("fast", "nope"), iterations=1), namespace=env.main)
        bad = plugin("logs", "-f", f"{env.main}/followed-bad", "--class=fast", timeout=300)
        assert bad.rc == 1, bad
        assert "=== fast, iteration 1 of 1" in bad.out or bad.out.startswith("ITERATION"), bad
        assert "benchmarkrun 'followed-bad' failed:" in bad.err, bad
        assert "storage class 'nope' does not exist" in bad.err, bad
    finally:
        for n in ("followed", "followed-bad"):
            sb.delete("benchmarkrun", n, namespace=env.main)
