/// A SQL statement whose values are bind parameters.
///
/// Write queries with string interpolation; every interpolated value becomes a parameter
/// (`$1` on PostgreSQL, `?1` on SQLite) and is never spliced into the text:
///
///     let query: SQLQuery = "SELECT * FROM passes WHERE serial_number = \(serial)"
///
/// SQL text that is not a literal in the source must be spelled out as such with
/// `SQLQuery(unsafeRaw:)` or `\(unsafeRaw: …)`; interpolating another `SQLQuery` appends it.
public struct SQLQuery: Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    enum Part: Sendable {
        case sql(String)
        case bind(SQLValue)
    }

    var parts: [Part]

    /// Raw SQL text, trusted as is. Never pass text that came from outside the program.
    public init(unsafeRaw sql: String) {
        parts = [.sql(sql)]
    }

    public init(stringLiteral value: String) {
        parts = [.sql(value)]
    }

    public init(stringInterpolation: StringInterpolation) {
        parts = stringInterpolation.parts
    }

    /// Builds interpolated queries: literals are SQL, interpolations are bind parameters.
    public struct StringInterpolation: StringInterpolationProtocol {
        var parts: [Part] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            parts.reserveCapacity(interpolationCount * 2 + 1)
        }

        public mutating func appendLiteral(_ literal: String) {
            parts.append(.sql(literal))
        }

        /// A value, bound as a parameter.
        public mutating func appendInterpolation(_ value: some SQLBindable) {
            parts.append(.bind(value.sqlValue))
        }

        /// An optional value; `nil` binds SQL NULL.
        public mutating func appendInterpolation(_ value: (some SQLBindable)?) {
            parts.append(.bind(value?.sqlValue ?? .null))
        }

        /// Another query, appended with its own parameters.
        public mutating func appendInterpolation(_ query: SQLQuery) {
            parts.append(contentsOf: query.parts)
        }

        /// Raw SQL text (identifiers, keywords chosen by the program).
        public mutating func appendInterpolation(unsafeRaw sql: String) {
            parts.append(.sql(sql))
        }
    }

    /// Appends another query (text and parameters).
    public mutating func append(_ other: SQLQuery) {
        parts.append(contentsOf: other.parts)
    }

    /// Joins queries with a raw separator such as `", "`.
    public static func joined(_ queries: [SQLQuery], separator: String) -> SQLQuery {
        var result = SQLQuery(unsafeRaw: "")
        for (index, query) in queries.enumerated() {
            if index > 0 { result.parts.append(.sql(separator)) }
            result.append(query)
        }
        return result
    }

    /// `(v1, v2, …)` with each value bound, for `IN`; `(NULL)` (matching nothing) when empty.
    static func list(_ values: [some SQLBindable]) -> SQLQuery {
        guard !values.isEmpty else { return "(NULL)" }
        let items: [SQLQuery] = values.map { "\($0)" }
        return "(\(joined(items, separator: ", ")))"
    }

    /// The SQL text with placeholders and the values to bind, checked for what the databases refuse.
    func render(for dialect: SQLDialect) throws -> (sql: String, binds: [SQLValue]) {
        var sql = ""
        var binds: [SQLValue] = []
        for part in parts {
            switch part {
            case .sql(let text):
                sql += text
            case .bind(let value):
                if case .text(let string) = value, string.containsNUL {
                    throw StorageError(.invalidValue, "text values must not contain NUL characters (parameter \(binds.count + 1))")
                }
                binds.append(value)
                sql.append(dialect == .postgres ? "$" : "?")
                sql.append(String(binds.count))
            }
        }
        return (sql, binds)
    }

    /// The SQL text with placeholders only; bound values are never shown.
    public var description: String {
        var text = ""
        var index = 0
        for part in parts {
            switch part {
            case .sql(let sql): text += sql
            case .bind: index += 1; text += "$\(index)"
            }
        }
        return text
    }
}

/// Which SQL flavour a connection speaks.
enum SQLDialect: Sendable {
    case postgres
    case sqlite

    /// `postgres` on PostgreSQL, `sqlite` on SQLite: whatever the two spell differently.
    func pick<Spelling>(postgres: Spelling, sqlite: Spelling) -> Spelling {
        self == .postgres ? postgres : sqlite
    }
}
