import Foundation
import GoogleWallet
import HTTPClient
import PassServerTesting
import Synchronization
import Testing

/// `GoogleWalletClient` against the fake Google Wallet: tokens granted once and shared, each REST
/// call and each scripted failure answered as its own typed case, one retry after a 401.
@Suite("Google Wallet client against the fake", .offCooperativePool, .timeLimit(.minutes(2)))
struct GoogleWalletClientTests {
    /// A fake, a registered service account and a client of it; the fake stops afterwards.
    struct Setup {
        let fake: FakeGoogleWallet
        let client: GoogleWalletClient
        let clock: TestClock
        var issuer: String { fake.issuerID }
        var classID: String { "\(issuer).e.launch" }
        func objectID(_ serial: String) -> String { "\(issuer).t.\(serial)" }

        static func with(tokenLifetime: Int = 3599, register: Bool = true, _ body: (Setup) throws -> Void) throws {
            let fake = try FakeGoogleWallet(tokenLifetime: tokenLifetime)
            defer { fake.shutdown() }
            let directory = try TestCertificates.temporaryDirectory(prefix: "google-client")
            let made = register ? try fake.makeServiceAccount(in: directory) : try FakeGoogleWallet.writeServiceAccount(in: directory)
            let clock = TestClock()
            let client = GoogleWalletClient(
                account: try GoogleServiceAccount.load(file: made.keyFile), endpoints: fake.walletEndpoints, timeout: .seconds(10), now: { clock.now }
            )
            try body(Setup(fake: fake, client: client, clock: clock))
        }

        func classBody() throws -> [UInt8] {
            try jsonBytes(["id": classID, "issuerName": "Example Events", "eventName": ["defaultValue": ["language": "en", "value": "Launch"]], "reviewStatus": "UNDER_REVIEW"])
        }

        func objectBody(_ serial: String, state: String = "ACTIVE", classID: String? = nil) throws -> [UInt8] {
            try jsonBytes(["id": objectID(serial), "classId": classID ?? self.classID, "state": state, "ticketNumber": serial])
        }

        /// Inserts the class, which every object needs.
        func insertClass(sourceLocation: SourceLocation = #_sourceLocation) throws {
            let answer = client.insert(.eventTicketClass, body: try classBody())
            guard case .success(200, _) = answer else {
                Issue.record("inserting the class: \(answer)", sourceLocation: sourceLocation)
                return
            }
        }
    }

    /// The Google error of an answer; nil (and an issue) for any other answer.
    static func googleError(_ answer: GoogleWalletAnswer, sourceLocation: SourceLocation = #_sourceLocation) -> GoogleAPIError? {
        guard case .googleError(let error) = answer else {
            Issue.record("expected a Google error, got \(answer)", sourceLocation: sourceLocation)
            return nil
        }
        return error
    }

    /// The body of a successful answer; nil (and an issue) for any other answer.
    static func success(_ answer: GoogleWalletAnswer, sourceLocation: SourceLocation = #_sourceLocation) -> [String: Any]? {
        guard case .success(let status, let body) = answer, status == 200 else {
            Issue.record("expected success, got \(answer)", sourceLocation: sourceLocation)
            return nil
        }
        return object(body)
    }

