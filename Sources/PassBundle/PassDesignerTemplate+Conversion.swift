import Foundation

extension PassDesignerTemplate {
    /// The PassServer template made from this one, its fields filled as `mapping` says.
    ///
    /// `mapping` names fields by key; a field it leaves out keeps the designer's value. The
    /// result's pass.json is the designer's with these changes, and nothing else changes:
    /// - a mapped field's `value` becomes the source's placeholder (its `attributedValue`, a
    ///   sample too, is removed); a field mapped to a date keeps its date and time styles and its
    ///   `ignoresTimeZone` (and gets a medium date and a short time when it has no style), one
    ///   mapped to text loses the date and number styles; dates are written with the offset of
    ///   the event's time zone, never moved to UTC;
    /// - the identity keys are always PassServer's: `passTypeIdentifier`, `teamIdentifier`,
    ///   `serialNumber`, `authenticationToken`, `webServiceURL`, `voided`, the barcodes' `message`
    ///   and `altText`; so are `description`, `relevantDate`, `expirationDate`, `relevantDates`
    ///   and the per-ticket semantic tags (`ticketValues` lists what was replaced); a pass without
    ///   a barcode gets a QR code and `nfc` is removed;
    /// - the back starts with the cancellation reason of a cancelled ticket;
    /// - every other key, known or not, stays as it is.
    ///
    /// The files are the designer's images and other files (tooling.json dropped), each
    /// localization's `pass.strings` with the texts of PassServer's own values added, and a
    /// `fields.json` declaring the extra fields the mapping names, as text. The template is tried
    /// on two sample tickets before it is returned, so a template that would make passes Wallet
    /// refuses (a colour not written `rgb(…)`, a date without a zone, `{{text}}` in a kept value)
    /// is refused here, with every problem.
    public func template(name: String, mapping: [String: FieldSource]) throws(PassBundleError) -> Template {
        guard !name.isEmpty, name.count <= 100, !name.contains("/"), !name.contains("\\"), !name.hasPrefix(".") else {
            throw PassBundleError(.invalidTemplate, "invalid template name \(name)")
        }
        var issues: [PassBundleError.Issue] = []
        let keys = Set(fields.map(\.key))
        for (key, source) in mapping.sorted(by: { $0.key < $1.key }) {
            if !keys.contains(key) { issues.append(.init(key: "mapping.\(key)", problem: "the template has no field with this key")) }
            if case .extra(let extra) = source, let problem = Self.extraNameProblem(extra) {
                issues.append(.init(key: "mapping.\(key)", problem: problem))
            }
        }
        guard issues.isEmpty else {
            throw PassBundleError(.invalidTemplate, "the field mapping is invalid: " + issues.map(\.description).joined(separator: "; "), issues: issues)
        }
        var files = PassStrings.adding(to: self.files)
        files["pass.json"] = rewrittenPassJSON(mapping).serialized
        let extras = Set(mapping.values.compactMap { source -> String? in if case .extra(let name) = source { name } else { nil } })
        if !extras.isEmpty {
            let declarations = extras.sorted().map { JSONValue.object(["name": .string($0), "type": .string("string")]) }
            files[TemplateField.fileName] = JSONValue.object(["fields": .array(declarations)]).serialized
        }
        let template = try Template(name: name, files: files)
        try Self.tryOut(template)
        return template
    }

    /// The per-pass keys at the top level and what PassServer writes instead (nil: removed).
    private static let ownedKeys: [(key: String, replacement: JSONValue?)] = [
        ("passTypeIdentifier", .string("{{passTypeIdentifier}}")), ("teamIdentifier", .string("{{teamIdentifier}}")), ("serialNumber", .string("{{serialNumber}}")),
        ("authenticationToken", .string("{{authenticationToken}}")), ("webServiceURL", .string("{{webServiceURL}}")), ("voided", .string("{{voided}}")),
        ("description", .string("{{description}}")), ("relevantDate", .string("{{relevantDate}}")), ("expirationDate", .string("{{expirationDate}}")),
        // One relevant moment, the start, gone for a cancelled ticket (the entry empties and disappears).
        ("relevantDates", .array([.object(["date": .string("{{relevantDate}}")])])),
        ("nfc", nil),
    ]

