// A small structured logger: constant messages, key=value metadata, one line per event.
//
// Lines go to a `LogSink` (standard error by default) under a lock, so lines from many threads
// never interleave. Every part of a line is escaped (`LogText`): text from outside cannot forge
// lines or send terminal controls. Secrets never belong in metadata: log tokens truncated or hashed.

import Foundation
import Synchronization

/// Severity of a log line, ordered from most to least verbose.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    case trace, debug, info, notice, warning, error, critical

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        switch self {
        case .trace: "trace"
        case .debug: "debug"
        case .info: "info"
        case .notice: "notice"
        case .warning: "warning"
        case .error: "error"
        case .critical: "critical"
        }
    }

    /// Parses `trace`…`critical` (case-insensitive); `warn` is accepted for `warning`.
    public init?(name: String) {
        let lowered = name.lowercased()
        if lowered == "warn" { self = .warning; return }
        guard let level = LogLevel.allCases.first(where: { $0.description == lowered }) else { return nil }
        self = level
    }
}

/// Where formatted log lines go.
public protocol LogSink: Sendable {
    func write(_ line: String)
}

/// Writes each line to standard error.
public struct StandardErrorSink: LogSink {
    private static let lock = Mutex(())
    public init() {}
    public func write(_ line: String) {
        let data = Array((line + "\n").utf8)
        Self.lock.withLock { _ in
            data.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = Foundation.write(2, buffer.baseAddress! + offset, buffer.count - offset)
                    if written <= 0 { break }
                    offset += written
                }
            }
        }
    }
}

/// Keeps lines in memory; for tests that assert on what was logged.
public final class MemorySink: LogSink {
    private let storage = Mutex<[String]>([])
    public init() {}
    public func write(_ line: String) { storage.withLock { $0.append(line) } }
    /// Every line written so far.
    public var lines: [String] { storage.withLock { $0 } }
}

/// A value-type logger: a label, a minimum level, metadata carried into every line, and a sink.
public struct Logger: Sendable {
    public typealias Metadata = [String: String]

    public var label: String
    public var level: LogLevel
    public var metadata: Metadata
    public let sink: any LogSink

    public init(label: String, level: LogLevel = .info, metadata: Metadata = [:], sink: any LogSink = StandardErrorSink()) {
        self.label = label
        self.level = level
        self.metadata = metadata
        self.sink = sink
    }

    public subscript(metadataKey key: String) -> String? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// A copy with another label, same level, metadata and sink.
    public func named(_ label: String) -> Logger {
        var copy = self
        copy.label = label
        return copy
    }

    public func log(_ level: LogLevel, _ message: @autoclosure () -> String, _ extra: @autoclosure () -> Metadata = [:]) {
        guard level >= self.level else { return }
        var all = metadata
        for (key, value) in extra() { all[key] = value }
        sink.write(Self.format(level: level, label: label, message: message(), metadata: all))
    }

    /// `log` with the line's own metadata as pairs rather than a dictionary, for a line written on
    /// every request (the access log): the same line, without building and hashing a dictionary.
    /// A key given twice keeps its last value; the logger's metadata gives way to `fields`.
    public func log(_ level: LogLevel, _ message: String, fields: [(key: String, value: String)]) {
        guard level >= self.level else { return }
        var pairs = fields
        for (key, value) in metadata where !fields.contains(where: { $0.key == key }) { pairs.append((key, value)) }
        sink.write(Self.format(level: level, label: label, message: message, sortedPairs: Self.sortedUnique(pairs)))
    }

    public func trace(_ message: @autoclosure () -> String, _ extra: @autoclosure () -> Metadata = [:]) { log(.trace, message(), extra()) }
    public func debug(_ message: @autoclosure () -> String, _ extra: @autoclosure () -> Metadata = [:]) { log(.debug, message(), extra()) }
    public func info(_ message: @autoclosure () -> String, _ extra: @autoclosure () -> Metadata = [:]) { log(.info, message(), extra()) }
    public func notice(_ message: @autoclosure () -> String, _ extra: @autoclosure () -> Metadata = [:]) { log(.notice, message(), extra()) }
    public func warning(_ message: @autoclosure () -> String, _ extra: @autoclosure () -> Metadata = [:]) { log(.warning, message(), extra()) }
    public func error(_ message: @autoclosure () -> String, _ extra: @autoclosure () -> Metadata = [:]) { log(.error, message(), extra()) }
    public func critical(_ message: @autoclosure () -> String, _ extra: @autoclosure () -> Metadata = [:]) { log(.critical, message(), extra()) }

    /// One line: timestamp, level, label, message, then `key=value` metadata sorted by key. Every
    /// part is escaped by `LogText`, so no caller can put a line break or terminal control into it.
    static func format(level: LogLevel, label: String, message: String, metadata: Metadata) -> String {
        format(level: level, label: label, message: message, sortedPairs: metadata.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    /// `pairs` sorted by key, each key once (its last value).
    static func sortedUnique(_ pairs: [(key: String, value: String)]) -> [(key: String, value: String)] {
        // Stable: of equal keys the later stays last, and is the one kept.
        let sorted = pairs.enumerated().sorted { $0.element.key != $1.element.key ? $0.element.key < $1.element.key : $0.offset < $1.offset }
        var unique: [(key: String, value: String)] = []
        unique.reserveCapacity(sorted.count)
        for (_, pair) in sorted {
            if let last = unique.last, last.key == pair.key { unique[unique.count - 1] = pair } else { unique.append(pair) }
        }
        return unique
    }

    private static func format(level: LogLevel, label: String, message: String, sortedPairs: [(key: String, value: String)]) -> String {
        var line = timestamp()
        line.reserveCapacity(128 + message.utf8.count + sortedPairs.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count + 2 })
        line += " "
        line += level.description
        line += " "
        line += LogText.name(label)
        line += ": "
        line += LogText.escape(message)
        for (key, value) in sortedPairs {
            line += " "
            line += LogText.name(key)
            line += "="
            line += LogText.value(value)
        }
        return line
    }

    /// `2026-12-06T14:47:32.123Z`: the time now in UTC with milliseconds, its digits written
    /// straight into the string (every line has one; `String(format:)` cost more than the rest of
    /// an access line).
    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return timestamp(seconds: now.tv_sec, milliseconds: Int(now.tv_nsec / 1_000_000))
    }

    static func timestamp(seconds: Int, milliseconds: Int) -> String {
        var seconds = seconds
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(unsafeUninitializedCapacity: 24) { buffer in
            var index = 0
            func digits(_ value: Int, _ count: Int) {
                var value = value
                for position in stride(from: index + count - 1, through: index, by: -1) {
                    buffer[position] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
                index += count
            }
            func byte(_ character: Unicode.Scalar) {
                buffer[index] = UInt8(ascii: character)
                index += 1
            }
            digits(Int(parts.tm_year) + 1900, 4)
            byte("-")
            digits(Int(parts.tm_mon) + 1, 2)
            byte("-")
            digits(Int(parts.tm_mday), 2)
            byte("T")
            digits(Int(parts.tm_hour), 2)
            byte(":")
            digits(Int(parts.tm_min), 2)
            byte(":")
            digits(Int(parts.tm_sec), 2)
            byte(".")
            digits(milliseconds, 3)
            byte("Z")
            return index
        }
    }
}