    @Test("Insert, get, patch and addMessage of a class and an object, with Google's answers")
    func restOperations() throws {
        try Setup.with { setup in
            let client = setup.client
            let inserted = Self.success(client.insert(.eventTicketClass, body: try setup.classBody()))
            #expect(inserted?["id"] as? String == setup.classID)
            #expect(inserted?["kind"] as? String == "walletobjects#eventTicketClass")
            let duplicate = Self.googleError(client.insert(.eventTicketClass, body: try setup.classBody()))
            #expect(duplicate?.status == 409)
            #expect(duplicate?.code == "ALREADY_EXISTS")
            #expect(duplicate?.reason == "duplicate")

            let id = setup.objectID("T-1")
            #expect(Self.success(client.insert(.eventTicketObject, body: try setup.objectBody("T-1")))?["state"] as? String == "ACTIVE")
            #expect(Self.success(client.get(.eventTicketObject, id: id))?["ticketNumber"] as? String == "T-1")
            let patched = Self.success(client.patch(.eventTicketObject, id: id, body: try jsonBytes(["state": "COMPLETED", "notifyPreference": "notifyOnUpdate"])))
            #expect(patched?["state"] as? String == "COMPLETED")
            #expect(patched?["ticketNumber"] as? String == "T-1", "patch keeps the fields it does not name")
            #expect(setup.fake.storedObjectJSON(id)?["classId"] as? String == setup.classID)
            let message = try jsonBytes(["message": ["header": "Doors open", "body": "Gate B", "messageType": "TEXT_AND_NOTIFY"]])
            let added = Self.success(client.addMessage(.eventTicketObject, id: id, body: message))
            #expect(((added?["resource"] as? [String: Any])?["messages"] as? [Any])?.count == 1)
            #expect(Self.success(client.addMessage(.eventTicketClass, id: setup.classID, body: try jsonBytes(["message": ["header": "Hi"]]))) != nil)
            #expect((setup.fake.storedClassJSON(setup.classID)?["messages"] as? [Any])?.count == 1)
            let classPatch = Self.success(client.patch(.eventTicketClass, id: setup.classID, body: try jsonBytes(["reviewStatus": "APPROVED"])))
            #expect(classPatch?["reviewStatus"] as? String == "APPROVED")
            #expect(classPatch?["issuerName"] as? String == "Example Events")

            let notifying = setup.fake.requests.filter(\.notifying).map { "\($0.method) \($0.path)" }
            #expect(notifying == ["PATCH /walletobjects/v1/eventTicketObject/\(id)", "POST /walletobjects/v1/eventTicketObject/\(id)/addMessage"])
            #expect(setup.fake.grants == 1, "one token served every call")
        }
    }

    @Test("Absent resources are NOT_FOUND, invalid ones INVALID_ARGUMENT with Google's message")
    func refusals() throws {
        try Setup.with { setup in
            let client = setup.client
            for answer in [
                client.get(.eventTicketObject, id: setup.objectID("absent")),
                client.patch(.eventTicketObject, id: setup.objectID("absent"), body: try jsonBytes(["state": "ACTIVE"])),
                client.addMessage(.eventTicketClass, id: setup.classID, body: try jsonBytes(["message": ["header": "x"]])),
            ] {
                let error = Self.googleError(answer)
                #expect(error?.status == 404)
                #expect(error?.code == "NOT_FOUND")
            }
            let noClass = Self.googleError(client.insert(.eventTicketObject, body: try setup.objectBody("T-1")))
            #expect(noClass?.status == 400)
            #expect(noClass?.code == "INVALID_ARGUMENT")
            #expect(noClass?.message.contains(setup.classID) == true)
            try setup.insertClass()
            let badState = Self.googleError(client.insert(.eventTicketObject, body: try setup.objectBody("T-1", state: "VALID")))
            #expect(badState?.code == "INVALID_ARGUMENT")
            #expect(badState?.message.contains("state") == true)
            let otherIssuer = Self.googleError(client.insert(.eventTicketObject, body: try jsonBytes(["id": "999.t.T-1", "classId": setup.classID, "state": "ACTIVE"])))
            #expect(otherIssuer?.code == "INVALID_ARGUMENT")
            let badSuffix = Self.googleError(client.insert(.eventTicketObject, body: try setup.objectBody("T 1")))
            #expect(badSuffix?.code == "INVALID_ARGUMENT")
            #expect(Self.success(client.insert(.eventTicketObject, body: try setup.objectBody("T-1"))) != nil, "the same object with a valid state goes in")
            let badPatch = Self.googleError(client.patch(.eventTicketObject, id: setup.objectID("T-1"), body: try jsonBytes(["state": "GONE"])))
            #expect(badPatch?.code == "INVALID_ARGUMENT")
            #expect(setup.fake.storedObjectJSON(setup.objectID("T-1"))?["state"] as? String == "ACTIVE", "a refused patch changes nothing")
        }
    }

