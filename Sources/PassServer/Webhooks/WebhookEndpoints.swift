import ByteEncoding
import Certificates
import Foundation
import HTTPClient
import Storage

/// The organizers' webhook endpoints, as the admin API and the dashboard manage them: register
/// one (a URL, the types it wants, a note), see its secret once, change it, disable and enable
/// it, rotate its secret, delete it; read its delivery log and redeliver a delivery.
///
/// A URL is checked when it is registered, changed or enabled again (`WebhookTargets`: https to
/// public addresses unless WEBHOOK_ALLOW_PRIVATE_TARGETS; the host must resolve, and to allowed
/// addresses only), and again before every delivery. The secret (`whsec_…`) is derived from
/// TOKEN_SECRET and a random nonce kept with the endpoint: it is shown in the answer to the
/// creation and to a rotation, and never again.
struct WebhookEndpoints: Sendable {
    let store: any Store
    let vault: TokenVault
    let targets: WebhookTargets
    /// Whether Google Wallet is on: its types may be subscribed to only then.
    var googleWallet = false
    /// Called after deliveries were queued (a redelivery, an endpoint enabled): wakes the dispatcher.
    var queued: @Sendable () -> Void = {}
    var now: @Sendable () -> Date = Date.init
    var resolve: @Sendable (String) throws(HTTPClientError) -> [IPAddress] = { host throws(HTTPClientError) in try HTTPClient.resolve(host) }

    /// Endpoints one server keeps at most.
    static let maxEndpoints = 50
    static let maxDescriptionLength = 200

    /// An endpoint and its secret, in the answer to its creation or a rotation only.
    struct WithSecret: Sendable {
        var endpoint: WebhookEndpoint
        var secret: String
    }

    /// The types an endpoint may subscribe to here, in the documented order.
    var eventTypes: [WebhookEventType] {
        WebhookEventType.allCases.filter { googleWallet || !$0.needsGoogleWallet }
    }

    /// Registers an endpoint; its secret is in the answer.
    func create(url: String?, description: String?, eventTypes: [String]?, unreadable: [OrganizerError.Issue] = []) throws -> WithSecret {
        var issues = unreadable
        let reported = Set(unreadable.map(\.field))
        let target = reported.contains("url") ? nil : check(url: url, required: true, &issues)
        let description = check(description: description, &issues) ?? ""
        let types = reported.contains("eventTypes") ? nil : check(types: eventTypes, required: true, &issues)
        guard let target, let types, issues.isEmpty else { throw OrganizerError.invalid(issues) }
        let url = try resolved(target)
        let nonce = Self.newNonce()
        let endpoint = try store.withSession(.write) { session -> WebhookEndpoint? in
            guard try session.webhooks.webhookEndpoints().count < Self.maxEndpoints else { return nil }
            return try session.webhooks.createWebhookEndpoint(NewWebhookEndpoint(url: url, description: description, eventTypes: types, secretNonce: nonce), now: now())
        }
        guard let endpoint else {
            throw OrganizerError.conflict(code: "too_many_webhook_endpoints", message: "This server has \(Self.maxEndpoints) webhook endpoints; delete some first.")
        }
        return WithSecret(endpoint: endpoint, secret: try vault.webhookSecret(endpointID: endpoint.id, nonce: nonce))
    }

    /// Every endpoint, newest first.
    func list() throws -> [WebhookEndpoint] {
        try store.withSession(.read) { try $0.webhooks.webhookEndpoints() }
    }

    /// The endpoint `id`; `notFound` when there is none.
    func endpoint(id: String?) throws -> WebhookEndpoint {
        guard let id, AdminIdentifiers.isPlausible(id), let endpoint = try store.withSession(.read, { try $0.webhooks.webhookEndpoint(id: id) }) else {
            throw OrganizerError.notFound("No such webhook endpoint.")
        }
        return endpoint
    }

    /// Changes what is given (nil leaves it); `enabled` false disables it (its waiting deliveries
    /// are held), true enables it again (its URL is checked again, its held deliveries go).
    func update(
        id: String?, url: String?, description: String?, eventTypes: [String]?, enabled: Bool?, unreadable: [OrganizerError.Issue] = []
    ) throws -> WebhookEndpoint {
        let current = try endpoint(id: id)
        var issues = unreadable
        var target = check(url: url, required: false, &issues)
        let newDescription = check(description: description, &issues)
        let types = check(types: eventTypes, required: false, &issues)
        if enabled == true && !current.enabled && target == nil && url == nil {
            // Enabled again: the URL must pass the checks of today.
            target = check(url: current.url, required: true, &issues)
        }
        guard issues.isEmpty else { throw OrganizerError.invalid(issues) }
        let checked = try target.map(resolved)
        let newURL = url == nil ? nil : checked
        let time = now()
        let updated = try store.transaction { session -> WebhookEndpoint? in
            var endpoint = try session.webhooks.updateWebhookEndpoint(
                id: current.id, change: WebhookEndpointChange(url: newURL, description: newDescription, eventTypes: types), now: time
            )
            if let enabled, endpoint != nil {
                endpoint = try session.webhooks.setWebhookEndpoint(id: current.id, enabled: enabled, reason: enabled ? nil : "Disabled by an admin.", now: time)
            }
            return endpoint
        }
        guard let updated else { throw OrganizerError.notFound("No such webhook endpoint.") }
        if enabled == true { queued() }
        return updated
    }

