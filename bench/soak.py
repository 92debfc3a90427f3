#!/usr/bin/env python3
"""Traffic and report for the soak test (bench/soak.sh). Standard library only.

  soak.py traffic --bases URL,URL --admin TOKEN --event ID --pass-type TYPE --tickets TSV
                  --duration SECONDS --out RESULTS.json [--phones N] [--rate REQUESTS_PER_SECOND]
      Simulated phones (register, list with the last tag, fetch with If-Modified-Since, log) and
      an organizer (ticket renames, event edits) spread over the instances, for DURATION seconds.
      Writes every fact the report needs to RESULTS.json.

  soak.py report --results RESULTS.json --pushes PUSHLOG --windows WINDOWS --registrations TSV
                 --rss RSS [--grace SECONDS]
      Prints the Markdown report: requests by status, 5xx outside the database outage windows,
      registrations acknowledged vs stored, pushes expected vs delivered, duplicate pushes, RSS.
"""
import argparse
import collections
import http.client
import json
import random
import secrets
import sys
import threading
import time
import urllib.parse


def now_ms():
    return int(time.time() * 1000)


class Connections:
    """One keep-alive connection per instance for the calling thread."""

    def __init__(self, bases):
        self.targets = [urllib.parse.urlsplit(base) for base in bases]
        self.open = {}

    def request(self, index, method, path, headers=None, body=None):
        target = self.targets[index]
        connection = self.open.get(index)
        if connection is None:
            connection = http.client.HTTPConnection(target.hostname, target.port, timeout=15)
            self.open[index] = connection
        data = json.dumps(body).encode() if body is not None else None
        all_headers = dict(headers or {})
        if data is not None:
            all_headers["Content-Type"] = "application/json"
        try:
            connection.request(method, path, body=data, headers=all_headers)
            response = connection.getresponse()
            payload = response.read()
            if response.getheader("Connection", "").lower() == "close":
                connection.close()
                self.open.pop(index, None)
            return response.status, payload, dict(response.getheaders())
        except (OSError, http.client.HTTPException):
            connection.close()
            self.open.pop(index, None)
            return None, b"", {}


class Recorder:
    """Everything the report needs, shared by the traffic threads."""

    def __init__(self):
        self.lock = threading.Lock()
        self.statuses = collections.Counter()
        self.server_errors = []      # [ms, instance, route, status]
        self.registrations = []      # [sent ms, acknowledged ms or None, device, serial]
        self.changes = []            # [sent ms, acknowledged, kind, target]

    def status(self, instance, route, status, sent):
        key = "error" if status is None else str(status)
        with self.lock:
            self.statuses[key] += 1
            if status is not None and status >= 500:
                self.server_errors.append([sent, instance, route, status])


class Phone:
    def __init__(self, serials):
        self.device = secrets.token_hex(16)
        self.push_token = secrets.token_hex(32)
        self.serials = serials
        self.registered = set()
        self.tag = None
        self.modified = {}
        self.address = f"10.{random.randint(0, 255)}.{random.randint(0, 255)}.{random.randint(1, 254)}"


