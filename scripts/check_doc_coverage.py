#!/usr/bin/env python3
"""Every public declaration of the named modules has `///` documentation of its own.

Usage: check_doc_coverage.py GRAPH_DIR MODULE...

Reads the symbol graphs swift-symbolgraph-extract wrote to GRAPH_DIR (MODULE.symbols.json and
MODULE@OTHER.symbols.json, the module's extensions of other modules' types), public symbols only,
synthesized members left out (and the members the compiler declares with no source
location, such as a raw-value enum's init(rawValue:)). A symbol is documented when its doc comment has text and is its
own: a comment carried over from a protocol requirement of another module (the symbol graph marks
it with that module's name) does not count, since it describes the requirement, not what this
type does. docc reports coverage but never fails on it, hence this check (issue 14 §3).

Prints each undocumented symbol as `file:line: kind name` and exits 1 if there is any.
"""
import glob
import json
import os
import sys


def own_comment(symbol, module):
    comment = symbol.get("docComment")
    if not comment:
        return False
    if comment.get("module") not in (None, module):
        return False
    return any(line.get("text", "").strip() for line in comment.get("lines", []))


def main():
    directory, modules = sys.argv[1], sys.argv[2:]
    missing = []
    checked = 0
    for module in modules:
        paths = [os.path.join(directory, f"{module}.symbols.json")]
        paths += sorted(glob.glob(os.path.join(directory, f"{module}@*.symbols.json")))
        for path in paths:
            with open(path, encoding="utf-8") as handle:
                graph = json.load(handle)
            for symbol in graph.get("symbols", []):
                if symbol.get("accessLevel") not in ("public", "open"):
                    continue
                location = symbol.get("location")
                if location is None:
                    # Declared by the compiler, not in a source file: a raw-value enum's
                    # init(rawValue:), a synthesized Codable init(from:). No `///` can be written.
                    continue
                checked += 1
                if own_comment(symbol, module):
                    continue
                uri = location.get("uri", "")
                file = os.path.relpath(uri[len("file://"):]) if uri.startswith("file://") else module
                line = location.get("position", {}).get("line", -1) + 1
                kind = symbol.get("kind", {}).get("displayName", "symbol")
                name = ".".join(symbol.get("pathComponents", [])) or symbol.get("names", {}).get("title", "?")
                missing.append(f"{file}:{line}: {kind} {name}")
    for entry in sorted(set(missing)):
        print(f"check_doc_coverage: undocumented public declaration: {entry}", file=sys.stderr)
    if missing:
        print(f"check_doc_coverage: {len(set(missing))} of {checked} public declarations have no `///` of their own",
              file=sys.stderr)
        return 1
    print(f"check_doc_coverage: ok ({checked} public declarations in {len(modules)} modules, each documented)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