    /// The semantic tags that describe one ticket, and PassServer's values for them.
    private static let semanticKeys: [(key: String, replacement: JSONValue)] = [
        ("eventName", .string("{{eventName}}")), ("venueName", .string("{{venue}}")), ("eventStartDate", .string("{{startsAt}}")), ("eventEndDate", .string("{{endsAt}}")),
        ("attendeeName", .string("{{attendeeName}}")), ("seats", .array([.object(["seatIdentifier": .string("{{seat}}")])])),
    ]

    /// The barcode keys PassServer writes.
    private static let barcodeKeys: [(key: String, replacement: JSONValue)] = [("message", .string("{{barcodeMessage}}")), ("altText", .string("{{barcodeAltText}}"))]

    /// The barcode a pass without one gets: what the check-in scanner reads.
    private static let defaultBarcode: JSONValue = .object([
        "format": .string("PKBarcodeFormatQR"), "message": .string("{{barcodeMessage}}"),
        "messageEncoding": .string("iso-8859-1"), "altText": .string("{{barcodeAltText}}"),
    ])

    /// The designer's per-pass values that `rewrittenPassJSON` replaces.
    static func ticketValues(in passJSON: JSONValue) -> [TicketValue] {
        guard case .object(let root) = passJSON else { return [] }
        var values: [TicketValue] = []
        for (key, replacement) in ownedKeys {
            if let sample = root[key] { values.append(TicketValue(path: key, sampleValue: sample, replacement: replacement)) }
        }
        if case .array(let barcodes)? = root["barcodes"] {
            for (index, barcode) in barcodes.enumerated() {
                guard case .object(let members) = barcode else { continue }
                for (key, replacement) in barcodeKeys {
                    if let sample = members[key] { values.append(TicketValue(path: "barcodes[\(index)].\(key)", sampleValue: sample, replacement: replacement)) }
                }
            }
        }
        if case .object(let members)? = root["barcode"] {
            for (key, replacement) in barcodeKeys {
                if let sample = members[key] { values.append(TicketValue(path: "barcode.\(key)", sampleValue: sample, replacement: replacement)) }
            }
        }
        if case .object(let semantics)? = root["semantics"] {
            for (key, replacement) in semanticKeys {
                if let sample = semantics[key] { values.append(TicketValue(path: "semantics.\(key)", sampleValue: sample, replacement: replacement)) }
            }
        }
        return values
    }

    /// pass.json with PassServer's placeholders (see `template(name:mapping:)`).
    func rewrittenPassJSON(_ mapping: [String: FieldSource]) -> JSONValue {
        guard case .object(var root) = passJSON else { return passJSON }
        for (key, replacement) in Self.ownedKeys where replacement != nil || root[key] != nil {
            // relevantDates only replaces the designer's; the other keys are always written.
            if key == "relevantDates" && root[key] == nil { continue }
            root[key] = replacement
        }
        if case .array(let barcodes)? = root["barcodes"] {
            root["barcodes"] = .array(barcodes.map(Self.rewrittenBarcode))
        }
        if let legacy = root["barcode"] {
            root["barcode"] = Self.rewrittenBarcode(legacy)
            if root["barcodes"] == nil { root["barcodes"] = .array([Self.rewrittenBarcode(legacy)]) }
        }
        if root["barcodes"] == nil { root["barcodes"] = .array([Self.defaultBarcode]) }
        if case .object(var semantics)? = root["semantics"] {
            for (key, replacement) in Self.semanticKeys where semantics[key] != nil { semantics[key] = replacement }
            root["semantics"] = .object(semantics)
        }
        if case .object(var ticket)? = root["eventTicket"] {
            for section in Section.allCases {
                guard case .array(let items)? = ticket[section.jsonKey] else { continue }
                ticket[section.jsonKey] = .array(items.map { item in
                    guard case .object(let field) = item, case .string(let key)? = field["key"], let source = mapping[key] else { return item }
                    return .object(Self.rewrittenField(field, source))
                })
            }
            if !fields.contains(where: { $0.key == Self.cancellationKey }) {
                let back: [JSONValue] = if case .array(let items)? = ticket[Section.back.jsonKey] { items } else { [] }
                ticket[Section.back.jsonKey] = .array([.string("{{cancellationField}}")] + back)
            }
            root["eventTicket"] = .object(ticket)
        }
        return .object(root)
    }

