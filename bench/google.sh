#!/usr/bin/env bash
# Google Wallet with a bulk import: the release pass-server on PostgreSQL sends to the local fake of
# Google's Wallet API (`pass-server-bench google-fake`). 100,000 attendees are imported through
# POST /admin/v1/events/{id}/tickets:batch (10 requests of 10,000 rows) with Google on; measured at
# the fake: objects per second from the first object call to the last, against the goal of 2,000/s,
# and the server's resident memory at the start, halfway and at the end. Then one event edit
# (PATCH /admin/v1/events/{id}): the time from the PATCH's answer to the fake's class PATCH,
# against the goal of 1 s, and the Google calls it caused (one class PATCH, no object call).
#
# Assumes `swift build -c release` and PASS_SERVER_TEST_DATABASE_URL (scripts/with-postgres.sh).
# Knobs: GOOGLE_BENCH_TICKETS (100000), GOOGLE_BENCH_ROWS (10000 per request),
# GOOGLE_BENCH_SERVER_ENV (extra environment for the server).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/live-server.sh

SERVER=${PASS_SERVER:-.build/release/pass-server}
BENCH=${PASS_SERVER_BENCH:-.build/release/pass-server-bench}
TICKETS=${GOOGLE_BENCH_TICKETS:-100000}
ROWS=${GOOGLE_BENCH_ROWS:-10000}
[ -x "$BENCH" ] || { echo "missing $BENCH: run swift build -c release first" >&2; exit 1; }
scratch_bench bench_google
trap 'echo "bench/google.sh: line $LINENO failed (exit $?)" >&2' ERR

python3 - "$WORK" "$TICKETS" "$ROWS" <<'PY'
import sys
work, total, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for part, start in enumerate(range(0, total, per)):
    with open(f"{work}/part-{part:03d}.csv", "w", encoding="utf-8", newline="") as f:
        f.write("externalId,attendeeName,attendeeEmail,seat\r\n")
        for i in range(start, min(start + per, total)):
            f.write(f"EXT-{i},Guest {i},user{i}@example.com,R{i // 100}-{i % 100}\r\n")
PY

mkdir -p "$WORK/google"
"$BENCH" google-fake --dir "$WORK/google" > "$WORK/google-fake.log" 2>&1 &
FAKE_PID=$!
for _ in $(seq 100); do [ -s "$WORK/google/tally" ] && break; sleep 0.1; done
[ -s "$WORK/google/tally" ] || { echo "the Google fake did not start: $(cat "$WORK/google-fake.log")" >&2; exit 1; }
mapfile -t google_env < "$WORK/google/google.env"

# tally FIELD: 1 object calls, 2 first object call, 3 last object call, 4 class patches, 5 last class patch, 6 batches.
tally() { awk -v f="$1" '{ print $f }' "$WORK/google/tally"; }
rss() { awk '/VmRSS/ { printf "%.0f", $2 / 1024 }' "/proc/$SERVER_PID/status"; }
api() { curl -sf -H "Authorization: Bearer $TOKEN" "$@"; }
json() { python3 -c "import json, sys; print(json.load(sys.stdin)$1)"; }

TOKEN=$(DATABASE_URL="$DATABASE_URL" "$SERVER" token create --name bench-google 2>"$WORK/token.log") \
    || { echo "token create failed: $(cat "$WORK/token.log")" >&2; exit 1; }
HTTP_PORT=$(free_port)
# shellcheck disable=SC2086 # GOOGLE_BENCH_SERVER_ENV is a list of NAME=VALUE words
start_live_server "$SERVER" "$DATABASE_URL" "$HTTP_PORT" log "$WORK/certs" "$WORK/server.log" \
    PASSES_DIR="$PWD/Passes" "${google_env[@]}" ${GOOGLE_BENCH_SERVER_ENV:-}
base="http://127.0.0.1:$HTTP_PORT/admin/v1"
EVENT=$(api -X POST -H 'Content-Type: application/json' \
    -d '{"name":"Google Night","venue":"Hall A","startsAt":"2027-03-01T19:00:00+09:00","timeZone":"Asia/Tokyo"}' \
    "$base/events" | json '["id"]')
