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

    /// `text` as pass.json's `rgb(r, g, b)`, from `#rrggbb` or `rgb(r, g, b)`; nil when it is neither.
    public static func color(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        var parts: [Int] = []
        if trimmed.hasPrefix("#"), trimmed.utf8.count == 7 {
            let hex = Array(trimmed.utf8.dropFirst())
            for index in stride(from: 0, to: 6, by: 2) {
                guard let value = Int(String(decoding: hex[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
                parts.append(value)
            }
        } else if trimmed.hasPrefix("rgb("), trimmed.hasSuffix(")") {
            let inner = trimmed.dropFirst(4).dropLast()
            let numbers = inner.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard numbers.count == 3 else { return nil }
            for number in numbers {
                guard number.utf8.count <= 3, let value = Int(number), (0...255).contains(value) else { return nil }
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
