import Foundation
import PassIdentifiers
import PassServerTesting
import Storage
import Testing

@Suite("Pass lists: status, search and modification filters", .offCooperativePool)
struct PassSearchTests {
    static func serials(_ store: any Store, _ event: String, _ filter: PassFilter, after: Int64 = 0, limit: Int = 100) throws -> [String] {
        try store.withSession(.read) { try $0.passes.passes(eventID: event, matching: filter, after: after, limit: limit) }.map(\.serialNumber.rawValue)
    }

    @Test(arguments: Backend.allCases)
    func searchIsCaseInsensitiveOverNameEmailSerialAndExternalID(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let event = try fixture.makeEvent()
        let other = try fixture.makeEvent()
        let rows: [(SerialNumber, String, String?, String?)] = [
            ("S1", "Émile Zola", "emile@example.com", "ORD-100"),
            ("S2", "ada lovelace", "ADA@EXAMPLE.ORG", nil),
            ("S3", "山田 太郎", nil, "ORD-200"),
            ("S4", "100% Real_Name", "x@example.com", "ord_3"),
            ("S5", "Grace", "grace@example.com", nil),
        ]
        let passes = rows.map { serial, name, email, external in
            NewPass(
                passTypeIdentifier: StoreFixture.passType, serialNumber: serial, authenticationTokenHash: Array(serial.rawValue.utf8),
                downloadTokenHash: Array(("d" + serial.rawValue).utf8), attendeeName: name, attendeeEmail: email, externalID: external
            )
        }
        _ = try fixture.store.withSession(.write) { try $0.passes.importPasses(passes, eventID: event.id, now: Date()) }
        try fixture.makePass(serial: "OTHER-ada", eventID: other.id, name: "Ada")

        func search(_ term: String) throws -> [String] { try Self.serials(fixture.store, event.id, PassFilter(search: term)) }
        #expect(try search("ÉMILE") == ["S1"], "non-ASCII case folding")
        #expect(try search("ada") == ["S2"], "name or email, and only this event")
        #expect(try search("example.org") == ["S2"])
        #expect(try search("山田") == ["S3"])
        #expect(try search("ord-") == ["S1", "S3"], "external ids")
        #expect(try search("s4") == ["S4"], "serial numbers")
        #expect(try search("%") == ["S4"], "% is literal")
        #expect(try search("re_l") == [], "_ is literal (as a wildcard it would match real)")
        #expect(try search("real_") == ["S4"])
        #expect(try search("zola\némile") == [], "a term never spans two fields")
        #expect(try search("nobody") == [])
    }

    @Test("a search finds tickets past the scanned window through the index, and follows renames", arguments: Backend.allCases)
    func searchPastTheWindowUsesTheIndex(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let event = try fixture.makeEvent()
        let count = PassOperations.searchWindow + 300
        let passes = (0..<count).map { index in
            NewPass(
                passTypeIdentifier: StoreFixture.passType, serialNumber: "W\(index)", authenticationTokenHash: Array("a\(index)".utf8),
                downloadTokenHash: Array("d\(index)".utf8), attendeeName: "Guest \(index)", attendeeEmail: "guest\(index)@example.com"
            )
        }
        _ = try fixture.store.withSession(.write) { try $0.passes.importPasses(passes, eventID: event.id, now: Date()) }
        func search(_ term: String, after: Int64 = 0, limit: Int = 100) throws -> [String] {
            try Self.serials(fixture.store, event.id, PassFilter(search: term), after: after, limit: limit)
        }
        let last = count - 1
        #expect(try search("guest\(last)@") == ["W\(last)"], "a match after the window")
        #expect(try search("guest1@") == ["W1"], "a match inside the window")
        #expect(try search("guest\(last)") == ["W\(last)"])
        #expect(try search("guest21") == ["W21"] + (210...219).map { "W\($0)" } + (2100...2199).map { "W\($0)" }.prefix(89))
        let tail = try search("guest229", limit: 20)
        #expect(tail == ["W229"] + (2290...2299).map { "W\($0)" }, "matches on both sides of the window, in id order")
        #expect(try search("%") == [], "an escaped term past the window (no index on SQLite) still answers")

        _ = try fixture.store.withSession(.write) {
            try $0.passes.updatePass(
                passTypeIdentifier: StoreFixture.passType, serialNumber: "W\(last - 1)", change: PassChange(attendeeName: "Zephyrine Quill"), now: Date()
            )
        }
        #expect(try search("zephyrine") == ["W\(last - 1)"], "the new name is indexed")
        #expect(try search("guest \(last - 1)\n") == [], "the old name is gone")
        #expect(try search("guest\(last - 1)@") == ["W\(last - 1)"], "the unchanged email is still found")

        switch backend {
        case .sqlite:
            // Fails if the FTS5 index and the text in `passes` ever disagree.
            _ = try fixture.store.execute("INSERT INTO passes_search (passes_search, rank) VALUES ('integrity-check', 1)")
        case .postgres:
            let indexes = try fixture.store.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'passes' AND indexname = 'passes_search_trgm'")
            #expect(indexes.count == 1, "pg_trgm is shipped with PostgreSQL: the test cluster has the trigram index")
        }
    }

