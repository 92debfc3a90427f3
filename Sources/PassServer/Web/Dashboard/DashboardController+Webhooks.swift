import Foundation
import HTTPServer
import Storage

/// Webhooks from the dashboard (`WebhookEndpoints`, the same operations as the admin API): the
/// Webhooks page lists the endpoints and registers one (its signing secret shown on the answer
/// only); an endpoint's page shows its state and delivery log, and lets an admin change it,
/// disable or enable it, rotate its secret, delete it and redeliver a delivery. Viewers see the
/// pages without their forms.
extension DashboardController {
    /// Notices of the webhook pages' redirects.
    static let webhookNotices: [String: String] = [
        "webhook-saved": "Endpoint saved.", "webhook-enabled": "Endpoint enabled: deliveries held while it was disabled go now.",
        "webhook-disabled": "Endpoint disabled: nothing is sent to it; deliveries waiting for it are held.",
        "webhook-deleted": "Endpoint deleted, with its delivery log.", "redelivered": "Delivery queued again: the same id and body go now.",
    ]

    func registerWebhooks(in router: inout Router) {
        router.get("/admin/webhooks", maxBodySize: Self.pageBodyLimit, query: ["notice"]) { request in
            read(request) { visitor in try webhooksPage(visitor, notice: Self.webhookNotice(request)) }
        }
        router.post("/admin/webhooks", preflight: formPreflight()) { request in write(request) { visitor, form in try createWebhook(visitor, form, request) } }
        router.get("/admin/webhooks/:endpointId", maxBodySize: Self.pageBodyLimit, query: ["notice", "cursor"]) { request in
            read(request) { visitor in try webhookPage(request, visitor, notice: Self.webhookNotice(request)) }
        }
        router.post("/admin/webhooks/:endpointId", preflight: formPreflight()) { request in write(request) { visitor, form in try updateWebhook(visitor, form, request) } }
        for (action, enabled) in [("enable", true), ("disable", false)] {
            router.post("/admin/webhooks/:endpointId/\(action)", preflight: formPreflight()) { request in
                write(request) { visitor, form in try setWebhook(enabled: enabled, visitor, form, request) }
            }
        }
        router.post("/admin/webhooks/:endpointId/secret", preflight: formPreflight()) { request in
            write(request) { visitor, _ in
                let rotated = try admin.webhooks.rotateSecret(id: request.parameters["endpointId"])
                logger.info("webhook secret rotated", ["webhook.endpoint": rotated.endpoint.id, "request.id": request.requestID])
                return try webhookPage(request, visitor, secret: rotated.secret)
            }
        }
        router.post("/admin/webhooks/:endpointId/delete", preflight: formPreflight()) { request in
            write(request) { _, form in
                let endpoint = try admin.webhooks.endpoint(id: request.parameters["endpointId"])
                guard form["confirm"] == "yes" else {
                    throw OrganizerError.conflict(code: "confirmation_missing", message: "Tick the box to confirm that the endpoint and its delivery log go.")
                }
                try admin.webhooks.delete(id: endpoint.id)
                logger.info("webhook endpoint deleted", ["webhook.endpoint": endpoint.id, "request.id": request.requestID])
                return Self.redirect("/admin/webhooks?notice=webhook-deleted")
            }
        }
        router.post("/admin/webhooks/:endpointId/deliveries/:deliveryId/redeliver", preflight: formPreflight()) { request in
            write(request) { _, _ in
                let endpoint = try admin.webhooks.endpoint(id: request.parameters["endpointId"])
                let delivery = try admin.webhooks.redeliver(endpoint, deliveryID: request.parameters["deliveryId"])
                logger.info("webhook redelivered", ["webhook.endpoint": endpoint.id, "webhook.delivery": "\(delivery.id)", "request.id": request.requestID])
                return Self.redirect("/admin/webhooks/\(endpoint.id)?notice=redelivered")
            }
        }
    }

    static func webhookNotice(_ request: Request) -> DashboardLayout.Notice? {
        request.query["notice"].flatMap { webhookNotices[$0] }.map { DashboardLayout.Notice(text: $0) } ?? notice(request)
    }

