"""sbcluster: Python helpers for tests that run against the test cluster.

Standard library only; for Debian's /usr/bin/python3. Importable from any
test directory:

    import os, sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "cluster"))
    import sbcluster as sb

    def test_something():
        sb.require_cluster()                      # pytest.skip with the reason if not up
        with sb.namespace("mytest") as ns:        # fresh namespace, deleted afterwards
            sb.apply(YAML, namespace=ns)          # kubectl apply -f -
            sb.wait_pod_done("p", ns)             # -> the pod object
            assert "hello" in sb.logs("p", ns)

Everything in the cluster is reachable only inside its control plane's
network namespace "storagebench": run the tests there
(tests/suites/50-cluster.sh does, or tests/cluster/in-netns.sh
/usr/bin/python3 -m pytest ...). kubectl() works from outside too (it
enters the namespace with nsenter); api() and the fault proxy client need
to be inside. (A second instance: SB_OUT names its build/cluster-PREFIX.)

Names:
  KUBECONFIG, KUBECONFIG_CERT, KUBECONFIG_PROXY, CA_CERT   files in build/cluster/
  API_URL (https://10.254.254.1:443), API_IP, PROXY_URL (https://127.0.0.1:16444),
  PROXY_CONTROL_URL (http://127.0.0.1:16445), KUBERNETES_SVC_IP (10.96.0.1),
  SERVICE_CIDR (10.96.0.0/24), POD_CIDR (10.244.0.0/16)
  NODES (storagebench-a, -b, -c; fewer with SB_NODES), NODE (the first),
  NODE_IPS {name: ip}, NODE_IP (the first's), ZONE_LABEL,
  IMAGE (localhost/storagebench:<VERSION>, the product image: static),
  DYN_IMAGE (localhost/storagebench-dyn:<VERSION>, test only: the runner
  linked against shared libraries, which the clock fault shifts; DYN_REPO
  its repository, for --runner-allowed-images),
  TEST_IMAGE (localhost/storagebench-test:1, entrypoint /sbtest: see
  tests/cluster/images/sbtest.c), FAST ("fast", /dev/shm), DISK ("disk",
  /var/tmp; the default class), IMMEDIATE ("disk-immediate"), CLASSES,
  SECCOMP_NO_IOURING ("storagebench/no-iouring.json", for
  securityContext.seccompProfile {type: Localhost, localhostProfile: ...})

Faults: fault("stop", "kubelet-b"), fault("start", "kubelet-b"),
fault("kill", "containerd-a"), fault("restart-node", "c"),
fault("stop-control-plane"), fault("start-control-plane") run
tests/cluster/fault.sh (see there); node_ready(name), in_node(letter, cmd).
FaultProxy() is the client of the one shared fault proxy (serial tests);
PrivateFaultProxy() starts a fault proxy of the test's own.
"""
import contextlib
import json
import os
import shlex
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.request
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.environ.get("SB_OUT") or os.path.join(ROOT, "build", "cluster")


def read_env(path, missing_ok=True):
    """A shell env file of `export K=V` lines (build/cluster/env, ceph.env)
    as a dict; {} when it is missing and missing_ok."""
    out = {}
    try:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line.startswith("export ") and "=" in line:
                    k, v = line[7:].split("=", 1)
                    out[k] = shlex.split(v)[0] if v else ""
    except FileNotFoundError:
        if not missing_ok:
            raise
    return out


_ENV0 = read_env(os.path.join(OUT, "env"))
KUBECONFIG = os.path.join(OUT, "kubeconfig")
KUBECONFIG_CERT = os.path.join(OUT, "kubeconfig-cert")
KUBECONFIG_PROXY = os.path.join(OUT, "kubeconfig-proxy")
CA_CERT = os.path.join(OUT, "ca.crt")
ENV_FILE = os.path.join(OUT, "env")
NETNS = _ENV0.get("NETNS", "storagebench")
NETNS_PATH = "/var/run/netns/" + NETNS
NSENTER = ["nsenter", "--net=" + NETNS_PATH, "--"]
API_IP = "10.254.254.1"
API_URL = f"https://{API_IP}:443"
PROXY_URL = "https://127.0.0.1:16444"
PROXY_CONTROL_URL = "http://127.0.0.1:16445"
KUBERNETES_SVC_IP = "10.96.0.1"
SERVICE_CIDR = "10.96.0.0/24"
POD_CIDR = "10.244.0.0/16"
NODES = tuple((_ENV0.get("SB_NODE_NAMES") or "storagebench-a storagebench-b storagebench-c").split())
NODE_IPS = dict(zip(NODES, (_ENV0.get("SB_NODE_IPS") or "10.254.254.11 10.254.254.12 10.254.254.13").split()))
NODE = NODES[0]
NODE_IP = NODE_IPS[NODE]
ZONE_LABEL = "topology.kubernetes.io/zone"
FAULT = os.path.join(HERE, "fault.sh")
KUBECTL = "/usr/bin/kubectl"
with open(os.path.join(ROOT, "VERSION")) as _f:
    VERSION = _f.read().strip()
