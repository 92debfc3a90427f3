#!/usr/bin/env bash
# Pass bundle throughput: signed .pkpass archives per second (render, validate, hash, CMS sign,
# zip) on one thread and on every core, next to OpenSSL's raw RSA-2048 signing rate.
#
# Expects the release build (`swift build -c release`) and its `pass-server-bench bundles
# --threads N --seconds S` command, which prints bundles/s (PassBundleBenchmark.run).
# Both rates are wall-clock (`openssl speed -elapsed`), so a busy machine slows both alike. The two
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

# First number printed by the subcommand: bundles THREADS LOOK.
bundles() {
    $(pin "$1") "$BIN" bundles --threads "$1" --seconds "$SECONDS_PER_RUN" --look "$2" | grep -Eo '[0-9]+(\.[0-9]+)?' | head -n 1
}

# sign/s column of `openssl speed rsa2048` ("rsa 2048 bits <sign s> <verify s> <sign/s> <verify/s>").
openssl_signs() {
    local multi=()
    if [[ "$1" -gt 1 ]]; then multi=(-multi "$1"); fi
    $(pin "$1") openssl speed -elapsed "${multi[@]}" -seconds "$SECONDS_PER_RUN" rsa2048 2>/dev/null | awk '/^rsa 2048 bits/ { rate = $6 } END { print rate }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# One table row for `threads` threads and a look: medians over alternating rounds, plus every round's ratio.
row() {
    local threads=$1 look=$2 ours theirs ratios="" rounds=""
    local -a ours_all=() theirs_all=()
    for _ in $(seq 1 "$ROUNDS"); do
        ours=$(bundles "$threads" "$look")
        theirs=$(openssl_signs "$threads")
        ours_all+=("$ours")
        theirs_all+=("$theirs")
        ratios+="$(awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')"$'\n'
        rounds+="$(awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }') "
    done
    local label="$threads"
    if [[ "$threads" -gt 1 ]]; then label="$threads (\`-multi $threads\`)"; fi
    echo "| $label | $look | $(printf '%s\n' "${ours_all[@]}" | median) | $(printf '%s\n' "${theirs_all[@]}" | median) | **$(printf '%s' "$ratios" | median | awk '{ printf "%.2f", $1 }')** | ${rounds% } |"
}

echo "| threads | passes | bundles/s (median) | openssl rsa2048 sign/s (median) | ratio, median of rounds (goal ≥ 0.80) | every round |"
echo "|---|---|---:|---:|---:|---|"
for look in template all-images; do
    row 1 "$look"
    row "$CORES" "$look"
done
