import Foundation

/// An event's own look and its Wallet details, laid over the event's template: the colours and
/// the logo text replace the template's, the images (by kind) replace the template's files of
/// that kind, and `details` adds the semantics, relevance, guide links, featured actions, NFC and
/// the poster opt-in (`WalletEventDetails`). Every part is optional: an empty design renders the
/// template as it is.
///
/// The images are named by the id of a stored image set (`images["logo"]`); `Template.designed`
/// puts their files into the bundle. Its `Codable` form is what the admin API reads and writes and
/// what the store keeps.
public struct PassDesign: Sendable, Hashable, Codable {
    /// `backgroundColor`, `foregroundColor`, `labelColor` as pass.json writes them (`rgb(r, g, b)`).
    public var backgroundColor: String?
    public var foregroundColor: String?
    public var labelColor: String?
    /// `logoText`: the text beside the logo on the classic ticket.
    public var logoText: String?
    /// The images replacing the template's, by kind (`logo`, `strip`, …): each an image set's id.
    public var images: [String: String]
    public var details: WalletEventDetails

    public init(
        backgroundColor: String? = nil, foregroundColor: String? = nil, labelColor: String? = nil, logoText: String? = nil,
        images: [String: String] = [:], details: WalletEventDetails = WalletEventDetails()
    ) {
        self.backgroundColor = backgroundColor
        self.foregroundColor = foregroundColor
        self.labelColor = labelColor
        self.logoText = logoText
        self.images = images
        self.details = details
    }

    // Every field may be left out (a design stored before a field existed still decodes).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        backgroundColor = try container.decodeIfPresent(String.self, forKey: .backgroundColor)
        foregroundColor = try container.decodeIfPresent(String.self, forKey: .foregroundColor)
        labelColor = try container.decodeIfPresent(String.self, forKey: .labelColor)
        logoText = try container.decodeIfPresent(String.self, forKey: .logoText)
        images = try container.decodeIfPresent([String: String].self, forKey: .images) ?? [:]
        details = try container.decodeIfPresent(WalletEventDetails.self, forKey: .details) ?? WalletEventDetails()
    }

    private enum CodingKeys: String, CodingKey {
        case backgroundColor, foregroundColor, labelColor, logoText, images, details
    }

    /// The largest logo text: Wallet shows about 20 characters beside a logo.
    public static let maxLogoText = 40

    /// What is wrong with the design on its own, each problem under its field (`backgroundColor`,
    /// `images.strip`, `details.guide.bagPolicyURL`); empty when nothing is.
    public func validate() -> [WalletEventDetails.Issue] {
        var issues: [WalletEventDetails.Issue] = []
        for (field, value) in [("backgroundColor", backgroundColor), ("foregroundColor", foregroundColor), ("labelColor", labelColor)] {
            if let value, Self.color(value) == nil {
                issues.append(.init(field: field, message: "must be a colour as #rrggbb or rgb(r, g, b) with each part 0–255"))
            }
        }
        if let logoText, let problem = WalletEventDetails.textProblem(logoText, maxLength: Self.maxLogoText) {
            issues.append(.init(field: "logoText", message: problem))
        }
        for (kind, id) in images.sorted(by: { $0.key < $1.key }) {
            if PassImageKind(rawValue: kind) == nil {
                issues.append(.init(field: "images.\(kind)", message: "is not an image of a pass (\(PassImageKind.allCases.map(\.rawValue).joined(separator: ", ")))"))
            } else if id.utf8.count != 64 || !id.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) {
                issues.append(.init(field: "images.\(kind)", message: "must be the id of an uploaded image"))
            }
        }
        issues += details.validate().map { .init(field: "details." + $0.field, message: $0.message) }
        return issues
    }

    /// The design with each colour written as pass.json wants it (`#1c2440` becomes `rgb(28, 36, 64)`).
    public var normalized: PassDesign {
        var copy = self
        copy.backgroundColor = backgroundColor.flatMap(Self.color)
        copy.foregroundColor = foregroundColor.flatMap(Self.color)
        copy.labelColor = labelColor.flatMap(Self.color)
        return copy
    }

    /// `text` as pass.json's `rgb(r, g, b)`, from `#rrggbb` or `rgb(r, g, b)` (each part 0–255 in
    /// one to three digits, spaces allowed around it); nil when it is neither.
    public static func color(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        func hex(_ byte: UInt8) -> Int? {
            switch byte {
            case 0x30...0x39: Int(byte - 0x30)
            case 0x41...0x46: Int(byte - 0x41 + 10)
            case 0x61...0x66: Int(byte - 0x61 + 10)
            default: nil
            }
        }
        var parts: [Int] = []
        if bytes.count == 7, bytes[0] == UInt8(ascii: "#") {
            for index in stride(from: 1, to: 7, by: 2) {
                guard let high = hex(bytes[index]), let low = hex(bytes[index + 1]) else { return nil }
                parts.append(high * 16 + low)
            }
        } else if text.hasPrefix("rgb("), text.hasSuffix(")") {
            let numbers = text.utf8.dropFirst(4).dropLast().split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
            guard numbers.count == 3 else { return nil }
            for number in numbers {
                let digits = number.drop { $0 == 0x20 }.reversed().drop { $0 == 0x20 }.reversed()
                guard (1...3).contains(digits.count), digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
                let value = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
                guard value <= 255 else { return nil }
                parts.append(value)
            }
        } else {
            return nil
        }
        return "rgb(\(parts[0]), \(parts[1]), \(parts[2]))"
    }

    /// Writes the colours and the logo text into a rendered pass.json (the text goes in after
    /// rendering, so braces in it are never read as placeholders).
    func applyLook(to pass: inout JSONValue) {
        guard case .object(var root) = pass else { return }
        if let value = backgroundColor.flatMap(Self.color) { root["backgroundColor"] = .string(value) }
        if let value = foregroundColor.flatMap(Self.color) { root["foregroundColor"] = .string(value) }
        if let value = labelColor.flatMap(Self.color) { root["labelColor"] = .string(value) }
        if let logoText { root["logoText"] = .string(logoText) }
        pass = .object(root)
    }
}

extension Template {
    /// This template with `images` (by kind: file name → PNG, e.g. `logo@2x.png`) in place of its
    /// own files of those kinds, localized ones included (Wallet would prefer a localized logo over
    /// the design's). Build it once per design and reuse it: the files are hashed and deflated here.
    public func designed(images: [PassImageKind: [String: [UInt8]]]) throws(PassBundleError) -> Template {
        guard !images.isEmpty else { return self }
        var files = sourceFiles.filter { path, _ in
            guard let kind = PassImageKind(path: path) else { return true }
            return images[kind] == nil
        }
        for (kind, set) in images {
            for (name, bytes) in set {
                guard PassImageKind(path: name) == kind, !name.contains("/") else {
                    throw PassBundleError(.invalidTemplate, "image file \(name) is not a \(kind.rawValue) image")
                }
                files[name] = bytes
            }
        }
        return try Template(name: name, files: files)
    }
}
