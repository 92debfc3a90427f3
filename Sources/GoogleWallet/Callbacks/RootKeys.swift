package import Certificates
package import Foundation
import Synchronization

/// Google's root keys for callbacks, fetched from the keys URL and kept until they no longer
/// serve: the list is fetched when first needed, and again when a callback meets no unexpired key
/// or a signature none of the known keys verifies (Google rotated its keys), at most once per
/// `refreshInterval` so that forged callbacks cannot make us hammer Google.
///
/// Threading: one lock guards the list; a fetch runs under it, so concurrent callbacks wait for one
/// fetch instead of making several.
public final class RootKeys: Sendable {
    /// Fetches the keys document (`{"keys":[{"keyValue", "protocolVersion", "keyExpiration"}]}`).
    public typealias Fetch = @Sendable () throws -> [UInt8]

    package struct Key: Sendable {
        package var publicKey: P256PublicKey
        package var expiresAt: Date
    }

    private struct State {
        var keys: [Key]? = nil
        var lastAttempt: ContinuousClock.Instant? = nil
    }

    private let fetch: Fetch
    private let refreshInterval: Duration
    private let state = Mutex(State())

    public init(refreshInterval: Duration = .seconds(60), fetch: @escaping Fetch) {
        self.fetch = fetch
        self.refreshInterval = refreshInterval
    }

    /// The unexpired keys, fetching the list when none was fetched yet or none of those known is
    /// unexpired (and the interval allows).
    package func usable(now: Date) throws(CallbackRefusal) -> [Key] {
        let result = state.withLock { state -> Result<[Key], CallbackRefusal> in
            if let keys = state.keys {
                let unexpired = keys.filter { $0.expiresAt > now }
                if !unexpired.isEmpty || !mayFetch(state) { return .success(unexpired) }
            }
            return load(&state, now: now)
        }
        return try result.get()
    }

    /// A newer list than the one `usable` gave, when the interval allows fetching again; nil
    /// otherwise (the caller keeps its answer).
    package func refreshed(now: Date) throws(CallbackRefusal) -> [Key]? {
        let result = state.withLock { state -> Result<[Key], CallbackRefusal>? in
            mayFetch(state) ? load(&state, now: now) : nil
        }
        return try result?.get()
    }

    private func mayFetch(_ state: State) -> Bool {
        guard let last = state.lastAttempt else { return true }
        return ContinuousClock.now - last >= refreshInterval
    }

    private func load(_ state: inout State, now: Date) -> Result<[Key], CallbackRefusal> {
        state.lastAttempt = ContinuousClock.now
        let bytes: [UInt8]
        do { bytes = try fetch() } catch {
            // A failed fetch keeps the keys known so far, and is retried only after the interval.
            if let keys = state.keys { return .success(keys.filter { $0.expiresAt > now }) }
            return .failure(CallbackRefusal(.keysUnavailable, "Google's signing keys could not be fetched"))
        }
        guard let keys = Self.parse(bytes) else {
            if let keys = state.keys { return .success(keys.filter { $0.expiresAt > now }) }
            return .failure(CallbackRefusal(.keysUnavailable, "Google's signing keys are not a key list"))
        }
        state.keys = keys
        return .success(keys.filter { $0.expiresAt > now })
    }

    /// The `ECv2SigningOnly` keys of a keys document (others, and keys without an expiry, are
    /// left out); nil when the document is not a key list.
    package static func parse(_ bytes: [UInt8]) -> [Key]? {
        guard let document = JSONFields(bytes), let entries = document.array("keys") else { return nil }
        return entries.compactMap { entry in
            guard entry.string("protocolVersion") == SignedString.protocolVersion,
                let value = entry.string("keyValue"), let der = Data(base64Encoded: value),
                let expiresAt = entry.millis("keyExpiration"),
                let publicKey = try? P256PublicKey(der: [UInt8](der))
            else { return nil }
            return Key(publicKey: publicKey, expiresAt: expiresAt)
        }
    }
}
