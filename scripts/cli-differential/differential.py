#!/usr/bin/env python3
"""courier beside curl: the same arguments to both against the same scripted loopback server.

For every case in cases.py, each tool runs in a fresh working directory (holding the case's
files), with the same standard input and a clean environment. Compared, unless the case says
otherwise:
  req    what the server received: request lines, header fields in order, bodies (a chunked body
         decoded, its framing field kept); the default User-Agent values are the one difference
         every case has and are replaced by <UA>; a Digest Authorization's cnonce and response
         (random, and checked by the server instead) are replaced by <cnonce> and <response>;
         curl's `Expect: 100-continue` on a body of at most 1 MiB that is not chunked is dropped
         (curl asks it for every -T upload, courier only above 1 MiB: one documented difference,
         checked by the case with keep_expect=True)
  out    the bytes on standard output (dates and the default User-Agent normalised)
  files  the working directory afterwards: names, contents, permission bits (and modification
         times with mtime=True)
  exit   the exit code
  tls    the TLS version and cipher the server negotiated (https cases)
  err    standard error, the program's name normalised (only for cases that list it: glob errors)
A case marked `differs=NAME` is a deliberate difference listed in docs/cli.md: its `check`
says what courier does instead, and the case passes only when that holds (and only the aspects
it names differ).

usage: differential.py --courier PATH [--curl PATH] [--only SUBSTRING] [--verbose]
"""
import argparse
import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import server as scripted  # noqa: E402
import cases as case_table  # noqa: E402

ASPECTS = ("req", "out", "files", "exit", "tls", "err")


class Result:
    def __init__(self, status, stdout, stderr, requests, connections, files, tls=None):
        self.tls = tls
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
        self.requests = requests
        self.connections = connections
        self.files = files

    def aspect(self, name):
        if name == "err":
            # Only cases that ask compare stderr: the error line, the program's name normalised.
            return self.stderr.replace("curl: ", "<PROGRAM>: ").replace("courier: ", "<PROGRAM>: ")
        return {"req": self.requests, "out": self.stdout, "files": self.files, "exit": self.status, "tls": self.tls}[name]


def snapshot(root, with_mtime):
    files = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for d in dirnames:
            full = os.path.join(dirpath, d)
            st = os.lstat(full)
            files[os.path.relpath(full, root) + "/"] = ("dir", oct(st.st_mode & 0o7777))
        for f in filenames:
            full = os.path.join(dirpath, f)
            st = os.lstat(full)
            rel = os.path.relpath(full, root)
            if os.path.islink(full):
                files[rel] = ("link", os.readlink(full))
                continue
            with open(full, "rb") as fh:
                data = fh.read()
            entry = (oct(st.st_mode & 0o7777), data)
            if with_mtime:
                entry += (int(st.st_mtime),)
            files[rel] = entry
    return files


