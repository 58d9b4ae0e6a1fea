"""A small in-memory S3 server for the runner's offline S3 tests.

It checks what a real S3 server checks and what the runner must get right:
the AWS Signature Version 4 of every request (recomputed here from the
secret key), that x-amz-content-sha256 is the SHA-256 of the body actually
sent, Content-MD5 on a multi-object delete. It serves the calls the runner
makes: bucket create/head/delete, object put/get/head/delete, ListObjectsV2,
multi-object delete and multipart uploads, path-style and virtual-host-style
(the bucket in the Host name). Written for these tests from the S3 API's
documented behaviour.

A multi-object delete (DeleteObjects) is checked as radosgw checks it: a
POST with the `delete` query, a body digest (Content-MD5, or one of the
x-amz-checksum-crc32 / -sha1 / -sha256 headers) that matches the body, a
well-formed `<Delete>` document of 1 to 1000 `<Object><Key>`s; the answer
lists the deleted keys (`<Deleted>`) unless `<Quiet>true</Quiet>`, and the
keys it refused (`<Error>`) always.

Fault knobs: `force_status` answers every object request with that status;
`fail_every = N` answers every Nth object request whose method is in
`fail_methods` (all by default) with 503 SlowDown; `deny_delete` is a set of keys a multi-object
delete refuses (AccessDenied, in a 200 answer); `stop()` closes the
listening socket and every open connection (a server that went away).
Counters: `connections`, `requests`, `multipart_completed`,
`multi_deletes` (the key count of each multi-object delete), `deletes`
(single-object DELETEs), `locations` (the LocationConstraint of each
bucket created, None for us-east-1's none), `payload_hashes` (per x-amz-content-sha256 kind
of object PUTs: "sha256" or "UNSIGNED-PAYLOAD"), `parts` (every multipart
part's body, by upload id and part number, kept after completion).
"""
import base64
import hashlib
import hmac
import itertools
import http.server
import socket
import ssl
import threading
import urllib.parse
import xml.etree.ElementTree as ET
import zlib
from xml.sax.saxutils import escape

ACCESS = "SBTESTACCESSKEY"
SECRET = "sbtest/secret+key"
EMPTY_SHA = hashlib.sha256(b"").hexdigest()


def _sign(key, msg):
    return hmac.new(key, msg.encode(), hashlib.sha256).digest()


def _uri_encode(s, keep_slash):
    safe = "-_.~" + ("/" if keep_slash else "")
    return urllib.parse.quote(s, safe=safe)


