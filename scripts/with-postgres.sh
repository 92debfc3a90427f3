#!/usr/bin/env bash
# Runs a command next to a throwaway PostgreSQL cluster on a free loopback port.
#
#   scripts/with-postgres.sh swift test
#
# The cluster lives in a temporary directory, is owned by an unprivileged user (initdb refuses
# root), is reachable at $PASS_SERVER_TEST_DATABASE_URL, and is stopped and deleted when the
# command ends, whether it passed or failed. The command's exit status is returned.
set -euo pipefail

bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -z "$bindir" ]; then
    echo "with-postgres: PostgreSQL server binaries not found (install the postgresql package)" >&2
    exit 1
fi

owner=$(id -un)
if [ "$(id -u)" -eq 0 ]; then
    owner=postgres
    id "$owner" >/dev/null 2>&1 || useradd --system --no-create-home "$owner"
fi
as_owner() {
    if [ "$(id -un)" = "$owner" ]; then "$@"; else runuser -u "$owner" -- "$@"; fi
}

workdir=$(mktemp -d /tmp/pass-server-pg.XXXXXX)
chown "$owner" "$workdir"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')

stop() {
    as_owner "$bindir/pg_ctl" -D "$workdir/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$workdir"
}
trap stop EXIT INT TERM

as_owner "$bindir/initdb" -D "$workdir/data" -U passserver --auth=trust --encoding=UTF8 --no-locale >"$workdir/initdb.log" 2>&1 \
    || { cat "$workdir/initdb.log" >&2; exit 1; }
as_owner "$bindir/pg_ctl" -D "$workdir/data" -l "$workdir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$workdir -c max_connections=300 -c shared_buffers=1GB -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
    start >/dev/null || { cat "$workdir/server.log" >&2; exit 1; }

export PASS_SERVER_TEST_DATABASE_URL="postgres://passserver@127.0.0.1:$port/postgres"
# Tests that restart the server need to know how.
export PASS_SERVER_TEST_PG_CTL="$bindir/pg_ctl"
export PASS_SERVER_TEST_PG_DATA="$workdir/data"
export PASS_SERVER_TEST_PG_OWNER="$owner"
echo "with-postgres: PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') at $PASS_SERVER_TEST_DATABASE_URL"

set +e
"$@"
status=$?
set -e
exit $status
