/// Webhook endpoints, their events and deliveries. Reached as `session.webhooks`.
public struct WebhookOperations: SessionOperations {
    let session: StoreSession
}

extension StoreSession {
    /// Webhook endpoints, their events and deliveries.
    public var webhooks: WebhookOperations { WebhookOperations(session: self) }
}
