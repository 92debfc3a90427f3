import ByteEncoding
import Certificates
import Foundation
import PassServerFixtures
import PassServerTesting

/// A simulated iPhone talking to the PassKit web service exactly as Wallet does (or an Android
/// phone doing the same with its own scheme).
struct Phone {
    let app: TestApp
    var deviceLibraryIdentifier: String
    var pushToken: String
    /// The word before the token in `Authorization`: `ApplePass`, or `AndroidPass` for a phone
    /// running WalletPasses.
    var scheme = "ApplePass"

    init(app: TestApp, deviceLibraryIdentifier: String? = nil, pushToken: String? = nil, scheme: String = "ApplePass") {
        self.app = app
        self.scheme = scheme
        self.deviceLibraryIdentifier = deviceLibraryIdentifier ?? UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        self.pushToken = pushToken ?? Phone.randomPushToken()
    }

    static func randomPushToken() -> String {
        Hex.encode(SecureRandom.bytes(32))
    }

    func auth(_ serial: String) -> (String, String) {
        ("Authorization", "\(scheme) \(app.authenticationToken(serial: serial))")
    }

    @discardableResult
    func register(_ serial: String, passType: String? = nil) throws -> TestResponse {
        try app.request(
            "POST", "/v1/devices/\(deviceLibraryIdentifier)/registrations/\(passType ?? app.passTypeIdentifier)/\(serial)",
            headers: [auth(serial), ("Content-Type", "application/json")], body: Array(#"{"pushToken":"\#(pushToken)"}"#.utf8)
        )
    }

    @discardableResult
    func unregister(_ serial: String) throws -> TestResponse {
        try app.request("DELETE", "/v1/devices/\(deviceLibraryIdentifier)/registrations/\(app.passTypeIdentifier)/\(serial)", headers: [auth(serial)])
    }

    /// `GET …/registrations/{passType}?passesUpdatedSince=tag`; returns status, serials and tag.
    func changedSerials(since tag: String? = nil) throws -> (status: Int, serials: [String], lastUpdated: String?) {
        let query = tag.map { "?passesUpdatedSince=\($0)" } ?? ""
        let response = try app.request("GET", "/v1/devices/\(deviceLibraryIdentifier)/registrations/\(app.passTypeIdentifier)\(query)")
        let object = response.jsonObject
        return (response.status, (object?["serialNumbers"] as? [String]) ?? [], object?["lastUpdated"] as? String)
    }

    func fetch(_ serial: String, ifModifiedSince: String? = nil, method: String = "GET") throws -> TestResponse {
        var headers = [auth(serial)]
        if let ifModifiedSince { headers.append(("If-Modified-Since", ifModifiedSince)) }
        return try app.request(method, "/v1/passes/\(app.passTypeIdentifier)/\(serial)", headers: headers)
    }
}
