#!/usr/bin/env python3
"""Every module a target's sources import is one the target declares (issue 15 §1).

SwiftPM builds every module into one directory, so `import CourierJSON` compiles in a target that
never declared CourierJSON as long as something else in the graph depends on it; the build then
breaks the day that other dependency goes away. MemberImportVisibility (Package.swift) makes a
file name every module whose members it uses; this check makes the target declare it.

Reads the manifest as `swift package dump-package` prints it (stdin), scans each target's
directory for imports, and prints one line per import that is neither a declared dependency,
the target itself, nor a toolchain module. Exit 1 when any is found.

Checked: every target under Sources/ (what a product ships) and the test targets named on the
command line (CourierDoorTests, which must compile with Courier alone). The other test targets
still import lower modules they reach through Courier; they join the list as they are fixed.
"""
import json
import os
import re
import sys

# Modules of the toolchain and the C library: not targets of this package.
SYSTEM = {"Swift", "Testing", "XCTest", "Synchronization", "Glibc", "Musl", "Dispatch", "_Concurrency",
          "Darwin", "PackageDescription", "os", "Observation", "RegexBuilder", "_StringProcessing",
          "Distributed", "CompilerPluginSupport", "Cxx"}
IMPORT = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate)\s+)?"
                    r"import\s+(?:(?:class|struct|enum|protocol|typealias|func|var|let)\s+)?([A-Za-z_]\w*)",
                    re.M)


def main() -> int:
    manifest = json.load(sys.stdin)
    checked_tests = set(sys.argv[1:])
    names = {t["name"] for t in manifest["targets"]}
    failed = 0
    for target in manifest["targets"]:
        if target["type"] in ("system", "binary", "plugin"):
            continue
        if target["type"] == "test" and target["name"] not in checked_tests:
            continue
        declared = set()
        for dependency in target.get("dependencies", []):
            for kind in ("byName", "target", "product"):
                if kind in dependency:
                    declared.add(dependency[kind][0])
        default = "Tests" if target["type"] == "test" else "Sources"
        path = target.get("path") or os.path.join(default, target["name"])
        for root, _, files in os.walk(path):
            for name in sorted(files):
                if not name.endswith(".swift"):
                    continue
                file = os.path.join(root, name)
                with open(file, encoding="utf-8") as handle:
                    text = handle.read()
                for module in sorted(set(IMPORT.findall(text))):
                    if module in SYSTEM or module == target["name"] or module in declared:
                        continue
                    if module in names:
                        print(f"{file}: imports {module}, which target {target['name']} does not declare")
                        failed = 1
    return failed


if __name__ == "__main__":
    sys.exit(main())
