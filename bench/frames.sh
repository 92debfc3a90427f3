#!/usr/bin/env bash
# The scanner page's server-side camera path: 640×480 JPEG frames of a ticket's QR code (turned,
# blurred, noisy, and scenes without a code) decoded to greyscale by libvips and read by libzbar, on
# one core (taskset), as POST /admin/scan/decode does without the HTTP around it. Also how long a
# typed check code's lookup spends deriving the codes of an event of 10,000 tickets.
#
# Expects the release build and its `pass-server-bench frames --count N` command. BENCH_ROUNDS
# rounds (5); the table quotes each column's median over the rounds. Wall-clock times include
# whatever else the machine runs on that core; the CPU columns (the thread's own CPU time) are what
# one core does undisturbed. Goals: p99 < 50 ms per frame, ≥ 50 frames/s on one core.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=${PASS_SERVER_BENCH_BIN:-.build/release/pass-server-bench}
ROUNDS=${BENCH_ROUNDS:-5}
COUNT=${BENCH_FRAMES:-400}

if [[ ! -x "$BIN" ]]; then
    echo "missing $BIN: run 'swift build -c release' first" >&2
    exit 1
fi
pin=()
if command -v taskset >/dev/null; then pin=(taskset -c 0); fi

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
field() { grep -Eo "$1=[0-9./]+" | head -n 1 | cut -d= -f2; }

lines=()
for _ in $(seq 1 "$ROUNDS"); do
    lines+=("$("${pin[@]}" "$BIN" frames --count "$COUNT")")
done
column() { for line in "${lines[@]}"; do echo "$line" | field "$1"; done | median; }
read=$(echo "${lines[0]}" | field read)
echo "| frames a round | p50 ms | p99 ms (goal < 50) | frames/s, one core (goal ≥ 50) | CPU p50 ms | CPU p99 ms | frames per CPU second | libvips p50 ms | libzbar p50 ms | codes read | JPEG bytes | check codes derived/s | lookup in 10,000 tickets, ms |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
echo "| $COUNT | $(column p50_ms) | **$(column p99_ms)** | **$(column frames_per_second)** | $(column cpu_p50_ms) | **$(column cpu_p99_ms)** | **$(column frames_per_cpu_second)** | $(column decode_p50_ms) | $(column scan_p50_ms) | $read | $(echo "${lines[0]}" | field jpeg_bytes) | $(column check_codes_per_second) | $(column lookup_ms) |"
