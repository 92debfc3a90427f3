#!/usr/bin/env bash
# Soak test: two `pass-server serve` instances on one PostgreSQL database, pushing to the fake APNs,
# under mixed traffic from simulated phones and an organizer (bench/soak.py) for SOAK_DURATION
# seconds (600), while things break on a timetable (fractions of the duration):
#
#   0.15  PostgreSQL stops, and starts again 5 s later
#   0.30  the fake APNs is down for min(60 s, duration/10); it answers GOAWAY every 500 streams throughout
#   0.50  instance B is SIGKILLed and started again 5 s later
#   0.65  PostgreSQL stops, and starts again 5 s later
#
# Then traffic stops, the outbox drains (up to SOAK_DRAIN seconds, 300), and the report is printed
# (bench/soak.py report): requests by status and route, the outage windows, registrations
# acknowledged vs stored, tokens pushed after their last change, duplicate pushes against the rows
# in flight at the kill, RSS per instance (sampled every second), and the verdict. Exit status 1
# when a goal is missed (docs/reliability.md lists them): a 5xx outside the database outage
# windows, an unexpected status or no answer outside an outage window of the instance asked, an
# acknowledged registration missing, a token not pushed after its last change, more duplicate
# pushes than were in flight, work left after the drain, or RSS growing over the second half of a
# process's time under traffic by more than 16 MiB plus the bundle cache's budget.
#
#   make soak                               # release build, inside scripts/with-postgres.sh
#   SOAK_DURATION=60 make soak              # one-minute smoke run
#
# Knobs: SOAK_DURATION, SOAK_DRAIN, SOAK_PHONES (150), SOAK_RATE (40 phone requests/s), SOAK_TICKETS
# (200), SOAK_BUILD (release), SOAK_BUNDLE_CACHE_SIZE (the instances' BUNDLE_CACHE_SIZE, 4 MiB: full
# within the first minute, so that RSS growth later is everything else), SOAK_KEEP=1 keeps the work
# directory (logs, results.json, report.json) and prints its path.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${SOAK_DURATION:-600}
DRAIN=${SOAK_DRAIN:-300}
TICKETS=${SOAK_TICKETS:-200}
BUILD=${SOAK_BUILD:-release}
BUNDLE_CACHE=${SOAK_BUNDLE_CACHE_SIZE:-4194304}
SERVER=".build/$BUILD/pass-server"
FAKE=".build/$BUILD/fake-apns"
BENCH=".build/$BUILD/pass-server-bench"
: "${PASS_SERVER_TEST_DATABASE_URL:?run inside scripts/with-postgres.sh (make soak does)}"
: "${PASS_SERVER_TEST_PG_CTL:?scripts/with-postgres.sh sets PASS_SERVER_TEST_PG_CTL}"
for binary in "$SERVER" "$FAKE" "$BENCH"; do
    [ -x "$binary" ] || { echo "soak: missing $binary (swift build -c $BUILD)" >&2; exit 1; }
done

