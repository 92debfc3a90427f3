import CPostgres

/// The bind values of one statement in the shape `PQprepare` and `PQexecPrepared` take.
///
/// Every value is copied once into one buffer (text NUL-terminated, bytes as they are), instead of
/// one allocation per value. Text goes in libpq's text format, which ends at the first NUL byte, so
/// a string holding NUL is refused here rather than silently cut short.
struct PGParameters {
    /// Type OIDs given to `PQprepare`: int8, float8, text, bytea, or 0 (inferred) for NULL.
    private(set) var types: [Oid] = []
    private(set) var lengths: [Int32] = []
    private(set) var formats: [Int32] = []
    /// One letter per parameter kind. Part of the prepared statement's key, because the types are
    /// fixed when a statement is prepared: the same text with NULL instead of a value is another
    /// statement, exactly as `PQexecParams` would have typed it.
    private(set) var signature = ""
    /// Where each value starts in `storage`; `nil` is SQL NULL.
    private var offsets: [Int?] = []
    /// Starts with one byte so that the buffer always has an address, even for empty values.
    private var storage: [UInt8] = [0]

    var count: Int32 { Int32(types.count) }

    init(_ binds: [SQLValue]) throws {
        types.reserveCapacity(binds.count)
        lengths.reserveCapacity(binds.count)
        formats.reserveCapacity(binds.count)
        offsets.reserveCapacity(binds.count)
        signature.reserveCapacity(binds.count)
        for (index, bind) in binds.enumerated() {
            switch bind {
            case .null:
                offsets.append(nil)
                append(type: 0, length: 0, format: 0, letter: "n")
            case .integer(let value):
                appendText(String(value))
                append(type: 20, length: 0, format: 0, letter: "i")
            case .real(let value):
                appendText(String(value))
                append(type: 701, length: 0, format: 0, letter: "r")
            case .text(let value):
                guard !value.containsNUL else {
                    throw StorageError(.invalidValue, "text values must not contain NUL characters (parameter \(index + 1))")
                }
                appendText(value)
                append(type: 25, length: 0, format: 0, letter: "t")
            case .bytes(let bytes):
                // Binary format: the bytes go as they are, no escaping, NUL and non-UTF-8 included.
                guard let length = Int32(exactly: bytes.count) else {
                    throw StorageError(.invalidValue, "a byte value is too large (parameter \(index + 1))")
                }
                offsets.append(storage.count)
                storage.append(contentsOf: bytes)
                append(type: 17, length: length, format: 1, letter: "b")
            }
        }
    }

    private mutating func appendText(_ text: String) {
        offsets.append(storage.count)
        storage.append(contentsOf: text.utf8)
        storage.append(0)
    }

    private mutating func append(type: Oid, length: Int32, format: Int32, letter: Character) {
        types.append(type)
        lengths.append(length)
        formats.append(format)
        signature.append(letter)
    }

    /// Calls `body` with one pointer per value (nil for NULL), valid only during the call.
    func withValues<T>(_ body: ([UnsafePointer<CChar>?]) throws -> T) rethrows -> T {
        try storage.withUnsafeBytes { buffer in
            let values = offsets.map { offset -> UnsafePointer<CChar>? in
                guard let offset, let base = buffer.baseAddress else { return nil }
                return (base + offset).assumingMemoryBound(to: CChar.self)
            }
            return try body(values)
        }
    }
}
