#!/usr/bin/env bash
# What one device registration costs PostgreSQL, taken apart: pgbench replays the statements the
# release pass-server sent for a registration (taken from the cluster's log, so they are always
# the server's own), on a durable cluster, and PostgreSQL's CPU a registration is read from /proc.
#
#   full    the server's transaction: BEGIN, the pass row's lock, the registration statement
#           (device, registration, the cap's eviction, the pass.added webhook; the triggers of the
#           reach and check-in tallies), COMMIT
#   batch   sixteen of those registrations in one transaction: what a group commit could save
#   bare    the device and registration upserts alone, into copies of the two tables with the
#           same indexes and foreign keys and no triggers: a registration with nothing recorded
#           beside it, which is what a pass web service without tallies, cap or webhooks writes
#
# Each figure has the scripts' common part (picking a pass, a transaction) measured alone and
# taken off. The passes are at their device cap (every full registration evicts one), as in
# bench/device-peer.sh's registration scenario.
#
# Needs: .build/release/pass-server and pass-server-bench, PASS_SERVER_TEST_DATABASE_URL and
#        PASS_SERVER_TEST_PG_DATA (scripts/with-postgres.sh), pgbench, psql, curl, python3, openssl.
# Env:   REGISTRATION_COST_TICKETS (1000) REGISTRATION_COST_CLIENTS (6: the server's default pool
#        on two cores) REGISTRATION_COST_SECONDS (10) BENCH_ROUNDS (3)
set -euo pipefail
cd "$(dirname "$0")/.."

binary="${PASS_SERVER_BINARY:-.build/release/pass-server}"
bench_binary="${PASS_SERVER_BENCH_BINARY:-.build/release/pass-server-bench}"
tickets="${REGISTRATION_COST_TICKETS:-1000}"
clients="${REGISTRATION_COST_CLIENTS:-6}"
seconds="${REGISTRATION_COST_SECONDS:-10}"
rounds="${BENCH_ROUNDS:-3}"
source "$(dirname "${BASH_SOURCE[0]}")/wrk-lib.sh"
wrk_live_server registration-cost
: "${PASS_SERVER_TEST_PG_DATA:?bench/registration-cost.sh: run inside scripts/with-postgres.sh}"
pgbench="$(dirname "${PASS_SERVER_TEST_PG_CTL:-/usr/bin/pg_ctl}")/pgbench"
[ -x "$pgbench" ] || pgbench=$(command -v pgbench) || { echo "bench/registration-cost.sh: pgbench is not installed" >&2; exit 1; }
cluster_log="$(dirname "$PASS_SERVER_TEST_PG_DATA")/server.log"
hz=$(getconf CLK_TCK)
passes_per_client=$((tickets / clients))

# Commits as a default cluster does; vacuuming is each run's own (measure).
cluster_commits_durably "autovacuum = off"
# The server's sessions log every statement with its parameters: sessions opened later do not.
psql -q "$PASS_SERVER_TEST_DATABASE_URL" -c "ALTER DATABASE $database SET log_min_duration_statement = 0" >/dev/null

admin=$("$binary" token create --name bench --database-url "$database_url" 2>/dev/null)
wrk_serve registration-cost
echo "bench/registration-cost.sh: issuing $tickets tickets, $clients clients" >&2
read -r event pass_type < <(python3 bench/device_setup.py tickets "$base" "$admin" "$tickets")
"$bench_binary" tokens --event "$event" --database-url "$database_url" >"$work/tokens.tsv"
IFS=$'\t' read -r serial token _ <"$work/tokens.tsv"
device="registration-cost-$$"
log_start=$(wc -c <"$cluster_log")
status=$(curl -sS -o /dev/null -w '%{http_code}' -X POST "$base/v1/devices/$device/registrations/$pass_type/$serial" \
    -H "Authorization: ApplePass $token" -H 'Content-Type: application/json' \
    -d '{"pushToken":"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}')
[ "$status" = 201 ] || { echo "bench/registration-cost.sh: the registration answered $status" >&2; exit 1; }
kill -TERM "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""
psql -q "$PASS_SERVER_TEST_DATABASE_URL" -c "ALTER DATABASE $database RESET log_min_duration_statement" >/dev/null
python3 bench/registration_cost.py "$cluster_log" "$log_start" "$device" "$pass_type" "$serial" "$work"

psql -q "$database_url" <<SQL >/dev/null
CREATE TABLE bench_passes AS
    SELECT (row_number() OVER (ORDER BY serial_number))::int AS i, pass_type_identifier AS t, serial_number AS s FROM passes;
