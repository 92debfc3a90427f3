# Sourced by the benchmarks that run the release pass-server (against a fake APNs, with the
# development certificates of `pass-server certs dev --dir CERTS`, or logging pushes).

PASS_TYPE=pass.dev.passserver.event

# A free TCP port on 127.0.0.1.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

# scratch_database NAME: creates database NAME next to PASS_SERVER_TEST_DATABASE_URL and prints its URL.
scratch_database() {
    psql -q "$PASS_SERVER_TEST_DATABASE_URL" -c "CREATE DATABASE $1" >/dev/null
    python3 -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/" + sys.argv[2])))' \
        "$PASS_SERVER_TEST_DATABASE_URL" "$1"
}

# start_live_server SERVER DATABASE_URL HTTP_PORT APNS_PORT CERTS LOG [NAME=VALUE...]: starts `serve`
# in the background pushing to https://127.0.0.1:APNS_PORT (APNS_PORT `log`: pushes are only
# logged), with any further settings given, sets SERVER_PID and waits for /healthz.
start_live_server() {
    local server="$1" database_url="$2" http_port="$3" apns_port="$4" certs="$5" log="$6" apns
    shift 6
    if [ "$apns_port" = log ]; then
        apns=(APNS_MODE=log)
    else
        apns=(APNS_URL="https://127.0.0.1:$apns_port" APNS_CA_FILE="$certs/root-ca.pem")
    fi
    env DATABASE_URL="$database_url" HTTP_PORT="$http_port" PUBLIC_URL="https://passes.example.test" ORGANIZATION_NAME="Bench Events" \
        TOKEN_SECRET="$(openssl rand -hex 32)" PASS_CERTIFICATE="$certs/pass-certificate.pem" \
        PASS_PRIVATE_KEY="$certs/pass-key.pem" WWDR_CERTIFICATE="$certs/wwdr.pem" \
        "${apns[@]}" LOG_LEVEL=warning "$@" \
        "$server" serve > "$log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 200); do curl -sf "http://127.0.0.1:$http_port/healthz" >/dev/null && break; sleep 0.1; done
}

# scratch_bench NAME: what every benchmark on a live server shares. Checks that SERVER is built,
# makes WORK, a migrated scratch database NAME_<pid> (DATABASE_URL, `sql`) and the development
# certificates in WORK/certs. Everything is stopped and removed on exit (also the server started
# by start_live_server and the fake APNs of scratch_event_bench).
scratch_bench() {
    : "${PASS_SERVER_TEST_DATABASE_URL:?run inside scripts/with-postgres.sh}"
    [ -x "$SERVER" ] || { echo "missing $SERVER: run swift build -c release first" >&2; exit 1; }
    WORK=$(mktemp -d)
    DB="$1_$$"
    FAKE_PID=
    SERVER_PID=
    trap scratch_cleanup EXIT
    DATABASE_URL=$(scratch_database "$DB")
    "$SERVER" certs dev --dir "$WORK/certs" >/dev/null
    DATABASE_URL="$DATABASE_URL" "$SERVER" migrate >/dev/null
}

# scratch_event_bench NAME: scratch_bench, and FAKE (checked to be built) started on the
# development certificates (FAKE_PID, FAKE_PORT). What the event benchmarks (repush, reach) share.
scratch_event_bench() {
    [ -x "$FAKE" ] || { echo "missing $FAKE: run swift build -c release first" >&2; exit 1; }
    scratch_bench "$1"
    "$FAKE" --cert "$WORK/certs/server-certificate.pem" --key "$WORK/certs/server-key.pem" --no-client-auth --print-port \
        --log-level warning > "$WORK/fake-port" &
    FAKE_PID=$!
    for _ in $(seq 100); do [ -s "$WORK/fake-port" ] && break; sleep 0.1; done
    FAKE_PORT=$(head -n1 "$WORK/fake-port")
}