    private static func rewrittenBarcode(_ barcode: JSONValue) -> JSONValue {
        guard case .object(var members) = barcode else { return barcode }
        for (key, replacement) in barcodeKeys { members[key] = replacement }
        if members["messageEncoding"] == nil { members["messageEncoding"] = .string("iso-8859-1") }
        return .object(members)
    }

    private static func rewrittenField(_ given: [String: JSONValue], _ source: FieldSource) -> [String: JSONValue] {
        guard let placeholder = source.placeholder else { return given }
        var field = given
        field["value"] = .string(placeholder)
        field["attributedValue"] = nil
        field["numberStyle"] = nil
        field["currencyCode"] = nil
        if source.isDate {
            if field["dateStyle"] == nil && field["timeStyle"] == nil {
                field["dateStyle"] = .string("PKDateStyleMedium")
                field["timeStyle"] = .string("PKDateStyleShort")
            }
        } else {
            for key in ["dateStyle", "timeStyle", "isRelative", "ignoresTimeZone"] { field[key] = nil }
        }
        return field
    }

    /// Why `name` cannot name an extra field (the rules of `fields.json`), or nil: a form offers
    /// `extra.<key>` for a field whose key can.
    public static func extraNameProblem(_ name: String) -> String? {
        let bytes = Array(name.utf8)
        func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
        guard let first = bytes.first, bytes.count <= 32, isLetter(first), bytes.allSatisfy({ isLetter($0) || (0x30...0x39).contains($0) }) else {
            return "the extra field name \"\(name)\" must be a letter followed by at most 31 letters or digits"
        }
        if TemplateField.reservedNames.contains(name) { return "the extra field name \"\(name)\" is reserved" }
        return nil
    }

    /// Renders and validates `template` for a valid ticket with every optional value and for a
    /// cancelled one without them, and refuses it with every problem found.
    static func tryOut(_ template: Template) throws(PassBundleError) {
        let passType = "pass.com.example.imported"
        let team = "EXAMPLE123"
        let extra = Dictionary(uniqueKeysWithValues: template.fields.map { ($0.name, "Sample") })
        let full = TicketData(
            serialNumber: "SAMPLE-1", authenticationToken: "sample-token-0123456789", webServiceURL: "https://passes.example.com/",
            organizationName: "Example", description: "Sample ticket", eventName: "Sample event", venue: "Sample venue",
            startsAt: Date(timeIntervalSince1970: 1_800_000_000), endsAt: Date(timeIntervalSince1970: 1_800_010_800), timeZone: "Europe/Paris",
            attendeeName: "Sample attendee", seat: "A-1", extra: extra
        )
        var bare = full
        bare.seat = nil
        bare.endsAt = nil
        bare.cancelled = true
        bare.extra = [:]
        var issues: [PassBundleError.Issue] = []
        for ticket in [full, bare] {
            do {
                let values = try ticket.templateValues(passTypeIdentifier: passType, teamIdentifier: team)
                let definition = try PassDefinition.decode(try template.render(values))
                issues += definition.validationIssues(passTypeIdentifier: passType, teamIdentifier: team, options: ValidationOptions())
            } catch {
                issues += error.issues.isEmpty ? [.init(key: "pass.json", problem: error.message)] : error.issues
            }
        }
        var seen = Set<String>()
        issues = issues.filter { seen.insert($0.description).inserted }
        guard issues.isEmpty else {
            throw PassBundleError(.invalidTemplate, "the imported template would make passes Wallet refuses: " + issues.map(\.description).joined(separator: "; "), issues: issues)
        }
    }
}
