/// Uploaded pass templates and the versions seen. Reached as `session.templates`.
public struct TemplateOperations: SessionOperations {
    let session: StoreSession
}

extension StoreSession {
    /// Uploaded pass templates and the versions seen.
    public var templates: TemplateOperations { TemplateOperations(session: self) }
}
