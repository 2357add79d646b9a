#!/usr/bin/env python3
"""One shape for every public error code (issue 15 §4).

A public error's `Code` is a struct that conforms to `ClosedErrorCode` (CourierBytes), which is
RawRepresentable with a String raw value and gives the failable `init?(rawValue:)` answering only
the names in `all`, and `description`. The struct stores `public let rawValue: String`, lists every
constant in `public static let all`, and makes its constants through an initializer internal to its
module: no public non-failable `init(rawValue:)` (which would let any caller make a code no part of
Courier throws), and no `init?(rawValue:)` or plain `description { rawValue }` of its own beside
the protocol's (a description that says more than the name, such as AFNetworking's number, stays).

CourierPool depends on nothing, so it cannot see ClosedErrorCode: its Code spells the same shape
out by hand (RawRepresentable, its own `init?(rawValue:)` over `all`).

Files still in an older shape are listed in WAITING; the list only shrinks. A new error type in
the old shape, or a listed file that regained it after conversion, fails the check.
"""
import os
import re
import sys

WAITING = set()  # every public Code is in the one shape now (issue 15 §4); keep it empty.

PROTOCOL = os.path.join("Sources", "CourierBytes", "ClosedErrorCode.swift")
CODE = re.compile(r"^([ \t]*)public (struct|enum) Code\b([^{]*)\{", re.M)


def body_of(text, start):
    """The text of the declaration whose `{` is at or after start, up to its matching `}`; braces
    in `//` comments and in string literals do not count."""
    depth, i = 0, text.index("{", start)
    begin = i
    while i < len(text):
        if text.startswith("//", i):
            i = text.find("\n", i)
            if i < 0:
                break
            continue
        if text[i] == '"':
            i += 1
            while i < len(text) and text[i] not in '"\n':
                i += 2 if text[i] == "\\" else 1
        elif text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[begin:i + 1]
        i += 1
    return text[begin:]


def problems(text, standalone):
    """standalone: the file's module cannot import CourierBytes (CourierPool)."""
    found = []
    for match in CODE.finditer(text):
        kind, inheritance = match.group(2), match.group(3)
        body = body_of(text, match.start())
        if kind != "struct":
            found.append("Code is an enum, not a struct")
        if not re.search(r"public let rawValue: String\b", body):
            found.append("Code's raw value is not `public let rawValue: String`")
        if re.search(r"public init\(rawValue:", body):
            found.append("Code has a public init(rawValue:), which opens the set")
        if standalone:
            if "RawRepresentable" not in inheritance:
                found.append("Code does not conform to RawRepresentable")
            if not re.search(r"public init\?\(rawValue: String\)", body):
                found.append("Code has no public init?(rawValue:) answering its own names")
        else:
            if "ClosedErrorCode" not in inheritance:
                found.append("Code does not conform to ClosedErrorCode (CourierBytes)")
            if re.search(r"^[ \t]*(?:public[ \t]+)?init\?\(rawValue:", body, re.M):
                found.append("Code has its own init?(rawValue:); ClosedErrorCode gives the one that answers `all`")
            if re.search(r"public var description: String \{ rawValue \}", body):
                found.append("Code repeats `description`; ClosedErrorCode gives it")
        # Each constant's raw value is its own name, and `all` (what init?(rawValue:) answers)
        # holds every constant.
        constants = re.findall(r"public static let (\w+)\s*=\s*Code\(\s*\"(\w+)\"", body)
        every = re.search(r"static let all: \[Code\] = \[([^\]]*)\]", body)
        if not every:
            found.append("Code has no `static let all: [Code]` listing its constants")
        elif not standalone and not re.search(r"public static let all: \[Code\]", body):
            found.append("Code.all is not public")
        listed = set(re.findall(r"\.(\w+)", every.group(1))) if every else set()
        for name, raw in constants:
            if name != raw:
                found.append(f"Code.{name}'s raw value is \"{raw}\", not its name")
            if every and name not in listed:
                found.append(f"Code.{name} is missing from Code.all")
        if every and not constants:
            found.append("Code's constants are not made as `public static let name = Code(\"name\"...)`")
    return found


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    failed = 0
    # The protocol's own defaults are what closes the set.
    with open(PROTOCOL, encoding="utf-8") as handle:
        protocol = handle.read()
    if not re.search(r"public init\?\(rawValue: String\) \{\n\s*guard let code = Self\.all\.first\(where: \{ \$0\.rawValue == rawValue \}\)", protocol):
        print(f"check-error-codes: {PROTOCOL}: init?(rawValue:) no longer answers only the names in `all`", file=sys.stderr)
        failed = 1
    for root, _, files in os.walk("Sources"):
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(root, name)
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
            found = problems(text, standalone=path.startswith(os.path.join("Sources", "CourierPool", "")))
            if path in WAITING:
                if not found and CODE.search(text):
                    print(f"check-error-codes: {path} is in the one shape now: take it off WAITING", file=sys.stderr)
                    failed = 1
                continue
            for problem in found:
                print(f"check-error-codes: {path}: {problem}", file=sys.stderr)
                failed = 1
    return failed


if __name__ == "__main__":
    sys.exit(main())