    @Test(arguments: Backend.allCases)
    func statusModificationAndPaging(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let event = try fixture.makeEvent()
        let early = Date(timeIntervalSince1970: 1_800_000_000)
        var all: [StoredPass] = []
        for index in 0..<12 { all.append(try fixture.makePass(serial: "\(String(format: "P%02d", index))", eventID: event.id, name: "Name \(index)", now: early)) }
        let later = early.addingTimeInterval(100)
        for index in [1, 4, 7, 10] {
            _ = try fixture.store.withSession(.write) {
                try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: all[index].serialNumber, change: PassChange(status: .cancelled), now: later)
            }
        }
        _ = try fixture.store.withSession(.write) {
            try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: all[2].serialNumber, change: PassChange(attendeeName: "Renamed"), now: later)
        }

        #expect(try Self.serials(fixture.store, event.id, PassFilter(status: .cancelled)) == ["P01", "P04", "P07", "P10"])
        #expect(try Self.serials(fixture.store, event.id, PassFilter(status: .active)).count == 8)
        #expect(try Self.serials(fixture.store, event.id, PassFilter(modifiedSince: later)) == ["P01", "P02", "P04", "P07", "P10"])
        // modified_at is whole seconds: an instant inside the second after the change excludes it.
        #expect(try Self.serials(fixture.store, event.id, PassFilter(modifiedSince: later.addingTimeInterval(0.5))) == [])
        #expect(try Self.serials(fixture.store, event.id, PassFilter(status: .active, search: "renamed", modifiedSince: later)) == ["P02"])
        #expect(try Self.serials(fixture.store, event.id, PassFilter(search: "name 2")) == [], "the old name is no longer found")

        // Paging by id through a filter: no gaps, no repeats.
        var seen: [String] = []
        var after: Int64 = 0
        var pages = 0
        while true {
            pages += 1
            try #require(pages <= 10, "paging does not end: \(seen)")
            let page = try fixture.store.withSession(.read) { try $0.passes.passes(eventID: event.id, matching: PassFilter(status: .active), after: after, limit: 3) }
            seen += page.map(\.serialNumber.rawValue)
            guard let last = page.last, page.count == 3 else { break }
            after = last.id
        }
        #expect(seen == ["P00", "P02", "P03", "P05", "P06", "P08", "P09", "P11"])
    }

    @Test(arguments: Backend.allCases)
    func rowsFromBeforeTheSearchColumnAreSearchable(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let event = try fixture.makeEvent()
        try fixture.makePass(serial: "OLD1", eventID: event.id, name: "Old Timer")
        // As migration 6 leaves a row it filled in with the database's lower().
        try fixture.store.execute("UPDATE passes SET search_text = NULL")
        try fixture.store.execute("UPDATE passes SET search_text = lower(attendee_name || '\n' || coalesce(attendee_email, '') || '\n' || serial_number)")
        #expect(try Self.serials(fixture.store, event.id, PassFilter(search: "TIMER")) == ["OLD1"])
    }
}
