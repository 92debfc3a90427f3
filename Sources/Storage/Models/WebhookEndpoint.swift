public import Foundation

/// Where webhooks go: a URL, the types sent there, and whether it is enabled. The signing secret
/// is derived from TOKEN_SECRET and `secretNonce` by the application; it is not stored.
public struct WebhookEndpoint: Sendable, Equatable {
    /// A random opaque identifier (22 base62 characters).
    public var id: String
    public var url: String
    /// The organizer's note of what it is (`Box office CRM`).
    public var description: String
    public var eventTypes: Set<WebhookEventType>
    /// Random; a new one (rotation) gives a new secret.
    public var secretNonce: String
    public var enabled: Bool
    public var disabledAt: Date?
    /// Why it was disabled: by an admin, or after failing for too long.
    public var disabledReason: String?
    public var createdAt: Date
    public var updatedAt: Date
    /// The last delivery answered 2xx.
    public var lastSuccessAt: Date?
    /// While every attempt since the last 2xx failed: when the first of them failed.
    public var failingSince: Date?
    /// The last failed attempt's status or error, while failing.
    public var lastFailure: String?

    static let columns = SQLQuery(unsafeRaw: """
        id, url, description, event_types, secret_nonce, enabled, disabled_at, disabled_reason, created_at, updated_at, \
        last_success_at, failing_since, last_failure
        """)

    init(row: SQLRow) throws {
        id = try row.string("id")
        url = try row.string("url")
        description = try row.string("description")
        eventTypes = Self.types(try row.string("event_types"))
        secretNonce = try row.string("secret_nonce")
        enabled = try row.int("enabled") != 0
        disabledAt = try row.optionalDate("disabled_at")
        disabledReason = try row.optionalString("disabled_reason")
        createdAt = try row.date("created_at")
        updatedAt = try row.date("updated_at")
        lastSuccessAt = try row.optionalDate("last_success_at")
        failingSince = try row.optionalDate("failing_since")
        lastFailure = try row.optionalString("last_failure")
    }

    /// `event_types` as stored: the raw values, sorted, comma-separated.
    static func text(_ types: Set<WebhookEventType>) -> String {
        types.sorted().map(\.rawValue).joined(separator: ",")
    }

    /// The stored list read back; a type this version does not know is left out.
    static func types(_ text: String) -> Set<WebhookEventType> {
        Set(text.split(separator: ",").compactMap { WebhookEventType(rawValue: String($0)) })
    }
}

/// The fields of an endpoint to create.
public struct NewWebhookEndpoint: Sendable, Equatable {
    public var url: String
    public var description: String
    public var eventTypes: Set<WebhookEventType>
    public var secretNonce: String

    public init(url: String, description: String, eventTypes: Set<WebhookEventType>, secretNonce: String) {
        self.url = url
        self.description = description
        self.eventTypes = eventTypes
        self.secretNonce = secretNonce
    }
}

/// A change to an endpoint; nil leaves a field as it is.
public struct WebhookEndpointChange: Sendable, Equatable {
    public var url: String?
    public var description: String?
    public var eventTypes: Set<WebhookEventType>?

    public init(url: String? = nil, description: String? = nil, eventTypes: Set<WebhookEventType>? = nil) {
        self.url = url
        self.description = description
        self.eventTypes = eventTypes
    }
}
