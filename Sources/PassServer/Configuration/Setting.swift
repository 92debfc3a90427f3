import Foundation
import HTTPServer
import Logging
import Mail

/// One configuration key: its environment variable, its flag, its default as shown to people, and
/// how a raw string changes the configuration.
public struct Setting: Sendable {
    /// The environment variable, e.g. `HTTP_PORT`.
    public let key: String
    /// One line for `--help` and the README table.
    public let summary: String
    /// The default as documented (`nil` when unset by default).
    public let documentedDefault: String?
    /// Flags without a value mean `true`.
    public let isBoolean: Bool
    /// Hidden from the secrets-free configuration dump.
    public let isSecret: Bool
    let apply: @Sendable (inout Configuration, String) throws(SettingProblem) -> Void

    /// The flag of this key: `HTTP_PORT` → `--http-port`.
    public var flag: String { "--" + key.lowercased().replacingOccurrences(of: "_", with: "-") }

    init(
        _ key: String, _ summary: String, default documentedDefault: String?, boolean: Bool = false, secret: Bool = false,
        apply: @escaping @Sendable (inout Configuration, String) throws(SettingProblem) -> Void
    ) {
        self.key = key
        self.summary = summary
        self.documentedDefault = documentedDefault
        self.isBoolean = boolean
        self.isSecret = secret
        self.apply = apply
    }

    /// A field of the configuration that a setting sets.
    typealias Field<Value> = any WritableKeyPath<Configuration, Value> & Sendable

    /// A setting whose raw value `parse` reads into the configuration field at `field`.
    private static func stored<Value>(
        _ key: String, _ summary: String, default documentedDefault: String?, boolean: Bool = false, secret: Bool = false,
        at field: Field<Value>, parse: @escaping @Sendable (String) throws(SettingProblem) -> Value
    ) -> Setting {
        Setting(key, summary, default: documentedDefault, boolean: boolean, secret: secret) { config, raw throws(SettingProblem) in
            config[keyPath: field] = try parse(raw)
        }
    }

    /// The URL of a service we call (`Parse.serviceURL`: https, or http to a loopback address).
    static func serviceURL(_ key: String, _ summary: String, default documentedDefault: String?, at field: Field<String>) -> Setting {
        stored(key, summary, default: documentedDefault, at: field) { raw throws(SettingProblem) in try Parse.serviceURL(raw) }
    }

    /// The same, for a field that is nil while unset.
    static func serviceURL(_ key: String, _ summary: String, default documentedDefault: String?, at field: Field<String?>) -> Setting {
        stored(key, summary, default: documentedDefault, at: field) { raw throws(SettingProblem) in try Parse.serviceURL(raw) }
    }

    /// A whole number within `range` (`Parse.integer`).
    static func integer(
        _ key: String, _ summary: String, default documentedDefault: String?, in range: ClosedRange<Int>, at field: Field<Int>
    ) -> Setting {
        stored(key, summary, default: documentedDefault, at: field) { raw throws(SettingProblem) in try Parse.integer(raw, in: range) }
    }

    /// A duration in whole seconds within `range` (`Parse.seconds`).
    static func seconds(
        _ key: String, _ summary: String, default documentedDefault: String?, in range: ClosedRange<Int>, at field: Field<Int>
    ) -> Setting {
        stored(key, summary, default: documentedDefault, at: field) { raw throws(SettingProblem) in try Parse.seconds(raw, in: range) }
    }

    /// A duration in whole seconds within `range` (`Parse.seconds`), for a field whose nil stands
    /// for a default derived from other settings.
    static func seconds(
        _ key: String, _ summary: String, default documentedDefault: String?, in range: ClosedRange<Int>, at field: Field<Int?>
    ) -> Setting {
        stored(key, summary, default: documentedDefault, at: field) { raw throws(SettingProblem) in try Parse.seconds(raw, in: range) }
    }

    /// A flag: true or false (`Parse.boolean`); given without a value it means true.
    static func boolean(_ key: String, _ summary: String, default documentedDefault: String, at field: Field<Bool>) -> Setting {
        stored(key, summary, default: documentedDefault, boolean: true, at: field) { raw throws(SettingProblem) in try Parse.boolean(raw) }
    }

    /// Text that is not empty once trimmed (`Parse.nonEmpty`).
    static func text(
        _ key: String, _ summary: String, default documentedDefault: String?, secret: Bool = false, at field: Field<String>
    ) -> Setting {
        stored(key, summary, default: documentedDefault, secret: secret, at: field) { raw throws(SettingProblem) in try Parse.nonEmpty(raw) }
    }

    /// Text that is not empty once trimmed (`Parse.nonEmpty`), for a field that is nil while unset.
    static func text(
        _ key: String, _ summary: String, default documentedDefault: String?, secret: Bool = false, at field: Field<String?>
    ) -> Setting {
        stored(key, summary, default: documentedDefault, secret: secret, at: field) { raw throws(SettingProblem) in try Parse.nonEmpty(raw) }
    }
}

