#!/usr/bin/env bash
# The device API beside another pass web service, back to back in one run: the release
# pass-server (PostgreSQL, access log on, as in production) and a peer serving Apple's same
# endpoints, alternately, each scenario for WRK_DURATION with wrk -t$WRK_THREADS -c$WRK_CONNECTIONS,
# BENCH_ROUNDS rounds; then the medians and their ratios as Markdown. /healthz is measured the same
# way beside BASELINE_BINARY (another pass-server build, e.g. the previous release) when given.
#
# Scenarios: POST a registration of a new device (201), GET a pass (bundle cache warm), GET the
# changed-serial list of a registered device.
#
# Needs: .build/release/pass-server and pass-server-bench, PASS_SERVER_TEST_DATABASE_URL
#        (scripts/with-postgres.sh), wrk, psql, curl, python3, openssl.
# Env:   PEER_URL             the peer's base URL (without it, the peer is skipped and only ours is measured)
#        PEER_PASS_TYPE PEER_PASSES PEER_SERIAL_FORMAT PEER_TOKEN_FORMAT PEER_DEVICE_FORMAT PEER_SINCE
#                             how the peer was seeded (bench/peer-device.lua)
#        PEER_RESET_COMMAND   a shell command run before each of the peer's registration runs (removes
#                             the devices earlier runs registered, so every run starts alike)
#        PEER_PIDS            the peer's processes (with their children), for its CPU seconds
#        BASELINE_BINARY      another pass-server whose /healthz is measured beside ours
#        DEVICE_BENCH_DURABLE (1: our PostgreSQL commits as a default cluster does, fsync,
#                             synchronous_commit and full_page_writes on, as the peer's; 0: the test
#                             cluster's settings, all three off)
#        DEVICE_BENCH_TICKETS (1000) WRK_THREADS (2) WRK_CONNECTIONS (32) WRK_DURATION (15s) BENCH_ROUNDS (3)
set -euo pipefail
cd "$(dirname "$0")/.."

binary="${PASS_SERVER_BINARY:-.build/release/pass-server}"
bench_binary="${PASS_SERVER_BENCH_BINARY:-.build/release/pass-server-bench}"
baseline="${BASELINE_BINARY:-}"
tickets="${DEVICE_BENCH_TICKETS:-1000}"
threads="${WRK_THREADS:-2}"
connections="${WRK_CONNECTIONS:-32}"
duration="${WRK_DURATION:-15s}"
rounds="${BENCH_ROUNDS:-3}"
export PEER_PASS_TYPE="${PEER_PASS_TYPE:-pass.com.example.peerbench}" PEER_PASSES="${PEER_PASSES:-1000}"
export PEER_SERIAL_FORMAT="${PEER_SERIAL_FORMAT:-SN%06d}" PEER_TOKEN_FORMAT="${PEER_TOKEN_FORMAT:-tok%06d-peerbench-auth}"
export PEER_DEVICE_FORMAT="${PEER_DEVICE_FORMAT:-dev%06d}" PEER_SINCE="${PEER_SINCE:-2000-01-01T00:00:00Z}"
peer="${PEER_URL:-}"
peer="${peer%/}"

source "$(dirname "${BASH_SOURCE[0]}")/wrk-lib.sh"
wrk_live_server device-peer
# scripts/with-postgres.sh's cluster skips flushing its log to disk (fsync, synchronous_commit and
# full_page_writes off) to keep the test suite fast; a peer on a default cluster waits for every
# commit's flush. For a fair comparison our cluster commits as the default does, unless told not to.
durable="${DEVICE_BENCH_DURABLE:-1}"
if [ "$durable" = 1 ]; then
    psql -q "$PASS_SERVER_TEST_DATABASE_URL" -c "ALTER SYSTEM SET fsync = on" -c "ALTER SYSTEM SET synchronous_commit = on" \
        -c "ALTER SYSTEM SET full_page_writes = on" -c "SELECT pg_reload_conf()" >/dev/null
