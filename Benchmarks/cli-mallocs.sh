#!/usr/bin/env bash
# Benchmarks/cli-mallocs.sh COURIER_BINARY [SMALL LARGE]
#
# `courier` beside `curl` with many URLs in one invocation (issue: memory that stays flat): for
# SMALL and LARGE URLs (default 1,000 and 10,000), each `-o /dev/null` of a 0.2-30 KB body from a
# keep-alive origin in its own process (Benchmarks/origin.py), it prints wall time, time per URL,
# peak RSS, and allocation calls per URL in steady state ((calls at LARGE - calls at SMALL) /
# (LARGE - SMALL)), counted by the LD_PRELOAD library tools/malloccount.c for both programs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
courier=${1:?usage: cli-mallocs.sh COURIER_BINARY [SMALL LARGE]}
small=${2:-1000}
large=${3:-10000}
work=$(mktemp -d /tmp/courier-cli-mallocs.XXXXXX)
trap 'exec 3>&-; [ -n "${origin_pid:-}" ] && kill "$origin_pid" 2>/dev/null; rm -rf "$work"' EXIT

cc -O2 -shared -fPIC -I"$here/../Sources/CCourierAllocationCounter/include" -o "$work/malloccount.so" "$here/tools/malloccount.c" -ldl
mkfifo "$work/origin-stdin"
python3 "$here/origin.py" "$work/port" < "$work/origin-stdin" &
origin_pid=$!
exec 3>"$work/origin-stdin"
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.05; done
port=$(cat "$work/port")

args() {  # N: the arguments for N URLs
  local sizes=(200 1500 4000 12000 30000) i
  for ((i = 0; i < $1; i++)); do printf -- '-o\n/dev/null\nhttp://127.0.0.1:%s/bytes/%s\n' "$port" "${sizes[$((i % 5))]}"; done
}
run() {  # NAME PROGRAM N -> "seconds peak_kb allocs"
  local name=$1 program=$2 n=$3
  args "$n" > "$work/args-$n"
  mapfile -t list < "$work/args-$n"
  # The preload goes to the measured program only (through env), not to /usr/bin/time.
  /usr/bin/time -f "%e %M" -o "$work/time" \
    env MALLOCCOUNT_OUT="$work/allocs" LD_PRELOAD="$work/malloccount.so" "$program" -s "${list[@]}" > /dev/null
  echo "$(cat "$work/time") $(cat "$work/allocs")"
}

printf '%-8s %7s %9s %12s %10s %14s\n' program URLs seconds "ms per URL" "peak RSS" "allocs per URL"
for program in courier curl; do
  binary=$courier; [ "$program" = curl ] && binary=$(command -v curl)
  read -r s1 m1 a1 <<< "$(run "$program" "$binary" "$small")"
  read -r s2 m2 a2 <<< "$(run "$program" "$binary" "$large")"
  per=$(( (a2 - a1) / (large - small) ))
  printf '%-8s %7s %9s %12.3f %8.1f MB %14s\n' "$program" "$small" "$s1" "$(echo "$s1 * 1000 / $small" | bc -l)" "$(echo "$m1 / 1024" | bc -l)" ""
  printf '%-8s %7s %9s %12.3f %8.1f MB %14s\n' "$program" "$large" "$s2" "$(echo "$s2 * 1000 / $large" | bc -l)" "$(echo "$m2 / 1024" | bc -l)" "$per"
done
