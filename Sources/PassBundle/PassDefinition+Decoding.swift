/// Reads a rendered pass.json tree into the typed model.
///
/// Written out by hand rather than through `Decodable`: this runs for every pass built, and the
/// generic Codable machinery (existential containers, coding-path arrays) cost more than
/// rendering and validating together. Problems are reported as issues naming the key path the
/// way the validator does (`barcodes[0].format`, `eventTicket.primaryFields[1].value`); the path
/// is assembled only when something fails, as the failure travels back up.
extension PassDefinition {
    init(tree: JSONValue) throws(PassBundleError.Issue) {
        do {
            self = try PassDefinition(object: tree)
        } catch {
            throw error.issue
        }
    }

    private init(object tree: JSONValue) throws(DecodingFailure) {
        let root = try ObjectReader(tree)
        formatVersion = try root.required("formatVersion", ObjectReader.integer)
        passTypeIdentifier = try root.required("passTypeIdentifier", ObjectReader.string)
        serialNumber = try root.required("serialNumber", ObjectReader.string)
        teamIdentifier = try root.required("teamIdentifier", ObjectReader.string)
        organizationName = try root.required("organizationName", ObjectReader.string)
        description = try root.required("description", ObjectReader.string)
        webServiceURL = try root.optional("webServiceURL", ObjectReader.string)
        authenticationToken = try root.optional("authenticationToken", ObjectReader.string)
        logoText = try root.optional("logoText", ObjectReader.string)
        foregroundColor = try root.optional("foregroundColor", ObjectReader.string)
        backgroundColor = try root.optional("backgroundColor", ObjectReader.string)
        labelColor = try root.optional("labelColor", ObjectReader.string)
        relevantDate = try root.optional("relevantDate", ObjectReader.string)
        expirationDate = try root.optional("expirationDate", ObjectReader.string)
        voided = try root.optional("voided", ObjectReader.boolean)
        sharingProhibited = try root.optional("sharingProhibited", ObjectReader.boolean)
        groupingIdentifier = try root.optional("groupingIdentifier", ObjectReader.string)
        barcodes = try root.optional("barcodes") { (value) throws(DecodingFailure) in
            try ObjectReader.array(value) { (item) throws(DecodingFailure) in
                let barcode = try ObjectReader(item)
                return Barcode(
                    format: try barcode.required("format", ObjectReader.string),
                    message: try barcode.required("message", ObjectReader.string),
                    messageEncoding: try barcode.required("messageEncoding", ObjectReader.string),
                    altText: try barcode.optional("altText", ObjectReader.string)
                )
            }
        }
        eventTicket = try root.optional("eventTicket", Structure.init)
        boardingPass = try root.optional("boardingPass", Structure.init)
        coupon = try root.optional("coupon", Structure.init)
        generic = try root.optional("generic", Structure.init)
        storeCard = try root.optional("storeCard", Structure.init)
        semantics = try root.optional("semantics", Semantics.init)
    }
}

extension PassDefinition.Structure {
    fileprivate init(tree: JSONValue) throws(DecodingFailure) {
        let reader = try ObjectReader(tree)
        func fields(_ key: String) throws(DecodingFailure) -> [PassDefinition.Field]? {
            try reader.optional(key) { (value) throws(DecodingFailure) in
                try ObjectReader.array(value, PassDefinition.Field.init)
            }
        }
        headerFields = try fields("headerFields")
        primaryFields = try fields("primaryFields")
        secondaryFields = try fields("secondaryFields")
        auxiliaryFields = try fields("auxiliaryFields")
        backFields = try fields("backFields")
    }
}

extension PassDefinition.Field {
    fileprivate init(tree: JSONValue) throws(DecodingFailure) {
        let reader = try ObjectReader(tree)
        key = try reader.required("key", ObjectReader.string)
        value = try reader.required("value") { (value) throws(DecodingFailure) in
            switch value {
            case .string(let text): return .string(text)
            case .number(let number): return .number(number)
            default: throw ObjectReader.mismatch(value, expected: "a string or a number")
            }
        }
        label = try reader.optional("label", ObjectReader.string)
        changeMessage = try reader.optional("changeMessage", ObjectReader.string)
        dateStyle = try reader.optional("dateStyle", ObjectReader.string)
        timeStyle = try reader.optional("timeStyle", ObjectReader.string)
        ignoresTimeZone = try reader.optional("ignoresTimeZone", ObjectReader.boolean)
        textAlignment = try reader.optional("textAlignment", ObjectReader.string)
    }
}

