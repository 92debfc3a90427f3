/// Settings of an `APNSClient`: where to connect, which identity to present, and how hard to try.
///
/// The defaults talk to Apple's production host, which is the only one that delivers pass updates.
public struct APNSConfiguration: Sendable {
    /// `https://host[:port]`; only https is accepted. Defaults to Apple's production host.
    public var url: String = "https://api.push.apple.com"
    /// The pass type certificate, DER. Empty means "present no client certificate" (benchmarks
    /// against a fake that does not ask for one); Apple always requires one.
    public var clientCertificateDER: [UInt8]
    /// The pass type private key, PKCS#8 DER (unencrypted).
    public var clientPrivateKeyDER: [UInt8]
    /// Intermediate certificates (DER) sent after the client certificate.
    public var clientChainDER: [[UInt8]] = []
    /// An extra trust anchor (PEM file) for the server certificate, on top of the system trust store.
    public var caFile: String? = nil
    /// How many HTTP/2 connections to keep open; requests are spread over them.
    public var connections: Int = 1
    /// How long APNs should keep trying to deliver a push: `apns-expiration` = now + this.
    public var expiration: Duration = .seconds(3 * 24 * 3600)
    /// `apns-push-type`; nil leaves the header out. See `headerProblem` for the combinations APNs refuses.
    public var pushType: APNSPushType? = .background
    /// `apns-priority`; nil leaves the header out (APNs then uses 10).
    public var priority: APNSPriority? = .considerPower
    /// Seconds a request may wait (queued plus in flight) before it fails with `.timeout`.
    public var requestTimeout: Double = 30
    /// Seconds of silence after which an open connection is checked with a PING.
    public var idlePingInterval: Double = 60
    /// Seconds to wait for the TCP connect and TLS handshake.
    public var connectTimeout: Double = 10
    /// Seconds `shutdown()` lets in-flight pushes finish before failing them with `.shutdown`.
    public var shutdownGracePeriod: Double = 5

    /// A configuration presenting the given identity to the default (production) host.
    public init(clientCertificateDER: [UInt8], clientPrivateKeyDER: [UInt8]) {
        self.clientCertificateDER = clientCertificateDER
        self.clientPrivateKeyDER = clientPrivateKeyDER
    }
}

/// Host and port parsed out of `APNSConfiguration.url`.
struct APNSEndpoint: Equatable, Sendable {
    var host: String
    var port: UInt16

    init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Accepts `https://host`, `https://host:port`, `https://[v6]:port`, with an optional trailing `/`.
    init(url: String) throws(APNSError) {
        let prefix = "https://"
        guard url.lowercased().hasPrefix(prefix) else {
            throw APNSError(code: .invalidConfiguration, message: "APNs URL must start with https://")
        }
        var rest = Substring(url.dropFirst(prefix.count))
        while rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.isEmpty, !rest.contains("/"), !rest.contains("@") else {
            throw APNSError(code: .invalidConfiguration, message: "APNs URL must be https://host[:port]")
        }
        var host = rest
        var portText: Substring? = nil
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else {
                throw APNSError(code: .invalidConfiguration, message: "APNs URL has an unclosed IPv6 bracket")
            }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty {
                throw APNSError(code: .invalidConfiguration, message: "APNs URL has junk after the host")
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        }
        guard !host.isEmpty else { throw APNSError(code: .invalidConfiguration, message: "APNs URL has no host") }
        self.host = String(host)
        if let portText {
            guard let port = UInt16(portText), port > 0 else {
                throw APNSError(code: .invalidConfiguration, message: "APNs URL has an invalid port")
            }
            self.port = port
        } else {
            self.port = 443
        }
    }
}
