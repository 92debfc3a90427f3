import Foundation
import PassIdentifiers
import PassServerTesting
@testable import Storage
import Testing

/// Writes whose rows nobody reads (`executeDeferred`) and a transaction's BEGIN travel with the
/// next statement or the COMMIT on PostgreSQL (one libpq pipeline), keep their order, and fail
/// the transaction as any statement would. SQLite runs them at once, with the same outcomes.
@Suite("Deferred statements and the round trips a transaction takes", .offCooperativePool)
struct DeferredStatementTests {
    static func insertEvent(_ id: String) -> SQLQuery {
        """
        INSERT INTO events (id, name, venue, starts_at, time_zone, template, revision, created_at, updated_at)
        VALUES (\(id), 'Deferred', 'Hall', 1900000000, 'UTC', 'event', 0, 0, 0)
        """
    }

    static func events(_ session: StoreSession, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int64 {
        try #require(try session.execute("SELECT count(*) AS n FROM events").first, sourceLocation: sourceLocation).int64("n")
    }

    /// Events as another store on the same database sees them (committed rows only).
    static func committedEvents(_ fixture: StoreFixture, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int64 {
        let other = try fixture.reopen()
        defer { other.close() }
        return try other.withSession(.read) { try events($0, sourceLocation: sourceLocation) }
    }

    /// Round trips the session's PostgreSQL connection has made so far.
    static func roundTrips(_ session: StoreSession, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
        try #require(session.connection as? PGConnection, sourceLocation: sourceLocation).roundTrips
    }

    @Test("PostgreSQL: BEGIN and two deferred inserts go with the statements after them: 3 round trips, not 6")
    func roundTripsOfATransaction() throws {
        let fixture = try StoreFixture(.postgres)
        let counts = try fixture.store.withSession(.write) { session in
            // The first transaction prepares the statements; the second one is measured.
            var seen: [Int64] = []
            var trips = 0
            for round in 0..<2 {
                let before = try Self.roundTrips(session)
                seen = try session.transaction {
                    let start = try Self.events(session)
                    try session.executeDeferred(Self.insertEvent("a\(round)"))
                    try session.executeDeferred(Self.insertEvent("b\(round)"))
                    return [start, try Self.events(session)]
                }
                trips = try Self.roundTrips(session) - before
            }
            return (seen, trips)
        }
        // [BEGIN, count], [insert, insert, count], [COMMIT]: the reads see the writes in order.
        #expect(counts.1 == 3)
        #expect(counts.0[1] == counts.0[0] + 2)
        #expect(try Self.committedEvents(fixture) == 4)
    }

    @Test("PostgreSQL: a transaction that runs no statement sends nothing; one of deferred writes only is one round trip")
    func emptyAndWriteOnlyTransactions() throws {
        let fixture = try StoreFixture(.postgres)
        try fixture.store.withSession(.write) { session in
            try session.transaction { try session.executeDeferred(Self.insertEvent("warm")) }
            var before = try Self.roundTrips(session)
            try session.transaction {}
            #expect(try Self.roundTrips(session) == before)
            struct Stop: Error {}
            #expect(throws: Stop.self) { try session.transaction { throw Stop() } }
            #expect(try Self.roundTrips(session) == before)

            before = try Self.roundTrips(session)
            try session.transaction { try session.executeDeferred(Self.insertEvent("only")) }
            #expect(try Self.roundTrips(session) == before + 1)
        }
        #expect(try Self.committedEvents(fixture) == 2)
    }

    @Test("a failing deferred write fails the transaction with its own error and keeps nothing; the connection serves the next one",
          arguments: Backend.allCases)
    func aFailingDeferredWrite(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        _ = try fixture.store.transaction { try $0.execute(Self.insertEvent("taken")) }
        for endsWithCommit in [false, true] {
            let thrown = #expect(throws: StorageError.self) {
                try fixture.store.transaction { session in
                    try session.executeDeferred(Self.insertEvent("kept-not\(endsWithCommit)"))
                    try session.executeDeferred(Self.insertEvent("taken"))
                    if !endsWithCommit { _ = try Self.events(session) }
                }
            }
            #expect(thrown?.code == .conflict)
            #expect(try Self.committedEvents(fixture) == 1)
        }
        try fixture.store.transaction { try $0.executeDeferred(Self.insertEvent("after")) }
        #expect(try Self.committedEvents(fixture) == 2)
    }

    @Test("outside a transaction a deferred write runs at once", arguments: Backend.allCases)
    func outsideATransaction(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        try fixture.store.withSession(.write) { session in
            try session.executeDeferred(Self.insertEvent("now"))
            #expect(try Self.committedEvents(fixture) == 1)
        }
    }

    @Test("PostgreSQL: settling a batch of push answers with its push log is two round trips whatever its size")
    func settlementRoundTrips() throws {
        let fixture = try StoreFixture(.postgres)
        let start = Date(timeIntervalSince1970: 1_900_000_000)
        let rows = try fixture.claimedOutboxRows(200, due: start)
        #expect(rows.count == 200)
        let trips = try fixture.store.withSession(.write) { session in
            // A warm-up batch of the same shapes prepares the statements.
            try [rows.prefix(100), rows.suffix(100)].map { batch in
                let before = try Self.roundTrips(session)
                try session.transaction {
                    let entries = batch.enumerated().map { index, row in
                        OutboxSettlement.Entry(
                            id: row.id, generation: row.generation,
                            change: index % 2 == 0 ? .completed : .retry(nextAttempt: start.addingTimeInterval(60), status: 503, reason: nil)
                        )
                    }
                    try session.outbox.settleOutbox(OutboxSettlement(entries: entries), now: start)
                    try session.outbox.recordPushes(batch.map { row in
                        PushLogEntry(
                            tokenHash: row.pushToken.rawValue, passTypeIdentifier: row.passTypeIdentifier, status: 200, reason: nil, apnsID: nil,
                            latencyMilliseconds: 1, createdAt: start, outcome: "delivered"
                        )
                    })
                }
                return try Self.roundTrips(session) - before
            }
        }
        // [BEGIN, lock the rows], [DELETE, UPDATE, INSERT INTO push_log, COMMIT].
        #expect(trips[1] == 2)
        #expect(try fixture.store.withSession(.read) { try $0.outbox.outboxCounts(now: start) } == OutboxCounts(pending: 100, inFlight: 0, failed: 0))
        let logged = try fixture.store.withSession(.read) { try $0.execute("SELECT count(*) AS n FROM push_log").first?.int("n") }
        #expect(logged == 200)
    }

    @Test("PostgreSQL: a re-push batch is five round trips: lock the job, lock the passes, take the revision, bump and enqueue, the rest with the COMMIT")
    func repushBatchRoundTrips() throws {
        let fixture = try StoreFixture(.postgres)
        let event = try EventListTests.makeEvent(fixture, name: "Trips", startsAt: 1_800_000_000)
        for index in 0..<6 {
            try fixture.makePass(serial: "R\(index)", eventID: event.id)
            _ = try fixture.register(device: "dev\(index)", token: .fixture("t\(index)"), serial: "R\(index)")
        }
        let job = try #require(try fixture.store.withSession(.write) {
            try $0.events.updateEvent(id: event.id, change: EventChange(venue: "Elsewhere"), now: Date())
        }.job)
        let (batches, trips) = try fixture.store.withSession(.write) { session in
            // The first batch prepares the statements; the second one is measured.
            var batches: [RepushBatch] = []
            var trips = 0
            for _ in 0..<2 {
                let before = try Self.roundTrips(session)
                batches.append(try session.jobs.runRepushBatch(jobID: job.id, batchSize: 3, now: Date()))
                trips = try Self.roundTrips(session) - before
            }
            return (batches, trips)
        }
        #expect(batches.map(\.passesBumped) == [3, 3])
        #expect(batches.map(\.pushTokensEnqueued) == [3, 3])
        #expect(trips == 5)
    }

    @Test("a script that opens a transaction belongs to it: rolled back with it, even before any other statement",
          arguments: Backend.allCases)
    func aScriptFirstInATransaction(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        struct Stop: Error {}
        let script = ["one", "two"].map { id in
            """
            INSERT INTO events (id, name, venue, starts_at, time_zone, template, revision, created_at, updated_at)
            VALUES ('\(id)', 'Script', 'Hall', 1900000000, 'UTC', 'event', 0, 0, 0);
            """
        }.joined(separator: "\n")
        #expect(throws: Stop.self) {
            try fixture.store.withSession(.write) { session in
                try session.transaction {
                    try session.executeScript(script)
                    throw Stop()
                }
            }
        }
        #expect(try Self.committedEvents(fixture) == 0)
        try fixture.store.withSession(.write) { session in try session.transaction { try session.executeScript(script) } }
        #expect(try Self.committedEvents(fixture) == 2)
    }
}
