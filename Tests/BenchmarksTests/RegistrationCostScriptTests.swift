import PassServerTesting
import Testing

/// bench/registration-cost.sh replays the server's own registration statements, taken from the
/// cluster's log by `bench/registration_cost.py`; `bench/registration_cost_test.py` feeds that
/// converter made-up logs: the device and the pass become pgbench variables and every other
/// parameter the literal the server sent, the batch is sixteen registrations in one transaction,
/// the bare replay writes the two upserts into the copies, another session's record between an
/// execution and its parameters changes nothing, and a log without the registration (or read from
/// past it) is an error. The benchmark itself is not part of `make test`; its converter is.
@Suite("Registration cost benchmark: the server's statements into pgbench scripts", .offCooperativePool, .timeLimit(.minutes(2)))
struct RegistrationCostScriptTests {
    static let cases = [
        "test_the_registration_becomes_scripts_with_the_device_and_pass_as_variables",
        "test_the_batch_is_sixteen_registrations_in_one_transaction",
        "test_the_bare_replay_is_the_two_upserts_into_the_copies",
        "test_another_sessions_record_between_does_not_hide_the_parameters",
        "test_a_log_without_the_registration_is_an_error",
        "test_records_before_the_start_are_not_read",
        "test_a_statement_without_its_eviction_is_an_error",
        "test_parameters_are_read_with_quotes_and_nulls",
    ]

    @Test("bench/registration_cost_test.py: every case passes")
    func converterCases() throws {
        try expectPythonUnitTests("bench/registration_cost_test.py", cases: Self.cases)
    }
}
