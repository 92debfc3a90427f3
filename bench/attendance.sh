#!/usr/bin/env bash
# The attendance page at scale, on PostgreSQL and SQLite: an event of ATTENDANCE_BENCH_TICKETS
# tickets (100,000), ATTENDANCE_BENCH_CHECKINS of them checked in (60,000) over three hours at six
# gates, seven in ten on a phone; the page rendered ATTENDANCE_BENCH_RENDERS times (200) after 20
# untimed, as the dashboard renders it (the event read, the aggregate queries, the SVG and tables).
# Goal: p99 under 100 ms. Prints Markdown rows.
#
#   scripts/with-postgres.sh bench/attendance.sh        (after swift build -c release)
#
# Needs PASS_SERVER_TEST_DATABASE_URL (an admin URL; a scratch database is created and dropped).
set -euo pipefail
# The seed is a few set-based statements over every row: more than the server's default timeout on a loaded machine.
export DATABASE_STATEMENT_TIMEOUT=${DATABASE_STATEMENT_TIMEOUT:-300s}
cd "$(dirname "$0")/.."

: "${PASS_SERVER_TEST_DATABASE_URL:?set it, e.g. run through scripts/with-postgres.sh}"
TICKETS=${ATTENDANCE_BENCH_TICKETS:-100000}
CHECKINS=${ATTENDANCE_BENCH_CHECKINS:-60000}
RENDERS=${ATTENDANCE_BENCH_RENDERS:-200}
binary=${PASS_SERVER_BENCH:-.build/release/pass-server-bench}
admin=$PASS_SERVER_TEST_DATABASE_URL
base=${admin%/*}
scratch="bench_attendance_$$"
sqlite_dir=$(mktemp -d /tmp/pass-server-bench.XXXXXX)

cleanup() {
    psql -q "$admin" -c "DROP DATABASE IF EXISTS $scratch WITH (FORCE)" >/dev/null 2>&1 || true
    rm -rf "$sqlite_dir"
}
trap cleanup EXIT
psql -q "$admin" -c "CREATE DATABASE $scratch" >/dev/null

echo "| benchmark | backend | renders | p50 | p99 | max | p99 ÷ 100 ms | seed, page |"
echo "|---|---|---:|---:|---:|---:|---:|---|"
# PostgreSQL: seeded, vacuumed from another connection once the seeding process has gone (its
# connections would keep the seed's pages from being marked all-visible, which the index-only scans
# read), then measured; SQLite in one go.
"$binary" attendance --database-url "$base/$scratch" --tickets "$TICKETS" --check-ins "$CHECKINS" --phase seed
psql -q "$base/$scratch" -c "VACUUM ANALYZE" >/dev/null
"$binary" attendance --database-url "$base/$scratch" --tickets "$TICKETS" --check-ins "$CHECKINS" --renders "$RENDERS" --phase measure
"$binary" attendance --database-url "sqlite://$sqlite_dir/bench.db" --tickets "$TICKETS" --check-ins "$CHECKINS" --renders "$RENDERS"
