#!/usr/bin/env bash
# Fleet: organizer edit to every phone updated. An event of N tickets on N simulated phones
# (`fleet`, with the fake APNs inside it) against the release pass-server on PostgreSQL: the fleet
# issues the tickets through the admin API, downloads every pass and registers every phone, then
# PATCHes the venue and follows each phone (think time 0–2 s, list with its tag, fetch with
# If-Modified-Since, check) until all hold the new pass. One run of 100,000 and FLEET_BENCH_REPEAT
# runs of 10,000 (median quoted), each on a fresh database and server. With FLEET_BENCH_DESIGN=1
# (the default) every 10,000-phone run is paired with one whose event has a design: colours, Wallet
# details and images uploaded at their largest size (`pass-server-bench design-images`;
# FLEET_BENCH_DESIGN_KINDS, icon, logo and strip by default; stored as the server stores uploads by
# default, palette PNGs, or in full colour with FLEET_BENCH_DESIGN_COLORS=full), so the designed storm is measured
# against the plain one in the same hour; the fleet checks the images are in every
# signature-checked pass.
#
# The floor, measured in the same run: `openssl speed -elapsed -multi 2 rsa2048` sign/s (before
# and after the runs; the faster is used), so N / rate is the least time any server could take to
# sign the N new passes on this machine.
#
# The cost of one updated phone: the fleet samples the CPU seconds (utime + stime, /proc) of the
# server, of every process of the PostgreSQL cluster (the postmaster, its backends and auxiliary
# processes, exited ones included) and of itself when the edit is sent and when the last phone
# holds the new pass; each is divided by the phones updated and printed beside one RSA-2048
# signature on one core, `taskset -c 0 openssl speed -elapsed -seconds FLEET_BENCH_SIGN_SECONDS
# rsa2048` (ms a signature), measured before and after each run (the faster is used). Server ÷
# signature is the headline figure. Beside it the same signature by OpenSSL's CPU time (`-mr`),
# the peer a busy machine does not stretch as it stretches the wall clock. With FLEET_BENCH_STATEMENTS=1 the cluster is restarted once
# with pg_stat_statements, and each run prints its storm's statements and the HOT share of the
# updates of the tables the storm writes (to stderr).
#
# Assumes `swift build -c release` and PASS_SERVER_TEST_DATABASE_URL (scripts/with-postgres.sh).
# Knobs: FLEET_BENCH_LARGE (100000), FLEET_BENCH_SMALL (10000), FLEET_BENCH_REPEAT (3),
#        FLEET_CONNECTIONS (64), FLEET_DEADLINE (900 s), FLEET_BENCH_DESIGN (1),
#        FLEET_BENCH_DESIGN_KINDS (icon logo strip), FLEET_BENCH_DESIGN_COLORS (palette),
#        FLEET_BENCH_SIGN_SECONDS (3), FLEET_BENCH_STATEMENTS (0), FLEET_BENCH_PERF_DIR (none: with a
#        directory, `perf record -e cpu-clock` samples the server from the edit to the end of each
#        storm into DIR/server-PHONES-N.data, and its shares by library go to stderr).
# Prints Markdown; raw JSON lines go to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."

SERVER=${PASS_SERVER:-.build/release/pass-server}
FLEET=${FLEET:-.build/release/fleet}
BENCH=${PASS_SERVER_BENCH_BIN:-.build/release/pass-server-bench}
DESIGN=${FLEET_BENCH_DESIGN:-1}
# The design's images: an event ticket with a strip shows no background or thumbnail, so a design
# sets these three; FLEET_BENCH_DESIGN_KINDS="icon logo strip background thumbnail" sends all five.
DESIGN_KINDS=${FLEET_BENCH_DESIGN_KINDS:-icon logo strip}
# How the uploads are stored (`colors` of POST /admin/v1/images): palette (the server's default) or
# full; "palette full" pairs every plain run with one designed run of each.
DESIGN_COLORS=${FLEET_BENCH_DESIGN_COLORS:-palette}
LARGE=${FLEET_BENCH_LARGE:-100000}
SMALL=${FLEET_BENCH_SMALL:-10000}
REPEAT=${FLEET_BENCH_REPEAT:-3}
CONNECTIONS=${FLEET_CONNECTIONS:-64}
DEADLINE=${FLEET_DEADLINE:-900}
SIGN_SECONDS=${FLEET_BENCH_SIGN_SECONDS:-3}
STATEMENTS=${FLEET_BENCH_STATEMENTS:-0}
PERF_DIR=${FLEET_BENCH_PERF_DIR:-}
: "${PASS_SERVER_TEST_DATABASE_URL:?run inside scripts/with-postgres.sh}"
for binary in "$SERVER" "$FLEET" "$BENCH"; do
    [ -x "$binary" ] || { echo "missing $binary: run swift build -c release first" >&2; exit 1; }
