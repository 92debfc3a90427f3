import PassBundle
import PassIdentifiers
import Synchronization

/// What a `BundleCache` entry is for: a pass at a revision, in one rendering.
struct BundleKey: Hashable, Sendable {
    var passTypeIdentifier: PassTypeIdentifier
    var serialNumber: SerialNumber
    var revision: Int64
    /// Which rendering of the pass, for caches of more than one (the attendee's page caches
    /// one per language); empty for the signed bundle.
    var variant: String = ""
}

/// A bounded in-memory cache of signed bundles, keyed by pass and revision, with single flight:
/// when a burst of phones asks for the same unsigned pass, one thread signs it and the others
/// wait for that result instead of signing again.
///
/// Eviction is two-generation (a cheap LRU approximation): entries live in `young`; when `young`
/// holds half the byte budget it becomes `old` and the previous `old` is dropped. A hit in `old`
/// moves the entry back to `young`. Every operation is O(1); memory stays under the budget.
///
/// A cache of a few megabytes or more is split into shards by key, each with its share of the
/// budget and a lock of its own: every fetch of a pass asks the cache, and one lock for all the
/// request threads was the busiest thing in a server answering fetches from its cache.
final class BundleCache<Value: CacheableValue>: Sendable {
    typealias Key = BundleKey

    private struct State: ~Copyable {
        var young: [Key: Value] = [:]
        var old: [Key: Value] = [:]
        var youngBytes = 0
        var inFlight: [Key: Flight] = [:]
        var hits = 0
        var misses = 0
    }

    /// One signing in progress; waiters block on it.
    private final class Flight: Sendable {
        private let result = Mutex<Result<Value, any Error>?>(nil)
        private let condition = SendableCondition()

        func finish(_ value: Result<Value, any Error>) {
            condition.lock()
            result.withLock { $0 = value }
            condition.broadcast()
            condition.unlock()
        }

        func wait() -> Result<Value, any Error> {
            condition.lock()
            defer { condition.unlock() }
            while true {
                if let value = result.withLock({ $0 }) { return value }
                condition.wait()
            }
        }
    }

    private final class Shard: Sendable {
        let state = Mutex(State())
    }

    private let shards: [Shard]
    private let generationBytes: Int

    /// Shards at most; a cache gets one per `bytesPerShard` of budget, so a small one stays whole.
    static var maximumShards: Int { 16 }
    static var bytesPerShard: Int { 4 << 20 }

    /// `maxBytes` bounds the cached bundle bytes (both generations of every shard together).
    init(maxBytes: Int) {
        let count = min(Self.maximumShards, max(1, maxBytes / Self.bytesPerShard))
        shards = (0..<count).map { _ in Shard() }
        generationBytes = max(1, maxBytes / count / 2)
    }

    private func shard(_ key: Key) -> Shard {
        shards.count == 1 ? shards[0] : shards[Int(UInt(bitPattern: key.hashValue) % UInt(shards.count))]
    }

    private enum Step { case hit(Value), wait(Flight), make(Flight) }

    /// The cached bundle for `key`, counted as a hit, or nil (nothing counted: the caller goes on
    /// to `bundle(for:make:)`).
    func cached(_ key: Key) -> Value? {
        shard(key).state.withLock { state in
            if let bytes = state.young[key] {
                state.hits += 1
                return bytes
            }
            guard let bytes = state.old.removeValue(forKey: key) else { return nil }
            state.hits += 1
            Self.insert(key, bytes, into: &state, generationBytes: generationBytes)
            return bytes
        }
    }

    /// The cached bundle for `key`, or the result of `make`, run once however many threads ask.
    func bundle(for key: Key, make: () throws -> Value) throws -> Value {
        let shard = shard(key)
        let step: Step = shard.state.withLock { state in
            if let bytes = state.young[key] {
                state.hits += 1
                return .hit(bytes)
            }
            if let bytes = state.old.removeValue(forKey: key) {
                state.hits += 1
                Self.insert(key, bytes, into: &state, generationBytes: generationBytes)
                return .hit(bytes)
            }
            if let flight = state.inFlight[key] { return .wait(flight) }
            state.misses += 1
            let flight = Flight()
            state.inFlight[key] = flight
            return .make(flight)
        }
        switch step {
        case .hit(let bytes):
            return bytes
        case .wait(let flight):
            return try flight.wait().get()
        case .make(let flight):
            let result = Result { try make() }
            shard.state.withLock { state in
                state.inFlight[key] = nil
                if case .success(let bytes) = result {
                    Self.insert(key, bytes, into: &state, generationBytes: generationBytes)
                }
            }
            flight.finish(result)
            return try result.get()
        }
    }

    /// Hit and miss counts since start (for metrics and tests).
    var statistics: (hits: Int, misses: Int, entries: Int) {
        shards.reduce(into: (hits: 0, misses: 0, entries: 0)) { total, shard in
            shard.state.withLock { state in
                total.hits += state.hits
                total.misses += state.misses
                total.entries += state.young.count + state.old.count
            }
        }
    }

    private static func insert(_ key: Key, _ bytes: Value, into state: inout State, generationBytes: Int) {
        if state.youngBytes + bytes.byteCount > generationBytes {
            state.old = state.young
            state.young = [:]
            state.youngBytes = 0
        }
        state.young[key] = bytes
        state.youngBytes += bytes.byteCount
    }
}

/// What a `BundleCache` holds: a value whose size counts against the cache's byte budget.
protocol CacheableValue: Sendable {
    var byteCount: Int { get }
}

extension Array: CacheableValue where Element == UInt8 {
    var byteCount: Int { count }
}

/// A signed bundle costs the cache its own run: the template's run is shared by every pass of the
/// template and held by the template (a design's images are kept once, however many passes).
extension SignedBundle: CacheableValue {
    var byteCount: Int { ownCount }
}
