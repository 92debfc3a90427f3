#!/usr/bin/env bash
# The attendee's page against the pass it links to, in the same run: an event of
# ATTENDEE_BENCH_TICKETS tickets imported through the admin API, then wrk on GET /download/{token}
# for random tickets of a sample, as a browser (the HTML page, in Japanese, with its QR code) and
# as Wallet (`?format=pkpass`, the signed pass from the warm bundle cache: every sampled pass is
# fetched once first and the cache holds them all). Runs alternate page / pass so that both see
# the same machine. Prints Markdown: requests/s, p99, and the page's rate as a share of the pass's
# (goal: at least 0.5).
#
# Assumes `swift build -c release` and PASS_SERVER_TEST_DATABASE_URL (scripts/with-postgres.sh).
# Knobs: ATTENDEE_BENCH_TICKETS (10000), ATTENDEE_BENCH_SAMPLE (1000 tickets requested),
# WRK_THREADS (2), WRK_CONNECTIONS (64), WRK_DURATION (10s), BENCH_RUNS (3).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/live-server.sh
source bench/wrk-lib.sh

SERVER=${PASS_SERVER:-.build/release/pass-server}
TICKETS=${ATTENDEE_BENCH_TICKETS:-10000}
SAMPLE=${ATTENDEE_BENCH_SAMPLE:-1000}
threads=${WRK_THREADS:-2}
connections=${WRK_CONNECTIONS:-64}
duration=${WRK_DURATION:-10s}
runs=${BENCH_RUNS:-3}
for tool in wrk psql curl python3 openssl; do
    command -v "$tool" >/dev/null || { echo "bench/attendee-page.sh: $tool is not installed" >&2; exit 1; }
done
scratch_bench bench_attendee

TOKEN=$(DATABASE_URL="$DATABASE_URL" "$SERVER" token create --name bench-attendee 2>/dev/null)
HTTP_PORT=$(free_port)
# About 170 KB per signed pass: room for every sampled one.
start_live_server "$SERVER" "$DATABASE_URL" "$HTTP_PORT" log "$WORK/certs" "$WORK/server.log" \
    PASSES_DIR="$PWD/Passes" BUNDLE_CACHE_SIZE=$((SAMPLE * 400 * 1024))
base="http://127.0.0.1:$HTTP_PORT"
curl -sf -o /dev/null "$base/healthz" || { echo "bench/attendee-page.sh: the server did not start" >&2; cat "$WORK/server.log" >&2; exit 1; }

# The event, its tickets (10,000 rows per request, the route's limit) and a random sample of their
# download paths; then every sampled pass fetched once (signing it into the cache) and its page
# checked once.
echo "bench/attendee-page.sh: importing $TICKETS tickets" >&2
python3 - "$base" "$TOKEN" "$TICKETS" "$SAMPLE" "$WORK/paths.txt" <<'PY'
import http.client, json, random, sys, urllib.parse
base, token, total, sample, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
url = urllib.parse.urlsplit(base)
client = http.client.HTTPConnection(url.hostname, url.port, timeout=300)
auth = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
def call(method, path, body=None, headers=auth):
    client.request(method, path, body=json.dumps(body).encode() if body is not None else None, headers=headers)
    response = client.getresponse()
    return response.status, response.read(), response.getheader("Content-Type")
status, body, _ = call("POST", "/admin/v1/events", {"name": "Attendee Page Night", "venue": "Loopback Hall",
                                                     "startsAt": "2030-03-01T19:00:00+09:00", "timeZone": "Asia/Tokyo", "language": "ja"})
assert status == 201, (status, body[:300])
event = json.loads(body)["id"]
paths = []
for start in range(0, total, 10000):
    rows = [{"attendeeName": f"参加者 {i} <Guest>", "seat": f"R{i // 40}-{i % 40}"} for i in range(start, min(start + 10000, total))]
    status, body, _ = call("POST", f"/admin/v1/events/{event}/tickets:batch", rows)
    assert status == 200, (status, body[:300])
    paths += [urllib.parse.urlsplit(t["downloadURL"]).path for t in json.loads(body)["tickets"]]
assert len(paths) == total, len(paths)
chosen = random.sample(paths, min(sample, len(paths)))
for path in chosen:
    status, body, kind = call("GET", path + "?format=pkpass", headers={})
    assert status == 200 and kind == "application/vnd.apple.pkpass", (path, status, kind)
    status, body, kind = call("GET", path, headers={"Accept": "text/html"})
    assert status == 200 and kind.startswith("text/html") and b"<svg" in body, (path, status, kind)
with open(out, "w") as f:
    f.write("\n".join(chosen) + "\n")
PY
sql "ANALYZE" >/dev/null
export ATTENDEE_BENCH_PATHS="$WORK/paths.txt"

# run MODE: one wrk run; prints "rps p99_ms".
run() {
    local output value latency errors
    output=$(ATTENDEE_BENCH_MODE="$1" wrk -t"$threads" -c"$connections" -d"$duration" --latency -s bench/attendee-page.lua "$base")
    value=$(awk '/^Requests\/sec:/ { print $2 }' <<<"$output")
    latency=$(awk '$1 == "99%" { print $2 }' <<<"$output")
    errors=$(awk '/Non-2xx or 3xx responses:/ { print $NF }' <<<"$output")
    if [ -z "$value" ] || [ -z "$latency" ]; then
        echo "bench/attendee-page.sh: could not read wrk's output for $1:" >&2
        echo "$output" >&2
        exit 1
    fi
    [ -z "$errors" ] || { echo "bench/attendee-page.sh: $1 had $errors non-2xx responses" >&2; exit 1; }
    echo "$value $(to_ms "$latency")"
}

page_rps=() page_p99=() pass_rps=() pass_p99=()
for i in $(seq 1 "$runs"); do
    read -r rps p99 < <(run page)
    echo "bench/attendee-page.sh: page run $i: $rps req/s, p99 $p99 ms" >&2
    page_rps+=("$rps"); page_p99+=("$p99")
    read -r rps p99 < <(run pkpass)
    echo "bench/attendee-page.sh: pass run $i: $rps req/s, p99 $p99 ms" >&2
    pass_rps+=("$rps"); pass_p99+=("$p99")
done
page=$(printf '%s\n' "${page_rps[@]}" | median)
pass=$(printf '%s\n' "${pass_rps[@]}" | median)
ratio=$(awk -v a="$page" -v b="$pass" 'BEGIN { printf "%.2f", a / b }')
echo "| GET /download/{token} ($TICKETS tickets, $SAMPLE requested at random, PostgreSQL, wrk -t$threads -c$connections -d$duration, median of $runs) | requests/s | p99 | page ÷ pass | goal |"
echo "|---|---:|---:|---:|---:|"
printf '| the page (Accept: text/html, Japanese, QR code) | %.0f | %.2f ms | %s | ≥ 0.50 |\n' "$page" "$(printf '%s\n' "${page_p99[@]}" | median)" "$ratio"
printf '| the pass (?format=pkpass, warm bundle cache) | %.0f | %.2f ms | 1.00 | |\n' "$pass" "$(printf '%s\n' "${pass_p99[@]}" | median)"
awk -v r="$ratio" 'BEGIN { exit !(r >= 0.5) }' || echo "bench/attendee-page.sh: the page is served at $ratio of the pass's rate, below 0.5" >&2
