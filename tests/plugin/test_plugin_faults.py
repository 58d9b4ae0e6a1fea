"""kubectl-storagebench through the fault proxy: what a person sees when the
API server answers badly, and the retries of the pod log GET (which does
not go through lib/kube's request function).

The proxy is shared: rules here match only paths in this session's
namespace and are removed by id (never a reset of everyone's rules)."""
import contextlib
import re

from conftest import plugin, sb, small


@contextlib.contextmanager
def rule(**r):
    fp = sb.FaultProxy()
    rid = fp.add(**r)
    try:
        yield fp
    finally:
        try:
            fp.remove(rid)
        except sb.ClusterError:
            pass  # used up: already gone


def via_proxy(*args, timeout=60):
    return plugin(*args, f"--kubeconfig={sb.KUBECONFIG_PROXY}", kubeconfig=False, timeout=timeout)


def test_crd_not_installed(env):
    # what a cluster without the CRD answers when the group is known
    missing = {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound",
               "message": "the server could not find the requested resource", "code": 404}
    with rule(method="GET", path=f"/apis/storagebench.io/v1alpha1/namespaces/{env.main}/",
              action="status", status=404, body=missing, count=-1):
        r = via_proxy("list", "-n", env.main)
        assert r.rc == 1 and "is the storagebench CRD installed?" in r.err, r
        r = via_proxy("report", "base", "-n", env.main)
        assert r.rc == 1 and "is the storagebench CRD installed?" in r.err, r
        assert "not found in namespace" not in r.err


def test_forbidden_and_server_errors(env):
    path = f"/apis/storagebench.io/v1alpha1/namespaces/{env.main}/benchmarkruns"
    with rule(method="GET", path=path, action="status", status=403, count=-1):
        r = via_proxy("list", "-n", env.main)
        assert r.rc == 1, r
        assert f"cannot list benchmarkruns in namespace '{env.main}': forbidden:" in r.err
    # one 503 is retried away; a server that keeps failing is reported
    with rule(method="GET", path=path + "$", action="status", status=503, count=1):
        r = via_proxy("list", "-n", env.main)
        assert r.rc == 0 and "base" in r.out, r
    with rule(method="GET", path=path + "$", action="status", status=503, count=-1):
        r = via_proxy("list", "-n", env.main)
        assert r.rc == 1 and "(http 503" in r.err, r


def test_pod_log_retried_and_errors(env):
    log_path = f"/api/v1/namespaces/{env.main}/pods/cur-fast-1/log"
    fp = sb.FaultProxy()
    with rule(method="GET", path=re.escape(log_path), action="status", status=503, count=1):
        r = via_proxy("logs", "cur", "-n", env.main)
        assert r.rc == 0 and "==> pod/cur-fast-1" in r.out and "Runner finished" in r.out, r
    seen = [e["status"] for e in fp.log() if e["path"].startswith(log_path)]
    assert seen[-2:] == [503, 200], seen
    with rule(method="GET", path=re.escape(log_path), action="drop", count=1):
        r = via_proxy("logs", "cur", "-n", env.main)
        assert r.rc == 0 and "Runner finished" in r.out, r  # a dropped connection too
    with rule(method="GET", path=re.escape(log_path), action="status", status=403, count=-1):
        r = via_proxy("logs", "cur", "-n", env.main)
        assert r.rc == 1 and "warning: no log from pod 'cur-fast-1':" in r.err, r
        assert "http 403" in r.err


def test_logs_follow_waits_out_the_kubelets_error_answers(env):
    """The kubelet answers 200 with an error text instead of the log of a
    container it does not see yet (its log file not there): logs -f neither
    prints that text as the runner's words nor loses the lines written
    meanwhile; it asks again from the log's start."""
    name = "kerr"
    text = ('failed to try resolving symlinks in path "/var/log/pods/x/runner/0.log": '
            "lstat /var/log/pods/x/runner/0.log: no such file or directory")
    log_path = f"/api/v1/namespaces/{env.main}/pods/{name}-fast-1/log"
    fp = sb.FaultProxy()
    sb.apply(small(name, iterations=2), namespace=env.main)
    try:
        with rule(method="GET", path=re.escape(log_path), action="status", status=200, text=text, count=2):
            r = via_proxy("logs", name, "-n", env.main, "-f", timeout=300)
        assert r.rc == 0, r
        assert "failed to try resolving" not in r.out, r
        assert r.out.startswith(f"==> pod/{name}-fast-1 (class fast, attempt 1) <==\n"), r
        for it in (1, 2):
            assert f"Started iteration iteration={it} of=2" in r.out, r
        assert r.out.count("Runner finished") == 1, r
        seen = [e["status"] for e in fp.log() if e["path"].startswith(log_path)]
        assert seen[:2] == [200, 200] and len(seen) >= 3, seen  # the two answers, then the log
    finally:
        sb.delete("benchmarkrun", name, namespace=env.main)