IMAGE = "localhost/storagebench:" + VERSION
DYN_REPO = "localhost/storagebench-dyn"
DYN_IMAGE = DYN_REPO + ":" + VERSION
TEST_IMAGE = "localhost/storagebench-test:1"
FAST, DISK, IMMEDIATE = "fast", "disk", "disk-immediate"
FAST_DELAYED = "fast-delayed"  # fast, provisioned 500 ms late (provisioner test knob)
CLASSES = (FAST, DISK, IMMEDIATE)
PROVISIONER = "storagebench.io/local-dir"
SECCOMP_NO_IOURING = "storagebench/no-iouring.json"
STATE = _ENV0.get("SB_STATE") or os.environ.get("SB_STATE", "/var/lib/storagebench/cluster")


def letter(node):
    """The letter of a node name (storagebench-b -> b); a letter stays itself."""
    return node.rsplit("-", 1)[-1]


def containerd_sock(node=None):
    """The containerd socket of a node (name or letter; default the first)."""
    return os.path.join(STATE, "nodes", letter(node or NODE), "containerd", "containerd.sock")


CONTAINERD_SOCK = containerd_sock()


class ClusterError(Exception):
    """A kubectl or API call failed, or something did not happen in time."""


def env():
    """build/cluster/env as a dict ({} when the cluster is not up)."""
    return read_env(ENV_FILE)


def in_netns():
    """True when this process runs inside the cluster's network namespace."""
    try:
        return os.stat("/proc/self/ns/net").st_ino == os.stat(NETNS_PATH).st_ino
    except OSError:
        return False


def cluster_up():
    """True when the cluster is up (env written by cluster-up, netns present)."""
    return os.path.exists(ENV_FILE) and os.path.exists(NETNS_PATH)


def require_cluster():
    """pytest.skip (with the reason) unless the cluster is up and this runs in its namespace."""
    import pytest
    if not cluster_up():
        pytest.skip("the test cluster is not up (make cluster-up)")
    if not in_netns():
        pytest.skip("not inside the cluster's network namespace (run via tests/cluster/in-netns.sh)")


def _prefix():
    return [] if in_netns() else NSENTER


def run(cmd, input=None, check=True, timeout=120, env_extra=None):
    """Run a command inside the namespace; returns CompletedProcess (text)."""
    e = dict(os.environ)
    e.update(env_extra or {})
    p = subprocess.run(_prefix() + list(cmd), input=input, capture_output=True, text=True,
                       timeout=timeout, env=e)
    if check and p.returncode != 0:
        raise ClusterError(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()[:2000]}")
    return p


def kubectl(*args, input=None, check=True, timeout=120, kubeconfig=None):
    """/usr/bin/kubectl with the admin kubeconfig (or the one given); returns stdout.
    With check=False returns the CompletedProcess instead."""
    p = run([KUBECTL, "--kubeconfig=" + (kubeconfig or KUBECONFIG)] + [str(a) for a in args],
            input=input, check=check, timeout=timeout)
    return p.stdout if check else p


def kubectl_json(*args, **kw):
    """kubectl ... -o json, parsed."""
    return json.loads(kubectl(*args, "-o", "json", **kw))


def apply(manifest, namespace=None):
    """kubectl apply -f - of a YAML/JSON string, or of a dict/list (sent as JSON)."""
    if not isinstance(manifest, str):
        if isinstance(manifest, list):
            manifest = {"apiVersion": "v1", "kind": "List", "items": manifest}
        manifest = json.dumps(manifest)
    args = ["apply", "-f", "-"] + (["-n", namespace] if namespace else [])
    return kubectl(*args, input=manifest)


def delete(kind, name, namespace=None, wait=False):
    args = ["delete", kind, name, "--ignore-not-found", "--wait=" + ("true" if wait else "false")]
    return kubectl(*args + (["-n", namespace] if namespace else []))


def admin_token():
    with open(KUBECONFIG) as f:
        for line in f:
            if line.strip().startswith("token:"):
                return line.split(":", 1)[1].strip()
    raise ClusterError("no token in " + KUBECONFIG)


