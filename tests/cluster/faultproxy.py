#!/usr/bin/python3
"""faultproxy.py: the test cluster's fault-injecting HTTPS proxy in front
of the API server, for the reliability tests of the C client and the
controller. Standard library only (ssl + threads).

Data path: https://127.0.0.1:16444 (inside the network namespace), TLS with
a certificate of the cluster CA (SAN 127.0.0.1, localhost), HTTP/1.1 only.
Each client connection gets its own TLS connection upstream (verified
against the CA); requests, headers (Authorization included) and bodies are
passed through unchanged, responses are relayed as they arrive: chunked
streams such as watches chunk by chunk, unbuffered. `101 Switching
Protocols` (exec, port-forward) turns into a byte pipe. Client certificates
cannot pass a TLS-terminating proxy: authenticate with a bearer token
(build/cluster/kubeconfig-proxy does).

Control: plain HTTP on http://127.0.0.1:16445:
  POST   /rules      add a rule (JSON below); answers {"id": N}
  GET    /rules      the rules with their remaining counts
  DELETE /rules      remove all rules; DELETE /rules/N removes one
  GET    /log        the requests seen: [{"method","path","status","action","time"}]
                     (status null when no response was sent; action "forward"
                     when no rule applied)
  DELETE /log        clear the log
  GET    /healthz    "ok"

A rule: {"method": "GET"|"*", "path": "<python regex, re.search on path+query>",
  "action": "status"|"drop"|"delay"|"cut_watch"|"refuse"|"hold", "count": N (default 1;
  -1 = every matching request), "body_match": "<python regex, re.search on the
  request body>" (optional: e.g. the name in a POST, whose path does not
  carry it), plus per action:
  status     "status": 500|503|429|410|..., "retry_after": seconds (sent as
             Retry-After, and as details.retryAfterSeconds in the body),
             "body": an optional JSON object (default: a Kubernetes Status,
             {"kind":"Status","apiVersion":"v1","status":"Failure","message":
             "injected by storagebench fault proxy","reason":...,"code":N}),
             "as_watch_event": bool (default true for 410 on a watch request:
             answered like the real server, 200 and one ERROR watch event
             carrying the Status, then the stream ends; the log shows
             the injected code, 410), "text": a plain-text body sent
             instead of the JSON one (what the kubelet answers with status
             200 for a log it cannot read: "failed to open log file ...")
  drop       the request is read, then the connection is closed without a response
  delay      "delay_ms": N, then the request is forwarded
  cut_watch  forwarded; the connection is closed "after_ms": N (default 1000)
             ms after the response started (a watch stream ends abruptly,
             without the terminating chunk)
  refuse     on the matching request: its connection and every other client
             connection are closed, and new connections are refused (the
             listening socket is closed) for "duration_ms": N (default 2000).
             "now": true starts that immediately when the rule is posted.
  hold       "when": "request" (default) or "response", "timeout_ms": N
             (default 60000): the request (or, with "response", the API
             server's answer to it, the request having been forwarded and
             answered) is held while the client stays connected. The log
             gets an entry with action "held" when the hold begins, then
             "dropped" if the client closed its connection meanwhile (a
             held request is then never forwarded, a held answer never
             sent: what a client killed at that moment leaves behind), or
             the normal entry (action "hold") when timeout_ms passed and the
             exchange went on. "held" and "dropped" entries carry status
             null, or, with "response", the API server's status.
Rules apply in the order they were added; the first match with a count
left wins and uses one count; a used-up rule is removed.
"""
import argparse
import http.server
import itertools
import json
import re
import select
import socket
import ssl
import sys
import threading
import time
import urllib.parse

ACTIONS = ("status", "drop", "delay", "cut_watch", "refuse", "hold")
REASONS = {400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 405: "MethodNotAllowed",
           409: "Conflict", 410: "Expired", 422: "Invalid", 429: "TooManyRequests", 500: "InternalError",
           503: "ServiceUnavailable", 504: "Timeout"}
PHRASES = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
           405: "Method Not Allowed", 409: "Conflict", 410: "Gone", 422: "Unprocessable Entity",
           429: "Too Many Requests", 500: "Internal Server Error", 502: "Bad Gateway",
           503: "Service Unavailable", 504: "Gateway Timeout"}


