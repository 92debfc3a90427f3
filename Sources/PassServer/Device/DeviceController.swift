import PassIdentifiers
import Foundation
import HTTPServer
import PassBundle
import Logging
import Storage

/// Apple's PassKit web service: the endpoints a phone calls under the pass's `webServiceURL`
/// (registrations, changed serials, the latest pass, `/v1/log`); docs/device.md lists each answer.
///
/// Handlers run on the HTTP engine's threads and block on the store and on signing.
struct DeviceController: Sendable {
    let store: any Store
    let passes: PassService
    /// Where reach marks go: written in batches, never on the phone's time (`ReachLedger`).
    let reach: ReachLedger
    let logLimiter: RateLimiter
    let logger: Logger
    /// Token hashes of known passes: registration and unregistration then cost one round trip.
    var authentication = AuthenticationCache()
    /// Rows kept in the device-log table; older ones are dropped.
    var deviceLogCapacity = 10_000
    /// Registrations kept per pass; a new device replaces the least recently updated one.
    var maxDevicesPerPass = 10
    /// Whether `AndroidPass` devices are served (the Android push relay is configured).
    var acceptsAndroid = false
    var now: @Sendable () -> Date = Date.init

    /// Device endpoints accept small bodies only.
    static let maxBodySize = 64 << 10

    func register(in router: inout Router) {
        let registration = "/v1/devices/:deviceLibraryIdentifier/registrations/:passTypeIdentifier/:serialNumber"
        // The ApplePass token is checked from the headers, before a body is read.
        let authenticate: Preflight = { _ = try self.authenticatedIdentifiers($0) }
        router.post(registration, maxBodySize: Self.maxBodySize, preflight: authenticate) { try self.registerDevice($0) }
        router.delete(registration, maxBodySize: Self.maxBodySize, preflight: authenticate) { try self.unregisterDevice($0) }
        router.get("/v1/devices/:deviceLibraryIdentifier/registrations/:passTypeIdentifier") { try self.changedSerials($0) }
        router.get("/v1/passes/:passTypeIdentifier/:serialNumber") { try self.latestPass($0) }
        router.post("/v1/log", maxBodySize: Self.maxBodySize) { try self.log($0) }
    }

    // MARK: Registrations

    private struct RegistrationBody: Decodable {
        var pushToken: String?
    }

    /// An `ApplePass` device registers an APNs token; an `AndroidPass` one (WalletPasses) a token
    /// of its relay, and is pushed through the relay from then on.
    func registerDevice(_ request: Request) throws -> Response {
        let pass = try authenticatedIdentifiers(request)
        let device = try DeviceRequest.device(request)
        let body = try DeviceRequest.json(RegistrationBody.self, from: request)
        guard let raw = body.pushToken else { throw HTTPError.badRequest("pushToken is required.", code: "missing_push_token") }
        let token: DevicePushToken
        switch pass.scheme {
        case .applePass:
            guard let pushToken = PushToken(raw) else {
                throw HTTPError.badRequest("pushToken must be 64 to 200 hexadecimal digits.", code: "invalid_push_token")
            }
            token = .apns(pushToken)
        case .androidPass:
            guard let pushToken = RelayPushToken(raw) else {
                throw HTTPError.badRequest("pushToken must be 16 to 512 letters, digits, '-', '_' or ':'.", code: "invalid_push_token")
            }
            token = .relay(pushToken)
        }
        let result = try store.withSession(.write) { session in
            try session.registrations.upsertRegistration(
                deviceLibraryIdentifier: device, token: token,
                passTypeIdentifier: pass.passType, serialNumber: pass.serial, now: now(),
                keepingAtMost: maxDevicesPerPass
            )
        }
        return Response(status: result == .created ? 201 : 200)
    }

    func unregisterDevice(_ request: Request) throws -> Response {
        let pass = try authenticatedIdentifiers(request)
        let device = try DeviceRequest.device(request)
        _ = try store.withSession(.write) {
            try $0.registrations.deleteRegistration(
                deviceLibraryIdentifier: device, passTypeIdentifier: pass.passType, serialNumber: pass.serial, now: now()
            )
        }
        return Response(status: 200)
    }

    // MARK: What changed

