import Foundation
import HTTPServer
import PassBundle
import Storage

/// Webhook endpoints as the admin API shows them (`WebhookEndpoints`, docs/webhooks.md): list and
/// read them with their delivery logs (viewer), register, change, disable, enable, rotate the
/// secret, delete, and redeliver (admin). The secret is in the answers to the creation and to a
/// rotation only.
extension AdminController {
    /// `GET /admin/v1/webhooks`: every endpoint, newest first, and the types this server offers.
    func listWebhooks(_ request: Request) throws -> Response {
        .json(WebhookListBody(items: try webhooks.list().map { WebhookEndpointBody($0) }, eventTypes: webhooks.eventTypes.map(\.rawValue)), encoder: .api)
    }

    /// `POST /admin/v1/webhooks`: `{"url", "eventTypes": [...], "description"}`; 201 with the
    /// endpoint and its `secret` (shown only now).
    func createWebhook(_ request: Request) throws -> Response {
        var input = try AdminInput(request, allowed: ["url", "eventTypes", "description"])
        let url = input.string("url", maxLength: WebhookTargets.maxURLLength).value
        let types = input.strings("eventTypes")
        let description = input.string("description", maxLength: WebhookEndpoints.maxDescriptionLength).value
        // Every problem at once: what the body's shape got wrong and what the endpoint's rules find.
        let created = try webhooks.create(
            url: url, description: description, eventTypes: types, unreadable: input.unreadable
        )
        logger.info("webhook endpoint created", ["webhook.endpoint": created.endpoint.id, "request.id": request.requestID])
        var body = WebhookEndpointBody(created.endpoint)
        body.secret = created.secret
        return .json(body, status: 201, encoder: .api)
    }

    /// `GET /admin/v1/webhooks/{endpointId}`.
    func showWebhook(_ request: Request) throws -> Response {
        .json(WebhookEndpointBody(try webhooks.endpoint(id: request.parameters["endpointId"])), encoder: .api)
    }

    /// `PATCH /admin/v1/webhooks/{endpointId}`: any of `url`, `eventTypes`, `description`,
    /// `enabled` (false disables it and holds its waiting deliveries; true enables it again).
    func updateWebhook(_ request: Request) throws -> Response {
        var input = try AdminInput(request, allowed: ["url", "eventTypes", "description", "enabled"])
        let url = input.string("url", maxLength: WebhookTargets.maxURLLength).value
        let types = input.strings("eventTypes")
        let description = input.string("description", maxLength: WebhookEndpoints.maxDescriptionLength).value
        let enabled = input.boolean("enabled").value
        try input.validate()
        let endpoint = try webhooks.update(
            id: request.parameters["endpointId"], url: url, description: description, eventTypes: types, enabled: enabled, unreadable: input.unreadable
        )
        logger.info("webhook endpoint changed", ["webhook.endpoint": endpoint.id, "enabled": "\(endpoint.enabled)", "request.id": request.requestID])
        return .json(WebhookEndpointBody(endpoint), encoder: .api)
    }

    /// `DELETE /admin/v1/webhooks/{endpointId}`: 204; its delivery log goes with it.
    func deleteWebhook(_ request: Request) throws -> Response {
        try AdminInput(request, allowed: [], bodyRequired: false).validate()
        try webhooks.delete(id: request.parameters["endpointId"])
        logger.info("webhook endpoint deleted", ["webhook.endpoint": request.parameters["endpointId"] ?? "", "request.id": request.requestID])
        return Response(status: 204)
    }

    /// `POST /admin/v1/webhooks/{endpointId}/secret`: a new secret (the old one stops signing at
    /// once); 200 with the endpoint and its new `secret` (shown only now).
    func rotateWebhookSecret(_ request: Request) throws -> Response {
        try AdminInput(request, allowed: [], bodyRequired: false).validate()
        let rotated = try webhooks.rotateSecret(id: request.parameters["endpointId"])
        logger.info("webhook secret rotated", ["webhook.endpoint": rotated.endpoint.id, "request.id": request.requestID])
        var body = WebhookEndpointBody(rotated.endpoint)
        body.secret = rotated.secret
        return .json(body, encoder: .api)
    }

    /// `GET /admin/v1/webhooks/{endpointId}/deliveries?cursor=&limit=`: the delivery log, newest first.
    func listWebhookDeliveries(_ request: Request) throws -> Response {
        let endpoint = try webhooks.endpoint(id: request.parameters["endpointId"])
        let limit: Int?
        if let text = request.query["limit"] {
            guard let number = Int(text) else { throw OrganizerError.invalid("limit", "must be between 1 and 200") }
            limit = number
        } else {
            limit = nil
        }
        let page = try webhooks.deliveries(of: endpoint, before: request.query["cursor"], limit: limit)
        return .json(WebhookDeliveryListBody(items: page.deliveries.map(WebhookDeliveryBody.init), nextCursor: page.next), encoder: .api)
    }

