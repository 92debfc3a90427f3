#!/usr/bin/env bash
# Bulk ticket import: 100,000 attendees as CSV through POST /admin/v1/events/{id}/tickets:batch,
# on PostgreSQL and then on SQLite (a fresh server and database each). The route takes at most
# 10,000 rows per request, so the import is 10 requests of 10,000 rows, sent one after another.
# Prints Markdown: tickets/s over the whole import, each request's time, and the server's resident
# memory after each request and at its peak (VmHWM), to show whether memory grows with the total
# imported.
#
# Then, on each event of 100,000 tickets, the ticket list's filters: a search that matches one
# ticket (the worst case: every row of the event is read), a status filter and updatedSince.
#
# Assumes `swift build -c release` and PASS_SERVER_TEST_DATABASE_URL (scripts/with-postgres.sh).
# Knobs: IMPORT_BENCH_TICKETS (100000), IMPORT_BENCH_ROWS (10000 per request),
# IMPORT_BENCH_BACKENDS ("postgres sqlite"), IMPORT_BENCH_SERVER_ENV (extra environment for the
# server, e.g. MALLOC_ARENA_MAX=1).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/live-server.sh

SERVER=${PASS_SERVER:-.build/release/pass-server}
TICKETS=${IMPORT_BENCH_TICKETS:-100000}
ROWS=${IMPORT_BENCH_ROWS:-10000}
scratch_bench bench_import
POSTGRES_URL=$DATABASE_URL

# The attendee list, one CSV file per request: a byte order mark, CRLF, quoted names with commas
# and quotes, Japanese names, emails, seats, the template's two extra fields.
python3 - "$WORK" "$TICKETS" "$ROWS" <<'PY'
import sys
work, total, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
names = ['山田 太郎 {}', '"O\'Brien, ""Bob"" {}"', 'Ada Lovelace {}', '"Zoë, Ünal {}"']
types = ['General', 'VIP', 'Student', 'Staff']
for part, start in enumerate(range(0, total, per)):
    with open(f"{work}/part-{part:03d}.csv", "w", encoding="utf-8", newline="") as f:
        f.write("\ufeffexternalId,attendeeName,attendeeEmail,seat,ticketType,gate\r\n")
        for i in range(start, min(start + per, total)):
            f.write(f"EXT-{i},{names[i % 4].format(i)},user{i}@example.com,R{i // 100}-{i % 100},{types[i % 4]},G{i % 7}\r\n")
PY

rss() { awk '/VmRSS/ { printf "%.0f", $2 / 1024 }' "/proc/$SERVER_PID/status"; }
# CPU seconds (user + system) of a process and of PostgreSQL's processes: on a shared machine
# wall-clock time depends on everyone else, CPU time much less.
cpu_of() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$1/stat" 2>/dev/null || echo 0; }
postgres_cpu() {
    local total=0 pid
    local postmaster
    postmaster=$(head -n1 "${PASS_SERVER_TEST_PG_DATA:-/nonexistent}/postmaster.pid" 2>/dev/null || true)
    [ -n "$postmaster" ] || { echo 0; return; }
    for pid in $postmaster $(pgrep -P "$postmaster"); do total=$(awk -v a="$total" -v b="$(cpu_of "$pid")" 'BEGIN { print a + b }'); done
    echo "$total"
}
api() { curl -sf -H "Authorization: Bearer $TOKEN" "$@"; }
json() { python3 -c "import json, sys; print(json.load(sys.stdin)$1)"; }

