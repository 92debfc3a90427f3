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
#        DEVICE_BENCH_SCENARIOS which to measure, of: healthz register pass list (all four)
#        DEVICE_BENCH_STATEMENTS (1: restarts our cluster once with pg_stat_statements, tracking the
#                             statements inside triggers too, and prints the statements of the runs
#                             by total time to stderr at the end; 0)
#        DEVICE_BENCH_IF_MODIFIED_SINCE (bench/device-pass.lua: "now" makes every fetch a 304)
#        DEVICE_BENCH_TICKETS (1000) WRK_THREADS (2) WRK_CONNECTIONS (32) WRK_DURATION (15s) BENCH_ROUNDS (3)
# Prints beside our requests per CPU-second of the server the CPU milliseconds our PostgreSQL
# cluster spent per request (the postmaster and its processes, exited backends included).
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
scenarios=" ${DEVICE_BENCH_SCENARIOS:-healthz register pass list} "
statements="${DEVICE_BENCH_STATEMENTS:-0}"
export PEER_PASS_TYPE="${PEER_PASS_TYPE:-pass.com.example.peerbench}" PEER_PASSES="${PEER_PASSES:-1000}"
export PEER_SERIAL_FORMAT="${PEER_SERIAL_FORMAT:-SN%06d}" PEER_TOKEN_FORMAT="${PEER_TOKEN_FORMAT:-tok%06d-peerbench-auth}"
export PEER_DEVICE_FORMAT="${PEER_DEVICE_FORMAT:-dev%06d}" PEER_SINCE="${PEER_SINCE:-2000-01-01T00:00:00Z}"
peer="${PEER_URL:-}"
peer="${peer%/}"

source "$(dirname "${BASH_SOURCE[0]}")/wrk-lib.sh"
wrk_live_server device-peer
# A peer on a default cluster waits for every commit's flush: for a fair comparison our cluster
# commits as the default does, unless told not to.
durable="${DEVICE_BENCH_DURABLE:-1}"
[ "$durable" = 1 ] && cluster_commits_durably
if [ "$statements" = 1 ]; then
    # pg_stat_statements must be loaded when the cluster starts.
    : "${PASS_SERVER_TEST_PG_CTL:?DEVICE_BENCH_STATEMENTS needs scripts/with-postgres.sh}"
    psql -q "$PASS_SERVER_TEST_DATABASE_URL" -c "ALTER SYSTEM SET shared_preload_libraries = pg_stat_statements, auto_explain" >/dev/null
    as_cluster_owner() { if [ "$(id -un)" = "$PASS_SERVER_TEST_PG_OWNER" ]; then "$@"; else runuser -u "$PASS_SERVER_TEST_PG_OWNER" -- "$@"; fi; }
    cluster_log="$(dirname "$PASS_SERVER_TEST_PG_DATA")/server.log"
    as_cluster_owner "$PASS_SERVER_TEST_PG_CTL" -D "$PASS_SERVER_TEST_PG_DATA" -l "$cluster_log" -w -t 60 restart >/dev/null
    # Known once the library is loaded.
    # auto_explain logs the plans of one statement in 2,000 (those inside triggers too) with their
    # timings and buffers, to the cluster's log (printed at the end).
    psql -q "$PASS_SERVER_TEST_DATABASE_URL" -c "ALTER SYSTEM SET pg_stat_statements.track = 'all'" -c "ALTER SYSTEM SET pg_stat_statements.track_planning = on" \
        -c "ALTER SYSTEM SET auto_explain.log_min_duration = 0" -c "ALTER SYSTEM SET auto_explain.log_analyze = on" \
        -c "ALTER SYSTEM SET auto_explain.log_buffers = on" -c "ALTER SYSTEM SET auto_explain.log_nested_statements = on" \
        -c "ALTER SYSTEM SET auto_explain.sample_rate = 0.0005" -c "SELECT pg_reload_conf()" >/dev/null
    cluster_log_start=$(wc -c <"$cluster_log")
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

# run NAME PIDS URL [SCRIPT [SCENARIO]]: one wrk run; appends "NAME rps cpu_seconds load
# cluster_ms_per_request" to $work/runs (the last only for ours).
run() {
    local name="$1" pids="$2" url="$3" script="${4:-}" output rps errors before after load cluster_before cluster_after requests
    load=$(cut -d' ' -f1 /proc/loadavg)
    # shellcheck disable=SC2086
    before=$(cpu_ticks $pids)
    cluster_before=$(cluster_ticks)
    if [ -n "$script" ]; then
        output=$(PEER_SCENARIO="${5:-}" wrk -t"$threads" -c"$connections" -d"$duration" -s "$script" "$url")
    else
        output=$(wrk -t"$threads" -c"$connections" -d"$duration" "$url")
    fi
    # shellcheck disable=SC2086
    after=$(cpu_ticks $pids)
    cluster_after=$(cluster_ticks)
    rps=$(awk '/^Requests\/sec:/ { print $2 }' <<<"$output")
    requests=$(awk '/requests in/ { print $1 }' <<<"$output")
    [ -n "$rps" ] || { echo "bench/device-peer.sh: no wrk result for $name:" >&2; echo "$output" >&2; exit 1; }
    errors=$(awk '/Non-2xx or 3xx responses:/ { print $NF }' <<<"$output")
    [ -n "$errors" ] && echo "bench/device-peer.sh: $name had $errors non-2xx responses" >&2
    local cluster_ms
    cluster_ms=$(awk -v t=$((cluster_after - cluster_before)) -v hz="$hz" -v n="${requests:-0}" 'BEGIN { if (n > 0) printf "%.3f", t * 1000 / hz / n; else print 0 }')
    # Our cluster's CPU says nothing of the peer's runs (the peer has a PostgreSQL of its own).
    if [[ "$name" == *-ours ]]; then
        echo "bench/device-peer.sh: $name: $rps req/s, PostgreSQL $cluster_ms CPU ms a request (load $load)" >&2
    else
        echo "bench/device-peer.sh: $name: $rps req/s (load $load)" >&2
    fi
    echo "$name $rps $(awk -v t=$((after - before)) -v hz="$hz" 'BEGIN { printf "%.1f", t / hz }') $load $cluster_ms" >>"$work/runs"
}

