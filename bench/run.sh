#!/usr/bin/env bash
# Runs every benchmark and prints Markdown rows; `make bench` calls it inside scripts/with-postgres.sh
# after a release build. Each part is a script of its own under bench/ and can be run alone.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/results
stamp=$(date -u +%Y-%m-%dT%H:%M:%SZ)
out="bench/results/$stamp.md"
{
    echo "# Benchmark run $stamp"
    echo
    echo "Machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(uname -r)"
    echo
} | tee "$out"
for part in http storage passbundle device apns repush; do
    script="bench/$part.sh"
    [ -x "$script" ] || continue
    echo "## $part" | tee -a "$out"
    "$script" 2>&1 | tee -a "$out"
    echo | tee -a "$out"
done
echo "Results written to $out"
