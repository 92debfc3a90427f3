# Sourced by the wrk-based benchmark scripts: unit conversion, medians, and a live server to measure.

# wrk prints latencies as e.g. 812.00us, 1.25ms or 1.02s; convert to milliseconds.
to_ms() {
    awk -v v="$1" 'BEGIN {
        if (v ~ /us$/) { sub(/us$/, "", v); printf "%.3f", v / 1000 }
        else if (v ~ /ms$/) { sub(/ms$/, "", v); printf "%.3f", v }
        else if (v ~ /s$/) { sub(/s$/, "", v); printf "%.3f", v * 1000 }
        else { printf "%.3f", v }
    }'
}

# The median of the numbers on standard input, one per line.
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# wrk_live_server NAME: what the wrk benchmarks of a live server share. Checks that $binary and
# the tools are there, makes a scratch database ($database_url), picks a port ($port, $base) and a
# work directory ($work), sets one TOKEN_SECRET for the server and for `pass-server-bench tokens`
# (so both derive the same tokens and codes), and stops the server ($server_pid) and drops the
# database on exit. NAME names the database and the messages.
wrk_live_server() {
    local name="$1" tool
    [ -x "$binary" ] || { echo "bench/$name.sh: $binary missing (swift build -c release)" >&2; exit 1; }
    : "${PASS_SERVER_TEST_DATABASE_URL:?bench/$name.sh: run inside scripts/with-postgres.sh}"
    for tool in wrk psql curl python3 openssl; do
        command -v "$tool" >/dev/null || { echo "bench/$name.sh: $tool is not installed" >&2; exit 1; }
    done
    database="bench_${name//-/_}_$(date +%s)_$$"
    psql -q "$PASS_SERVER_TEST_DATABASE_URL" -c "CREATE DATABASE $database" >/dev/null
    database_url="${PASS_SERVER_TEST_DATABASE_URL%/*}/$database"
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
    base="http://127.0.0.1:$port"
    work=$(mktemp -d "/tmp/pass-server-$name-bench.XXXXXX")
    export TOKEN_SECRET
    TOKEN_SECRET=$(openssl rand -hex 32)
    server_pid=""
    trap wrk_live_server_cleanup EXIT
}

wrk_live_server_cleanup() {
    if [ -n "$server_pid" ]; then
        kill -TERM "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    psql -q "$PASS_SERVER_TEST_DATABASE_URL" -c "DROP DATABASE IF EXISTS $database" >/dev/null 2>&1 || true
    rm -rf "$work"
}

# wrk_serve NAME: starts the server on $database_url and $port (pushes logged) and waits for /healthz.
wrk_serve() {
    "$binary" serve --development --database-url "$database_url" --http-port "$port" --log-level warning \
        >"$work/server.out" 2>"$work/server.err" &
    server_pid=$!
    for _ in $(seq 1 300); do
        curl -fsS -o /dev/null "$base/healthz" 2>/dev/null && return 0
        kill -0 "$server_pid" 2>/dev/null || { echo "bench/$1.sh: server exited" >&2; cat "$work/server.err" >&2; exit 1; }
        sleep 0.2
    done
    echo "bench/$1.sh: the server did not answer /healthz" >&2
    exit 1
}

# cluster_commits_durably [SETTING ...]: scripts/with-postgres.sh's cluster skips flushing its log
# to disk (fsync, synchronous_commit and full_page_writes off) to keep the test suite fast; a
# default cluster waits for every commit's flush. Turns the three on, with any further
# `name = value` SETTINGs, and reloads the configuration.
cluster_commits_durably() {
    local setting arguments=(-c "ALTER SYSTEM SET fsync = on" -c "ALTER SYSTEM SET synchronous_commit = on" -c "ALTER SYSTEM SET full_page_writes = on")
    for setting in "$@"; do arguments+=(-c "ALTER SYSTEM SET $setting"); done
    psql -q "$PASS_SERVER_TEST_DATABASE_URL" "${arguments[@]}" -c "SELECT pg_reload_conf()" >/dev/null
}

# cluster_ticks: CPU ticks of scripts/with-postgres.sh's PostgreSQL cluster, every process of it:
# the postmaster with its exited children (cutime, cstime; a backend's CPU counts once the
# postmaster has reaped it) and its processes alive now. 0 outside that script.
cluster_ticks() {
    local postmaster
    postmaster=$(head -n 1 "${PASS_SERVER_TEST_PG_DATA:-/nonexistent}/postmaster.pid" 2>/dev/null) || { echo 0; return; }
    {
        awk '{ sub(/^.*\) /, ""); print $12 + $13 + $14 + $15 }' "/proc/$postmaster/stat" 2>/dev/null
        for pid in $(pgrep -P "$postmaster" 2>/dev/null); do
            awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$pid/stat" 2>/dev/null
        done
    } | awk '{ sum += $1 } END { print sum + 0 }'
}