/// Why one raw value was refused; the loader adds the key.
public struct SettingProblem: Error, Sendable {
    public let message: String
    init(_ message: String) { self.message = message }
}

// MARK: Value parsers shared by the settings table

enum Parse {
    static func integer(_ raw: String, in range: ClosedRange<Int>) throws(SettingProblem) -> Int {
        guard let value = Int(raw.trimmingCharacters(in: .whitespaces)) else {
            throw SettingProblem("'\(raw)' is not a whole number")
        }
        guard range.contains(value) else {
            throw SettingProblem("\(value) is outside \(range.lowerBound)…\(range.upperBound)")
        }
        return value
    }

    /// Seconds, written plainly (`90`) or with a unit: `90s`, `15m`, `3h`, `3d`.
    static func seconds(_ raw: String, in range: ClosedRange<Int>) throws(SettingProblem) -> Int {
        let text = raw.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [(suffix: String, factor: Int)] = [("ms", 0), ("s", 1), ("m", 60), ("h", 3_600), ("d", 86_400)]
        var number = text
        var factor = 1
        for unit in units where text.hasSuffix(unit.suffix) {
            number = String(text.dropLast(unit.suffix.count))
            factor = unit.factor
            break
        }
        guard factor > 0, let value = Int(number), value >= 0 else {
            throw SettingProblem("'\(raw)' is not a duration (seconds, or a number with s, m, h or d)")
        }
        let (total, overflow) = value.multipliedReportingOverflow(by: factor)
        guard !overflow, range.contains(total) else {
            throw SettingProblem("'\(raw)' is outside \(range.lowerBound)…\(range.upperBound) seconds")
        }
        return total
    }

    /// Comma-separated CIDR blocks (`10.0.0.0/8`, `::1/128`, or bare addresses); `none` is the empty list.
    static func addressRanges(_ raw: String) throws(SettingProblem) -> [AddressRange] {
        let text = raw.trimmingCharacters(in: .whitespaces)
        if text.lowercased() == "none" { return [] }
        var ranges: [AddressRange] = []
        var bad: [String] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let entry = item.trimmingCharacters(in: .whitespaces)
            if let range = AddressRange(entry) { ranges.append(range) } else { bad.append("'\(entry)'") }
        }
        guard bad.isEmpty else {
            throw SettingProblem("\(bad.joined(separator: ", ")) is not an IPv4/IPv6 address or CIDR block such as 10.0.0.0/8 or ::1/128")
        }
        return ranges
    }

    static func boolean(_ raw: String) throws(SettingProblem) -> Bool {
        switch raw.trimmingCharacters(in: .whitespaces).lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw SettingProblem("'\(raw)' is not true or false")
        }
    }

    /// `address` or `Name <address>`, as `MailAddress.parse` reads it.
    static func mailAddress(_ raw: String) throws(SettingProblem) -> String {
        let text = try nonEmpty(raw)
        do {
            _ = try MailAddress.parse(text)
        } catch {
            throw SettingProblem(error.message)
        }
        return text
    }

    /// An absolute URL of a service we call, without query or fragment, trailing slash dropped:
    /// https, or http to a loopback address (a local fake).
    static func serviceURL(_ raw: String) throws(SettingProblem) -> String {
        var text = try nonEmpty(raw)
        if text.hasSuffix("/") { text.removeLast() }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host,
            url.query == nil, url.fragment == nil
        else { throw SettingProblem("'\(raw)' is not an absolute URL without query") }
        let loopback = host == "localhost" || host == "::1" || host.hasPrefix("127.")
        guard scheme == "https" || (scheme == "http" && loopback) else {
            throw SettingProblem("'\(raw)' must be https (http only to a loopback address)")
        }
        return text
    }

    static func nonEmpty(_ raw: String) throws(SettingProblem) -> String {
        let value = raw.trimmingCharacters(in: .whitespaces)
        guard !value.isEmpty else { throw SettingProblem("is empty") }
        return value
    }

    /// A secret of at least 32 bytes, given as hex (64+ digits) or base64.
    static func secret(_ raw: String) throws(SettingProblem) -> [UInt8] {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.count.isMultiple(of: 2), text.allSatisfy(\.isHexDigit) {
            var bytes: [UInt8] = []
            var index = text.startIndex
            while index < text.endIndex {
                let next = text.index(index, offsetBy: 2)
                guard let byte = UInt8(text[index..<next], radix: 16) else { break }
                bytes.append(byte)
                index = next
            }
            if bytes.count >= 32 { return bytes }
        } else if let data = Data(base64Encoded: text), data.count >= 32 {
            return Array(data)
        }
        throw SettingProblem("must be at least 32 random bytes, as hex or base64 (e.g. `openssl rand -hex 32`)")
    }
}
