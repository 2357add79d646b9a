#!/usr/bin/env bash
# Benchmarks/run.sh [--short] [extra `swift package benchmark` options]
#
# Builds and runs every benchmark executable (ordo-one/benchmark, release), then prints a summary
# with bytes/s and the ratio of Courier to its peer measured in the same run (Benchmarks/summarize.py).
# --short: a quick pass (CI): fewer samples; the ratios are noisier but the code paths all run.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p .work
if [ "${1:-}" = "--short" ]; then
  export COURIER_BENCH_SHORT=1
  shift
fi
swift package --disable-sandbox benchmark --no-progress --time-units nanoseconds "$@" 2>&1 | tee .work/last-run.txt \
  | grep -vE "^(│|╒|╞|├|╘)" | grep -vE "^\s*$" || true
# A benchmark that traps (a check inside it failed) must fail the run.
if grep -qE "error:|Fatal error|benchmark failed|Precondition failed" .work/last-run.txt; then
  echo "Benchmarks/run.sh: a benchmark failed" >&2
  exit 1
fi
python3 summarize.py .work/last-run.txt | tee .work/summary.txt