    func changedSerials(_ request: Request) throws -> Response {
        let device = try DeviceRequest.device(request)
        let passType = try DeviceRequest.passType(request)
        let since = PassFreshness.revision(fromTag: request.query["passesUpdatedSince"])
        let changed = try store.withSession(.read) {
            try $0.registrations.serials(
                deviceLibraryIdentifier: device, passTypeIdentifier: passType, updatedAfter: since
            )
        }
        guard let last = changed.lastRevision, !changed.serialNumbers.isEmpty else { return Response(status: 204) }
        reach.listed(changed, to: device, passType: passType, listedAfter: since, at: now())
        return Response(status: 200, headers: ["Content-Type": "application/json"], body: Self.serialsJSON(changed.serialNumbers, lastUpdated: last))
    }

    /// The list answer, `{"lastUpdated":"<tag>","serialNumbers":[…]}`, byte for byte what
    /// `JSONEncoder.api` makes of it, written directly: every phone asks for it after a change.
    /// Nothing in it needs escaping: the tag is digits and a `SerialNumber` holds only letters,
    /// digits and `-_.:`.
    static func serialsJSON(_ serials: [SerialNumber], lastUpdated: Int64) -> [UInt8] {
        let tag = String(lastUpdated)
        var out: [UInt8] = []
        out.reserveCapacity(40 + tag.utf8.count + serials.reduce(0) { $0 + $1.rawValue.utf8.count + 3 })
        out.append(contentsOf: #"{"lastUpdated":""#.utf8)
        out.append(contentsOf: tag.utf8)
        out.append(contentsOf: #"","serialNumbers":["#.utf8)
        for (index, serial) in serials.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: serial.rawValue.utf8)
            out.append(UInt8(ascii: "\""))
        }
        out.append(contentsOf: "]}".utf8)
        return out
    }

    /// The pass, in one round trip whenever it can be: the head of the pass (`PassHead`)
    /// authenticates, answers a conditional request and names the cached bundle. A phone asking
    /// with `If-Modified-Since` for a pass changed since (every phone after a push) gets the pass
    /// whole with its event in the same statement, in case its bundle must be signed; without
    /// that header a bundle to sign reads the pass whole afterwards (`authenticatedPass`).
    func latestPass(_ request: Request) throws -> Response {
        let (token, _, passType, serial) = try credentials(request)
        let ifModifiedSince = request.headers["If-Modified-Since"]
        let found = try store.withSession(.read) { session in
            if let since = ifModifiedSince.flatMap({ HTTPDate.parse($0) }) {
                return try session.passes.passHead(passTypeIdentifier: passType, serialNumber: serial, wholeIfModifiedAfter: since)
            }
            return try session.passes.passHead(passTypeIdentifier: passType, serialNumber: serial).map { ($0, nil) }
        }
        let matches = try TokenVault.matches(token.rawValue, storedHash: found?.head.authenticationTokenHash ?? Self.noHash)
        guard let (head, whole) = found, matches else { throw DeviceRequest.unauthorized }
        let current = Int64(now().timeIntervalSince1970)
        if PassFreshness.isNotModified(modifiedAt: head.modifiedAt, ifModifiedSince: ifModifiedSince, now: current) {
            // The phone confirms it holds the current revision.
            reach.served(head, at: now())
            return Response(status: 304, headers: Self.passHeaders(modifiedAt: head.modifiedAt))
        }
        if let bundle = passes.cachedBundle(for: head) {
            return passResponse(bundle, head: head, method: request.method)
        }
        let (pass, event) = try whole ?? authenticatedPass(request)
        let bundle = try passes.bundle(for: pass) { event }
        return passResponse(bundle, head: PassHead(pass), method: request.method)
    }

    /// A hash no token has: what an unknown pass's token is compared with, so both paths hash.
    private static let noHash = [UInt8](repeating: 0, count: 32)

    private static func passHeaders(modifiedAt: Int64) -> HTTPHeaders {
        ["Last-Modified": HTTPDate.format(epochSeconds: modifiedAt), "Cache-Control": "private, no-cache"]
    }