class S3Mock:
    def __init__(self, region="us-east-1", tls=None, share=None):
        """tls: (certfile, keyfile) to serve https. share: another S3Mock whose
        buckets this one serves too (two endpoints of one store, as two
        radosgw instances of one cluster); counters stay per endpoint."""
        self.region = region
        self.buckets = share.buckets if share else {}   # name -> {key: bytes}
        self.uploads = share.uploads if share else {}   # upload id -> {part number: bytes}
        self.upload_ids = share.upload_ids if share else itertools.count(1)
        self.lock = share.lock if share else threading.Lock()
        self.connections = 0
        self.requests = 0
        self.bad_signatures = 0
        self.multipart_completed = 0
        self.force_status = None
        self.fail_every = 0
        self.fail_methods = None
        self.deny_delete = set()
        self.multi_deletes = []
        self.deletes = 0
        self.payload_hashes = {}
        self.locations = []
        self.parts = {}
        self._object_requests = 0
        self.seen_methods = set()
        self._socks = set()
        mock = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # headers and body in one write (flushed after each request): no
            # Nagle and delayed-ACK wait between them
            wbufsize = 1 << 16

            def setup(self):
                super().setup()
                with mock.lock:
                    mock.connections += 1
                    mock._socks.add(self.connection)

            def finish(self):
                with mock.lock:
                    mock._socks.discard(self.connection)
                super().finish()

            def log_message(self, *a):
                pass

            def _any(self):
                mock._handle(self)

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _any

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        if tls:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(*tls)
            self.server.socket = ctx.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def host(self):
        return f"127.0.0.1:{self.port}"

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
        with self.lock:
            for s in list(self._socks):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    # ---- SigV4 ----
    def _check_sig(self, h, body, path, query):
        auth = h.headers.get("Authorization", "")
        if not auth.startswith("AWS4-HMAC-SHA256 "):
            return "no SigV4 Authorization"
        parts = dict(p.strip().split("=", 1) for p in auth[len("AWS4-HMAC-SHA256 "):].split(","))
        cred = parts["Credential"].split("/")
        if cred[0] != ACCESS:
            return "InvalidAccessKeyId"
        date, region, service = cred[1], cred[2], cred[3]
        if region != self.region or service != "s3":
            return "wrong scope"
        payload = h.headers.get("x-amz-content-sha256")
        if payload is None:
            return "no x-amz-content-sha256"
        if payload != "UNSIGNED-PAYLOAD" and payload != hashlib.sha256(body).hexdigest():
            return "XAmzContentSHA256Mismatch"
        signed = parts["SignedHeaders"].split(";")
        if "x-amz-content-sha256" not in signed or "host" not in signed:
            return "required header not signed"
        canon_headers = "".join(
            f"{n}:{' '.join((h.headers.get(n) or '').split())}\n" for n in signed)
        q = urllib.parse.parse_qsl(query, keep_blank_values=True)
        canon_query = "&".join(
            f"{_uri_encode(k, False)}={_uri_encode(v, False)}" for k, v in sorted(q))
        canon = "\n".join([h.command, _uri_encode(urllib.parse.unquote(path), True),
                           canon_query, canon_headers, parts["SignedHeaders"], payload])
        amzdate = h.headers.get("x-amz-date", "")
        sts = "\n".join(["AWS4-HMAC-SHA256", amzdate, f"{date}/{region}/s3/aws4_request",
                         hashlib.sha256(canon.encode()).hexdigest()])
        k = _sign(("AWS4" + SECRET).encode(), date)
        k = _sign(k, region)
        k = _sign(k, "s3")
        k = _sign(k, "aws4_request")
        if hmac.new(k, sts.encode(), hashlib.sha256).hexdigest() != parts["Signature"]:
            return "SignatureDoesNotMatch"
        return None

    # ---- requests ----
    def _reply(self, h, status, body=b"", headers=None):
        if isinstance(body, str):
            body = body.encode()
        h.send_response(status)
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        if h.command != "HEAD":
            h.wfile.write(body)

    def _error(self, h, status, code):
        self._reply(h, status, f"<?xml version=\"1.0\"?><Error><Code>{code}</Code></Error>",
                    {"Content-Type": "application/xml"})

    def _handle(self, h):
        n = int(h.headers.get("Content-Length") or 0)
        body = h.rfile.read(n) if n else b""
        u = urllib.parse.urlsplit(h.path)
        with self.lock:
            self.requests += 1
        bad = self._check_sig(h, body, u.path, u.query)
        if bad:
            with self.lock:
                self.bad_signatures += 1
            return self._error(h, 403, bad)
        host = h.headers.get("Host", "").split(":")[0]
        path = urllib.parse.unquote(u.path)
        if host.endswith(".localhost"):          # virtual-host style
            bucket, key = host[:-len(".localhost")], path.lstrip("/")
        else:
            seg = path.lstrip("/").split("/", 1)
            bucket, key = seg[0], (seg[1] if len(seg) > 1 else "")
        q = dict(urllib.parse.parse_qsl(u.query, keep_blank_values=True))
        with self.lock:
            self.seen_methods.add((h.command, bool(key), tuple(sorted(q))))
        if key and self.force_status:
            return self._error(h, self.force_status, "Forced")
        if key and self.fail_every and (not self.fail_methods or h.command in self.fail_methods):
            with self.lock:
                self._object_requests += 1
                fail = self._object_requests % self.fail_every == 0
            if fail:
                return self._error(h, 503, "SlowDown")
        with self.lock:
            return self._dispatch(h, bucket, key, q, body)

    def _dispatch(self, h, bucket, key, q, body):
        b = self.buckets.get(bucket)
        m = h.command
        if not key:
            if m == "PUT":
                if b is not None:
                    return self._error(h, 409, "BucketAlreadyOwnedByYou")
                code = self._location_error(body)
                if code:
                    return self._error(h, 400, code)
                self.buckets[bucket] = {}
                return self._reply(h, 200)
            if b is None:
                return self._error(h, 404, "NoSuchBucket")
            if m == "HEAD":
                return self._reply(h, 200)
            if m == "DELETE":
                if b:
                    return self._error(h, 409, "BucketNotEmpty")
                del self.buckets[bucket]
                return self._reply(h, 204)
            if m == "POST" and "delete" in q:
                return self._multi_delete(h, b, body)
            if m == "GET" and q.get("list-type") == "2":
                prefix = q.get("prefix", "")
                maxk = int(q.get("max-keys", "1000"))
                keys = sorted(k for k in b if k.startswith(prefix))
                start = q.get("continuation-token", "")
                keys = [k for k in keys if k > start] if start else keys
                page, more = keys[:maxk], len(keys) > maxk
                xml = "<ListBucketResult>"
                xml += f"<KeyCount>{len(page)}</KeyCount>"
                xml += f"<IsTruncated>{'true' if more else 'false'}</IsTruncated>"
                if more:
                    xml += f"<NextContinuationToken>{escape(page[-1])}</NextContinuationToken>"
                for k in page:
                    xml += f"<Contents><Key>{escape(k)}</Key><Size>{len(b[k])}</Size></Contents>"
                xml += "</ListBucketResult>"
                return self._reply(h, 200, xml, {"Content-Type": "application/xml"})
            return self._error(h, 400, "NotImplemented")
        if b is None:
            return self._error(h, 404, "NoSuchBucket")
        if m == "POST" and "uploads" in q:
            uid = f"up{next(self.upload_ids)}"
            self.uploads[uid] = {}
            return self._reply(h, 200, f"<InitiateMultipartUploadResult><UploadId>{uid}"
                               "</UploadId></InitiateMultipartUploadResult>")
        if m == "PUT" and "partNumber" in q:
            parts = self.uploads.get(q.get("uploadId"))
            if parts is None:
                return self._error(h, 404, "NoSuchUpload")
            parts[int(q["partNumber"])] = body
            self.parts[(q.get("uploadId"), int(q["partNumber"]))] = body
            return self._reply(h, 200, headers={"ETag": '"' + hashlib.md5(body).hexdigest() + '"'})
        if m == "POST" and "uploadId" in q:
            parts = self.uploads.pop(q["uploadId"], None)
            if parts is None:
                return self._error(h, 404, "NoSuchUpload")
            import re
            nums = [int(x) for x in re.findall(r"<PartNumber>(\d+)</PartNumber>", body.decode())]
            if nums != sorted(parts):
                return self._error(h, 400, "InvalidPart")
            b[key] = b"".join(parts[i] for i in nums)
            self.multipart_completed += 1
            return self._reply(h, 200, "<CompleteMultipartUploadResult/>")
        if m == "DELETE" and "uploadId" in q:
            self.uploads.pop(q["uploadId"], None)
            return self._reply(h, 204)
        if m == "PUT":
            kind = h.headers.get("x-amz-content-sha256")
            kind = "UNSIGNED-PAYLOAD" if kind == "UNSIGNED-PAYLOAD" else "sha256"
            self.payload_hashes[kind] = self.payload_hashes.get(kind, 0) + 1
            b[key] = body
            return self._reply(h, 200, headers={"ETag": '"' + hashlib.md5(body).hexdigest() + '"'})
        if key not in b:
            return self._error(h, 404, "NoSuchKey")
        if m == "GET":
            return self._reply(h, 200, b[key], {"Content-Type": "application/octet-stream"})
        if m == "HEAD":
            h.send_response(200)
            h.send_header("Content-Length", str(len(b[key])))
            h.end_headers()
            return None
        if m == "DELETE":
            del b[key]
            self.deletes += 1
            return self._reply(h, 204)
        return self._error(h, 400, "NotImplemented")

    def _location_error(self, body):
        """As S3: us-east-1 creates a bucket without a CreateBucketConfiguration;
        another region wants its name as the LocationConstraint."""
        want = None if self.region == "us-east-1" else self.region
        got = None
        if body:
            try:
                root = ET.fromstring(body)
            except ET.ParseError:
                return "MalformedXML"
            e = [x for x in root if x.tag.rsplit("}", 1)[-1] == "LocationConstraint"]
            got = e[0].text if e else None
            if got is None or self.region == "us-east-1":
                return "InvalidLocationConstraint"
        if got != want:
            return "IllegalLocationConstraintException"
        self.locations.append(got)
        return None

    # ---- DeleteObjects ----
    @staticmethod
    def _digest_error(h, body):
        """None when the body's digest header is there and right, else the S3 error code."""
        md5 = h.headers.get("Content-MD5")
        if md5 is not None:
            ok = md5 == base64.b64encode(hashlib.md5(body).digest()).decode()
            return None if ok else "InvalidDigest"
        sums = {
            "x-amz-checksum-sha256": lambda: hashlib.sha256(body).digest(),
            "x-amz-checksum-sha1": lambda: hashlib.sha1(body).digest(),
            "x-amz-checksum-crc32": lambda: zlib.crc32(body).to_bytes(4, "big"),
        }
        for name, fn in sums.items():
            v = h.headers.get(name)
            if v is not None:
                return None if v == base64.b64encode(fn()).decode() else "BadDigest"
        return "MissingContentMD5"

    def _multi_delete(self, h, b, body):
        code = self._digest_error(h, body)
        if code:
            return self._error(h, 400, code)
        try:
            root = ET.fromstring(body)
        except ET.ParseError:
            return self._error(h, 400, "MalformedXML")
        tag = lambda e: e.tag.rsplit("}", 1)[-1]
        if tag(root) != "Delete":
            return self._error(h, 400, "MalformedXML")
        quiet, keys = False, []
        for e in root:
            if tag(e) == "Quiet":
                if (e.text or "").strip() not in ("true", "false"):
                    return self._error(h, 400, "MalformedXML")
                quiet = e.text.strip() == "true"
            elif tag(e) == "Object":
                k = [x for x in e if tag(x) == "Key"]
                if len(k) != 1 or not k[0].text:
                    return self._error(h, 400, "MalformedXML")
                keys.append(k[0].text)
            else:
                return self._error(h, 400, "MalformedXML")
        if not 1 <= len(keys) <= 1000:
            return self._error(h, 400, "MalformedXML")
        self.multi_deletes.append(len(keys))
        out = "<DeleteResult>"
        for k in keys:
            if k in self.deny_delete:
                out += (f"<Error><Key>{escape(k)}</Key><Code>AccessDenied</Code>"
                        "<Message>Access Denied</Message></Error>")
                continue
            b.pop(k, None)       # a key that is not there counts as deleted, as in S3
            if not quiet:
                out += f"<Deleted><Key>{escape(k)}</Key></Deleted>"
        out += "</DeleteResult>"
        return self._reply(h, 200, out, {"Content-Type": "application/xml"})


