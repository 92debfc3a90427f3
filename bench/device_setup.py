#!/usr/bin/env python3
"""Prepares the device benchmark (bench/device.sh) over the public APIs of a running pass-server.

  device_setup.py tickets BASE ADMIN_TOKEN COUNT
      creates an event and COUNT tickets; prints "eventId<TAB>passTypeIdentifier".
  device_setup.py devices BASE ADMIN_TOKEN PASS_TYPE TOKENS_TSV DEVICES_TSV
      registers one device per pass and records the tag each device gets, renames every tenth
      attendee (so a tenth of the lists are non-empty), fetches every pass at its current revision
      (warms the bundle cache), and writes "device<TAB>tag" lines.
"""
import http.client
import json
import secrets
import sys
import urllib.parse


class Client:
    def __init__(self, base):
        url = urllib.parse.urlsplit(base)
        self.connection = http.client.HTTPConnection(url.hostname, url.port, timeout=60)

    def request(self, method, path, headers=None, body=None):
        data = json.dumps(body).encode() if body is not None else None
        all_headers = dict(headers or {})
        if data is not None:
            all_headers["Content-Type"] = "application/json"
        self.connection.request(method, path, body=data, headers=all_headers)
        response = self.connection.getresponse()
        payload = response.read()
        return response.status, payload


def expect(status, payload, wanted, what):
    if status not in wanted:
        sys.exit(f"device_setup: {what} answered {status}: {payload[:300]!r}")


def tickets(base, admin, count):
    client = Client(base)
    auth = {"Authorization": f"Bearer {admin}"}
    status, payload = client.request("POST", "/admin/v1/events", auth, {
        "name": "Benchmark Night", "venue": "Loopback Hall",
        "startsAt": "2030-03-01T19:00:00+09:00", "timeZone": "Asia/Tokyo",
    })
    expect(status, payload, {201}, "create event")
    event = json.loads(payload)["id"]
    pass_type = None
    for index in range(count):
        status, payload = client.request("POST", f"/admin/v1/events/{event}/tickets", auth,
                                         {"attendeeName": f"Attendee {index}", "seat": f"R{index // 40}-{index % 40}"})
        expect(status, payload, {201}, "issue ticket")
        pass_type = json.loads(payload)["passTypeIdentifier"]
    print(f"{event}\t{pass_type}")


def devices(base, admin, pass_type, tokens_path, devices_path):
    client = Client(base)
    with open(tokens_path) as handle:
        passes = [line.rstrip("\n").split("\t") for line in handle if "\t" in line]
    if not passes:
        sys.exit("device_setup: no tokens")
    rows = []
    for serial, token in passes:
        auth = {"Authorization": f"ApplePass {token}"}
        status, payload = client.request("GET", f"/v1/passes/{pass_type}/{serial}", auth)
        expect(status, payload, {200}, "warm fetch")
        device = secrets.token_hex(16)
        status, payload = client.request("POST", f"/v1/devices/{device}/registrations/{pass_type}/{serial}", auth,
                                         {"pushToken": secrets.token_hex(32)})
        expect(status, payload, {201}, "register")
        status, payload = client.request("GET", f"/v1/devices/{device}/registrations/{pass_type}")
        expect(status, payload, {200}, "first list")
        rows.append((device, json.loads(payload)["lastUpdated"]))
    admin_auth = {"Authorization": f"Bearer {admin}"}
    for serial, token in passes[::10]:
        status, payload = client.request("PATCH", f"/admin/v1/tickets/{serial}", admin_auth, {"attendeeName": "Renamed Attendee"})
        expect(status, payload, {200}, "rename")
        status, payload = client.request("GET", f"/v1/passes/{pass_type}/{serial}", {"Authorization": f"ApplePass {token}"})
        expect(status, payload, {200}, "warm fetch after rename")
    with open(devices_path, "w") as handle:
        for device, tag in rows:
            handle.write(f"{device}\t{tag}\n")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "tickets":
        tickets(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif len(sys.argv) == 7 and sys.argv[1] == "devices":
        devices(*sys.argv[2:7])
    else:
        sys.exit(__doc__)
