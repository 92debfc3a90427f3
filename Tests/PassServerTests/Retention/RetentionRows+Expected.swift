import PassServerFixtures

@testable import PassServer

extension RetentionRows {
    /// What a sweep at `now` must remove.
    static func expected(extraPushLog: Int) -> RetentionSweep.Removed {
        RetentionSweep.Removed(pushLog: 1 + extraPushLog, failedPushes: 1, failedEmails: 1, failedGoogleUpdates: 1, jobs: 1, registrations: 2, devices: 1)
    }
}