WORK=$(mktemp -d /tmp/pass-server-soak.XXXXXX)
DB="soak_$$"
declare -A PIDS=()
cleanup() {
    if [ -n "${SAMPLER:-}" ]; then kill -TERM "$SAMPLER" 2>/dev/null || true; fi
    for name in "${!PIDS[@]}"; do kill -TERM "${PIDS[$name]}" 2>/dev/null || true; done
    for name in "${!PIDS[@]}"; do wait "${PIDS[$name]}" 2>/dev/null || true; done
    psql -q "$PASS_SERVER_TEST_DATABASE_URL" -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1 || true
    if [ -n "${SOAK_KEEP:-}" ]; then echo "soak: logs kept in $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

now_ms() { date +%s%3N; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
as_pg_owner() {
    if [ "$(id -un)" = "$PASS_SERVER_TEST_PG_OWNER" ]; then "$@"; else runuser -u "$PASS_SERVER_TEST_PG_OWNER" -- "$@"; fi
}
pg_ctl() { as_pg_owner "$PASS_SERVER_TEST_PG_CTL" -D "$PASS_SERVER_TEST_PG_DATA" "$@"; }

# The cluster was started with its settings on pg_ctl's command line; keep them in
# postgresql.auto.conf so that a plain `pg_ctl start` after an outage brings it back the same.
for setting in listen_addresses port unix_socket_directories max_connections fsync synchronous_commit full_page_writes; do
    value=$(psql -qtA "$PASS_SERVER_TEST_DATABASE_URL" -c "SHOW $setting")
    psql -q "$PASS_SERVER_TEST_DATABASE_URL" -c "ALTER SYSTEM SET $setting = '$value'" >/dev/null
done
psql -q "$PASS_SERVER_TEST_DATABASE_URL" -c "CREATE DATABASE $DB" >/dev/null
DATABASE_URL=$(python3 -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/" + sys.argv[2])))' \
    "$PASS_SERVER_TEST_DATABASE_URL" "$DB")
export DATABASE_URL
sql() { psql -qtA "$DATABASE_URL" -c "$1"; }

"$SERVER" certs dev --dir "$WORK/certs" >/dev/null
"$SERVER" migrate >/dev/null
ADMIN=$("$SERVER" token create --name soak 2>/dev/null)
SECRET=$(openssl rand -hex 32)

FAKE_PORT=$(free_port)
start_fake() {
    "$FAKE" --cert "$WORK/certs/server-certificate.pem" --key "$WORK/certs/server-key.pem" \
        --client-ca "$WORK/certs/root-ca.pem" --port "$FAKE_PORT" --goaway-after 500 \
        --push-log "$WORK/pushes.log" >>"$WORK/fake.log" 2>&1 &
    PIDS[fake]=$!
}

declare -A PORTS=([a]=$(free_port) [b]=$(free_port))
: >"$WORK/pids"
start_instance() { # NAME LABEL: LABEL names the process in the RSS samples (b' for B restarted)
    local name=$1 label=$2
    env HTTP_PORT="${PORTS[$name]}" BUNDLE_CACHE_SIZE="$BUNDLE_CACHE" PUBLIC_URL="https://passes.example.test" ORGANIZATION_NAME="Soak Events" TOKEN_SECRET="$SECRET" \
        PASS_CERTIFICATE="$WORK/certs/pass-certificate.pem" PASS_PRIVATE_KEY="$WORK/certs/pass-key.pem" \
        WWDR_CERTIFICATE="$WORK/certs/wwdr.pem" APNS_URL="https://127.0.0.1:$FAKE_PORT" APNS_CA_FILE="$WORK/certs/root-ca.pem" \
        APNS_REQUEST_TIMEOUT=10s PUSH_LEASE=30s JOB_LEASE=20s LOG_LEVEL=info \
        "$SERVER" serve --no-migrate >>"$WORK/server-$name.log" 2>&1 &
    PIDS[$name]=$!
    echo "$label ${PIDS[$name]}" >>"$WORK/pids"
    for _ in $(seq 300); do
        curl -sf "http://127.0.0.1:${PORTS[$name]}/healthz" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    echo "soak: instance $name did not start; its log:" >&2
    tail -n 30 "$WORK/server-$name.log" >&2
    exit 1
}
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }
# Every second, "LABEL UNIX-MS KIB" for each instance process still alive ($WORK/pids).
sample_rss() {
    while :; do
        local now label pid
        now=$(now_ms)
        while read -r label pid; do
            if [ -e "/proc/$pid" ]; then echo "$label $now $(rss_kib "$pid")"; fi
        done <"$WORK/pids" >>"$WORK/rss"
        sleep 1
    done
}
# Outbox rows whose claim is still running: after a SIGKILL, the rows the killed process had
# claimed (their lease runs PUSH_LEASE) plus any the other instance holds that moment.
claimed_rows() {
    sql "SELECT count(*) FROM push_outbox WHERE state = 'pending' AND claimed_until > (extract(epoch FROM clock_timestamp()) * 1000)::bigint" 2>/dev/null || echo "?"
}

start_fake
start_instance a a
start_instance b b
: >"$WORK/rss"
sample_rss &
SAMPLER=$!
BASE_A="http://127.0.0.1:${PORTS[a]}"
BASE_B="http://127.0.0.1:${PORTS[b]}"

# An event of $TICKETS tickets through the admin API; the phones' ApplePass tokens from the secret.
read -r EVENT PASS_TYPE < <(python3 bench/device_setup.py tickets "$BASE_A" "$ADMIN" "$TICKETS")
TOKEN_SECRET="$SECRET" "$BENCH" tokens --event "$EVENT" >"$WORK/tickets.tsv"

: >"$WORK/windows"
: >"$WORK/in-flight"

TRAFFIC_START=$(now_ms)
python3 bench/soak.py traffic --bases "$BASE_A,$BASE_B" --admin "$ADMIN" --event "$EVENT" --pass-type "$PASS_TYPE" \
    --tickets "$WORK/tickets.tsv" --duration "$DURATION" --out "$WORK/results.json" \
    --phones "${SOAK_PHONES:-150}" --rate "${SOAK_RATE:-40}" &
TRAFFIC=$!

at() { # sleeps until FRACTION of the duration after the traffic started
    local target=$(( TRAFFIC_START + $(awk -v f="$1" -v d="$DURATION" 'BEGIN { printf "%d", f * d * 1000 }') ))
    local left=$(( target - $(now_ms) ))
    [ "$left" -gt 0 ] && sleep "$(awk -v ms="$left" 'BEGIN { printf "%.3f", ms / 1000 }')"
    return 0
}
database_outage() {
    local start end
    start=$(now_ms)
    pg_ctl -m fast stop >/dev/null
    sleep 5
    pg_ctl -l "$(dirname "$PASS_SERVER_TEST_PG_DATA")/server.log" -w -t 60 start >/dev/null
    end=$(now_ms)
    echo "database $start $end" >>"$WORK/windows"
}

at 0.15; database_outage
at 0.30
start=$(now_ms)
kill -TERM "${PIDS[fake]}"; wait "${PIDS[fake]}" 2>/dev/null || true
sleep "$(awk -v d="$DURATION" 'BEGIN { s = d / 10; if (s > 60) s = 60; printf "%.1f", s }')"
start_fake
echo "apns $start $(now_ms)" >>"$WORK/windows"
at 0.50
echo "b $(now_ms) $(rss_kib "${PIDS[b]}")" >>"$WORK/rss"
start=$(now_ms)
kill -KILL "${PIDS[b]}"; wait "${PIDS[b]}" 2>/dev/null || true
# The rows B held stay claimed until their lease ends (30 s); the fewest seen over the 5 s B is
# down bounds the pushes it may have had in flight (docs/push.md, "Delivery guarantee").
fewest="?"
for _ in $(seq 10); do
    count=$(claimed_rows)
    if [ "$count" != "?" ] && { [ "$fewest" = "?" ] || [ "$count" -lt "$fewest" ]; }; then fewest=$count; fi
    sleep 0.5
done
echo "instance_b_kill $fewest" >>"$WORK/in-flight"
start_instance b "b'"
echo "instance-b-killed $start $(now_ms)" >>"$WORK/windows"
at 0.65; database_outage
wait "$TRAFFIC"

# Drain: every push enqueued must reach the fake APNs.
deadline=$(( $(date +%s) + DRAIN ))
while [ "$(date +%s)" -lt "$deadline" ]; do
    pending=$(sql "SELECT count(*) FROM push_outbox WHERE state = 'pending'" 2>/dev/null || echo "?")
    jobs=$(sql "SELECT count(*) FROM jobs WHERE state IN ('pending', 'running')" 2>/dev/null || echo "?")
    [ "$pending" = 0 ] && [ "$jobs" = 0 ] && break
    sleep 2
done
DRAINED_MS=$(( $(now_ms) - TRAFFIC_START ))
kill -TERM "$SAMPLER" 2>/dev/null; wait "$SAMPLER" 2>/dev/null || true; SAMPLER=
sql "SELECT device_library_identifier || chr(9) || serial_number FROM registrations" >"$WORK/registrations.tsv"
sql "SELECT id || chr(9) || COALESCE(finished_at::text, '') FROM jobs" >"$WORK/jobs.tsv"
failed_rows=$(sql "SELECT count(*) FROM push_outbox WHERE state = 'failed'")
sleep 1 # the last pushes' log lines

echo "## Soak run $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo
echo "Duration ${DURATION} s of traffic, then ${pending:-?} pushes and ${jobs:-?} jobs left after draining (stopped $(( DRAINED_MS / 1000 - DURATION )) s after the traffic); $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg). Failed outbox rows: $failed_rows."
echo
status=0
number_or_unknown() { case $1 in ''|*[!0-9]*) echo -1 ;; *) echo "$1" ;; esac; }
python3 bench/soak.py report --results "$WORK/results.json" --pushes "$WORK/pushes.log" --windows "$WORK/windows" \
    --registrations "$WORK/registrations.tsv" --rss "$WORK/rss" --jobs "$WORK/jobs.tsv" --in-flight "$WORK/in-flight" \
    --pending "$(number_or_unknown "${pending:-}")" --pending-jobs "$(number_or_unknown "${jobs:-}")" \
    --bundle-cache-bytes "$BUNDLE_CACHE" --out "$WORK/report.json" || status=$?
exit $status