    /// A new secret for the endpoint (the old one stops signing at once); in the answer only.
    func rotateSecret(id: String?) throws -> WithSecret {
        let current = try endpoint(id: id)
        let nonce = Self.newNonce()
        guard let endpoint = try store.withSession(.write, { try $0.webhooks.rotateWebhookSecret(id: current.id, nonce: nonce, now: now()) }) else {
            throw OrganizerError.notFound("No such webhook endpoint.")
        }
        return WithSecret(endpoint: endpoint, secret: try vault.webhookSecret(endpointID: endpoint.id, nonce: nonce))
    }

    /// Deletes the endpoint with its delivery log.
    func delete(id: String?) throws {
        let current = try endpoint(id: id)
        guard try store.withSession(.write, { try $0.webhooks.deleteWebhookEndpoint(id: current.id) }) else {
            throw OrganizerError.notFound("No such webhook endpoint.")
        }
    }

    /// One page of the endpoint's deliveries, newest first, before delivery `before`; the next
    /// page's cursor when there is one.
    func deliveries(of endpoint: WebhookEndpoint, before: String?, limit: Int?) throws -> (deliveries: [WebhookDelivery], next: String?) {
        var issues: [OrganizerError.Issue] = []
        let cursor = before.flatMap { Int64($0) }
        if before != nil && (cursor ?? 0) <= 0 { issues.append(.init("cursor", "must be a cursor from a previous page")) }
        let size = limit ?? 50
        if !(1...200).contains(size) { issues.append(.init("limit", "must be between 1 and 200")) }
        guard issues.isEmpty else { throw OrganizerError.invalid(issues) }
        let page = try store.withSession(.read) { try $0.webhooks.webhookDeliveries(endpointID: endpoint.id, before: cursor, limit: size + 1) }
        let shown = Array(page.prefix(size))
        return (shown, page.count > size ? shown.last.map { String($0.id) } : nil)
    }

    /// Sends the delivery's webhook event to its endpoint again (the same id and body), as a new
    /// delivery due now.
    func redeliver(_ endpoint: WebhookEndpoint, deliveryID text: String?) throws -> WebhookDelivery {
        guard let id = text.flatMap({ Int64($0) }), id > 0 else { throw OrganizerError.notFound("No such delivery.") }
        guard endpoint.enabled else {
            throw OrganizerError.conflict(code: "webhook_endpoint_disabled", message: "This endpoint is disabled: enable it to send deliveries again.")
        }
        guard let delivery = try store.withSession(.write, { try $0.webhooks.redeliverWebhook(deliveryID: id, endpointID: endpoint.id, now: now()) }) else {
            throw OrganizerError.notFound("No such delivery.")
        }
        queued()
        return delivery
    }

    // MARK: Checks

    /// The URL read and checked without resolving its host (the cheap checks, done with the others).
    private func check(url: String?, required: Bool, _ issues: inout [OrganizerError.Issue]) -> (url: String, target: URLTarget)? {
        guard let raw = url else {
            if required { issues.append(.init("url", "is required")) }
            return nil
        }
        let text = raw.trimmingCharacters(in: .whitespaces)
        do {
            return (text, try targets.target(text))
        } catch {
            issues.append(.init("url", error.message))
            return nil
        }
    }

    /// The URL once its host resolved to allowed addresses only (resolved last: nothing is looked
    /// up for a request refused otherwise).
    private func resolved(_ checked: (url: String, target: URLTarget)) throws -> String {
        do {
            _ = try targets.addresses(of: checked.target, resolve: resolve)
        } catch {
            throw OrganizerError.invalid("url", error.message)
        }
        return checked.url
    }

    private func check(description: String?, _ issues: inout [OrganizerError.Issue]) -> String? {
        guard let raw = description else { return nil }
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.count > Self.maxDescriptionLength { issues.append(.init("description", "must be at most \(Self.maxDescriptionLength) characters")) }
        if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            issues.append(.init("description", "must not contain control characters"))
        }
        return text
    }

    private func check(types names: [String]?, required: Bool, _ issues: inout [OrganizerError.Issue]) -> Set<WebhookEventType>? {
        guard let names else {
            if required { issues.append(.init("eventTypes", "is required: one or more of \(eventTypes.map(\.rawValue).joined(separator: ", "))")) }
            return nil
        }
        var types = Set<WebhookEventType>()
        for name in names.prefix(64) {
            guard let type = WebhookEventType(rawValue: name) else {
                issues.append(.init("eventTypes", "'\(String(name.prefix(64)))' is not one of \(eventTypes.map(\.rawValue).joined(separator: ", "))"))
                continue
            }
            if type.needsGoogleWallet && !googleWallet {
                issues.append(.init("eventTypes", "\(type.rawValue) needs Google Wallet, which is off on this server"))
                continue
            }
            types.insert(type)
        }
        if names.isEmpty { issues.append(.init("eventTypes", "must name at least one type")) }
        return types
    }

    /// 128 random bits, hex.
    static func newNonce() -> String {
        Hex.encode(SecureRandom.bytes(16))
    }
}
