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

    scripts/fuzz.py                 # the full run (`make fuzz`)
    scripts/fuzz.py --bounded       # the bounded run of `make test` (at a lower CPU priority)

Prints `schemathesis: N cases (P positive, Q negative), F failures` and exits 1 on any failure.
"""

import argparse
import base64
import hashlib
import hmac
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
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


def write_config(path, server, serial, pass_type, job, max_examples, seed, workers, request_timeout):
    apple = f"ApplePass {server.apple_pass_token(pass_type, serial)}"
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


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bounded", action="store_true", help="the bounded run of `make test` (a few thousand cases)")
    parser.add_argument("--binary", default=os.environ.get("PASS_SERVER_BINARY", str(ROOT / ".build" / "debug" / "pass-server")))
    parser.add_argument("--database-url", default=os.environ.get("FUZZ_DATABASE_URL"), help="PostgreSQL URL (default: SQLite in a scratch directory)")
    parser.add_argument("--max-examples", type=int, default=None)
    parser.add_argument("--seed", type=int, default=int(os.environ.get("FUZZ_SEED", "20270301")))
    parser.add_argument("--workers", type=int, default=None, help="schemathesis workers (threads; default 1)")
    arguments = parser.parse_args()

    max_examples = arguments.max_examples or (50 if arguments.bounded else 300)
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
    binary = Path(arguments.binary)
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
            config = work / "schemathesis.toml"
            write_config(config, server, ticket["serialNumber"], ticket["passTypeIdentifier"], change["job"]["id"],
                         max_examples, arguments.seed, workers, max(30, slowest))
            report = work / "report"
            log(f"server on {server.base} ({'PostgreSQL' if arguments.database_url else 'SQLite'}), "
                f"{max_examples} examples per operation and phase, seed {arguments.seed}")
            started = time.monotonic()
            command = [str(schemathesis), "--config-file", str(config), "run", str(ROOT / "openapi.yaml"),
                       "--checks", "all", "--phases", "examples,coverage,fuzzing,stateful",
                       "--report", "ndjson", "--report-dir", str(report), "--no-color",
                       "--max-response-time", str(slowest)]
            result = subprocess.run(command, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            elapsed = time.monotonic() - started
            output = result.stdout
            failures = output.count("Test Case ID:")
            positive, negative = count_cases(next(report.glob("*.ndjson")))
            summary = [line for line in output.splitlines() if "generated" in line or "passed" in line or "failures" in line]
            if result.returncode != 0 or failures:
                print(output[-20000:])
                print("fuzz: server log (tail):\n" + server.log_tail())
            else:
                print("\n".join(summary[-3:]))
            errors = server.logged_errors()
            if errors:
                print("fuzz: the server logged errors:\n" + "\n".join(errors[-10:]))
            log(f"finished in {elapsed:.0f} s, schemathesis exit status {result.returncode}")
            print(f"schemathesis: {positive + negative} cases ({positive} positive, {negative} negative), "
                  f"{failures} failures, {len(errors)} server errors logged")
            return 0 if result.returncode == 0 and failures == 0 and not errors else 1
        finally:
            server.stop()


if __name__ == "__main__":
    sys.exit(main())
