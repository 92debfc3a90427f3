import Foundation
import GoogleWallet
import PassIdentifiers
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// A running app whose Google Wallet updates go to a local fake of Google's API.
struct GoogleFixture {
    let fake: FakeGoogleWallet
    let account: FakeGoogleServiceAccount
    let app: TestApp

    /// The environment a `pass-server serve` child needs to send to `fake` as `account`.
    static func environment(fake: FakeGoogleWallet, account: FakeGoogleServiceAccount) -> [String: String] {
        [
            "GOOGLE_WALLET_ISSUER_ID": fake.issuerID, "GOOGLE_WALLET_SERVICE_ACCOUNT_FILE": account.keyFile,
            "GOOGLE_WALLET_API_URL": fake.endpoints.api, "GOOGLE_WALLET_TOKEN_URL": fake.endpoints.token,
            "GOOGLE_WALLET_SAVE_URL": fake.endpoints.save, "GOOGLE_WALLET_KEYS_URL": fake.endpoints.callbackKeys,
            "GOOGLE_WALLET_TIMEOUT": "10", "GOOGLE_WALLET_LEASE": "15",
        ]
    }

    static func configure(_ configuration: inout Configuration, fake: FakeGoogleWallet, account: FakeGoogleServiceAccount) {
        configuration.googleWallet.issuerID = fake.issuerID
        configuration.googleWallet.serviceAccountFile = account.keyFile
        configuration.googleWallet.endpoints = .init(
            api: fake.endpoints.api, token: fake.endpoints.token, save: fake.endpoints.save, callbackKeys: fake.endpoints.callbackKeys
        )
        // Retries in tens of milliseconds, so the scripted failures pass quickly.
        configuration.push.retryBaseDelay = 0.05
        configuration.push.retryMaxDelay = 0.5
    }

    init(_ backend: Backend) throws {
        fake = try FakeGoogleWallet()
        let directory = try TestCertificates.temporaryDirectory(prefix: "google-wallet")
        account = try fake.makeServiceAccount(in: directory)
        let (fake, account) = (fake, account)
        do {
            app = try TestApp.start(backend) { Self.configure(&$0, fake: fake, account: account) }
        } catch {
            fake.shutdown()
            throw error
        }
    }

    func stop() {
        app.stop()
        fake.shutdown()
    }

    func objectID(_ serial: String) -> String { Self.objectID(issuer: fake.issuerID, serial: serial) }
    static func objectID(issuer: String, serial: String) -> String { GoogleWalletIDs.objectID(issuer: issuer, serial: serial) }
    func classID(_ event: String) -> String { GoogleWalletIDs.classID(issuer: fake.issuerID, event: event) }

    /// Successful requests of `method` on `kind` (for one id when given).
    func answered(_ method: String, _ kind: FakeGoogleWallet.Kind, id: String? = nil) -> [FakeGoogleWallet.RecordedRequest] {
        fake.requests.filter { request in
            request.method == method && request.kind == kind && (200..<300).contains(request.status)
                && (id.map { request.path.hasSuffix("/" + ($0.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? $0)) || Self.bodyID(request) == $0 } ?? true)
        }
    }

    static func bodyID(_ request: FakeGoogleWallet.RecordedRequest) -> String? {
        (try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])?["id"] as? String
    }

    /// The object Google holds for a ticket, parsed.
    func object(_ serial: String) -> [String: Any]? { fake.storedObjectJSON(objectID(serial)) }

    /// Waits until nothing is pending for Google.
    func settled(timeout: Double = 60, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let store = app.store
        try await eventually("the Google outbox drains", timeout: timeout, sourceLocation: sourceLocation) {
            try store.withSession(.read) { try $0.google.googleOutboxCounts() }.pending == 0
        }
    }
}