scratch_cleanup() {
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
    [ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null
    psql -q "$PASS_SERVER_TEST_DATABASE_URL" -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1 || true
    rm -rf "$WORK"
}

# One statement on the scratch database, unaligned output.
sql() { psql -qtA "$DATABASE_URL" -c "$1"; }

# seed_bench_event N: one event `bench-event`, N passes of PASS_TYPE (attendee, e-mail, seat), N
# devices with distinct push tokens and one registration each, written with generate_series (the
# schema of Sources/Storage/Migrations; the registration trigger fills in what reach counts by).
# Sets seed_seconds.
seed_bench_event() {
    local tickets="$1" start
    start=$(date +%s.%N)
    psql -q "$DATABASE_URL" >/dev/null <<SQL
BEGIN;
INSERT INTO events (id, name, venue, starts_at, ends_at, time_zone, template, revision, created_at, updated_at)
VALUES ('bench-event', 'Bench Night', 'Hall A', 1800000000000, NULL, 'UTC', 'event-ticket', 1, 0, 0);
INSERT INTO passes (pass_type_identifier, serial_number, authentication_token_hash, download_token_hash, event_id,
    attendee_name, attendee_email, seat, revision, modified_at, created_at)
SELECT '$PASS_TYPE', 'S' || i, sha256(('a' || i)::bytea), sha256(('d' || i)::bytea), 'bench-event',
    'Attendee ' || i, 'guest' || i || '@example.com', 'R' || (i % 40) || '-' || (i % 30), 1, 1700000000, 0
FROM generate_series(1, $tickets) AS i;
INSERT INTO devices (device_library_identifier, push_token, updated_at)
SELECT 'device' || i, lpad(to_hex(i), 64, '0'), 0 FROM generate_series(1, $tickets) AS i;
INSERT INTO registrations (device_library_identifier, pass_type_identifier, serial_number, created_at, updated_at)
SELECT 'device' || i, '$PASS_TYPE', 'S' || i, 0, 0 FROM generate_series(1, $tickets) AS i;
UPDATE counters SET value = 1 WHERE name = 'revision';
COMMIT;
VACUUM ANALYZE;
SQL
    seed_seconds=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
}

# cpu_snapshot PID...: "pid/tid name ticks" lines for every thread of the given processes and their
# children (PostgreSQL backends are children of the postmaster), for cpu_report.
cpu_snapshot() {
    local pid child
    for pid in "$@"; do
        [ -n "$pid" ] || continue
        for child in $pid $(pgrep -P "$pid" 2>/dev/null); do
            for task in /proc/"$child"/task/*; do
                [ -r "$task/stat" ] || continue
                # utime and stime are fields 14 and 15, counted after the ")" that ends the name.
                awk -v id="$child/${task##*/}" -v name="$(cat "$task/comm" 2>/dev/null | tr ' ' '_')" \
                    '{ sub(/^.*\) /, ""); print id, name, $12 + $13 }' "$task/stat" 2>/dev/null
            done
        done
    done
}

# cpu_report BEFORE AFTER LABEL: CPU seconds used between two cpu_snapshot files, by thread name.
cpu_report() {
    python3 - "$1" "$2" "$3" "$(getconf CLK_TCK)" <<'PY'
import collections, sys
def load(path):
    rows = {}
    for line in open(path):
        parts = line.split()
        if len(parts) == 3: rows[parts[0]] = (parts[1], int(parts[2]))
    return rows
before, after, label, hz = load(sys.argv[1]), load(sys.argv[2]), sys.argv[3], float(sys.argv[4])
by_name = collections.Counter()
for key, (name, ticks) in after.items():
    by_name[name] += (ticks - before.get(key, (name, 0))[1]) / hz
total = sum(by_name.values())
print(f"{label}: {total:.1f} s CPU (" + ", ".join(f"{name} {seconds:.1f}" for name, seconds in by_name.most_common(6) if seconds >= 0.05) + ")")
PY
}
