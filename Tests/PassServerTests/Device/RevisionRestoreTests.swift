import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer
import PassServerCLI

/// What a database backup holds of the state these tests change: the revision counter and, for
/// every pass, its revision, attendee and `modified_at`. Restoring writes them back with raw SQL,
/// which leaves the database exactly as restoring a dump taken at that moment would.
private struct Backup {
    var counter: Int64
    var passes: [(serial: String, revision: Int64, attendee: String, modifiedAt: Int64)]

    init(of store: any Store) throws {
        counter = try store.withSession(.read) { try $0.revisions.currentRevision() }
        passes = try store.execute("SELECT serial_number, revision, attendee_name, modified_at FROM passes").map { row in
            (try row.string("serial_number"), try row.int64("revision"), try row.string("attendee_name"), try row.int64("modified_at"))
        }
    }

    func restore(into store: any Store) throws {
        try store.transaction { session in
            for pass in passes {
                try session.execute("""
                    UPDATE passes SET revision = \(pass.revision), attendee_name = \(pass.attendee), modified_at = \(pass.modifiedAt)
                    WHERE serial_number = \(pass.serial)
                    """)
            }
            try session.execute("UPDATE counters SET value = \(counter) WHERE name = 'revision'")
        }
    }
}

@Suite("Restoring a backup: the revision counter", .offCooperativePool, .timeLimit(.minutes(3)))
struct RevisionRestoreTests {
    @Test("a phone's tag from after the backup hides later changes until `revision advance`", arguments: Backend.allCases)
    func restoreThenAdvance(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let serialA = try app.issueTicket(event: event, attendee: "Attendee A")
        let serialB = try app.issueTicket(event: event, attendee: "Attendee B")
        let phone = Phone(app: app)
        try phone.register(serialA)
        try phone.register(serialB)
        let firstTag = try #require(try phone.changedSerials().lastUpdated)

        let backup = try Backup(of: app.store)
        // After the backup: a change the phone syncs, so it holds a tag the backup never saw.
        try app.renameAttendee(serialA, to: "Changed After Backup")
        let synced = try phone.changedSerials(since: firstTag)
        #expect(synced.serials == [serialA])
        let phoneTag = try #require(synced.lastUpdated)
        #expect(try #require(Int64(phoneTag)) > backup.counter)

        // The problem: restored without advancing, the next change takes a revision at or below the
        // phone's tag, so the phone is never told about it.
        try backup.restore(into: app.store)
        try app.renameAttendee(serialB, to: "Hidden Change")
        let hidden = try #require(try app.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: app.passType, serialNumber: "\(serialB)") })
        #expect(hidden.revision <= (try #require(Int64(phoneTag))))
        let missed = try phone.changedSerials(since: phoneTag)
        #expect(missed.status == 204)
        #expect(missed.serials.isEmpty)

        // The fix, as docs/deploying.md describes it: restore, advance, re-push the edited event.
        try backup.restore(into: app.store)
        let output = CapturedOutput()
        let advanced = CommandLineInterface.run(
            ["revision", "advance", "--by", "1000", "--database-url", app.databaseURL], context: output.context()
        )
        #expect(advanced == ExitCode.success, "\(output.standardError)")
        #expect(output.standardOutput.contains("advanced from \(backup.counter) to \(backup.counter + 1000)"))
        #expect(try app.store.withSession(.read) { try $0.revisions.currentRevision() } == backup.counter + 1000)

        let repushed = CommandLineInterface.run(["repush", "--event", event, "--database-url", app.databaseURL], context: output.context())
        #expect(repushed == ExitCode.success, "\(output.standardError)")
        let refreshed = try phone.changedSerials(since: phoneTag)
        #expect(Set(refreshed.serials) == [serialA, serialB], "the re-push reaches the phone's newer tag")
        let restoredA = try phone.fetch(serialA)
        #expect(restoredA.status == 200)
        #expect(PassArchive.strings(in: try PassArchive.passJSON(restoredA.body)).contains("Attendee A"), "the restored state")

        // And a change after the procedure is seen by a phone holding the newest tag.
        let latestTag = try #require(refreshed.lastUpdated)
        try app.renameAttendee(serialB, to: "Seen Change")
        let seen = try phone.changedSerials(since: latestTag)
        #expect(seen.serials == [serialB])
        let seenTag = try #require(seen.lastUpdated)
        #expect(try #require(Int64(seenTag)) > backup.counter + 1000)
    }
}
