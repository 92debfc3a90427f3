#!/usr/bin/env python3
"""Checks the running server against openapi.yaml with schemathesis.

Starts the real `pass-server serve --development` binary on a free loopback port, in a scratch
directory, on SQLite or on the PostgreSQL database named by DATABASE_URL; issues one event and one
ticket through the admin API; then runs schemathesis (pinned, installed from PyPI into a throwaway
virtualenv under .build/) with every check, positive and negative cases, and stateful sequences
that follow the document's links (create event -> create ticket -> show, change, cancel it ...).

Authentication: admin operations get the development admin token. Device operations need the
pass's own `ApplePass` token, which the script derives from the TOKEN_SECRET it gives the server
(HMAC-SHA256, as the server does); schemathesis uses the issued pass's serial and pass type for
most generated device requests and made-up ones for the rest, so the registration and pass
endpoints are exercised for real, and wrong or missing credentials must be 401.

Then the dashboard's HTML forms and pages, which the document does not describe, are fuzzed
with hypothesis while signed in (scripts/fuzz_dashboard.py).

    scripts/fuzz.py                 # the full run (`make fuzz`): at least 30,000 schemathesis cases
    scripts/fuzz.py --bounded       # the bounded run of `make test` (at a lower CPU priority)

The full run repeats schemathesis with the seeds S, S+1, ... (each round `--max-examples` per
operation and phase) until `--cases` (FUZZ_CASES, 30,000) cases ran; the bounded run is one round.
Prints the cases and answers per operation and per dashboard route, then
`dashboard: N cases, F failures` and, last,
`schemathesis: N cases (P positive, Q negative), F failures, E server errors logged`; exits 1 on any
failure.
"""

import argparse
import base64
import collections
import hashlib
import hmac
import html
import http.client
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

SCHEMATHESIS_VERSION = "4.32.5"
ROOT = Path(__file__).resolve().parent.parent


def log(message):
    print(f"fuzz: {message}", flush=True)


