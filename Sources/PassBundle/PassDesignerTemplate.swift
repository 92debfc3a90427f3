/// A template saved by Apple's Pass Designer (a `.pkpasstemplate` folder), read and checked so it
/// can become a PassServer `Template`.
///
/// The folder holds a complete `pass.json` whose values are the designer's samples ("John
/// Appleseed", a date in 2027), an optional `tooling.json` naming the tools that wrote it, and the
/// images (`icon`, `logo`, `strip` … at @1x, @2x and @3x), perhaps localized under `<lang>.lproj/`.
/// Third parties upload it as a zip of the folder: `init(archive:limits:)` accepts the files at the
/// archive's root or under one top folder (`Gala.pkpasstemplate/pass.json`).
///
/// Reading checks what PassServer needs and refuses the template with every reason at once
/// (`PassBundleError.issues`): a pass.json that is missing, not JSON or not an event ticket, a
/// missing icon, an image that is not a PNG, an unreadable `tooling.json`. What it finds is listed
/// for a form: `fields` (every field with its sample and the source its key and label suggest),
/// `ticketValues` (the values that differ on every pass, which PassServer always writes itself)
/// and `notes` (what the import changes or leaves unchecked). `template(name:mapping:)` then
/// turns it into a `Template` whose fields show the ticket's data.
public struct PassDesignerTemplate: Sendable {
    /// A group of fields of an event ticket, named as Wallet names them without `Fields`.
    public enum Section: String, Sendable, CaseIterable {
        case header, primary, secondary, auxiliary, back
        /// The extra-information fields of a poster event ticket.
        case additionalInfo

        /// The key of the group inside `eventTicket` (`primaryFields`).
        public var jsonKey: String { rawValue + "Fields" }
    }

    /// One field dictionary of the designer's pass.
    public struct Field: Sendable, Equatable {
        public let section: Section
        /// The field's position within its section.
        public let index: Int
        /// The field's `key` (unique within the pass).
        public let key: String
        /// The label as given: a text or a `pass.strings` key; nil without one.
        public let label: String?
        /// The designer's sample value; nil when the field has none.
        public let sampleValue: JSONValue?
        /// Whether Wallet shows the value as a date (the field has a date or time style, or its
        /// sample is an ISO 8601 date).
        public let isDate: Bool
        /// What the key and label suggest the field shows (`FieldSource.guess`).
        public let suggestedSource: FieldSource

        /// Where the field is in pass.json: `eventTicket.primaryFields[0]`.
        public var path: String { "eventTicket.\(section.jsonKey)[\(index)]" }
    }

    /// A value of the designer's pass that differs on every pass by nature (its serial number,
    /// its barcode's message …): PassServer writes its own in its place.
    public struct TicketValue: Sendable, Equatable {
        /// Where it is in pass.json: `serialNumber`, `barcodes[0].message`, `semantics.attendeeName`.
        public let path: String
        /// The designer's sample.
        public let sampleValue: JSONValue
        /// What the imported template holds instead (a `{{placeholder}}`); nil when it is removed.
        public let replacement: JSONValue?

        public init(path: String, sampleValue: JSONValue, replacement: JSONValue?) {
            self.path = path
            self.sampleValue = sampleValue
            self.replacement = replacement
        }
    }

    /// `tooling.json`: which versions of Apple's tools wrote the template.
    public struct Tooling: Sendable, Equatable {
        /// The version of Pass Designer that saved the template (a number is kept as its text).
        public var designerVersion: String?
        /// The version of Apple's pass builder the template was made for.
        public var builderVersion: String?
        /// Whether the designer asked its builder to derive a pass for older phones.
        public var automaticallyGenerateCompatiblePass: Bool?

        public init(designerVersion: String? = nil, builderVersion: String? = nil, automaticallyGenerateCompatiblePass: Bool? = nil) {
            self.designerVersion = designerVersion
            self.builderVersion = builderVersion
            self.automaticallyGenerateCompatiblePass = automaticallyGenerateCompatiblePass
        }
    }

