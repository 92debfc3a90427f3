extension CSV {
    /// One record of a CSV text.
    struct Record: Equatable {
        /// The record's number, the first record (a header) being 1. A line break inside a quoted
        /// field does not start a record, so this is the row number a spreadsheet shows.
        var number: Int
        var fields: [String]

        /// Whether every field is empty (an empty line, or a spreadsheet's blank row `,,,`).
        var isBlank: Bool { fields.allSatisfy(\.isEmpty) }
    }

    /// Why a CSV text cannot be read: the record where the problem is, and the problem.
    struct ParseError: Error, Equatable, CustomStringConvertible {
        var row: Int
        var message: String
        var description: String { "row \(row): \(message)" }
    }

    /// Every record of `bytes` (see `Parser`).
    static func records(_ bytes: some Sequence<UInt8>) throws -> [Record] {
        var records: [Record] = []
        var parser = Parser()
        try parser.parse(bytes) { records.append($0) }
        try parser.finish { records.append($0) }
        return records
    }

    /// An incremental RFC 4180 parser: bytes go in, in chunks of any size, and each record comes
    /// out as soon as it is complete, so a caller can stop early and never holds more than one
    /// record besides its input.
    ///
    /// - Fields are separated by commas; records end with CRLF, LF or a lone CR.
    /// - A field starting with a double quote is quoted: it runs to the next single quote and may
    ///   hold commas, line breaks and doubled quotes (`""` is one `"`). A comma, a line break or
    ///   the end must follow its closing quote.
    /// - A quote inside an unquoted field is an error: RFC 4180 requires such a field to be quoted.
    /// - A UTF-8 byte order mark at the very start is skipped; every field must be valid UTF-8.
    /// - The last record needs no line break; a text that ends inside a quoted field is an error
    ///   naming the record where that field starts.
    struct Parser {
        private enum State {
            case fieldStart, unquoted, quoted, quoteInQuoted, afterCR
        }

        private var state = State.fieldStart
        private var field: [UInt8] = []
        private var fields: [String] = []
        private var record = 1
        /// The first bytes, held until it is known whether they are a byte order mark.
        private var leading: [UInt8] = []
        private var pastLeading = false

        init() {}

        /// Parses the next bytes, calling `emit` for every record they complete.
        mutating func parse(_ bytes: some Sequence<UInt8>, _ emit: (Record) throws -> Void) throws {
            for byte in bytes {
                if pastLeading {
                    try step(byte, emit)
                    continue
                }
                leading.append(byte)
                if leading.count < CSV.byteOrderMark.count, CSV.byteOrderMark.starts(with: leading) { continue }
                try replayLeading(emit)
            }
        }

        /// Ends the text: emits the last record if it had no line break.
        mutating func finish(_ emit: (Record) throws -> Void) throws {
            if !pastLeading { try replayLeading(emit) }
            switch state {
            case .quoted:
                throw ParseError(row: record, message: "a quoted field is not closed (a \" is missing)")
            case .unquoted, .quoteInQuoted:
                try endRecord(emit)
            case .fieldStart where !fields.isEmpty:
                try endRecord(emit)
            case .fieldStart, .afterCR:
                break
            }
            state = .fieldStart
        }

        private mutating func replayLeading(_ emit: (Record) throws -> Void) throws {
            pastLeading = true
            let bytes = leading == CSV.byteOrderMark ? [] : leading
            leading = []
            for byte in bytes { try step(byte, emit) }
        }

        private mutating func step(_ byte: UInt8, _ emit: (Record) throws -> Void) throws {
            switch state {
            case .afterCR:
                state = .fieldStart
                if byte == CSV.lineFeed { return }
                try step(byte, emit)
            case .fieldStart:
                switch byte {
                case CSV.quote: state = .quoted
                case CSV.comma: try endField()
                case CSV.carriageReturn: try endRecord(emit); state = .afterCR
                case CSV.lineFeed: try endRecord(emit)
                default: field.append(byte); state = .unquoted
                }
            case .unquoted:
                switch byte {
                case CSV.comma: try endField(); state = .fieldStart
                case CSV.carriageReturn: try endRecord(emit); state = .afterCR
                case CSV.lineFeed: try endRecord(emit); state = .fieldStart
                case CSV.quote:
                    throw ParseError(row: record, message: "a \" inside an unquoted field (quote the whole field and double the \")")
                default: field.append(byte)
                }
            case .quoted:
                if byte == CSV.quote { state = .quoteInQuoted } else { field.append(byte) }
            case .quoteInQuoted:
                switch byte {
                case CSV.quote: field.append(byte); state = .quoted
                case CSV.comma: try endField(); state = .fieldStart
                case CSV.carriageReturn: try endRecord(emit); state = .afterCR
                case CSV.lineFeed: try endRecord(emit); state = .fieldStart
                default:
                    throw ParseError(row: record, message: "a closing \" must be followed by a comma or a line break")
                }
            }
        }

        private mutating func endField() throws {
            guard let text = String(validating: field, as: UTF8.self) else {
                throw ParseError(row: record, message: "field \(fields.count + 1) is not valid UTF-8")
            }
            fields.append(text)
            field.removeAll(keepingCapacity: true)
        }

        private mutating func endRecord(_ emit: (Record) throws -> Void) throws {
            try endField()
            let complete = Record(number: record, fields: fields)
            fields.removeAll(keepingCapacity: true)
            record += 1
            try emit(complete)
        }
    }
}
