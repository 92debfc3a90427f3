import Foundation
import GoogleWallet
import HTTPClient
import PassServerTesting
import Testing

/// Batch requests against the fake: many calls in few round trips, one typed answer per call in
/// the calls' order, at most 1,000 calls per batch, and the same token rules as single calls.
@Suite("Google Wallet batch requests against the fake", .offCooperativePool, .timeLimit(.minutes(2)))
struct GoogleWalletBatchTests {
    typealias Setup = GoogleWalletClientTests.Setup

    static func batches(_ fake: FakeGoogleWallet) -> Int {
        fake.requests.filter { $0.kind == .batch }.count
    }

    @Test("A class and 25 objects go in with one request; refused parts get their own Google errors")
    func insertMany() throws {
        try Setup.with { setup in
            var calls: [GoogleWalletCall] = [.insert(.eventTicketClass, body: try setup.classBody())]
            for index in 1...25 { calls.append(.insert(.eventTicketObject, body: try setup.objectBody("B-\(index)"))) }
            calls.append(.insert(.eventTicketObject, body: try setup.objectBody("B-bad", state: "VALID")))
            calls.append(.get(.eventTicketObject, id: setup.objectID("absent")))
            let answers = setup.client.batch(calls)
            try #require(answers.count == calls.count)
            #expect(Self.batches(setup.fake) == 1)
            #expect(setup.fake.requests.filter { $0.kind == .eventTicketObject }.count == 27, "every part reached the objects' routes")
            for index in 0...25 {
                let body = GoogleWalletClientTests.success(answers[index])
                #expect(body?["id"] as? String == (index == 0 ? setup.classID : setup.objectID("B-\(index)")))
            }
            #expect(setup.fake.storedObject(setup.objectID("B-25")) != nil)
            #expect(GoogleWalletClientTests.googleError(answers[26])?.code == "INVALID_ARGUMENT")
            #expect(GoogleWalletClientTests.googleError(answers[27])?.code == "NOT_FOUND")
            #expect(setup.fake.grants == 1)
        }
    }

    @Test("1,001 calls take two batch requests and get 1,001 answers in order")
    func splitsAtGooglesLimit() throws {
        try Setup.with { setup in
            try setup.insertClass()
            let calls = (0..<1001).map { GoogleWalletCall.get(.eventTicketClass, id: $0 == 1000 ? setup.classID : "\(setup.issuer).e.absent\($0)") }
            let answers = setup.client.batch(calls)
            #expect(answers.count == 1001)
            #expect(Self.batches(setup.fake) == 2)
            #expect(answers.prefix(1000).allSatisfy { $0.status == 404 })
            #expect(GoogleWalletClientTests.success(answers[1000])?["id"] as? String == setup.classID)
        }
    }

    @Test("Expired tokens: the refused parts are sent once more with one new token")
    func expiredTokenRetriesParts() throws {
        try Setup.with { setup in
            try setup.insertClass()
            setup.fake.expireTokens()
            var calls: [GoogleWalletCall] = []
            for index in 1...3 { calls.append(.insert(.eventTicketObject, body: try setup.objectBody("E-\(index)"))) }
            let answers = setup.client.batch(calls)
            #expect(answers.allSatisfy { $0.status == 200 })
            #expect(Self.batches(setup.fake) == 2)
            #expect(setup.fake.grants == 2)
            #expect(setup.fake.requests.filter { $0.kind == .eventTicketObject }.map(\.status) == [401, 401, 401, 200, 200, 200])
        }
    }

    @Test("A scripted 429 hits its part only; a dropped batch fails every call as transport")
    func failures() throws {
        try Setup.with { setup in
            try setup.insertClass()
            setup.fake.fail(method: "POST", kind: .eventTicketObject, with: .status(429))
            let answers = setup.client.batch([
                .insert(.eventTicketObject, body: try setup.objectBody("F-1")), .insert(.eventTicketObject, body: try setup.objectBody("F-2")),
            ])
            #expect(GoogleWalletClientTests.googleError(answers[0])?.code == "RESOURCE_EXHAUSTED")
            #expect(answers[0].isRetryable)
            #expect(answers[1].status == 200)

            setup.fake.fail(method: "POST", kind: .batch, with: .drop)
            let dropped = setup.client.batch([.get(.eventTicketClass, id: setup.classID), .get(.eventTicketClass, id: setup.classID)])
            #expect(dropped.count == 2)
            for answer in dropped {
                guard case .transportFailure(let failure) = answer else {
                    Issue.record("expected a transport failure, got \(answer)")
                    continue
                }
                #expect(failure.code == .connectionDropped)
            }
        }
    }
}
