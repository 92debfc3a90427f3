#!/usr/bin/env python3
"""The soak test's verdict (bench/soak.py `judge`) on made-up runs: a good one passes, and each
way a run can go wrong fails it with its reason. Standard library only; `make test` runs it
(BenchmarksTests.SoakJudgeTests).

    python3 bench/soak_judge_test.py -v
"""
import copy
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import soak  # noqa: E402

START = 1_800_000_000_000
SECOND = 1000
MIB = 1024  # KiB
ROUTES = list(soak.EXPECTED)


def at(seconds):
    return START + int(seconds * SECOND)


def good_report():
    """A one-minute run that met every goal, with what a real run has: 503s inside the database
    outage windows (and within their grace), requests to instance B unanswered while it was down,
    a few duplicate pushes within the rows in flight at the kill, RSS growing in the first half."""
    windows = [
        {"kind": "database", "start_ms": at(9), "end_ms": at(15)},
        {"kind": "apns", "start_ms": at(18), "end_ms": at(24)},
        {"kind": "instance-b-killed", "start_ms": at(30), "end_ms": at(36)},
        {"kind": "database", "start_ms": at(39), "end_ms": at(45)},
    ]
    requests = []
    for index in range(2400):
        sent = at(index / 40)
        instance = index % 2
        route = ROUTES[index % len(ROUTES)]
        status = min(soak.EXPECTED[route])
        seconds = index / 40
        if 9 <= seconds < 15 or 39 <= seconds < 47:
            status = 503
        if instance == 1 and 30 <= seconds < 36:
            status = None
        requests.append([sent, instance, route, status])
    rss = {"a": [], "b": [], "b'": []}
    for second in range(61):
        # Instance A grows by 30 MiB in its first half (caches filling), then holds.
        rss["a"].append([at(second), 40 * MIB + min(second, 30) * MIB])
        if second < 30:
            rss["b"].append([at(second), 35 * MIB + second * MIB // 2])
        if second >= 36:
            rss["b'"].append([at(second), 35 * MIB + min(second - 36, 12) * MIB])
    return {
        "duration_s": 60, "rate": 40, "traffic_start_ms": START, "traffic_end_ms": at(60),
        "windows": windows, "requests": requests,
        "registrations": {"acknowledged": 150, "stored": 150, "missing": 0, "stored_unacknowledged": 2},
        "changes": {"renames": 25, "edits": 4},
        "pushes": {"expected_pairs": 800, "tokens_to_push": 150, "delivered": 150, "duplicates": 3,
                   "answered_by_fake": {"200": 400}},
        "in_flight": {"instance_b_kill": 2, "apns_stop": 1},
        "left_after_drain": {"pushes": 0, "jobs": 0},
        "rss": rss,
        "bundle_cache_bytes": 4 * 1024 * 1024,
    }


def with_statuses(report, change):
    """The report with each request's status replaced by change(seconds, instance, route, status)."""
    bad = copy.deepcopy(report)
    bad["requests"] = [[sent, instance, route, change((sent - START) / SECOND, instance, route, status)]
                       for sent, instance, route, status in bad["requests"]]
    return bad


class JudgeTests(unittest.TestCase):
    def assertFailsWith(self, report, *phrases):
        failures = soak.judge(report)
        self.assertTrue(failures, "the run passed")
        text = "\n".join(failures)
        for phrase in phrases:
            self.assertIn(phrase, text)

    def test_good_run_passes(self):
        self.assertEqual(soak.judge(good_report()), [])

    def test_every_phone_request_answered_401_fails(self):
        report = with_statuses(good_report(), lambda s, i, route, status: 401 if route.startswith(("GET /v1", "POST /v1")) else status)
        self.assertFailsWith(report, "unexpected 401 outside the outage windows: POST /v1/devices/:d/registrations/:t/:s",
                             "unexpected 401 outside the outage windows: GET /v1/passes/:t/:s",
                             "GET /v1/passes/:t/:s never got an expected answer")

    def test_one_unexpected_4xx_fails(self):
        report = with_statuses(good_report(), lambda s, i, route, status: 404 if s == 57 else status)
        self.assertFailsWith(report, "1 × unexpected 404 outside the outage windows")

    def test_unexpected_4xx_inside_a_database_window_passes(self):
        report = with_statuses(good_report(), lambda s, i, route, status: 409 if s == 12 else status)
        self.assertEqual(soak.judge(report), [])

    def test_both_instances_hung_fails(self):
        # Every request timed out: the driver got through few of them and none was answered.
        report = good_report()
        report["requests"] = [[at(index * 15 / 8), index % 2, ROUTES[index % len(ROUTES)], None] for index in range(32)]
        self.assertFailsWith(report, "no answer (timeout or connection error) outside the outage windows",
                             "the traffic driver sent 32 requests", "never got an expected answer")

    def test_unanswered_requests_outside_the_windows_fail(self):
        report = with_statuses(good_report(), lambda s, i, route, status: None if 57 <= s < 59 else status)
        failures = soak.judge(report)
        self.assertTrue(failures, "the run passed")
        for failure in failures:
            self.assertIn("× no answer (timeout or connection error) outside the outage windows", failure)
        self.assertEqual(sum(int(failure.split(" ")[0]) for failure in failures), 80)

    def test_instance_a_unanswered_while_b_was_down_fails(self):
        # The kill window excuses instance B only.
        report = with_statuses(good_report(), lambda s, i, route, status: None if 31 <= s < 33 else status)
        failures = soak.judge(report)
        self.assertTrue(failures, "the run passed")
        for failure in failures:
            self.assertIn("no answer (timeout or connection error) outside the outage windows", failure)
            self.assertIn("instance a", failure)

    def test_5xx_outside_the_database_windows_fails(self):
        report = with_statuses(good_report(), lambda s, i, route, status: 500 if s == 57 else status)
        self.assertFailsWith(report, "1 × 500 outside the database outage windows")
        # A 503 while instance B was down is not excused either: only the database windows are.
        report = with_statuses(good_report(), lambda s, i, route, status: 503 if s == 33 and i == 0 else status)
        self.assertFailsWith(report, "1 × 503 outside the database outage windows")

    def test_5xx_within_the_grace_after_a_database_window_passes(self):
        report = with_statuses(good_report(), lambda s, i, route, status: 503 if 15 <= s < 24.9 else status)
        self.assertEqual(soak.judge(report), [])
        report = with_statuses(good_report(), lambda s, i, route, status: 503 if s == 25.5 else status)
        self.assertFailsWith(report, "503 outside the database outage windows")

    def test_duplicates_beyond_the_in_flight_rows_fail(self):
        report = good_report()
        report["pushes"]["duplicates"] = 4
        self.assertFailsWith(report, "4 duplicate pushes, more than the 3 in flight")
        # At the bound it passes.
        report["pushes"]["duplicates"] = 3
        self.assertEqual(soak.judge(report), [])
        # An unknown in-flight count bounds nothing.
        report["in_flight"] = {"instance_b_kill": None, "apns_stop": 0}
        self.assertFailsWith(report, "3 duplicate pushes, more than the 0 in flight")

    def test_rss_growth_over_the_second_half_beyond_the_bound_fails(self):
        report = good_report()
        # 16 MiB + the 4 MiB cache budget = 20 MiB: instance A gains 21 MiB after its midpoint.
        report["rss"]["a"] = [[when, kib + (max(0, (when - at(30)) // SECOND) * 21 * MIB // 30)] for when, kib in report["rss"]["a"]]
        self.assertFailsWith(report, "RSS of a grew by 21.0 MiB over the second half", "more than 20.0 MiB")
        control = good_report()
        control["rss"]["a"] = [[when, kib + (max(0, (when - at(30)) // SECOND) * 19 * MIB // 30)] for when, kib in control["rss"]["a"]]
        self.assertEqual(soak.judge(control), [])

    def test_rss_bound_follows_the_bundle_cache_budget(self):
        report = good_report()
        report["rss"]["b'"] = [[when, kib + (when - at(36)) // SECOND * MIB * 2] for when, kib in report["rss"]["b'"]]
        self.assertFailsWith(report, "RSS of b' grew by")
        report["bundle_cache_bytes"] = 64 * 1024 * 1024
        self.assertEqual(soak.judge(report), [])

    def test_missing_rss_samples_fail(self):
        report = good_report()
        del report["rss"]["b'"]
        self.assertFailsWith(report, "fewer than 4 RSS samples of b'")

    def test_lost_registrations_undelivered_pushes_and_leftover_work_fail(self):
        report = good_report()
        report["registrations"]["missing"] = 1
        report["pushes"]["delivered"] = 149
        report["left_after_drain"] = {"pushes": 3, "jobs": -1}
        self.assertFailsWith(report, "1 acknowledged registrations are missing", "1 of 150 tokens got no push",
                             "3 pushes still pending after the drain", "-1 jobs still pending after the drain")

    def test_the_judge_command_exits_with_the_verdict(self):
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "soak.py")
        bad = with_statuses(good_report(), lambda s, i, route, status: 401)
        with tempfile.TemporaryDirectory() as directory:
            for name, report, expected in (("good", good_report(), 0), ("bad", bad, 1)):
                path = os.path.join(directory, name + ".json")
                with open(path, "w") as handle:
                    json.dump(report, handle)
                result = subprocess.run([sys.executable, script, "judge", path], capture_output=True, text=True, timeout=60)
                self.assertEqual(result.returncode, expected, result.stdout + result.stderr)
                self.assertTrue(result.stdout.startswith("PASS" if expected == 0 else "FAIL: "), result.stdout)


class DuplicateTests(unittest.TestCase):
    def results(self, changes):
        return {
            "phones": [{"device": "d1", "push_token": "t1"}],
            "event_serials": ["s1", "s2"],
            "registrations": [[at(0), at(0.1), "d1", "s1"]],
            "changes": changes,
            "end_ms": at(60),
        }

    def test_a_push_without_a_change_since_the_previous_one_is_a_duplicate(self):
        results = self.results([[at(10), True, "ticket", "s1", None]])
        # 2 s of slack: a change sent up to 2 s before a push may have arrived while it was in flight.
        pushes = [(at(13), "200", "t1"), (at(20), "200", "t1")]
        counted = soak.count_duplicates(results, pushes, {})
        self.assertEqual((counted["tokens_to_push"], counted["delivered"], counted["duplicates"]), (1, 1, 1))

    def test_an_event_edit_explains_pushes_until_its_job_finished(self):
        # A rename's push went out between the edit and its job's batch, which pushed again.
        results = self.results([[at(10), True, "event", "e1", "job1"], [at(11), True, "ticket", "s1", None]])
        pushes = [(at(14), "200", "t1"), (at(25), "200", "t1")]
        self.assertEqual(soak.count_duplicates(results, pushes, {"job1": at(26)})["duplicates"], 0)
        # Once the job had finished, the same push explains nothing.
        self.assertEqual(soak.count_duplicates(results, pushes, {"job1": at(12)})["duplicates"], 1)

    def test_a_change_to_another_phones_pass_explains_nothing(self):
        results = self.results([[at(10), True, "ticket", "s2", None]])
        counted = soak.count_duplicates(results, [(at(10.5), "200", "t1")], {})
        self.assertEqual((counted["tokens_to_push"], counted["duplicates"]), (0, 1))


if __name__ == "__main__":
    unittest.main()