_ctx = None


def _ssl():
    global _ctx
    if _ctx is None:
        _ctx = ssl.create_default_context(cafile=CA_CERT)
    return _ctx


def api(method, path, body=None, token=None, url=None, timeout=30, raw=False):
    """One HTTPS request to the API server (or url, e.g. PROXY_URL) with the
    admin token (or token). Returns (status, parsed JSON or text). Must run
    inside the namespace."""
    data = json.dumps(body).encode() if body is not None and not isinstance(body, bytes) else body
    req = urllib.request.Request((url or API_URL) + path, data=data, method=method)
    req.add_header("Authorization", "Bearer " + (token or admin_token()))
    req.add_header("Accept", "application/json")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, context=_ssl(), timeout=timeout) as r:
            code, text = r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        code, text = e.code, e.read().decode()
    if raw:
        return code, text
    try:
        return code, json.loads(text) if text else {}
    except ValueError:
        return code, text


def get(path, **kw):
    """GET path; the object, or None on 404; ClusterError otherwise."""
    code, obj = api("GET", path, **kw)
    if code == 404:
        return None
    if code != 200:
        raise ClusterError(f"GET {path}: {code} {obj}")
    return obj


def wait_for(fn, timeout=60, interval=0.2, what="condition"):
    """Call fn until it returns something truthy; return that. ClusterError
    after timeout seconds (the message names `what` and the last value)."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        last = fn()
        if last:
            return last
        if time.monotonic() > deadline:
            raise ClusterError(f"timed out after {timeout}s waiting for {what} (last: {str(last)[:300]})")
        time.sleep(interval)


def pod(name, namespace):
    return get(f"/api/v1/namespaces/{namespace}/pods/{name}")


def wait_pod_phase(name, namespace, phases=("Running", "Succeeded", "Failed"), timeout=120):
    """Wait until the pod is in one of phases; returns the pod object."""
    def check():
        p = pod(name, namespace)
        return p if p and (p.get("status") or {}).get("phase") in phases else None
    return wait_for(check, timeout, what=f"pod {namespace}/{name} in {phases}")


def wait_pod_done(name, namespace, timeout=120):
    """Wait until the pod is Succeeded or Failed; returns the pod object."""
    return wait_pod_phase(name, namespace, ("Succeeded", "Failed"), timeout)


def exit_code(p, container=None):
    """The exit code of the (first or named) container of a finished pod object."""
    for cs in p["status"].get("containerStatuses", []):
        if container is None or cs["name"] == container:
            t = cs.get("state", {}).get("terminated")
            return None if t is None else t.get("exitCode")
    return None


def logs(name, namespace, container=None):
    """kubectl logs."""
    return kubectl("logs", "-n", namespace, name, *(["-c", container] if container else []))


def pvc(name, namespace):
    return get(f"/api/v1/namespaces/{namespace}/persistentvolumeclaims/{name}")


def wait_pvc_bound(name, namespace, timeout=90):
    """Wait until the claim is Bound; returns the PVC object."""
    def check():
        c = pvc(name, namespace)
        return c if c and (c.get("status") or {}).get("phase") == "Bound" else None
    return wait_for(check, timeout, what=f"PVC {namespace}/{name} Bound")


def wait_crd_established(name, timeout=30):
    def check():
        c = get(f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}")
        conds = ((c or {}).get("status") or {}).get("conditions") or []
        return any(x["type"] == "Established" and x["status"] == "True" for x in conds)
    return wait_for(check, timeout, what=f"CRD {name} Established")


def wait_service_account(name, namespace, timeout=30):
    """Wait until the ServiceAccount exists with its token secret (pods
    cannot be created before that)."""
    def check():
        sa = get(f"/api/v1/namespaces/{namespace}/serviceaccounts/{name}")
        return sa if sa and sa.get("secrets") else None
    return wait_for(check, timeout, what=f"ServiceAccount {namespace}/{name} with a token")


@contextlib.contextmanager
def namespace(prefix="t", keep=False):
    """A fresh namespace PREFIX-xxxxxx, its default ServiceAccount ready;
    deleted (without waiting) afterwards unless keep or SB_KEEP_NAMESPACES=1."""
    name = f"{prefix}-{uuid.uuid4().hex[:6]}"
    code, obj = api("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                   "metadata": {"name": name}})
    if code != 201:
        raise ClusterError(f"creating namespace {name}: {code} {obj}")
    try:
        wait_service_account("default", name)
        yield name
    finally:
        if not keep and os.environ.get("SB_KEEP_NAMESPACES") != "1":
            api("DELETE", f"/api/v1/namespaces/{name}")


def simple_pod(name, args, image=TEST_IMAGE, command=None, volumes=None, mounts=None, devices=None,
               seccomp=None, service_account=None, restart="Never", run_as_user=None, node=None,
               labels=None, ports=None):
    """A Pod dict with one container "c": image, args (and command), volumes
    [{"name":..., ...}], mounts [{"name","mountPath"}], devices
    [{"name","devicePath"}] (Block PVCs), a Localhost seccomp profile name,
    a ServiceAccount, a node (name: a nodeSelector on kubernetes.io/hostname),
    labels, container ports [int]. imagePullPolicy Never: nothing is pulled."""
    c = {"name": "c", "image": image, "imagePullPolicy": "Never", "args": list(args)}
    if command is not None:
        c["command"] = list(command)
    if mounts:
        c["volumeMounts"] = mounts
    if devices:
        c["volumeDevices"] = devices
    if ports:
        c["ports"] = [{"containerPort": p} for p in ports]
    spec = {"restartPolicy": restart, "containers": [c], "terminationGracePeriodSeconds": 1,
            "automountServiceAccountToken": service_account is not None}
    if volumes:
        spec["volumes"] = volumes
    if node:
        spec["nodeSelector"] = {"kubernetes.io/hostname": node}
    if service_account:
        spec["serviceAccountName"] = service_account
    sc = {}
    if seccomp:
        sc["seccompProfile"] = {"type": "Localhost", "localhostProfile": seccomp}
    if run_as_user is not None:
        sc["runAsUser"] = run_as_user
    if sc:
        spec["securityContext"] = sc
    md = {"name": name}
    if labels:
        md["labels"] = dict(labels)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": spec}


def pvc_manifest(name, storage_class, size="64Mi", mode="Filesystem", access=("ReadWriteOnce",)):
    """A PersistentVolumeClaim dict."""
    spec = {"accessModes": list(access), "resources": {"requests": {"storage": size}}, "volumeMode": mode}
    if storage_class is not None:
        spec["storageClassName"] = storage_class
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name}, "spec": spec}


def ctr(*args, check=True, node=None):
    """ctr against a node's containerd (default the first node; namespace
    k8s.io); returns stdout."""
    p = subprocess.run(["ctr", "-a", containerd_sock(node), "-n", "k8s.io"] + list(args),
                       capture_output=True, text=True, timeout=60)
    if check and p.returncode != 0:
        raise ClusterError(f"ctr {' '.join(args)}: {p.stderr.strip()}")
    return p.stdout


def fault(*args, timeout=120):
    """tests/cluster/fault.sh ARGS... (stop/kill/start NAME, restart-node X, stop-node X, start-node X,
    stop-control-plane, start-control-plane, state NAME); returns stdout,
    ClusterError when it fails."""
    p = subprocess.run(["bash", FAULT] + list(args), capture_output=True, text=True, timeout=timeout,
                       env=dict(os.environ, SB_OUT=OUT))
    if p.returncode != 0:
        raise ClusterError(f"fault.sh {' '.join(args)}: exit {p.returncode}: {p.stderr.strip()[-2000:]}")
    return p.stdout


def log_path(name):
    """A path for a test's own log or scratch file (a controller's log, a
    kubeconfig): SB_OUT/testlogs/NAME, under build/, never /tmp, so that a
    run leaves nothing on the machine outside the checkout."""
    d = os.path.join(OUT, "testlogs")
    os.makedirs(d, exist_ok=True)
    return os.path.join(d, name)


def in_node(node, cmd, check=True, timeout=60):
    """Run cmd inside a node's (name or letter) network and mount namespaces."""
    p = subprocess.run(["bash", os.path.join(HERE, "in-netns.sh"), "--node", letter(node)] + list(cmd),
                       capture_output=True, text=True, timeout=timeout, env=dict(os.environ, SB_OUT=OUT))
    if check and p.returncode != 0:
        raise ClusterError(f"in node {node}: {' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()[:2000]}")
    return p