extension PassDefinition.Semantics {
    fileprivate init(tree: JSONValue) throws(DecodingFailure) {
        let reader = try ObjectReader(tree)
        eventName = try reader.optional("eventName", ObjectReader.string)
        venueName = try reader.optional("venueName", ObjectReader.string)
        eventStartDate = try reader.optional("eventStartDate", ObjectReader.string)
        eventEndDate = try reader.optional("eventEndDate", ObjectReader.string)
        attendeeName = try reader.optional("attendeeName", ObjectReader.string)
        seats = try reader.optional("seats") { (value) throws(DecodingFailure) in
            try ObjectReader.array(value) { (item) throws(DecodingFailure) in
                let seat = try ObjectReader(item)
                return PassDefinition.Seat(
                    seatIdentifier: try seat.optional("seatIdentifier", ObjectReader.string),
                    seatRow: try seat.optional("seatRow", ObjectReader.string),
                    seatSection: try seat.optional("seatSection", ObjectReader.string),
                    seatNumber: try seat.optional("seatNumber", ObjectReader.string)
                )
            }
        }
    }
}

/// A problem and the path to it, innermost step first while it travels up.
private struct DecodingFailure: Error {
    enum Step {
        case key(String)
        case index(Int)
    }

    var steps: [Step] = []
    let problem: String

    func within(_ step: Step) -> DecodingFailure {
        var copy = self
        copy.steps.append(step)
        return copy
    }

    var issue: PassBundleError.Issue {
        let path = steps.reversed().reduce("") { text, step in
            switch step {
            case .index(let index): text + "[\(index)]"
            case .key(let key): text.isEmpty ? key : text + "." + key
            }
        }
        return PassBundleError.Issue(key: path.isEmpty ? "pass.json" : path, problem: problem)
    }
}

/// The members of one JSON object.
private struct ObjectReader {
    typealias Failure = DecodingFailure

    let members: [String: JSONValue]

    init(_ value: JSONValue) throws(Failure) {
        guard case .object(let members) = value else { throw Self.mismatch(value, expected: "an object") }
        self.members = members
    }

    /// The value under `key`, converted by `read`; a missing key is a failure.
    func required<T>(_ key: String, _ read: (JSONValue) throws(Failure) -> T) throws(Failure) -> T {
        guard let value = members[key] else { throw Failure(steps: [.key(key)], problem: "required key is missing") }
        do {
            return try read(value)
        } catch {
            throw error.within(.key(key))
        }
    }

    /// The value under `key`, converted by `read`; nil when it is missing or null.
    func optional<T>(_ key: String, _ read: (JSONValue) throws(Failure) -> T) throws(Failure) -> T? {
        guard let value = members[key] else { return nil }
        if case .null = value { return nil }
        do {
            return try read(value)
        } catch {
            throw error.within(.key(key))
        }
    }

    static func string(_ value: JSONValue) throws(Failure) -> String {
        guard case .string(let text) = value else { throw mismatch(value, expected: "a string") }
        return text
    }

    static func boolean(_ value: JSONValue) throws(Failure) -> Bool {
        guard case .bool(let flag) = value else { throw mismatch(value, expected: "a boolean") }
        return flag
    }

    static func integer(_ value: JSONValue) throws(Failure) -> Int {
        guard case .number(let number) = value else { throw mismatch(value, expected: "an integer") }
        guard let exact = Int(exactly: number) else { throw Failure(problem: "\(number) is not an integer") }
        return exact
    }

    static func array<T>(_ value: JSONValue, _ read: (JSONValue) throws(Failure) -> T) throws(Failure) -> [T] {
        guard case .array(let items) = value else { throw mismatch(value, expected: "an array") }
        var result: [T] = []
        result.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            do {
                result.append(try read(item))
            } catch {
                throw error.within(.index(index))
            }
        }
        return result
    }

    static func mismatch(_ value: JSONValue, expected: String) -> Failure {
        if case .null = value { return Failure(problem: "is null (expected \(expected))") }
        return Failure(problem: "has the wrong type (expected \(expected))")
    }
}
