"""A scripted HTTP/1.1 server for the differential tests (scripts/cli-differential/run).

It records every request exactly as it arrived — the request line, the header fields in order,
the body (a chunked body decoded, with the framing field still in the fields) — and answers
as the request's path and query say, so each case scripts its own response in its URL:

  /s (or /s/NAME)?status=N&reason=TEXT&h=Name:Value&h=...&body=TEXT&len=N&chunked=1&close=1&cl=N
        any method; status (default 200), fields in order, the body (default "hello\n", or N
        bytes of a repeating pattern), chunked framing, a close-delimited body without
        Content-Length (close=1), a Content-Length that lies (cl=N: the body is cut short and
        the connection closed)
  /echo  the request as received (head and body) as a text/plain body
  /range/N
        a resource of N pattern bytes with ETag "r1", Last-Modified and Accept-Ranges; honours
        Range (bytes=a-b, a-, -n: 206 with Content-Range; unsatisfiable: 416), and If-Range
  /cond  ETag "v1", Last-Modified Wed, 21 Oct 2015 07:28:00 GMT; If-None-Match with "v1" or *
        → 304; If-Modified-Since not before that date → 304; If-Unmodified-Since before it → 412
  /redirect/CODE?to=LOCATION&h=...
        CODE with Location: LOCATION (percent-decoded)
  /auth?schemes=Basic,Digest
        401 with one WWW-Authenticate per scheme unless the request has an Authorization field
        with one of the schemes (then 200 with the field echoed)
  /digest?algorithm=A&qop=Q&userhash=1&stale=1&also=Basic&fixed=1
        RFC 7616 Digest for user "u", password "p", realm "r": 401 with a challenge (algorithm A,
        default MD5; qop Q, default auth, "none" for RFC 2069's form without qop; userhash=true
        when asked; a Basic challenge too with also=Basic) unless the Authorization is a Digest
        response the server verifies: nonce known, nc above the last one seen for the nonce, the
        uri the request-target, the response hash right. Each 401 issues a new nonce
        ("nonce-N-7f3a"; with fixed=1 always the same one, as Apache's time-based nonces repeat,
        so nc must count up); with stale=1 the first one is stale: a right response with it gets
        401 stale=true and a new nonce. A right response: 200 "digest ok nc=N".
  /slow?ms=N  waits N ms before answering
  /flaky?fail=N&status=S&h=Name:Value
        the first N requests to this path (since the case began) get status S (default 503)
        with the fields and a body "fail K\n"; later ones 200 "ok after K\n"
  anything else: 200 "hello\n"

Binds 127.0.0.1 only (and ::1 when asked); keep-alive; answers Expect: 100-continue.
"""
import hashlib
import re
import gzip
import socket
import threading
import time
import urllib.parse
from email.utils import parsedate_to_datetime

LAST_MODIFIED = "Wed, 21 Oct 2015 07:28:00 GMT"
LAST_MODIFIED_EPOCH = 1445412480


