"""The fault-injecting proxy (tests/cluster/faultproxy.py): pass-through of
requests, bodies, watches and upgrades, and each rule action."""
import http.client
import json
import socket
import ssl
import threading
import time
import urllib.error
import urllib.request

import pytest

import sbcluster as sb

# the one shared fault proxy (tests/pytest.ini)
pytestmark = pytest.mark.serial

HOST, PORT = "127.0.0.1", 16444


def conn(timeout=10):
    ctx = ssl.create_default_context(cafile=sb.CA_CERT)
    return http.client.HTTPSConnection(HOST, PORT, context=ctx, timeout=timeout)


def request(method, path, body=None, c=None, headers=None):
    """One request through the proxy; returns (status, headers, parsed body)."""
    c = c or conn()
    h = {"Authorization": "Bearer " + sb.admin_token(), "Accept": "application/json"}
    h.update(headers or {})
    if body is not None:
        body = json.dumps(body)
        h["Content-Type"] = "application/json"
    c.request(method, path, body=body, headers=h)
    r = c.getresponse()
    data = r.read()
    try:
        data = json.loads(data)
    except ValueError:
        pass
    return r.status, r, data


def test_passthrough_get_post_delete(proxy, ns):
    c = conn()
    st, _, v = request("GET", "/version", c=c)
    assert st == 200 and v["gitVersion"] == "v1.20.2"
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "viaproxy"}, "data": {"k": "v" * 5000}}
    st, _, obj = request("POST", f"/api/v1/namespaces/{ns}/configmaps", cm, c=c)  # keep-alive reuse
    assert st == 201 and obj["data"]["k"] == "v" * 5000
    assert sb.get(f"/api/v1/namespaces/{ns}/configmaps/viaproxy")["data"]["k"] == "v" * 5000
    st, _, _ = request("DELETE", f"/api/v1/namespaces/{ns}/configmaps/viaproxy", c=c)
    assert st == 200
    log = proxy.log()
    assert [(e["method"], e["status"], e["action"]) for e in log[-3:]] == [
        ("GET", 200, "forward"), ("POST", 201, "forward"), ("DELETE", 200, "forward")]


def test_kubectl_through_proxy_kubeconfig(proxy, ns):
    out = sb.kubectl("get", "namespace", ns, "-o", "name", kubeconfig=sb.KUBECONFIG_PROXY)
    assert out.strip() == f"namespace/{ns}"
    assert any(e["path"].startswith(f"/api/v1/namespaces/{ns}") for e in proxy.log())


def test_watch_streams_unbuffered(proxy, ns):
    c = conn(timeout=15)
    c.request("GET", f"/api/v1/namespaces/{ns}/configmaps?watch=1&timeoutSeconds=10",
              headers={"Authorization": "Bearer " + sb.admin_token()})
    r = c.getresponse()
    assert r.status == 200
    t0 = time.monotonic()

    def create():
        time.sleep(0.5)
        sb.api("POST", f"/api/v1/namespaces/{ns}/configmaps",
               {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "watched"}})
    threading.Thread(target=create).start()
    while True:
        ev = json.loads(r.readline())
        if ev["object"]["metadata"]["name"] == "watched":
            break
    assert ev["type"] == "ADDED"
    assert time.monotonic() - t0 < 3, "the event was held back"
    c.close()


@pytest.mark.parametrize("code,reason", [(500, "InternalError"), (503, "ServiceUnavailable"),
                                         (429, "TooManyRequests")])
def test_status_rule(proxy, code, reason):
    rule = {"method": "GET", "path": "^/api/v1/namespaces/default$", "action": "status", "status": code}
    if code in (429, 503):
        rule["retry_after"] = 2
    rid = proxy.add(**rule)
    assert isinstance(rid, int)
    st, r, body = request("GET", "/api/v1/namespaces/default")
    assert st == code
    assert r.getheader("Content-Type") == "application/json"
    assert body["kind"] == "Status" and body["apiVersion"] == "v1" and body["status"] == "Failure"
    assert body["code"] == code and body["reason"] == reason
    assert body["message"] == "injected by storagebench fault proxy"
    if code in (429, 503):
        assert r.getheader("Retry-After") == "2"
        assert body["details"]["retryAfterSeconds"] == 2
    # count 1: the next request goes through, the rule is used up
    st, _, _ = request("GET", "/api/v1/namespaces/default")
    assert st == 200
    assert proxy.rules() == []
    assert [(e["status"], e["action"]) for e in proxy.log()[-2:]] == [(code, "status"), (200, "forward")]