ALTER TABLE bench_passes ADD PRIMARY KEY (i);
CREATE SEQUENCE bench_devices;
CREATE TABLE bare_devices (LIKE devices INCLUDING ALL);
CREATE TABLE bare_registrations (LIKE registrations INCLUDING ALL);
ALTER TABLE bare_registrations ADD FOREIGN KEY (device_library_identifier) REFERENCES bare_devices ON DELETE CASCADE;
ALTER TABLE bare_registrations ADD FOREIGN KEY (pass_type_identifier, serial_number) REFERENCES passes (pass_type_identifier, serial_number) ON DELETE CASCADE;
SQL
# Every pass at its cap before the runs: the full registrations then evict one device each.
echo "bench/registration-cost.sh: filling every pass to its device cap" >&2
"$pgbench" -n -M prepared -c "$clients" -j 2 -t $((passes_per_client * 12)) -D passes="$passes_per_client" -f "$work/full.sql" "$database_url" >/dev/null
# The copies' first rows, so that no run writes to empty tables.
"$pgbench" -n -M prepared -c "$clients" -j 2 -t $((passes_per_client * 10)) -D passes="$passes_per_client" -f "$work/bare.sql" "$database_url" >/dev/null
psql -q "$database_url" -c "VACUUM ANALYZE" >/dev/null

# measure SCRIPT PER_TRANSACTION: appends "SCRIPT cpu_ms_per_registration registrations_per_second" to $work/runs.
# Each run starts after a checkpoint and ends with a VACUUM of what it wrote (autovacuum is off), so
# a run pays for its own dead rows and first writes of pages, and for nothing of another run's.
measure() {
    local script="$1" per="$2" before after output done_
    psql -q "$database_url" -c CHECKPOINT >/dev/null
    before=$(cluster_ticks)
    output=$("$pgbench" -n -M prepared -c "$clients" -j 2 -T "$seconds" -D passes="$passes_per_client" -f "$work/$script.sql" "$database_url" 2>&1)
    psql -q "$database_url" -c VACUUM >/dev/null
    sleep 1 # the backends exit with pgbench; their CPU is the postmaster's once it has reaped them
    after=$(cluster_ticks)
    done_=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' <<<"$output")
    [ -n "$done_" ] && [ "$done_" -gt 0 ] || { echo "bench/registration-cost.sh: $script ran nothing:" >&2; echo "$output" >&2; exit 1; }
    grep -q '^number of failed transactions: 0 ' <<<"$output" || { echo "bench/registration-cost.sh: $script had failures:" >&2; echo "$output" >&2; exit 1; }
    awk -v s="$script" -v t=$((after - before)) -v hz="$hz" -v n="$done_" -v per="$per" -v secs="$seconds" \
        'BEGIN { printf "%s %.4f %.0f\n", s, t * 1000 / hz / (n * per), n * per / secs }' | tee -a "$work/runs" >&2
}
for round in $(seq 1 "$rounds"); do
    cut -d' ' -f1 /proc/loadavg >>"$work/loads"
    echo "bench/registration-cost.sh: round $round of $rounds (load $(tail -n 1 "$work/loads"))" >&2
    measure lookup 1
    measure full 1
    measure lookup16 16
    measure batch 16
    measure bare 1
done

figure() { awk -v s="$1" '$1 == s { print $2 }' "$work/runs" | median; }
rate() { awk -v s="$1" '$1 == s { print $3 }' "$work/runs" | median; }
lookup=$(figure lookup); lookup16=$(figure lookup16)
full=$(awk -v a="$(figure full)" -v b="$lookup" 'BEGIN { printf "%.3f", a - b }')
batch=$(awk -v a="$(figure batch)" -v b="$lookup16" 'BEGIN { printf "%.3f", a - b }')
bare=$(awk -v a="$(figure bare)" -v b="$lookup" 'BEGIN { printf "%.3f", a - b }')
echo
echo "PostgreSQL CPU a registration, $tickets passes at their cap, pgbench -c $clients for ${seconds} s, durable commits, median of $rounds rounds (the common part taken off), load average $(sort -g "$work/loads" | head -n 1)–$(sort -g "$work/loads" | tail -n 1) at the rounds' starts on $(nproc) cores; bare is the floor of the same run, what a registration recording nothing more would cost:"
echo
echo "| replay | PostgreSQL CPU ms a registration | registrations/s in the run | ÷ full |"
echo "|---|---:|---:|---:|"
echo "| full: the server's transaction | $full | $(rate full) | 1.00 |"
echo "| batch: 16 in one transaction | $batch | $(rate batch) | $(awk -v a="$batch" -v b="$full" 'BEGIN { printf "%.2f", a / b }') |"
echo "| bare: the two upserts, no triggers, no cap | $bare | $(rate bare) | $(awk -v a="$bare" -v b="$full" 'BEGIN { printf "%.2f", a / b }') |"
