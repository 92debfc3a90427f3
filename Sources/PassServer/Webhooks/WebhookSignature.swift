import ByteEncoding
import Certificates

/// How a delivery is signed (docs/webhooks.md, "Verifying a delivery"):
///
///     PassServer-Signature: t=<Unix time in seconds>,v1=<hex HMAC-SHA256>
///
/// where the HMAC's key is the endpoint's secret as it was shown (`whsec_…`, its UTF-8 bytes)
/// and its message is the time, a `.`, and the body's bytes exactly as sent. The time is when the
/// delivery is sent (a redelivery carries a new one over the same body), so a receiver refuses a
/// delivery whose time is far from its own clock (five minutes) and a replay of an old one fails.
enum WebhookSignature {
    static let signatureHeader = "PassServer-Signature"
    /// The webhook event's id (`evt_…`, the same in the body): what receivers de-duplicate by.
    static let idHeader = "PassServer-Webhook-Id"
    static let typeHeader = "PassServer-Webhook-Type"

    /// The header's value for `body` sent at `timestamp`.
    static func header(secret: String, timestamp: Int64, body: [UInt8]) throws -> String {
        let mac = try Digest.sha256().authenticationCode(key: Array(secret.utf8), message: Array("\(timestamp).".utf8) + body)
        return "t=\(timestamp),v1=\(Hex.encode(mac))"
    }
}