def log(msg):
    print(f"{time.strftime('%H:%M:%S')} faultproxy: {msg}", file=sys.stderr, flush=True)


def hard_close(sock):
    """Close a socket under a thread that may be blocked on it."""
    try:
        socket.socket.shutdown(sock, socket.SHUT_RDWR)
    except OSError:
        pass
    try:
        sock.close()
    except OSError:
        pass


class State:
    def __init__(self):
        self.lock = threading.Lock()
        self.rules = []
        self.ids = itertools.count(1)
        self.log = []
        self.conns = set()
        self.refuse_until = 0.0
        self.refuse_event = threading.Event()
        self.listener = None

    def add_rule(self, r):
        if not isinstance(r, dict):
            raise ValueError("a rule is a JSON object")
        act = r.get("action")
        if act not in ACTIONS:
            raise ValueError(f"action must be one of {', '.join(ACTIONS)}")
        rule = {
            "method": str(r.get("method", "*")).upper(),
            "path": str(r.get("path", ".*")),
            "action": act,
            "count": int(r.get("count", 1)),
        }
        rule["_re"] = re.compile(rule["path"])
        if r.get("body_match") is not None:
            rule["body_match"] = str(r["body_match"])
            rule["_body_re"] = re.compile(rule["body_match"].encode())
        if act == "status":
            if "status" not in r:
                raise ValueError("action status needs \"status\"")
            rule["status"] = int(r["status"])
            if r.get("retry_after") is not None:
                rule["retry_after"] = int(r["retry_after"])
            if r.get("body") is not None:
                rule["body"] = r["body"]
            if r.get("as_watch_event") is not None:
                rule["as_watch_event"] = bool(r["as_watch_event"])
            if r.get("text") is not None:
                rule["text"] = str(r["text"])
        elif act == "delay":
            rule["delay_ms"] = int(r.get("delay_ms", 1000))
        elif act == "cut_watch":
            rule["after_ms"] = int(r.get("after_ms", 1000))
        elif act == "refuse":
            rule["duration_ms"] = int(r.get("duration_ms", 2000))
        elif act == "hold":
            rule["when"] = str(r.get("when", "request"))
            if rule["when"] not in ("request", "response"):
                raise ValueError("hold: \"when\" must be request or response")
            rule["timeout_ms"] = int(r.get("timeout_ms", 60000))
        if rule["count"] == 0:
            raise ValueError("count must be positive, or -1 for every request")
        with self.lock:
            rule["id"] = next(self.ids)
            if act == "refuse" and r.get("now"):
                rule["count"] = 0
            else:
                self.rules.append(rule)
        if act == "refuse" and r.get("now"):
            self.refuse(rule["duration_ms"])
        return rule["id"]

    def public_rules(self):
        with self.lock:
            return [{k: v for k, v in r.items() if not k.startswith("_")} for r in self.rules]

    def match(self, method, path, body=b""):
        with self.lock:
            for r in self.rules:
                if r["method"] not in ("*", method) or not r["_re"].search(path):
                    continue
                if "_body_re" in r and not r["_body_re"].search(body):
                    continue
                if r["count"] > 0:
                    r["count"] -= 1
                    if r["count"] == 0:
                        self.rules.remove(r)
                return dict(r)
        return None

    def record(self, method, path, status, action):
        with self.lock:
            self.log.append({"method": method, "path": path, "status": status, "action": action,
                             "time": round(time.time(), 3)})
            if len(self.log) > 20000:
                del self.log[:10000]

    def refuse(self, duration_ms):
        with self.lock:
            self.refuse_until = max(self.refuse_until, time.time() + duration_ms / 1000.0)
            conns = list(self.conns)
        log(f"refusing connections for {duration_ms} ms")
        # the listening socket first: whoever sees its connection closed
        # below and reconnects is refused, not reset
        self.refuse_event.set()
        ls = self.listener
        if ls is not None:
            hard_close(ls)
        for c in conns:
            hard_close(c)


def status_body(code, retry_after=None):
    st = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
          "message": "injected by storagebench fault proxy", "reason": REASONS.get(code, "Unknown"),
          "code": code}
    if retry_after is not None:
        st["details"] = {"retryAfterSeconds": retry_after}
    return st


