import PassServerTesting
import Testing

/// The soak test's verdict (`bench/soak.py judge`) on made-up runs: `bench/soak_judge_test.py`
/// feeds it a good run, which must pass, and bad ones (every phone request answered 401, both
/// instances hung, requests unanswered outside the outage windows, a 5xx outside the database
/// windows, more duplicate pushes than were in flight, RSS growing over the second half beyond the
/// bound, lost registrations), each of which must fail with its reason. The soak itself takes ten
/// minutes and is not part of `make test`; its verdict is.
@Suite("Soak test verdict (bench/soak.py judge)", .offCooperativePool, .timeLimit(.minutes(2)))
struct SoakJudgeTests {
    /// The cases the script must run and pass, so that a script that ran none cannot pass here.
    static let cases = [
        "test_good_run_passes",
        "test_every_phone_request_answered_401_fails",
        "test_one_unexpected_4xx_fails",
        "test_unexpected_4xx_inside_a_database_window_passes",
        "test_both_instances_hung_fails",
        "test_unanswered_requests_outside_the_windows_fail",
        "test_instance_a_unanswered_while_b_was_down_fails",
        "test_5xx_outside_the_database_windows_fails",
        "test_5xx_within_the_grace_after_a_database_window_passes",
        "test_duplicates_beyond_the_in_flight_rows_fail",
        "test_rss_growth_over_the_second_half_beyond_the_bound_fails",
        "test_rss_bound_follows_the_bundle_cache_budget",
        "test_missing_rss_samples_fail",
        "test_lost_registrations_undelivered_pushes_and_leftover_work_fail",
        "test_the_judge_command_exits_with_the_verdict",
        "test_a_push_without_a_change_since_the_previous_one_is_a_duplicate",
        "test_an_event_edit_explains_pushes_until_its_job_finished",
        "test_a_change_to_another_phones_pass_explains_nothing",
    ]

    @Test("bench/soak_judge_test.py: the good run passes, every bad run fails with its reason")
    func judgeFeedsBadRuns() throws {
        try expectPythonUnitTests("bench/soak_judge_test.py", cases: Self.cases)
    }
}