    /// The Webhooks page; `created` is the endpoint just registered with its secret.
    func webhooksPage(
        _ visitor: DashboardSessions.Visitor, created: WebhookEndpoints.WithSecret? = nil, form: FormState = FormState(), notice: DashboardLayout.Notice? = nil
    ) throws -> Response {
        let webhooks = admin.webhooks
        let page = WebhooksPage(
            endpoints: try webhooks.list(), eventTypes: webhooks.eventTypes, created: created, form: form, visitor: visitor,
            notice: form.notice(shown: ["url", "description", "eventTypes"]) ?? notice
        )
        return Self.noStore(.html(page.render(), status: form.status))
    }

    func createWebhook(_ visitor: DashboardSessions.Visitor, _ form: FormFields, _ request: Request) throws -> Response {
        let types = form.fields.filter { $0.name == "eventTypes" }.map(\.value)
        do {
            let created = try admin.webhooks.create(url: form["url"] ?? "", description: form["description"], eventTypes: types)
            logger.info("webhook endpoint created", ["webhook.endpoint": created.endpoint.id, "request.id": request.requestID])
            return try webhooksPage(visitor, created: created)
        } catch let refusal as OrganizerError {
            var state = FormState(form)
            state.values["eventTypes"] = types.joined(separator: ",")
            guard let shown = state.refused(refusal) else { throw refusal }
            return try webhooksPage(visitor, form: shown)
        }
    }

    /// An endpoint's page; `secret` is its new secret right after a rotation.
    func webhookPage(
        _ request: Request, _ visitor: DashboardSessions.Visitor, secret: String? = nil, form: FormState? = nil, notice: DashboardLayout.Notice? = nil
    ) throws -> Response {
        let webhooks = admin.webhooks
        let endpoint = try webhooks.endpoint(id: request.parameters["endpointId"])
        let page = try webhooks.deliveries(of: endpoint, before: request.query["cursor"], limit: 50)
        let shown = form ?? FormState(values: WebhookPage.values(of: endpoint))
        let view = WebhookPage(
            endpoint: endpoint, deliveries: page.deliveries, nextCursor: page.next, eventTypes: webhooks.eventTypes, secret: secret, form: shown,
            visitor: visitor, notice: shown.notice(shown: ["url", "description", "eventTypes"]) ?? notice
        )
        return Self.noStore(.html(view.render(), status: shown.status))
    }

    func updateWebhook(_ visitor: DashboardSessions.Visitor, _ form: FormFields, _ request: Request) throws -> Response {
        let types = form.fields.filter { $0.name == "eventTypes" }.map(\.value)
        do {
            let endpoint = try admin.webhooks.update(
                id: request.parameters["endpointId"], url: form["url"] ?? "", description: form["description"] ?? "", eventTypes: types, enabled: nil
            )
            return Self.redirect("/admin/webhooks/\(endpoint.id)?notice=webhook-saved")
        } catch let refusal as OrganizerError {
            var state = FormState(form)
            state.values["eventTypes"] = types.joined(separator: ",")
            guard let shown = state.refused(refusal) else { throw refusal }
            return try webhookPage(request, visitor, form: shown)
        }
    }

    func setWebhook(enabled: Bool, _ visitor: DashboardSessions.Visitor, _ form: FormFields, _ request: Request) throws -> Response {
        do {
            let endpoint = try admin.webhooks.update(id: request.parameters["endpointId"], url: nil, description: nil, eventTypes: nil, enabled: enabled)
            logger.info("webhook endpoint changed", ["webhook.endpoint": endpoint.id, "enabled": "\(enabled)", "request.id": request.requestID])
            return Self.redirect("/admin/webhooks/\(endpoint.id)?notice=webhook-\(enabled ? "enabled" : "disabled")")
        } catch let refusal as OrganizerError {
            // Enabling checks the URL again: the reason is shown on the page.
            guard case .invalid(let issues) = refusal else { throw refusal }
            var state = FormState(values: WebhookPage.values(of: try admin.webhooks.endpoint(id: request.parameters["endpointId"])))
            state.message = "Not enabled: " + issues.map(\.description).joined(separator: "; ")
            state.status = 400
            return try webhookPage(request, visitor, form: state)
        }
    }

    /// A page that may show a secret once: no cache keeps it.
    static func noStore(_ response: Response) -> Response {
        var response = response
        response.headers.replace(name: "Cache-Control", value: "no-store")
        return response
    }
}
