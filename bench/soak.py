#!/usr/bin/env python3
"""Traffic, report and verdict of the soak test (bench/soak.sh). Standard library only.

  soak.py traffic --bases URL,URL --admin TOKEN --event ID --pass-type TYPE --tickets TSV
                  --duration SECONDS --out RESULTS.json [--phones N] [--rate REQUESTS_PER_SECOND]
      Simulated phones (register, list with the last tag, fetch with If-Modified-Since, log) and
      an organizer (ticket renames, event edits) spread over the instances, for DURATION seconds.
      Writes every request (time, instance, route, status) and every fact the report needs to
      RESULTS.json.

  soak.py report --results RESULTS.json --pushes PUSHLOG --windows WINDOWS --registrations TSV
                 --rss SAMPLES [--jobs TSV] [--in-flight FILE] [--pending N] [--pending-jobs N]
                 [--bundle-cache-bytes N] [--out REPORT.json]
      Gathers the run's facts into a report (`build_report`), decides on it (`judge`) and prints
      both in Markdown: requests by status and route, outage windows, registrations acknowledged
      vs stored, pushes expected vs delivered, duplicate pushes against the pushes in flight, RSS,
      and the verdict. Exits 1 when `judge` found a reason to fail the run.

  soak.py judge REPORT.json
      The verdict alone, on a report written by `report --out`: one `FAIL: reason` line per
      missed goal (exit 1), or `PASS`. bench/soak_judge_test.py feeds it bad runs.
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
        self.requests = []           # [sent ms, instance index, route, status or None (no answer)]
        self.registrations = []      # [sent ms, acknowledged ms or None, device, serial]
        self.changes = []            # [sent ms, acknowledged, kind, target, job id or None]

    def status(self, instance, route, status, sent):
        with self.lock:
            self.requests.append([sent, instance, route, status])


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
    started = now_ms()
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
                status, payload, _ = connections.request(instance, "PATCH", f"/admin/v1/events/{target}", auth,
                                                         {"venue": f"Soak Hall {sent}"})
                job = None
                if status == 200:
                    job = ((json.loads(payload) or {}).get("job") or {}).get("id")
            else:
                renames += 1
                kind, target = "ticket", random.choice(serials)
                route = "PATCH /admin/v1/tickets/:s"
                status, _, _ = connections.request(instance, "PATCH", f"/admin/v1/tickets/{target}", auth,
                                                   {"attendeeName": f"Soak Attendee {renames}"})
                job = None
            recorder.status(instance, route, status, sent)
            with recorder.lock:
                recorder.changes.append([sent, status == 200, kind, target, job])

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
            "duration_s": args.duration,
            "rate": args.rate,
            "start_ms": started,
            "end_ms": now_ms(),
            "requests": recorder.requests,
            "registrations": recorder.registrations,
            "changes": recorder.changes,
            "phones": [{"device": phone.device, "push_token": phone.push_token} for phone in phones],
            "event_serials": serials,
        }, handle)


# What the scenario expects each route to answer (docs/device.md, docs/admin.md). Anything else is
# unexpected: a 5xx is allowed only inside a database outage window, another status or no answer
# only inside an outage window of the instance asked (a database outage: both instances; the
# SIGKILL of instance B: B).
EXPECTED = {
    "POST /v1/devices/:d/registrations/:t/:s": {200, 201},
    "GET /v1/devices/:d/registrations/:t": {200, 204},
    "GET /v1/passes/:t/:s": {200, 304},
    "POST /v1/log": {200},
    "PATCH /admin/v1/tickets/:s": {200},
    "PATCH /admin/v1/events/:id": {200},
}
INSTANCES = ("a", "b")
# The outage windows extend this long past their end (a pool reconnecting, a restarted instance's
# first requests) and this long before their start (a request sent just before).
GRACE_AFTER_MS = 10_000
GRACE_BEFORE_MS = 1_000
# RSS a process may gain over the second half of its time under traffic: this much plus the
# signed-bundle cache's budget (BUNDLE_CACHE_SIZE), which may still be filling.
RSS_SLACK_MIB = 16
# The traffic driver must have sent at least this share of rate × duration requests.
MINIMUM_TRAFFIC_SHARE = 0.5


def mebibytes(kib):
    return f"{kib / 1024:.1f} MiB" if kib else "—"


def read_windows(path):
    windows = []
    with open(path) as handle:
        for line in handle:
            kind, start, end = line.split()
            windows.append({"kind": kind, "start_ms": int(start), "end_ms": int(end)})
    return windows


def read_pushes(path):
    """[(ms, status, token)] as the fake APNs logged them."""
    pushes = []
    with open(path) as handle:
        for line in handle:
            parts = line.split()
            if len(parts) == 3:
                pushes.append((int(parts[0]), parts[1], parts[2]))
    return pushes


def count_duplicates(results, pushes, jobs):
    """Tokens to push, tokens pushed after their last change, and duplicate pushes (none of the
    token's changes sent since its previous push, 2 s of slack; an event edit's change lasts until
    its re-push job finished)."""
    token_of = {phone["device"]: phone["push_token"] for phone in results["phones"]}
    event_serials = set(results["event_serials"])
    delivered_at = collections.defaultdict(list)
    for when, status, token in pushes:
        if status == "200":
            delivered_at[token].append(when)
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
    causes = collections.defaultdict(list)
    for sent, ok, kind, target, job in results["changes"]:
        affected = event_serials if kind == "event" else {target}
        until = sent
        if kind == "event":
            until = jobs.get(job) or results["end_ms"] + 3_600_000
        for serial in affected:
            for when, device in attempted_at.get(serial, []):
                if when < sent:
                    causes[token_of[device]].append((sent, until))
            if not ok:
                continue
            for ack, device in registered_by_serial.get(serial, []):
                if ack < sent:
                    token = token_of[device]
                    expected_pairs += 1
                    last_change[token] = max(last_change.get(token, 0), sent)
    delivered = [token for token, when in last_change.items() if any(push >= when for push in delivered_at.get(token, []))]
    duplicates = 0
    for token, times in delivered_at.items():
        times.sort()
        for index, push in enumerate(times):
            previous = times[index - 1] if index else -1
            if not any(start <= push and until > previous - 2000 for start, until in causes.get(token, [])):
                duplicates += 1
    return {
        "expected_pairs": expected_pairs, "tokens_to_push": len(last_change), "delivered": len(delivered),
        "duplicates": duplicates,
    }


def build_report(args):
    """The facts of a run, from the files bench/soak.sh and the traffic driver wrote: what `judge`
    decides on and `print_report` prints."""
    with open(args.results) as handle:
        results = json.load(handle)
    windows = read_windows(args.windows)
    pushes = read_pushes(args.pushes)
    stored = set()
    with open(args.registrations) as handle:
        for line in handle:
            if "\t" in line:
                device, serial = line.rstrip("\n").split("\t")
                stored.add((device, serial))
    jobs = {}
    if args.jobs:
        with open(args.jobs) as handle:
            for line in handle:
                parts = line.rstrip("\n").split("\t")
                if len(parts) == 2 and parts[1]:
                    jobs[parts[0]] = int(parts[1])
    in_flight = {}
    if args.in_flight:
        with open(args.in_flight) as handle:
            for line in handle:
                name, count = line.split()
                in_flight[name] = int(count) if count.isdigit() else None
    # Pushes the fake logged in its last second before it was stopped: it logs a push just before
    # answering it, so these may have gone unanswered and be sent again (docs/apns.md: in-flight
    # pushes of a lost connection may or may not have been delivered).
    stops = [window["start_ms"] for window in windows if window["kind"] == "apns"]
    in_flight["apns_stop"] = sum(1 for when, _, _ in pushes if any(stop - 1000 <= when <= stop for stop in stops))
    rss = collections.defaultdict(list)
    with open(args.rss) as handle:
        for line in handle:
            parts = line.split()
            if len(parts) == 3 and parts[2].isdigit() and int(parts[2]) > 0:
                rss[parts[0]].append([int(parts[1]), int(parts[2])])

    acknowledged = {(device, serial) for _, ack, device, serial in results["registrations"] if ack}
    ours = {(device, serial) for _, _, device, serial in results["registrations"]}
    statuses_at_fake = collections.Counter(status for _, status, _ in pushes)
    changes = [change for change in results["changes"] if change[1]]
    return {
        "duration_s": results["duration_s"],
        "rate": results["rate"],
        "traffic_start_ms": results["start_ms"],
        "traffic_end_ms": results["end_ms"],
        "windows": windows,
        "requests": results["requests"],
        "registrations": {
            "acknowledged": len(acknowledged), "stored": len(acknowledged & stored),
            "missing": len(acknowledged - stored), "stored_unacknowledged": len((stored & ours) - acknowledged),
        },
        "changes": {"renames": sum(1 for change in changes if change[2] == "ticket"),
                    "edits": sum(1 for change in changes if change[2] == "event")},
        "pushes": dict(count_duplicates(results, pushes, jobs), answered_by_fake=dict(statuses_at_fake)),
        "in_flight": in_flight,
        "left_after_drain": {"pushes": args.pending, "jobs": args.pending_jobs},
        "rss": dict(rss),
        "bundle_cache_bytes": args.bundle_cache_bytes,
    }


def outage_windows(report, instance):
    """(start, end) in ms of the windows in which `instance` may fail to answer, grace included."""
    spans = []
    for window in report["windows"]:
        if window["kind"] == "database" or window["kind"] == f"instance-{instance}-killed":
            spans.append((window["start_ms"] - GRACE_BEFORE_MS, window["end_ms"] + GRACE_AFTER_MS))
    return spans


def database_windows(report):
    return [(window["start_ms"] - GRACE_BEFORE_MS, window["end_ms"] + GRACE_AFTER_MS)
            for window in report["windows"] if window["kind"] == "database"]


def rss_growth(samples, start, end):
    """(RSS at the midpoint of the samples taken in [start, end], RSS at the last of them) in KiB,
    or None with fewer than 4 samples."""
    inside = sorted(sample for sample in samples if start <= sample[0] <= end)
    if len(inside) < 4:
        return None
    middle = (inside[0][0] + inside[-1][0]) / 2
    at_middle = min(inside, key=lambda sample: abs(sample[0] - middle))
    return at_middle[1], inside[-1][1]


def rss_bound_kib(report):
    return RSS_SLACK_MIB * 1024 + (report.get("bundle_cache_bytes") or 0) // 1024


def duplicate_bound(report):
    in_flight = report.get("in_flight") or {}
    return sum(count for count in in_flight.values() if isinstance(count, int))


def judge(report):
    """The reasons the run fails, each a sentence; none when it met every goal. Pure: reads only
    `report` (what `build_report` returns)."""
    failures = []
    database = database_windows(report)

    def inside(spans, when):
        return any(start <= when <= end for start, end in spans)

    unexpected = collections.Counter()
    examples = {}
    answered = collections.Counter()
    for sent, instance, route, status in report["requests"]:
        expected = EXPECTED.get(route, set())
        if status in expected:
            answered[route] += 1
            continue
        name = INSTANCES[instance] if 0 <= instance < len(INSTANCES) else str(instance)
        if status is not None and status >= 500:
            if inside(database, sent):
                continue
            kind = f"{status} outside the database outage windows"
        elif status is None:
            if inside(outage_windows(report, name), sent):
                continue
            kind = "no answer (timeout or connection error) outside the outage windows"
        else:
            if inside(outage_windows(report, name), sent):
                continue
            kind = f"unexpected {status} outside the outage windows"
        unexpected[(kind, route)] += 1
        examples.setdefault((kind, route), (sent - report["traffic_start_ms"], name))
    for (kind, route), count in sorted(unexpected.items()):
        at, name = examples[(kind, route)]
        failures.append(f"{count} × {kind}: {route} (first {at / 1000:.1f} s after the start, instance {name})")

    wanted = report["rate"] * report["duration_s"] * MINIMUM_TRAFFIC_SHARE
    if len(report["requests"]) < wanted:
        failures.append(f"the traffic driver sent {len(report['requests'])} requests, fewer than "
                        f"{MINIMUM_TRAFFIC_SHARE:.0%} of rate × duration ({wanted:.0f})")
    for route in EXPECTED:
        if answered[route] == 0:
            failures.append(f"{route} never got an expected answer ({', '.join(map(str, sorted(EXPECTED[route])))})")

    registrations = report["registrations"]
    if registrations["missing"]:
        failures.append(f"{registrations['missing']} acknowledged registrations are missing from the database")
    pushes = report["pushes"]
    if pushes["delivered"] < pushes["tokens_to_push"]:
        failures.append(f"{pushes['tokens_to_push'] - pushes['delivered']} of {pushes['tokens_to_push']} tokens "
                        f"got no push after their last change")
    bound = duplicate_bound(report)
    if pushes["duplicates"] > bound:
        failures.append(f"{pushes['duplicates']} duplicate pushes, more than the {bound} in flight "
                        f"(outbox rows instance B held at its kill, pushes the fake logged in its last second)")
    left = report.get("left_after_drain") or {}
    for what in ("pushes", "jobs"):
        if left.get(what) != 0:
            failures.append(f"{left.get(what)} {what} still pending after the drain")

    limit = rss_bound_kib(report)
    start, end = report["traffic_start_ms"], report["traffic_end_ms"]
    for name in ("a", "b", "b'"):
        growth = rss_growth(report["rss"].get(name, []), start, end)
        if growth is None:
            failures.append(f"fewer than 4 RSS samples of {name} during the traffic")
        elif growth[1] - growth[0] > limit:
            failures.append(f"RSS of {name} grew by {mebibytes(growth[1] - growth[0])} over the second half of its time "
                            f"under traffic ({mebibytes(growth[0])} → {mebibytes(growth[1])}), more than {mebibytes(limit)}")
    return failures


def print_report(report, failures):
    requests = report["requests"]
    origin = report["traffic_start_ms"]
    print("### Requests by status\n")
    by_status = collections.Counter("error" if status is None else str(status) for _, _, _, status in requests)
    print("| status | requests |\n|---|---|")
    for status, count in sorted(by_status.items()):
        print(f"| {status} | {count} |")
    print(f"| all | {len(requests)} |\n")
    print("| route | answers |\n|---|---|")
    by_route = collections.defaultdict(collections.Counter)
    for _, _, route, status in requests:
        by_route[route]["no answer" if status is None else str(status)] += 1
    for route, counts in sorted(by_route.items()):
        print(f"| {route} | {', '.join(f'{status}: {count}' for status, count in sorted(counts.items()))} |")
    print()
    print("### Outage windows\n")
    print("| what | from (s after traffic start) | for (s) |\n|---|---|---|")
    for window in report["windows"]:
        print(f"| {window['kind']} | {(window['start_ms'] - origin) / 1000:.1f} | "
              f"{(window['end_ms'] - window['start_ms']) / 1000:.1f} |")
    print()
    database = database_windows(report)
    errors = [request for request in requests if request[3] is not None and request[3] >= 500]
    inside = [request for request in errors if any(start <= request[0] <= end for start, end in database)]
    print(f"- 5xx inside the database outage windows (each extended by {GRACE_AFTER_MS // 1000} s): {len(inside)}; "
          f"**outside: {len(errors) - len(inside)}** (goal 0)")
    print(f"- Unexpected answers and requests without an answer outside the outage windows: goal 0 "
          f"(expected: {'; '.join(f'{route} {sorted(statuses)}' for route, statuses in EXPECTED.items())})")
    registrations = report["registrations"]
    print(f"- Registrations acknowledged (200/201): {registrations['acknowledged']}; stored: {registrations['stored']}; "
          f"**acknowledged but missing: {registrations['missing']}** (goal 0); stored without an acknowledgement "
          f"(the answer was lost): {registrations['stored_unacknowledged']}")
    pushes = report["pushes"]
    changes = report["changes"]
    print(f"- Changes acknowledged: {changes['renames']} ticket renames, {changes['edits']} event edits; pushes enqueued for "
          f"them (change × registered token): {pushes['expected_pairs']}")
    print(f"- Tokens to push: {pushes['tokens_to_push']}; **tokens whose push arrived after their last change: "
          f"{pushes['delivered']}** (goal {pushes['tokens_to_push']})")
    answered = pushes["answered_by_fake"]
    in_flight = report.get("in_flight") or {}
    print(f"- Pushes answered by the fake APNs: {sum(answered.values())} "
          f"({', '.join(f'{status}: {count}' for status, count in sorted(answered.items()))}); "
          f"**duplicate pushes** (no change since the token's previous push): {pushes['duplicates']} "
          f"(at most {duplicate_bound(report)}: {in_flight.get('instance_b_kill', '?')} outbox rows instance B held "
          f"claimed at its kill, {in_flight.get('apns_stop', '?')} pushes the fake logged in its last second)")
    left = report.get("left_after_drain") or {}
    print(f"- Left after the drain: {left.get('pushes')} pushes, {left.get('jobs')} jobs (goal 0)")
    print("\n### Memory (RSS)\n")
    limit = rss_bound_kib(report)
    print(f"Goal: at most {mebibytes(limit)} of growth over the second half of each process's time under traffic "
          f"({RSS_SLACK_MIB} MiB plus the {mebibytes((report.get('bundle_cache_bytes') or 0) // 1024)} bundle cache budget).\n")
    print("| process | at start | at the midpoint | at the end of the traffic | second-half growth | last sample |\n|---|---|---|---|---|---|")
    names = {"a": "instance A", "b": "instance B (until SIGKILL)", "b'": "instance B, restarted"}
    for name in ("a", "b", "b'"):
        samples = sorted(report["rss"].get(name, []))
        growth = rss_growth(samples, report["traffic_start_ms"], report["traffic_end_ms"])
        if not samples or growth is None:
            print(f"| {names[name]} | — | — | — | — | — |")
            continue
        print(f"| {names[name]} | {mebibytes(samples[0][1])} | {mebibytes(growth[0])} | {mebibytes(growth[1])} | "
              f"{(growth[1] - growth[0]) / 1024:+.1f} MiB | {mebibytes(samples[-1][1])} |")
    print("\n### Verdict\n")
    if failures:
        print("**FAIL**:")
        for failure in failures:
            print(f"- {failure}")
    else:
        print("**PASS**: every goal met.")


def report_command(args):
    report = build_report(args)
    if args.out:
        with open(args.out, "w") as handle:
            json.dump(report, handle)
    failures = judge(report)
    print_report(report, failures)
    return 1 if failures else 0


def judge_command(args):
    with open(args.report) as handle:
        failures = judge(json.load(handle))
    for failure in failures:
        print(f"FAIL: {failure}")
    if not failures:
        print("PASS")
    return 1 if failures else 0


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
    summary.add_argument("--jobs", help="TSV of job id and finished_at (ms)")
    summary.add_argument("--in-flight", help="lines of NAME COUNT: outbox rows in flight at a kill")
    summary.add_argument("--pending", type=int, default=None, help="pushes left in the outbox after the drain")
    summary.add_argument("--pending-jobs", type=int, default=None, help="jobs left unfinished after the drain")
    summary.add_argument("--bundle-cache-bytes", type=int, default=0, help="the instances' BUNDLE_CACHE_SIZE")
    summary.add_argument("--out", help="also write the report (what the verdict is computed from) as JSON")
    verdict = commands.add_parser("judge")
    verdict.add_argument("report", help="a report written by `report --out`")
    args = parser.parse_args()
    if args.command == "traffic":
        traffic(args)
        return 0
    if args.command == "judge":
        return judge_command(args)
    return report_command(args)


if __name__ == "__main__":
    sys.exit(main())
