#!/usr/bin/env python3
"""bench/registration_cost.py on made-up cluster logs: the server's registration statements
become pgbench scripts with the device and the pass as variables, and a log without them is an
error, not scripts measuring something else. Standard library only; `make test` runs it
(BenchmarksTests.RegistrationCostScriptTests).

    python3 bench/registration_cost_test.py -v
"""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import registration_cost  # noqa: E402

DEVICE = "registration-cost-42"
PASS_TYPE = "pass.example.event"
SERIAL = "S-0001"
PREFIX = "2026-12-06 22:33:25.79{n} UTC [{pid}] "

LOCK = "SELECT id FROM passes WHERE pass_type_identifier = $1 AND serial_number = $2 FOR NO KEY UPDATE"
REGISTRATION = """WITH device AS (
\t    INSERT INTO devices (device_library_identifier, push_token, push_service, updated_at)
\t    VALUES ($1, $2, $3, $4)
\t    RETURNING 1),
\tregistration AS (
\t    INSERT INTO registrations (device_library_identifier, pass_type_identifier, serial_number, created_at, updated_at)
\t    VALUES ($5, $6, $7, $8, $8)
\t    RETURNING (xmax = 0) AS inserted),
\tevicted AS (
\t    DELETE FROM registrations WHERE pass_type_identifier = $6 AND serial_number = $7 AND device_library_identifier <> $5
\t    AND $9 IS NULL AND note = $10
\t    RETURNING device_library_identifier)
\tSELECT inserted FROM registration"""
PARAMETERS = (f"$1 = '{DEVICE}', $2 = 'abc', $3 = 'apns', $4 = '1796596405791', $5 = '{DEVICE}', "
              f"$6 = '{PASS_TYPE}', $7 = '{SERIAL}', $8 = '1796596405791', $9 = NULL, $10 = 'it''s'")


def line(n, pid, text):
    return PREFIX.format(n=n, pid=pid) + text


def server_log(registration=REGISTRATION, parameters=PARAMETERS, between=None):
    """What the cluster logs for one registration with log_min_duration_statement = 0: the parse
    and bind records, the executions with their parameters; `between` comes from another session
    right after the registration's execution."""
    lines = [
        line(1, 7, "LOG:  duration: 0.004 ms  execute <unnamed>: BEGIN"),
        line(2, 7, f"LOG:  duration: 0.094 ms  bind pass_server_34: {LOCK}"),
        line(2, 7, f"DETAIL:  parameters: $1 = '{PASS_TYPE}', $2 = '{SERIAL}'"),
        line(3, 7, f"LOG:  duration: 0.040 ms  execute pass_server_34: {LOCK}"),
        line(3, 7, f"DETAIL:  parameters: $1 = '{PASS_TYPE}', $2 = '{SERIAL}'"),
        line(4, 7, f"LOG:  duration: 0.616 ms  parse pass_server_35: {registration}"),
        line(5, 7, f"LOG:  duration: 1.322 ms  bind pass_server_35: {registration}"),
        line(5, 7, f"DETAIL:  parameters: {parameters}"),
        line(6, 7, f"LOG:  duration: 0.500 ms  execute pass_server_35: {registration}"),
    ]
    if between:
        lines.append(line(6, 8, between))
    lines += [
        line(6, 7, f"DETAIL:  parameters: {parameters}"),
        line(7, 7, "LOG:  duration: 0.300 ms  execute <unnamed>: COMMIT"),
    ]
    return "\n".join(lines) + "\n"


