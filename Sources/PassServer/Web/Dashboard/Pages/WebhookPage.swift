import Foundation
import Storage

/// One endpoint's page (`GET /admin/webhooks/{endpointId}`): its state (disabled with why, or
/// failing since when), its delivery log with each delivery's state, HTTP status, attempts and
/// last error, a redeliver button per delivery, and for admins the forms that change it, disable
/// or enable it, rotate its secret (the new one shown once, on the answer) and delete it.
struct WebhookPage {
    var endpoint: WebhookEndpoint
    var deliveries: [WebhookDelivery]
    var nextCursor: String?
    var eventTypes: [WebhookEventType]
    /// The new secret, right after a rotation.
    var secret: String?
    var form: FormState
    var visitor: DashboardSessions.Visitor
    var notice: DashboardLayout.Notice?

    /// The form's values for `endpoint` as stored.
    static func values(of endpoint: WebhookEndpoint) -> [String: String] {
        ["url": endpoint.url, "description": endpoint.description, "eventTypes": endpoint.eventTypes.sorted().map(\.rawValue).joined(separator: ",")]
    }

    func render() -> HTML {
        let id = endpoint.id
        var body: HTML = """
            <p class="crumbs"><a href="/admin/webhooks">Webhooks</a></p>
            <div class="page-head"><div><h1 class="webhook-title">\(endpoint.url)</h1>
            <p class="subtitle">\(WebhooksPage.state(endpoint)) \(endpoint.description)</p></div></div>
            """
        if let secret { body += WebhooksPage.secretPanel(secret, title: "New signing secret", endpointID: id) }
        body += status
        body += log
        if visitor.canWrite { body += forms }
        return DashboardLayout.page(title: "Webhook · \(endpoint.url)", visitor: visitor, notice: notice, body: body)
    }

    private var status: HTML {
        let state: HTML
        if !endpoint.enabled {
            state = """
                <p id="webhook-state" class="notice error" role="status">Disabled\(endpoint.disabledAt.map { " \(DashboardLayout.dateText($0, timeZone: "UTC"))" } ?? ""): \(endpoint.disabledReason ?? "")</p>
                """
        } else if let since = endpoint.failingSince {
            state = """
                <p id="webhook-state" class="notice error" role="status">Failing since \(DashboardLayout.dateText(since, timeZone: "UTC")): \(endpoint.lastFailure ?? ""). It is disabled if nothing is delivered for WEBHOOK_DISABLE_AFTER (3 days by default).</p>
                """
        } else {
            state = #"<p id="webhook-state" class="muted">Enabled. \#(endpoint.lastSuccessAt.map { "Last delivered \(DashboardLayout.dateText($0, timeZone: "UTC"))." } ?? "Nothing delivered yet.")</p>"#
        }
        let types = endpoint.eventTypes.sorted().map(\.rawValue).joined(separator: ", ")
        return #"<section aria-labelledby="webhook-state-title"><h2 id="webhook-state-title" class="sr-only">State</h2>\#(state)<p>Events: <code>\#(types)</code></p></section>"#
    }

