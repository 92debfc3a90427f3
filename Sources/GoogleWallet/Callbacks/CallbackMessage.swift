public import Foundation

/// A verified save or delete callback: what Google's signed message says.
public struct CallbackMessage: Sendable, Equatable {
    public enum EventType: String, Sendable {
        case save
        case delete = "del"
    }

    public var classID: String
    public var objectID: String
    public var eventType: EventType
    /// Google's id of this delivery: retries carry the same one.
    public var nonce: String
    /// After this the message is no longer accepted.
    public var expiresAt: Date

    public init(classID: String, objectID: String, eventType: EventType, nonce: String, expiresAt: Date) {
        self.classID = classID
        self.objectID = objectID
        self.eventType = eventType
        self.nonce = nonce
        self.expiresAt = expiresAt
    }
}
