import Foundation
import SystemSupport

extension PassDefinition {
    /// Decodes pass.json bytes; problems become issues naming the key.
    public static func decode(_ bytes: [UInt8]) throws(PassBundleError) -> PassDefinition {
        let tree: JSONValue
        do {
            tree = try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        } catch {
            throw PassBundleError(.invalidPass, "pass.json is not valid JSON", underlying: error)
        }
        return try decode(tree)
    }

    /// Decodes a rendered pass.json tree (no re-parsing), with the same errors as `decode(_:)`.
    public static func decode(_ tree: JSONValue) throws(PassBundleError) -> PassDefinition {
        do {
            return try PassDefinition(tree: tree)
        } catch {
            throw .invalidPass([error])
        }
    }

    /// Every rule broken by this pass for a signer with the given identifiers.
    public func validationIssues(passTypeIdentifier expectedType: String, teamIdentifier expectedTeam: String, options: ValidationOptions) -> [PassBundleError.Issue] {
        var issues: [PassBundleError.Issue] = []
        func fail(_ key: String, _ problem: String) { issues.append(.init(key: key, problem: problem)) }

        if formatVersion != 1 { fail("formatVersion", "must be 1, found \(formatVersion)") }
        if passTypeIdentifier != expectedType {
            fail("passTypeIdentifier", "\"\(passTypeIdentifier)\" differs from the signing certificate's UID \"\(expectedType)\"")
        }
        if teamIdentifier != expectedTeam {
            fail("teamIdentifier", "\"\(teamIdentifier)\" differs from the signing certificate's OU \"\(expectedTeam)\"")
        }
        for (key, value) in [("serialNumber", serialNumber), ("organizationName", organizationName), ("description", description)]
        where !value.utf8.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) {
            fail(key, "must not be empty")
        }
        switch (webServiceURL, authenticationToken) {
        case (nil, nil): break
        case (nil, _): fail("webServiceURL", "is required when authenticationToken is set")
        case (_, nil): fail("authenticationToken", "is required when webServiceURL is set")
        case (let url?, let token?):
            if token.count < 16 { fail("authenticationToken", "must be at least 16 characters, found \(token.count)") }
            if let problem = Self.webServiceProblem(url, allowHTTP: options.allowHTTPWebService) { fail("webServiceURL", problem) }
        }
        let styles = self.styles
        if styles.count != 1 {
            fail("eventTicket", styles.isEmpty ? "a style key (eventTicket) is required" : "only one style key is allowed, found \(styles.joined(separator: ", "))")
        }
        for (key, value) in [("relevantDate", relevantDate), ("expirationDate", expirationDate),
                             ("semantics.eventStartDate", semantics?.eventStartDate), ("semantics.eventEndDate", semantics?.eventEndDate)] {
            if let value, !Self.isISO8601WithZone(value) { fail(key, "\"\(value)\" is not an ISO 8601 date with a time zone") }
        }
        for (key, value) in [("foregroundColor", foregroundColor), ("backgroundColor", backgroundColor), ("labelColor", labelColor)] {
            if let value, !Self.isRGB(value) { fail(key, "\"\(value)\" must look like rgb(12, 34, 56)") }
        }
        for (index, barcode) in (barcodes ?? []).enumerated() where !Self.barcodeFormats.contains(barcode.format) {
            fail("barcodes[\(index)].format", "\"\(barcode.format)\" is not one of \(Self.barcodeFormats.sorted().joined(separator: ", "))")
        }
        var seenKeys = Set<String>()
        for (group, field) in structure?.allFields ?? [] {
            if !seenKeys.insert(field.key).inserted { fail("\(styles.first ?? "style").\(group)", "field key \"\(field.key)\" is used twice") }
            if let message = field.changeMessage, !Self.isChangeMessage(message) {
                fail("\(styles.first ?? "style").\(group).\(field.key).changeMessage", "must contain %@ (or be a pass.strings key)")
            }
        }
        return issues
    }

    static let barcodeFormats: Set<String> = ["PKBarcodeFormatQR", "PKBarcodeFormatPDF417", "PKBarcodeFormatAztec", "PKBarcodeFormatCode128"]

    /// Checked by hand (scheme, then a non-empty host without spaces): URLComponents is slow on
    /// the per-pass path and accepts strings Wallet does not.
    static func webServiceProblem(_ url: String, allowHTTP: Bool) -> String? {
        let bytes = Array(url.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes[colon...].starts(with: Array("://".utf8)) else {
            return "\"\(url)\" is not an absolute URL"
        }
        let scheme = String(decoding: bytes[..<colon], as: UTF8.self).lowercased()
        let hostStart = colon + 3
        let hostEnd = bytes[hostStart...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.endIndex
        guard hostEnd > hostStart, !bytes.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            return "\"\(url)\" is not an absolute URL"
        }
        if scheme == "https" { return nil }
        if scheme == "http" {
            return allowHTTP ? nil : "must use https (http is allowed only with the development flag allowHTTPWebService)"
        }
        return "must use https, found \(scheme)"
    }

    /// A change message contains `%@`, or is a pass.strings key (`STATUS_CHANGE_MESSAGE`) whose
    /// translation does.
    static func isChangeMessage(_ message: String) -> Bool {
        let bytes = message.utf8
        if bytes.isEmpty { return false }
        if zip(bytes, bytes.dropFirst()).contains(where: { $0 == UInt8(ascii: "%") && $1 == UInt8(ascii: "@") }) { return true }
        return bytes.allSatisfy { (65...90).contains($0) || (48...57).contains($0) || $0 == UInt8(ascii: "_") }
    }

    /// `YYYY-MM-DDTHH:MM[:SS[.fff]]` followed by `Z` or `±HH:MM` (W3C profile of ISO 8601, as
    /// Wallet reads it: the seconds may be left out), a real date-time (`ISO8601Zoned.parse`).
    static func isISO8601WithZone(_ text: String) -> Bool {
        ISO8601Zoned.parse(text, secondsOptional: true) != nil
    }

    /// `rgb(r, g, b)` with 0…255 components and optional spaces.
    static func isRGB(_ text: String) -> Bool {
        let compact = text.utf8.filter { $0 != UInt8(ascii: " ") }
        let prefix = Array("rgb(".utf8)
        guard compact.count > prefix.count + 1, compact.starts(with: prefix), compact.last == UInt8(ascii: ")") else { return false }
        let parts = compact[prefix.count..<(compact.count - 1)].split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
        return parts.count == 3 && parts.allSatisfy { part in
            part.count <= 3 && !part.isEmpty && part.allSatisfy { (48...57).contains($0) }
                && part.reduce(0) { $0 * 10 + Int($1 - 48) } <= 255
        }
    }
}
