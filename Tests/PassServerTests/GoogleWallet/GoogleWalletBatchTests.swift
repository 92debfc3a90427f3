import Foundation
import GoogleWallet
import PassServerFixtures
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
        #expect(try app.store.withSession(.read) { try $0.google.googleOutboxCounts() }.failed == 1, "only the refused object failed")
    }
}

/// The sender's fallbacks inside batch requests, without a server: Google already holds some of
/// the objects sent as inserts (409: patched) and lacks some sent as patches (404: inserted).
@Suite("Google Wallet sender: the fallbacks of batched objects", .offCooperativePool, .timeLimit(.minutes(1)))
struct GoogleSenderBatchTests {
    @Test("30 inserts Google holds become patches, 30 patches it lacks become inserts, in batch requests")
    func fallbacks() throws {
        let fake = try FakeGoogleWallet()
        defer { fake.shutdown() }
        let directory = try TestCertificates.temporaryDirectory(prefix: "google-sender")
        let account = try fake.makeServiceAccount(in: directory)
        let endpoints = GoogleWalletEndpoints(api: fake.endpoints.api, token: fake.endpoints.token, save: fake.endpoints.save, callbackKeys: fake.endpoints.callbackKeys)
        let client = GoogleWalletClient(account: try GoogleServiceAccount.load(file: account.keyFile), endpoints: endpoints)
        let sender = GoogleSender(client: client, threads: 1)
        let classID = "\(fake.issuerID).night"
        func json(_ object: [String: Any]) throws -> [UInt8] { Array(try JSONSerialization.data(withJSONObject: object)) }
        func object(_ index: Int, inserted: Bool) throws -> GoogleSender.Message {
            let id = "\(fake.issuerID).T-\(index)"
            return .success(GoogleMessage(
                resource: .eventTicketObject, id: id, body: try json(["id": id, "classId": classID, "state": "ACTIVE", "ticketNumber": "T-\(index)"]),
                inserted: inserted, notify: false
            ))
        }
        let classBody = try json(["id": classID, "issuerName": "Example Events", "eventName": ["defaultValue": ["language": "en", "value": "Night"]]])
        #expect(sender.deliver([.success(GoogleMessage(resource: .eventTicketClass, id: classID, body: classBody, inserted: false, notify: false))]) == [.synced(status: 200, notified: false)])
        #expect(sender.deliver(try (0..<30).map { try object($0, inserted: false) }).allSatisfy { $0 == .synced(status: 200, notified: false) })
        let before = fake.requests.count

        // 0..<30 are at Google but sent as inserts; 30..<60 are not but sent as patches; 60..<90 are new.
        let messages = try (0..<30).map { try object($0, inserted: false) } + (30..<60).map { try object($0, inserted: true) }
            + (60..<90).map { try object($0, inserted: false) }
        let deliveries = sender.deliver(messages)
        #expect(deliveries.count == 90 && deliveries.allSatisfy { if case .synced = $0 { true } else { false } }, "\(deliveries)")
        let requests = fake.requests.dropFirst(before)
        #expect(requests.filter { $0.kind == .batch }.count == 2, "the calls, then the fallbacks")
        #expect(requests.filter { $0.method == "POST" && $0.kind == .eventTicketObject && $0.status == 409 }.count == 30)
        #expect(requests.filter { $0.method == "PATCH" && $0.kind == .eventTicketObject && $0.status == 404 }.count == 30)
        #expect(requests.filter { $0.method == "PATCH" && $0.kind == .eventTicketObject && $0.status == 200 }.count == 30)
        #expect(requests.filter { $0.method == "POST" && $0.kind == .eventTicketObject && $0.status == 200 }.count == 60)
        #expect(fake.storedObjectCount == 90)
    }
}
