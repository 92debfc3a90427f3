import Foundation
import Storage

/// The Webhooks page (`GET /admin/webhooks`; a viewer sees the list only): every endpoint with its
/// state, the form that registers one, and, right after registering, its signing secret (shown
/// once: it is never shown again).
struct WebhooksPage {
    var endpoints: [WebhookEndpoint]
    var eventTypes: [WebhookEventType]
    var created: WebhookEndpoints.WithSecret?
    var form: FormState
    var visitor: DashboardSessions.Visitor
    var notice: DashboardLayout.Notice?

    func render() -> HTML {
        var body: HTML = """
            <div class="page-head"><div><h1>Webhooks</h1>
            <p class="subtitle">\(DashboardLayout.Icon.webhook) Tell your ticket shop, CRM or other system what happens here: a signed JSON <code>POST</code> to your URL for each change it wants.</p></div></div>
            """
        if let created { body += Self.secretPanel(created.secret, title: "Signing secret for \(created.endpoint.url)", endpointID: created.endpoint.id) }
        if visitor.canWrite { body += newForm }
        body += list
        return DashboardLayout.page(title: "Webhooks", visitor: visitor, notice: notice, body: body)
    }

    /// The panel that shows a secret once.
    static func secretPanel(_ secret: String, title: String, endpointID: String) -> HTML {
        """
        <section class="door-created webhook-secret" id="webhook-created" aria-labelledby="webhook-secret-title">
        <h2 id="webhook-secret-title">\(title)</h2>
        <p><code class="secret" id="webhook-secret">\(secret)</code></p>
        <p class="muted">Store it in your receiver now: it is shown only this once. Your receiver checks each delivery's <code>PassServer-Signature</code> with it (docs/webhooks.md). Lost it? Rotate the secret on <a href="/admin/webhooks/\(endpointID)">the endpoint's page</a>.</p>
        </section>
        """
    }

    private var newForm: HTML {
        """
        <section class="webhook-new" aria-labelledby="webhook-new-title"><h2 id="webhook-new-title">Add an endpoint</h2>
        <form method="post" action="/admin/webhooks" class="stack">\(DashboardLayout.csrf(visitor))
        \(DashboardLayout.field("url", label: "URL", value: form.value("url"), type: "url", attributes: #"required maxlength="2048" placeholder="https://shop.example.org/passserver-hooks" autocomplete="off""#, hint: "An https address your system answers on, at a public address (private ones only where the server allows them).", issues: form.issues("url")))
        \(DashboardLayout.field("description", label: "Description (optional)", value: form.value("description"), attributes: #"maxlength="200" placeholder="Box office CRM""#, issues: form.issues("description")))
        \(Self.typeChoices(eventTypes, selected: Set((form.value("eventTypes") ?? "").split(separator: ",").map(String.init)), issues: form.issues("eventTypes")))
        <p><button type="submit">Add endpoint</button></p>
        </form></section>
        """
    }

    /// The checkboxes of the types an endpoint may want, each with what it tells.
    static func typeChoices(_ types: [WebhookEventType], selected: Set<String>, issues: [String]) -> HTML {
        let boxes = HTML(joining: types.map { type in
            let id = "f-type-" + type.rawValue.replacingOccurrences(of: ".", with: "-")
            let checked: HTML? = selected.contains(type.rawValue) ? " checked" : nil
            return """
                <p class="check"><input type="checkbox" id="\(id)" name="eventTypes" value="\(type.rawValue)"\(checked)> \
                <label for="\(id)" class="inline"><code>\(type.rawValue)</code> <span class="muted">\(summary(type))</span></label></p>
                """ as HTML
        })
        let error: HTML? = issues.isEmpty ? nil : #"<p class="field-error" id="f-eventTypes-error">\#(issues.joined(separator: "; "))</p>"#
        return #"<fieldset class="webhook-types"\#(issues.isEmpty ? "" : #" aria-describedby="f-eventTypes-error""# as HTML)><legend>Events to send</legend>\#(boxes)\#(error)</fieldset>"#
    }

    /// What a type tells, in a few words.
    static func summary(_ type: WebhookEventType) -> String {
        switch type {
        case .ticketIssued: "a ticket was issued"
        case .ticketUpdated: "a ticket's holder, email, seat or fields changed"
        case .ticketCancelled: "a ticket was cancelled"
        case .ticketCheckedIn: "a ticket was let in at the door"
        case .passAdded: "a ticket is on a phone's Wallet (its first device)"
        case .passRemoved: "the last phone removed a ticket"
        case .emailFailed: "a ticket's email could not be delivered"
        case .googleWalletSaved: "a ticket was saved in Google Wallet"
        case .googleWalletRemoved: "a ticket was removed from Google Wallet"
        case .eventUpdated: "an event's details changed"
        case .eventDeleted: "an event was deleted"
        }
    }

    /// An endpoint's state in words, as a pill.
    static func state(_ endpoint: WebhookEndpoint) -> HTML {
        if !endpoint.enabled { return #"<span class="pill status-bad">disabled</span>"# }
        if endpoint.failingSince != nil { return #"<span class="pill status-warn">failing</span>"# }
        return #"<span class="pill status-ok">enabled</span>"#
    }

    private var list: HTML {
        guard !endpoints.isEmpty else {
            return #"<section aria-labelledby="webhook-list-title"><h2 id="webhook-list-title">Endpoints</h2><p class="muted" id="no-webhooks">No endpoint yet.</p></section>"#
        }
        let rows = HTML(joining: endpoints.map { endpoint in
            let detail: HTML = if let reason = endpoint.disabledReason, !endpoint.enabled {
                "\(reason)"
            } else if let since = endpoint.failingSince {
                "Failing since \(DashboardLayout.dateText(since, timeZone: "UTC")): \(endpoint.lastFailure ?? "")"
            } else if let success = endpoint.lastSuccessAt {
                "Last delivered \(DashboardLayout.dateText(success, timeZone: "UTC"))"
            } else {
                #"<span class="muted">Nothing delivered yet</span>"#
            }
            return """
                <tr data-endpoint="\(endpoint.id)"><td><a href="/admin/webhooks/\(endpoint.id)" class="webhook-url">\(endpoint.url)</a>\
                \(endpoint.description.isEmpty ? nil : #"<br><span class="muted">\#(endpoint.description)</span>"# as HTML)</td>
                <td>\(Self.state(endpoint))</td><td>\(detail)</td><td>\(endpoint.eventTypes.sorted().map(\.rawValue).joined(separator: ", "))</td></tr>
                """ as HTML
        })
        return """
            <section aria-labelledby="webhook-list-title"><h2 id="webhook-list-title">Endpoints</h2>
            <div class="table-wrap"><table id="webhooks"><caption class="sr-only">Webhook endpoints</caption>
            <thead><tr><th scope="col">URL</th><th scope="col">State</th><th scope="col">Deliveries</th><th scope="col">Events</th></tr></thead>
            <tbody>\(rows)</tbody></table></div></section>
            """
    }
}