def node_ready(name):
    """The node's Ready condition status: "True", "False", "Unknown" (or None)."""
    n = get(f"/api/v1/nodes/{name}")
    for c in ((n or {}).get("status") or {}).get("conditions") or []:
        if c["type"] == "Ready":
            return c["status"]
    return None


class FaultProxy:
    """Client of the fault proxy's control port (inside the namespace).

        fp = sb.FaultProxy()
        fp.add(method="GET", path="/api/v1/namespaces/x/pods", action="status", status=503, retry_after=1)
        ... point the code under test at sb.PROXY_URL / sb.KUBECONFIG_PROXY ...
        assert fp.log()[-1]["status"] == 503
        fp.reset()                                # rules and log cleared

    Used as a context manager it resets on entry and exit."""

    def __init__(self, url=PROXY_CONTROL_URL):
        self.url = url

    def _call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return json.loads(r.read())
        except urllib.error.HTTPError as e:
            raise ClusterError(f"fault proxy {method} {path}: {e.code} {e.read().decode()}") from None

    def add(self, **rule):
        """Add a rule (keywords as in the JSON interface); returns its id."""
        return self._call("POST", "/rules", rule)["id"]

    def rules(self):
        return self._call("GET", "/rules")

    def clear(self):
        return self._call("DELETE", "/rules")

    def remove(self, rule_id):
        return self._call("DELETE", f"/rules/{rule_id}")

    def log(self):
        return self._call("GET", "/log")

    def clear_log(self):
        return self._call("DELETE", "/log")

    def reset(self):
        self.clear()
        self.clear_log()

    def __enter__(self):
        self.reset()
        return self

    def __exit__(self, *exc):
        self.reset()
        return False