def signed_request(mock, method, path, query="", body=b"", headers=None, secret=SECRET):
    """One request to the mock signed with SigV4 as a client would (for tests of
    the mock's own checks). path is /bucket[/key]; returns (status, body bytes)."""
    import datetime
    import http.client
    now = datetime.datetime.now(datetime.timezone.utc)
    amzdate, date = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
    h = {"Host": mock.host, "x-amz-date": amzdate,
         "x-amz-content-sha256": hashlib.sha256(body).hexdigest()}
    h.update(headers or {})
    names = sorted(k.lower() for k in h)
    low = {k.lower(): v for k, v in h.items()}
    canon_headers = "".join(f"{n}:{' '.join(str(low[n]).split())}\n" for n in names)
    q = urllib.parse.parse_qsl(query, keep_blank_values=True)
    canon_query = "&".join(
        f"{_uri_encode(k, False)}={_uri_encode(v, False)}" for k, v in sorted(q))
    signed = ";".join(names)
    canon = "\n".join([method, _uri_encode(path, True), canon_query, canon_headers, signed,
                       low["x-amz-content-sha256"]])
    scope = f"{date}/{mock.region}/s3/aws4_request"
    sts = "\n".join(["AWS4-HMAC-SHA256", amzdate, scope,
                     hashlib.sha256(canon.encode()).hexdigest()])
    k = _sign(("AWS4" + secret).encode(), date)
    for part in (mock.region, "s3", "aws4_request"):
        k = _sign(k, part)
    sig = hmac.new(k, sts.encode(), hashlib.sha256).hexdigest()
    h["Authorization"] = (f"AWS4-HMAC-SHA256 Credential={ACCESS}/{scope}, "
                          f"SignedHeaders={signed}, Signature={sig}")
    c = http.client.HTTPConnection("127.0.0.1", mock.port, timeout=30)
    try:
        c.request(method, _uri_encode(path, True) + (f"?{query}" if query else ""), body=body,
                  headers=h)
        r = c.getresponse()
        return r.status, r.read()
    finally:
        c.close()
