package import Foundation
package import PassIdentifiers
import PassServerTesting
package import PassServer
package import Storage

/// Rows on both sides of every retention boundary: for each table one row `margin` past its
/// retention (a sweep at `now` removes it) and one `margin` short of it (it stays), plus a few
/// that never go (a pending push however old, a running job, a pass without an event).
package struct RetentionRows {
    /// What is left afterwards, by table. A sweep at `now` keeps the push log entry exactly as old
    /// as its retention; a sweep by the real clock, moments later, removes it.
    package static func survivors(exactEdge: Bool = true) -> [String: [String]] {
        var survivors = survivorsAtNow
        if !exactEdge { survivors["push_log"] = ["young"] }
        return survivors
    }

    private static let survivorsAtNow: [String: [String]] = [
        "push_log": ["edge", "young"],
        "push_outbox": ["failed-young", "pending-old"].map { PushToken.fixture($0).rawValue },
        "mail_outbox": ["no-event", "young-ended"],
        "google_outbox": ["o:00000000000000000902", "o:00000000000000000903"],
        "jobs": ["done-young", "running"],
        "registrations": ["dev-mixed/young-no-end", "dev-young/no-event", "dev-young/young-ended"],
        "devices": ["dev-mixed", "dev-young"],
    ]

    package static let passType: PassTypeIdentifier = "pass.test.retention"

    /// Writes the rows; `extraPushLog` more push log rows past their retention test batching.
    package static func populate(_ store: any Store, now: Date, retention: Configuration.Retention = .init(), margin: TimeInterval, extraPushLog: Int = 0) throws {
        func ago(_ seconds: Int, _ offset: TimeInterval) -> Date { now.addingTimeInterval(-TimeInterval(seconds) + offset) }
        func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

        for (name, time) in [("old", ago(retention.pushLog, -margin)), ("edge", ago(retention.pushLog, 0)), ("young", ago(retention.pushLog, margin))] {
            try store.recordPushes([PushLogEntry(tokenHash: name, passTypeIdentifier: passType, status: 200, latencyMilliseconds: 1, createdAt: time)])
        }
        try store.transaction { session in
            for index in 0..<extraPushLog {
                try session.outbox.recordPushes([PushLogEntry(
                    tokenHash: "extra\(index)", passTypeIdentifier: passType, status: 410, latencyMilliseconds: 1,
                    createdAt: ago(retention.pushLog, -margin - TimeInterval(index))
                )])
            }
        }
        // The pending row backs off until tomorrow, so a running dispatcher leaves it alone.
        let tomorrow = now.addingTimeInterval(86_400)
        for (token, state, time, next) in [("failed-old", "failed", ago(retention.pushLog, -margin), ago(retention.pushLog, -margin)),
                                           ("failed-young", "failed", ago(retention.pushLog, margin), ago(retention.pushLog, margin)),
                                           ("pending-old", "pending", ago(retention.pushLog, -margin * 2), tomorrow)] {
            try store.execute("""
                INSERT INTO push_outbox (push_token, pass_type_identifier, next_attempt_at, first_enqueued_at, state)
                VALUES (\(PushToken.fixture(token)), \(passType), \(millis(next)), \(millis(time)), \(state))
                """)
        }

        func event(_ name: String, starts: Date, ends: Date?) throws -> String {
            try store.withSession(.write) { try $0.events.createEvent(NewEvent(name: name, venue: "Hall", startsAt: starts, endsAt: ends, timeZone: "UTC", template: "event-ticket"), now: now) }.id
        }
        let endedOld = try event("ended-old", starts: ago(retention.registrations, -margin - 3_600), ends: ago(retention.registrations, -margin))
        let endedYoung = try event("ended-young", starts: ago(retention.registrations, -margin - 3_600), ends: ago(retention.registrations, margin))
        let noEndOld = try event("no-end-old", starts: ago(retention.registrations, -margin), ends: nil)
        let noEndYoung = try event("no-end-young", starts: ago(retention.registrations, margin), ends: nil)
        for (serial, eventID) in [("old-ended", endedOld), ("young-ended", endedYoung), ("old-no-end", noEndOld),
                                  ("young-no-end", noEndYoung), ("no-event", nil)] as [(SerialNumber, String?)] {
            _ = try store.withSession(.write) {
                try $0.passes.insertPass(NewPass(
                    passTypeIdentifier: passType, serialNumber: serial, authenticationTokenHash: Array("a-\(serial)".utf8),
                    downloadTokenHash: Array("d-\(serial)".utf8), eventID: eventID, attendeeName: "Ada", attendeeEmail: nil, seat: nil
                ), now: now)
            }
        }
        // Email outbox rows, by their pass: failed long ago, failed recently, pending since long ago.
        for (serial, state, time, next) in [("old-ended", "failed", ago(retention.pushLog, -margin), ago(retention.pushLog, -margin)),
                                            ("young-ended", "failed", ago(retention.pushLog, margin), ago(retention.pushLog, margin)),
                                            ("no-event", "pending", ago(retention.pushLog, -margin * 2), tomorrow)] {
            try store.execute("""
                INSERT INTO mail_outbox (pass_id, next_attempt_at, first_enqueued_at, state)
                SELECT id, \(millis(next)), \(millis(time)), \(state) FROM passes WHERE serial_number = \(serial)
                """)
        }
        // Google Wallet outbox rows: failed long ago, failed recently, pending since long ago.
        for (target, state, time) in [("o:00000000000000000901", "failed", ago(retention.pushLog, -margin)), ("o:00000000000000000902", "failed", ago(retention.pushLog, margin)),
                                      ("o:00000000000000000903", "pending", ago(retention.pushLog, -margin * 2))] {
            try store.execute("""
                INSERT INTO google_outbox (target, next_attempt_at, first_enqueued_at, state)
                VALUES (\(target), \(millis(state == "failed" ? time : tomorrow)), \(millis(time)), \(state))
                """)
        }
        for (device, serial) in [("dev-old", "old-ended"), ("dev-mixed", "old-no-end"), ("dev-mixed", "young-no-end"),
                                 ("dev-young", "young-ended"), ("dev-young", "no-event")] {
            _ = try store.withSession(.write) {
                try $0.registrations.upsertRegistration(
                    deviceLibraryIdentifier: "\(device)", pushToken: .fixture("token-\(device)"), passTypeIdentifier: passType, serialNumber: "\(serial)", now: now
                )
            }
        }

        // The running job belongs to another process's runner for the next day, so a running
        // server leaves it alone.
        for (id, state, finished, claimed) in [("done-old", "done", ago(retention.jobs, -margin) as Date?, nil as Date?),
                                               ("done-young", "done", ago(retention.jobs, margin), nil), ("running", "running", nil, tomorrow)] {
            try store.execute("""
                INSERT INTO jobs (id, kind, event_id, state, created_at, finished_at, claimed_until)
                VALUES (\(id), 'repush', \(endedYoung), \(state), \(millis(ago(retention.jobs, -margin * 3))), \(finished.map(millis)),
                    \(claimed.map(millis)))
                """)
        }
    }

    /// The rows left, by table, in the form of `survivors`.
    package static func remaining(_ store: any Store) throws -> [String: [String]] {
        // Sorted here, not by SQL: the two backends collate differently.
        func column(_ sql: String, _ name: String = "v") throws -> [String] {
            try store.execute(SQLQuery(unsafeRaw: sql)).map { try $0.string(name) }.sorted()
        }
        return [
            "push_log": try column("SELECT token_hash AS v FROM push_log"),
            "push_outbox": try column("SELECT push_token AS v FROM push_outbox"),
            "mail_outbox": try column("SELECT p.serial_number AS v FROM mail_outbox m JOIN passes p ON p.id = m.pass_id"),
            "google_outbox": try column("SELECT target AS v FROM google_outbox"),
            "jobs": try column("SELECT id AS v FROM jobs"),
            "registrations": try store.execute("SELECT device_library_identifier AS d, serial_number AS s FROM registrations")
                .map { "\(try $0.string("d"))/\(try $0.string("s"))" }.sorted(),
            "devices": try column("SELECT device_library_identifier AS v FROM devices"),
        ]
    }
}
