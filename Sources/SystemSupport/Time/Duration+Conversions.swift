public import Dispatch
public import Foundation

/// The one place a `Duration` becomes the units C libraries, `Date` and Dispatch take.
extension Duration {
    /// Whole milliseconds (rounded toward zero), for libcurl, libpq, SQLite and logs.
    public var milliseconds: Int64 {
        components.seconds * 1_000 + components.attoseconds / 1_000_000_000_000_000
    }

    /// Seconds, for `Date` arithmetic and reports.
    public var timeInterval: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// Whole nanoseconds (rounded toward zero), for clocks kept in integers.
    public var nanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }

    /// Whole nanoseconds, for Dispatch timeouts.
    public var dispatchInterval: DispatchTimeInterval {
        .nanoseconds(Int(nanoseconds))
    }
}
