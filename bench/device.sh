#!/usr/bin/env bash
# Device API throughput: starts the release pass-server on a scratch PostgreSQL database with
# development certificates, issues tickets, registers devices, then measures with wrk
# (-t2 -c64 -d10s --latency, median of 3 runs):
#   GET /healthz (the baseline), GET /v1/passes/... for random serials (warm bundle cache),
#   POST registrations of random new devices, GET the changed-serial list with each device's tag.
# Prints Markdown rows with requests/s, p99 and the ratio to /healthz.
#
# Needs: .build/release/pass-server and pass-server-bench, PASS_SERVER_TEST_DATABASE_URL (scripts/with-postgres.sh),
#        wrk, psql, curl, python3, openssl.
# Env:   DEVICE_BENCH_TICKETS (1000) BUNDLE_CACHE_SIZE (400 KiB per ticket) WRK_THREADS (2) WRK_CONNECTIONS (64) WRK_DURATION (10s) BENCH_RUNS (3)
set -euo pipefail
cd "$(dirname "$0")/.."

binary="${PASS_SERVER_BINARY:-.build/release/pass-server}"
bench_binary="${PASS_SERVER_BENCH_BINARY:-.build/release/pass-server-bench}"
tickets="${DEVICE_BENCH_TICKETS:-1000}"
threads="${WRK_THREADS:-2}"
connections="${WRK_CONNECTIONS:-64}"
duration="${WRK_DURATION:-10s}"
runs="${BENCH_RUNS:-3}"

source "$(dirname "${BASH_SOURCE[0]}")/wrk-lib.sh"
wrk_live_server device

admin=$("$binary" token create --name bench --database-url "$database_url" 2>/dev/null)
# The pass benchmark measures a warm cache: size it to hold every bundle (about 165 KB each with
# the template's strip images) in its young generation.
export BUNDLE_CACHE_SIZE="${BUNDLE_CACHE_SIZE:-$((tickets * 400 * 1024))}"
wrk_serve device

echo "bench/device.sh: issuing $tickets tickets" >&2
read -r event pass_type < <(python3 bench/device_setup.py tickets "$base" "$admin" "$tickets")
"$bench_binary" tokens --event "$event" --database-url "$database_url" >"$work/tokens.tsv"
[ "$(wc -l <"$work/tokens.tsv")" -eq "$tickets" ] || { echo "bench/device.sh: pass-server-bench tokens printed the wrong number of lines" >&2; exit 1; }
echo "bench/device.sh: registering devices and warming the bundle cache" >&2
python3 bench/device_setup.py devices "$base" "$admin" "$pass_type" "$work/tokens.tsv" "$work/devices.tsv"
# Fresh statistics, as autovacuum leaves them within a minute of a bulk import: without them the
# planner guesses the tables are tiny and scans every pass for each serial-list request.
psql -q "$database_url" -c ANALYZE >/dev/null
export DEVICE_BENCH_TOKENS="$work/tokens.tsv" DEVICE_BENCH_DEVICES="$work/devices.tsv" DEVICE_BENCH_PASS_TYPE="$pass_type"

# to_ms and median.

# measure NAME [SCRIPT] URL: sets rps and p99 (medians over the runs).
measure() {
    local name="$1" script="$2" url="$3" run output value latency errors
    local rps_values=() p99_values=()
    for run in $(seq 1 "$runs"); do
        if [ -n "$script" ]; then
            output=$(wrk -t"$threads" -c"$connections" -d"$duration" --latency -s "$script" "$url")
        else
            output=$(wrk -t"$threads" -c"$connections" -d"$duration" --latency "$url")
        fi
        value=$(awk '/^Requests\/sec:/ { print $2 }' <<<"$output")
        latency=$(awk '$1 == "99%" { print $2 }' <<<"$output")
        errors=$(awk '/Non-2xx or 3xx responses:/ { print $NF }' <<<"$output")
        if [ -z "$value" ] || [ -z "$latency" ]; then
            echo "bench/device.sh: could not parse wrk output for $name:" >&2
            echo "$output" >&2
            exit 1
        fi
        [ -n "$errors" ] && echo "bench/device.sh: $name run $run had $errors non-2xx responses" >&2
        echo "bench/device.sh: $name run $run: $value req/s, p99 $latency" >&2
        rps_values+=("$value")
        p99_values+=("$(to_ms "$latency")")
    done
    rps=$(printf '%s\n' "${rps_values[@]}" | median)
    p99=$(printf '%s\n' "${p99_values[@]}" | median)
}

measure "GET /healthz" "" "$base/healthz"
health_rps=$rps
health_p99=$p99
echo "| endpoint ($tickets passes, PostgreSQL, wrk -t$threads -c$connections -d$duration, median of $runs) | requests/s | p99 | ratio to /healthz | goal |"
echo "|---|---:|---:|---:|---:|"
printf '| GET /healthz | %.0f | %.2f ms | 1.00 | |\n' "$health_rps" "$health_p99"
report() {
    printf '| %s | %.0f | %.2f ms | %.2f | %s |\n' "$1" "$rps" "$p99" "$(awk -v a="$rps" -v b="$health_rps" 'BEGIN { print a / b }')" "$2"
}
measure "GET pass" bench/device-pass.lua "$base"
report "GET /v1/passes/{type}/{serial} (random serial, warm cache)" "≥ 0.50"
measure "POST registration" bench/device-register.lua "$base"
report "POST /v1/devices/{new device}/registrations/... (201)" "≥ 0.25"
measure "GET serial list" bench/device-list.lua "$base"
report "GET /v1/devices/{device}/registrations/{type}?passesUpdatedSince={tag}" "≥ 0.25"
