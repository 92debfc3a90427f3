public import Foundation

extension FakeAPNs {
    /// How the fake listens and behaves.
    public struct Configuration: Sendable {
        /// PEM server certificate (optionally followed by its chain).
        public var certificatePath: String
        /// PEM private key of the server certificate.
        public var privateKeyPath: String
        /// PEM CA that must have issued the client certificate; nil accepts clients without one
        /// (h2load cannot present a certificate).
        public var clientCAPath: String?
        /// 0 picks a free port; the fake always binds 127.0.0.1.
        public var port: UInt16 = 0
        /// SETTINGS_MAX_CONCURRENT_STREAMS advertised to each new connection.
        public var maxConcurrentStreams: UInt32 = 1000
        /// After the first answer, raise the advertised limit to this (a new SETTINGS frame on every
        /// connection), as APNs does once a connection is trusted.
        public var raiseMaxConcurrentStreamsAfterFirstResponse: UInt32? = nil
        /// Send GOAWAY after this many streams on one connection, then close it once they finish.
        public var goAwayAfter: Int? = nil
        /// The answer for tokens without a script.
        public var defaultAnswer: Answer = .success
        /// Keep every request in `pushes` (tests); benchmarks turn it off to measure only the protocol.
        public var recordPushes = true
        /// Called on the fake's thread with every request as it is answered (`fake-apns --push-log`);
        /// it must not block.
        public var onPush: (@Sendable (Push) -> Void)? = nil
        /// Called with the device token of every push the fake answers 200, on the fake's own
        /// thread, as soon as the answer is queued on its connection: "APNs accepted a push for
        /// this token". A simulator of phones uses it to wake the phone; it must return quickly.
        public var onAccepted: (@Sendable (_ token: String) -> Void)? = nil

        public init(certificatePath: String, privateKeyPath: String, clientCAPath: String?) {
            self.certificatePath = certificatePath
            self.privateKeyPath = privateKeyPath
            self.clientCAPath = clientCAPath
        }
    }

    /// A scripted answer for one push.
    public indirect enum Answer: Sendable, Equatable {
        /// 200 with an apns-id.
        case success
        /// 410 `{"reason":"Unregistered","timestamp":<ms>}`.
        case unregistered(timestampMilliseconds: Int64)
        /// Any status with `{"reason":"<reason>"}` (e.g. 400 BadDeviceToken, 403 BadCertificate,
        /// 429 TooManyRequests, 503 ServiceUnavailable, or a reason APNs may add later).
        case error(status: Int, reason: String)
        /// Waits this many seconds (without blocking other streams), then answers.
        case delayed(seconds: Double, then: Answer)

        var settled: (status: Int, body: String?) {
            switch self {
            case .success: return (200, nil)
            case .unregistered(let millis): return (410, "{\"reason\":\"Unregistered\",\"timestamp\":\(millis)}")
            case .error(let status, let reason): return (status, "{\"reason\":\"\(reason)\"}")
            case .delayed(_, let then): return then.settled
            }
        }
    }

    /// One request the fake received, as it saw it.
    public struct Push: Sendable {
        /// The token from the path (`/3/device/<token>`), or "" when the path was malformed.
        public var token: String
        /// `apns-topic`, if sent.
        public var topic: String?
        public var method: String
        public var path: String
        /// Every request header (lowercase names, pseudo-headers included).
        public var headers: [String: String]
        public var body: [UInt8]
        public var receivedAt: Date
        /// Which TCP connection carried it (1, 2, … in accept order).
        public var connectionID: Int
        /// Streams open on that connection when this one began (this one included).
        public var concurrentStreams: Int
        /// The SETTINGS_MAX_CONCURRENT_STREAMS the fake had advertised on that connection by then.
        public var advertisedLimit: UInt32
        /// The status the fake answered (200, 410, 400 …).
        public var status: Int
    }
}
