import PassIdentifiers
import Synchronization

/// Remembers each pass's authentication-token hash, which never changes for the life of a pass, so
/// registering and unregistering need no lookup round trip before their one write. Only passes that
/// exist are remembered; bounded by dropping everything when full (refilled on the next requests).
final class AuthenticationCache: Sendable {
    private let hashes = Mutex<[String: [UInt8]]>([:])
    private let capacity: Int

    init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    private static func key(_ passType: PassTypeIdentifier, _ serial: SerialNumber) -> String {
        passType.rawValue + "\u{0}" + serial.rawValue
    }

    func hash(passType: PassTypeIdentifier, serial: SerialNumber) -> [UInt8]? {
        hashes.withLock { $0[Self.key(passType, serial)] }
    }

    func remember(_ hash: [UInt8], passType: PassTypeIdentifier, serial: SerialNumber) {
        hashes.withLock { hashes in
            if hashes.count >= capacity { hashes.removeAll(keepingCapacity: true) }
            hashes[Self.key(passType, serial)] = hash
        }
    }

    var count: Int { hashes.withLock { $0.count } }
}
