import HTTPServer
import Storage

/// One route of the admin API, the role it needs and the query parameters it takes. The role is
/// checked in the route's preflight, from the headers alone, before any body byte is read, so
/// every admin route is guarded in this one place (`AdminController.register`); a query parameter
/// the route does not declare is a 400 naming it.
struct AdminRoute: Sendable {
    var method: HTTPMethod
    var pattern: String
    var role: AdminRole
    var query: Set<String>
    var maxBodySize: Int?
    var handler: @Sendable (AdminController) -> Handler

    init(
        _ method: HTTPMethod, _ pattern: String, role: AdminRole, query: Set<String> = [], maxBodySize: Int? = nil,
        _ handler: @escaping @Sendable (AdminController) -> Handler
    ) {
        self.method = method
        self.pattern = pattern
        self.role = role
        self.query = query
        self.maxBodySize = maxBodySize
        self.handler = handler
    }
}

extension AdminRole {
    /// Whether a token with this role may use a route that needs `required`: an admin may use
    /// every route, the others only routes that name their own role (a viewer reads, a scanner
    /// checks in; neither can do the other's work).
    func permits(_ required: AdminRole) -> Bool {
        self == .admin || self == required
    }
}