    /// `POST /admin/v1/webhooks/{endpointId}/deliveries/{deliveryId}/redeliver`: 202 with the new
    /// delivery of the same webhook event (the same id and body).
    func redeliverWebhook(_ request: Request) throws -> Response {
        try AdminInput(request, allowed: [], bodyRequired: false).validate()
        let endpoint = try webhooks.endpoint(id: request.parameters["endpointId"])
        let delivery = try webhooks.redeliver(endpoint, deliveryID: request.parameters["deliveryId"])
        logger.info("webhook redelivered", ["webhook.endpoint": endpoint.id, "webhook.delivery": "\(delivery.id)", "request.id": request.requestID])
        return .json(WebhookDeliveryBody(delivery), status: 202, encoder: .api)
    }
}

extension AdminInput {
    /// An array of strings, each at most 64 Unicode scalars, at most 64 of them.
    mutating func strings(_ field: String) -> [String]? {
        guard let value = value(field) else { return nil }
        guard case .array(let items) = value, items.count <= 64 else {
            problem(field, "must be an array of at most 64 strings")
            return nil
        }
        var strings: [String] = []
        for item in items {
            guard case .string(let text) = item, text.unicodeScalars.count <= 64 else {
                problem(field, "must be an array of strings of at most 64 characters")
                return nil
            }
            strings.append(text)
        }
        return strings
    }
}

/// A webhook endpoint as the admin API shows it.
struct WebhookEndpointBody: Encodable {
    var id: String
    var url: String
    var description: String
    var eventTypes: [String]
    var enabled: Bool
    var disabledAt: String?
    /// Why it was disabled (by an admin, or after failing for too long).
    var disabledReason: String?
    var createdAt: String
    var updatedAt: String
    var lastSuccessAt: String?
    /// While every attempt since the last 2xx failed: since when, and the last failure.
    var failingSince: String?
    var lastFailure: String?
    /// `whsec_…`, in the answer to the creation and to a rotation only.
    var secret: String?

    init(_ endpoint: WebhookEndpoint) {
        id = endpoint.id
        url = endpoint.url
        description = endpoint.description
        eventTypes = endpoint.eventTypes.sorted().map(\.rawValue)
        enabled = endpoint.enabled
        disabledAt = endpoint.disabledAt.map { ISODate.format($0) }
        disabledReason = endpoint.disabledReason
        createdAt = ISODate.format(endpoint.createdAt)
        updatedAt = ISODate.format(endpoint.updatedAt)
        lastSuccessAt = endpoint.lastSuccessAt.map { ISODate.format($0) }
        failingSince = endpoint.failingSince.map { ISODate.format($0) }
        lastFailure = endpoint.lastFailure
    }
}

struct WebhookListBody: Encodable {
    var items: [WebhookEndpointBody]
    /// The types endpoints may subscribe to on this server.
    var eventTypes: [String]
}

/// One delivery of an endpoint's log.
struct WebhookDeliveryBody: Encodable {
    var id: String
    /// The webhook event's id (`evt_…`), the same in every delivery of it.
    var webhookId: String
    var type: String
    /// `pending`, `delivered`, `failed` or `held`.
    var state: String
    var attempts: Int
    var createdAt: String
    /// While pending: when it is tried (again).
    var nextAttemptAt: String?
    var lastAttemptAt: String?
    /// The last attempt's HTTP status; 0 when no answer came.
    var lastStatus: Int?
    /// What went wrong last, while not delivered.
    var lastError: String?
    var latencyMs: Int?

    init(_ delivery: WebhookDelivery) {
        id = String(delivery.id)
        webhookId = delivery.publicID
        type = delivery.type
        state = delivery.state.rawValue
        attempts = delivery.attempts
        createdAt = ISODate.format(delivery.createdAt)
        nextAttemptAt = delivery.state == .pending ? ISODate.format(delivery.nextAttemptAt) : nil
        lastAttemptAt = delivery.lastAttemptAt.map { ISODate.format($0) }
        lastStatus = delivery.lastStatus
        lastError = delivery.state == .delivered ? nil : delivery.lastReason
        latencyMs = delivery.latencyMilliseconds
    }
}

struct WebhookDeliveryListBody: Encodable {
    var items: [WebhookDeliveryBody]
    var nextCursor: String?
}
