import Foundation
import PassServerTesting
import Testing

@testable import PassServer

/// Many objects at once go to Google as batch requests, each part answered as a call of its own:
/// an import of 300 tickets is a few batch requests, a 400 for one part fails that object only and
/// a 500 for another is retried.
@Suite("Google Wallet: many objects go in few batch requests", .offCooperativePool, .timeLimit(.minutes(3)))
struct GoogleWalletBatchTests {
    @Test("300 imported tickets: a few batch requests; a 400 fails one object, a 500 is retried", arguments: Backend.allCases)
    func importBatches(_ backend: Backend) async throws {
        let fixture = try GoogleFixture(backend)
        defer { fixture.stop() }
        let app = fixture.app
        let fake = fixture.fake
        let event = try OrganizerSupport.createEvent(app)
        try await fixture.settled()
        fake.fail(next: 1, method: "POST", kind: .eventTicketObject, with: .status(400))
        fake.fail(next: 1, method: "POST", kind: .eventTicketObject, with: .status(500))
        let count = 300
        let csv = Array(("externalId,attendeeName\r\n" + (0..<count).map { "EXT-\($0),Guest \($0)\r\n" }.joined()).utf8)
        let upload = try await offPool { try OrganizerSupport.upload(app, event: event, body: csv) }
        #expect(upload.status == 200, "\(upload.text)")
        try await fixture.settled()

        let requests = fake.requests
        let batches = requests.filter { $0.kind == .batch }
        let inserts = requests.filter { $0.kind == .eventTicketObject && $0.method == "POST" }
        #expect(!batches.isEmpty && batches.count <= 20, "\(batches.count) batch requests for \(count) objects")
        #expect(inserts.count == count + 1, "every object inserted once, the one answered 500 twice")
        #expect(inserts.filter { $0.status == 400 }.count == 1 && inserts.filter { $0.status == 500 }.count == 1)
        #expect(fake.storedObjectCount == count - 1, "every object but the refused one")
        #expect(try app.store.withSession(.read) { try $0.googleOutboxCounts() }.failed == 1, "only the refused object failed")
    }
}