# import_on BACKEND DATABASE_URL: a server on that (migrated) database, one event, the import, the
# filters; the server is stopped at the end.
import_on() {
    local backend="$1" database_url="$2"
    TOKEN=$(DATABASE_URL="$database_url" "$SERVER" token create --name "bench-$backend" 2>/dev/null)
    HTTP_PORT=$(free_port)
    # shellcheck disable=SC2086 # IMPORT_BENCH_SERVER_ENV is a list of NAME=VALUE words
    start_live_server "$SERVER" "$database_url" "$HTTP_PORT" log "$WORK/certs" "$WORK/server-$backend.log" \
        PASSES_DIR="$PWD/Passes" ${IMPORT_BENCH_SERVER_ENV:-}
    local base="http://127.0.0.1:$HTTP_PORT/admin/v1"
    EVENT=$(api -X POST -H 'Content-Type: application/json' \
        -d '{"name":"Import Night","venue":"Hall A","startsAt":"2027-03-01T19:00:00+09:00","timeZone":"Asia/Tokyo"}' \
        "$base/events" | json '["id"]')

    local server_cpu0 postgres_cpu0 start requests="" file t0 t1 code end
    server_cpu0=$(cpu_of "$SERVER_PID")
    postgres_cpu0=$(postgres_cpu)
    start=$(date +%s.%N)
    for file in "$WORK"/part-*.csv; do
        t0=$(date +%s.%N)
        code=$(api -o "$WORK/answer.json" -w '%{http_code}' -X POST -H 'Content-Type: text/csv' --data-binary @"$file" \
            "$base/events/$EVENT/tickets:batch")
        t1=$(date +%s.%N)
        [ "$code" = 200 ] || { echo "import request failed with $code: $(head -c 300 "$WORK/answer.json")" >&2; exit 1; }
        requests="$requests $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')/$(rss)"
    done
    end=$(date +%s.%N)
    local server_cpu database_cpu issued peak body median
    server_cpu=$(awk -v a="$server_cpu0" -v b="$(cpu_of "$SERVER_PID")" 'BEGIN { printf "%.1f", b - a }')
    # SQLite runs inside the server: its work is in the server's CPU time.
    database_cpu=$(awk -v a="$postgres_cpu0" -v b="$(postgres_cpu)" -v pg="$([ "$backend" = postgres ] && echo 1)" \
        'BEGIN { if (pg) printf "%.1f", b - a; else printf "(in pass-server)" }')
    issued=$(api "$base/events/$EVENT" | json '["counts"]["tickets"]')
    peak=$(awk '/VmHWM/ { printf "%.0f", $2 / 1024 }' "/proc/$SERVER_PID/status")
    body=$(stat -c %s "$WORK/part-000.csv")

    echo "| Bulk import ($backend) | tickets | requests × rows | body per request | total (s) | tickets/s | CPU s: pass-server / database | peak RSS (MiB) |"
    echo "|---|---|---|---|---|---|---|---|"
    awk -v n="$issued" -v r="$(ls "$WORK"/part-*.csv | wc -l)" -v per="$ROWS" -v b="$body" -v s="$start" -v e="$end" -v p="$peak" \
        -v sc="$server_cpu" -v dc="$database_cpu" 'BEGIN {
        t = e - s; printf "| CSV, one request after another | %d | %d × %d | %.2f MiB | %.1f | %.0f | %s / %s | %d |\n", n, r, per, b / 1048576, t, n / t, sc, dc, p
    }'
    echo
    echo "Each request: seconds / server RSS after it (MiB):$requests"
    echo
    echo "Load average after the import: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo

    # An idempotent re-import: the second request's file again (ROWS external ids the event has),
    # 5 times. Every row returns its existing ticket; on SQLite the request holds the database's
    # write lock throughout, so its time bounds how long registrations and check-ins wait.
    local again=""
    for _ in 1 2 3 4 5; do
        t0=$(date +%s.%N)
        code=$(api -o "$WORK/answer.json" -w '%{http_code}' -X POST -H 'Content-Type: text/csv' --data-binary @"$WORK/part-001.csv" \
            "$base/events/$EVENT/tickets:batch")
        t1=$(date +%s.%N)
        [ "$code" = 200 ] && [ "$(json '["existing"]' <"$WORK/answer.json")" = "$ROWS" ] \
            || { echo "re-import failed with $code: $(head -c 300 "$WORK/answer.json")" >&2; exit 1; }
        again="$again $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')"
    done
    median=$(echo "$again" | tr ' ' '\n' | grep . | sort -n | sed -n 3p)
    echo "| Re-import of $ROWS existing ids into $issued tickets ($backend) | median of 5 (s) | ratio to the 1 s bound | each (s) |"
    echo "|---|---|---|---|"
    awk -v m="$median" -v each="$again" 'BEGIN { printf "| same CSV again, every row existing | %.3f | %.2f | %s |\n", m, m / 1, each }'
    echo

    # The ticket list's filters on the event of 100,000 tickets: median of 5 requests each.
    [ "$backend" = postgres ] && psql -q "$database_url" -c "ANALYZE" >/dev/null
    local since query times
    since=$(python3 -c 'import datetime; print((datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(seconds=5)).strftime("%Y-%m-%dT%H:%M:%SZ"))')
    echo "| Ticket list on $issued tickets ($backend, limit 50) | median of 5 (ms) |"
    echo "|---|---|"
    for query in "q=user77777%40example.com" "q=zo%C3%AB" "q=nobody-matches-this" "status=cancelled" "updatedSince=$since" ""; do
        times=""
        for _ in 1 2 3 4 5; do
            times="$times $(api -o /dev/null -w '%{time_total}' "$base/events/$EVENT/tickets?limit=50${query:+&$query}")"
        done
        median=$(echo "$times" | tr ' ' '\n' | grep . | sort -n | sed -n 3p)
        awk -v q="${query:-(no filter)}" -v m="$median" 'BEGIN { printf "| `%s` | %.1f |\n", q, m * 1000 }'
    done
    echo
    kill "$SERVER_PID" && wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=
}

for backend in ${IMPORT_BENCH_BACKENDS:-postgres sqlite}; do
    case "$backend" in
    postgres) import_on postgres "$POSTGRES_URL" ;;
    sqlite)
        DATABASE_URL="sqlite://$WORK/import.sqlite" "$SERVER" migrate >/dev/null
        import_on sqlite "sqlite://$WORK/import.sqlite"
        ;;
    *) echo "unknown backend $backend (postgres, sqlite)" >&2; exit 64 ;;
    esac
done
