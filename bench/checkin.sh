#!/usr/bin/env bash
# Check-in throughput against registrations in the same run: starts the release pass-server on a
# scratch PostgreSQL database with development certificates (pushes logged), issues
# CHECKIN_BENCH_TICKETS tickets each with one registered phone, then, BENCH_RUNS times:
#   - POST registrations of random new devices (bench/device-register.lua, as many other tickets)
#     for WRK_DURATION with CHECKIN_BENCH_SCANNERS connections: registrations/s;
#   - every ticket checked in once by CHECKIN_BENCH_SCANNERS concurrent scanners, each request a
#     signed code (bench/checkin.lua): check-ins/s = tickets / the time from the first check-in
#     the server recorded to the last (checkins.recorded_at; wrk waits out CHECKIN_BENCH_LIMIT);
#   - the check-ins are reset (SQL) for the next run.
# A check-in is one verified code, one insert and one pass change with its push. Prints a Markdown
# table with the medians and the median of the per-run ratios (goal ≥ 0.5).
#
# Needs: .build/release/pass-server and pass-server-bench, PASS_SERVER_TEST_DATABASE_URL (scripts/with-postgres.sh),
#        wrk, psql, curl, python3, openssl.
# Env:   CHECKIN_BENCH_TICKETS (10000) CHECKIN_BENCH_SCANNERS (16) CHECKIN_BENCH_LIMIT (40s) WRK_THREADS (2)
#        WRK_DURATION (10s) BENCH_RUNS (3)
set -euo pipefail
cd "$(dirname "$0")/.."

binary="${PASS_SERVER_BINARY:-.build/release/pass-server}"
bench_binary="${PASS_SERVER_BENCH_BINARY:-.build/release/pass-server-bench}"
tickets="${CHECKIN_BENCH_TICKETS:-10000}"
scanners="${CHECKIN_BENCH_SCANNERS:-16}"
threads="${WRK_THREADS:-2}"
duration="${WRK_DURATION:-10s}"
runs="${BENCH_RUNS:-3}"

source "$(dirname "${BASH_SOURCE[0]}")/wrk-lib.sh"
wrk_live_server checkin

admin=$("$binary" token create --name bench --database-url "$database_url" 2>/dev/null)
scanner=$("$binary" token create --name bench-scanner --role scanner --database-url "$database_url" 2>/dev/null)
wrk_serve checkin

