# Passes `swift test` output through unchanged. When the run recorded issues, the lines naming
# them (and the details under each) are repeated just before the runner's closing summary, so a
# long log's end says which tests failed. The summary stays the last line.
function flush_recap(   i) {
    if (count == 0) return
    print "Issues recorded in this run (repeated from above):"
    for (i = 1; i <= count; i++) print "  " recap[i]
    if (dropped > 0) print "  ... and " dropped " more lines"
    count = 0
}
/recorded an issue/ { keep = 1; add($0); print; fflush(); next }
keep && /^[ \t]*(↳|\/\/)/ { add($0); print; fflush(); next }
{ keep = 0 }
/^(✔|✘|􀟈|􀢄) Test run with / { flush_recap() }
{ print; fflush() }
END { flush_recap() }
function add(line) {
    if (count < 200) recap[++count] = line
    else dropped++
}
