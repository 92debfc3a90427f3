#!/usr/bin/env bash
# APNs client throughput: 100,000 pushes through APNSClient (1 and 4 connections) against the
# fake-apns server, next to h2load against the same fake as the ceiling. Prints Markdown rows.
#
# Assumes `swift build -c release` was run (override the binaries with FAKE_APNS=... and
# PASS_SERVER_BENCH=...); `pass-server-bench apns` drives the client.
# Knobs: APNS_BENCH_COUNT (100000), APNS_BENCH_CONCURRENCY (1000 streams in flight).
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=${FAKE_APNS:-.build/release/fake-apns}
BENCH=${PASS_SERVER_BENCH:-.build/release/pass-server-bench}
COUNT=${APNS_BENCH_COUNT:-100000}
CONCURRENCY=${APNS_BENCH_CONCURRENCY:-1000}
TOKEN=$(printf 'ab%.0s' $(seq 32))
TOPIC=pass.com.example.bench

for binary in "$BIN" "$BENCH"; do
    [ -x "$binary" ] || { echo "missing $binary: run swift build -c release first" >&2; exit 1; }
done
command -v h2load >/dev/null || { echo "h2load not found (apt-get install nghttp2-client)" >&2; exit 1; }

WORK=$(mktemp -d)
FAKE_PID=
cleanup() { [ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

# Throwaway CA and a server certificate for 127.0.0.1.
(
    cd "$WORK"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key -out ca.pem \
        -days 1 -subj "/CN=bench CA" -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign >/dev/null 2>&1
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout server.key -out server.csr -subj "/CN=127.0.0.1" >/dev/null 2>&1
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' > server.ext
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 1 -extfile server.ext -out server.pem >/dev/null 2>&1
    printf '{}' > body.json
)

"$BIN" --cert "$WORK/server.pem" --key "$WORK/server.key" --no-client-auth --max-streams "$CONCURRENCY" --print-port \
    --log-level warning > "$WORK/port" &
FAKE_PID=$!
for _ in $(seq 100); do [ -s "$WORK/port" ] && break; sleep 0.1; done
PORT=$(head -n1 "$WORK/port")
URL="https://127.0.0.1:$PORT"

client() { # connections → "pushes/s peakMiB failures"
    local line
    line=$("$BENCH" apns --url "$URL" --ca-file "$WORK/ca.pem" --count "$COUNT" --connections "$1" --concurrency "$CONCURRENCY")
    local rate mem fail
    rate=$(sed -n 's/.*pushes_per_second=\([0-9]*\).*/\1/p' <<<"$line")
    mem=$(sed -n 's/.*peak_rss_mib=\([0-9?]*\).*/\1/p' <<<"$line")
    fail=$(sed -n 's/.*failures=\([0-9]*\).*/\1/p' <<<"$line")
    echo "$rate $mem $fail"
}

ceiling() { # connections → requests/s
    local streams=$(( CONCURRENCY / $1 ))
    h2load -n "$COUNT" -c "$1" -m "$streams" -d "$WORK/body.json" \
        -H "apns-topic: $TOPIC" -H 'apns-push-type: background' -H 'apns-priority: 5' \
        -H 'apns-expiration: 0' -H 'content-type: application/json' \
        "$URL/3/device/$TOKEN" 2>/dev/null | sed -n 's/^finished in .*, \([0-9.]*\) req\/s.*/\1/p' | cut -d. -f1
}

echo "| APNs push benchmark ($COUNT pushes, $CONCURRENCY streams in flight) | APNSClient pushes/s | client peak RSS (MiB) | failures | h2load req/s (same fake) | ratio |"
echo "|---|---|---|---|---|---|"
for connections in 1 4; do
    read -r rate mem fail < <(client "$connections")
    top=$(ceiling "$connections")
    ratio=$(awk -v a="$rate" -v b="$top" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }')
    echo "| $connections connection(s) | $rate | $mem | $fail | $top | $ratio |"
done