# Every 0.2 s: objects at the fake and the server's RSS, from before the import to the last object.
( while kill -0 "$SERVER_PID" 2>/dev/null; do echo "$(tally 1) $(rss)"; sleep 0.2; done ) > "$WORK/samples" 2>/dev/null &
SAMPLER_PID=$!
postmaster=$(head -n1 "${PASS_SERVER_TEST_PG_DATA:-/nonexistent}/postmaster.pid" 2>/dev/null || true)
cpu_snapshot "$SERVER_PID" "$FAKE_PID" "$postmaster" > "$WORK/cpu-before"
start=$(date +%s.%N)
for file in "$WORK"/part-*.csv; do
    code=$(api -o "$WORK/answer.json" -w '%{http_code}' -X POST -H 'Content-Type: text/csv' --data-binary @"$file" \
        "$base/events/$EVENT/tickets:batch")
    [ "$code" = 200 ] || { echo "import request failed with $code: $(head -c 300 "$WORK/answer.json")" >&2; exit 1; }
done
imported=$(date +%s.%N)
deadline=$(( $(date +%s) + 300 ))
while [ "$(tally 1)" -lt "$TICKETS" ]; do
    [ "$(date +%s)" -lt "$deadline" ] || { echo "only $(tally 1) of $TICKETS objects reached the fake in 300 s" >&2; exit 1; }
    sleep 0.1
done
cpu_snapshot "$SERVER_PID" "$FAKE_PID" "$postmaster" > "$WORK/cpu-after"
sleep 0.3
kill "$SAMPLER_PID" 2>/dev/null; wait "$SAMPLER_PID" 2>/dev/null || true
# RSS before the first object, when half the objects were in, after the last, and the peak (VmHWM).
memory=$(awk -v n="$TICKETS" 'NR == 1 { first = $2 } !half && $1 >= n / 2 { half = $2 } { last = $2 }
    END { printf "%s / %s / %s", first, half ? half : "?", last }' "$WORK/samples")
hwm=$(awk '/VmHWM/ { printf "%.0f", $2 / 1024 }' "/proc/$SERVER_PID/status")
objects=$(tally 1); first=$(tally 2); last=$(tally 3); batches=$(tally 6)

echo "| Google Wallet, bulk import on PostgreSQL | tickets | import (s) | objects at the fake | batch requests | first → last object (s) | objects/s | ratio to 2,000/s | RSS start / middle / end / peak (MiB) |"
echo "|---|---|---|---|---|---|---|---|---|"
awk -v n="$TICKETS" -v q="$(ls "$WORK"/part-*.csv | wc -l)" -v s="$start" -v i="$imported" -v o="$objects" -v b="$batches" -v f="$first" -v l="$last" \
    -v r="$memory / $hwm" 'BEGIN {
    t = l - f; printf "| CSV, %d requests, Google on | %d | %.1f | %d | %d | %.1f | %.0f | %.2f | %s |\n", q, n, i - s, o, b, t, o / t, o / t / 2000, r
}'
echo
cpu_report "$WORK/cpu-before" "$WORK/cpu-after" "CPU from the import's start to the last object (server, fake, PostgreSQL; by thread)"
echo

# The event edit: one class PATCH, no object call. The re-push job bumps every pass for the phones
# meanwhile; the fake is watched for 5 s after the class PATCH for any object call.
sleep 1
objects0=$(tally 1); patches0=$(tally 4)
sent=$(date +%s.%N)
api -o /dev/null -X PATCH -H 'Content-Type: application/json' -d '{"venue":"Osaka Dome"}' "$base/events/$EVENT"
answered=$(date +%s.%N)
deadline=$(( $(date +%s) + 30 ))
while [ "$(tally 4)" -le "$patches0" ]; do
    [ "$(date +%s)" -lt "$deadline" ] || { echo "no class PATCH reached the fake in 30 s" >&2; exit 1; }
    sleep 0.005
done
patched=$(tally 5)
sleep 5
# answered → class PATCH is negative when the class PATCH reached the fake before the edit's answer
# reached curl; the ratio is taken on sent → class PATCH, which includes the edit's own request.
echo "| Google Wallet, edit of an event of $TICKETS tickets | PATCH sent → answered (s) | answered → class PATCH at the fake (s) | sent → class PATCH (s) | ratio to the 1 s goal | class PATCHes | object calls |"
echo "|---|---|---|---|---|---|---|"
awk -v s="$sent" -v a="$answered" -v p="$patched" -v c="$(( $(tally 4) - patches0 ))" -v o="$(( $(tally 1) - objects0 ))" 'BEGIN {
    printf "| venue changed | %.3f | %.3f | %.3f | %.2f | %d | %d |\n", a - s, p - a, p - s, (p - s) / 1, c, o
}'
echo