    private func passResponse(_ bundle: SignedBundle, head: PassHead, method: HTTPMethod) -> Response {
        if method == .GET { reach.served(head, at: now()) }
        var headers = Self.passHeaders(modifiedAt: head.modifiedAt)
        headers.replace(name: "Content-Type", value: "application/vnd.apple.pkpass")
        return Response(status: 200, headers: headers, parts: bundle.runs)
    }

    // MARK: Logs

    private struct LogBody: Decodable {
        var logs: [String]?
    }

    /// Longest message kept from a phone, in UTF-8 bytes; longer ones are cut and marked.
    static let maxLogMessageBytes = 1_024

    func log(_ request: Request) throws -> Response {
        let client = request.clientAddress
        guard logLimiter.allow(client, now: now()) else {
            throw HTTPError(status: 429, code: "rate_limited", message: "Too many log requests; try again later.", headers: ["Retry-After": "60"])
        }
        let body = try DeviceRequest.json(LogBody.self, from: request)
        guard let logs = body.logs else { throw HTTPError.badRequest("logs is required.", code: "missing_logs") }
        // A phone reports a handful of lines; keep at most 100 of at most 1,024 bytes each (cut on a
        // scalar boundary and marked). NUL is valid JSON but PostgreSQL text refuses it: replace it
        // rather than fail with a 500. The logger escapes control characters itself.
        let messages = logs.prefix(100).map {
            LogText.truncated($0, maxBytes: Self.maxLogMessageBytes).text.replacingOccurrences(of: "\u{0}", with: "\u{FFFD}")
        }
        for message in messages {
            logger.warning("device log", ["device.message": message, "request.id": request.requestID, "client": client])
        }
        if !messages.isEmpty {
            _ = try store.withSession(.write) { try $0.admin.appendDeviceLogs(Array(messages), peer: client, keepNewest: deviceLogCapacity, now: now()) }
        }
        return Response(status: 200)
    }

    // MARK: Authentication

    /// The token and the pass named by the path, each validated once here (the token first, so a
    /// request without valid credentials learns nothing about its path).
    private func credentials(_ request: Request) throws -> (token: AuthenticationToken, scheme: DeviceAuthorizationScheme, passType: PassTypeIdentifier, serial: SerialNumber) {
        let (token, scheme) = try DeviceRequest.token(request, acceptingAndroid: acceptsAndroid)
        return (token, scheme, try DeviceRequest.passType(request), try DeviceRequest.serial(request))
    }

    /// The pass named by the path with its event (one read: what a fetch needs to build the pass),
    /// if the `ApplePass` token matches it. Every failure is the same 401, so a caller cannot tell
    /// an unknown pass from a wrong token.
    func authenticatedPass(_ request: Request) throws -> (pass: StoredPass, event: Event?) {
        let (token, _, passType, serial) = try credentials(request)
        let found = try store.withSession(.read) { try $0.passes.passWithEvent(passTypeIdentifier: passType, serialNumber: serial) }
        return (try authenticate(token, found?.pass, passType: passType, serial: serial), found?.event)
    }

    /// `stored` if `token` matches its hash. Hashes even when the pass is unknown, so both paths
    /// cost the same.
    private func authenticate(_ token: AuthenticationToken, _ stored: StoredPass?, passType: PassTypeIdentifier, serial: SerialNumber) throws -> StoredPass {
        let matches = try TokenVault.matches(token.rawValue, storedHash: stored?.authenticationTokenHash ?? Self.noHash)
        guard let stored, matches else { throw DeviceRequest.unauthorized }
        authentication.remember(stored.authenticationTokenHash, passType: passType, serial: serial)
        return stored
    }

    /// The pass named by the path, authenticated like `authenticatedPass` but from the cached token
    /// hash when there is one (the row itself is not needed to register or unregister).
    func authenticatedIdentifiers(_ request: Request) throws -> (passType: PassTypeIdentifier, serial: SerialNumber, scheme: DeviceAuthorizationScheme) {
        let (token, scheme, passType, serial) = try credentials(request)
        if let cached = authentication.hash(passType: passType, serial: serial) {
            guard try TokenVault.matches(token.rawValue, storedHash: cached) else { throw DeviceRequest.unauthorized }
        } else {
            let stored = try store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: passType, serialNumber: serial) }
            _ = try authenticate(token, stored, passType: passType, serial: serial)
        }
        return (passType, serial, scheme)
    }
}
