#!/usr/bin/env bash
# The dashboard at scale: an event with DASHBOARD_BENCH_TICKETS tickets (100,000), each on its own
# registered device, on PostgreSQL. Signs in at /admin/ with an admin token like a browser (the
# sign-in form's cookie and CSRF value, then the session cookie), and measures with wrk, sending
# the session cookie:
#   - the event page (counts, reach, the first page of the ticket table);
#   - a ticket search that matches one ticket (the table's search over every ticket of the event);
#   - a ticket search that matches many (a page fills early).
# Two thirds of the tickets are checked in and every ticket has an email status, as at the door of
# an event whose tickets were emailed. Goal: p99 under 100 ms for each. Prints Markdown rows
# (bench/http.sh).
#
# Assumes `swift build -c release` and PASS_SERVER_TEST_DATABASE_URL (scripts/with-postgres.sh).
# Knobs: DASHBOARD_BENCH_TICKETS (100000), and bench/http.sh's WRK_* and BENCH_RUNS. The dashboard
# is a handful of organizers at once, not a crowd: wrk keeps 4 connections open (WRK_CONNECTIONS=4)
# unless told otherwise, where the endpoints that phones call are measured with 64.
set -euo pipefail
cd "$(dirname "$0")/.."

SERVER=${PASS_SERVER:-.build/release/pass-server}
TICKETS=${DASHBOARD_BENCH_TICKETS:-100000}
export WRK_CONNECTIONS=${WRK_CONNECTIONS:-4}
source bench/live-server.sh
scratch_bench bench_dashboard
seed_bench_event "$TICKETS"
# The seed writes rows directly; give them the search text the server keeps for every ticket.
sql "UPDATE passes SET search_text = lower(attendee_name || chr(10) || attendee_email || chr(10) || serial_number)" >/dev/null
# Two thirds of the tickets checked in at the door and every ticket emailed (one in ten failed), so
# that the check-in and email counts the page shows stand for rows of every kind.
sql "UPDATE passes SET checked_in_at = 1800000000000 WHERE id % 3 <> 0" >/dev/null
sql "INSERT INTO checkins (pass_id, event_id, checked_in_at, gate, recorded_at, ticket_type)
     SELECT id, event_id, checked_in_at, 'North', checked_in_at, ticket_type FROM passes WHERE checked_in_at IS NOT NULL" >/dev/null
sql "INSERT INTO ticket_emails (pass_id, event_id, state, queued_at, sent_at, sent_count, updated_at)
     SELECT id, event_id, CASE WHEN id % 10 = 0 THEN 'failed' ELSE 'sent' END, 0, 0, 1, 0 FROM passes" >/dev/null
psql -q "$DATABASE_URL" -c "VACUUM ANALYZE" >/dev/null

HTTP_PORT=$(free_port)
ADMIN=$(DATABASE_URL="$DATABASE_URL" "$SERVER" token create --name bench-admin --role admin 2>/dev/null)
start_live_server "$SERVER" "$DATABASE_URL" "$HTTP_PORT" log "$WORK/certs" "$WORK/server.log"
BASE="http://127.0.0.1:$HTTP_PORT"
# The server folds the tally changes the seed's triggers left (where the schema has them) within
# seconds. They arrive at once where real ones trickle in and are folded every second: vacuum what
# the fold left behind before measuring, as autovacuum soon would.
for _ in $(seq 300); do [ "$(sql "SELECT count(*) FROM event_tally_changes")" = 0 ] && break; sleep 0.2; done
psql -q "$DATABASE_URL" -c "VACUUM ANALYZE event_tally_changes, event_tallies" >/dev/null

# Sign in as a browser does.
jar="$WORK/cookies"
csrf=$(curl -sf -c "$jar" "$BASE/admin/" | sed -n 's/.*name="csrf" value="\([^"]*\)".*/\1/p' | head -n1)
curl -sf -b "$jar" -c "$jar" -o /dev/null --data-urlencode "csrf=$csrf" --data-urlencode "token=$ADMIN" "$BASE/admin/sign-in"
# An https PUBLIC_URL (bench/live-server.sh): the cookie is a __Host- cookie.
session=$(awk '$6 == "__Host-ps_session" { print $7 }' "$jar")
[ -n "$session" ] || { echo "bench/dashboard.sh: signing in gave no session cookie" >&2; exit 1; }
export BENCH_COOKIE="__Host-ps_session=$session"

# Each page must be the real page (a 303 to the sign-in page would also count as an answer).
check_page() {
    local body
    body=$(curl -sf -H "Cookie: $BENCH_COOKIE" "$1")
    grep -q "$2" <<<"$body" || { echo "bench/dashboard.sh: $1 does not show '$2'" >&2; exit 1; }
}
one=$(( TICKETS * 2 / 3 ))
check_page "$BASE/admin/events/bench-event" "Bench Night"
check_page "$BASE/admin/events/bench-event?q=guest$one%40" "Attendee $one<"
check_page "$BASE/admin/events/bench-event?q=attendee%201" "Attendee 1<"

# Three seconds of each request first, not counted: the pool's connections prepare their
# statements and PostgreSQL's buffers hold the event's first pages.
for url in "$BASE/admin/events/bench-event" "$BASE/admin/events/bench-event?q=guest$one%40" "$BASE/admin/events/bench-event?q=attendee%201"; do
    wrk -t2 -c"$WRK_CONNECTIONS" -d3s -H "Cookie: $BENCH_COOKIE" "$url" >/dev/null
done

echo "Event of $(printf "%'d" "$TICKETS") tickets and devices (seeded in ${seed_seconds} s); goal: p99 under 100 ms."
echo
BENCH_HEADER=1 bench/http.sh "$BASE/admin/events/bench-event" "dashboard event page"
bench/http.sh "$BASE/admin/events/bench-event?q=guest$one%40" "dashboard ticket search, one match"
bench/http.sh "$BASE/admin/events/bench-event?q=attendee%201" "dashboard ticket search, many matches"