class Runner:
    def __init__(self, courier, curl, verbose):
        self.courier = courier
        self.curl = curl
        self.verbose = verbose
        self.server = scripted.Server()
        try:
            self.server6 = scripted.Server(socket.AF_INET6, "::1")
        except OSError:
            self.server6 = None
        here = os.path.dirname(os.path.abspath(__file__))
        self.certs = os.path.normpath(os.path.join(here, "../../Tests/CourierTLSTests/Certificates"))
        self.tls = TLSFront(self.server, self.certs)
        # The same, requiring a client certificate signed by the test CA (-E, --key, --pass).
        self.mtls = TLSFront(self.server, self.certs, client_ca=os.path.join(self.certs, "ca.pem"))
        self.work = tempfile.mkdtemp(prefix="courier-differential-")
        # The same scripted server on a unix socket and on an abstract one (--unix-socket).
        self.unix_path = os.path.join(self.work, "server.sock")
        self.abstract_name = f"courier-differential-{os.getpid()}"
        self.unix = scripted.Server(socket.AF_UNIX, self.unix_path)
        self.abstract = scripted.Server(socket.AF_UNIX, "\0" + self.abstract_name)
        self.version = subprocess.run([courier, "--version"], capture_output=True, text=True).stdout.split()[1]

    def close(self):
        self.server.stop()
        if self.server6:
            self.server6.stop()
        self.tls.stop()
        self.mtls.stop()
        self.unix.stop()
        self.abstract.stop()
        shutil.rmtree(self.work, ignore_errors=True)

    def substitute(self, text, cwd):
        values = {
            "u": f"http://127.0.0.1:{self.server.port}",
            "h": f"127.0.0.1:{self.server.port}",
            "p": str(self.server.port),
            "u6": f"http://[::1]:{self.server6.port}" if self.server6 else "http://[::1]:9",
            "p6": str(self.server6.port) if self.server6 else "9",
            "tu": f"https://localhost:{self.tls.port}",
            "tp": str(self.tls.port),
            "mtu": f"https://localhost:{self.mtls.port}",
            "certs": self.certs,
            "ca": os.path.join(self.certs, "ca.pem"),
            "unix": self.unix_path,
            "abstract": self.abstract_name,
            "cwd": cwd,
        }
        for key, value in values.items():
            text = text.replace("{" + key + "}", value)
        return text

    def run(self, case, tool):
        cwd = os.path.join(self.work, case.slug, tool)
        os.makedirs(cwd)
        for rel, spec in case.files.items():
            full = os.path.join(cwd, rel)
            if rel.endswith("/"):
                os.makedirs(full, exist_ok=True)
                if isinstance(spec, int):
                    os.chmod(full, spec)
                continue
            os.makedirs(os.path.dirname(full), exist_ok=True)
            data, mode, mtime = spec if isinstance(spec, tuple) else (spec, 0o644, None)
            with open(full, "wb") as fh:
                fh.write(data)
            os.chmod(full, mode)
            if mtime is not None:
                os.utime(full, (mtime, mtime))
        binary = self.curl if tool == "curl" else self.courier
        argv = [binary] + [self.substitute(a, cwd) for a in case.args]
        env = {"PATH": "/usr/bin:/bin", "HOME": cwd}
        env.update(case.env)
        self.server.clear()
        if self.server6:
            self.server6.clear()
        self.unix.clear()
        self.abstract.clear()
        self.tls.last_version = self.tls.last_cipher = None
        self.mtls.last_version = self.mtls.last_cipher = None
        old_umask = os.umask(case.umask)
        try:
            proc = subprocess.run(argv, cwd=cwd, input=case.stdin, capture_output=True, env=env, timeout=60)
        finally:
            os.umask(old_umask)
        requests, connections = self.server.snapshot()
        for other in (self.server6, self.unix, self.abstract):
            if other:
                more, more_connections = other.snapshot()
                requests += more
                connections += more_connections
        files = snapshot(cwd, case.mtime)
        normalised = self.normalise_requests(requests, case.keep_expect)
        if case.unordered:
            normalised = sorted(normalised)
        return Result(proc.returncode, self.normalise_bytes(proc.stdout), proc.stderr.decode("utf-8", "replace"),
                      normalised, connections, self.normalise_files(files),
                      (self.tls.last_version or self.mtls.last_version, self.tls.last_cipher or self.mtls.last_cipher))

    # Normalisation: only what necessarily differs between two tools

    def normalise_bytes(self, data):
        data = data.replace(b"curl/7.88.1", b"<UA>").replace(f"courier/{self.version}".encode(), b"<UA>")
        # The program's name in error lines (--stderr FILE).
        data = data.replace(b"curl: (", b"<PROGRAM>: (").replace(b"courier: (", b"<PROGRAM>: (")
        # A Digest response echoed back: its client nonce is random, and the hash covers it.
        return re.sub(rb'(cnonce|response)="[^"]*"', rb'\1="<\1>"', data)

    def normalise_requests(self, requests, keep_expect=False):
        out = []
        for r in requests:
            fields = []
            boundary = None
            chunked = any(n.lower() == "transfer-encoding" for n, _ in r["fields"])
            for name, value in r["fields"]:
                if (not keep_expect and not chunked and len(r["body"]) <= 1 << 20
                        and name.lower() == "expect" and value.lower() == "100-continue"):
                    continue
                if name.lower() == "user-agent" and value in ("curl/7.88.1", f"courier/{self.version}"):
                    value = "<UA>"
                if name.lower() == "authorization" and value.lower().startswith("digest "):
                    # The client nonce is random (and the response hashes it); the server checked
                    # the response itself (server.py /digest), so only these two are set aside.
                    value = re.sub(r'(cnonce|response)="[^"]*"', r'\1="<\1>"', value)
                if name.lower() == "content-type" and "boundary=" in value:
                    boundary = value.split("boundary=", 1)[1].strip('"')
                    value = value.replace(boundary, "<BOUNDARY>")
                fields.append((name, value))
            body = r["body"]
            if boundary:
                body = body.replace(boundary.encode(), b"<BOUNDARY>")
                # The boundaries differ in length (curl's is 40 characters, courier's 25), so the
                # lengths do; the normalised body is compared instead, and the server read exactly
                # Content-Length bytes.
                fields = [(n, "<LENGTH>") if n.lower() == "content-length" else (n, v) for n, v in fields]
            out.append((r["line"], tuple(fields), body))
        return out

    def normalise_files(self, files):
        return {k: (v[0], self.canonical_trace(v[1]) if k.endswith(".trace") else self.normalise_bytes(v[1])) + tuple(v[2:])
                if v[0] not in ("dir", "link") else v
                for k, v in files.items()}

    def canonical_trace(self, data):
        """A --trace file (a name ending in .trace) as its records' titles and bytes, the bytes read
        back from the hex columns: `== Info:` records are dropped (their words differ between the
        tools), and so are curl's `SSL data` records (a documented difference), consecutive Send data or Recv data records are joined (each tool cuts its reads
        and writes its own way), and each record's count is checked against its bytes."""
        records = []
        for line in data.decode("latin-1").split("\n"):
            if line.startswith("== Info: "):
                records.append(["info", None, b""])
            elif line.startswith("=> ") or line.startswith("<= "):
                title, _, count = line.partition(", ")
                records.append([title, int(count.split(" ")[0]), b""])
            elif records and re.match(r"[0-9a-f]{4}: ", line):
                records[-1][2] += bytes(int(x, 16) for x in line[6:54].split())
        out = []
        for title, count, body in records:
            # curl's records of TLS handshake messages (courier traces no TLS records: docs/cli.md).
            if title in ("info", "=> Send SSL data", "<= Recv SSL data"):
                continue
            if count != len(body):
                title += f" (says {count} bytes, dumps {len(body)})"
            if out and title in ("=> Send data", "<= Recv data") and out[-1][0] == title:
                out[-1][1] += body
            else:
                out.append([title, body])
        return b"".join(t.encode() + b"\n" + self.normalise_bytes(b).hex().encode() + b"\n" for t, b in out)


