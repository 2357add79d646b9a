#!/usr/bin/env python3
"""Parses each DIR/*.body with werkzeug and with the email package and compares every part with
DIR/*.expected (tab-separated hex: name, filename or -, content type or -, body).

Names and file names go on the wire escaped as browsers escape them (HTML's form-data encoding:
`"` → %22, CR → %0D, LF → %0A, nothing else). Each parser is held to its own documented reading of
that: werkzeug turns %22 back into `"` (and leaves %0D %0A); the email package reads RFC 2045
quoted-strings, where a backslash quotes the next character."""
import email.parser
import re
import email.policy
import io
import pathlib
import sys

from werkzeug.formparser import parse_form_data


def expected_parts(path):
    parts = []
    for line in path.read_text(encoding="utf-8").splitlines():
        name, filename, ctype, body = line.split("\t")
        text = lambda h: bytes.fromhex(h).decode("utf-8")
        parts.append((text(name), None if filename == "-" else text(filename), None if ctype == "-" else ctype, bytes.fromhex(body)))
    return parts


def browser_escape(s):
    return s.replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")


def werkzeug_view(s):
    return None if s is None else browser_escape(s).replace("%22", '"')


def email_view(s):
    return None if s is None else re.sub(r"\\(.)", r"\1", browser_escape(s))


def with_werkzeug(body, content_type):
    environ = {
        "REQUEST_METHOD": "POST",
        "CONTENT_TYPE": content_type,
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.input": io.BytesIO(body),
    }
    _, form, files = parse_form_data(environ)
    parts = {}
    for name, value in form.items(multi=True):
        parts.setdefault(name, []).append((None, None, value.encode("utf-8")))
    for name, storage in files.items(multi=True):
        parts.setdefault(name, []).append((storage.filename, storage.content_type, storage.read()))
    return parts


def with_email(body, content_type):
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + body)
    assert message.is_multipart(), "email: not multipart"
    parts = []
    for part in message.iter_parts():
        disposition = part.get("Content-Disposition")
        params = dict(part.get_params(header="content-disposition")[1:])
        ctype = part.get("Content-Type")
        parts.append((params.get("name"), params.get("filename"), str(ctype) if ctype else None,
                      part.get_payload(decode=True) or b""))
        assert disposition is not None
    return parts


def main(directory):
    failures = 0
    count = 0
    for body_path in sorted(pathlib.Path(directory).glob("*.body")):
        label = body_path.stem
        body = body_path.read_bytes()
        content_type = (body_path.parent / f"{label}.content-type").read_text()
        expected = expected_parts(body_path.parent / f"{label}.expected")
        werkzeug_parts = with_werkzeug(body, content_type)
        email_parts = with_email(body, content_type)
        if len(email_parts) != len(expected):
            print(f"{label}: email found {len(email_parts)} parts, expected {len(expected)}")
            failures += 1
        for index, (name, filename, ctype, data) in enumerate(expected):
            count += 1
            got = werkzeug_parts.get(werkzeug_view(name), [])
            match = [p for p in got if p[0] == werkzeug_view(filename) and p[2] == data and (filename is None or p[1] == ctype)]
            if not match:
                print(f"{label}: werkzeug disagrees on part {name!r}: got {got!r}")
                failures += 1
            if index < len(email_parts):
                e_name, e_filename, e_ctype, e_data = email_parts[index]
                if e_name != email_view(name) or e_filename != email_view(filename) or e_data != data or (ctype and e_ctype != ctype):
                    print(f"{label}: email disagrees on part {index}: {email_parts[index]!r} vs {(name, filename, ctype, data)!r}")
                    failures += 1
    print(f"multipart-crosscheck: {count - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