def traffic(args):
    bases = args.bases.split(",")
    tokens = {}
    with open(args.tickets) as handle:
        for line in handle:
            serial, token = line.rstrip("\n").split("\t")
            tokens[serial] = token
    serials = sorted(tokens)
    phones = [Phone(random.sample(serials, random.randint(1, 3))) for _ in range(args.phones)]
    recorder = Recorder()
    stop_at = time.time() + args.duration
    counter = iter(range(1 << 62))
    counter_lock = threading.Lock()

    def next_instance():
        with counter_lock:
            return next(counter) % len(bases)

    def phone_worker(mine, rate):
        connections = Connections(bases)
        pass_type = args.pass_type
        while time.time() < stop_at:
            time.sleep(random.expovariate(rate))
            phone = random.choice(mine)
            instance = next_instance()
            unregistered = [serial for serial in phone.serials if serial not in phone.registered]
            roll = random.random()
            sent = now_ms()
            if unregistered or roll < 0.05:
                serial = unregistered[0] if unregistered else random.choice(phone.serials)
                route = "POST /v1/devices/:d/registrations/:t/:s"
                status, _, _ = connections.request(
                    instance, "POST", f"/v1/devices/{phone.device}/registrations/{pass_type}/{serial}",
                    {"Authorization": f"ApplePass {tokens[serial]}"}, {"pushToken": phone.push_token})
                acknowledged = now_ms() if status in (200, 201) else None
                if acknowledged:
                    phone.registered.add(serial)
                with recorder.lock:
                    recorder.registrations.append([sent, acknowledged, phone.device, serial])
            elif roll < 0.50:
                route = "GET /v1/devices/:d/registrations/:t"
                query = f"?passesUpdatedSince={phone.tag}" if phone.tag else ""
                status, payload, _ = connections.request(
                    instance, "GET", f"/v1/devices/{phone.device}/registrations/{pass_type}{query}")
                if status == 200:
                    phone.tag = json.loads(payload).get("lastUpdated", phone.tag)
            elif roll < 0.95:
                serial = random.choice(sorted(phone.registered) or phone.serials)
                route = "GET /v1/passes/:t/:s"
                headers = {"Authorization": f"ApplePass {tokens[serial]}"}
                if serial in phone.modified:
                    headers["If-Modified-Since"] = phone.modified[serial]
                status, _, response_headers = connections.request(instance, "GET", f"/v1/passes/{pass_type}/{serial}", headers)
                if status == 200 and "Last-Modified" in response_headers:
                    phone.modified[serial] = response_headers["Last-Modified"]
            else:
                route = "POST /v1/log"
                status, _, _ = connections.request(
                    instance, "POST", "/v1/log", {"X-Forwarded-For": phone.address},
                    {"logs": [f"soak: phone {phone.device[:8]} could not do something"]})
            recorder.status(instance, route, status, sent)

    def organizer():
        connections = Connections(bases)
        auth = {"Authorization": f"Bearer {args.admin}"}
        renames = 0
        edit_interval = args.event_edit_interval or max(5.0, min(60.0, args.duration / 5))
        next_edit = time.time() + args.duration / 20
        while time.time() < stop_at:
            time.sleep(random.expovariate(1 / args.rename_interval))
            instance = next_instance()
            sent = now_ms()
            if time.time() >= next_edit:
                next_edit = time.time() + edit_interval
                kind, target = "event", args.event
                route = "PATCH /admin/v1/events/:id"
                status, _, _ = connections.request(instance, "PATCH", f"/admin/v1/events/{target}", auth,
                                                   {"venue": f"Soak Hall {sent}"})
            else:
                renames += 1
                kind, target = "ticket", random.choice(serials)
                route = "PATCH /admin/v1/tickets/:s"
                status, _, _ = connections.request(instance, "PATCH", f"/admin/v1/tickets/{target}", auth,
                                                   {"attendeeName": f"Soak Attendee {renames}"})
            recorder.status(instance, route, status, sent)
            with recorder.lock:
                recorder.changes.append([sent, status == 200, kind, target])

    workers = max(1, min(args.workers, len(phones)))
    threads = [threading.Thread(target=organizer, daemon=True)]
    for index in range(workers):
        threads.append(threading.Thread(target=phone_worker, args=(phones[index::workers], args.rate / workers), daemon=True))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(args.duration + 60)
    with open(args.out, "w") as handle:
        json.dump({
            "statuses": dict(recorder.statuses),
            "server_errors": recorder.server_errors,
            "registrations": recorder.registrations,
            "changes": recorder.changes,
            "phones": [{"device": phone.device, "push_token": phone.push_token} for phone in phones],
            "event_serials": serials,
        }, handle)


def mebibytes(kib):
    return f"{kib / 1024:.1f} MiB" if kib else "—"