class TLSFront:
    """A TLS listener (the committed test certificate for localhost) in front of the plain
    scripted server: it decrypts and relays bytes both ways."""

    def __init__(self, backend, certs, client_ca=None):
        self.backend = backend
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(os.path.join(certs, "server.pem"), os.path.join(certs, "server.key"))
        if client_ca:
            self.context.verify_mode = ssl.CERT_REQUIRED
            self.context.load_verify_locations(client_ca)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.stopping = False
        self.last_version = None
        self.last_cipher = None
        threading.Thread(target=self._accept, daemon=True).start()

    def stop(self):
        self.stopping = True
        try:
            self.sock.close()
        except OSError:
            pass

    def _accept(self):
        while not self.stopping:
            try:
                raw, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._relay, args=(raw,), daemon=True).start()

    def _relay(self, raw):
        try:
            raw.settimeout(20)
            conn = self.context.wrap_socket(raw, server_side=True)
            self.last_version = conn.version()
            self.last_cipher = conn.cipher()[0] if conn.cipher() else None
        except (OSError, ssl.SSLError):
            raw.close()
            return
        back = socket.create_connection(("127.0.0.1", self.backend.port))

        def pump(src, dst):
            try:
                while True:
                    data = src.recv(65536)
                    if not data:
                        break
                    dst.sendall(data)
            except OSError:
                pass
            finally:
                for s in (src, dst):
                    try:
                        s.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass

        t = threading.Thread(target=pump, args=(back, conn), daemon=True)
        t.start()
        pump(conn, back)
        t.join(20)
        conn.close()
        back.close()


def describe(value):
    if isinstance(value, bytes):
        return repr(value[:600]) + ("..." if len(value) > 600 else "")
    return repr(value)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--courier", required=True)
    parser.add_argument("--curl", default="curl")
    parser.add_argument("--only", default=None)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    runner = Runner(args.courier, args.curl, args.verbose)
    identical = differences = failed = 0
    names = []
    try:
        for case in case_table.CASES:
            if args.only and args.only not in case.name:
                continue
            curl = runner.run(case, "curl")
            courier = runner.run(case, "courier")
            differing = [a for a in case.compare if curl.aspect(a) != courier.aspect(a)]
            problem = None
            if case.differs is None:
                if differing:
                    problem = "differs from curl in " + ", ".join(differing)
                elif case.check is not None:
                    # An identical case may also say what both must have done.
                    try:
                        verdict = case.check(curl, courier)
                    except Exception as error:
                        verdict = f"the check raised {error!r}"
                    if verdict is not True:
                        problem = f"both agree, but not on what the case expects: {verdict}"
            else:
                unexpected = [a for a in differing if a not in case.differs_in]
                if unexpected:
                    problem = "differs from curl in " + ", ".join(unexpected) + f" (only {', '.join(case.differs_in)} expected)"
                elif not differing:
                    problem = f"documented difference '{case.differs}' not seen: courier does what curl does"
                else:
                    try:
                        verdict = case.check(curl, courier)
                    except Exception as error:  # a failed check is a failure, whatever it raised
                        verdict = f"the check raised {error!r}"
                    if verdict is not True:
                        problem = f"difference '{case.differs}' is not what docs/cli.md says: {verdict}"
            if problem:
                failed += 1
                print(f"FAIL {case.name}: {problem}")
                for aspect in ASPECTS:
                    if curl.aspect(aspect) != courier.aspect(aspect):
                        print(f"     curl    {aspect}: {describe(curl.aspect(aspect))}")
                        print(f"     courier {aspect}: {describe(courier.aspect(aspect))}")
                print(f"     curl stderr: {curl.stderr.strip()[:400]!r}")
                print(f"     courier stderr: {courier.stderr.strip()[:400]!r}")
            elif case.differs:
                differences += 1
                names.append(case.differs)
                if args.verbose:
                    print(f"diff {case.name}: {case.differs}")
            else:
                identical += 1
                if args.verbose:
                    print(f"same {case.name}: exit {curl.status}, {len(curl.requests)} requests, files {sorted(curl.files)}")
    finally:
        runner.close()
    total = identical + differences + failed
    print(f"cli-differential: {total} cases: {identical} identical to curl, {differences} documented differences "
          f"(each checked), {failed} failed")
    if names:
        print("documented differences seen: " + "; ".join(sorted(set(names))))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
