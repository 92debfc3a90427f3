import HTTPServer
import Storage

extension AdminController {
    /// Every route of the admin API with the role it needs and the query parameters it takes:
    /// reading needs a viewer token, changing anything an admin token (admins may use every
    /// route). The check-in routes declare `.scanner`: the only ones a scanner token may use.
    static let routes: [AdminRoute] = [
        AdminRoute(.GET, "/admin/v1/events", role: .viewer, query: ["q", "from", "to", "archived", "cursor", "limit"]) { admin in
            { try admin.listEvents($0) }
        },
        AdminRoute(.POST, "/admin/v1/events", role: .admin) { admin in { try admin.createEvent($0) } },
        AdminRoute(.GET, "/admin/v1/events/:eventId", role: .viewer) { admin in { try admin.showEvent($0) } },
        AdminRoute(.PATCH, "/admin/v1/events/:eventId", role: .admin) { admin in { try admin.updateEvent($0) } },
        AdminRoute(.POST, "/admin/v1/events/:eventId/archive", role: .admin) { admin in { try admin.archiveEvent($0) } },
        AdminRoute(.POST, "/admin/v1/events/:eventId/unarchive", role: .admin) { admin in { try admin.unarchiveEvent($0) } },
        AdminRoute(.POST, "/admin/v1/events/:eventId/tickets", role: .admin) { admin in { try admin.createTicket($0) } },
        AdminRoute(.POST, "/admin/v1/events/:eventId/email", role: .admin) { admin in { try admin.emailEvent($0) } },
        AdminRoute(.POST, "/admin/v1/events/:eventId/tickets:batch", role: .admin, query: ["notify"], maxBodySize: TicketImport.maxBodySize) { admin in
            { try admin.importTickets($0) }
        },
        AdminRoute(.GET, "/admin/v1/events/:eventId/tickets", role: .viewer, query: ["status", "q", "updatedSince", "cursor", "limit"]) {
            admin in { try admin.listTickets($0) }
        },
        AdminRoute(.GET, "/admin/v1/events/:eventId/tickets.csv", role: .viewer) { admin in { try admin.exportTickets($0) } },
        AdminRoute(.GET, "/admin/v1/tickets/:serialNumber", role: .viewer) { admin in { try admin.showTicket($0) } },
        AdminRoute(.PATCH, "/admin/v1/tickets/:serialNumber", role: .admin) { admin in { try admin.updateTicket($0) } },
        AdminRoute(.POST, "/admin/v1/tickets/:serialNumber/cancel", role: .admin) { admin in { try admin.cancelTicket($0) } },
        AdminRoute(.POST, "/admin/v1/tickets/:serialNumber/download-link", role: .admin) { admin in { try admin.rotateDownloadLink($0) } },
        AdminRoute(.POST, "/admin/v1/tickets/:serialNumber/email", role: .admin) { admin in { try admin.emailTicket($0) } },
        AdminRoute(.GET, "/admin/v1/jobs/:jobId", role: .viewer) { admin in { try admin.showJob($0) } },
        AdminRoute(.POST, "/admin/v1/checkins", role: .scanner) { admin in { try admin.checkIn($0) } },
        AdminRoute(.POST, "/admin/v1/checkins:batch", role: .scanner) { admin in { try admin.checkInBatch($0) } },
        AdminRoute(.GET, "/admin/v1/events/:eventId/checkins", role: .scanner) { admin in { try admin.checkInCount($0) } },
        AdminRoute(.DELETE, "/admin/v1/tickets/:serialNumber/checkin", role: .admin) { admin in { try admin.undoCheckIn($0) } },
    ]

    /// Registers every route of `routes`; each one's preflight checks the bearer token and its
    /// role, and the router refuses a query parameter the route does not declare. A GET first
    /// writes the reach marks waiting in this process (`settleReach`).
    func register(in router: inout Router) {
        for route in Self.routes {
            let role = route.role
            let store = self.store
            let handler = route.handler(self)
            let reads = route.method == .GET
            let settleReach = self.settleReach
            router.add(
                route.method, route.pattern, maxBodySize: route.maxBodySize, query: route.query,
                preflight: { try AdminAuthentication.check($0, role: role, store: store) }
            ) { request in
                if reads { settleReach() }
                return try handler(request)
            }
        }
    }
}
