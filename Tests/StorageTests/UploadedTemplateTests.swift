import Foundation
import PassServerTesting
import Testing

@testable import Storage

/// Uploaded templates as stored: the archive, the mapping and the hash of both, replaced
/// together or the mapping alone while the row is as it was read, and read by name, in bulk or
/// as the short version every instance compares.
@Suite("Storage: uploaded templates", .offCooperativePool, .timeLimit(.minutes(2)))
struct UploadedTemplateTests {
    @Test("saving again replaces archive, mapping and hash and keeps the creation time", arguments: Backend.allCases)
    func saveAndReplace(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        let created = Date(timeIntervalSince1970: 1_800_000_000)
        try store.withSession(.write) { try $0.templates.saveTemplate(name: "gala", files: [1, 2, 3], mapping: #"{"a":"seat"}"#, sourceHash: "h1", now: created) }
        #expect(try store.withSession(.read) { try $0.templates.storedTemplateVersion(name: "gala") } == "h1")
        #expect(try store.withSession(.read) { try $0.templates.storedTemplateVersion(name: "none") } == nil)
        let replaced = created.addingTimeInterval(60)
        try store.withSession(.write) { try $0.templates.saveTemplate(name: "gala", files: [0, 255], mapping: "{}", sourceHash: "h2", now: replaced) }
        let row = try #require(try store.withSession(.read) { try $0.templates.storedTemplate(name: "gala") })
        #expect(row.files == [0, 255] && row.mapping == "{}" && row.sourceHash == "h2")
        #expect(row.createdAt == created && row.updatedAt == replaced)
        #expect(try store.withSession(.read) { try $0.templates.storedTemplateMapping(name: "gala") }.map { [$0.mapping, $0.sourceHash] } == ["{}", "h2"])
    }

    @Test("a mapping is replaced only while the row has the hash it was made for", arguments: Backend.allCases)
    func conditionalMapping(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        try store.withSession(.write) { try $0.templates.saveTemplate(name: "gala", files: [1], mapping: "{}", sourceHash: "h1", now: Date()) }
        #expect(try store.withSession(.write) { try $0.templates.setTemplateMapping(name: "gala", expected: "old", mapping: "{\"x\":\"seat\"}", sourceHash: "h9", now: Date()) } == false)
        #expect(try store.withSession(.write) { try $0.templates.setTemplateMapping(name: "none", expected: "h1", mapping: "{}", sourceHash: "h9", now: Date()) } == false)
        #expect(try store.withSession(.write) { try $0.templates.setTemplateMapping(name: "gala", expected: "h1", mapping: "{\"x\":\"seat\"}", sourceHash: "h2", now: Date()) })
        let row = try #require(try store.withSession(.read) { try $0.templates.storedTemplate(name: "gala") })
        #expect(row.mapping == "{\"x\":\"seat\"}" && row.sourceHash == "h2" && row.files == [1])
    }

    @Test("names and versions are read in one statement each, rows in bulk by name", arguments: Backend.allCases)
    func bulkReads(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        for (index, name) in ["b-gala", "a-gala", "c-gala"].enumerated() {
            try store.withSession(.write) { try $0.templates.saveTemplate(name: name, files: [UInt8(index)], mapping: "{}", sourceHash: "h\(index)", now: Date()) }
        }
        #expect(try store.withSession(.read) { try $0.templates.storedTemplateNames() } == ["a-gala", "b-gala", "c-gala"])
        #expect(try store.withSession(.read) { try $0.templates.storedTemplateVersions() }.map { "\($0.name)=\($0.sourceHash)" } == ["a-gala=h1", "b-gala=h0", "c-gala=h2"])
        let rows = try store.withSession(.read) { try $0.templates.storedTemplates(names: ["c-gala", "a-gala", "nope", "a-gala"]) }
        #expect(rows.keys.sorted() == ["a-gala", "c-gala"] && rows["c-gala"]?.files == [2])
        #expect(try store.withSession(.read) { try $0.templates.storedTemplates(names: []) }.isEmpty)
    }

    @Test("a template stored before version 16 gets the empty mapping and no hash", arguments: Backend.allCases)
    func migratedRow(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend, migrate: false)
        try fixture.store.withSession(.write) { try $0.migrate(through: 15) }
        try fixture.store.execute("INSERT INTO pass_templates (name, files, created_at, updated_at) VALUES ('old', \([UInt8]([9])), 0, 0)")
        try fixture.store.migrate()
        let row = try #require(try fixture.store.withSession(.read) { try $0.templates.storedTemplate(name: "old") })
        #expect(row.mapping == "{}" && row.sourceHash == "" && row.files == [9])
    }
}