peer_pids="${PEER_PIDS:-}"
[ "$statements" = 1 ] && psql -q "$database_url" -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" -c "SELECT pg_stat_statements_reset()" >/dev/null
for round in $(seq 1 "$rounds"); do
    echo "bench/device-peer.sh: round $round of $rounds" >&2
    if [[ "$scenarios" == *" healthz "* ]]; then
        run healthz-ours "$server_pid" "$base/healthz"
        [ -n "$baseline" ] && run healthz-baseline "$baseline_pid" "http://127.0.0.1:$baseline_port/healthz"
    fi
    for scenario in register pass list; do
        [[ "$scenarios" == *" $scenario "* ]] || continue
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
echo "| endpoint | ours (req/s) | runs | requests per CPU-second of ours | PostgreSQL CPU ms a request (median) | runs | peer (req/s) | runs | ratio |"
echo "|---|---:|---|---:|---:|---|---:|---|---:|"
for scenario in register pass list; do
    [[ "$scenarios" == *" $scenario "* ]] || continue
    ours=$(column "$scenario-ours" 2)
    cluster="$(column "$scenario-ours" 5) | $(awk -v n="$scenario-ours" '$1 == n { printf "%s%s", sep, $5; sep = ", " }' "$work/runs")"
    if [ -n "$peer" ]; then
        theirs=$(column "$scenario-peer" 2)
        printf '| %s | %.0f | %s | %s | %s | %.0f | %s | %s |\n' "$scenario" "$ours" "$(all_runs "$scenario-ours")" "$(per_cpu "$ours" "$(column "$scenario-ours" 3)")" \
            "$cluster" "$theirs" "$(all_runs "$scenario-peer")" "$(ratio "$ours" "$theirs")"
    else
        printf '| %s | %.0f | %s | %s | %s | – | – | – |\n' "$scenario" "$ours" "$(all_runs "$scenario-ours")" "$(per_cpu "$ours" "$(column "$scenario-ours" 3)")" "$cluster"
    fi
done
if [[ "$scenarios" == *" healthz "* ]]; then
    ours=$(column healthz-ours 2)
    if [ -n "$baseline" ]; then
        theirs=$(column healthz-baseline 2)
        printf '| /healthz (access log on) | %.0f | %s | %s | – | – | baseline %.0f | %s | %s |\n' "$ours" "$(all_runs healthz-ours)" \
            "$(per_cpu "$ours" "$(column healthz-ours 3)")" "$theirs" "$(all_runs healthz-baseline)" "$(ratio "$ours" "$theirs")"
    else
        printf '| /healthz (access log on) | %.0f | %s | %s | – | – | – | – | – |\n' "$ours" "$(all_runs healthz-ours)" "$(per_cpu "$ours" "$(column healthz-ours 3)")"
    fi
fi
if [ "$statements" = 1 ]; then
    # The statements of the runs by total time (those inside triggers and functions included), and
    # the tables' writes.
    psql -q "$database_url" -P pager=off >&2 <<'SQL'
SELECT calls, round(total_exec_time::numeric, 1) AS total_ms, round((total_exec_time / greatest(calls, 1))::numeric, 4) AS ms_a_call,
       plans, round((total_plan_time / greatest(plans, 1))::numeric, 4) AS plan_ms_a_plan,
       rows, shared_blks_hit AS hits, left(regexp_replace(query, '\s+', ' ', 'g'), 160) AS statement
FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
ORDER BY total_exec_time DESC LIMIT 30;
SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_tup_del FROM pg_stat_user_tables
WHERE n_tup_upd + n_tup_ins + n_tup_del > 0 ORDER BY relname;
SELECT relname, indexrelname, idx_scan FROM pg_stat_user_indexes WHERE relname IN ('registrations', 'devices', 'event_devices', 'event_tally_changes', 'passes') ORDER BY 1, 2;
SQL
    echo "bench/device-peer.sh: plans sampled by auto_explain:" >&2
    tail -c +"$((cluster_log_start + 1))" "$cluster_log" | grep -v '^\s*$' | head -n 2000 >&2 || true
fi