class Converted(unittest.TestCase):
    def convert(self, log, start=0, device=DEVICE):
        directory = tempfile.mkdtemp()
        path = os.path.join(directory, "server.log")
        with open(path, "w") as handle:
            handle.write(log)
        result = subprocess.run([sys.executable, os.path.join(HERE, "registration_cost.py"), path, str(start), device,
                                 PASS_TYPE, SERIAL, directory], capture_output=True, text=True)
        scripts = {}
        for name in ("lookup", "lookup16", "full", "batch", "bare", "lock"):
            script = os.path.join(directory, f"{name}.sql")
            if os.path.exists(script):
                with open(script) as handle:
                    scripts[name] = handle.read()
        return result, scripts

    def test_the_registration_becomes_scripts_with_the_device_and_pass_as_variables(self):
        result, scripts = self.convert(server_log())
        self.assertEqual(result.returncode, 0, result.stderr)
        full = scripts["full"]
        self.assertTrue(full.startswith("BEGIN;\n") and full.endswith("COMMIT;\n"), full)
        statement = [text for text in full.split("\n") if text.startswith("WITH device AS")]
        self.assertEqual(len(statement), 1, full)
        statement = statement[0]
        self.assertIn("VALUES (:d, 'abc', 'apns', '1796596405791') RETURNING 1", statement)
        self.assertIn("VALUES (:d, :t, :s, '1796596405791', '1796596405791')", statement)
        self.assertIn("NULL IS NULL AND note = 'it''s'", statement)
        self.assertNotIn("$", statement)
        self.assertNotIn(DEVICE, full)
        self.assertIn("SELECT id FROM passes WHERE pass_type_identifier = :t AND serial_number = :s FOR NO KEY UPDATE;", full)
        self.assertIn("FROM bench_passes WHERE i = :i0 \\gset", full)
        self.assertEqual(scripts["lock"].strip(), "SELECT id FROM passes WHERE pass_type_identifier = :t AND serial_number = :s FOR NO KEY UPDATE")

    def test_the_batch_is_sixteen_registrations_in_one_transaction(self):
        result, scripts = self.convert(server_log())
        self.assertEqual(result.returncode, 0, result.stderr)
        batch = scripts["batch"]
        self.assertEqual(batch.count("BEGIN;"), 1)
        self.assertEqual(batch.count("COMMIT;"), 1)
        self.assertEqual(batch.count("WITH device AS"), 16)
        self.assertEqual(batch.count("FOR NO KEY UPDATE"), 16)
        self.assertEqual(len({f":i{n} " for n in range(16) if f"= :i{n} " in batch}), 16)
        self.assertEqual(scripts["lookup16"].count("\\gset"), 16)
        self.assertNotIn("WITH device AS", scripts["lookup"] + scripts["lookup16"])

    def test_the_bare_replay_is_the_two_upserts_into_the_copies(self):
        result, scripts = self.convert(server_log())
        self.assertEqual(result.returncode, 0, result.stderr)
        bare = scripts["bare"]
        self.assertIn("INSERT INTO bare_devices (", bare)
        self.assertIn("INSERT INTO bare_registrations (", bare)
        self.assertNotIn("INSERT INTO devices ", bare)
        self.assertNotIn("evicted", bare)
        self.assertNotIn("DELETE", bare)
        self.assertNotIn("FOR NO KEY UPDATE", bare)
        self.assertIn("RETURNING (xmax = 0) AS inserted) SELECT inserted FROM registration;", bare)

    def test_another_sessions_record_between_does_not_hide_the_parameters(self):
        result, scripts = self.convert(server_log(between="LOG:  duration: 0.010 ms  execute <unnamed>: SELECT 1"))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("VALUES (:d, :t, :s,", scripts["full"])

    def test_a_log_without_the_registration_is_an_error(self):
        result, scripts = self.convert(server_log(), device="another-device")
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("not in the log", result.stderr)
        self.assertEqual(scripts, {})

    def test_records_before_the_start_are_not_read(self):
        log = server_log()
        result, scripts = self.convert(log, start=len(log.encode()))
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("not in the log", result.stderr)
        result, scripts = self.convert("\n" * 3 + log, start=3)
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_a_statement_without_its_eviction_is_an_error(self):
        without = REGISTRATION.split(",\n\tevicted AS")[0] + "\n\tSELECT inserted FROM registration"
        result, scripts = self.convert(server_log(registration=without))
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("no eviction", result.stderr)

    def test_parameters_are_read_with_quotes_and_nulls(self):
        values = registration_cost.parameters("DETAIL:  parameters: $1 = 'a''b', $2 = NULL, $10 = ''")
        self.assertEqual(values, {1: "a'b", 2: None, 10: ""})


if __name__ == "__main__":
    unittest.main()
