#!/usr/bin/env bash
# Reach at scale: an event with 100,000 tickets, each registered on its own device, on PostgreSQL;
# pass-server pushes to the fake-apns server. One PATCH of the event; once its job is done and every
# push answered, 74,120 of the phones are made to have been told and served the new revision (as if
# they had listed and fetched). Then, through the HTTP API:
#   - GET /admin/v1/events/{id} (counts and reach) and GET /admin/v1/jobs/{id} (job reach):
#     p50 / p99 / max latency over REACH_BENCH_CALLS sequential calls each (keep-alive connection);
#   - EXPLAIN ANALYZE of the tally read both make (index use);
#   - GET /admin/v1/events/{id}/tickets.csv of all 100,000 tickets: time, size, and the server's
#     resident memory before and after (the export streams a page at a time).
# Prints Markdown.
#
# Assumes `swift build -c release` and PASS_SERVER_TEST_DATABASE_URL (scripts/with-postgres.sh).
# Knobs: REACH_BENCH_TICKETS (100000), REACH_BENCH_CALLS (500).
set -euo pipefail
cd "$(dirname "$0")/.."

SERVER=${PASS_SERVER:-.build/release/pass-server}
FAKE=${FAKE_APNS:-.build/release/fake-apns}
TICKETS=${REACH_BENCH_TICKETS:-100000}
CALLS=${REACH_BENCH_CALLS:-500}
UP_TO_DATE=$(( TICKETS * 7412 / 10000 ))
source bench/live-server.sh
scratch_event_bench bench_reach
seed_bench_event "$TICKETS"

HTTP_PORT=$(free_port)
TOKEN=$(DATABASE_URL="$DATABASE_URL" "$SERVER" token create --name bench --role viewer 2>/dev/null)
ADMIN=$(DATABASE_URL="$DATABASE_URL" "$SERVER" token create --name bench-admin --role admin 2>/dev/null)
start_live_server "$SERVER" "$DATABASE_URL" "$HTTP_PORT" "$FAKE_PORT" "$WORK/certs" "$WORK/server.log"
BASE="http://127.0.0.1:$HTTP_PORT"

job=$(curl -sf -X PATCH -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' \
    -d '{"venue":"Hall B"}' "$BASE/admin/v1/events/bench-event" \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["job"]["id"])')
deadline=$(( $(date +%s) + 900 ))
while [ "$(date +%s)" -lt "$deadline" ]; do
    if [ "$(sql "SELECT state FROM jobs WHERE id = '$job'")" = done ] && [ "$(sql "SELECT count(*) FROM push_outbox")" = 0 ]; then break; fi
    sleep 0.5
done

# As if UP_TO_DATE phones had listed (told the new revision) and fetched it (served).
psql -q "$DATABASE_URL" >/dev/null <<SQL
BEGIN;
CREATE TEMPORARY TABLE cutoff AS
    SELECT max(id) AS id FROM (SELECT id FROM passes WHERE event_id = 'bench-event' ORDER BY id LIMIT $UP_TO_DATE) t;
UPDATE passes SET served_revision = revision, served_at = 0
WHERE event_id = 'bench-event' AND id <= (SELECT id FROM cutoff);
UPDATE registrations SET told_revision = pass_revision, told_at = 0, served_revision = pass_revision
WHERE event_id = 'bench-event' AND pass_id <= (SELECT id FROM cutoff);
COMMIT;
SQL
# A database with history: the tallies of 10,000 past events and their jobs, so that the read
# has to find this event's rows among many, as it would after a few years of events.
sql "INSERT INTO event_tallies (event_id, job_id, tickets, devices) SELECT 'past-' || i, j, 100, 90 FROM generate_series(1, 10000) AS i, (VALUES (''), ('job')) AS jobs (j)" >/dev/null
sleep 3  # the server folds the tally changes every second
unfolded=$(sql "SELECT count(*) FROM event_tally_changes")
psql -q "$DATABASE_URL" -c "VACUUM ANALYZE" >/dev/null

python3 - "$BASE" "$TOKEN" "$job" "$CALLS" "$TICKETS" "$UP_TO_DATE" > "$WORK/latency.md" <<'PY'
import http.client, json, sys, time, urllib.parse
base, token, job, calls, tickets, up = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
url = urllib.parse.urlsplit(base)
connection = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
headers = {"Authorization": "Bearer " + token}