# issue COUNT NAME: an event with COUNT tickets imported in one request; prints the event id.
issue() {
    local count="$1" name="$2" event
    event=$(curl -fsS "$base/admin/v1/events" -H "Authorization: Bearer $admin" -H 'Content-Type: application/json' \
        -d "{\"name\":\"$name\",\"venue\":\"Loopback Hall\",\"startsAt\":\"2030-03-01T19:00:00+09:00\",\"timeZone\":\"Asia/Tokyo\"}" |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
    python3 -c 'import json, sys; print(json.dumps([{"attendeeName": f"Guest {i}", "seat": f"R{i // 40}-{i % 40}"} for i in range(int(sys.argv[1]))]))' \
        "$count" >"$work/attendees.json"
    curl -fsS -o /dev/null "$base/admin/v1/events/$event/tickets:batch" -H "Authorization: Bearer $admin" \
        -H 'Content-Type: application/json' --data-binary @"$work/attendees.json"
    echo "$event"
}

echo "bench/checkin.sh: issuing $tickets tickets, registering one phone for each" >&2
event=$(issue "$tickets" "Check-in Night")
# Registrations go to tickets of their own, as many, so no pass reaches MAX_DEVICES_PER_PASS (a
# registration past it replaces the oldest, a slower path) and the check-in tickets keep one phone.
register_event=$(issue "$tickets" "Registration Night")
"$bench_binary" tokens --event "$event" --database-url "$database_url" >"$work/tokens.tsv"
"$bench_binary" tokens --event "$event" --codes --database-url "$database_url" >"$work/codes.tsv"
"$bench_binary" tokens --event "$register_event" --database-url "$database_url" >"$work/register-tokens.tsv"
[ "$(wc -l <"$work/codes.tsv")" -eq "$tickets" ] || { echo "bench/checkin.sh: pass-server-bench tokens printed the wrong number of lines" >&2; exit 1; }
pass_type=$(curl -fsS "$base/admin/v1/events/$event/tickets?limit=1" -H "Authorization: Bearer $admin" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["tickets"][0]["passTypeIdentifier"])')
python3 - "$base" "$pass_type" "$work/tokens.tsv" <<'PY'
import http.client, secrets, sys, urllib.parse
base, pass_type, tokens = sys.argv[1], sys.argv[2], sys.argv[3]
url = urllib.parse.urlsplit(base)
connection = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
for line in open(tokens):
    serial, token = line.rstrip("\n").split("\t")
    body = '{"pushToken":"%s"}' % secrets.token_hex(32)
    connection.request("POST", f"/v1/devices/{secrets.token_hex(16)}/registrations/{pass_type}/{serial}", body=body,
                       headers={"Authorization": f"ApplePass {token}", "Content-Type": "application/json"})
    response = connection.getresponse()
    response.read()
    if response.status != 201:
        sys.exit(f"bench/checkin.sh: registration answered {response.status}")
PY
psql -q "$database_url" -c ANALYZE >/dev/null

export DEVICE_BENCH_TOKENS="$work/register-tokens.tsv" DEVICE_BENCH_PASS_TYPE="$pass_type"
export CHECKIN_BENCH_CODES="$work/codes.tsv" CHECKIN_BENCH_TOKEN="$scanner" CHECKIN_BENCH_THREADS="$threads"

registration_values=() checkin_values=() ratio_values=() p99_values=()
for run in $(seq 1 "$runs"); do
    output=$(wrk -t"$threads" -c"$scanners" -d"$duration" -s bench/device-register.lua "$base")
    registrations=$(awk '/^Requests\/sec:/ { print $2 }' <<<"$output")
    [ -n "$registrations" ] || { echo "bench/checkin.sh: could not parse wrk output:" >&2; echo "$output" >&2; exit 1; }

    output=$(wrk -t"$threads" -c"$scanners" -d"${CHECKIN_BENCH_LIMIT:-40s}" --latency -s bench/checkin.lua "$base")
    latency=$(awk '$1 == "99%" { print $2 }' <<<"$output")
    IFS='|' read -r checked elapsed < <(psql -tA "$database_url" -c "
        SELECT count(*), (max(c.recorded_at) - min(c.recorded_at)) / 1000.0 FROM checkins c JOIN passes p ON p.id = c.pass_id
        WHERE p.event_id = '$event' AND p.checked_in_at IS NOT NULL")
    if [ "$checked" -ne "$tickets" ] || [ -z "$elapsed" ]; then
        echo "bench/checkin.sh: run $run checked in $checked of $tickets tickets:" >&2
        echo "$output" >&2
        exit 1
    fi
    checkins=$(awk -v n="$tickets" -v s="$elapsed" 'BEGIN { printf "%.1f", n / s }')
    ratio=$(awk -v a="$checkins" -v b="$registrations" 'BEGIN { printf "%.3f", a / b }')
    echo "bench/checkin.sh: run $run: $registrations registrations/s, $checkins check-ins/s ($tickets in ${elapsed}s, p99 $latency), ratio $ratio" >&2
    registration_values+=("$registrations") checkin_values+=("$checkins") ratio_values+=("$ratio") p99_values+=("$(to_ms "$latency")")

    # The next run checks the same tickets in again.
    psql -q "$database_url" -c "DELETE FROM checkins; UPDATE passes SET checked_in_at = NULL WHERE checked_in_at IS NOT NULL" >/dev/null
done

registrations=$(printf '%s\n' "${registration_values[@]}" | median)
checkins=$(printf '%s\n' "${checkin_values[@]}" | median)
ratio=$(printf '%s\n' "${ratio_values[@]}" | median)
p99=$(printf '%s\n' "${p99_values[@]}" | median)
echo "| PostgreSQL, $scanners connections (wrk -t$threads), median of $runs | per second | p99 | check-ins / registrations | goal |"
echo "|---|---:|---:|---:|---:|"
printf '| POST /v1/devices/{new device}/registrations/... (201, %s) | %.0f | | | |\n' "$duration" "$registrations"
printf '| POST /admin/v1/checkins (%s distinct tickets, each with a phone) | %.0f | %.2f ms | %.2f | ≥ 0.50 |\n' "$tickets" "$checkins" "$p99" "$ratio"
