import Foundation
import GoogleWallet
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

/// A server with Google Wallet configured: our issuer id, a service account of the local fake of
/// Google's API (where the tickets' objects go), and Google's keys URL pointing at a
/// `GoogleKeyServer` that publishes a test signer's root key.
struct GoogleWalletFixture: Sendable {
    static let issuer = "3388000000022"

    let app: TestApp
    let keys: GoogleKeyServer
    let signer: GoogleCallbackSigner
    let api: FakeGoogleWallet

    static func start(
        _ backend: Backend, configure: @escaping @Sendable (inout Configuration) -> Void = { _ in }
    ) async throws -> GoogleWalletFixture {
        let signer = try GoogleCallbackSigner(recipient: issuer)
        let keys = try GoogleKeyServer(document: try signer.keysDocument())
        let url = keys.url
        let api = try FakeGoogleWallet(issuerID: issuer)
        let account = try api.makeServiceAccount(in: try TestCertificates.temporaryDirectory(prefix: "google-callbacks"))
        let app = try await offPool {
            try TestApp.start(backend) { configuration in
                GoogleFixture.configure(&configuration, fake: api, account: account)
                configuration.googleWallet.endpoints.callbackKeys = url
                configure(&configuration)
            }
        }
        return GoogleWalletFixture(app: app, keys: keys, signer: signer, api: api)
    }

    func stop() {
        app.stop()
        keys.shutdown()
        api.shutdown()
    }

    func classID(_ event: String) -> String { GoogleWalletIDs.classID(issuer: Self.issuer, event: event) }
    func objectID(_ serial: String) -> String { GoogleWalletIDs.objectID(issuer: Self.issuer, serial: serial) }

    /// Posts a callback Google would send for the ticket (of `event`) and returns the answer.
    func post(
        event: String, serial: String, type: String = "save", nonce: String = UUID().uuidString, flaw: GoogleCallbackSigner.Flaw? = nil
    ) throws -> TestResponse {
        try post(try signer.callback(classID: classID(event), objectID: objectID(serial), eventType: type, nonce: nonce, flaw: flaw))
    }

    func post(_ body: [UInt8]) throws -> TestResponse {
        try app.request("POST", "/google-wallet/callback", headers: [("Content-Type", "application/json")], body: body)
    }

    /// The event's `reach.googleWalletSaved` in the admin API.
    func eventSaved(_ event: String) throws -> Int? {
        let body = try app.admin("GET", "/admin/v1/events/\(event)").jsonObject
        return (body?["reach"] as? [String: Any])?["googleWalletSaved"] as? Int
    }

    /// The ticket's `googleWallet` in the admin API.
    func ticket(_ serial: String) throws -> [String: Any]? {
        try app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject?["googleWallet"] as? [String: Any]
    }

    /// The value of an unlabelled or labelled sample in `/metrics`.
    func metric(_ sample: String) throws -> Int? {
        let text = try app.request("GET", "/metrics").text
        for line in text.split(separator: "\n") where line.hasPrefix(sample + " ") {
            return Int(line.dropFirst(sample.count + 1))
        }
        return nil
    }
}
