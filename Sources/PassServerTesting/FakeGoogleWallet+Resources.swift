// The fake's REST routes for event ticket classes and objects: insert, get, patch (patch
// semantics: the top-level fields sent replace the stored ones) and addMessage, each behind a
// bearer token, with Google's status codes and error bodies.

import Foundation
import HTTPServer

extension FakeGoogleWallet {
    enum Action {
        case insert, get, patch, addMessage

        var method: String {
            switch self {
            case .insert, .addMessage: "POST"
            case .get: "GET"
            case .patch: "PATCH"
            }
        }
    }

    /// The states an object may be in.
    static let states: Set<String> = ["ACTIVE", "COMPLETED", "EXPIRED", "INACTIVE"]

    func handle(_ request: Request, kind: Kind, action: Action) throws -> Response {
        guard authorized(request) else {
            record(request, kind: kind, status: 401)
            return Self.googleError(
                401, "UNAUTHENTICATED",
                "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
                reason: "authError"
            )
        }
        if let failure = takeFailure(method: action.method, kind: kind) {
            return scriptedAnswer(failure, to: request, kind: kind)
        }
        let (response, notifying) = answer(request, kind: kind, action: action)
        record(request, kind: kind, status: response.status, notifying: notifying)
        return response
    }

    private func authorized(_ request: Request) -> Bool {
        guard let header = request.headers["Authorization"], header.hasPrefix("Bearer ") else { return false }
        let token = String(header.dropFirst("Bearer ".count))
        return state.withLock { state in
            guard let expiry = state.tokens[token] else { return false }
            return expiry > Date()
        }
    }

    private func answer(_ request: Request, kind: Kind, action: Action) -> (Response, Bool) {
        let id = request.parameters["id"] ?? ""
        switch action {
        case .get:
            guard let stored = stored(kind, id) else { return (notFound(kind, id), false) }
            return (Response(status: 200, headers: ["Content-Type": "application/json; charset=UTF-8"], body: stored), false)
        case .insert:
            guard let object = Self.parse(request.body) else { return (Self.invalid("Invalid JSON payload received."), false) }
            let id = object["id"] as? String ?? ""
            if let problem = validate(object, kind: kind, requireAll: true) { return (Self.invalid(problem), false) }
            let exists = state.withLock { kind == .eventTicketClass ? $0.classes[id] != nil : $0.objects[id] != nil }
            if exists {
                return (Self.googleError(409, "ALREADY_EXISTS", "Resource with id \(id) already exists.", reason: "duplicate"), false)
            }
            var resource = object
            resource["kind"] = "walletobjects#\(kind.rawValue)"
            return (store(resource, kind: kind, id: id), false)
        case .patch:
            guard let current = stored(kind, id).flatMap(Self.parse) else { return (notFound(kind, id), false) }
            guard let changes = Self.parse(request.body) else { return (Self.invalid("Invalid JSON payload received."), false) }
            if let changedID = changes["id"] as? String, changedID != id {
                return (Self.invalid("The id in the body (\(changedID)) differs from the id in the path (\(id))."), false)
            }
            var merged = current
            for (key, value) in changes { merged[key] = value }
            if let problem = validate(merged, kind: kind, requireAll: false) { return (Self.invalid(problem), false) }
            let notifying = ["NOTIFY_ON_UPDATE", "notifyOnUpdate"].contains(changes["notifyPreference"] as? String ?? "")
            return (store(merged, kind: kind, id: id), notifying)
        case .addMessage:
            guard let current = stored(kind, id).flatMap(Self.parse) else { return (notFound(kind, id), false) }
            guard let body = Self.parse(request.body), let message = body["message"] as? [String: Any] else {
                return (Self.invalid("addMessage needs a message."), false)
            }
            guard message["header"] is String || message["body"] is String else { return (Self.invalid("A message needs a header or a body."), false) }
            let type = message["messageType"] as? String ?? "TEXT"
            guard ["TEXT", "TEXT_AND_NOTIFY", "EXPIRATION_NOTIFICATION"].contains(type) else {
                return (Self.invalid("Invalid messageType: \(type)."), false)
            }
            var merged = current
            merged["messages"] = (current["messages"] as? [Any] ?? []) + [message]
            let stored = store(merged, kind: kind, id: id)
            guard stored.status == 200 else { return (stored, false) }
            return (Self.jsonResponse(["resource": merged]), type == "TEXT_AND_NOTIFY")
        }
    }

    /// Why `resource` cannot be kept: a bad id, no existing class, a bad state; nil when it can.
    private func validate(_ resource: [String: Any], kind: Kind, requireAll: Bool) -> String? {
        guard let id = resource["id"] as? String, isValidID(id) else {
            return "Invalid resource id: \(resource["id"] as? String ?? "(none)"). It must be \(issuerID).<suffix>, the suffix letters, digits, '.', '_' or '-'."
        }
        guard kind == .eventTicketObject else {
            if requireAll, resource["eventName"] == nil { return "eventName is required." }
            return nil
        }
        guard let classID = resource["classId"] as? String else { return "classId is required." }
        guard state.withLock({ $0.classes[classID] != nil }) else { return "The class \(classID) does not exist." }
        guard let objectState = resource["state"] as? String, Self.states.contains(objectState) else {
            return "Invalid state: \(resource["state"] as? String ?? "(none)"). It must be ACTIVE, COMPLETED, EXPIRED or INACTIVE."
        }
        return nil
    }

    private func isValidID(_ id: String) -> Bool {
        let prefix = "\(issuerID)."
        guard id.hasPrefix(prefix), id.utf8.count <= 255 else { return false }
        let suffix = id.utf8.dropFirst(prefix.utf8.count)
        return !suffix.isEmpty && suffix.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
            case UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"): true
            default: false
            }
        }
    }

    private func stored(_ kind: Kind, _ id: String) -> [UInt8]? {
        state.withLock { kind == .eventTicketClass ? $0.classes[id] : $0.objects[id] }
    }

    private func store(_ resource: [String: Any], kind: Kind, id: String) -> Response {
        let response = Self.jsonResponse(resource)
        state.withLock { state in
            if kind == .eventTicketClass { state.classes[id] = response.body } else { state.objects[id] = response.body }
        }
        return response
    }

    private func notFound(_ kind: Kind, _ id: String) -> Response {
        Self.googleError(404, "NOT_FOUND", "Resource \(kind.rawValue) \(id) not found.", reason: "resourceNotFound")
    }

    private static func invalid(_ message: String) -> Response {
        googleError(400, "INVALID_ARGUMENT", message, reason: "invalid")
    }

    private static func parse(_ bytes: [UInt8]) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
    }
}
