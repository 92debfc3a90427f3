#!/usr/bin/env bash
# Event re-push at scale: an event with 100,000 tickets, each registered on its own device, on
# PostgreSQL; pass-server pushes to the fake-apns server. One PATCH of the event's venue, then:
# time until the job is done, time until the last push was accepted by the fake, pushes/s, and the
# server's peak RSS. Prints Markdown rows.
#
# Assumes `swift build -c release` and PASS_SERVER_TEST_DATABASE_URL (scripts/with-postgres.sh).
# Knobs: REPUSH_BENCH_TICKETS (100000), JOB_BATCH_SIZE (500), APNS_CONNECTIONS (2).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/live-server.sh

SERVER=${PASS_SERVER:-.build/release/pass-server}
FAKE=${FAKE_APNS:-.build/release/fake-apns}
TICKETS=${REPUSH_BENCH_TICKETS:-100000}
scratch_event_bench bench_repush
seed_bench_event "$TICKETS"

HTTP_PORT=$(free_port)
TOKEN=$(DATABASE_URL="$DATABASE_URL" "$SERVER" token create --name bench 2>/dev/null)
start_live_server "$SERVER" "$DATABASE_URL" "$HTTP_PORT" "$FAKE_PORT" "$WORK/certs" "$WORK/server.log"

# The cluster's postmaster (scripts/with-postgres.sh), for the database's CPU time.
POSTMASTER_PID=$(head -n 1 "${PASS_SERVER_TEST_PG_DATA:-/nonexistent}/postmaster.pid" 2>/dev/null || true)
cpu_snapshot "$SERVER_PID" > "$WORK/server-cpu-before"
cpu_snapshot "$FAKE_PID" > "$WORK/fake-cpu-before"
cpu_snapshot $POSTMASTER_PID > "$WORK/pg-cpu-before"
echo "load average before the PATCH: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
now_ms() { date +%s%3N; }
start_ms=$(now_ms)
job=$(curl -sf -X PATCH -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
    -d '{"venue":"Hall B"}' "http://127.0.0.1:$HTTP_PORT/admin/v1/events/bench-event" \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["job"]["id"])')

job_ms=
deadline=$(( $(date +%s) + 900 ))
while [ "$(date +%s)" -lt "$deadline" ]; do
    if [ -z "$job_ms" ] && [ "$(sql "SELECT state FROM jobs WHERE id = '$job'")" = done ]; then job_ms=$(now_ms); fi
    # An existence check, not a count: counting 100,000 rows five times a second would load the
    # database the benchmark measures.
    if [ -n "$job_ms" ] && [ -z "$(sql "SELECT 1 FROM push_outbox LIMIT 1")" ]; then break; fi
    sleep 0.2
done
pushes=$(sql "SELECT count(*) FROM push_log WHERE status = 200")
last_push_ms=$(sql "SELECT coalesce(max(created_at), 0) FROM push_log")
rss_kib=$(awk '/VmHWM/ { print $2 }' "/proc/$SERVER_PID/status")
cpu_snapshot "$SERVER_PID" > "$WORK/server-cpu-after"
cpu_snapshot "$FAKE_PID" > "$WORK/fake-cpu-after"
cpu_snapshot $POSTMASTER_PID > "$WORK/pg-cpu-after"

awk -v n="$TICKETS" -v seed="$seed_seconds" -v s="$start_ms" -v j="${job_ms:-0}" -v l="$last_push_ms" -v p="$pushes" -v r="$rss_kib" 'BEGIN {
    job = (j - s) / 1000; last = (l - s) / 1000
    print "| Event re-push (PostgreSQL, fake APNs) | tickets = devices | job done (s) | last push accepted (s) | pushes accepted | pushes/s | pass-server peak RSS (MiB) |"
    print "|---|---|---|---|---|---|---|"
    printf "| one PATCH of the venue (seeded in %ss) | %d | %.1f | %.1f | %d | %.0f | %.0f |\n", seed, n, job, last, p, (last > 0 ? p / last : 0), r / 1024
}'
# Where the time went, from the PATCH until the outbox was empty.
echo
cpu_report "$WORK/server-cpu-before" "$WORK/server-cpu-after" "- pass-server"
cpu_report "$WORK/fake-cpu-before" "$WORK/fake-cpu-after" "- fake-apns"
[ -n "$POSTMASTER_PID" ] && cpu_report "$WORK/pg-cpu-before" "$WORK/pg-cpu-after" "- PostgreSQL"
