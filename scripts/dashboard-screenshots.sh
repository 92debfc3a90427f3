#!/usr/bin/env bash
# Draws the pictures README.md and docs/ show, as headless Chromium shows the pages, for an event with
# a handful of tickets (one cancelled, some on phones, some checked in): docs/images/event-page.png
# (desktop, light), ticket-page.png (desktop, dark), attendee-page.png and scanner-page.png (phone).
#
# Starts the server on a throwaway SQLite database with the development certificates, creates an
# admin token, the event and its tickets through the admin API, registers phones as Wallet does,
# checks a few tickets in, then runs scripts/dashboard_screenshots.py (Tests/Browser/browser.py:
# Debian chromium, chromium-driver, python3-selenium) to sign in and take the pictures.
#
# Usage: scripts/dashboard-screenshots.sh [DIRECTORY]   (default docs/images)
# Needs a built server: PASS_SERVER (default .build/release/pass-server, else .build/debug/pass-server).
set -euo pipefail
cd "$(dirname "$0")/.."

out=${1:-docs/images}
server=${PASS_SERVER:-}
if [ -z "$server" ]; then
    for candidate in .build/release/pass-server .build/debug/pass-server; do
        [ -x "$candidate" ] && { server=$candidate; break; }
    done
fi
[ -n "$server" ] && [ -x "$server" ] || { echo "dashboard-screenshots: build the server first (swift build)" >&2; exit 1; }

work=$(mktemp -d)
pid=
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
secret=$(openssl rand -hex 32)
pass_type=pass.dev.passserver.event
export DATABASE_URL="sqlite://$work/passes.db"
"$server" certs dev --dir "$work/certs" >/dev/null
"$server" migrate >/dev/null
admin=$("$server" token create --name organizer --role admin 2>/dev/null)
env HTTP_PORT="$port" PUBLIC_URL="https://passes.example.org" ORGANIZATION_NAME="Harbour Hall" TOKEN_SECRET="$secret" \
    PASS_CERTIFICATE="$work/certs/pass-certificate.pem" PASS_PRIVATE_KEY="$work/certs/pass-key.pem" \
    WWDR_CERTIFICATE="$work/certs/wwdr.pem" APNS_MODE=log LOG_LEVEL=warning \
    "$server" serve >"$work/server.log" 2>&1 &
pid=$!
base="http://127.0.0.1:$port"
for _ in $(seq 100); do curl -sf "$base/healthz" >/dev/null && break; sleep 0.1; done
curl -sf "$base/healthz" >/dev/null || { cat "$work/server.log" >&2; exit 1; }

api() { curl -sf -X "$1" -H "Authorization: Bearer $admin" -H "Content-Type: application/json" --data "$3" "$base$2"; }
field() { python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }

event=$(api POST /admin/v1/events '{"name": "Autumn Jazz Night", "venue": "Harbour Hall, Main Stage",
    "startsAt": "2026-10-17T19:30:00Z", "endsAt": "2026-10-17T23:00:00Z", "timeZone": "Europe/Lisbon", "confirmPastStart": true}' | field id)
serials=()
downloads=()
while IFS='|' read -r name email seat; do
    ticket=$(api POST "/admin/v1/events/$event/tickets" "{\"attendeeName\": \"$name\", \"attendeeEmail\": \"$email\", \"seat\": \"$seat\"}")
    serials+=("$(field serialNumber <<<"$ticket")")
    downloads+=("$(field downloadURL <<<"$ticket")")
done <<'ATTENDEES'
Ana Sousa|ana.sousa@example.org|A-12
Bruno Carvalho|bruno.c@example.org|A-13
Chloé Martin|chloe.martin@example.org|B-4
David Okafor|d.okafor@example.org|B-5
Emma Lindqvist|emma.l@example.org|C-1
Farid Haddad|farid@example.org|C-2
Grace Liu|grace.liu@example.org|C-3
Hiro Tanaka|hiro.tanaka@example.org|D-8
Inês Ferreira|ines.f@example.org|D-9
Jonas Weber|jonas.weber@example.org|D-10
ATTENDEES

# Six tickets on phones (registered as Wallet registers), three checked in at the door, one cancelled.
token() {
    printf 'auth\0%s\0%s' "$pass_type" "$1" | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$secret" -binary | base64 | tr '+/' '-_' | tr -d '='
}
for i in 0 1 2 3 5 7; do
    curl -sf -o /dev/null -X POST -H "Authorization: ApplePass $(token "${serials[$i]}")" -H "Content-Type: application/json" \
        --data "{\"pushToken\": \"$(printf '%064x' $((i + 1)))\"}" "$base/v1/devices/phone$(printf '%027d' "$i")/registrations/$pass_type/${serials[$i]}"
done
# A ticket's barcode: serial~mac, the first 12 bytes of the HMAC in base64url (docs/checkin.md).
code() {
    printf '%s~%s' "$1" "$(printf 'barcode\0%s\0%s' "$pass_type" "$1" | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$secret" -binary \
        | head -c 12 | base64 | tr '+/' '-_' | tr -d '=')"
}
for i in 0 2 5; do api POST /admin/v1/checkins "{\"code\": \"$(code "${serials[$i]}")\", \"gate\": \"North\"}" >/dev/null; done
api POST "/admin/v1/tickets/${serials[9]}/cancel" '{"reason": "Refunded"}' >/dev/null
# Four phones then do what a push makes Wallet do: ask what changed, fetch the pass (up to date).
for i in 0 1 2 5; do
    device="phone$(printf '%027d' "$i")"
    curl -sf -o /dev/null "$base/v1/devices/$device/registrations/$pass_type"
    curl -sf -o /dev/null -H "Authorization: ApplePass $(token "${serials[$i]}")" "$base/v1/passes/$pass_type/${serials[$i]}"
done

mkdir -p "$out"
SERVER_URL="$base" ADMIN_TOKEN="$admin" EVENT_ID="$event" SERIAL="${serials[0]}" CODE="$(code "${serials[0]}")" \
    DOWNLOAD_PATH="/${downloads[4]#https://*/}" SCREENSHOTS="$out" OUTPUT_DIR="$work/browser" \
    PYTHONPATH=Tests/Browser /usr/bin/python3 scripts/dashboard_screenshots.py
echo "wrote $out/{event,ticket,attendee,scanner}-page.png"
