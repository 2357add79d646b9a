#!/usr/bin/env python3
"""Summarise `swift package benchmark` text output into bytes/s and Courier/peer ratios.

Benchmark names follow "AREA: WORKLOAD [IMPL] bytes=N" (N bytes processed per iteration); the
median wall-clock time gives bytes/s, and every IMPL other than "courier" in the same AREA: WORKLOAD
is a peer whose ratio to Courier is printed. Malloc counts (median, per iteration) are printed too.
"""
import re
import sys

UNIT_NS = {"ns": 1, "μs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}
SCALE = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}


def parse(path):
    results = {}
    name = None
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line.startswith(("│", "╒", "╞", "├", "╘")) and "bytes=" in line:
            name = line.strip()
            continue
        if name is None or not line.startswith("│"):
            continue
        cells = [c.strip() for c in line.strip("│").split("│")]
        if len(cells) < 4:
            continue
        metric = cells[0]
        m = re.match(r"(Time \(wall clock\)|Malloc \(total\)|Malloc \(bytes total\)) ?(\(([KMG]?)\))? ?(\((\w+|μs)\))?", metric)
        if not m:
            continue
        try:
            p50 = float(cells[3].replace(",", ""))
        except ValueError:
            continue
        if metric.startswith("Time"):
            unit = re.search(r"\((ns|μs|us|ms|s)\)", metric)
            scale = re.search(r"\(([KMG])\)", metric)
            ns = p50 * (UNIT_NS[unit.group(1)] if unit else 1) * (SCALE[scale.group(1)] if scale else 1)
            results.setdefault(name, {})["ns"] = ns
        elif metric.startswith("Malloc (bytes total)"):
            scale = re.search(r"\(([KMG])\)", metric)
            results.setdefault(name, {})["bytes"] = p50 * (SCALE[scale.group(1)] if scale else 1)
        else:
            scale = re.search(r"\(([KMG])\)", metric)
            results.setdefault(name, {})["mallocs"] = p50 * (SCALE[scale.group(1)] if scale else 1)
    return results


def human(bps):
    for unit, div in (("GB/s", 1e9), ("MB/s", 1e6), ("KB/s", 1e3)):
        if bps >= div:
            return f"{bps / div:.2f} {unit}"
    return f"{bps:.0f} B/s"


def main():
    results = parse(sys.argv[1])
    groups = {}
    for name, r in results.items():
        m = re.match(r"(.*?) \[(\w[\w-]*)\] bytes=(\d+)", name)
        if not m or "ns" not in r:
            continue
        workload, impl, nbytes = m.group(1), m.group(2), int(m.group(3))
        bps = nbytes / (r["ns"] / 1e9)
        allocated = r.get("bytes")
        groups.setdefault(workload, {})[impl] = (bps, r.get("mallocs"), None if allocated is None else allocated / nbytes)
    print()
    print(f"{'workload':58} {'impl':11} {'throughput':>12} {'mallocs':>9} {'alloc/input':>11} {'courier/peer':>12}")
    for workload in sorted(groups):
        impls = groups[workload]
        courier = impls.get("courier")
        for impl in sorted(impls, key=lambda i: (i != "courier", i)):
            bps, mallocs, allocated = impls[impl]
            ratio = f"{courier[0] / bps:.1f}x" if courier and impl != "courier" else ""
            mallocs = "" if mallocs is None else f"{mallocs:.0f}"
            allocated = "" if allocated is None else f"{allocated:.2f}x"
            print(f"{workload:58} {impl:11} {human(bps):>12} {mallocs:>9} {allocated:>11} {ratio:>12}")
    return check_budgets(groups)


def check_budgets(groups):
    """Allocation budgets (budgets.txt: `MAX_MALLOCS_PER_ITERATION  WORKLOAD PREFIX`), as
    swift-nio's allocation-counter tests: a workload over its budget fails the run."""
    import os
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "budgets.txt")
    failed = 0
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        limit, prefix = line.split(None, 1)
        matches = [(w, impls["courier"][1]) for w, impls in groups.items()
                   if w.startswith(prefix) and "courier" in impls and impls["courier"][1] is not None]
        if not matches:
            print(f"budget: no result for '{prefix}'", file=sys.stderr)
            failed += 1
            continue
        for workload, mallocs in matches:
            verdict = "ok" if mallocs <= float(limit) else "OVER BUDGET"
            print(f"budget: {workload}: {mallocs:.0f} mallocs per iteration (budget {limit}) {verdict}")
            if mallocs > float(limit):
                failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