class BadRequest(Exception):
    pass


def read_head(rf):
    """Read an HTTP head; returns (first line, [(name, value)]) or None at EOF."""
    line = rf.readline(65537)
    if not line:
        return None
    while line in (b"\r\n", b"\n"):
        line = rf.readline(65537)
        if not line:
            return None
    first = line.decode("latin-1").rstrip("\r\n")
    headers = []
    while True:
        h = rf.readline(65537)
        if not h:
            raise BadRequest("connection closed inside the head")
        if h in (b"\r\n", b"\n"):
            break
        name, _, value = h.decode("latin-1").partition(":")
        headers.append((name.strip(), value.strip()))
        if len(headers) > 200:
            raise BadRequest("too many headers")
    return first, headers


def hget(headers, name):
    name = name.lower()
    for k, v in headers:
        if k.lower() == name:
            return v
    return None


def head_bytes(first, headers):
    return (first + "\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers) + "\r\n").encode("latin-1")


def read_body_raw(rf, headers):
    """The message body exactly as framed on the wire."""
    te = (hget(headers, "transfer-encoding") or "").lower()
    if "chunked" in te:
        out = bytearray()
        while True:
            line = rf.readline(65537)
            if not line:
                raise BadRequest("connection closed inside a chunked body")
            out += line
            size = int(line.split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while True:
                    t = rf.readline(65537)
                    out += t
                    if t in (b"\r\n", b"\n", b""):
                        return bytes(out)
            out += rf.read(size + 2)
    n = int(hget(headers, "content-length") or 0)
    return rf.read(n) if n else b""


class Proxy:
    def __init__(self, state, listen, cert, key, upstream, ca):
        self.state = state
        host, port = listen.rsplit(":", 1)
        self.addr = (host, int(port))
        self.sctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.sctx.load_cert_chain(cert, key)
        self.sctx.set_alpn_protocols(["http/1.1"])
        u = urllib.parse.urlsplit(upstream)
        self.up = (u.hostname, u.port or 443)
        self.uctx = ssl.create_default_context(cafile=ca)
        self.uctx.set_alpn_protocols(["http/1.1"])

    def listen(self):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(self.addr)
        s.listen(128)
        return s

    def serve(self):
        while True:
            now = time.time()
            if self.state.refuse_until > now:
                time.sleep(self.state.refuse_until - now)
                continue
            self.state.refuse_event.clear()
            ls = self.listen()
            self.state.listener = ls
            watcher = threading.Thread(target=self._close_on_refuse, args=(ls,), daemon=True)
            watcher.start()
            while True:
                try:
                    c, _ = ls.accept()
                except OSError:
                    break
                if self.state.refuse_until > time.time():
                    hard_close(c)
                    break
                c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                threading.Thread(target=self.handle, args=(c,), daemon=True).start()
            self.state.listener = None
            hard_close(ls)

    def _close_on_refuse(self, ls):
        self.state.refuse_event.wait()
        hard_close(ls)

    def upstream(self):
        raw = socket.create_connection(self.up, timeout=30)
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        us = self.uctx.wrap_socket(raw, server_hostname=self.up[0])
        us.settimeout(None)
        return us, us.makefile("rb")

    def handle(self, raw):
        st = self.state
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            raw.settimeout(30)
            cs = self.sctx.wrap_socket(raw, server_side=True)
            cs.settimeout(None)
        except (OSError, ssl.SSLError):
            hard_close(raw)
            return
        with st.lock:
            st.conns.add(cs)
        us = urf = None
        try:
            crf = cs.makefile("rb")
            while True:
                head = read_head(crf)
                if head is None:
                    return
                first, headers = head
                parts = first.split(" ")
                if len(parts) != 3:
                    raise BadRequest(f"bad request line {first!r}")
                method, target, _ = parts
                if (hget(headers, "expect") or "").lower() == "100-continue":
                    headers = [(k, v) for k, v in headers if k.lower() != "expect"]
                    cs.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
                body = read_body_raw(crf, headers)
                close_after = (hget(headers, "connection") or "").lower() == "close"
                rule = st.match(method, target, body)
                act = rule["action"] if rule else "forward"
                if act == "drop":
                    st.record(method, target, None, act)
                    return
                if act == "refuse":
                    st.record(method, target, None, act)
                    st.refuse(rule["duration_ms"])
                    return
                if act == "status":
                    self.send_status(cs, rule, method, target)
                    if close_after:
                        return
                    continue
                if act == "delay":
                    time.sleep(rule["delay_ms"] / 1000.0)
                if act == "hold" and rule["when"] == "request":
                    st.record(method, target, None, "held")
                    if self.client_gone(cs, rule["timeout_ms"]):
                        st.record(method, target, None, "dropped")
                        return
                if us is None:
                    us, urf = self.upstream()
                us.sendall(head_bytes(first, headers) + body)
                answer = None
                if act == "hold" and rule["when"] == "response":
                    answer = read_head(urf)
                    code = int(answer[0].split(" ")[1]) if answer else None
                    st.record(method, target, code, "held")
                    if answer is None or self.client_gone(cs, rule["timeout_ms"]):
                        st.record(method, target, code, "dropped")
                        return
                keep = self.relay(cs, us, urf, method, target, act, rule, answer)
                if not keep:
                    return
                if close_after:
                    return
        except (OSError, ssl.SSLError, BadRequest, ValueError) as e:
            if not isinstance(e, (ConnectionError, ssl.SSLEOFError)) and str(e):
                log(f"connection ended: {e!r}"[:300])
        finally:
            with st.lock:
                st.conns.discard(cs)
            hard_close(cs)
            if us is not None:
                hard_close(us)

    def send_status(self, cs, rule, method, target):
        code = rule["status"]
        watch = re.search(r"[?&]watch=(1|true)(&|$)", target) is not None
        body = rule.get("body") or status_body(code, rule.get("retry_after"))
        if rule.get("as_watch_event", watch and code == 410):
            ev = json.dumps({"type": "ERROR", "object": body}).encode() + b"\n"
            chunk = b"%x\r\n%s\r\n0\r\n\r\n" % (len(ev), ev)
            cs.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                       b"Transfer-Encoding: chunked\r\n\r\n" + chunk)
            # logged with the injected code (the HTTP status line said 200)
            self.state.record(method, target, code, "status")
            return
        data = rule["text"].encode() if "text" in rule else json.dumps(body).encode()
        ctype = "text/plain" if "text" in rule else "application/json"
        hdrs = [("Content-Type", ctype), ("Content-Length", str(len(data))),
                ("Cache-Control", "no-cache, private")]
        if rule.get("retry_after") is not None:
            hdrs.append(("Retry-After", str(rule["retry_after"])))
        cs.sendall(head_bytes(f"HTTP/1.1 {code} {PHRASES.get(code, 'Error')}", hdrs) + data)
        self.state.record(method, target, code, "status")

    @staticmethod
    def client_gone(cs, timeout_ms):
        """Waits up to timeout_ms for the client to close its connection
        (while it waits for an answer it sends nothing); True if it did."""
        end = time.monotonic() + timeout_ms / 1000.0
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return False
            r, _, _ = select.select([cs], [], [], min(left, 0.2))
            if not r:
                continue
            try:
                # the TCP stream under TLS, not consumed: EOF, or a TLS alert
                # (record type 21: close_notify) from a client closing cleanly
                peek = socket.socket.recv(cs, 1, socket.MSG_PEEK)
            except OSError:
                return True
            if not peek or peek[0] == 21:
                return True
            time.sleep(0.2)

    def relay(self, cs, us, urf, method, target, act, rule, head=None):
        """Relay one response (head: its head, when already read); True when
        both connections may be reused."""
        if head is None:
            head = read_head(urf)
        if head is None:
            self.state.record(method, target, None, act)
            return False
        first, headers = head
        code = int(first.split(" ")[1])
        while 100 <= code < 200 and code != 101:
            cs.sendall(head_bytes(first, headers))
            first, headers = read_head(urf)
            code = int(first.split(" ")[1])
        self.state.record(method, target, code, act)
        cs.sendall(head_bytes(first, headers))
        timer = None
        if act == "cut_watch":
            def cut():
                log(f"cutting {method} {target} after {rule['after_ms']} ms")
                hard_close(cs)
                hard_close(us)
            timer = threading.Timer(rule["after_ms"] / 1000.0, cut)
            timer.daemon = True
            timer.start()
        try:
            if code == 101:
                self.pipe(cs, us, urf)
                return False
            if method == "HEAD" or code in (204, 304):
                return True
            te = (hget(headers, "transfer-encoding") or "").lower()
            if "chunked" in te:
                while True:
                    line = urf.readline(65537)
                    if not line:
                        return False
                    size = int(line.split(b";")[0].strip() or b"0", 16)
                    if size == 0:
                        tail = line
                        while True:
                            t = urf.readline(65537)
                            tail += t
                            if t in (b"\r\n", b"\n", b""):
                                break
                        cs.sendall(tail)
                        break
                    data = urf.read(size + 2)
                    cs.sendall(line + data)
            elif hget(headers, "content-length") is not None:
                left = int(hget(headers, "content-length"))
                while left > 0:
                    data = urf.read1(min(left, 65536))
                    if not data:
                        return False
                    cs.sendall(data)
                    left -= len(data)
            else:
                while True:
                    data = urf.read1(65536)
                    if not data:
                        return False
                    cs.sendall(data)
            if act == "cut_watch":
                return False
            return (hget(headers, "connection") or "").lower() != "close"
        finally:
            if timer is not None:
                timer.cancel()

    def pipe(self, cs, us, urf):
        def up():
            try:
                while True:
                    d = cs.recv(65536)
                    if not d:
                        break
                    us.sendall(d)
            except OSError:
                pass
            hard_close(us)
        t = threading.Thread(target=up, daemon=True)
        t.start()
        try:
            while True:
                d = urf.read1(65536)
                if not d:
                    break
                cs.sendall(d)
        except OSError:
            pass
        hard_close(cs)
        t.join(5)


def control_handler(state):
    class H(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *args):
            pass

        def reply(self, code, obj):
            data = json.dumps(obj).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            if self.path == "/rules":
                self.reply(200, state.public_rules())
            elif self.path == "/log":
                with state.lock:
                    self.reply(200, list(state.log))
            elif self.path == "/healthz":
                self.reply(200, "ok")
            else:
                self.reply(404, {"error": "not found"})

        def do_POST(self):
            if self.path != "/rules":
                return self.reply(404, {"error": "not found"})
            n = int(self.headers.get("Content-Length") or 0)
            try:
                rid = state.add_rule(json.loads(self.rfile.read(n) or b"null"))
            except (ValueError, TypeError, re.error) as e:
                return self.reply(400, {"error": str(e)})
            log(f"rule {rid} added")
            self.reply(200, {"id": rid})

        def do_DELETE(self):
            if self.path == "/rules":
                with state.lock:
                    n = len(state.rules)
                    state.rules.clear()
                self.reply(200, {"deleted": n})
            elif self.path.startswith("/rules/"):
                try:
                    rid = int(self.path[len("/rules/"):])
                except ValueError:
                    return self.reply(400, {"error": "bad rule id"})
                with state.lock:
                    before = len(state.rules)
                    state.rules[:] = [r for r in state.rules if r["id"] != rid]
                    n = before - len(state.rules)
                self.reply(200 if n else 404, {"deleted": n})
            elif self.path == "/log":
                with state.lock:
                    state.log.clear()
                self.reply(200, {"deleted": True})
            else:
                self.reply(404, {"error": "not found"})
    return H


def main():
    ap = argparse.ArgumentParser(description="fault-injecting HTTPS proxy for the test cluster")
    ap.add_argument("--listen", default="127.0.0.1:16444")
    ap.add_argument("--control", default="127.0.0.1:16445")
    ap.add_argument("--cert", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--upstream", required=True)
    ap.add_argument("--ca", required=True)
    a = ap.parse_args()
    state = State()
    proxy = Proxy(state, a.listen, a.cert, a.key, a.upstream, a.ca)
    host, port = a.control.rsplit(":", 1)
    ctl = http.server.ThreadingHTTPServer((host, int(port)), control_handler(state))
    ctl.daemon_threads = True
    threading.Thread(target=ctl.serve_forever, daemon=True).start()
    log(f"listening on https://{a.listen}, control on http://{a.control}, upstream {a.upstream}")
    proxy.serve()


if __name__ == "__main__":
    main()
