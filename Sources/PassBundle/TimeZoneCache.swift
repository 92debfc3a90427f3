public import Foundation
import Synchronization

/// `TimeZone(identifier:)` reads the zoneinfo file on every call; passes are rendered per request,
/// so zones are looked up once per identifier. Thread-safe behind a `Mutex`.
public enum TimeZoneCache {
    private static let zones = Mutex<[String: TimeZone]>([:])

    public static func zone(_ identifier: String) -> TimeZone? {
        if let cached = zones.withLock({ $0[identifier] }) { return cached }
        guard let zone = TimeZone(identifier: identifier) else { return nil }
        // Unknown identifiers are not cached, so the map only grows with real zones (a few hundred).
        zones.withLock { $0[identifier] = zone }
        return zone
    }
}
