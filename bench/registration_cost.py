#!/usr/bin/env python3
"""Turns the registration statement PassServer sent into pgbench scripts (bench/registration-cost.sh).

  registration_cost.py LOG START DEVICE PASS_TYPE SERIAL OUT_DIR

LOG is the cluster's log, written with log_min_duration_statement = 0 from byte START on while the
server registered DEVICE for the pass (PASS_TYPE, SERIAL). The last executed statement that
upserts a device is the registration; its parameters (the DETAIL line after it) are put back
as pgbench variables: the device as :d, the pass as :t and :s, everything else as the literal the
server sent. Written to OUT_DIR:

  lookup.sql   the scripts' common part alone: one pass picked from bench_passes, in a transaction
  full.sql     what the server runs for a registration: BEGIN, the pass row's lock, the statement, COMMIT
  batch.sql    sixteen registrations in one transaction: the same statements, one commit
  bare.sql     the device and registration upserts alone, into bare_devices and bare_registrations
               (copies with the same indexes and foreign keys, no triggers): what a registration
               would cost with nothing recorded beside it
  lock.sql     the pass row's lock statement, as the server sent it (one line)

Each picks its pass from the client's own slice of bench_passes (CLIENT_PASSES a client), so two
clients never lock the same pass, and names a new device from the sequence bench_devices.
"""
import os
import re
import sys

TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")
# The session's process id in the log line's prefix: "... UTC [27474] LOG:".
SESSION = re.compile(r"\[\d+\]")
# An executed statement's record: "LOG:  duration: 0.040 ms  execute pass_server_34: SQL".
EXECUTE = re.compile(r"\bLOG:\s+(?:duration: [\d.]+ ms\s+)?execute [^:]*: ")


def records(text):
    """The log's records: a line beginning with a timestamp and its continuation lines."""
    current = []
    for line in text.split("\n"):
        if TIMESTAMP.match(line) and current:
            yield "\n".join(current)
            current = []
        current.append(line)
    if current:
        yield "\n".join(current)


def parameters(detail):
    """$n = 'value' pairs of a DETAIL line, values unquoted ('' is a quote); NULL stays None."""
    values = {}
    for match in re.finditer(r"\$(\d+) = (NULL|'((?:[^']|'')*)')", detail):
        values[int(match.group(1))] = None if match.group(2) == "NULL" else match.group(3).replace("''", "'")
    return values


def statement_of(record):
    """The SQL of an `execute <name>: SQL` record (continuation lines' leading tab removed), or
    None for any other record."""
    match = EXECUTE.search(record)
    if match is None:
        return None
    sql = record[match.end():]
    return "\n".join(line[1:] if line.startswith("\t") else line for line in sql.split("\n")).strip()


def detail_of(all_records, index):
    """The parameters' DETAIL record that the same session wrote after record `index`, if its
    next record is one (other sessions' records may come between)."""
    session = SESSION.search(all_records[index])
    for record in all_records[index + 1:]:
        if session is None or SESSION.search(record) is None or SESSION.search(record).group(0) == session.group(0):
            return record if "DETAIL:  parameters:" in record else None
    return None


def main(log, start, device, pass_type, serial, out):
    with open(log, "rb") as handle:
        handle.seek(int(start))
        all_records = list(records(handle.read().decode("utf-8", errors="replace")))
    found = None
    lock = None
    for index, record in enumerate(all_records):
        sql = statement_of(record)
        if sql is None:
            continue
        detail = detail_of(all_records, index)
        if detail is None:
            continue
        values = parameters(detail)
        if sql.startswith("WITH device AS") and device in values.values():
            found = (sql, values)
        elif "FOR NO KEY UPDATE" in sql and sql.startswith("SELECT id FROM passes"):
            lock = (sql, values)
    if found is None or lock is None:
        sys.exit("registration_cost.py: the registration's statements are not in the log")

    def substitute(sql, values):
        def replace(match):
            value = values.get(int(match.group(1)))
            if value is None:
                return "NULL"
            if value == device:
                return ":d"
            if value == pass_type:
                return ":t"
            if value == serial:
                return ":s"
            return "'" + value.replace("'", "''") + "'"
        return " ".join(re.sub(r"\$(\d+)", replace, sql).split())

    statement = substitute(*found)
    lock_statement = substitute(*lock)
    # The bare statement: the two upserts, before the first CTE that follows them.
    cut = re.search(r",\s*evicted AS \(", statement)
    if cut is None:
        sys.exit("registration_cost.py: the statement has no eviction after its upserts")
    bare = statement[:cut.start()] + " SELECT inserted FROM registration"
    bare = bare.replace("INSERT INTO devices ", "INSERT INTO bare_devices ").replace("INSERT INTO registrations ", "INSERT INTO bare_registrations ")
    if "bare_devices" not in bare or "bare_registrations" not in bare:
        sys.exit("registration_cost.py: the upserts' tables are not where expected")

    def pick(n):
        return (f"\\set i{n} random(:client_id * :passes + 1, :client_id * :passes + :passes)\n"
                f"SELECT t, s, 'bench-' || nextval('bench_devices') AS d FROM bench_passes WHERE i = :i{n} \\gset\n")

    def registrations(count, body):
        return "BEGIN;\n" + "".join(pick(n) + body for n in range(count)) + "COMMIT;\n"

    scripts = {
        "lookup.sql": registrations(1, ""),
        "lookup16.sql": registrations(16, ""),
        "full.sql": registrations(1, f"{lock_statement};\n{statement};\n"),
        "batch.sql": registrations(16, f"{lock_statement};\n{statement};\n"),
        "bare.sql": registrations(1, f"{bare};\n"),
        "lock.sql": lock_statement + "\n",
    }
    for name, text in scripts.items():
        with open(os.path.join(out, name), "w") as handle:
            handle.write(text)


if __name__ == "__main__":
    if len(sys.argv) != 7:
        sys.exit(__doc__)
    main(*sys.argv[1:])
