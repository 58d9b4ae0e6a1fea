"""kubectl-storagebench through the fault proxy: what a person sees when the
API server answers badly, and the retries of the pod log GET (which does
not go through lib/kube's request function).

The proxy is shared: rules here match only paths in this session's
namespace and are removed by id (never a reset of everyone's rules)."""
import contextlib
import re

from conftest import plugin, sb


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


def via_proxy(*args):
    return plugin(*args, f"--kubeconfig={sb.KUBECONFIG_PROXY}", kubeconfig=False)


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