fi
baseline_pid=""
cleanup() {
    if [ -n "$baseline_pid" ]; then kill -TERM "$baseline_pid" 2>/dev/null || true; wait "$baseline_pid" 2>/dev/null || true; fi
    wrk_live_server_cleanup
}
trap cleanup EXIT

if [ -n "$peer" ] && ! curl -s -o /dev/null "$peer/v1/passes/$PEER_PASS_TYPE/$(printf "$PEER_SERIAL_FORMAT" 0)"; then
    echo "bench/device-peer.sh: the peer at $peer does not answer" >&2
    exit 1
fi
[ -n "$baseline" ] && [ ! -x "$baseline" ] && { echo "bench/device-peer.sh: $baseline is not executable" >&2; exit 1; }

# serve BINARY PORT DATABASE_URL LOG: a server with its access log (info level) written to LOG.
serve() {
    "$1" serve --development --database-url "$3" --http-port "$2" --log-level info --passes-dir Passes >"$work/$4.out" 2>"$work/$4.log" &
    echo $!
}
wait_healthy() {
    for _ in $(seq 1 300); do
        curl -fsS -o /dev/null "$1/healthz" 2>/dev/null && return 0
        sleep 0.2
    done
    echo "bench/device-peer.sh: $1 did not answer /healthz" >&2
    exit 1
}

admin=$("$binary" token create --name bench --database-url "$database_url" 2>/dev/null)
export BUNDLE_CACHE_SIZE="${BUNDLE_CACHE_SIZE:-$((tickets * 400 * 1024))}"
server_pid=$(serve "$binary" "$port" "$database_url" ours)
wait_healthy "$base"
if [ -n "$baseline" ]; then
    baseline_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
    baseline_pid=$(serve "$baseline" "$baseline_port" "sqlite://$work/baseline.db" baseline)
    wait_healthy "http://127.0.0.1:$baseline_port"
fi

echo "bench/device-peer.sh: issuing $tickets tickets" >&2
read -r event pass_type < <(python3 bench/device_setup.py tickets "$base" "$admin" "$tickets")
"$bench_binary" tokens --event "$event" --database-url "$database_url" >"$work/tokens.tsv"
python3 bench/device_setup.py devices "$base" "$admin" "$pass_type" "$work/tokens.tsv" "$work/devices.tsv"
psql -q "$database_url" -c ANALYZE >/dev/null
export DEVICE_BENCH_TOKENS="$work/tokens.tsv" DEVICE_BENCH_DEVICES="$work/devices.tsv" DEVICE_BENCH_PASS_TYPE="$pass_type"

# CPU ticks of the processes PIDS and their descendants.
cpu_ticks() {
    local all="" pid
    for pid in "$@"; do all="$all $pid $(pgrep -d ' ' -P "$pid" 2>/dev/null || true)"; done
    # shellcheck disable=SC2086
    for pid in $all; do cat "/proc/$pid/stat" 2>/dev/null; done | awk '{ sum += $14 + $15 } END { print sum + 0 }'
}
hz=$(getconf CLK_TCK)

# run NAME PIDS URL [SCRIPT [SCENARIO]]: one wrk run; appends "NAME rps cpu_seconds load" to $work/runs.
run() {
    local name="$1" pids="$2" url="$3" script="${4:-}" output rps errors before after load
    load=$(cut -d' ' -f1 /proc/loadavg)
    # shellcheck disable=SC2086
    before=$(cpu_ticks $pids)
    if [ -n "$script" ]; then
        output=$(PEER_SCENARIO="${5:-}" wrk -t"$threads" -c"$connections" -d"$duration" -s "$script" "$url")
    else
        output=$(wrk -t"$threads" -c"$connections" -d"$duration" "$url")
    fi
    # shellcheck disable=SC2086
    after=$(cpu_ticks $pids)
    rps=$(awk '/^Requests\/sec:/ { print $2 }' <<<"$output")
    [ -n "$rps" ] || { echo "bench/device-peer.sh: no wrk result for $name:" >&2; echo "$output" >&2; exit 1; }
    errors=$(awk '/Non-2xx or 3xx responses:/ { print $NF }' <<<"$output")
    [ -n "$errors" ] && echo "bench/device-peer.sh: $name had $errors non-2xx responses" >&2
    echo "bench/device-peer.sh: $name: $rps req/s (load $load)" >&2
    echo "$name $rps $(awk -v t=$((after - before)) -v hz="$hz" 'BEGIN { printf "%.1f", t / hz }') $load" >>"$work/runs"
}

