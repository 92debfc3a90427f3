import Foundation
import Synchronization

/// Bounds the warning lines suspicious scans write (forged codes, bare serials of signed
/// tickets), per scanning token: at most `linesPerMinute` lines a minute each. A batch writes one
/// line however many such scans it holds (`CheckInDesk.scan(batch:)`); a scanner sending
/// more lines than that a minute has the rest counted, and the next line it writes says how many
/// scans went unlogged meanwhile (`checkin.unlogged`). The metrics count every scan.
final class ScanWarnings: Sendable {
    static let linesPerMinute = 10
    /// Codes quoted in a batch's line.
    static let samples = 3
    /// Scanners remembered; forgotten all at once when full (the limit then starts afresh).
    static let capacity = 1_024

    private struct Window {
        var minute: Int64
        var lines: Int
        var unlogged: Int
    }

    private let windows = Mutex<[String: Window]>([:])

    /// Whether `scanner` may write a line for `scans` suspicious scans now; if so, the scans
    /// it sent meanwhile that went unlogged (to write with it), else nil (counted for later).
    func admit(scanner: String, scans: Int, now: Date) -> Int? {
        let minute = Int64((now.timeIntervalSince1970 / 60).rounded(.down))
        return windows.withLock { windows -> Int? in
            if windows[scanner] == nil, windows.count >= Self.capacity { windows.removeAll() }
            var window = windows[scanner] ?? Window(minute: minute, lines: 0, unlogged: 0)
            if window.minute != minute { (window.minute, window.lines) = (minute, 0) }
            defer { windows[scanner] = window }
            guard window.lines < Self.linesPerMinute else {
                window.unlogged += scans
                return nil
            }
            window.lines += 1
            let unlogged = window.unlogged
            window.unlogged = 0
            return unlogged
        }
    }
}
