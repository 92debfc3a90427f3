import Foundation

extension PassDesignerTemplate {
    /// Reads and checks the files of a Pass Designer template, collecting every problem
    /// (`issues`: the template is refused) and every remark (`notes`: it is imported anyway).
    struct Reader {
        /// The files still to go into the template; pass.json, tooling.json and generated files
        /// are taken out as they are read.
        var files: [String: [UInt8]]
        var issues: [PassBundleError.Issue] = []
        var notes: [String] = []
        var passJSON: JSONValue = .object([:])
        var tooling: Tooling?
        var fields: [Field] = []

        init(files: [String: [UInt8]]) { self.files = files }

        mutating func fail(_ key: String, _ problem: String) { issues.append(.init(key: key, problem: problem)) }

        mutating func read() {
            for path in files.keys.sorted() {
                if let problem = ZipReader.pathProblem(path) { fail(path, problem) }
            }
            readTooling()
            dropGeneratedFiles()
            if readPassJSON(), case .object(let root) = passJSON {
                readStyle(root)
                readBarcodes(root)
                if root["nfc"] != nil {
                    notes.append("nfc was removed: NFC entry is part of an event's design (on a server set up for NFC), and a template's message would be the same on every pass")
                }
            }
            readIcon()
            readImages()
            readStrings()
        }

        /// `tooling.json` is optional; when present it must be an object with the documented types.
        private mutating func readTooling() {
            guard let bytes = files.removeValue(forKey: "tooling.json") else { return }
            let root: JSONValue
            switch JSONProblem.parse(bytes) {
            case .problem(let problem): return fail("tooling.json", problem)
            case .value(let value): root = value
            }
            guard case .object(let members) = root else { return fail("tooling.json", "must be a JSON object") }
            var tooling = Tooling()
            for key in ["designerVersion", "builderVersion"] {
                let version: String?
                switch members[key] {
                case nil, .null?: version = nil
                case .string(let text)?: version = text
                case .number(let number)?: version = JSONValue.format(number)
                default:
                    fail("tooling.json", "\(key) must be a version (a text or a number)")
                    continue
                }
                if key == "designerVersion" { tooling.designerVersion = version } else { tooling.builderVersion = version }
            }
            switch members["automaticallyGenerateCompatiblePass"] {
            case nil, .null?: break
            case .bool(let flag)?: tooling.automaticallyGenerateCompatiblePass = flag
            default: fail("tooling.json", "automaticallyGenerateCompatiblePass must be true or false")
            }
            self.tooling = tooling
        }

        /// Files that PassServer makes itself, or that mean something else in its own templates.
        private mutating func dropGeneratedFiles() {
            for generated in ["manifest.json", "signature"] where files.removeValue(forKey: generated) != nil {
                notes.append("\(generated) was dropped: PassServer makes it for every pass")
            }
            if files.removeValue(forKey: TemplateField.fileName) != nil {
                notes.append("\(TemplateField.fileName) was dropped: the import declares the extra fields the mapping names")
            }
            let mail = files.keys.filter { $0.hasPrefix(Template.mailFolder) }
            if !mail.isEmpty {
                for path in mail { files[path] = nil }
                notes.append("the files under \(Template.mailFolder) were dropped: they are no part of a pass")
            }
        }

        /// Parses pass.json; false when it is missing or broken.
        private mutating func readPassJSON() -> Bool {
            guard let bytes = files.removeValue(forKey: "pass.json") else {
                fail("template", "has no pass.json")
                return false
            }
            switch JSONProblem.parse(bytes) {
            case .problem(let problem):
                fail("pass.json", problem)
                return false
            case .value(let value):
                passJSON = value
            }
            guard case .object = passJSON else {
                fail("pass.json", "must be a JSON object")
                return false
            }
            return true
        }

        /// The pass must be an event ticket, with classic fields for phones without posters.
        private mutating func readStyle(_ root: [String: JSONValue]) {
            let styles = ["eventTicket", "boardingPass", "coupon", "generic", "storeCard", "posterGeneric"].filter { root[$0] != nil }
            guard styles.contains("eventTicket") else {
                return fail("pass.json", styles.isEmpty
                    ? "has no pass style: PassServer issues event tickets (eventTicket)"
                    : "is a \(styles.joined(separator: " and ")) pass: PassServer issues event tickets (eventTicket) only")
            }
            if styles.count > 1 { fail("pass.json", "has the styles \(styles.joined(separator: ", ")): PassServer issues one, eventTicket") }
            guard case .object(let ticket)? = root["eventTicket"] else { return fail("eventTicket", "must be an object") }
            readFields(ticket)
            guard let schemes = root["preferredStyleSchemes"] else { return }
            let items: [JSONValue] = if case .array(let items) = schemes { items } else { [] }
            let names = items.compactMap { item -> String? in if case .string(let name) = item { name } else { nil } }
            guard case .array = schemes, names.count == items.count else {
                return fail("preferredStyleSchemes", "must be an array of style names")
            }
            guard names.contains("posterEventTicket") else { return }
            let classic: [Section] = [.header, .primary, .secondary, .auxiliary]
            if !names.contains("eventTicket") {
                fail("preferredStyleSchemes", "asks for a poster event ticket only: it must also list eventTicket, the classic ticket that phones without posters show")
            } else if !fields.contains(where: { classic.contains($0.section) }) {
                fail("eventTicket", "is poster-only: it has no header, primary, secondary or auxiliary fields, so phones without poster tickets would show an empty pass")
            } else {
                notes.append("the pass asks for a poster event ticket (iOS 26 and later) with the classic ticket for other phones; what a poster needs besides (semantic tags, artwork, NFC) is not checked here")
            }
        }

