#!/usr/bin/env bash
# Storage benchmark: the database's own ceiling (pgbench, select-only) and PassServer's store on
# the device API's two hottest calls, on PostgreSQL and SQLite. Prints Markdown table rows.
#
#   scripts/with-postgres.sh bench/storage.sh        (after swift build -c release)
#
# Needs PASS_SERVER_TEST_DATABASE_URL (an admin URL; scratch databases are created and dropped)
# and, for the store rows, `.build/release/pass-server-bench storage`.
set -euo pipefail
cd "$(dirname "$0")/.."

: "${PASS_SERVER_TEST_DATABASE_URL:?set it, e.g. run through scripts/with-postgres.sh}"
COUNT=${STORAGE_BENCH_COUNT:-5000}
THREADS=${STORAGE_BENCH_THREADS:-8}
admin=$PASS_SERVER_TEST_DATABASE_URL
base=${admin%/*}
scratch="bench_storage_$$"
store_db="bench_store_$$"
sqlite_dir=$(mktemp -d /tmp/pass-server-bench.XXXXXX)

cleanup() {
    psql -q "$admin" -c "DROP DATABASE IF EXISTS $scratch WITH (FORCE)" >/dev/null 2>&1 || true
    psql -q "$admin" -c "DROP DATABASE IF EXISTS $store_db WITH (FORCE)" >/dev/null 2>&1 || true
    rm -rf "$sqlite_dir"
}
trap cleanup EXIT

psql -q "$admin" -c "CREATE DATABASE $scratch" >/dev/null
psql -q "$admin" -c "CREATE DATABASE $store_db" >/dev/null

echo "| benchmark | backend | operation | threads | result |"
echo "|---|---|---|---|---|"

pgbench -i -q -s 10 "$base/$scratch" >/dev/null 2>&1
tps=$(pgbench -S -c 8 -j 2 -T 10 "$base/$scratch" 2>/dev/null | awk '/^tps = / {print int($3)}' | tail -n 1)
echo "| pgbench -S (ceiling) | postgres | select-only | 8 clients | ${tps:-?} tps |"

binary=.build/release/pass-server-bench
if [ ! -x "$binary" ] || ! "$binary" storage --help >/dev/null 2>&1; then
    echo "| store | - | - | - | skipped: $binary has no 'storage' command |"
    exit 0
fi
for url in "$base/$store_db" "sqlite://$sqlite_dir/bench.db"; do
    for operation in registrations changed-serials; do
        "$binary" storage --database-url "$url" --operation "$operation" --count "$COUNT" --threads "$THREADS"
    done
done