    /// The name of the archive's top folder without `.pkpasstemplate` (`Gala`), nil when the files
    /// were at the root: a suggestion for the template's name.
    public let folderName: String?
    /// pass.json as the designer wrote it.
    public let passJSON: JSONValue
    /// `tooling.json`, when the template has one.
    public let tooling: Tooling?
    /// Every field of the event ticket, section by section in Wallet's order.
    public let fields: [Field]
    /// The per-pass values found, each with what replaces it.
    public let ticketValues: [TicketValue]
    /// The image files (`icon.png`, `en.lproj/logo@2x.png` …), sorted.
    public let images: [String]
    /// What the import does that the designer may not expect, in sentences.
    public let notes: [String]
    /// Every file that goes on into the template, by path: pass.json and tooling.json excluded.
    let files: [String: [UInt8]]

    /// The paths of the files that go on into the template (images, localizations, others), sorted.
    public var filePaths: [String] { files.keys.sorted() }

    /// Each field's key with the source its key and label suggest: a form's starting point.
    public var defaultMapping: [String: FieldSource] {
        Dictionary(fields.map { ($0.key, $0.suggestedSource) }, uniquingKeysWith: { first, _ in first })
    }

    /// Reads a zip of the template folder (or of its contents).
    public init(archive: [UInt8], limits: ArchiveLimits = ArchiveLimits()) throws(PassBundleError) {
        let (files, folder) = Self.rootFolder(try ZipReader.files(archive, limits: limits))
        try self.init(files: files, folderName: folder)
    }

    /// Reads the template from its files, by path relative to the folder. Hidden files and
    /// `__MACOSX/` are ignored.
    public init(files given: [String: [UInt8]], folderName: String? = nil) throws(PassBundleError) {
        var reader = Reader(files: given.filter { !ZipReader.isJunk($0.key) })
        reader.read()
        let title = folderName.map { "Pass Designer template \($0)" } ?? "the Pass Designer template"
        guard reader.issues.isEmpty else {
            throw PassBundleError(.invalidTemplate, "\(title) is refused: " + reader.issues.map(\.description).joined(separator: "; "), issues: reader.issues)
        }
        self.folderName = folderName.map { name in
            name.lowercased().hasSuffix(Self.folderExtension) ? String(name.dropLast(Self.folderExtension.count)) : name
        }
        passJSON = reader.passJSON
        tooling = reader.tooling
        fields = reader.fields
        ticketValues = Self.ticketValues(in: reader.passJSON)
        images = reader.files.keys.filter(Self.isImage).sorted()
        notes = reader.notes
        files = reader.files
    }

    /// The extension of a Pass Designer template folder.
    static let folderExtension = ".pkpasstemplate"

    /// The image names Wallet reads, at every scale.
    static let imageNames: Set<String> = Set(
        ["icon", "logo", "primaryLogo", "secondaryLogo", "strip", "thumbnail", "background", "artwork", "footer"]
            .flatMap { name in ["", "@2x", "@3x"].map { name + $0 + ".png" } }
    )

    /// Whether `path` is one of Wallet's images, at the root or in a localization.
    static func isImage(_ path: String) -> Bool {
        let components = path.split(separator: "/")
        guard let last = components.last, imageNames.contains(String(last)) else { return false }
        return components.count == 1 || (components.count == 2 && components[0].hasSuffix(".lproj"))
    }

    /// Strips the top folder (up to three levels of them) when every file is under it and there
    /// is no pass.json above it; returns the last folder stripped.
    static func rootFolder(_ given: [String: [UInt8]]) -> (files: [String: [UInt8]], folder: String?) {
        var files = given
        var folder: String?
        for _ in 0..<3 where files["pass.json"] == nil {
            guard let top = files.keys.first?.split(separator: "/").first.map(String.init),
                  files.keys.allSatisfy({ $0.hasPrefix(top + "/") }) else { break }
            files = Dictionary(uniqueKeysWithValues: files.map { (String($0.key.dropFirst(top.count + 1)), $0.value) })
            folder = top
        }
        return (files, folder)
    }
}
