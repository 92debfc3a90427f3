import Foundation
import PassIdentifiers
import PassServerTesting
import Testing

@testable import Storage

/// SQLite's plans for the statements whose cost must not grow with the database: what anyone can
/// make the server run (the changed-serials list takes no credentials) and what runs holding the
/// write lock (a re-import's lookup of the passes it already has). SQLite has no statistics unless
/// `ANALYZE` ran, and its guesses chose loops that read every pass of a type (0.2 s per list on
/// 100,000 passes) or every pass of an event for each imported id; so each plan is pinned, loop by
/// loop, outermost first, with and without statistics. Each check is also shown failing the shape
/// of the statement that had the bad plan, so it can tell.
@Suite("Query plans on SQLite", .offCooperativePool, .timeLimit(.minutes(2)))
struct QueryPlanTests {
    /// The `detail` column of `EXPLAIN QUERY PLAN`: one line per loop or subquery, outermost first.
    static func plan(_ query: SQLQuery, in session: StoreSession) throws -> [String] {
        try session.execute("EXPLAIN QUERY PLAN \(query)").map { try $0.string("detail") }
    }

    static func plan(_ query: SQLQuery, in store: any Store) throws -> [String] {
        try store.withSession(.read) { try plan(query, in: $0) }
    }

    /// A store with passes of one type in one event (with external ids), some registered to one
    /// device, so the planner sees tables of some size; with `analyzed`, `ANALYZE` has run too.
    static func populatedStore(analyzed: Bool) throws -> (StoreFixture, Event) {
        let fixture = try StoreFixture(.sqlite)
        let event = try fixture.makeEvent()
        try fixture.store.transaction { session in
            try session.execute("""
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
                INSERT INTO passes (pass_type_identifier, serial_number, authentication_token_hash, download_token_hash,
                    event_id, attendee_name, external_id, revision, modified_at, created_at)
                SELECT \(StoreFixture.passType), 'P' || i, randomblob(32), randomblob(32), \(event.id), 'Attendee', 'ext-' || i, i, 0, 0 FROM n
                """)
            for serial: SerialNumber in ["P1", "P2", "P3"] {
                _ = try session.registrations.upsertRegistration(
                    deviceLibraryIdentifier: "device-1", pushToken: .fixture("phone-1"),
                    passTypeIdentifier: StoreFixture.passType, serialNumber: serial, now: Date()
                )
            }
            if analyzed { try session.executeScript("ANALYZE") }
        }
        return (fixture, event)
    }

    /// What is wrong with a changed-serials plan: it must loop over the device's registrations of
    /// the type (a range of their primary key) and look each pass up by its unique key, no scan,
    /// no sort.
    static func serialsPlanProblems(_ plan: [String]) -> [String] {
        var problems: [String] = []
        if plan.count != 2 { problems.append("expected two loops, got \(plan.count)") }
        if !(plan.first.map { $0.hasPrefix("SEARCH r USING ") && $0.contains("(device_library_identifier=? AND pass_type_identifier=?)") } ?? false) {
            problems.append("the outer loop is not the device's registrations by key")
        }
        if !(plan.dropFirst().first.map { $0.hasPrefix("SEARCH p USING ") && $0.contains("(pass_type_identifier=? AND serial_number=?)") } ?? false) {
            problems.append("the inner loop is not one pass by its unique key")
        }
        problems += plan.filter { $0.hasPrefix("SCAN") || $0.contains("TEMP B-TREE") }.map { "reads more than it must: \($0)" }
        return problems
    }

    /// What is wrong with the plan of the re-import's lookup: it must loop over the wanted ids and
    /// look each up in the unique index on (event, external id).
    static func existingPassesPlanProblems(_ plan: [String]) -> [String] {
        var problems: [String] = []
        if plan.count != 2 { problems.append("expected two loops, got \(plan.count)") }
        if !(plan.first?.hasPrefix("SCAN wanted VIRTUAL TABLE") ?? false) { problems.append("the outer loop is not the wanted ids") }
        if !(plan.dropFirst().first.map { $0.hasPrefix("SEARCH p USING INDEX passes_event_external_id (event_id=? AND external_id=?)") } ?? false) {
            problems.append("the inner loop is not one pass by (event, external id)")
        }
        return problems
    }

    @Test("the changed-serials list loops over the device's registrations and looks up each pass by key", arguments: [false, true])
    func changedSerialsStartFromTheDevice(analyzed: Bool) throws {
        let (fixture, _) = try Self.populatedStore(analyzed: analyzed)
        for since in [nil, Int64(5)] {
            let query = RegistrationOperations.serialsQuery(deviceLibraryIdentifier: "device-1", passTypeIdentifier: StoreFixture.passType, updatedAfter: since)
            let plan = try Self.plan(query, in: fixture.store)
            #expect(Self.serialsPlanProblems(plan).isEmpty, "passesUpdatedSince \(since.map(String.init) ?? "none"), statistics \(analyzed): \(plan)")
        }
        // The statement still answers what it did.
        let listed = try fixture.store.withSession(.read) {
            try $0.registrations.serials(deviceLibraryIdentifier: "device-1", passTypeIdentifier: StoreFixture.passType, updatedAfter: 1)
        }
        #expect(listed.serialNumbers == ["P2", "P3"])
        #expect(listed.lastRevision == 3)

        // Control: the statement as it was before its plan was pinned, whose plan (without
        // statistics) walks the type's passes in serial order, is caught.
        if !analyzed {
            let before: SQLQuery = """
                SELECT p.serial_number, p.revision, r.told_revision FROM registrations r
                JOIN passes p ON p.pass_type_identifier = r.pass_type_identifier AND p.serial_number = r.serial_number
                WHERE r.device_library_identifier = \("device-1") AND r.pass_type_identifier = \(StoreFixture.passType)
                  AND p.revision > \(-1)
                ORDER BY p.serial_number
                """
            let plan = try Self.plan(before, in: fixture.store)
            #expect(!Self.serialsPlanProblems(plan).isEmpty, "the check passes the plan that read every pass: \(plan)")
        }
    }

    @Test("a re-import loops over the wanted external ids and looks up each in the event's unique index", arguments: [false, true])
    func existingPassesStartFromTheIDs(analyzed: Bool) throws {
        let (fixture, event) = try Self.populatedStore(analyzed: analyzed)
        let ids = (1...500).map { "ext-\($0)" }
        let plan = try fixture.store.withSession(.read) { session in
            try Self.plan(try session.passes.existingPassesQuery(eventID: event.id, externalIDs: ids), in: session)
        }
        #expect(Self.existingPassesPlanProblems(plan).isEmpty, "statistics \(analyzed): \(plan)")
        let found = try fixture.store.withSession(.read) { try $0.passes.existingPasses(eventID: event.id, externalIDs: ids + ["ext-none"]) }
        #expect(found.count == 500)
        #expect(found["ext-7"]?.serialNumber == "P7")

        // Control: the join as it was before, driven from the event's passes, is caught.
        if !analyzed {
            let before: SQLQuery = """
                SELECT p.id FROM json_each(\("[\"ext-1\"]")) AS wanted
                JOIN passes p ON p.event_id = \(event.id) AND p.external_id = wanted.value
                """
            let plan = try Self.plan(before, in: fixture.store)
            #expect(!Self.existingPassesPlanProblems(plan).isEmpty, "the check passes the plan that read the whole event per id: \(plan)")
        }
    }
}
