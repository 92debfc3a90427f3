import Foundation

/// The ticket and event a webhook event keeps as they were: their columns as a JSON object,
/// written in SQL by the statement that made the change (`json_build_object`, `json_object`), and
/// read back into the same `StoredPass` and `Event` a query returns. Token hashes, served
/// revisions and the event's design are not kept (no webhook shows them).
enum WebhookSnapshot {
    static let ticketColumns = [
        "id", "pass_type_identifier", "serial_number", "download_nonce", "event_id", "attendee_name", "attendee_email", "seat",
        "external_id", "extra", "status", "void_reason", "revision", "modified_at", "created_at", "language", "checked_in_at",
    ]
    static let eventColumns = [
        "id", "name", "venue", "starts_at", "ends_at", "time_zone", "template", "revision", "created_at", "updated_at", "archived_at",
        "language", "deleting_at", "erased_at",
    ]

    /// The JSON text of `columns` of the row `alias` (NULL when the row is missing, as in a left join).
    static func expression(_ alias: String, columns: [String], dialect: SQLDialect) -> SQLQuery {
        let pairs = columns.map { "'\($0)', \(alias).\($0)" }.joined(separator: ", ")
        let object = dialect.pick(postgres: "CAST(json_build_object(\(pairs)) AS TEXT)", sqlite: "json_object(\(pairs))")
        return SQLQuery(unsafeRaw: "CASE WHEN \(alias).id IS NULL THEN NULL ELSE \(object) END")
    }

    static func ticket(from json: String) throws -> StoredPass {
        var row = try Self.row(json, what: "ticket")
        row += [("authentication_token_hash", .bytes([])), ("download_token_hash", .bytes([])), ("served_revision", .null), ("served_at", .null)]
        return try StoredPass(row: SQLRow(columns: row.map(\.0), values: row.map(\.1)))
    }

    static func event(from json: String) throws -> Event {
        var row = try Self.row(json, what: "event")
        row += [("design", .null)]
        return try Event(row: SQLRow(columns: row.map(\.0), values: row.map(\.1)))
    }

    /// A flat JSON object of integers, strings and nulls, as a row's columns.
    private static func row(_ json: String, what: String) throws -> [(String, SQLValue)] {
        let object: [String: Scalar]
        do {
            object = try JSONDecoder().decode([String: Scalar].self, from: Data(json.utf8))
        } catch {
            throw StorageError(.backend, "a webhook event's \(what) is not a flat JSON object", underlying: error)
        }
        return object.map { ($0.key, $0.value.value) }
    }

    private struct Scalar: Decodable {
        var value: SQLValue

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                value = .null
            } else if let number = try? container.decode(Int64.self) {
                value = .integer(number)
            } else {
                value = .text(try container.decode(String.self))
            }
        }
    }
}