    @Test("Ids are percent-encoded into one path segment")
    func idEncoding() throws {
        try Setup.with { setup in
            let id = "\(setup.issuer).t.a/b?c=d#e"
            let error = Self.googleError(setup.client.get(.eventTicketObject, id: id))
            #expect(error?.code == "NOT_FOUND", "the route for one object answered, not another route")
            #expect(error?.message.contains(id) == true, "the fake decoded the whole id from the one segment")
        }
    }

    @Test("Scripted 429, 500, 409 and 404 come back typed with Google's status; the next call succeeds")
    func scriptedStatuses() throws {
        try Setup.with { setup in
            try setup.insertClass()
            let expected: [(Int, String, Bool)] = [(429, "RESOURCE_EXHAUSTED", true), (500, "INTERNAL", true), (409, "ALREADY_EXISTS", false), (404, "NOT_FOUND", false)]
            for (status, code, retryable) in expected {
                setup.fake.fail(method: "POST", kind: .eventTicketObject, with: .status(status))
                let answer = setup.client.insert(.eventTicketObject, body: try setup.objectBody("S-\(status)"))
                let error = Self.googleError(answer)
                #expect(error?.status == status)
                #expect(error?.code == code)
                #expect(error?.reason != nil)
                #expect(answer.isRetryable == retryable, "\(status)")
                #expect(setup.fake.storedObject(setup.objectID("S-\(status)")) == nil)
                #expect(Self.success(setup.client.insert(.eventTicketObject, body: try setup.objectBody("S-\(status)"))) != nil)
            }
            setup.fake.fail(next: 2, method: "GET", kind: .eventTicketClass, with: .status(503))
            #expect(Self.googleError(setup.client.get(.eventTicketClass, id: setup.classID))?.status == 503)
            #expect(Self.googleError(setup.client.get(.eventTicketClass, id: setup.classID))?.status == 503)
            #expect(Self.success(setup.client.get(.eventTicketClass, id: setup.classID)) != nil, "two were queued, the third call is answered")
        }
    }

    @Test("A dropped connection is a transport failure; the client works afterwards")
    func droppedConnection() throws {
        try Setup.with { setup in
            try setup.insertClass()
            setup.fake.fail(method: "GET", kind: .eventTicketClass, with: .drop)
            let answer = setup.client.get(.eventTicketClass, id: setup.classID)
            guard case .transportFailure(let failure) = answer else {
                Issue.record("expected a transport failure, got \(answer)")
                return
            }
            #expect(failure.code == .connectionDropped)
            #expect(answer.isRetryable)
            #expect(setup.fake.requests.last?.dropped == true)
            #expect(Self.success(setup.client.get(.eventTicketClass, id: setup.classID)) != nil)
        }
    }

    @Test("The token is cached until 60 s before it expires, then granted anew")
    func tokenCaching() throws {
        // A 100-second token: refreshed from 40 s on.
        try Setup.with(tokenLifetime: 100) { setup in
            try setup.insertClass()
            for _ in 0..<3 { _ = Self.success(setup.client.get(.eventTicketClass, id: setup.classID)) }
            #expect(setup.fake.grants == 1)
            setup.clock.advance(39)
            _ = Self.success(setup.client.get(.eventTicketClass, id: setup.classID))
            #expect(setup.fake.grants == 1, "39 s in, the token is still used")
            setup.clock.advance(2)
            _ = Self.success(setup.client.get(.eventTicketClass, id: setup.classID))
            #expect(setup.fake.grants == 2, "41 s in, a new token was granted")
            #expect(setup.client.tokens.grants == 2)
        }
    }

