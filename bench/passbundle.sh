#!/usr/bin/env bash
# Pass bundle throughput: signed .pkpass archives per second (render, validate, hash, CMS sign,
# zip) on one thread and on every core, next to OpenSSL's raw RSA-2048 signing rate.
#
# Expects the release build (`swift build -c release`) and its `pass-server-bench bundles
# --threads N --seconds S --look L` command, which prints bundles/s by the wall clock and per CPU
# second (PassBundleBenchmark.run).
# Both sides are measured by the wall clock and by their own CPU time (`openssl speed -mr` reports
# each process's count and CPU seconds; the bundle driver each thread's); on a shared machine the
# CPU ratio is the one to trust, as a neighbour's load takes wall time from both unevenly. The two
# measurements alternate for BENCH_ROUNDS rounds and the table quotes the median of each column
# and the median of the per-round ratios: a neighbour's burst then spoils one round, not the result.
# Each thread count is measured twice: the template as it is, and an event design with every image
# kind of the classic ticket at its largest size plus colours and Wallet details (`--look all-images`).
# Prints Markdown table rows. Goal: bundles/s ≥ 0.8 × openssl sign/s per core, with the design too.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=${PASS_SERVER_BENCH_BIN:-.build/release/pass-server-bench}
SECONDS_PER_RUN=${BENCH_SECONDS:-2}
ROUNDS=${BENCH_ROUNDS:-9}
CORES=$(nproc)

if [[ ! -x "$BIN" ]]; then
    echo "missing $BIN: run 'swift build -c release' first" >&2
    exit 1
fi

# The one-thread rows run both sides on the same core (taskset), so neither gets a quieter core.
pin() {
    if [[ "$1" -eq 1 ]] && command -v taskset >/dev/null; then echo "taskset -c 0"; fi
}

# "wall cpu" bundles/s printed by the subcommand: bundles THREADS LOOK.
bundles() {
    $(pin "$1") "$BIN" bundles --threads "$1" --seconds "$SECONDS_PER_RUN" --look "$2"
}

# "wall cpu" RSA-2048 sign/s of `openssl speed -mr` with THREADS processes: each process's
# "+R1:count:2048:cpu-seconds" line; wall = every count over the run's seconds, cpu = the sum of
# each process's count over its own CPU seconds (what the table of `openssl speed` prints).
openssl_signs() {
    local multi=()
    if [[ "$1" -gt 1 ]]; then multi=(-multi "$1"); fi
    $(pin "$1") openssl speed -mr "${multi[@]}" -seconds "$SECONDS_PER_RUN" rsa2048 2>&1 \
        | awk -F: -v seconds="$SECONDS_PER_RUN" '/^\+R1:/ { count += $2; if ($4 > 0) cpu += $2 / $4 } END { printf "%.1f %.1f\n", count / seconds, cpu }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }

# One table row for `threads` threads and a look: medians over alternating rounds of both clocks,
# plus every round's CPU ratio.
row() {
    local threads=$1 look=$2 ours theirs rounds=""
    local -a wall_ours=() wall_theirs=() cpu_ours=() cpu_theirs=() wall_ratios=() cpu_ratios=()
    for _ in $(seq 1 "$ROUNDS"); do
        read -r ours_wall ours_cpu < <(bundles "$threads" "$look")
        read -r theirs_wall theirs_cpu < <(openssl_signs "$threads")
        wall_ours+=("$ours_wall"); wall_theirs+=("$theirs_wall"); cpu_ours+=("$ours_cpu"); cpu_theirs+=("$theirs_cpu")
        wall_ratios+=("$(ratio "$ours_wall" "$theirs_wall")")
        cpu_ratios+=("$(ratio "$ours_cpu" "$theirs_cpu")")
        rounds+="$(printf '%.2f' "${cpu_ratios[-1]}") "
    done
    local label="$threads"
    if [[ "$threads" -gt 1 ]]; then label="$threads (\`-multi $threads\`)"; fi
    m() { printf '%s\n' "$@" | median; }
    echo "| $label | $look | $(m "${wall_ours[@]}") | $(m "${wall_theirs[@]}") | $(m "${wall_ratios[@]}" | awk '{ printf "%.2f", $1 }') \
| $(m "${cpu_ours[@]}") | $(m "${cpu_theirs[@]}") | **$(m "${cpu_ratios[@]}" | awk '{ printf "%.2f", $1 }')** | ${rounds% } |"
}

echo "| threads | passes | bundles/s, wall (median) | openssl sign/s, wall | ratio, wall | bundles per CPU s | openssl signs per CPU s | ratio, CPU (goal ≥ 0.80) | every round (CPU) |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---|"
for look in template all-images; do
    row 1 "$look"
    row "$CORES" "$look"
done
