"""The differential cases: the same arguments to curl 7.88 and to courier (differential.py).

Placeholders in arguments: {u} the server's base URL (http://127.0.0.1:PORT), {h} its host:port,
{p} its port, {u6}/{p6} the same on ::1, {tu}/{tp} a TLS front for https://localhost:PORT,
{ca} the test CA's PEM file, {cwd} the case's working directory, {unix} the path of the same
server's unix socket, {abstract} the name of its abstract unix socket, {mtu} a TLS front that
requires a client certificate of the test CA, {certs} the test certificates' directory.
unordered=True compares the requests the server received as a sorted list (-Z: parallel
transfers arrive in no set order).
"""
import os


class Case:
    def __init__(self, name, args, stdin=b"", files=None, compare=("req", "out", "files", "exit", "tls"), differs=None,
                 differs_in=(), check=None, env=None, mtime=False, umask=0o022, keep_expect=False, unordered=False):
        self.name = name
        self.args = args
        self.stdin = stdin
        self.files = files or {}
        self.compare = compare
        self.differs = differs
        self.differs_in = differs_in
        self.check = check
        self.env = env or {}
        self.mtime = mtime
        self.umask = umask
        self.keep_expect = keep_expect
        # -Z: the requests of parallel transfers arrive in no set order; compared as a sorted list.
        self.unordered = unordered
        self.slug = "".join(c if c.isalnum() else "-" for c in name)[:80] + "-" + str(id(self) % 100000)


CASES = []


