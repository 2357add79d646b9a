#!/usr/bin/env bash
# Fuzz/run.sh TARGET SECONDS — build TARGET with libFuzzer + AddressSanitizer and run it for SECONDS.
# Fuzz/run.sh --list         — the target names.
#
# The committed seed corpus (Corpus/TARGET) and regressions (Regressions/TARGET) are read, never
# written: new inputs go to .work/TARGET (gitignored). A crash leaves its input in .work/ and fails
# the run; turn it into a named test plus a file in Regressions/TARGET (docs/fuzzing.md).
set -euo pipefail
cd "$(dirname "$0")"

if [ "${1:-}" = "--list" ]; then
  for d in Sources/fuzz-*; do basename "$d"; done
  exit 0
fi
target=${1:?usage: Fuzz/run.sh TARGET SECONDS | --list}
seconds=${2:-30}
[ -d "Sources/$target" ] || { echo "run.sh: no target $target (see --list)" >&2; exit 2; }

scratch=.build-fuzz
# The form that works with Swift 6.3 on Linux (design §10). FUZZING removes the replay main that
# non-fuzzer builds of the harness use.
mkdir -p .work
if ! swift build -c debug --scratch-path "$scratch" --sanitize=fuzzer \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING --product "$target" >".work/build-$target.log" 2>&1; then
  grep -vE "ld.gold: warning" ".work/build-$target.log" | tail -40 >&2
  echo "run.sh: build of $target failed" >&2
  exit 1
fi
binary="$scratch/debug/$target"

mkdir -p ".work/$target" "Corpus/$target" "Regressions/$target"
dict=()
[ -f "Dictionaries/$target.dict" ] && dict=(-dict="Dictionaries/$target.dict")
echo "fuzz: $target for ${seconds}s"
log=".work/$target.log"
set +e
SWIFT_BACKTRACE=enable=no "$binary" ".work/$target" "Corpus/$target" "Regressions/$target" "${dict[@]}" \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=65536 \
  -artifact_prefix=".work/$target-" -print_final_stats=1 >"$log" 2>&1
status=$?
set -e
grep -E "^(#[0-9]+ +DONE|Done [0-9]+ runs|stat::peak_rss_mb)" "$log" || true
if [ "$status" -ne 0 ] || ls ".work/$target"-crash-* ".work/$target"-leak-* ".work/$target"-timeout-* >/dev/null 2>&1; then
  echo "fuzz: $target FAILED (status $status); log tail and artifacts:" >&2
  tail -40 "$log" >&2
  ls -1 ".work/$target"-* >&2 2>/dev/null || true
  exit 1
fi
