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
