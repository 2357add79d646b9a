#!/usr/bin/env bash
# Benchmarks/json-response-rss.sh [COURIER_BINARY]
#
# Peak RSS of `courier --json-response` (and --sanitize-nulls) on an 8 MB JSON array of small
# integers (0–999, deterministic), served by Python's http.server on 127.0.0.1, against the same
# command on a 2-byte document (the process's baseline). Prints the body size, both peaks and the
# ratio of the increase to the body: the target is < 3×. The server is started here and stopped
# by its PID; output goes to a scratch directory, removed at the end.
set -euo pipefail
courier=${1:-.build/release/courier}
[ -x "$courier" ] || { echo "json-response-rss: build first: swift build -c release --product courier" >&2; exit 2; }
scratch=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$scratch"' EXIT
python3 - "$scratch" <<'PY'
import sys
state = 0x5EED0F1A7E6E25
def nxt():
    global state
    state ^= (state << 13) & 0xFFFFFFFFFFFFFFFF
    state ^= state >> 7
    state ^= (state << 17) & 0xFFFFFFFFFFFFFFFF
    return state
parts, size = [], 1
while size < 8 << 20:
    text = str(nxt() % 1000)
    parts.append(text)
    size += len(text) + 1
open(sys.argv[1] + "/ints.json", "w").write("[" + ",".join(parts) + "]")
open(sys.argv[1] + "/tiny.json", "w").write("[]")
PY
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
(cd "$scratch" && exec python3 -m http.server "$port" --bind 127.0.0.1 >/dev/null 2>&1) &
server=$!
for _ in $(seq 50); do python3 -c "import socket; socket.create_connection(('127.0.0.1', $port))" 2>/dev/null && break; sleep 0.1; done
body=$(stat -c %s "$scratch/ints.json")
for flag in --json-response --sanitize-nulls; do
  base=$(/usr/bin/time -f %M "$courier" "$flag" "http://127.0.0.1:$port/tiny.json" 2>&1 >"$scratch/out.tiny" | tail -1)
  big=$(/usr/bin/time -f %M "$courier" "$flag" "http://127.0.0.1:$port/ints.json" 2>&1 >"$scratch/out.big" | tail -1)
  cmp -s <(tr -d '\n' <"$scratch/out.big") "$scratch/ints.json" || { echo "json-response-rss: $flag output differs from the body" >&2; exit 1; }
  python3 -c "b=$body; base=$base*1024; big=$big*1024; print(f'$flag: body {b/1048576:.1f} MiB, peak RSS {big/1048576:.1f} MiB (baseline {base/1048576:.1f} MiB), increase {(big-base)/b:.2f}x the body')"
done
