#!/usr/bin/env bash
# Measures an HTTP endpoint with wrk: three runs of `wrk -t2 -c64 -d10s --latency`, then prints the
# median requests/s and the median p99 latency as one Markdown table row.
#
# Usage: bench/http.sh URL [LABEL]     (the server must already be running, e.g. on /healthz)
# Env:   WRK_THREADS (2) WRK_CONNECTIONS (64) WRK_DURATION (10s) BENCH_RUNS (3)
#        BENCH_COOKIE: a Cookie header value sent with every request (a dashboard session).
#        BENCH_HEADER=1 also prints the table header.
set -euo pipefail

url="${1:?usage: bench/http.sh URL [LABEL]}"
label="${2:-GET /${url#*://*/}}"
threads="${WRK_THREADS:-2}"
connections="${WRK_CONNECTIONS:-64}"
duration="${WRK_DURATION:-10s}"
runs="${BENCH_RUNS:-3}"

command -v wrk >/dev/null || { echo "bench/http.sh: wrk is not installed (apt-get install wrk)" >&2; exit 1; }
curl_ok=$(command -v curl || true)
headers=()
[[ -n "${BENCH_COOKIE:-}" ]] && headers=(-H "Cookie: $BENCH_COOKIE")
if [[ -n "$curl_ok" ]] && ! curl -fsS -o /dev/null "${headers[@]}" "$url"; then
    echo "bench/http.sh: $url does not answer 2xx; is the server running?" >&2
    exit 1
fi

# to_ms and median.
source "$(dirname "${BASH_SOURCE[0]}")/wrk-lib.sh"

rps_values=()
p99_values=()
for run in $(seq 1 "$runs"); do
    output=$(wrk -t"$threads" -c"$connections" -d"$duration" --latency "${headers[@]}" "$url")
    rps=$(awk '/^Requests\/sec:/ { print $2 }' <<<"$output")
    p99=$(awk '$1 == "99%" { print $2 }' <<<"$output")
    errors=$(awk '/Non-2xx or 3xx responses:/ { print $NF }' <<<"$output")
    if [[ -z "$rps" || -z "$p99" ]]; then
        echo "bench/http.sh: could not parse wrk output:" >&2
        echo "$output" >&2
        exit 1
    fi
    [[ -n "$errors" ]] && echo "bench/http.sh: run $run had $errors non-2xx responses" >&2
    rps_values+=("$rps")
    p99_values+=("$(to_ms "$p99")")
    echo "bench/http.sh: run $run: $rps req/s, p99 $p99" >&2
done

rps_median=$(printf '%s\n' "${rps_values[@]}" | median)
p99_median=$(printf '%s\n' "${p99_values[@]}" | median)

if [[ "${BENCH_HEADER:-0}" == 1 ]]; then
    echo "| benchmark | requests/s (median of $runs) | p99 latency (median) |"
    echo "|---|---:|---:|"
fi
printf '| HTTP %s (wrk -t%s -c%s -d%s) | %.0f | %.2f ms |\n' "$label" "$threads" "$connections" "$duration" "$rps_median" "$p99_median"