done
for tool in psql curl python3 openssl taskset; do
    command -v "$tool" >/dev/null || { echo "bench/fleet.sh: $tool is not installed" >&2; exit 1; }
done

WORK=$(mktemp -d /tmp/pass-server-fleet-bench.XXXXXX)
SERVER_PID=
DB=
cleanup() {
    if [ -n "$SERVER_PID" ]; then kill -TERM "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
    if [ -n "$DB" ]; then psql -q "$PASS_SERVER_TEST_DATABASE_URL" -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

source bench/live-server.sh
if [ "$STATEMENTS" = 1 ]; then
    # pg_stat_statements must be loaded when the cluster starts: once, for every run.
    : "${PASS_SERVER_TEST_PG_CTL:?FLEET_BENCH_STATEMENTS needs scripts/with-postgres.sh}"
    psql -q "$PASS_SERVER_TEST_DATABASE_URL" -c "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'" >/dev/null
    as_cluster_owner() { if [ "$(id -un)" = "$PASS_SERVER_TEST_PG_OWNER" ]; then "$@"; else runuser -u "$PASS_SERVER_TEST_PG_OWNER" -- "$@"; fi; }
    as_cluster_owner "$PASS_SERVER_TEST_PG_CTL" -D "$PASS_SERVER_TEST_PG_DATA" -w -t 60 restart >/dev/null
fi
# The cluster's postmaster (scripts/with-postgres.sh), for the database's CPU time during the storm.
POSTMASTER_PID=$(head -n 1 "${PASS_SERVER_TEST_PG_DATA:-/nonexistent}/postmaster.pid" 2>/dev/null || true)
"$SERVER" certs dev --dir "$WORK/certs" >/dev/null
"$BENCH" design-images --dir "$WORK/images" >/dev/null
signs_per_second() { openssl speed -elapsed -multi 2 rsa2048 2>/dev/null | awk '/^rsa 2048 bits/ { rate = $6 } END { print rate }'; }
# "ELAPSED CPU": milliseconds of one RSA-2048 signature on one core (core 0), by the wall clock
# (`-elapsed`) and by OpenSSL's own CPU time (`-mr` without `-elapsed`: signatures and CPU seconds),
# which a neighbour's load does not stretch.
sign_milliseconds() {
    local elapsed cpu
    elapsed=$(taskset -c 0 openssl speed -elapsed -seconds "$SIGN_SECONDS" rsa2048 2>/dev/null \
        | awk '/^rsa 2048 bits/ { sub(/s$/, "", $4); ms = $4 * 1000 } END { printf "%.4f", ms }')
    cpu=$(taskset -c 0 openssl speed -mr -seconds "$SIGN_SECONDS" rsa2048 2>&1 >/dev/null \
        | awk -F: '/^\+R1:/ { if ($2 > 0) ms = $4 * 1000 / $2 } END { printf "%.4f", ms }')
    echo "$elapsed $cpu"
}

# design_body PORT TOKEN FILE COLORS: uploads the design images to the server on PORT, stored as
# COLORS, and writes a design naming them (with colours and Wallet details) to FILE.
design_body() {
    local port="$1" token="$2" file="$3" colors="$4" kind ids=()
    for kind in $DESIGN_KINDS; do
        ids+=("$kind=$(curl -fsS -X POST "http://127.0.0.1:$port/admin/v1/images?kind=$kind&colors=$colors" -H "Authorization: Bearer $token" \
            -H 'Content-Type: image/png' --data-binary "@$WORK/images/$kind.png" | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')")
    done
    python3 - "$file" "${ids[@]}" <<'PY'
import json, sys
images = dict(pair.split("=", 1) for pair in sys.argv[2:])
design = {
    "backgroundColor": "#102030", "foregroundColor": "rgb(250, 250, 250)", "labelColor": "#ffcc00", "logoText": "Fleet Hall",
    "images": images,
    "details": {
        "venueName": "Fleet Hall", "venueRegionName": "Tokyo", "venueRoom": "Main Stage",
        "venueLocation": {"latitude": 35.6812, "longitude": 139.7671}, "entranceDescription": "Gate B",
        "kind": {"type": "livePerformance", "performerNames": ["The Quiet Ones"]},
        "guide": {"bagPolicyURL": "https://example.com/bags", "parkingInformationURL": "https://example.com/parking"},
        "featuredActions": [{"type": "listenToMusic", "url": "https://example.com/listen"}],
    },
}
with open(sys.argv[1], "w") as handle:
    json.dump(design, handle)
PY
}

# run N OUTPUT [design COLORS]: one fleet run of N phones on a fresh database and server; the JSON
# line goes to OUTPUT. With "design" the event gets the whole design, its images stored as COLORS,
# before its tickets are issued.
run() {
    local phones="$1" output="$2" look="${3:-}" colors="${4:-palette}" database_url http_port apns_port token design_options=()
    # A size of 0 skips that part (FLEET_BENCH_LARGE=0 for the 10,000-phone runs alone).
    if [ "$phones" -le 0 ]; then echo '{"skipped": true}' > "$output"; return; fi
    DB="bench_fleet_$$_${phones}_$RANDOM"
    psql -q "$PASS_SERVER_TEST_DATABASE_URL" -c "CREATE DATABASE $DB" >/dev/null
    database_url=$(python3 -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/" + sys.argv[2])))' \
        "$PASS_SERVER_TEST_DATABASE_URL" "$DB")
    DATABASE_URL="$database_url" "$SERVER" migrate >/dev/null
    token=$(DATABASE_URL="$database_url" "$SERVER" token create --name fleet 2>/dev/null)
    http_port=$(free_port)
    apns_port=$(free_port)
    start_live_server "$SERVER" "$database_url" "$http_port" "$apns_port" "$WORK/certs" "$WORK/server.log"
    if [ "$look" = design ]; then
        design_body "$http_port" "$token" "$WORK/design.json" "$colors"
        look="design-$colors"
        design_options=(--design "$WORK/design.json" --expect-files "$(printf '%s@3x.png,' $DESIGN_KINDS | sed 's/,$//')")
    fi
    echo "bench/fleet.sh: $phones phones${look:+ ($look)} (load average $(cut -d' ' -f1-3 /proc/loadavg))" >&2
    local sign_before sign_after load_before before_edit="psql -q '$database_url' -c ANALYZE"
    sign_before=$(sign_milliseconds)
    load_before=$(cut -d' ' -f1 /proc/loadavg)
    if [ "$STATEMENTS" = 1 ]; then
        psql -q "$database_url" -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" >/dev/null
        before_edit="$before_edit && psql -q '$database_url' -c 'SELECT pg_stat_statements_reset()' -c 'SELECT pg_stat_reset()' >/dev/null"
    fi
    if [ -n "$PERF_DIR" ]; then
        perf_data="$PERF_DIR/server-$phones-$RANDOM.data"
        before_edit="$before_edit && { perf record -q -e cpu-clock -F 499 -g -p $SERVER_PID -o '$perf_data' >/dev/null 2>&1 & echo \$! > '$WORK/perf.pid'; sleep 1; }"
    fi
    # The phones are registered in bulk just before the edit; ANALYZE gives the planner the
    # statistics autovacuum would have gathered by the time an organizer edits a real event.
    FLEET_ADMIN_TOKEN="$token" "$FLEET" --server "http://127.0.0.1:$http_port" --phones "$phones" \
        --apns-cert "$WORK/certs/server-certificate.pem" --apns-key "$WORK/certs/server-key.pem" --apns-port "$apns_port" \
        --trust-root "$WORK/certs/root-ca.pem" --connections "$CONNECTIONS" --deadline "$DEADLINE" --server-pid "$SERVER_PID" \
        ${POSTMASTER_PID:+--database-pid "$POSTMASTER_PID"} "${design_options[@]}" \
        --before-edit "$before_edit" > "$WORK/fleet.out" || true
    if [ "$STATEMENTS" = 1 ]; then statements_report "$database_url" >&2; fi
    if [ -n "$PERF_DIR" ] && [ -s "$WORK/perf.pid" ]; then
        kill -INT "$(cat "$WORK/perf.pid")" 2>/dev/null || true
        while kill -0 "$(cat "$WORK/perf.pid")" 2>/dev/null; do sleep 0.2; done
        rm -f "$WORK/perf.pid"
        echo "server profile: $perf_data" >&2
        perf report -i "$perf_data" --no-children --sort dso --stdio 2>/dev/null | grep -v '^#' | grep -v '^$' | head -n 12 >&2 || true
    fi
    sed '$d' "$WORK/fleet.out" >&2
    sign_after=$(sign_milliseconds)
    tail -n 1 "$WORK/fleet.out" | python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
r["look"] = sys.argv[1]
before, after = (sys.argv[2] + " 0 0").split()[:2], (sys.argv[3] + " 0 0").split()[:2]
r["signMillisecondsBefore"], r["signMillisecondsAfter"] = float(before[0]), float(after[0])
r["signCPUMillisecondsBefore"], r["signCPUMillisecondsAfter"] = float(before[1]), float(after[1])
r["loadAverage"] = [float(sys.argv[4]), float(sys.argv[5])]
print(json.dumps(r))' \
        "${look:-template}" "$sign_before" "$sign_after" "$load_before" "$(cut -d' ' -f1 /proc/loadavg)" > "$output" 2>/dev/null \
        || tail -n 1 "$WORK/fleet.out" > "$output"
    tail -n 1 "$WORK/fleet.out" >&2
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=
    psql -q "$PASS_SERVER_TEST_DATABASE_URL" -c "DROP DATABASE IF EXISTS $DB" >/dev/null
    DB=
}

# statements_report DATABASE_URL: the storm's statements by total time, and the updates of the
# tables it writes that stayed on their page (HOT) against all of them.
statements_report() {
    psql -q "$1" -P pager=off <<'SQL'
SELECT calls, round(total_exec_time::numeric, 1) AS total_ms, round((total_exec_time / calls)::numeric, 4) AS ms_a_call,
       round(total_plan_time::numeric, 1) AS plan_ms, rows, shared_blks_hit AS hits, left(regexp_replace(query, '\s+', ' ', 'g'), 150) AS statement
FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
ORDER BY total_exec_time DESC LIMIT 25;
SELECT relname, seq_scan, idx_scan, n_tup_upd, n_tup_hot_upd, n_tup_ins, n_tup_del FROM pg_stat_user_tables
WHERE n_tup_upd + n_tup_ins + n_tup_del + seq_scan > 0 ORDER BY relname;
SQL
}

echo "bench/fleet.sh: measuring the signing floor" >&2
floor_before=$(signs_per_second)
run "$LARGE" "$WORK/large.json"
for index in $(seq 1 "$REPEAT"); do
    # Named so that the shell's sorting lists the runs in the order they ran.
    run "$SMALL" "$WORK/small-$index-0.json"
    if [ "$DESIGN" = 1 ]; then
        turn=1
        for colors in $DESIGN_COLORS; do run "$SMALL" "$WORK/small-$index-$turn-design-$colors.json" design "$colors"; turn=$((turn + 1)); done
    fi
done
floor_after=$(signs_per_second)

python3 - "$floor_before" "$floor_after" "$WORK/large.json" "$WORK"/small-*.json <<'PY'
import json, statistics, sys

before, after = float(sys.argv[1] or 0), float(sys.argv[2] or 0)
rate = max(before, after)
runs = []
# A pattern that matched nothing (FLEET_BENCH_REPEAT=0) comes through as itself: no run.
for path in (path for path in sys.argv[3:] if "*" not in path):
    try:
        with open(path) as handle:
            runs.append(json.loads(handle.read()))
    except (OSError, ValueError):
        runs.append(None)

def cell(value, unit="s", digits=1):
    return "—" if value is None else f"{value:,.{digits}f} {unit}".strip()

print(f"Signing floor: `openssl speed -elapsed -multi 2 rsa2048` {before:,.0f} sign/s before the runs, {after:,.0f} after; "
      f"floor = phones / {rate:,.0f}.")
print()
print("| phones = tickets | setup (tickets + downloads / registrations) | 50 % | 90 % | 99 % | 100 % | floor | 100 % ÷ floor "
      "| fetch p50 | fetch p99 | 5xx | left behind | server peak RSS | CPU fleet / server / PostgreSQL |")
print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")

def row(report, label=None):
    if report is None:
        print("| (run failed) |" + " |" * 13)
        return None
    floor = report["phones"] / rate if rate else None
    total = report.get("secondsTo100Percent")
    ratio = total / floor if total is not None and floor else None
    setup = report.get("setup") or {}
    rss = report.get("serverPeakRSSKiB")
    server_cpu = report.get("serverCPUSeconds")
    look = report.get('look', 'template')
    print(f"| {label or format(report['phones'], ',')}{'' if look == 'template' else f' ({look})'} | {cell(setup.get('ticketSeconds'))} / {cell(setup.get('registrationSeconds'))} "
          f"| {cell(report.get('secondsTo50Percent'))} | {cell(report.get('secondsTo90Percent'))} | {cell(report.get('secondsTo99Percent'))} "
          f"| {cell(total)} | {cell(floor)} | {cell(ratio, '×', 2)} | {cell(report.get('fetchP50Milliseconds'), 'ms', 0)} "
          f"| {cell(report.get('fetchP99Milliseconds'), 'ms', 0)} | {report.get('serverErrors')} | {report.get('phonesLeftBehind')} "
          f"| {cell(rss / 1024 if rss else None, 'MiB', 0)} "
          f"| {cell(report.get('fleetCPUSeconds'))} / {cell(server_cpu)} / {cell(report.get('databaseCPUSeconds'))} |")
    return ratio

skipped = lambda report: bool(report and report.get("skipped"))
if not skipped(runs[0]):
    row(runs[0])
small = [report for report in runs[1:] if not skipped(report)]
runs = [report for report in runs if not skipped(report)]
for index, report in enumerate(small, 1):
    row(report, f"{report['phones']:,} (run {index})" if report else None)
print()
for report in runs:
    if not report:
        continue
    threads = ", ".join(f"{name} {value:.1f} s" for name, value in sorted((report.get("serverCPUByThread") or {}).items(), key=lambda item: -item[1]))
    print(f"- {report['phones']:,} phones: last push accepted at {cell(report.get('lastPushSeconds'))}; "
          f"phone requests waited for a fleet connection p99 {cell(report.get('queueWaitP99Milliseconds'), 'ms', 0)}; "
          f"server CPU by thread: {threads or '—'}")
medians = {}
looks = ["template"] + sorted({r.get("look") for r in small if r and r.get("look", "template") != "template"})
for look in looks:
    done = [r for r in small if r and r.get("secondsTo100Percent") is not None and r.get("look", "template") == look]
    if not done:
        continue
    median = statistics.median(r["secondsTo100Percent"] for r in done)
    cpu = [r["serverCPUSeconds"] for r in done if r.get("serverCPUSeconds")]
    medians[look] = (median, statistics.median(cpu) if cpu else None)
    phones = done[0]["phones"]
    floor = phones / rate if rate else None
    print()
    print(f"{phones:,} phones{'' if look == 'template' else f' ({look})'}, median of {len(done)} runs: 100 % in {median:.1f} s, "
          f"floor {cell(floor)}, ratio {cell(median / floor if floor else None, '×', 2)}, server CPU {cell(medians[look][1])}.")

# The cost of one updated phone: CPU over the storm ÷ phones updated, beside one signature on one
# core measured around the same run (the faster of before and after).
def per_phone(report):
    phones = report.get("updatedPhones") or 0
    signs = [value for value in (report.get("signMillisecondsBefore"), report.get("signMillisecondsAfter")) if value]
    by_cpu = [value for value in (report.get("signCPUMillisecondsBefore"), report.get("signCPUMillisecondsAfter")) if value]
    if not phones or not signs:
        return None
    cost = lambda key: report[key] * 1000 / phones if report.get(key) is not None else None
    # The headline divides by the signature as a quiet core makes it: the faster of the wall-clock
    # and CPU-time figures (on an idle core they agree; a neighbour's load stretches only the first).
    return {"sign": min(signs + by_cpu), "signElapsed": min(signs), "signCPU": min(by_cpu) if by_cpu else None,
            "server": cost("serverCPUSeconds"), "database": cost("databaseCPUSeconds"), "fleet": cost("fleetCPUSeconds")}

def ms(value):
    return "—" if value is None else f"{value:.3f} ms"

def times(value, sign):
    return "—" if value is None else f"{value / sign:.2f} ×"

print()
print("Per updated phone (CPU over the storm ÷ phones updated). One RSA-2048 signature on core 0 before and after the run, the faster: "
      "`taskset -c 0 openssl speed -elapsed` (wall clock) and `openssl speed -mr` (OpenSSL's CPU time); the ratios divide by the faster of the two:")
print()
print("| run | load average | phones updated | server | PostgreSQL | fleet | signature: wall clock / CPU time | **server ÷ signature** | PostgreSQL ÷ signature |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
costs = {}
for index, report in enumerate(runs):
    cost = per_phone(report) if report else None
    if cost is None:
        continue
    look = report.get("look", "template")
    label = f"{report['phones']:,}{'' if look == 'template' else f' ({look})'}"
    costs.setdefault(label, []).append(cost)
    load = "–".join(f"{value:.1f}" for value in report.get("loadAverage") or [])
    print(f"| {label} | {load or '—'} | {report['updatedPhones']:,} | {ms(cost['server'])} | {ms(cost['database'])} | {ms(cost['fleet'])} "
          f"| {ms(cost['signElapsed'])} / {ms(cost['signCPU'])} | **{times(cost['server'], cost['sign'])}** | {times(cost['database'], cost['sign'])} |")
for label, entries in costs.items():
    if len(entries) < 2:
        continue
    median = lambda values: statistics.median(values) if values else None
    server = median([c["server"] / c["sign"] for c in entries if c["server"] is not None])
    database = median([c["database"] for c in entries if c["database"] is not None])
    database_ratio = median([c["database"] / c["sign"] for c in entries if c["database"] is not None])
    print()
    print(f"{label} phones, median of {len(entries)} runs: server {server:.2f} × one signature (goal ≤ 1.5 ×); "
          f"PostgreSQL {ms(database)} a phone, {database_ratio:.2f} × one signature (goal ≤ 0.15 ms or ≤ 0.4 ×).")

for look in looks[1:]:
    if "template" not in medians or look not in medians:
        continue
    (plain, plain_cpu), (designed, designed_cpu) = medians["template"], medians[look]
    cpu_ratio = f"; server CPU {designed_cpu / plain_cpu:.2f} ×" if plain_cpu and designed_cpu else ""
    print()
    print(f"{look} ÷ plain, medians: 100 % in {designed / plain:.2f} ×{cpu_ratio} (goal: within 10 %).")
PY