peer_pids="${PEER_PIDS:-}"
for round in $(seq 1 "$rounds"); do
    echo "bench/device-peer.sh: round $round of $rounds" >&2
    run healthz-ours "$server_pid" "$base/healthz"
    [ -n "$baseline" ] && run healthz-baseline "$baseline_pid" "http://127.0.0.1:$baseline_port/healthz"
    for scenario in register pass list; do
        run "$scenario-ours" "$server_pid" "$base" "bench/device-$scenario.lua"
        if [ -n "$peer" ]; then
            [ "$scenario" = register ] && [ -n "${PEER_RESET_COMMAND:-}" ] && bash -c "$PEER_RESET_COMMAND" >/dev/null
            run "$scenario-peer" "$peer_pids" "$peer" bench/peer-device.lua "$scenario"
        fi
    done
done

# column NAME FIELD: the median of a field (2: requests/s, 3: CPU seconds, 4: load) over NAME's runs.
column() { awk -v n="$1" -v f="$2" '$1 == n { print $f }' "$work/runs" | median; }
all_runs() { awk -v n="$1" '$1 == n { printf "%s%.0f", sep, $2; sep = ", " }' "$work/runs"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f×", a / b; else print "–" }'; }
per_cpu() { awk -v r="$1" -v c="$2" -v d="${duration%s}" 'BEGIN { if (c > 0) printf "%.0f", r * d / c; else print "–" }'; }

echo "Device API beside ${peer:-no peer (PEER_URL not set)}: our PostgreSQL $([ "$durable" = 1 ] && echo "durable (fsync, synchronous_commit, full_page_writes on)" || echo "not durable (fsync, synchronous_commit, full_page_writes off)"); $tickets passes, wrk -t$threads -c$connections -d$duration, median of $rounds rounds alternating; load average $(awk '{ print $4 }' "$work/runs" | sort -g | head -1)–$(awk '{ print $4 }' "$work/runs" | sort -g | tail -1) (median $(awk '{ print $4 }' "$work/runs" | median)) at the runs' starts, $(nproc) cores."
echo
echo "| endpoint | ours (req/s) | runs | requests per CPU-second of ours | peer (req/s) | runs | ratio |"
echo "|---|---:|---|---:|---:|---|---:|"
for scenario in register pass list; do
    ours=$(column "$scenario-ours" 2)
    if [ -n "$peer" ]; then
        theirs=$(column "$scenario-peer" 2)
        printf '| %s | %.0f | %s | %s | %.0f | %s | %s |\n' "$scenario" "$ours" "$(all_runs "$scenario-ours")" "$(per_cpu "$ours" "$(column "$scenario-ours" 3)")" \
            "$theirs" "$(all_runs "$scenario-peer")" "$(ratio "$ours" "$theirs")"
    else
        printf '| %s | %.0f | %s | %s | – | – | – |\n' "$scenario" "$ours" "$(all_runs "$scenario-ours")" "$(per_cpu "$ours" "$(column "$scenario-ours" 3)")"
    fi
done
ours=$(column healthz-ours 2)
if [ -n "$baseline" ]; then
    theirs=$(column healthz-baseline 2)
    printf '| /healthz (access log on) | %.0f | %s | %s | baseline %.0f | %s | %s |\n' "$ours" "$(all_runs healthz-ours)" \
        "$(per_cpu "$ours" "$(column healthz-ours 3)")" "$theirs" "$(all_runs healthz-baseline)" "$(ratio "$ours" "$theirs")"
else
    printf '| /healthz (access log on) | %.0f | %s | %s | – | – | – |\n' "$ours" "$(all_runs healthz-ours)" "$(per_cpu "$ours" "$(column healthz-ours 3)")"
fi
