# Sourced by the benchmarks that run the release pass-server against a fake APNs, with the
# development certificates of `pass-server certs dev --dir CERTS`.

# A free TCP port on 127.0.0.1.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

# start_live_server SERVER DATABASE_URL HTTP_PORT APNS_PORT CERTS LOG: starts `serve` in the
# background pushing to https://127.0.0.1:APNS_PORT, sets SERVER_PID and waits for /healthz.
start_live_server() {
    local server="$1" database_url="$2" http_port="$3" apns_port="$4" certs="$5" log="$6"
    env DATABASE_URL="$database_url" HTTP_PORT="$http_port" PUBLIC_URL="https://passes.example.test" \
        TOKEN_SECRET="$(openssl rand -hex 32)" PASS_CERTIFICATE="$certs/pass-certificate.pem" \
        PASS_PRIVATE_KEY="$certs/pass-key.pem" WWDR_CERTIFICATE="$certs/wwdr.pem" \
        APNS_URL="https://127.0.0.1:$apns_port" APNS_CA_FILE="$certs/root-ca.pem" LOG_LEVEL=warning \
        "$server" serve > "$log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 200); do curl -sf "http://127.0.0.1:$http_port/healthz" >/dev/null && break; sleep 0.1; done
}

# cpu_snapshot PID...: "pid/tid name ticks" lines for every thread of the given processes and their
# children (PostgreSQL backends are children of the postmaster), for cpu_report.
cpu_snapshot() {
    local pid child
    for pid in "$@"; do
        [ -n "$pid" ] || continue
        for child in $pid $(pgrep -P "$pid" 2>/dev/null); do
            for task in /proc/"$child"/task/*; do
                [ -r "$task/stat" ] || continue
                # utime and stime are fields 14 and 15, counted after the ")" that ends the name.
                awk -v id="$child/${task##*/}" -v name="$(cat "$task/comm" 2>/dev/null | tr ' ' '_')" \
                    '{ sub(/^.*\) /, ""); print id, name, $12 + $13 }' "$task/stat" 2>/dev/null
            done
        done
    done
}

# cpu_report BEFORE AFTER LABEL: CPU seconds used between two cpu_snapshot files, by thread name.
cpu_report() {
    python3 - "$1" "$2" "$3" "$(getconf CLK_TCK)" <<'PY'
import collections, sys
def load(path):
    rows = {}
    for line in open(path):
        parts = line.split()
        if len(parts) == 3: rows[parts[0]] = (parts[1], int(parts[2]))
    return rows
before, after, label, hz = load(sys.argv[1]), load(sys.argv[2]), sys.argv[3], float(sys.argv[4])
by_name = collections.Counter()
for key, (name, ticks) in after.items():
    by_name[name] += (ticks - before.get(key, (name, 0))[1]) / hz
total = sum(by_name.values())
print(f"{label}: {total:.1f} s CPU (" + ", ".join(f"{name} {seconds:.1f}" for name, seconds in by_name.most_common(6) if seconds >= 0.05) + ")")
PY
}
