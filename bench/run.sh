#!/usr/bin/env bash
# Runs every benchmark and prints Markdown; `make bench` calls it inside scripts/with-postgres.sh
# after a release build. Each part is a script of its own under bench/ and can be run alone.
# Results also go to bench/results/<timestamp>.md; BENCHMARKS.md quotes them.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/results
stamp=$(date -u +%Y-%m-%dT%H:%M:%SZ)
out="bench/results/$stamp.md"
{
    echo "# Benchmark run $stamp"
    echo
    echo "Machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo
} | tee "$out"

# The ceiling every endpoint is measured against: /healthz of the release server.
http_part() {
    local workdir port pid
    workdir=$(mktemp -d /tmp/pass-server-bench-http.XXXXXX)
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
    (cd "$workdir" && exec "$OLDPWD/.build/release/pass-server" serve --development --http-port "$port" --log-level warning \
        --passes-dir "$OLDPWD/Passes" >/dev/null 2>&1) &
    pid=$!
    for _ in $(seq 1 100); do curl -fsS -o /dev/null "http://127.0.0.1:$port/healthz" 2>/dev/null && break; sleep 0.1; done
    BENCH_HEADER=1 bench/http.sh "http://127.0.0.1:$port/healthz" "GET /healthz"
    kill -TERM "$pid"; wait "$pid" 2>/dev/null
    rm -rf "$workdir"
}

for part in http storage passbundle device device-peer registration-cost checkin frames attendee-page apns repush reach fleet import google webhooks dashboard attendance; do
    echo "## $part" | tee -a "$out"
    if [ "$part" = http ]; then
        http_part 2>&1 | tee -a "$out"
    elif [ -x "bench/$part.sh" ]; then
        "bench/$part.sh" 2>&1 | tee -a "$out"
    else
        echo "(no bench/$part.sh)" | tee -a "$out"
    fi
    echo | tee -a "$out"
done
echo "Results written to $out"