    private var log: HTML {
        guard !deliveries.isEmpty else {
            return #"<section aria-labelledby="webhook-log-title"><h2 id="webhook-log-title">Deliveries</h2><p class="muted" id="no-deliveries">Nothing sent yet.</p></section>"#
        }
        let rows = HTML(joining: deliveries.map { delivery in
            let state: HTML = switch delivery.state {
            case .delivered: #"<span class="pill status-ok">delivered</span>"#
            case .pending: #"<span class="pill status-warn">pending</span>"#
            case .failed: #"<span class="pill status-bad">failed</span>"#
            case .held: #"<span class="pill status-warn">held</span>"#
            }
            let status: HTML = delivery.lastStatus.map { $0 == 0 ? "no answer" : "\(String($0))" } ?? #"<span class="muted">–</span>"#
            let detail: HTML = switch delivery.state {
            case .delivered: #"<span class="muted">\#(delivery.latencyMilliseconds.map { "\(String($0)) ms" } ?? "")</span>"#
            case .pending: "\(delivery.lastReason.map { $0 + "; " } ?? "")next \(DashboardLayout.dateText(delivery.nextAttemptAt, timeZone: "UTC"))"
            case .failed, .held: "\(delivery.lastReason ?? "")"
            }
            let redeliver: HTML? = visitor.canWrite && endpoint.enabled && delivery.state != .pending
                ? """
                    <form method="post" action="/admin/webhooks/\(endpoint.id)/deliveries/\(String(delivery.id))/redeliver" class="inline">\(DashboardLayout.csrf(visitor))\
                    <button type="submit" class="small" aria-label="Redeliver \(delivery.type) \(delivery.publicID)">Redeliver</button></form>
                    """
                : nil
            return """
                <tr data-delivery="\(String(delivery.id))" data-state="\(delivery.state.rawValue)">
                <td><code>\(delivery.type)</code><br><span class="muted webhook-id">\(delivery.publicID)</span></td><td>\(state)</td>
                <td class="webhook-status">\(status)</td><td>\(String(delivery.attempts))</td><td>\(redeliver)</td>
                <td>\(DashboardLayout.dateText(delivery.createdAt, timeZone: "UTC"))</td><td class="webhook-detail">\(detail)</td></tr>
                """ as HTML
        })
        let older: HTML? = nextCursor.map { #"<p><a href="\#(url: DashboardLayout.link("/admin/webhooks/\(endpoint.id)", [("cursor", $0)]))">Older deliveries</a></p>"# }
        return """
            <section aria-labelledby="webhook-log-title"><h2 id="webhook-log-title">Deliveries</h2>
            <div class="table-wrap"><table id="webhook-deliveries"><caption class="sr-only">Delivery log, newest first</caption>
            <thead><tr><th scope="col">Event</th><th scope="col">State</th><th scope="col">HTTP status</th><th scope="col">Attempts</th><th scope="col"><span class="sr-only">Redeliver</span></th><th scope="col">Queued</th><th scope="col">Detail</th></tr></thead>
            <tbody>\(rows)</tbody></table></div>\(older)</section>
            """
    }

    private var forms: HTML {
        let id = endpoint.id
        let toggle: HTML = endpoint.enabled
            ? """
                <form method="post" action="/admin/webhooks/\(id)/disable" class="inline">\(DashboardLayout.csrf(visitor))<button type="submit" class="secondary">Disable</button></form>
                """
            : """
                <form method="post" action="/admin/webhooks/\(id)/enable" class="inline">\(DashboardLayout.csrf(visitor))<button type="submit">Enable</button></form>
                """
        return """
            <section aria-labelledby="webhook-edit-title"><h2 id="webhook-edit-title">Change</h2>
            <form method="post" action="/admin/webhooks/\(id)" class="stack">\(DashboardLayout.csrf(visitor))
            \(DashboardLayout.field("url", label: "URL", value: form.value("url"), type: "url", attributes: #"required maxlength="2048" autocomplete="off""#, issues: form.issues("url")))
            \(DashboardLayout.field("description", label: "Description (optional)", value: form.value("description"), attributes: #"maxlength="200""#, issues: form.issues("description")))
            \(WebhooksPage.typeChoices(eventTypes, selected: Set((form.value("eventTypes") ?? "").split(separator: ",").map(String.init)), issues: form.issues("eventTypes")))
            <p><button type="submit">Save</button></p>
            </form>
            <p class="webhook-actions">\(toggle)
            <form method="post" action="/admin/webhooks/\(id)/secret" class="inline">\(DashboardLayout.csrf(visitor))<button type="submit" class="secondary">Rotate secret</button></form></p>
            </section>
            <section class="danger" aria-labelledby="webhook-delete-title"><h2 id="webhook-delete-title">Delete</h2>
            <form method="post" action="/admin/webhooks/\(id)/delete">\(DashboardLayout.csrf(visitor))
            <p class="check"><input type="checkbox" id="f-confirm" name="confirm" value="yes" required> <label for="f-confirm" class="inline">Delete this endpoint and its delivery log</label></p>
            <p><button type="submit" class="danger">Delete endpoint</button></p></form></section>
            """
    }
}