def get(path):
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    body = response.read()
    if response.status != 200:
        sys.exit(f"{path}: {response.status} {body[:200]!r}")
    return json.loads(body)

event = get("/admin/v1/events/bench-event")
reach = event["reach"]
job_reach = get(f"/admin/v1/jobs/{job}")["reach"]
expected = {"devices": tickets, "devicesUpToDate": up, "pushesPending": 0, "pushesFailed": 0, "pushesDelivered": tickets}
for name, got in (("event", reach), ("job", job_reach)):
    if got != expected:
        sys.exit(f"{name} reach {got}, expected {expected}")
if event["counts"]["tickets"] != tickets or event["counts"]["registeredDevices"] != tickets:
    sys.exit(f"counts {event['counts']}")

def measure(path):
    for _ in range(20):
        get(path)
    samples = []
    for _ in range(calls):
        start = time.perf_counter()
        get(path)
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return samples[len(samples) // 2], samples[int(len(samples) * 0.99) - 1], samples[-1]

print(f"| request ({calls} sequential calls, keep-alive) | p50 (ms) | p99 (ms) | max (ms) | goal |")
print("|---|---:|---:|---:|---|")
for label, path in (("`GET /admin/v1/events/{id}`: counts + reach", "/admin/v1/events/bench-event"),
                    ("`GET /admin/v1/jobs/{id}`: job + reach", f"/admin/v1/jobs/{job}")):
    p50, p99, worst = measure(path)
    print(f"| {label} | {p50:.2f} | {p99:.2f} | {worst:.2f} | < 50 ms |")
print()
print(f"Reach read back: {reach['devicesUpToDate']:,} of {reach['devices']:,} phones up to date; "
      f"{reach['pushesDelivered']:,} pushes delivered, {reach['pushesPending']} pending, {reach['pushesFailed']} failed.")
PY

rss() { awk "/$1/ { print int(\$2 / 1024) }" "/proc/$SERVER_PID/status"; }
rss_before=$(rss VmRSS)
hwm_before=$(rss VmHWM)
export_start=$(date +%s.%N)
curl -sf -H "Authorization: Bearer $TOKEN" -o "$WORK/tickets.csv" "$BASE/admin/v1/events/bench-event/tickets.csv"
export_seconds=$(awk -v a="$export_start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
rss_after=$(rss VmRSS)
hwm_after=$(rss VmHWM)
rows=$(( $(python3 -c 'import csv, sys; print(sum(1 for _ in csv.reader(open(sys.argv[1], newline="", encoding="utf-8-sig"))))' "$WORK/tickets.csv") - 1 ))
size_mib=$(awk -v b="$(stat -c %s "$WORK/tickets.csv")" 'BEGIN { printf "%.1f", b / 1048576 }')

echo "Event of $TICKETS tickets and $TICKETS devices (seeded in ${seed_seconds}s) among the tallies of 10,000 past events, one re-push job done and every push answered; $UP_TO_DATE phones up to date; $unfolded tally changes not yet folded at the start."
echo
cat "$WORK/latency.md"
echo
echo "The tally read both requests make (EXPLAIN ANALYZE, PostgreSQL):"
echo
echo '```'
counters="tickets, voided, registered_devices, devices, devices_current, pushes_pending, pushes_delivered, pushes_failed"
sums=$(echo "$counters" | tr -d ' ' | tr ',' '\n' | awk '{ printf "%sCAST(sum(%s) AS BIGINT) AS %s", (NR > 1 ? ", " : ""), $1, $1 }')
psql -qtA "$DATABASE_URL" -c "EXPLAIN (ANALYZE, COSTS OFF) SELECT event_id, job_id, $sums FROM (
    SELECT event_id, job_id, $counters FROM event_tallies WHERE event_id IN ('bench-event')
    UNION ALL SELECT event_id, job_id, $counters FROM event_tally_changes WHERE event_id IN ('bench-event')) t
    GROUP BY event_id, job_id"
echo '```'
echo
echo "| CSV export | tickets | size | time | server RSS before → after | server peak RSS before → after |"
echo "|---|---:|---:|---:|---:|---:|"
echo "| \`GET /admin/v1/events/{id}/tickets.csv\` | $rows | ${size_mib} MiB | ${export_seconds} s | ${rss_before} → ${rss_after} MiB | ${hwm_before} → ${hwm_after} MiB |"