        /// Every field dictionary of the event ticket's sections.
        private mutating func readFields(_ ticket: [String: JSONValue]) {
            var keys = Set<String>()
            for section in Section.allCases {
                guard let group = ticket[section.jsonKey] else { continue }
                guard case .array(let items) = group else {
                    fail("eventTicket.\(section.jsonKey)", "must be an array of fields")
                    continue
                }
                for (index, item) in items.enumerated() {
                    let path = "eventTicket.\(section.jsonKey)[\(index)]"
                    guard case .object(let members) = item else {
                        fail(path, "must be a field dictionary")
                        continue
                    }
                    guard case .string(let key)? = members["key"], !key.isEmpty else {
                        fail(path, "has no key")
                        continue
                    }
                    guard keys.insert(key).inserted else {
                        fail(path, "uses the key \"\(key)\" of another field")
                        continue
                    }
                    let label: String? = if case .string(let text)? = members["label"] { text } else { nil }
                    let value = members["value"]
                    let isDate = members["dateStyle"] != nil || members["timeStyle"] != nil
                        || { if case .string(let text)? = value { PassDefinition.isISO8601WithZone(text) } else { false } }()
                    fields.append(Field(section: section, index: index, key: key, label: label, sampleValue: value, isDate: isDate,
                                        suggestedSource: FieldSource.guess(key: key, label: label)))
                }
            }
            if fields.contains(where: { $0.key == PassDesignerTemplate.cancellationKey }) {
                notes.append("a field has the key \(PassDesignerTemplate.cancellationKey): the reason a ticket was cancelled is not added to the back of the pass")
            }
        }

        /// Barcodes are rewritten with the ticket's message; a pass without one gets a QR code.
        private mutating func readBarcodes(_ root: [String: JSONValue]) {
            if root["barcodes"] == nil && root["barcode"] == nil {
                notes.append("the pass has no barcode: a QR code with the ticket's barcode message is added (check-in scans it)")
            }
            for key in ["barcodes", "barcode"] {
                switch (key, root[key]) {
                case (_, nil), ("barcodes", .array?), ("barcode", .object?): continue
                default: fail(key, key == "barcodes" ? "must be an array of barcode dictionaries" : "must be a barcode dictionary")
                }
            }
            if case .array(let items)? = root["barcodes"] {
                for (index, item) in items.enumerated() {
                    guard case .object = item else { return fail("barcodes[\(index)]", "must be a barcode dictionary") }
                }
            }
        }

        /// Wallet requires an icon; a template with only the @2x or @3x one gets that as icon.png.
        private mutating func readIcon() {
            guard files["icon.png"] == nil else { return }
            guard let scaled = ["icon@2x.png", "icon@3x.png"].first(where: { files[$0] != nil }) else {
                return fail("template", "has no icon (icon.png, icon@2x.png or icon@3x.png): Wallet requires one")
            }
            files["icon.png"] = files[scaled]
            notes.append("icon.png was missing: \(scaled) serves as icon.png too")
        }

        /// Wallet's images must be PNG files.
        private mutating func readImages() {
            let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            for (path, bytes) in files.sorted(by: { $0.key < $1.key }) where path.lowercased().hasSuffix(".png") && !bytes.starts(with: signature) {
                fail(path, "is not a PNG image")
            }
        }

        /// Every `pass.strings` must be text PassServer can add its own keys to.
        private mutating func readStrings() {
            for (path, bytes) in files.sorted(by: { $0.key < $1.key }) where path.hasSuffix(".lproj/pass.strings") && PassStrings.decode(bytes) == nil {
                fail(path, "is neither UTF-8 nor UTF-16 text")
            }
        }
    }

    /// The key of the back field that says why a ticket was cancelled (`TicketData.cancellationField`).
    static let cancellationKey = "cancellation"
}