def pattern(n):
    base = b"0123456789abcdefghijklmnopqrstuvwxyz\n"
    return (base * (n // len(base) + 1))[:n]


class Request:
    def __init__(self, line, fields, body, chunked, connection):
        self.line = line
        self.fields = fields
        self.body = body
        self.chunked = chunked
        self.connection = connection

    def field(self, name):
        for k, v in self.fields:
            if k.lower() == name.lower():
                return v
        return None

    def as_record(self):
        return {"line": self.line, "fields": list(self.fields), "body": self.body}


class Server:
    def __init__(self, family=socket.AF_INET, host="127.0.0.1"):
        """family AF_UNIX: `host` is the socket's path, or "\\0name" for an abstract socket."""
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        if family == socket.AF_UNIX:
            self.sock.bind(host)
            self.port = 0
        else:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                self.sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            self.sock.bind((host, 0))
            self.port = self.sock.getsockname()[1]
        self.sock.listen(64)
        self.lock = threading.Lock()
        self.requests = []
        self.connections = 0
        self.flaky = 0
        # Digest state: the nonces issued, in order, and the last nc seen per nonce (reset with
        # the records, so both tools of a case see the same nonces).
        self.nonce_counts = {}
        self.stopping = False
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def clear(self):
        with self.lock:
            self.requests = []
            self.connections = 0
            self.flaky = 0
            self.nonce_counts = {}

    def snapshot(self):
        with self.lock:
            return list(self.requests), self.connections

    def stop(self):
        self.stopping = True
        try:
            self.sock.close()
        except OSError:
            pass

    def _accept(self):
        while not self.stopping:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with self.lock:
                self.connections += 1
                serial = self.connections
            threading.Thread(target=self._serve, args=(conn, serial), daemon=True).start()

    # Reading

    def _serve(self, conn, serial):
        conn.settimeout(20)
        buf = b""
        try:
            while True:
                while b"\r\n\r\n" not in buf:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    buf += chunk
                head, buf = buf.split(b"\r\n\r\n", 1)
                lines = head.split(b"\r\n")
                line = lines[0].decode("latin-1")
                fields = []
                for raw in lines[1:]:
                    name, _, value = raw.decode("latin-1").partition(":")
                    fields.append((name, value.strip(" \t")))
                req = Request(line, fields, b"", False, serial)
                if (req.field("Expect") or "").lower() == "100-continue":
                    conn.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
                te = (req.field("Transfer-Encoding") or "").lower()
                if te == "chunked":
                    req.chunked = True
                    body = b""
                    while True:
                        while b"\r\n" not in buf:
                            buf += self._recv(conn)
                        size_line, buf = buf.split(b"\r\n", 1)
                        size = int(size_line.split(b";")[0], 16)
                        if size == 0:
                            while b"\r\n" not in buf:
                                buf += self._recv(conn)
                            # trailers until the empty line
                            while not buf.startswith(b"\r\n"):
                                while b"\r\n" not in buf:
                                    buf += self._recv(conn)
                                _, buf = buf.split(b"\r\n", 1)
                            buf = buf[2:]
                            break
                        while len(buf) < size + 2:
                            buf += self._recv(conn)
                        body += buf[:size]
                        buf = buf[size + 2:]
                    req.body = body
                else:
                    length = int(req.field("Content-Length") or "0")
                    while len(buf) < length:
                        buf += self._recv(conn)
                    req.body, buf = buf[:length], buf[length:]
                with self.lock:
                    self.requests.append(req.as_record())
                keep = self._answer(conn, req, head)
                if not keep:
                    return
        except (OSError, ValueError, ConnectionError):
            return
        finally:
            try:
                conn.close()
            except OSError:
                pass

    @staticmethod
    def _recv(conn):
        chunk = conn.recv(65536)
        if not chunk:
            raise ConnectionError("closed")
        return chunk

    # Answering

    def _answer(self, conn, req, raw_head):
        parts = req.line.split(" ")
        method = parts[0]
        target = parts[1] if len(parts) > 1 else "/"
        version = parts[2] if len(parts) > 2 else "HTTP/1.1"
        url = urllib.parse.urlsplit(target)
        query = urllib.parse.parse_qs(url.query, keep_blank_values=True)
        path = url.path
        close = version == "HTTP/1.0" or (req.field("Connection") or "").lower() == "close"
        status, reason, fields, body = 200, None, [("Content-Type", "text/plain")], b"hello\n"
        chunked = False
        close_delimited = False
        lie = None

        # /s/NAME is /s with a last segment for -O to name the file by.
        if path == "/s" or path.startswith("/s/"):
            status = int(query.get("status", ["200"])[0])
            reason = query.get("reason", [None])[0]
            fields = []
            for h in query.get("h", []):
                name, _, value = h.partition(":")
                fields.append((name, value.strip()))
            if "len" in query:
                body = pattern(int(query["len"][0]))
            else:
                body = query.get("body", ["hello\n"])[0].encode("utf-8")
            if query.get("gzip", ["0"])[0] == "1":
                # mtime 0: the same bytes for both tools.
                body = gzip.compress(body, mtime=0)
                fields.append(("Content-Encoding", "gzip"))
            chunked = query.get("chunked", ["0"])[0] == "1"
            close_delimited = query.get("close", ["0"])[0] == "1"
            if "cl" in query:
                lie = int(query["cl"][0])
        elif path == "/flaky":
            with self.lock:
                self.flaky += 1
                seen = self.flaky
            if seen <= int(query.get("fail", ["1"])[0]):
                status = int(query.get("status", ["503"])[0])
                fields = []
                for h in query.get("h", []):
                    name, _, value = h.partition(":")
                    fields.append((name, value.strip()))
                body = f"fail {seen}\n".encode()
            else:
                body = f"ok after {seen - 1}\n".encode()
        elif path == "/echo":
            body = raw_head + b"\r\n\r\n" + req.body
        elif path.startswith("/range/"):
            size = int(path.split("/")[2])
            whole = pattern(size)
            fields = [("ETag", '"r1"'), ("Last-Modified", LAST_MODIFIED), ("Accept-Ranges", "bytes"),
                      ("Content-Type", "application/octet-stream")]
            body = whole
            rng = req.field("Range")
            if_range = req.field("If-Range")
            if rng and (if_range is None or if_range in ('"r1"', LAST_MODIFIED)) and rng.startswith("bytes="):
                spec = rng[6:].split(",")[0].strip()
                first, _, last = spec.partition("-")
                try:
                    if first == "":
                        n = int(last)
                        start, end = max(0, size - n), size - 1
                    else:
                        start = int(first)
                        end = int(last) if last else size - 1
                        end = min(end, size - 1)
                    if start >= size or start > end:
                        raise ValueError
                    status = 206
                    fields.append(("Content-Range", f"bytes {start}-{end}/{size}"))
                    body = whole[start:end + 1]
                except ValueError:
                    status = 416
                    fields = [("Content-Range", f"bytes */{size}")]
                    body = b""
        elif path == "/cond":
            fields = [("ETag", '"v1"'), ("Last-Modified", LAST_MODIFIED), ("Content-Type", "text/plain")]
            body = b"fresh\n"
            inm = req.field("If-None-Match")
            ims = req.field("If-Modified-Since")
            ius = req.field("If-Unmodified-Since")
            if inm is not None:
                if inm.strip() in ('"v1"', "*") or '"v1"' in [t.strip() for t in inm.split(",")]:
                    status, body = 304, b""
            elif ims is not None:
                try:
                    if parsedate_to_datetime(ims).timestamp() >= LAST_MODIFIED_EPOCH:
                        status, body = 304, b""
                except (TypeError, ValueError):
                    pass
            if ius is not None:
                try:
                    if parsedate_to_datetime(ius).timestamp() < LAST_MODIFIED_EPOCH:
                        status, body = 412, b""
                except (TypeError, ValueError):
                    pass
        elif path.startswith("/redirect/"):
            status = int(path.split("/")[2])
            location = query.get("to", ["/"])[0]
            fields = [("Location", location), ("Content-Type", "text/plain")]
            for h in query.get("h", []):
                name, _, value = h.partition(":")
                fields.append((name, value.strip()))
            body = b"moved\n"
        elif path == "/auth":
            schemes = query.get("schemes", ["Basic"])[0].split(",")
            given = req.field("Authorization")
            if given and any(given.lower().startswith(s.lower() + " ") for s in schemes):
                body = ("ok " + given + "\n").encode("latin-1")
            else:
                status = 401
                fields = []
                for s in schemes:
                    if s == "Digest":
                        fields.append(("WWW-Authenticate", 'Digest realm="r", nonce="abc", qop="auth", algorithm=MD5'))
                    elif s == "Bearer":
                        fields.append(("WWW-Authenticate", 'Bearer realm="r"'))
                    else:
                        fields.append(("WWW-Authenticate", f'{s} realm="r"'))
                fields.append(("Content-Type", "text/plain"))
                body = b"denied\n"
        elif path == "/digest":
            status, fields, body = self._digest(method, target, query, req.field("Authorization"))
        elif path == "/slow":
            time.sleep(int(query.get("ms", ["500"])[0]) / 1000)

        head_only = method == "HEAD" or status in (204, 304) or 100 <= status < 200
        out = f"HTTP/1.1 {status} {reason if reason is not None else default_reason(status)}\r\n"
        names = {k.lower() for k, _ in fields}
        if "date" not in names:
            # A fixed date: the two runs of a case must be able to produce the same bytes.
            fields = [("Date", "Thu, 01 Jan 2026 00:00:00 GMT")] + fields
        if close or close_delimited:
            fields.append(("Connection", "close"))
        if not head_only or method == "HEAD":
            if chunked:
                fields.append(("Transfer-Encoding", "chunked"))
            elif not close_delimited:
                fields.append(("Content-Length", str(lie if lie is not None else len(body))))
        for k, v in fields:
            out += f"{k}: {v}\r\n"
        out += "\r\n"
        data = out.encode("latin-1")
        if not head_only:
            if chunked:
                for i in range(0, len(body), 7):
                    piece = body[i:i + 7]
                    data += f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
                data += b"0\r\n\r\n"
            else:
                data += body
        conn.sendall(data)
        if lie is not None or close or close_delimited:
            return False
        return True


    # Digest (RFC 7616)

    DIGEST_HASHES = {"MD5": "md5", "SHA-256": "sha256", "SHA-512-256": "sha512_256"}

    def _digest(self, method, target, query, given):
        algorithm = query.get("algorithm", ["MD5"])[0]
        qop = query.get("qop", ["auth"])[0]
        userhash = query.get("userhash", ["0"])[0] == "1"
        stale_first = query.get("stale", ["0"])[0] == "1"
        base = algorithm[:-5] if algorithm.endswith("-sess") else algorithm

        def h(text):
            return hashlib.new(self.DIGEST_HASHES[base], text.encode("utf-8")).hexdigest()

        def challenge(stale=False):
            with self.lock:
                if query.get("fixed", ["0"])[0] == "1":
                    nonce = "nonce-fixed-7f3a"
                    self.nonce_counts.setdefault(nonce, 0)
                else:
                    nonce = f"nonce-{len(self.nonce_counts) + 1}-7f3a"
                    self.nonce_counts[nonce] = 0
            parts = ['realm="r"', f'nonce="{nonce}"']
            if qop != "none":
                parts.append(f'qop="{qop}"')
            parts += [f"algorithm={algorithm}", 'opaque="op-1"']
            if stale:
                parts.append("stale=true")
            if userhash:
                parts.append("userhash=true")
            fields = [("WWW-Authenticate", "Digest " + ", ".join(parts))]
            if "Basic" in query.get("also", []):
                fields.append(("WWW-Authenticate", 'Basic realm="r"'))
            return 401, fields + [("Content-Type", "text/plain")], b"denied\n"

        if not given or not given.lower().startswith("digest "):
            return challenge()
        params = dict((k.lower(), v1 if v1 else v2)
                      for k, v1, v2 in re.findall(r'([A-Za-z0-9_*-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))', given[7:]))
        params = {k: re.sub(r"\\(.)", r"\1", v) for k, v in params.items()}
        bad = lambda why: (401, [("Content-Type", "text/plain")], f"bad digest: {why}\n".encode())
        nonce = params.get("nonce")
        with self.lock:
            if nonce not in self.nonce_counts:
                return bad("unknown nonce")
        expected_user = h("u:r") if userhash else "u"
        if params.get("username") != expected_user:
            return bad("username " + str(params.get("username")))
        if userhash and params.get("userhash", "").lower() != "true":
            return bad("userhash missing")
        if params.get("realm") != "r" or params.get("uri") != target or params.get("opaque") != "op-1":
            return bad("realm, uri or opaque")
        if params.get("algorithm", "MD5") != algorithm:
            return bad("algorithm")
        ha1 = h("u:r:p")
        cnonce = params.get("cnonce", "")
        if algorithm.endswith("-sess"):
            ha1 = h(f"{ha1}:{nonce}:{cnonce}")
        ha2 = h(f"{method}:{target}")
        if qop == "none":
            expected = h(f"{ha1}:{nonce}:{ha2}")
            nc_text = "-"
        else:
            if params.get("qop") != "auth" or not cnonce:
                return bad("qop or cnonce")
            nc_text = params.get("nc", "")
            if not re.fullmatch(r"[0-9a-f]{8}", nc_text):
                return bad("nc")
            nc = int(nc_text, 16)
            with self.lock:
                last = self.nonce_counts.get(nonce, 0)
                if nc <= last:
                    return bad(f"nc {nc_text} not above {last:08x}")
                self.nonce_counts[nonce] = nc
            expected = h(f"{ha1}:{nonce}:{nc_text}:{cnonce}:auth:{ha2}")
        if params.get("response") != expected:
            return bad("response")
        if stale_first and nonce == "nonce-1-7f3a":
            return challenge(stale=True)
        return 200, [("Content-Type", "text/plain")], f"digest ok nc={nc_text}\n".encode()


def default_reason(status):
    return {200: "OK", 201: "Created", 204: "No Content", 206: "Partial Content", 301: "Moved Permanently",
            302: "Found", 303: "See Other", 304: "Not Modified", 307: "Temporary Redirect", 308: "Permanent Redirect",
            400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 412: "Precondition Failed",
            416: "Range Not Satisfiable", 500: "Internal Server Error"}.get(status, "Status")