def scripted_pattern(n):
    base = b"0123456789abcdefghijklmnopqrstuvwxyz\n"
    return (base * (n // len(base) + 1))[:n]
ALL_AND_ERR = ("req", "out", "files", "exit", "tls", "err")


def case(*args, **kwargs):
    CASES.append(Case(*args, **kwargs))


def request_lines(result):
    return [r[0] for r in result.requests]


def field(result, name, index=0):
    for k, v in result.requests[index][1]:
        if k.lower() == name.lower():
            return v
    return None


# ---------------------------------------------------------------------------------------------
# What was there before issue 19 (a baseline: the harness itself is checked by these)

case("GET to stdout", ["{u}/"])
case("-s -i a 404", ["-s", "-i", "{u}/s?status=404&body=nope"])
case("-f on a 404", ["-s", "-f", "{u}/s?status=404"])
case("-d joined in order", ["-s", "-d", "a=1", "--data-urlencode", "b=x y", "-d", "c", "{u}/echo"])
case("-X PUT with a body", ["-s", "-X", "PUT", "--data-binary", "raw", "{u}/echo"])
case("-H replaces a default, removes one, sends one empty", ["-s", "-H", "Accept: text/x", "-H", "User-Agent:", "-H", "X-Empty;", "{u}/"])
case("-I", ["-s", "-I", "{u}/s?h=X-A:1"])
case("-o FILE", ["-s", "-o", "out.txt", "{u}/s?body=data"])
case("-L 302", ["-s", "-L", "{u}/redirect/302?to=/s%3Fbody%3Dthere"])
case("-w http_code for two URLs", ["-s", "-o", "/dev/null", "-w", "%{http_code} %{num_redirects}\\n", "{u}/", "{u}/s?status=204"],
     files={})
case("-u basic", ["-s", "-u", "ann:secret", "{u}/"])
case("URL credentials", ["-s", "http://bob:pw%21@{h}/"])
case("-G with -d", ["-s", "-G", "-d", "q=1", "-d", "r=2", "{u}/s"])
case("--json", ["-s", "--json", '{"a":1}', "{u}/"])
case("-F name=value", ["-s", "-F", "a=1", "-F", "b=two", "{u}/"])

# ---------------------------------------------------------------------------------------------
# Issue 19 §2: output files

LM = 1445412480  # the scripted server's Last-Modified (Wed, 21 Oct 2015 07:28:00 GMT)

case("-O names the file after the URL's last segment", ["-s", "-O", "{u}/dl/file.txt?x=1"])
case("-O twice and -o mixed pair with the URLs in order", ["-s", "-o", "first.txt", "-O", "{u}/dl/one", "{u}/dl/two.txt", "-O"])
case("--remote-name-all for every URL without -o", ["-s", "--remote-name-all", "{u}/dl/a.txt", "-o", "b-custom", "{u}/dl/b.txt"])
case("-O with a URL ending in / has no name: 23", ["-s", "-O", "{u}/dl/"])
case("-O after dot segments", ["-s", "-O", "{u}/dl/sub/../name.bin"])
case("-O decodes the name", ["-s", "-O", "{u}/dl/a%20b.txt"],
     differs="-O decodes the URL's name (curl 7.88 writes it percent-encoded)", differs_in=("files",),
     check=lambda c, k: set(k.files) == {"a b.txt"} and set(c.files) == {"a%20b.txt"})
case("-O refuses a name that decodes to a path", ["-s", "-O", "{u}/dl/..%2Fescape"],
     differs="-O refuses a name that decodes to a path, \"..\" or NUL (23, nothing sent)", differs_in=("files", "exit", "req"),
     check=lambda c, k: k.status == 23 and k.files == {} and k.requests == [] and c.status == 0)
case("-J takes Content-Disposition's filename", ["-s", "-O", "-J", "{u}/s?h=Content-Disposition:attachment;%20filename=%22report.csv%22&body=a,b"])
case("-J keeps only the last path component", ["-s", "-OJ", "{u}/s?h=Content-Disposition:attachment;%20filename=%22../../etc/x.txt%22"])
case("-J never overwrites an existing file: 23", ["-s", "-OJ", "{u}/s?h=Content-Disposition:attachment;%20filename=taken.txt&body=new"],
     files={"taken.txt": b"old\n"})
case("-J without Content-Disposition uses the URL's name", ["-s", "-OJ", "{u}/dl/plain.txt"])
case("-J prefers filename* (RFC 6266)", ["-s", "-OJ", "{u}/s?h=Content-Disposition:attachment;%20filename=%22plain.txt%22;%20filename*=UTF-8''na%25C3%25AFve.txt"],
     differs="-J reads filename* (RFC 8187) before filename; curl 7.88 reads filename only", differs_in=("files",),
     check=lambda c, k: set(k.files) == {"naïve.txt"} and set(c.files) == {"plain.txt"})
case("-R gives the file the Last-Modified time", ["-s", "-R", "-o", "dated.txt", "{u}/cond"], mtime=True)
# The file must carry the Last-Modified time (784111777), not merely the same time in both tools:
# two files written "now" can straddle a second.
case("-R -O", ["-s", "-R", "-O", "{u}/s/x?h=Last-Modified:Sun,%2006%20Nov%201994%2008:49:37%20GMT"], mtime=True,
     check=lambda c, k: c.files["x"][2] == 784111777 and k.files["x"][2] == 784111777)
case("--output-dir puts -O and -o files in a directory", ["-s", "--output-dir", "out", "-O", "{u}/dl/a.txt", "-o", "b.txt", "{u}/dl/b"],
     files={"out/": 0o755})
case("--output-dir that does not exist: 23", ["-s", "--output-dir", "missing", "-O", "{u}/dl/a.txt"])
case("--create-dirs makes the -o path's directories (0750)", ["-s", "--create-dirs", "-o", "a/b/c.txt", "{u}/dl/x"])
case("--create-dirs with --output-dir", ["-s", "--create-dirs", "--output-dir", "d1/d2", "-O", "{u}/dl/y.txt"])
case("--no-clobber writes NAME.1, NAME.2", ["-s", "--no-clobber", "-O", "{u}/dl/x.txt", "--no-clobber", "-o", "x.txt", "{u}/dl/again"],
     files={"x.txt": b"old\n"})
case("--no-clobber -J", ["-s", "--no-clobber", "-OJ", "{u}/s?h=Content-Disposition:attachment;%20filename=taken.txt&body=new"],
     files={"taken.txt": b"old\n"})
case("--no-clobber when NAME.1 to NAME.99 are taken",
     ["-s", "--no-clobber", "-o", "n.txt", "{u}/s?body=new"],
     files=dict([("n.txt", b"0")] + [(f"n.txt.{i}", b"x") for i in range(1, 100)]))
case("--remove-on-error with a new file", ["-s", "--remove-on-error", "-o", "cut.txt", "{u}/s?len=100&cl=1000"])
case("--remove-on-error with an existing file", ["-s", "--remove-on-error", "-o", "cut.txt", "{u}/s?len=100&cl=1000"],
     files={"cut.txt": b"precious\n"},
     differs="a failed download leaves an existing -o file as it was, even with --remove-on-error (curl truncated it, then removes it)",
     differs_in=("files",), check=lambda c, k: k.files.get("cut.txt", (0, b""))[1] == b"precious\n" and "cut.txt" not in c.files)
case("a failed download without --remove-on-error", ["-s", "-o", "cut.txt", "{u}/s?len=100&cl=1000"],
     differs="a failed download leaves no partial -o file (curl leaves what arrived)", differs_in=("files",),
     check=lambda c, k: "cut.txt" not in k.files and "cut.txt" in c.files)
case("-D FILE", ["-s", "-D", "heads.txt", "{u}/s?h=X-One:1"])
case("-D - with the body on stdout", ["-s", "-D", "-", "{u}/s?h=X-One:1"])
case("-D FILE with -L has every head", ["-s", "-L", "-D", "heads.txt", "{u}/redirect/302?to=/s%3Fbody%3Dend"])
case("-D FILE for two URLs", ["-s", "-D", "heads.txt", "{u}/s?h=X-A:1", "{u}/s?h=X-B:2"])
case("-D FILE with -o", ["-s", "-D", "heads.txt", "-o", "body.txt", "{u}/s?h=X-A:1"])
case("-D FILE when nothing answers", ["-s", "-D", "heads.txt", "http://127.0.0.1:9/"])
case("--etag-save", ["-s", "--etag-save", "etag.txt", "{u}/cond"])
case("--etag-save without an ETag", ["-s", "--etag-save", "etag.txt", "{u}/s"])
case("--etag-compare sends If-None-Match", ["-s", "--etag-compare", "etag.txt", "{u}/cond"], files={"etag.txt": b'"v1"\n'})
case("--etag-compare with a missing file: 26", ["-s", "--etag-compare", "nothing.txt", "{u}/cond"])
case("--etag-compare and --etag-save", ["-s", "--etag-compare", "etag.txt", "--etag-save", "etag.txt", "{u}/cond"])
case("--fail-with-body writes the body, then 22", ["-s", "--fail-with-body", "{u}/s?status=404&body=gone"])
case("--fail-with-body -o", ["-s", "--fail-with-body", "-o", "err.txt", "{u}/s?status=500&body=oops"])
case("-f -o writes no file", ["-s", "-f", "-o", "err.txt", "{u}/s?status=500&body=oops"])
case("--fail and --fail-with-body together: 2", ["-s", "-f", "--fail-with-body", "{u}/"])
case("-N", ["-s", "-N", "{u}/s?len=5000&chunked=1"])
case("--stderr FILE gets the error line", ["-sS", "--stderr", "err.txt", "-f", "-o", "/dev/null", "{u}/s?status=404"])
case("--stderr FILE and curl's progress meter", ["--stderr", "err.txt", "-o", "/dev/null", "{u}/s?status=404"],
     differs="no progress meter: without -s, curl writes its meter to stderr when the body goes to a file; courier shows a bar only on a terminal (or with -#)",
     differs_in=("files",), check=lambda c, k: k.files["err.txt"][1] == b"" and b"% Total" in c.files["err.txt"][1])
case("--stderr - sends it to stdout", ["-sS", "--stderr", "-", "-f", "{u}/s?status=404"])
case("--no-progress-meter", ["--no-progress-meter", "-o", "f.txt", "{u}/s?len=1000"])
case("-# with -o", ["-#", "-o", "f.txt", "{u}/s?len=1000"])
case("-V prints a version and exits 0", ["-V"], compare=("exit", "req", "files"))

# ---------------------------------------------------------------------------------------------
# Issue 19 §3: the request

case("-A", ["-s", "-A", "agent/1.0", "{u}/"])
case("-A '' sends no User-Agent", ["-s", "-A", "", "{u}/"])
case("-A and -H User-Agent: the -H one", ["-s", "-A", "a", "-H", "User-Agent: b", "{u}/"])
case("-e", ["-s", "-e", "http://from.example/page", "{u}/"])
case("-e ';auto' with -L", ["-s", "-L", "-e", ";auto", "{u}/redirect/302?to=/s"])
case("-e 'URL;auto' with -L", ["-s", "-L", "-e", "http://first/;auto", "{u}/redirect/301?to=/s"])
case("-r 0-4", ["-s", "-r", "0-4", "{u}/range/100"])
case("-r 90-", ["-s", "-r", "90-", "{u}/range/100"])
case("-r -5", ["-s", "-r", "-5", "{u}/range/100"])
case("-r 95 (no dash)", ["-s", "-r", "95", "{u}/range/100"])
case("-r with -o", ["-s", "-r", "10-19", "-o", "part.bin", "{u}/range/100"])
case("-r with a POST", ["-s", "-r", "0-5", "-d", "x=1", "{u}/"])
case("-z DATE", ["-s", "-z", "Wed, 21 Oct 2015 07:28:00 GMT", "{u}/cond"])
case("-z older date", ["-s", "-z", "1 Jan 2010", "{u}/cond"])
case("-z -DATE asks If-Unmodified-Since", ["-s", "-z", "-20100101", "{u}/cond"])
case("-z FILE uses its mtime", ["-s", "-z", "ref.txt", "{u}/cond"], files={"ref.txt": (b"x", 0o644, 1600000000)})
case("-z with an RFC 850 date", ["-s", "-z", "Sunday, 06-Nov-94 08:49:37 GMT", "{u}/"])
case("-z with asctime and a zone", ["-s", "-z", "Sun Nov  6 08:49:37 1994 +0200", "{u}/"])
case("-z with a bad date and no such file", ["-s", "-z", "not a date", "{u}/"])
case("-T FILE", ["-s", "-T", "up.txt", "{u}/put/target"], files={"up.txt": b"upload body\n"})
case("-T FILE to URL/ appends the name", ["-s", "-T", "dir/up load.txt", "{u}/put/"], files={"dir/up load.txt": b"data"})
case("-T FILE to a URL with no path", ["-s", "-T", "up.txt", "{u}"], files={"up.txt": b"data"})
case("-T - reads stdin, chunked", ["-s", "-T", "-", "{u}/put/"], stdin=b"from stdin\n" * 100)
case("-T FILE -C -", ["-s", "-T", "up.txt", "-C", "-", "{u}/put/x"], files={"up.txt": b"0123456789"})
case("-T with -X POST", ["-s", "-T", "up.txt", "-X", "POST", "{u}/put/x"], files={"up.txt": b"data"})
case("-T with -H Expect: removes Expect", ["-s", "-T", "up.txt", "-H", "Expect:", "{u}/put/x"], files={"up.txt": b"data"})
case("-T with a glob of files", ["-s", "-T", "{a,b}.txt", "{u}/put/"], files={"a.txt": b"A", "b.txt": b"B"})
case("-T a missing file: 26", ["-s", "-T", "nothing.txt", "{u}/put/"])
case("-T and -d: 2", ["-s", "-T", "up.txt", "-d", "x", "{u}/put/"], files={"up.txt": b"d"})
case("--url-query", ["-s", "--url-query", "name=a b&c", "--url-query", "+raw=x%20y", "{u}/s?q=1"])
case("--url-query with -G -d", ["-s", "-G", "-d", "a=1", "--url-query", "b=2", "{u}/s"],
     differs="--url-query with -G: both are added (--url-query first); curl 7.88 drops --url-query", differs_in=("req",),
     check=lambda c, k: request_lines(k) == ["GET /s?b=2&a=1 HTTP/1.1"] and request_lines(c) == ["GET /s?a=1 HTTP/1.1"])
case("--form-string takes @ and < literally", ["-s", "--form-string", "a=@notafile", "-F", "b=x", "--form-string", "c=<y;type=z", "{u}/"])
case("--data-ascii", ["-s", "--data-ascii", "a=1", "--data-ascii", "b=2", "{u}/"])
case("--request-target '*' with OPTIONS", ["-s", "-X", "OPTIONS", "--request-target", "*", "{u}/"])
case("--request-target a path", ["-s", "--request-target", "/other?x=1", "{u}/ignored"])
case("dot segments are removed", ["-s", "{u}/a/../b/./c/."])
case("dot segments at the root", ["-s", "{u}/../../x"])
case("--path-as-is keeps them", ["-s", "--path-as-is", "{u}/a/../b/./c"])
case("-L 301 turns a POST into a GET", ["-s", "-L", "-d", "x=1", "{u}/redirect/301?to=/s"])
case("--post301 keeps it a POST", ["-s", "-L", "--post301", "-d", "x=1", "{u}/redirect/301?to=/s"])
case("-L 302 POST to GET", ["-s", "-L", "-d", "x=1", "{u}/redirect/302?to=/s"])
case("--post302", ["-s", "-L", "--post302", "-d", "x=1", "{u}/redirect/302?to=/s"])
case("-L 303 POST to GET", ["-s", "-L", "-d", "x=1", "{u}/redirect/303?to=/s"])
case("--post303", ["-s", "-L", "--post303", "-d", "x=1", "{u}/redirect/303?to=/s"])
case("-L 302 keeps a PUT a PUT", ["-s", "-L", "-T", "up.txt", "{u}/redirect/302?to=/s"], files={"up.txt": b"data"})
case("-L 303 turns a PUT into a GET", ["-s", "-L", "-T", "up.txt", "{u}/redirect/303?to=/s"], files={"up.txt": b"data"})
case("-L 307 keeps POST and body", ["-s", "-L", "-d", "x=1", "{u}/redirect/307?to=/s"])
case("-L to another host drops -u", ["-s", "-L", "-u", "a:b", "{u}/redirect/302?to=http://localhost:{p}/s"])
case("--location-trusted keeps -u on another host", ["-s", "--location-trusted", "-u", "a:b", "{u}/redirect/302?to=http://localhost:{p}/s"])
case("--url", ["-s", "--url", "{u}/s?body=one", "--url", "{u}/s?body=two"])
case("-: groups have their own options", ["-s", "-H", "X-A: 1", "{u}/one", "-:", "-H", "X-B: 2", "{u}/two", "--next", "{u}/three"])
case("-: each group its own -o", ["-s", "-o", "a.txt", "{u}/s?body=A", "-:", "-o", "b.txt", "{u}/s?body=B"])
case("-: global -s applies everywhere", ["{u}/s?status=404", "-f", "-:", "-s", "{u}/"])
case("-: with an empty last group: 2", ["-s", "{u}/", "-:"],
     differs="every -: group is checked before anything is sent: a group without a URL is 2 at once (curl runs the groups before it)",
     differs_in=("req", "out"), check=lambda c, k: k.status == 2 and k.requests == [] and len(c.requests) == 1)
case("-: with a bad option value in a later group: 2", ["-s", "{u}/", "-:", "--max-redirs", "many", "{u}/"])
case("glob [1-3]", ["-s", "{u}/n/[1-3]"])
case("glob [001-003] and #1 in -o", ["-s", "{u}/s?body=[001-003]", "-o", "file_#1.txt"])
case("glob {a,b}[1-2] and #2#1", ["-s", "{u}/{a,b}/[1-2]", "-o", "#2-#1.txt"])
case("glob [a-e:2]", ["-s", "{u}/[a-e:2]"])
case("glob [0-20:10]", ["-s", "{u}/x[0-20:10]"])
LOOSE = "bytes a URI may not hold (\" < > [ \\ ] ^ ` { | }, non-ASCII, a stray %) are sent percent-encoded; curl 7.88 sends the ASCII ones as they are, non-ASCII in lower-case hex in the path and raw in the query"
case("glob escapes and []", ["-s", "{u}/e\\[1\\]/[]"], differs=LOOSE, differs_in=("req",),
     check=lambda c, k: request_lines(k) == ["GET /e%5B1%5D/%5B%5D HTTP/1.1"] and request_lines(c) == ["GET /e[1]/[] HTTP/1.1"])
case("-g sends brackets", ["-s", "-g", "{u}/a[1-2]"], differs=LOOSE, differs_in=("req",),
     check=lambda c, k: request_lines(k) == ["GET /a%5B1-2%5D HTTP/1.1"] and request_lines(c) == ["GET /a[1-2] HTTP/1.1"])
case("a non-ASCII path", ["-s", "{u}/caf\u00e9?q=\u00e9"], differs=LOOSE, differs_in=("req",),
     check=lambda c, k: request_lines(k) == ["GET /caf%C3%A9?q=%C3%A9 HTTP/1.1"] and request_lines(c) == ["GET /caf%c3%a9?q=\u00c3\u00a9 HTTP/1.1"])
case("a space in the URL: 3", ["-s", "{u}/a b"])
case("glob error: bad range", ["-s", "{u}/[3-1]"], compare=("req", "out", "files", "exit", "tls", "err"))
case("glob error: unmatched brace", ["-s", "{u}/{a,b"], compare=("req", "out", "files", "exit", "tls", "err"))
case("glob error: nested", ["-s", "{u}/{a,{b}}"], compare=("req", "out", "files", "exit", "tls", "err"))
case("glob error: stops the run", ["-s", "{u}/ok", "{u}/[1-", "{u}/never"], compare=("req", "out", "files", "exit", "tls", "err"))
case("glob: too many", ["-s", "{u}/" + "{a}" * 99], compare=("req", "out", "files", "exit", "tls", "err"))
case("glob -O", ["-s", "-O", "{u}/dl/f[1-2].txt"])

# ---------------------------------------------------------------------------------------------
# Issue 19 §4: authentication, TLS and the connection

case("--basic -u", ["-s", "--basic", "-u", "u:p", "{u}/auth"])
case("--anyauth sends Basic when asked", ["-s", "--anyauth", "-u", "u:p", "{u}/auth?schemes=Basic"])
case("--anyauth on a server that asks for nothing", ["-s", "--anyauth", "-u", "u:p", "{u}/"])
case("--anyauth when only Digest is offered", ["-s", "--anyauth", "-u", "u:p", "{u}/digest"])
# Digest (RFC 7616): the server (server.py /digest) verifies every response; cnonce and response
# are set aside in the comparison (random), everything else the server received must match.
for algorithm in ("MD5", "SHA-256", "MD5-sess", "SHA-256-sess"):
    case(f"--digest {algorithm}", ["-s", "--digest", "-u", "u:p", "{u}/digest?algorithm=" + algorithm])
case("--digest SHA-512-256", ["-s", "--digest", "-u", "u:p", "{u}/digest?algorithm=SHA-512-256"],
     differs="--digest SHA-512-256: curl 7.88 hashes with SHA-256 and the server refuses it; courier's SHA-512/256 is accepted",
     differs_in=("out",),
     check=lambda c, k: k.stdout == b"digest ok nc=00000001\n" and c.stdout == b"bad digest: response\n")
case("--digest userhash", ["-s", "--digest", "-u", "u:p", "{u}/digest?algorithm=SHA-256&userhash=1"])
case("--digest stale=true: once more with the new nonce", ["-s", "--digest", "-u", "u:p", "{u}/digest?stale=1"])
case("--digest without qop (RFC 2069)", ["-s", "--digest", "-u", "u:p", "{u}/digest?qop=none"])
case("--digest with qop auth-int,auth", ["-s", "--digest", "-u", "u:p", "{u}/digest?qop=auth-int,auth"])
case("--digest, wrong password", ["-s", "--digest", "-u", "u:wrong", "{u}/digest"])
case("--digest, credentials in the URL", ["-s", "--digest", "http://u:p@{h}/digest?algorithm=SHA-256"])
case("--digest, two URLs", ["-s", "--digest", "-u", "u:p", "{u}/digest?x=1", "{u}/digest?x=2"])
case("--digest when only Basic is offered", ["-s", "--digest", "-u", "u:p", "{u}/auth?schemes=Basic"])
case("--anyauth picks Digest over Basic", ["-s", "--anyauth", "-u", "u:p", "{u}/digest?also=Basic"])
case("--digest --basic: both schemes, negotiated", ["-s", "--digest", "--basic", "-u", "u:p", "{u}/auth?schemes=Basic"])
case("--anyauth --basic: still any", ["-s", "--anyauth", "--basic", "-u", "u:p", "{u}/auth?schemes=Basic"])
case("--digest --no-digest: Basic at once", ["-s", "--digest", "--no-digest", "-u", "u:p", "{u}/auth?schemes=Basic"])
case("--digest -f -w on a refusal", ["-s", "-f", "-w", "%{http_code}", "--digest", "-u", "u:x", "{u}/digest"])
case("--digest with -d: the body goes with the first request too", ["-s", "--digest", "-u", "u:p", "-d", "hello", "{u}/digest"],
     differs="--digest/--anyauth with a body: courier sends the body with the first request too (it goes twice when a 401 comes); "
             "curl sends the first one with Content-Length: 0, and the body never when no 401 comes",
     differs_in=("req",),
     check=lambda c, k: [r[2] for r in k.requests] == [b"hello", b"hello"] and [r[2] for r in c.requests] == [b"", b"hello"])
case("--digest, a server that repeats its nonce", ["-s", "--digest", "-u", "u:p", "{u}/digest?fixed=1&x=1", "{u}/digest?fixed=1&x=2"],
     differs="--digest counts nc per nonce for the whole run: a repeated nonce gets 00000002 (curl sends 00000001 again and is refused)",
     differs_in=("req", "out"),
     check=lambda c, k: k.stdout == b"digest ok nc=00000001\ndigest ok nc=00000002\n"
     and c.stdout.endswith(b"bad digest: nc 00000001 not above 00000001\n"))
case("--oauth2-bearer", ["-s", "--oauth2-bearer", "t0k3n", "{u}/auth?schemes=Bearer"])
case("--disallow-username-in-url", ["-s", "--disallow-username-in-url", "http://user:pw@{h}/"])
case("--disallow-username-in-url without a user name", ["-s", "--disallow-username-in-url", "{u}/"])
case("-4", ["-s", "-4", "{u}/"])
case("-6 to an IPv6 server", ["-s", "-6", "{u6}/"])
case("-4 to an IPv6 literal", ["-s", "-4", "{u6}/"])
case("--connect-to", ["-s", "--connect-to", "example.test:80:127.0.0.1:{p}", "http://example.test/s?body=via"])
case("--connect-to with empty parts", ["-s", "--connect-to", "::127.0.0.1:{p}", "http://example.test:1234/"])
case("--proto =https refuses http: 1", ["-s", "--proto", "=https", "{u}/"])
case("--proto -all,+http", ["-s", "--proto", "-all,+http", "{u}/"])
case("--proto-redir =https refuses a redirect to http", ["-s", "-L", "--proto-redir", "=https", "{u}/redirect/302?to=/s"])
case("--proto-default https", ["-s", "--proto-default", "https", "--cacert", "{ca}", "localhost:{tp}/s?body=tls"])
case("https with --cacert", ["-s", "--cacert", "{ca}", "{tu}/s?body=tls"])
case("--tlsv1.2", ["-s", "--tlsv1.2", "--cacert", "{ca}", "{tu}/"])
case("--tlsv1.3", ["-s", "--tlsv1.3", "--cacert", "{ca}", "{tu}/"])
case("--tls-max 1.2", ["-s", "--tls-max", "1.2", "--cacert", "{ca}", "{tu}/"])
case("--ciphers", ["-s", "--tls-max", "1.2", "--ciphers", "ECDHE-ECDSA-AES128-GCM-SHA256", "--cacert", "{ca}", "{tu}/"])
case("--ciphers with none the server has: 35", ["-s", "--tls-max", "1.2", "--ciphers", "ECDHE-RSA-AES128-GCM-SHA256", "--cacert", "{ca}", "{tu}/"])
case("--ciphers OpenSSL does not know", ["-s", "--ciphers", "NOT-A-CIPHER", "--cacert", "{ca}", "{tu}/"])
case("--tls13-ciphers", ["-s", "--tls13-ciphers", "TLS_CHACHA20_POLY1305_SHA256", "--cacert", "{ca}", "{tu}/"])
case("--no-sessionid", ["-s", "--no-sessionid", "--cacert", "{ca}", "{tu}/", "{tu}/"])
# Client certificates (-E, --key, --pass, --key-type) against a TLS front that requires one, and
# trust directories (--capath). Files come from Tests/CourierTLSTests/Certificates.
_CERTS = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../Tests/CourierTLSTests/Certificates"))


def _cert_file(name):
    with open(os.path.join(_CERTS, name), "rb") as fh:
        return fh.read()


_MTLS = ["-s", "--cacert", "{ca}"]
case("-E and --key: mutual TLS", _MTLS + ["-E", "{certs}/client.pem", "--key", "{certs}/client.key", "{mtu}/s?body=mtls"])
case("--cert with the key in the same file", _MTLS + ["--cert", "both.pem", "{mtu}/"],
     files={"both.pem": _cert_file("client.pem") + _cert_file("client.key")})
case("-E FILE:PASS with an encrypted --key", _MTLS + ["-E", "{certs}/client.pem:s3cret", "--key", "{certs}/client-encrypted.key", "{mtu}/"])
case("--pass with an encrypted --key", _MTLS + ["-E", "{certs}/client.pem", "--key", "{certs}/client-encrypted.key", "--pass", "s3cret",
                                                "{mtu}/"])
case("--key-type PEM", _MTLS + ["-E", "{certs}/client.pem", "--key", "{certs}/client.key", "--key-type", "PEM", "{mtu}/"])
case("-E with \\: in the file name", _MTLS + ["-E", "a\\:b.pem", "--key", "{certs}/client.key", "{mtu}/"],
     files={"a:b.pem": _cert_file("client.pem")})
# No client certificate for a server that requires one is left out: under TLS 1.3 the server's
# alert races the request in both tools (courier 35 or 55, curl 56 or 55); the library's tests
# cover it (MutualTLSTests, TLSInteropTests.aRequiredClientCertificate).
case("-E missing: 58", _MTLS + ["-E", "{cwd}/missing.pem", "{mtu}/"])
case("-E without a key in the file: 58", _MTLS + ["-E", "{certs}/client.pem", "{mtu}/"])
case("--key that is not the certificate's: 58", _MTLS + ["-E", "{certs}/client.pem", "--key", "{certs}/server.key", "{mtu}/"])
case("--key missing: 58", _MTLS + ["-E", "{certs}/client.pem", "--key", "{cwd}/missing.key", "{mtu}/"])
case("an encrypted --key with the wrong --pass: 58", _MTLS + ["-E", "{certs}/client.pem", "--key", "{certs}/client-encrypted.key",
                                                              "--pass", "wrong", "{mtu}/"])
case("--key-type DER: 58", _MTLS + ["-E", "{certs}/client.pem", "--key", "{certs}/client.key", "--key-type", "DER", "{mtu}/"])
case("-E on an http URL is not read", ["-s", "-E", "{cwd}/missing.pem", "{u}/s?body=plain"])
case("--capath with the CA as HASH.0", ["-s", "--capath", "capath", "{tu}/s?body=capath"],
     files={"capath/c280266b.0": _cert_file("ca.pem")})
case("--capath that does not exist: 60", ["-s", "--capath", "{cwd}/none", "{tu}/"])
case("--capath missing beside a good --cacert", ["-s", "--cacert", "{ca}", "--capath", "{cwd}/none", "{tu}/"])
case("--cacert missing: 77", ["-s", "--cacert", "{cwd}/none.pem", "{tu}/"])
case("--no-keepalive", ["-s", "--no-keepalive", "{u}/"])
case("--tcp-nodelay", ["-s", "--tcp-nodelay", "{u}/"])
case("--happy-eyeballs-timeout-ms", ["-s", "--happy-eyeballs-timeout-ms", "100", "{u}/"])
case("--unix-socket", ["-s", "--unix-socket", "{unix}", "http://localhost/s?body=over-unix"])
case("--unix-socket: two URLs, one connection", ["-s", "--unix-socket", "{unix}", "-w", "%{num_connects}\\n",
                                                 "http://docker.test/s?body=a", "http://docker.test/echo"])
case("--unix-socket with a port in the URL", ["-s", "--unix-socket", "{unix}", "-d", "x=1", "http://docker.test:2375/echo"])
case("--unix-socket to nothing: 7", ["-s", "--unix-socket", "{cwd}/none.sock", "http://localhost/"])
case("--abstract-unix-socket", ["-s", "--abstract-unix-socket", "{abstract}", "http://localhost/s?body=abstract"])
case("--abstract-unix-socket after --unix-socket wins", ["-s", "--unix-socket", "{cwd}/none.sock", "--abstract-unix-socket", "{abstract}",
                                                         "http://localhost/"])
case("--unix-socket in one -: group only", ["-s", "--unix-socket", "{unix}", "http://localhost/s?body=1", "-:", "{u}/s?body=2"])
case("--interface with an address", ["-s", "--interface", "127.0.0.1", "{u}/"])
case("--interface with an interface name", ["-s", "--interface", "lo", "{u}/"])
case("--interface if!lo", ["-s", "--interface", "if!lo", "{u}/"])
case("--interface host!localhost", ["-s", "--interface", "host!localhost", "-4", "{u}/"])
case("--interface if! with no such interface: 45", ["-s", "-S", "--interface", "if!courier-none", "{u}/"], compare=ALL_AND_ERR)
case("--interface host! that does not resolve: 45", ["-s", "-S", "--interface", "host!none.invalid", "{u}/"], compare=ALL_AND_ERR)
case("--interface with an address that is not local: 45", ["-s", "-S", "--interface", "192.0.2.254", "{u}/"], compare=ALL_AND_ERR)
case("--local-port with a range", ["-s", "--local-port", "41000-41999", "{u}/", "{u}/echo"])
case("--local-port badly used: 2", ["-s", "--local-port", "9-1", "{u}/"])
case("--local-port with --interface", ["-s", "--interface", "127.0.0.1", "--local-port", "42000-42999", "{u}/"])
case("--keepalive-time", ["-s", "--keepalive-time", "5", "{u}/"])
case("--limit-rate", ["-s", "--limit-rate", "1m", "{u}/s?len=200000"])
case("--limit-rate on an upload", ["-s", "--limit-rate", "500K", "--data-binary", "@up.bin", "{u}/echo"],
     files={"up.bin": scripted_pattern(150000)})
case("--limit-rate 0 is no cap", ["-s", "--limit-rate", "0", "{u}/s?body=free"])
case("--limit-rate badly used: 2", ["-s", "--limit-rate", "1.5k", "{u}/"])
case("-Y and -y on a quick transfer", ["-s", "-Y", "1", "-y", "1", "{u}/s?len=100000"])
case("-y alone", ["-s", "-y", "5", "{u}/"])
case("-Y too slow: 28 in curl's words", ["-s", "-S", "-Y", "100", "-y", "1", "{u}/slow?ms=2500"], compare=ALL_AND_ERR)
case("-Y malformed: 2", ["-s", "-Y", "fast", "{u}/"])
case("--raw: a chunked body with its framing", ["-s", "--raw", "{u}/s?body=hello%20raw%20world%0A&chunked=1"])
case("--raw -i with a chunked body", ["-s", "--raw", "-i", "{u}/s?len=40&chunked=1"])
case("--raw -o FILE with a chunked body", ["-s", "--raw", "-o", "raw.txt", "{u}/s?len=40&chunked=1"])
case("--raw on a Content-Length body changes nothing", ["-s", "--raw", "{u}/s?body=plain"])
case("--raw --compressed: the gzip bytes as they came", ["-s", "--raw", "--compressed", "{u}/s?body=squeeze%20me&gzip=1"],
     compare=("out", "files", "exit"))  # Accept-Encoding: the documented --compressed difference
case("--raw --compressed, chunked", ["-s", "--raw", "--compressed", "{u}/s?len=300&gzip=1&chunked=1"],
     compare=("out", "files", "exit"))  # Accept-Encoding: the documented --compressed difference
case("--compressed decodes gzip", ["-s", "--compressed", "{u}/s?len=300&gzip=1&chunked=1"],
     compare=("out", "files", "exit"))  # Accept-Encoding: the documented --compressed difference
case("--raw for two URLs on one connection", ["-s", "--raw", "{u}/s?body=one&chunked=1", "{u}/s?body=two&chunked=1"])
case("a lying Content-Length: 18", ["-s", "{u}/s?body=short&cl=100"])
case("--ignore-content-length reads a lying body to the close", ["-s", "--ignore-content-length", "{u}/s?body=short&cl=100"])
case("--ignore-content-length with Connection: close", ["-s", "--ignore-content-length", "-H", "Connection: close", "{u}/s?len=5000"])
case("--ignore-content-length, a chunked body is still chunked", ["-s", "--ignore-content-length", "{u}/s?body=chunks&chunked=1"])
case("--ignore-content-length -I", ["-s", "-I", "--ignore-content-length", "{u}/s?body=head"])
case("--keepalive-time with --no-keepalive", ["-s", "--keepalive-time", "5", "--no-keepalive", "{u}/"])
case("--fail-early stops at the first failure", ["-s", "-f", "--fail-early", "{u}/s?status=404", "{u}/never"])
case("without --fail-early every URL runs", ["-s", "-f", "{u}/s?status=404", "{u}/after"])

case("glob error: close bracket", ["-s", "-S", "{u}/x]"], compare=ALL_AND_ERR)
case("glob error: empty braces", ["-s", "-S", "{u}/{}"], compare=ALL_AND_ERR)
case("glob error: bad letter range", ["-s", "-S", "{u}/[A-z]"], compare=ALL_AND_ERR)
case("glob error: zero step", ["-s", "-S", "{u}/[1-2:0]"], compare=ALL_AND_ERR)
case("glob error: range overflow", ["-s", "-S", "{u}/[1-9999999999][1-9999999999]"], compare=ALL_AND_ERR)
case("glob error: number overflow", ["-s", "-S", "{u}/[1-99999999999999999999]"], compare=ALL_AND_ERR)
case("glob: 98 literal pieces and sets", ["-s", "{u}" + "/{a}" * 49])
case("glob: the 100th pattern", ["-s", "-S", "{u}" + "/{a}" * 50], compare=ALL_AND_ERR)
case("glob error hidden by -s", ["-s", "{u}/[3-1]"], compare=ALL_AND_ERR)
case("glob: an IPv6 literal is not a range", ["-s", "{u6}/[1-2]"])
case("glob: one -o for every URL of a glob", ["-s", "{u}/s?body=[1-3]", "-o", "same.txt"])
case("glob: --fail-early stops inside a glob", ["-s", "-f", "--fail-early", "{u}/s?status=[404-405]"])
case("glob: {,a} and {a,,b}", ["-s", "{u}/x{,a}/y{a,,b}"])
case("-J and -i: 2", ["-s", "-OJ", "-i", "{u}/dl/x"])
case("-w filename_effective with -O and -J", ["-s", "-OJ", "-w", "%{filename_effective}\\n", "{u}/dl/u.txt",
      "{u}/s?h=Content-Disposition:attachment;%20filename=cd.txt"])
case("-R without Last-Modified leaves the time alone", ["-s", "-R", "-o", "now.txt", "{u}/s"])
case("-D with -I", ["-s", "-I", "-D", "heads.txt", "{u}/s?h=X-A:1"])
case("--create-dirs with existing directories", ["-s", "--create-dirs", "-o", "a/b.txt", "{u}/dl/x"], files={"a/": 0o755})
case("-: second group -O", ["-s", "{u}/s?body=one", "-:", "-O", "{u}/dl/two.txt"])
case("--proto-redir all allows https to http", ["-s", "-L", "--proto-redir", "all", "--cacert", "{ca}", "{tu}/redirect/302?to=http://127.0.0.1:{p}/s"])

# ---------------------------------------------------------------------------------------------
# Deliberate differences documented before issue 19 (docs/cli.md), checked here too

case("-X POST without a body sends Content-Length: 0", ["-s", "-X", "POST", "{u}/"],
     differs="a POST, PUT or PATCH without a body sends Content-Length: 0 (curl sends no framing field)", differs_in=("req",),
     check=lambda c, k: field(k, "Content-Length") == "0" and field(c, "Content-Length") is None)
case("--compressed asks for what courier decodes", ["-s", "--compressed", "{u}/"],
     differs="--compressed asks for gzip, deflate (what courier decodes; curl 7.88 adds br and zstd)", differs_in=("req",),
     check=lambda c, k: field(k, "Accept-Encoding") == "gzip, deflate" and field(c, "Accept-Encoding") == "deflate, gzip, br, zstd")
case("-L from https to http is refused", ["-s", "-L", "--cacert", "{ca}", "{tu}/redirect/302?to=http://127.0.0.1:{p}/s"],
     differs="-L refuses a redirect from https to http (1) unless --proto-redir allows http; curl follows it", differs_in=("req", "out", "exit"),
     check=lambda c, k: k.status == 1 and len(k.requests) == 1 and c.status == 0 and len(c.requests) == 2)

# -C - (resume), existing before issue 19, with -O now too
PARTIAL = b"0123456789abcdefghijklmnopqrstuvwxyz\n0123456789ab"  # the first 50 bytes of /range/100
case("-C - -o resumes a partial file", ["-s", "-C", "-", "-o", "part.bin", "{u}/range/100"], files={"part.bin": PARTIAL})
case("-C - -O resumes the URL's file", ["-s", "-C", "-", "-O", "{u}/range/100"], files={"100": PARTIAL})
case("-C - -O -J: 2", ["-s", "-C", "-", "-OJ", "{u}/range/100"])
case("-C - with nothing to resume into: 2", ["-s", "-C", "-", "{u}/range/100"],
     differs="-C - needs a file to resume (-o FILE or -O) or an upload (-T): 2; curl ignores it for standard output",
     differs_in=("req", "out", "exit"), check=lambda c, k: k.status == 2 and k.requests == [] and c.status == 0)
case("-C - sends If-Range with the validator an earlier run saved",
     ["-s", "-C", "-", "-o", "f.txt", "{u}/cond", "-:", "-C", "-", "-o", "f.txt", "{u}/range/100"],
     differs="-C - sends If-Range with the validator an earlier courier run kept on the file, so a changed resource is fetched whole instead of appended to the old bytes (curl sends no If-Range)",
     differs_in=("req", "files"),
     check=lambda c, k: field(k, "If-Range", 1) == '"v1"' and field(c, "If-Range", 1) is None
     and k.files["f.txt"][1] == scripted_pattern(100) and c.files["f.txt"][1] == b"fresh\n" + scripted_pattern(100)[6:])

case("-0 sends HTTP/1.0", ["-s", "-0", "{u}/s?body=old"])
case("-0 with a POST", ["-s", "-0", "-d", "a=1", "{u}/echo"])
case("-0 for two URLs", ["-s", "-0", "{u}/s?body=1", "{u}/s?body=2"])
case("-0 -T - cannot be framed: 25", ["-s", "-0", "-T", "-", "{u}/put/"], stdin=b"x")

# ---------------------------------------------------------------------------------------------
# Issue 12 §2: cookies (-b, -c, -j). The cookie files themselves differ in their comment line and
# order (docs/cookies.md); CookieCLITests has curl read courier's files and courier read curl's.

NOFILES = ("req", "out", "exit")
# Names of different lengths, longest first: curl sends longer names first, courier the oldest.
COOKIE_FILE = (b"# Netscape HTTP Cookie File\n127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\t1\n"
               b"127.0.0.1\tFALSE\t/\tFALSE\t4102444800\tkeep\t2\n#HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t0\tho\t3\n"
               b".other.test\tTRUE\t/\tFALSE\t0\telsewhere\t4\n")
case("-b NAME=VALUE is sent where curl puts Cookie", ["-s", "-b", "a=1", "-b", "b=2", "-e", "http://r/", "-H", "X-A: 1", "-d", "x", "{u}/"])
case("-H Cookie replaces the -b literal", ["-s", "-b", "a=1", "-H", "Cookie: c=3", "{u}/"])
case("-b NAME=VALUE does not store cookies", ["-s", "-b", "a=1", "{u}/s?h=Set-Cookie:k=v", "{u}/"])
case("-b '' stores and sends cookies across URLs", ["-s", "-b", "", "-H", "X-A: 1", "-d", "x", "{u}/s?h=Set-Cookie:k=v", "{u}/"])
case("the jar's cookies, then the -b literal, in one field", ["-s", "-b", "", "-b", "x=y", "{u}/s?h=Set-Cookie:k=v", "{u}/"])
case("Max-Age=0 deletes a cookie", ["-s", "-b", "", "{u}/s?h=Set-Cookie:k=v%3B%20Path=/s&h=Set-Cookie:m=1",
                                   "{u}/s?h=Set-Cookie:k=x%3B%20Path=/s%3B%20Max-Age=0", "{u}/s"])
case("Path limits where a cookie goes", ["-s", "-b", "", "{u}/s?h=Set-Cookie:p=1%3B%20Path=/echo", "{u}/", "{u}/echo"])
case("-L sends the cookies a redirect set", ["-s", "-L", "-b", "", "{u}/redirect/302?to=/s&h=Set-Cookie:r=1"])
case("-b FILE reads curl's cookie file", ["-s", "-b", "in.txt", "{u}/"], files={"in.txt": COOKIE_FILE})
case("-j drops the file's session cookies", ["-s", "-j", "-b", "in.txt", "{u}/"], files={"in.txt": COOKIE_FILE})
case("-c FILE in one group, -b FILE in the next", ["-s", "-c", "jar.txt", "{u}/s?h=Set-Cookie:k=v", "-:", "-b", "jar.txt", "{u}/"],
     compare=NOFILES)
case("-: a group without -b FILE or -c neither sends nor stores cookies",
     ["-s", "-b", "", "{u}/s?h=Set-Cookie:k=v", "-:", "{u}/s?h=Set-Cookie:n=1", "-:", "-b", "", "{u}/"])
case("-b literal after a redirect to another origin", ["-s", "-L", "-b", "a=1", "{u}/redirect/302?to=http://localhost:{p}/s"],
     differs="the -b NAME=VALUE literal is not sent to another origin after a redirect (as a -H Cookie field; curl sends it to every host)",
     differs_in=("req",), check=lambda c, k: field(k, "Cookie", 0) == "a=1" and field(k, "Cookie", 1) is None
     and field(c, "Cookie", 1) == "a=1")
case("cookies of one path length go in creation order", ["-s", "-b", "", "{u}/s?h=Set-Cookie:a=1&h=Set-Cookie:long=2", "{u}/"],
     differs="cookies of the same path length are sent oldest first (RFC 6265 §5.4); curl sends longer domains, then longer names, then the newest first",
     differs_in=("req",), check=lambda c, k: field(k, "Cookie", 1) == "a=1; long=2" and field(c, "Cookie", 1) == "long=2; a=1")
case("the jar's cookies and a -H Cookie in one field", ["-s", "-b", "", "-H", "Cookie: c=3", "{u}/s?h=Set-Cookie:k=v", "{u}/"],
     differs="the jar's cookies and a -H Cookie field are sent in one Cookie field (curl sends two)",
     differs_in=("req",), check=lambda c, k: field(k, "Cookie", 1) == "k=v; c=3"
     and [v for n, v in c.requests[1][1] if n.lower() == "cookie"] == ["k=v", "c=3"])

# ---------------------------------------------------------------------------------------------
# Issue 13 §3: Expect: 100-continue (the server answers 100 to it)

BIG = scripted_pattern(2 * 1024 * 1024)
case("-T a file over 1 MiB asks Expect: 100-continue", ["-s", "-T", "big.bin", "{u}/put/big"], files={"big.bin": BIG})
case("--data-binary @FILE over 1 MiB asks Expect: 100-continue", ["-s", "--data-binary", "@big.bin", "{u}/echo"],
     files={"big.bin": BIG}, compare=("req", "files", "exit"))
case("--data-binary @FILE of exactly 1 MiB does not ask", ["-s", "--data-binary", "@one.bin", "{u}/s"],
     files={"one.bin": scripted_pattern(1024 * 1024)}, keep_expect=True)
case("-T over 1 MiB with -H Expect: sends no Expect", ["-s", "-T", "big.bin", "-H", "Expect:", "{u}/put/big"], files={"big.bin": BIG})
case("-H 'Expect: 100-continue' on a small body is sent and waited on", ["-s", "-H", "Expect: 100-continue", "-d", "x=1", "{u}/s"],
     keep_expect=True)
case("--expect100-timeout", ["-s", "--expect100-timeout", "0.5", "-T", "big.bin", "{u}/put/big"], files={"big.bin": BIG})
case("a small -T upload does not ask Expect: 100-continue", ["-s", "-T", "up.txt", "{u}/put/x"], files={"up.txt": b"data"},
     keep_expect=True,
     differs="Expect: 100-continue only for bodies over 1 MiB or of unknown length (curl 7.88 also asks it for every -T upload)",
     differs_in=("req",), check=lambda c, k: field(c, "Expect") == "100-continue" and field(k, "Expect") is None)

# ---------------------------------------------------------------------------------------------
# Issue 13 §2: --retry (curl's schedule: 1 s, then 2 s, ...; each case costs a second or two)

case("--retry: a 503 then 200, -o holds the final body", ["-s", "--retry", "2", "-o", "out.txt", "{u}/flaky?fail=1"])
case("--retry exhausted: the last 503 is the answer", ["-s", "--retry", "1", "-o", "out.txt", "{u}/flaky?fail=5"])
case("--retry with an Idempotency-Key POST retries it", ["-s", "--retry", "1", "-H", "Idempotency-Key: k-1", "-d", "x=1",
                                                         "-o", "out.txt", "{u}/flaky?fail=1"])
case("--retry-max-time below Retry-After: no retry", ["-s", "--retry", "3", "--retry-max-time", "5", "-o", "out.txt",
                                                      "{u}/flaky?fail=9&h=Retry-After:60"])
case("-f --retry-all-errors retries a 404", ["-s", "-f", "--retry", "1", "--retry-all-errors", "-o", "out.txt",
                                             "{u}/flaky?fail=1&status=404"])
case("--retry without --retry-all-errors does not retry a 404", ["-s", "--retry", "2", "-o", "out.txt", "{u}/flaky?fail=1&status=404"])
case("--retry-connrefused retries a refused connection", ["-s", "--retry", "1", "--retry-connrefused", "http://127.0.0.1:1/"],
     compare=("req", "out", "exit"))
case("--retry does not retry a POST without an Idempotency-Key", ["-s", "--retry", "1", "-d", "x=1", "-o", "out.txt", "{u}/flaky?fail=1"],
     differs="--retry sends a POST or PATCH again only when it carries an Idempotency-Key field (curl retries any method)",
     differs_in=("req", "files"), check=lambda c, k: len(k.requests) == 1 and len(c.requests) == 2
     and k.files["out.txt"][1] == b"fail 1\n")
case("--retry to standard output writes only the final body", ["-s", "--retry", "1", "{u}/flaky?fail=1"],
     differs="--retry writes only the final attempt's body to standard output (curl writes every attempt's; with -o both keep the last)",
     differs_in=("out",), check=lambda c, k: k.stdout == b"ok after 1\n" and c.stdout == b"fail 1\nok after 1\n")

# Proxies (issue 12 §1): the server plays the proxy too — both tools send it the absolute form.

case("-x: an http URL in absolute form through the proxy", ["-s", "-x", "{h}", "{u}/s?body=hi"])
case("-x with -U: Basic credentials for the proxy", ["-s", "-x", "{h}", "-U", "us:pw", "{u}/s?body=hi"])
case("-x with the proxy's credentials in its URL, percent-decoded", ["-s", "-x", "http://u%40x:p%3Aw@{h}", "{u}/s?body=hi"])
case("--proxy-header goes to the proxy", ["-s", "-x", "{h}", "--proxy-header", "X-Proxy: 1", "{u}/s?body=hi"])
case("--noproxy bypasses the proxy", ["-s", "-x", "127.0.0.1:1", "--noproxy", "localhost,127.0.0.0/8", "{u}/s?body=hi"])
case("-x \"\" is no proxy", ["-s", "-x", "", "{u}/s?body=hi"])
case("-x with an unsupported scheme", ["-s", "-x", "socks9://127.0.0.1:1", "{u}/"], compare=("exit",))
case("-x that does not resolve", ["-s", "-x", "proxy.invalid:3128", "{u}/"], compare=("exit",))

# ---------------------------------------------------------------------------------------------
# Issue 14 §4: the CLI habits curl users bring

# HTTP versions: --http1.1 is what courier speaks; HTTP/2 and HTTP/3 are refused before anything
# is sent.
case("--http1.1 is accepted", ["-s", "--http1.1", "{u}/s?body=x"])
case("--http3 is refused with 2, as by a curl built without HTTP/3", ["-s", "--http3", "{u}/s?body=x"])
case("--http2 is refused", ["-s", "--http2", "{u}/s?body=x"],
     differs="--http2 and --http2-prior-knowledge are refused with 1 (HTTP/2 is not supported); curl speaks HTTP/2",
     differs_in=("req", "out", "exit"), check=lambda c, k: k.status == 1 and not k.requests and c.status == 0
     and field(c, "Upgrade") == "h2c")
case("--http2-prior-knowledge is refused", ["-s", "--http2-prior-knowledge", "{u}/s?body=x"], compare=("out", "exit"),
     differs="--http2 and --http2-prior-knowledge are refused with 1 (HTTP/2 is not supported); curl speaks HTTP/2",
     differs_in=("exit",), check=lambda c, k: k.status == 1 and not k.requests)

# -K, --config: curl's config syntax.
CONFIG = (b'# a comment\n'
          b'   silent\n'
          b'header = "X-A: a\\tb\\"c" ignored after the quote\n'
          b'--header "X-B: 2"\n'
          b'-H "X-C: 3"\n'
          b'user-agent: "agent one"\n'
          b'write-out "%{http_code} %{method}\\n"\n'
          b'/ also a comment\n'
          b'* and this\n'
          b'data=a=1\n')
case("-K: options with and without dashes, = : and space, quotes and escapes", ["-K", "cfg", "{u}/echo"], files={"cfg": CONFIG})
case("-K - reads standard input", ["-K", "-", "{u}/echo"], stdin=CONFIG)
case("-K: -w=VALUE keeps the = (a dashed option has no = separator)", ["-s", "-K", "cfg", "{u}/s?body=x"],
     files={"cfg": b"-w=%{http_code}\n"})
case("-K: url lines and -o pair up", ["-s", "-K", "cfg", "-o", "one.txt", "{u}/s?body=two", "-o", "two.txt"],
     files={"cfg": b"url = \"http://localhost:1/never\"\nurl: \"http://localhost:1/nor\"\n"}, compare=("req", "files", "exit"))
case("-K: an unknown option is a warning, the rest is read", ["-K", "cfg", "{u}/s?body=x"],
     files={"cfg": b"bogus-option\n--no-such\nsilent\nheader \"X-A: 1\"\n"}, compare=ALL_AND_ERR)
case("-K: a parameter on a flag is a warning, the flag applies", ["-K", "cfg", "{u}/s?body=x"],
     files={"cfg": b"include yes\nsilent\n"}, compare=ALL_AND_ERR)
case("-K: unquoted whitespace is a warning", ["-K", "cfg", "{u}/s?body=x"],
     files={"cfg": b"header X-Y: a b\n"}, compare=("req", "out", "files", "exit"))
case("-K: a missing parameter is a warning", ["-K", "cfg", "{u}/s?body=x"],
     files={"cfg": b"header\nsilent\n"}, compare=ALL_AND_ERR)
case("-K: a file that cannot be read is 26", ["-s", "-K", "missing.cfg", "{u}/s?body=x"], compare=("req", "out", "files", "exit"))
case("-K inside a config file", ["-s", "-K", "a.cfg", "{u}/echo"], files={"a.cfg": b"-K b.cfg\nheader \"X-A: 1\"\n",
                                                                        "b.cfg": b"header \"X-B: 2\"\n-d x=1\n"})
case("-K: next in a config file starts a group", ["-s", "{u}/s?body=a", "-K", "cfg", "{u}/s?body=b"],
     files={"cfg": b"header \"X-A: 1\"\nnext\nheader \"X-B: 2\"\n"})
case("-K: later command-line options win", ["-K", "cfg", "-X", "DELETE", "{u}/echo"], files={"cfg": b"silent\nrequest POST\n"})
case("-K: a config file with CRLF lines", ["-K", "cfg", "{u}/echo"], files={"cfg": b"silent\r\nheader \"X-A: 1\"\r\ndata b=2\r\n"})

# -n, --netrc, --netrc-file, --netrc-optional: credentials from a .netrc file (HOME is the case's
# directory).
NETRC = b"machine 127.0.0.1 login ann password secret\n"
case("-n: login and password for the host", ["-s", "-n", "{u}/s"], files={".netrc": NETRC})
case("--netrc-file FILE", ["-s", "--netrc-file", "my.netrc", "{u}/s"], files={"my.netrc": NETRC})
case("--netrc-optional", ["-s", "--netrc-optional", "{u}/s"], files={".netrc": NETRC})
case("-n: default is every host's entry", ["-s", "-n", "{u}/s"], files={".netrc": b"machine example.com login x password y\ndefault login d password dp\n"})
case("-n: the first matching entry wins", ["-s", "-n", "{u}/s"],
     files={".netrc": b"machine 127.0.0.1\n  login first\n  password one\nmachine 127.0.0.1 login second password two\n"})
case("-n: quoted tokens with escapes", ["-s", "-n", "{u}/s"],
     files={".netrc": b'machine 127.0.0.1 login "a b" password "p\\"w\\tx\\\\y"\n'})
case("-n: a macdef is skipped to the empty line", ["-s", "-n", "{u}/s"],
     files={".netrc": b"macdef init\nmachine 127.0.0.1 login evil password x\n\nmachine 127.0.0.1 login ann password pw\n"})
case("-n: comments", ["-s", "-n", "{u}/s"], files={".netrc": b"# machine 127.0.0.1 login no password no\nmachine 127.0.0.1 # c\nlogin ann password pw # c\n"})
case("-n: no entry for the host sends nothing", ["-s", "-n", "{u}/s"], files={".netrc": b"machine example.com login x password y\n"})
case("-n: no .netrc file sends nothing", ["-s", "-n", "{u}/s"])
case("-n: an unterminated quote is curl's parser error", ["-s", "-n", "{u}/s"], files={".netrc": b'machine 127.0.0.1 login "ann\n'})
case("-n: machine names are compared without case", ["-s", "-n", "--resolve", "localhost:{p}:127.0.0.1", "http://localhost:{p}/s"],
     files={".netrc": b"machine LOCALHOST login ann password pw\n"})
case("-u wins over -n", ["-s", "-n", "-u", "me:mine", "{u}/s"], files={".netrc": NETRC})
case("-n: the URL's user name picks the login", ["-s", "-n", "http://bob@{h}/s"],
     files={".netrc": b"machine 127.0.0.1 login ann password a\nmachine 127.0.0.1 login bob password b\n"})
case("-n: the URL's user and password win", ["-s", "-n", "http://bob:url@{h}/s"], files={".netrc": NETRC})
case("--netrc-optional: the URL's user and password win", ["-s", "--netrc-optional", "http://bob:url@{h}/s"], files={".netrc": NETRC})
case("-n -L: no credentials to another host", ["-s", "-n", "-L", "--resolve", "localhost:{p}:127.0.0.1",
                                                "{u}/redirect/302?to=http://localhost:{p}/s"], files={".netrc": NETRC})
case("-n -L: another host gets its own entry", ["-s", "-n", "-L", "--resolve", "localhost:{p}:127.0.0.1",
                                                 "{u}/redirect/302?to=http://localhost:{p}/s"],
     files={".netrc": NETRC + b"machine localhost login lh password lhpw\n"})
case("-n -L: the same host keeps its entry", ["-s", "-n", "-L", "{u}/redirect/302?to=/s"], files={".netrc": NETRC})
case("-n in a -K file", ["-s", "-K", "cfg", "{u}/s"], files={".netrc": NETRC, "cfg": b"netrc\n"})
case("-n: a URL user without a password takes its entry's password", ["-s", "-n", "http://carl@{h}/s"],
     files={".netrc": b"machine 127.0.0.1 login ann password a\nmachine 127.0.0.1 login bob password b\n"})
case("-n: a login without a password sends an empty one", ["-s", "-n", "{u}/s"], files={".netrc": b"machine 127.0.0.1 login ann\n"})
case("-n: a password without a login", ["-s", "-n", "{u}/s"], files={".netrc": b"machine 127.0.0.1 password pw\n"})
case("-n: an empty entry leaves the URL's credentials", ["-s", "-n", "http://bob:url@{h}/s"], files={".netrc": b"machine 127.0.0.1\n"})
case("-n: a blank line does not end a macdef", ["-s", "-n", "{u}/s"],
     files={".netrc": b"macdef x\n  foo\n   \nmachine 127.0.0.1 login ann password pw\n"})
case("courier reads no ~/.curlrc", ["-s", "{u}/s?body=x"], files={".curlrc": b"header \"X-From-Curlrc: 1\"\n"},
     differs="courier reads no ~/.curlrc; curl reads it before the command line (unless -q)",
     differs_in=("req",), check=lambda c, k: field(c, "X-From-Curlrc") == "1" and field(k, "X-From-Curlrc") is None)
case("-q: no ~/.curlrc for either", ["-q", "-s", "{u}/s?body=x"], files={".curlrc": b"header \"X-From-Curlrc: 1\"\n"})
case("-n --digest answers the 401 with the file's credentials", ["-s", "-n", "--digest", "{u}/digest"],
     files={".netrc": b"machine 127.0.0.1 login u password p\n"})

# -i and -I with -o FILE: the heads go into the file before the body, as curl writes them.
case("-i -o FILE: the head, then the body, in the file", ["-s", "-i", "-o", "out.txt", "{u}/s?body=x&h=X-A:1"])
case("-I -o FILE: the head in the file", ["-s", "-I", "-o", "out.txt", "{u}/s?body=x"])
case("-i -L -o FILE: every head in the file", ["-s", "-i", "-L", "-o", "out.txt", "{u}/redirect/302?to=/s%3Fbody%3Dthere"])
case("-i -D - -o FILE: heads on stdout and in the file", ["-s", "-i", "-D", "-", "-o", "out.txt", "{u}/s?body=x"])
case("-i -D FILE -o FILE2", ["-s", "-i", "-D", "heads.txt", "-o", "out.txt", "{u}/redirect/301?to=/s"])
case("-i -f -o FILE on a 404 leaves no file", ["-s", "-i", "-f", "-o", "out.txt", "{u}/s?status=404"],
     differs="a failed download leaves no partial -o file (curl leaves what arrived)", differs_in=("files",),
     check=lambda c, k: k.files == {} and c.files["out.txt"][1].startswith(b"HTTP/1.1 404"))
case("-i -O: the heads in the -O file", ["-s", "-i", "-O", "{u}/dl/name.txt"])
case("-i -o FILE for two URLs", ["-s", "-i", "-o", "a.txt", "{u}/s?body=a", "-o", "b.txt", "{u}/s?body=b"])


# -w '%{json}': the same keys in the same order with the same value types; values equal except
# the times, the speeds, the local port and address (courier cannot report them: docs/cli.md)
# and curl_version.
def json_write_out_agrees(c, k, loose=()):
    import json
    a, b = json.loads(c.stdout.decode()), json.loads(k.stdout.decode())
    if list(a) != list(b):
        return f"keys differ: curl {list(a)} courier {list(b)}"
    volatile = {"local_ip", "local_port", "curl_version", "speed_download", "speed_upload"}
    for key in a:
        if type(a[key]) is not type(b[key]) and not (isinstance(a[key], (int, float)) and isinstance(b[key], (int, float))):
            return f"{key}: curl {a[key]!r} courier {b[key]!r}"
        if key.startswith("time_") or key in volatile or key in loose:
            continue
        if a[key] != b[key]:
            return f"{key}: curl {a[key]!r} courier {b[key]!r}"
    return True


case("-w %{json}: one transfer", ["-s", "-o", "out.txt", "-w", "%{json}", "{u}/s?body=x&h=Content-Type:text/x"],
     compare=("req", "files", "exit"), check=json_write_out_agrees)
case("-w %{json}: a redirect followed, to standard output", ["-s", "-L", "-e", "http://ref/", "-w", "\\n%{json}",
                                                              "{u}/redirect/302?to=/s%3Fbody%3Dthere"],
     compare=("req", "exit"), check=lambda c, k: json_write_out_agrees(
         type("R", (), {"stdout": c.stdout.split(b"\n", 1)[1]})(), type("R", (), {"stdout": k.stdout.split(b"\n", 1)[1]})()))
case("-w %{json}: an unfollowed redirect", ["-s", "-o", "/dev/null", "-w", "%{json}", "{u}/redirect/301?to=/x"],
     compare=("req", "exit"), check=json_write_out_agrees)
case("-w %{json}: a failed transfer", ["-s", "-w", "%{json}", "http://127.0.0.1:1/"], compare=("exit",),
     check=lambda c, k: json_write_out_agrees(c, k, loose=("errormsg",)))


# ---------------------------------------------------------------------------------------------
# Issue 14 §4: -Z/--parallel. Only what has one order is compared as output: files, bodies of
# transfers that end in a known order (a slow first one with --parallel-immediate; a second one
# to the same origin, which waits for the first one's response head without it, as curl's
# transfers wait to learn whether the connection multiplexes; --parallel-max 1).

case("-Z: two URLs to -o files", ["-s", "-Z", "-o", "a.txt", "{u}/s?body=a", "-o", "b.txt", "{u}/s?body=b"], unordered=True)
case("-Z --parallel-immediate: stdout in the order the transfers end",
     ["-s", "-Z", "--parallel-immediate", "{u}/slow?ms=400", "{u}/s?body=second%0A"], unordered=True)
case("-Z: a second transfer to the origin waits for the first one's head",
     ["-s", "-Z", "{u}/slow?ms=300", "{u}/s?body=second%0A"], unordered=True)
case("-Z: -w for each transfer as it ends", ["-s", "-Z", "-o", "/dev/null", "-o", "/dev/null", "-w", "%{http_code} %{url_effective}\\n",
                                             "{u}/slow?ms=200", "{u}/s?status=201"], unordered=True)
case("-Z --parallel-max 1: one at a time, in order",
     ["-s", "-Z", "--parallel-max", "1", "--parallel-immediate", "{u}/slow?ms=300", "{u}/s?body=second%0A"], unordered=True)
case("-Z --parallel-max 0 means the default", ["-s", "-Z", "--parallel-max", "0", "{u}/s"])
case("-Z --parallel-max 301 means the default", ["-s", "-Z", "--parallel-max", "301", "{u}/s"])
case("-Z --parallel-max x: 2", ["-s", "-Z", "--parallel-max", "x", "{u}/s"])
case("-Z: the exit code is the last failure's (7, then 28)",
     ["-s", "-Z", "--parallel-immediate", "-m", "0.4", "-o", "/dev/null", "-o", "/dev/null", "http://127.0.0.1:1/", "{u}/slow?ms=1500"],
     unordered=True)
case("-Z: a success after a failure keeps the failure's code",
     ["-s", "-Z", "--parallel-immediate", "-o", "/dev/null", "-o", "/dev/null", "http://127.0.0.1:1/", "{u}/slow?ms=300"],
     unordered=True)
case("-Z -f: a 404 among successes", ["-s", "-Z", "-f", "{u}/s?status=404", "-o", "a.txt", "{u}/s?body=a"], unordered=True)
case("-Z --fail-early: the others end with 42, the exit code is the first failure's",
     ["-s", "-Z", "--fail-early", "--parallel-immediate", "-f", "-o", "/dev/null", "-o", "/dev/null", "-w", "%{http_code}\\n",
      "{u}/slow?ms=500", "{u}/s?status=404"], unordered=True)
case("-Z: a URL that cannot be globbed ends the run with 3, nothing sent", ["-s", "-Z", "{u}/s?body=a", "{u}/s["])
case("-Z --remote-name-all with a glob", ["-s", "-Z", "--remote-name-all", "{u}/dl/[1-3].txt"], unordered=True)
case("-Z with -: groups", ["-s", "-Z", "-o", "a.txt", "{u}/s?body=a", "-:", "-H", "X-G: 2", "-o", "b.txt", "{u}/s?body=b"],
     unordered=True)
case("-Z -d: uploads in parallel", ["-s", "-Z", "-d", "x=1", "-o", "a.txt", "{u}/echo", "-o", "b.txt", "{u}/echo?two"], unordered=True)


# ---------------------------------------------------------------------------------------------
# Issue 14 §4: --trace (the file is compared as its records and their bytes: differential.py
# canonical_trace drops the Info records and joins the data records each tool cuts its own way)

case("--trace: a POST's head, its data and the reply's lines", ["-s", "--trace", "t.trace", "-d", "a=b", "{u}/s?body=hello"])
case("--trace: chunk-size lines in Recv data", ["-s", "--trace", "t.trace", "{u}/s?chunked=1&body=0123456789abcdefghij"])
case("--trace: a redirect followed on the same connection", ["-s", "-L", "--trace", "t.trace", "{u}/redirect/302?to=/s%3Fbody%3Dthere"])
case("--trace over https: the plaintext (curl's SSL data records set aside)", ["-s", "--cacert", "{ca}", "--trace", "t.trace", "{tu}/s?body=secret"])