def test_status_rule_count_method_and_body(proxy):
    body = {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Conflict", "code": 409,
            "message": "custom"}
    proxy.add(method="PUT", path="configmaps", action="status", status=409, body=body, count=2)
    # GET does not match a PUT rule
    assert request("GET", "/api/v1/namespaces/default/configmaps")[0] == 200
    for _ in range(2):
        st, _, b = request("PUT", "/api/v1/namespaces/default/configmaps/x", {"metadata": {"name": "x"}})
        assert st == 409 and b == body
    assert proxy.rules() == []


def test_status_410_on_watch_is_an_error_event(proxy, ns):
    proxy.add(method="GET", path=f"namespaces/{ns}/configmaps\\?.*watch=1", action="status", status=410)
    c = conn()
    c.request("GET", f"/api/v1/namespaces/{ns}/configmaps?watch=1&resourceVersion=1",
              headers={"Authorization": "Bearer " + sb.admin_token()})
    r = c.getresponse()
    assert r.status == 200
    ev = json.loads(r.readline())
    assert ev["type"] == "ERROR" and ev["object"]["code"] == 410 and ev["object"]["reason"] == "Expired"
    assert r.readline() == b""  # then the stream ends
    # and as a plain HTTP 410 when asked
    proxy.add(path="^/api/v1/namespaces/default$", action="status", status=410, as_watch_event=False)
    assert request("GET", "/api/v1/namespaces/default")[0] == 410


def test_drop(proxy):
    proxy.add(method="*", path="^/version$", action="drop")
    c = conn()
    with pytest.raises((http.client.RemoteDisconnected, ConnectionError, ssl.SSLError)):
        request("GET", "/version", c=c)
    assert request("GET", "/version")[0] == 200
    assert [(e["status"], e["action"]) for e in proxy.log()[-2:]] == [(None, "drop"), (200, "forward")]


def test_delay(proxy):
    proxy.add(path="^/version$", action="delay", delay_ms=800)
    t0 = time.monotonic()
    st, _, _ = request("GET", "/version")
    took = time.monotonic() - t0
    assert st == 200 and took >= 0.8
    t0 = time.monotonic()
    request("GET", "/version")
    assert time.monotonic() - t0 < 0.5
    assert proxy.log()[-2]["action"] == "delay"


def _cm(name):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}}


def _entry(proxy, action):
    return sb.wait_for(lambda: next((e for e in proxy.log() if e["action"] == action), None), 15,
                       interval=0.05, what=f"a log entry {action}")


@pytest.mark.parametrize("when", ["request", "response"])
def test_hold_until_the_client_goes(proxy, ns, when):
    """A held request is never forwarded once its client has gone; a held
    answer is the API server's (the object exists), never sent."""
    path = f"/api/v1/namespaces/{ns}/configmaps"
    proxy.add(method="POST", path=path + "$", body_match='"name": *"held-[a-z]+"', action="hold",
              when=when)
    assert request("POST", path, _cm("other"))[0] == 201  # the body does not match: forwarded
    c = conn(timeout=60)
    c.request("POST", path, body=json.dumps(_cm("held-one")), headers={
        "Authorization": "Bearer " + sb.admin_token(), "Content-Type": "application/json"})
    held = _entry(proxy, "held")
    assert held["status"] == (201 if when == "response" else None), held
    assert not proxy.rules()  # used up
    c.close()  # the client goes away while it waits
    dropped = _entry(proxy, "dropped")
    assert dropped["path"] == path and dropped["time"] >= held["time"]
    exists = sb.api("GET", f"{path}/held-one")[0] == 200
    assert exists == (when == "response")
    assert request("POST", path, _cm("held-two"))[0] == 201  # the rule is used up


