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

SERVER=${PASS_SERVER:-.build/release/pass-server}
FAKE=${FAKE_APNS:-.build/release/fake-apns}
TICKETS=${REPUSH_BENCH_TICKETS:-100000}
: "${PASS_SERVER_TEST_DATABASE_URL:?run inside scripts/with-postgres.sh}"
for binary in "$SERVER" "$FAKE"; do
    [ -x "$binary" ] || { echo "missing $binary: run swift build -c release first" >&2; exit 1; }
done

WORK=$(mktemp -d)
DB="bench_repush_$$"
FAKE_PID=
SERVER_PID=
cleanup() {
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
    [ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null
    psql -q "$PASS_SERVER_TEST_DATABASE_URL" -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true
    rm -rf "$WORK"
}
trap cleanup EXIT

psql -q "$PASS_SERVER_TEST_DATABASE_URL" -c "CREATE DATABASE $DB" >/dev/null
DATABASE_URL=$(python3 -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/" + sys.argv[2])))' \
    "$PASS_SERVER_TEST_DATABASE_URL" "$DB")
sql() { psql -qtA "$DATABASE_URL" -c "$1"; }

"$SERVER" certs dev --dir "$WORK/certs" >/dev/null
PASS_TYPE=pass.dev.passserver.event
DATABASE_URL="$DATABASE_URL" "$SERVER" migrate >/dev/null

# Seed with generate_series (the schema of Sources/Storage/Migrations): one event, N passes, N
# devices with distinct push tokens, one registration each.
seed_start=$(date +%s.%N)
psql -q "$DATABASE_URL" >/dev/null <<SQL
BEGIN;
INSERT INTO events (id, name, venue, starts_at, ends_at, time_zone, template, revision, created_at, updated_at)
VALUES ('bench-event', 'Bench Night', 'Hall A', 1800000000000, NULL, 'UTC', 'event-ticket', 1, 0, 0);
INSERT INTO passes (pass_type_identifier, serial_number, authentication_token_hash, download_token_hash, event_id,
    attendee_name, revision, modified_at, created_at)
SELECT '$PASS_TYPE', 'S' || i, sha256(('a' || i)::bytea), sha256(('d' || i)::bytea), 'bench-event',
    'Attendee ' || i, 1, 1700000000, 0
FROM generate_series(1, $TICKETS) AS i;
INSERT INTO devices (device_library_identifier, push_token, updated_at)
SELECT 'device' || i, lpad(to_hex(i), 64, '0'), 0 FROM generate_series(1, $TICKETS) AS i;
INSERT INTO registrations (device_library_identifier, pass_type_identifier, serial_number, created_at, updated_at)
SELECT 'device' || i, '$PASS_TYPE', 'S' || i, 0, 0 FROM generate_series(1, $TICKETS) AS i;
UPDATE counters SET value = 1 WHERE name = 'revision';
COMMIT;
ANALYZE;
SQL
seed_seconds=$(awk -v a="$seed_start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')

"$FAKE" --cert "$WORK/certs/server-certificate.pem" --key "$WORK/certs/server-key.pem" --no-client-auth --print-port \
    --log-level warning > "$WORK/fake-port" &
FAKE_PID=$!
for _ in $(seq 100); do [ -s "$WORK/fake-port" ] && break; sleep 0.1; done
FAKE_PORT=$(head -n1 "$WORK/fake-port")

HTTP_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
TOKEN=$(DATABASE_URL="$DATABASE_URL" "$SERVER" token create --name bench 2>/dev/null)
source bench/live-server.sh
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
