#!/usr/bin/env bash
# Webhook deliveries: 100,000 deliveries drain from the release pass-server's outbox to a local
# receiver (`pass-server-bench webhook-receiver`: 200 at once, counting, every 100th signature
# checked), on PostgreSQL and then on SQLite. Each round seeds a fresh database through the store
# (`pass-server-bench webhook-seed`): 20,000 tickets imported with no endpoint, then an endpoint
# for `ticket.issued` and 100,000 tickets imported in chunks of 10,000, each chunk one transaction
# that records its webhook events and deliveries; the median chunk's time with and without the
# endpoint is the enqueue's cost. Then `pass-server serve` starts on that database and sends: measured
# at the receiver, deliveries per second from the first to the last, against the goal of 5,000/s,
# with the server's resident memory sampled every 0.2 s (start, halfway, end, peak) and the CPU
# each process used, by thread.
#
# Assumes `swift build -c release` and PASS_SERVER_TEST_DATABASE_URL (scripts/with-postgres.sh).
# Knobs: WEBHOOK_BENCH_TICKETS (100000), WEBHOOK_BENCH_BACKENDS ("postgres sqlite"),
# WEBHOOK_BENCH_RECEIVER_THREADS (4), WEBHOOK_BENCH_SERVER_ENV (extra environment for the server).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/live-server.sh

SERVER=${PASS_SERVER:-.build/release/pass-server}
BENCH=${PASS_SERVER_BENCH:-.build/release/pass-server-bench}
TICKETS=${WEBHOOK_BENCH_TICKETS:-100000}
BACKENDS=${WEBHOOK_BENCH_BACKENDS:-"postgres sqlite"}
RECEIVER_THREADS=${WEBHOOK_BENCH_RECEIVER_THREADS:-4}
[ -x "$BENCH" ] || { echo "missing $BENCH: run swift build -c release first" >&2; exit 1; }
scratch_bench bench_webhooks
trap 'echo "bench/webhooks.sh: line $LINENO failed (exit $?)" >&2' ERR
POSTGRES_URL=$DATABASE_URL
SECRET_HEX=$(openssl rand -hex 32)

field() { tr ' ' '\n' <<<"$1" | awk -F= -v k="$2" '$1 == k { print $2 }'; }
# tally FIELD: 1 deliveries, 2 distinct ids, 3 first arrival, 4 last arrival, 5 signatures checked, 6 bad signatures.
tally() { awk -v f="$1" '{ print $f }' "$DIR/tally"; }
rss() { awk '/VmRSS/ { printf "%.0f", $2 / 1024 }' "/proc/$SERVER_PID/status"; }

echo "Load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| webhooks, 100,000 deliveries to a local receiver | import of 10,000 tickets: no endpoint / one endpoint (s) | deliveries | distinct ids | first → last delivery (s) | deliveries/s | ratio to 5,000/s | signatures checked (bad) | RSS start / halfway / end / peak (MiB) |"
echo "|---|---|---|---|---|---|---|---|---|"
reports=()
for backend in $BACKENDS; do
    DIR="$WORK/$backend"
    mkdir -p "$DIR"
    if [ "$backend" = postgres ]; then url=$POSTGRES_URL; else url="sqlite://$DIR/webhooks.sqlite"; fi
    port=$(free_port)
    seed=$(DATABASE_URL="$url" TOKEN_SECRET="$SECRET_HEX" "$BENCH" webhook-seed --url "http://127.0.0.1:$port/hooks/bench" --tickets "$TICKETS" 2>"$DIR/seed.err") \
        || { echo "webhook-seed failed: $(cat "$DIR/seed.err")" >&2; exit 1; }
    [ "$(field "$seed" deliveries)" = "$TICKETS" ] || { echo "the seed queued $(field "$seed" deliveries) deliveries, not $TICKETS" >&2; exit 1; }
    "$BENCH" webhook-receiver --dir "$DIR" --port "$port" --threads "$RECEIVER_THREADS" --secret "$(field "$seed" secret)" > "$DIR/receiver.log" 2>&1 &
    FAKE_PID=$!
    for _ in $(seq 100); do [ -s "$DIR/tally" ] && break; sleep 0.1; done
    [ -s "$DIR/tally" ] || { echo "the receiver did not start: $(cat "$DIR/receiver.log")" >&2; exit 1; }

    HTTP_PORT=$(free_port)
    # shellcheck disable=SC2086 # WEBHOOK_BENCH_SERVER_ENV is a list of NAME=VALUE words
    start_live_server "$SERVER" "$url" "$HTTP_PORT" log "$WORK/certs" "$DIR/server.log" \
        PASSES_DIR="$PWD/Passes" TOKEN_SECRET="$SECRET_HEX" WEBHOOK_ALLOW_PRIVATE_TARGETS=true ${WEBHOOK_BENCH_SERVER_ENV:-}
    postmaster=""
    [ "$backend" = postgres ] && postmaster=$(head -n1 "${PASS_SERVER_TEST_PG_DATA:-/nonexistent}/postmaster.pid" 2>/dev/null || true)
    cpu_snapshot "$SERVER_PID" "$FAKE_PID" "$postmaster" > "$DIR/cpu-before"
    ( while kill -0 "$SERVER_PID" 2>/dev/null; do echo "$(tally 1) $(rss)"; sleep 0.2; done ) > "$DIR/samples" 2>/dev/null &
    SAMPLER_PID=$!
    deadline=$(( $(date +%s) + 600 ))
    while [ "$(tally 2)" -lt "$TICKETS" ]; do
        [ "$(date +%s)" -lt "$deadline" ] || { echo "only $(tally 2) of $TICKETS webhook events reached the receiver in 600 s" >&2; exit 1; }
        sleep 0.1
    done
    cpu_snapshot "$SERVER_PID" "$FAKE_PID" "$postmaster" > "$DIR/cpu-after"
    sleep 0.3
    kill "$SAMPLER_PID" 2>/dev/null; wait "$SAMPLER_PID" 2>/dev/null || true
    memory=$(awk -v n="$TICKETS" 'NR == 1 { first = $2 } !half && $1 >= n / 2 { half = $2 } { last = $2 }
        END { printf "%s / %s / %s", first, half ? half : "?", last }' "$DIR/samples")
    hwm=$(awk '/VmHWM/ { printf "%.0f", $2 / 1024 }' "/proc/$SERVER_PID/status")
    awk -v b="$backend" -v q="$(field "$seed" import_without_s)" -v w="$(field "$seed" import_with_s)" -v d="$(tally 1)" -v i="$(tally 2)" \
        -v f="$(tally 3)" -v l="$(tally 4)" -v c="$(tally 5)" -v x="$(tally 6)" -v r="$memory / $hwm" 'BEGIN {
        t = l - f; printf "| %s | %.2f / %.2f | %d | %d | %.1f | %.0f | %.2f | %d (%d) | %s |\n", b, q, w, d, i, t, i / t, i / t / 5000, c, x, r
    }'
    reports+=("$(cpu_report "$DIR/cpu-before" "$DIR/cpu-after" "$backend: CPU from the server's start to the last delivery (server, receiver, PostgreSQL; by thread)")")
    kill -TERM "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=
    kill "$FAKE_PID" 2>/dev/null; wait "$FAKE_PID" 2>/dev/null || true
    FAKE_PID=
done
echo
for report in "${reports[@]}"; do echo "$report"; echo; done
echo "Load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