class PrivateFaultProxy(FaultProxy):
    """A fault proxy of one test's own: tests/cluster/faultproxy.py started
    inside the namespace on two loopback ports of this process's range (one
    range per pytest-xdist worker, as the e2e controllers' metrics ports), in
    front of the API server, with the shared proxy's certificate (SANs
    127.0.0.1, localhost: any port). Its rules and log are the test's alone,
    so a test that uses it instead of the shared one need not be serial.

        with sb.PrivateFaultProxy() as fp:
            fp.add(...)
            ... the code under test with fp.kubeconfig (fp.proxy_url) ...

    The process starts in the constructor (it answers on both ports when
    that returns) and ends at close() or the end of the with block."""

    _worker = os.environ.get("PYTEST_XDIST_WORKER", "gw")[2:]
    _next = [16500 + 100 * (int(_worker) + 1 if _worker.isdigit() else 0) + 2 * (os.getpid() % 20)]

    def __init__(self, tries=10):
        pki = os.environ.get("SB_PKI") or f"/var/lib/{_ENV0.get('SB_PREFIX', 'storagebench')}/pki"
        self.proc = None
        for _ in range(tries):
            port = PrivateFaultProxy._next[0]
            PrivateFaultProxy._next[0] += 2
            super().__init__(f"http://127.0.0.1:{port + 1}")
            self.proxy_url = f"https://127.0.0.1:{port}"
            self.logpath = log_path(f"faultproxy-{os.getpid()}-{port}.log")
            with open(self.logpath, "w") as logf:
                self.proc = subprocess.Popen(
                    _prefix() + ["/usr/bin/python3", "-u", os.path.join(HERE, "faultproxy.py"),
                                 "--listen", f"127.0.0.1:{port}", "--control", f"127.0.0.1:{port + 1}",
                                 "--cert", os.path.join(pki, "faultproxy.crt"),
                                 "--key", os.path.join(pki, "faultproxy.key"),
                                 "--upstream", API_URL, "--ca", os.path.join(pki, "ca.crt")],
                    stdout=logf, stderr=subprocess.STDOUT)
            if self._serving(port):
                break
        else:
            raise ClusterError(f"no private fault proxy started in {tries} tries: {self.logpath}")
        with open(KUBECONFIG_PROXY) as f:
            text = f.read()
        assert PROXY_URL in text, KUBECONFIG_PROXY
        self.kubeconfig = log_path(f"kubeconfig-proxy-{os.getpid()}-{port}")
        with open(self.kubeconfig, "w") as f:
            f.write(text.replace(PROXY_URL, self.proxy_url))

    def _serving(self, port, timeout=30):
        """Both ports answer (True), or the process ended (a port in use: False)."""
        end = time.monotonic() + timeout
        while self.proc.poll() is None:
            try:
                self.rules()
                socket.create_connection(("127.0.0.1", port), timeout=2).close()
                return True
            except (OSError, ClusterError):
                if time.monotonic() > end:
                    self.close()
                    raise ClusterError(f"private fault proxy on {port}: not serving after {timeout} s")
                time.sleep(0.05)
        return False

    def close(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if getattr(self, "kubeconfig", None) and os.path.exists(self.kubeconfig):
            os.remove(self.kubeconfig)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