def test_hold_times_out_and_goes_on(proxy, ns):
    path = f"/api/v1/namespaces/{ns}/configmaps"
    proxy.add(method="POST", path=path + "$", action="hold", timeout_ms=600)
    t0 = time.monotonic()
    assert request("POST", path, _cm("late"))[0] == 201
    assert time.monotonic() - t0 >= 0.6
    # this test's POSTs only: a connection of an earlier test may still log as it ends
    mine = [e for e in proxy.log() if e["method"] == "POST" and e["path"] == path]
    assert [(e["status"], e["action"]) for e in mine] == [(None, "held"), (201, "hold")]


def test_cut_watch(proxy, ns):
    proxy.add(path=f"namespaces/{ns}/configmaps\\?.*watch=", action="cut_watch", after_ms=700)
    c = conn(timeout=15)
    t0 = time.monotonic()
    c.request("GET", f"/api/v1/namespaces/{ns}/configmaps?watch=1&timeoutSeconds=10",
              headers={"Authorization": "Bearer " + sb.admin_token()})
    r = c.getresponse()
    assert r.status == 200
    with pytest.raises((http.client.IncompleteRead, ConnectionError, ssl.SSLError, OSError)):
        while True:
            line = r.readline()
            if not line:
                # a clean end would have come from the server after 10 s
                raise ConnectionError("stream ended")
    took = time.monotonic() - t0
    assert 0.6 <= took < 5, took
    assert proxy.log()[-1]["action"] == "cut_watch"


def _connect_refused():
    s = socket.socket()
    s.settimeout(2)
    try:
        s.connect((HOST, PORT))
        return False
    except ConnectionRefusedError:
        return True
    finally:
        s.close()


def test_refuse(proxy):
    proxy.add(path="^/version$", action="refuse", duration_ms=1500)
    keep = conn()
    assert request("GET", "/api", c=keep)[0] == 200  # an open keep-alive connection
    t0 = time.monotonic()
    with pytest.raises((http.client.RemoteDisconnected, ConnectionError, ssl.SSLError)):
        request("GET", "/version")
    assert _connect_refused()
    # open connections were closed too
    with pytest.raises((http.client.RemoteDisconnected, ConnectionError, ssl.SSLError, OSError)):
        request("GET", "/api", c=keep)
    sb.wait_for(lambda: not _connect_refused(), 5, interval=0.05, what="the proxy accepting again")
    took = time.monotonic() - t0
    assert 1.3 <= took < 4, took
    assert request("GET", "/version")[0] == 200


def test_refuse_now(proxy):
    proxy.add(action="refuse", duration_ms=800, now=True)
    assert _connect_refused()
    sb.wait_for(lambda: not _connect_refused(), 5, interval=0.05, what="the proxy accepting again")
    assert request("GET", "/version")[0] == 200


def test_control_interface(proxy):
    a = proxy.add(method="GET", path="x", action="status", status=500, count=-1)
    b = proxy.add(path="y", action="delay", delay_ms=10)
    rules = proxy.rules()
    assert [r["id"] for r in rules] == [a, b]
    assert rules[0]["count"] == -1 and rules[1]["method"] == "*"
    proxy.remove(a)
    assert [r["id"] for r in proxy.rules()] == [b]
    assert proxy.clear() == {"deleted": 1}
    for bad in ({"action": "explode"}, {"action": "status"}, {"action": "drop", "path": "("},
                {"action": "drop", "count": 0}):
        req = urllib.request.Request(sb.PROXY_CONTROL_URL + "/rules", data=json.dumps(bad).encode(),
                                     method="POST")
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(req, timeout=5)
        assert e.value.code == 400
    request("GET", "/version")
    assert proxy.log()[-1]["path"] == "/version"
    proxy.clear_log()
    assert proxy.log() == []


def test_exec_upgrade_through_proxy(proxy, ns):
    """kubectl exec: a 101 Switching Protocols stream piped both ways."""
    sb.apply(sb.simple_pod("sleeper", ["sleep", "120"]), namespace=ns)
    sb.wait_pod_phase("sleeper", ns, ("Running",))
    out = sb.kubectl("exec", "-n", ns, "sleeper", "--", "/sbtest", "echo", "through", "the", "proxy",
                     kubeconfig=sb.KUBECONFIG_PROXY)
    assert out == "through the proxy\n"
    assert any(e["status"] == 101 for e in proxy.log())