def virtualenv():
    """The pinned schemathesis executable, installing it into .build/ on first use."""
    directory = ROOT / ".build" / f"schemathesis-{SCHEMATHESIS_VERSION}"
    executable = directory / "bin" / "schemathesis"
    if executable.exists():
        return executable
    log(f"installing schemathesis {SCHEMATHESIS_VERSION} into {directory}")
    subprocess.run([sys.executable, "-m", "venv", str(directory)], check=True)
    subprocess.run([str(directory / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check",
                    f"schemathesis=={SCHEMATHESIS_VERSION}"], check=True)
    return executable


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def request(base, method, path, token=None, body=None):
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    with urllib.request.urlopen(urllib.request.Request(base + path, data=data, method=method, headers=headers), timeout=30) as answer:
        return answer.status, json.loads(answer.read() or b"null")


class Server:
    """`pass-server serve --development` in a scratch directory."""

    def __init__(self, binary, database_url, work):
        self.work = work
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.secret = secrets.token_bytes(32)
        (work / "Passes").symlink_to(ROOT / "Passes")
        (work / "openapi.yaml").symlink_to(ROOT / "openapi.yaml")
        environment = {key: value for key, value in os.environ.items() if not key.startswith(("HTTP_", "PASS_", "APNS_"))}
        environment.update({
            "DEVELOPMENT": "true", "HTTP_HOST": "127.0.0.1", "HTTP_PORT": str(self.port), "APNS_MODE": "log",
            "TOKEN_SECRET": self.secret.hex(), "DATABASE_URL": database_url or f"sqlite://{work}/fuzz.sqlite",
            "LOG_LEVEL": "warning",
            # An https public URL, as in production: the dashboard's cookies are then the
            # `__Host-` ones openapi.yaml names (the run itself talks plain HTTP on loopback).
            "PUBLIC_URL": f"https://127.0.0.1:{self.port}",
        })
        self.output = open(work / "server.log", "wb")
        self.process = subprocess.Popen([str(binary), "serve"], cwd=work, env=environment,
                                        stdout=self.output, stderr=subprocess.STDOUT)
        self.admin_token = self._wait_until_ready()

    def _wait_until_ready(self):
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"fuzz: the server exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                urllib.request.urlopen(self.base + "/healthz", timeout=2).close()
                for line in (self.work / "server.log").read_text(errors="replace").splitlines():
                    if line.strip().startswith("psa_"):
                        return line.strip()
                raise SystemExit("fuzz: the server printed no development admin token (is the database fresh?)")
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.2)
        raise SystemExit(f"fuzz: the server did not answer within 120 s:\n{self.log_tail()}")

    def apple_pass_token(self, pass_type, serial):
        mac = hmac.new(self.secret, f"auth\0{pass_type}\0{serial}".encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(mac).decode().rstrip("=")

    def logged_errors(self):
        """Lines the server logged at error level or above (the level is the second word)."""
        lines = (self.work / "server.log").read_text(errors="replace").splitlines()
        return [line for line in lines if line.split(" ", 2)[1:2] in (["error"], ["critical"])]

    def log_tail(self, lines=40):
        text = (self.work / "server.log").read_text(errors="replace").splitlines()
        return "\n".join(text[-lines:])

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.output.close()


def toml_string(value):
    return json.dumps(value)


def write_config(path, server, serial, pass_type, job, max_examples, seed, workers, request_timeout, session):
    apple = f"ApplePass {server.apple_pass_token(pass_type, serial)}"
    session_cookie, csrf = session
    path.write_text(f"""
base-url = {toml_string(server.base)}
seed = {seed}
workers = {workers}
request-timeout = {request_timeout}
suppress-health-check = ["too_slow", "filter_too_much", "data_too_large"]
hooks = {toml_string(str(ROOT / "scripts" / "fuzz_hooks.py"))}

[generation]
max-examples = {max_examples}
mode = "all"

[auth.openapi.adminToken]
bearer = {toml_string(server.admin_token)}

[auth.openapi.applePass]
api_key = {toml_string(apple)}

# The scanner page's JSON calls and the job progress call: a dashboard session of the admin
# token, signed in through the sign-in form, and its CSRF token.
[auth.openapi.dashboardSession]
api_key = {toml_string(session_cookie)}

[auth.openapi.dashboardCSRF]
api_key = {toml_string(csrf)}

[dictionaries]
serials = {{ values = [{toml_string(serial)}] }}
passTypes = {{ values = [{toml_string(pass_type)}] }}
jobs = {{ values = [{toml_string(job)}] }}

# Most device requests name the issued pass, whose ApplePass token the run holds; the rest use
# generated identifiers (401 or 400).
[[operations]]
include-tag = "device"
parameters = {{ "path.serialNumber" = {{ dictionary = "serials", probability = 0.7 }}, "path.passTypeIdentifier" = {{ dictionary = "passTypes", probability = 0.7 }} }}

# A job only appears in the answer to an event change that changed something: half of the job
# lookups use the one the setup created.
[[operations]]
include-operation-id = "showJob"
parameters = {{ "path.jobId" = {{ dictionary = "jobs", probability = 0.5 }} }}
""")


def count_cases(report):
    """(positive, negative) among the test cases schemathesis recorded in its NDJSON report."""
    positive = negative = 0
    seen = set()
    for line in report.read_text(errors="replace").splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        for case in find_cases(event):
            key = case.get("id")
            if key in seen:
                continue
            seen.add(key)
            mode = json.dumps(case.get("meta", {}).get("generation", {}).get("mode", ""))
            if "negative" in mode:
                negative += 1
            else:
                positive += 1
    return positive, negative


def case_statuses(report):
    """{"METHOD /path/{template}": Counter of answered statuses} from schemathesis's NDJSON report:
    each recorded case's method and path template, and the status of its response ("no answer"
    when none was recorded)."""
    counts = {}
    seen = set()
    for line in report.read_text(errors="replace").splitlines():
        try:
            recorder = json.loads(line).get("ScenarioFinished", {}).get("recorder") or {}
        except (json.JSONDecodeError, AttributeError):
            continue
        interactions = recorder.get("interactions") or {}
        for key, case in (recorder.get("cases") or {}).items():
            value = case.get("value") or {}
            if key in seen or "method" not in value:
                continue
            seen.add(key)
            response = (interactions.get(key) or {}).get("response") or {}
            status = response.get("status_code")
            label = f"{value['method']} {value.get('path', '?')}"
            counts.setdefault(label, collections.Counter())["no answer" if status is None else str(status)] += 1
    return counts


def find_cases(value):
    """Every recorded test case (an object with an id and generation metadata) inside an event."""
    if isinstance(value, dict):
        if "id" in value and isinstance(value.get("meta"), dict) and "generation" in value["meta"]:
            yield value
        for child in value.values():
            yield from find_cases(child)
    elif isinstance(value, list):
        for child in value:
            yield from find_cases(child)


def run_schemathesis(schemathesis, config, work, round_number, slowest):
    """One schemathesis run; (exit status, output, report file)."""
    report = work / f"report-{round_number}"
    command = [str(schemathesis), "--config-file", str(config), "run", str(ROOT / "openapi.yaml"),
               "--checks", "all", "--phases", "examples,coverage,fuzzing,stateful",
               "--report", "ndjson", "--report-dir", str(report), "--no-color",
               "--max-response-time", str(slowest)]
    result = subprocess.run(command, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return result.returncode, result.stdout, next(report.glob("*.ndjson"))


def documented_operations():
    """{"METHOD /path"} of openapi.yaml."""
    try:
        import yaml  # python3-yaml (`make test-deps`)
    except ImportError:
        return None
    document = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    return {f"{method.upper()} {path}" for path, item in document.get("paths", {}).items()
            for method in item if method in ("get", "put", "post", "delete", "patch", "head", "options", "trace")}


def fold_undocumented(counts, documented):
    """The cases of methods a path does not have (the unsupported-method check) in one row per path."""
    folded = {}
    for label, statuses in counts.items():
        if documented is not None and label not in documented:
            label = "(other methods) " + label.split(" ", 1)[-1]
        folded.setdefault(label, collections.Counter()).update(statuses)
    return folded


def dashboard_session(base, token):
    """(session cookie value, CSRF token) of a dashboard session signed in as a browser does: the
    sign-in form's hidden value and its cookie, then the session cookie and the CSRF token the
    pages carry."""
    target = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(target.hostname, target.port, timeout=30)

    def exchange(method, path, cookies, body=None):
        headers = {"Cookie": "; ".join(f"{name}={value}" for name, value in cookies.items() if value)}
        if body is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        text = response.read().decode("utf-8", errors="replace")
        for name, value in response.getheaders():
            if name.lower() == "set-cookie" and "=" in value.split(";", 1)[0]:
                key, _, cookie = value.split(";", 1)[0].partition("=")
                cookies[key.strip()] = cookie.strip()
        return response.status, text

    cookies = {}
    try:
        _, page = exchange("GET", "/admin/", cookies)
        hidden = re.search(r'name="csrf" value="([^"]+)"', page)
        if hidden is None:
            raise SystemExit("fuzz: the sign-in page has no CSRF field")
        status, _ = exchange("POST", "/admin/sign-in", cookies, urllib.parse.urlencode({"csrf": hidden.group(1), "token": token}))
        session = next((value for name, value in cookies.items() if "session" in name and value), None)
        if status != 303 or session is None:
            raise SystemExit(f"fuzz: signing in to the dashboard answered {status}")
        _, page = exchange("GET", "/admin/events/new", cookies)
        csrf = re.search(r'name="csrf" value="([^"]+)"', page)
        if csrf is None:
            raise SystemExit("fuzz: the new-event page has no CSRF field")
        return session, html.unescape(csrf.group(1))
    finally:
        connection.close()


def print_statuses(prefix, counts):
    for label, statuses in sorted(counts.items()):
        print(f"{prefix}{label}: {sum(statuses.values())} cases "
              f"({', '.join(f'{status}: {count}' for status, count in sorted(statuses.items()))})")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bounded", action="store_true", help="the bounded run of `make test` (a few thousand cases)")
    parser.add_argument("--binary", default=os.environ.get("PASS_SERVER_BINARY", str(ROOT / ".build" / "debug" / "pass-server")))
    parser.add_argument("--database-url", default=os.environ.get("FUZZ_DATABASE_URL"), help="PostgreSQL URL (default: SQLite in a scratch directory)")
    parser.add_argument("--max-examples", type=int, default=None, help="per operation and phase in each round (300; bounded 35)")
    parser.add_argument("--cases", type=int, default=None,
                        help="schemathesis cases to run at least, in rounds of successive seeds (FUZZ_CASES, 30000; bounded: one round)")
    parser.add_argument("--dashboard-cases", type=int, default=None,
                        help="dashboard form and page cases (FUZZ_DASHBOARD_CASES, 5000; bounded 300; 0 skips)")
    parser.add_argument("--seed", type=int, default=int(os.environ.get("FUZZ_SEED", "20270301")))
    parser.add_argument("--workers", type=int, default=None, help="schemathesis workers (threads; default 1)")
    arguments = parser.parse_args()

    max_examples = arguments.max_examples or (35 if arguments.bounded else 300)
    target = arguments.cases if arguments.cases is not None else (0 if arguments.bounded else int(os.environ.get("FUZZ_CASES", "30000")))
    dashboard_cases = arguments.dashboard_cases
    if dashboard_cases is None:
        dashboard_cases = 300 if arguments.bounded else int(os.environ.get("FUZZ_DASHBOARD_CASES", "5000"))
    # The slowest answer that passes (schemathesis's own limit is 10 s). The bounded run shares a
    # loaded machine at a low priority, where a batch of 10,000 tickets has taken more than 10 s:
    # there a slow answer says nothing about the server.
    slowest = 120 if arguments.bounded else 10
    if arguments.bounded:
        # Beside the rest of `make test`: schemathesis and the server it starts take CPU only when
        # the timing-sensitive tests running at the same time leave some (children inherit this).
        os.nice(10)
    # One worker: schemathesis's workers are threads, and Python 3.11.2 (Debian 12) can fail
    # `ast.parse` when threads call it at once ("AST constructor recursion depth mismatch").
    workers = arguments.workers or 1
    schemathesis = virtualenv()
    binary = Path(arguments.binary).resolve()  # the server runs in a scratch directory
    if not binary.exists():
        raise SystemExit(f"fuzz: {binary} does not exist (swift build first)")

    with tempfile.TemporaryDirectory(prefix="pass-server-fuzz.") as scratch:
        work = Path(scratch)
        server = Server(binary, arguments.database_url, work)
        try:
            _, event = request(server.base, "POST", "/admin/v1/events", server.admin_token,
                               {"name": "Fuzz Night", "venue": "Hall", "startsAt": "2027-03-01T19:00:00+09:00", "timeZone": "Asia/Tokyo"})
            _, ticket = request(server.base, "POST", f"/admin/v1/events/{event['id']}/tickets", server.admin_token,
                                {"attendeeName": "Ada Lovelace", "seat": "A1"})
            _, change = request(server.base, "PATCH", f"/admin/v1/events/{event['id']}", server.admin_token, {"venue": "Main Hall"})
            session = dashboard_session(server.base, server.admin_token)
            extent = f"rounds until at least {target} cases" if target else "one round"
            log(f"server on {server.base} ({'PostgreSQL' if arguments.database_url else 'SQLite'}), "
                f"{max_examples} examples per operation and phase, seed {arguments.seed}, {extent}")
            started = time.monotonic()
            positive = negative = failures = 0
            statuses = {}
            failed = False
            round_number = 0
            while True:
                seed = arguments.seed + round_number
                config = work / f"schemathesis-{round_number}.toml"
                write_config(config, server, ticket["serialNumber"], ticket["passTypeIdentifier"], change["job"]["id"],
                             max_examples, seed, workers, max(30, slowest), session)
                status, output, report = run_schemathesis(schemathesis, config, work, round_number, slowest)
                round_failures = output.count("Test Case ID:")
                round_positive, round_negative = count_cases(report)
                for label, counts in case_statuses(report).items():
                    statuses.setdefault(label, collections.Counter()).update(counts)
                positive, negative, failures = positive + round_positive, negative + round_negative, failures + round_failures
                log(f"round {round_number + 1} (seed {seed}): {round_positive + round_negative} cases, {round_failures} failures, "
                    f"exit status {status}; {positive + negative} cases in {time.monotonic() - started:.0f} s")
                if status != 0 or round_failures:
                    failed = True
                    print(output[-20000:])
                    print("fuzz: server log (tail):\n" + server.log_tail())
                round_number += 1
                if failed or positive + negative >= target or round_positive + round_negative == 0:
                    break
            elapsed = time.monotonic() - started
            print_statuses("schemathesis: ", fold_undocumented(statuses, documented_operations()))
            dashboard_status, dashboard_line = 0, None
            if dashboard_cases:
                python = schemathesis.parent / "python"
                dashboard_started = time.monotonic()
                result = subprocess.run([str(python), str(ROOT / "scripts" / "fuzz_dashboard.py"), "--base", server.base,
                                         "--admin-token", server.admin_token, "--cases", str(dashboard_cases),
                                         "--seed", str(arguments.seed)], cwd=work, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True)
                print(result.stdout[-30000:], end="")
                dashboard_status = result.returncode
                dashboard_line = next((line for line in reversed(result.stdout.splitlines())
                                       if re.fullmatch(r"dashboard: \d+ cases, \d+ failures", line)), None)
                if dashboard_status != 0 or dashboard_line is None:
                    print("fuzz: server log (tail):\n" + server.log_tail())
                log(f"dashboard finished in {time.monotonic() - dashboard_started:.0f} s, exit status {dashboard_status}")
            errors = server.logged_errors()
            if errors:
                print("fuzz: the server logged errors:\n" + "\n".join(errors[-10:]))
            server_errors = sum(count for counts in statuses.values() for status, count in counts.items() if status.startswith("5"))
            log(f"schemathesis finished in {elapsed:.0f} s ({round_number} rounds), {server_errors} answers 5xx")
            print(f"schemathesis: {positive + negative} cases ({positive} positive, {negative} negative), "
                  f"{failures} failures, {len(errors)} server errors logged")
            ok = (not failed and failures == 0 and server_errors == 0 and not errors and dashboard_status == 0
                  and (dashboard_line or not dashboard_cases))
            return 0 if ok else 1
        finally:
            server.stop()


if __name__ == "__main__":
    sys.exit(main())