def report(args):
    with open(args.results) as handle:
        results = json.load(handle)
    windows = []
    with open(args.windows) as handle:
        for line in handle:
            kind, start, end = line.split()
            windows.append((kind, int(start), int(end)))
    pushes = collections.defaultdict(list)
    statuses_at_fake = collections.Counter()
    with open(args.pushes) as handle:
        for line in handle:
            parts = line.split()
            if len(parts) == 3:
                statuses_at_fake[parts[1]] += 1
                if parts[1] == "200":
                    pushes[parts[2]].append(int(parts[0]))
    stored = set()
    with open(args.registrations) as handle:
        for line in handle:
            if "\t" in line:
                device, serial = line.rstrip("\n").split("\t")
                stored.add((device, serial))

    print("### Requests by status\n")
    print("| status | requests |\n|---|---|")
    for status, count in sorted(results["statuses"].items()):
        print(f"| {status} | {count} |")
    total = sum(results["statuses"].values())
    print(f"| all | {total} |\n")

    grace = args.grace * 1000
    database = [(start, end + grace) for kind, start, end in windows if kind == "database"]
    inside = [error for error in results["server_errors"] if any(start <= error[0] <= end for start, end in database)]
    outside = [error for error in results["server_errors"] if error not in inside]
    print("### Outage windows\n")
    print("| what | from (s after traffic start) | for (s) |\n|---|---|---|")
    origin = min(start for _, start, _ in windows) if windows else 0
    traffic_start = args.traffic_start or origin
    for kind, start, end in windows:
        print(f"| {kind} | {(start - traffic_start) / 1000:.1f} | {(end - start) / 1000:.1f} |")
    print()
    print(f"- 5xx inside the database outage windows (each extended by {args.grace} s): {len(inside)}")
    print(f"- **5xx outside the database outage windows: {len(outside)}** (goal 0)")
    by_route = collections.Counter((error[2], error[3]) for error in outside)
    for (route, status), count in by_route.most_common(10):
        print(f"  - {status} {route}: {count}")

    acknowledged = {(device, serial) for _, ack, device, serial in results["registrations"] if ack}
    missing = acknowledged - stored
    ours = {(device, serial) for _, _, device, serial in results["registrations"]}
    unacknowledged_stored = (stored & ours) - acknowledged
    print(f"- Registrations acknowledged (200/201): {len(acknowledged)}; stored: {len(acknowledged & stored)}; "
          f"**acknowledged but missing: {len(missing)}** (goal 0); stored without an acknowledgement "
          f"(the answer was lost): {len(unacknowledged_stored)}")

    token_of = {phone["device"]: phone["push_token"] for phone in results["phones"]}
    event_serials = set(results["event_serials"])
    acked_at = {}
    attempted_at = collections.defaultdict(list)
    for sent, ack, device, serial in results["registrations"]:
        attempted_at[serial].append((sent, device))
        if ack and ((device, serial) not in acked_at or ack < acked_at[(device, serial)]):
            acked_at[(device, serial)] = ack
    registered_by_serial = collections.defaultdict(list)
    for (device, serial), ack in acked_at.items():
        registered_by_serial[serial].append((ack, device))
    last_change = {}
    expected_pairs = 0
    explaining = collections.defaultdict(list)
    acknowledged_changes = [change for change in results["changes"] if change[1]]
    for sent, ok, kind, target in results["changes"]:
        affected = event_serials if kind == "event" else {target}
        for serial in affected:
            for when, device in attempted_at.get(serial, []):
                if when < sent:
                    explaining[token_of[device]].append(sent)
            if not ok:
                continue
            for ack, device in registered_by_serial.get(serial, []):
                if ack < sent:
                    token = token_of[device]
                    expected_pairs += 1
                    last_change[token] = max(last_change.get(token, 0), sent)
    delivered = [token for token, when in last_change.items() if any(push >= when for push in pushes.get(token, []))]
    undelivered = len(last_change) - len(delivered)
    duplicates = 0
    for token, times in pushes.items():
        times.sort()
        causes = sorted(explaining.get(token, []))
        for index, push in enumerate(times):
            previous = times[index - 1] if index else -1
            if not any(previous - 2000 < cause <= push for cause in causes):
                duplicates += 1
    renames = sum(1 for change in acknowledged_changes if change[2] == "ticket")
    edits = sum(1 for change in acknowledged_changes if change[2] == "event")
    print(f"- Changes acknowledged: {renames} ticket renames, {edits} event edits; pushes enqueued for them "
          f"(change × registered token): {expected_pairs}")
    print(f"- Tokens to push: {len(last_change)}; **tokens whose push arrived after their last change: "
          f"{len(delivered)}** (goal {len(last_change)}); not delivered: {undelivered}")
    print(f"- Pushes answered by the fake APNs: {sum(statuses_at_fake.values())} "
          f"({', '.join(f'{status}: {count}' for status, count in sorted(statuses_at_fake.items()))}); "
          f"**duplicate pushes** (no change since the token's previous push): {duplicates}")
    print("\n### Memory (RSS)\n")
    print("| process | at start | at end |\n|---|---|---|")
    names = {"a": "instance A", "b": "instance B (until SIGKILL)", "b'": "instance B, restarted"}
    with open(args.rss) as handle:
        rows = {}
        for line in handle:
            instance, phase, kib = line.split()
            rows.setdefault(instance, {})[phase] = int(kib)
    for instance, phases in rows.items():
        start = phases.get("start")
        end = phases.get("end", phases.get("before-kill"))
        print(f"| {names.get(instance, instance)} | {mebibytes(start)} | {mebibytes(end)} |")
    failed = len(outside) > 0 or len(missing) > 0 or undelivered > 0
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("traffic")
    run.add_argument("--bases", required=True)
    run.add_argument("--admin", required=True)
    run.add_argument("--event", required=True)
    run.add_argument("--pass-type", required=True)
    run.add_argument("--tickets", required=True)
    run.add_argument("--duration", type=float, required=True)
    run.add_argument("--out", required=True)
    run.add_argument("--phones", type=int, default=150)
    run.add_argument("--workers", type=int, default=8)
    run.add_argument("--rate", type=float, default=40.0, help="phone requests per second, all workers together")
    run.add_argument("--rename-interval", type=float, default=2.0, help="mean seconds between ticket renames")
    run.add_argument("--event-edit-interval", type=float, default=0.0, help="seconds between event edits (0: a fifth of the duration, at most 60)")
    summary = commands.add_parser("report")
    summary.add_argument("--results", required=True)
    summary.add_argument("--pushes", required=True)
    summary.add_argument("--windows", required=True)
    summary.add_argument("--registrations", required=True)
    summary.add_argument("--rss", required=True)
    summary.add_argument("--grace", type=float, default=10.0, help="seconds after a database outage still counted in it")
    summary.add_argument("--traffic-start", type=int, default=0)
    args = parser.parse_args()
    if args.command == "traffic":
        traffic(args)
        return 0
    return report(args)


if __name__ == "__main__":
    sys.exit(main())
