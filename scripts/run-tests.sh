#!/usr/bin/env bash
# Runs `swift test` with the given arguments, its output passed through scripts/test-recap.awk
# (which repeats the recorded issues just before the runner's closing summary). Exits with the
# runner's status.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
"${SWIFT:-swift}" test "$@" 2>&1 | awk -f "$here/test-recap.awk"
exit "${PIPESTATUS[0]}"
