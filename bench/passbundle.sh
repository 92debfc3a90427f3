#!/usr/bin/env bash
# Pass bundle throughput: signed .pkpass archives per second (render, validate, hash, CMS sign,
# zip) on one thread and on every core, next to OpenSSL's raw RSA-2048 signing rate.
#
# Expects the release build (`swift build -c release`) and its `pass-server bench bundles
# --threads N --seconds S` subcommand, which prints bundles/s (PassBundleBenchmark.run).
# Both rates are wall-clock (`openssl speed -elapsed`), so a busy machine slows both alike.
# Prints Markdown table rows. Goal: bundles/s ≥ 0.8 × openssl sign/s per core.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=${PASS_SERVER_BIN:-.build/release/pass-server}
SECONDS_PER_RUN=${BENCH_SECONDS:-5}
CORES=$(nproc)

if [[ ! -x "$BIN" ]]; then
    echo "missing $BIN: run 'swift build -c release' first" >&2
    exit 1
fi

# First number printed by the subcommand.
bundles() {
    "$BIN" bench bundles --threads "$1" --seconds "$SECONDS_PER_RUN" | grep -Eo '[0-9]+(\.[0-9]+)?' | head -n 1
}

# sign/s column of `openssl speed rsa2048` ("rsa 2048 bits <sign s> <verify s> <sign/s> <verify/s>").
openssl_signs() {
    local multi=()
    if [[ "$1" -gt 1 ]]; then multi=(-multi "$1"); fi
    openssl speed -elapsed "${multi[@]}" -seconds 3 rsa2048 2>/dev/null | awk '/^rsa 2048 bits/ { rate = $6 } END { print rate }'
}

one_bundle=$(bundles 1)
one_openssl=$(openssl_signs 1)
all_bundle=$(bundles "$CORES")
all_openssl=$(openssl_signs "$CORES")

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

echo "| pass bundles | threads | bundles/s | openssl rsa2048 sign/s | ratio (goal ≥ 0.80) |"
echo "|---|---|---|---|---|"
echo "| signed .pkpass | 1 | $one_bundle | $one_openssl | $(ratio "$one_bundle" "$one_openssl") |"
echo "| signed .pkpass | $CORES | $all_bundle | $all_openssl | $(ratio "$all_bundle" "$all_openssl") |"