    @Test("Tokens expired by Google: each call meets a 401, and all of them share exactly one new grant")
    func expiredTokensRefreshOnce() throws {
        try Setup.with { setup in
            try setup.insertClass()
            #expect(setup.fake.grants == 1)
            setup.fake.expireTokens()
            let answers = Mutex<[Bool]>([])
            DispatchQueue.concurrentPerform(iterations: 6) { _ in
                let answer = setup.client.get(.eventTicketClass, id: setup.classID)
                var ok = false
                if case .success(200, _) = answer { ok = true }
                answers.withLock { $0.append(ok) }
            }
            #expect(answers.withLock { $0 } == Array(repeating: true, count: 6))
            #expect(setup.fake.grants == 2, "one new grant for all six calls")
            let statuses = setup.fake.requests.filter { $0.method == "GET" }.map(\.status)
            #expect(statuses.filter { $0 == 401 }.count >= 1)
            #expect(statuses.filter { $0 == 200 }.count == 6)
        }
    }

    @Test("A 401 mid-run refreshes once and the call succeeds; a second 401 is the answer")
    func unauthorizedRetry() throws {
        try Setup.with { setup in
            try setup.insertClass()
            setup.fake.expireTokens()
            let patched = Self.success(setup.client.patch(.eventTicketClass, id: setup.classID, body: try jsonBytes(["reviewStatus": "APPROVED"])))
            #expect(patched?["reviewStatus"] as? String == "APPROVED")
            #expect(setup.fake.requests.filter { $0.method == "PATCH" }.map(\.status) == [401, 200])
            #expect(setup.fake.grants == 2)

            setup.fake.fail(next: 2, method: "GET", kind: .eventTicketClass, with: .status(401))
            let error = Self.googleError(setup.client.get(.eventTicketClass, id: setup.classID))
            #expect(error?.status == 401)
            #expect(error?.code == "UNAUTHENTICATED")
            #expect(setup.fake.requests.filter { $0.method == "GET" }.count == 2, "one retry, not more")
            #expect(setup.fake.grants == 3)
        }
    }

    @Test("Grant failures: an unknown key is invalid_grant, a dropped token request a transport failure")
    func grantFailures() throws {
        try Setup.with(register: false) { setup in
            let error = Self.googleError(setup.client.get(.eventTicketClass, id: setup.classID))
            #expect(error?.status == 400)
            #expect(error?.code == "invalid_grant")
            #expect(setup.fake.requests.allSatisfy { $0.kind == .token }, "no API call was made without a token")
        }
        try Setup.with { setup in
            setup.fake.fail(method: "POST", kind: .token, with: .drop)
            guard case .transportFailure(let failure) = setup.client.get(.eventTicketClass, id: setup.classID) else {
                Issue.record("expected a transport failure")
                return
            }
            #expect(failure.code == .connectionDropped)
            let answer = setup.client.get(.eventTicketClass, id: setup.classID)
            #expect(Self.googleError(answer)?.code == "NOT_FOUND", "the next grant worked and the call went through")
        }
    }

    @Test("A refused port is a transport failure")
    func refusedPort() throws {
        let fake = try FakeGoogleWallet()
        let endpoints = fake.walletEndpoints
        fake.shutdown()
        let directory = try TestCertificates.temporaryDirectory(prefix: "google-client")
        let account = try GoogleServiceAccount.load(file: try FakeGoogleWallet.writeServiceAccount(in: directory).keyFile)
        let answer = GoogleWalletClient(account: account, endpoints: endpoints, timeout: .seconds(5)).get(.eventTicketClass, id: "x")
        guard case .transportFailure(let failure) = answer else {
            Issue.record("expected a transport failure, got \(answer)")
            return
        }
        #expect(failure.code == .connectionRefused)
    }
}
