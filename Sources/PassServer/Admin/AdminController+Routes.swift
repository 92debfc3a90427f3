import HTTPServer
import Storage

extension AdminController {
    /// Every route of the admin API with the role it needs and the query parameters it takes:
    /// reading needs a viewer token, changing anything an admin token (admins may use every
    /// route). The check-in routes declare `.scanner`: the only ones a scanner token may use.
    static let routes: [AdminRoute] = [
        AdminRoute(
            .GET, "/admin/v1/events", role: .viewer, query: ["q", "from", "to", "archived", "cursor", "limit"],
            AdminController.listEvents(_:)
        ),
        AdminRoute(.POST, "/admin/v1/events", role: .admin, AdminController.createEvent(_:)),
        AdminRoute(.GET, "/admin/v1/events/:eventId", role: .viewer, AdminController.showEvent(_:)),
        AdminRoute(.PATCH, "/admin/v1/events/:eventId", role: .admin, AdminController.updateEvent(_:)),
        AdminRoute(.DELETE, "/admin/v1/events/:eventId", role: .admin, query: ["confirm"], AdminController.deleteEvent(_:)),
        AdminRoute(.POST, "/admin/v1/events/:eventId/erase", role: .admin, query: ["confirm"], AdminController.eraseEvent(_:)),
        AdminRoute(.POST, "/admin/v1/events/:eventId/archive", role: .admin, AdminController.archiveEvent(_:)),
        AdminRoute(.POST, "/admin/v1/events/:eventId/unarchive", role: .admin, AdminController.unarchiveEvent(_:)),
        AdminRoute(.POST, "/admin/v1/events/:eventId/tickets", role: .admin, AdminController.createTicket(_:)),
        AdminRoute(.POST, "/admin/v1/events/:eventId/email", role: .admin, AdminController.emailEvent(_:)),
        AdminRoute(
            .POST, "/admin/v1/events/:eventId/tickets:batch", role: .admin, query: ["notify"], maxBodySize: TicketImport.maxBodySize,
            AdminController.importTickets(_:)
        ),
        AdminRoute(
            .GET, "/admin/v1/events/:eventId/tickets", role: .viewer, query: ["status", "checkedIn", "orderId", "q", "updatedSince", "cursor", "limit"],
            AdminController.listTickets(_:)
        ),
        AdminRoute(.POST, "/admin/v1/events/:eventId/orders", role: .admin, AdminController.createOrder(_:)),
        AdminRoute(.GET, "/admin/v1/events/:eventId/orders", role: .viewer, query: ["cursor", "limit"], AdminController.listOrders(_:)),
        AdminRoute(.GET, "/admin/v1/orders/:orderId", role: .viewer, AdminController.showOrder(_:)),
        AdminRoute(.POST, "/admin/v1/orders/:orderId/email", role: .admin, AdminController.emailOrder(_:)),
        AdminRoute(.GET, "/admin/v1/events/:eventId/tickets.csv", role: .viewer, AdminController.exportTickets(_:)),
        AdminRoute(.GET, "/admin/v1/tickets/:serialNumber", role: .viewer, AdminController.showTicket(_:)),
        AdminRoute(.PATCH, "/admin/v1/tickets/:serialNumber", role: .admin, AdminController.updateTicket(_:)),
        AdminRoute(.POST, "/admin/v1/tickets/:serialNumber/cancel", role: .admin, AdminController.cancelTicket(_:)),
        AdminRoute(.POST, "/admin/v1/tickets/:serialNumber/download-link", role: .admin, AdminController.rotateDownloadLink(_:)),
        AdminRoute(.POST, "/admin/v1/tickets/:serialNumber/email", role: .admin, AdminController.emailTicket(_:)),
        AdminRoute(.GET, "/admin/v1/jobs/:jobId", role: .viewer, AdminController.showJob(_:)),
        AdminRoute(.GET, "/admin/v1/events/:eventId/design", role: .viewer, AdminController.showDesign(_:)),
        AdminRoute(.PUT, "/admin/v1/events/:eventId/design", role: .admin, maxBodySize: designBodyLimit, AdminController.updateDesign(_:)),
        AdminRoute(.POST, "/admin/v1/images", role: .admin, query: ["kind", "colors"], maxBodySize: imageBodyLimit, AdminController.uploadImage(_:)),
        AdminRoute(.GET, "/admin/v1/images/:imageId", role: .viewer, AdminController.showImage(_:)),
        AdminRoute(.GET, "/admin/v1/templates", role: .viewer, AdminController.listTemplates(_:)),
        AdminRoute(.POST, "/admin/v1/templates", role: .admin, query: ["name"], maxBodySize: templateBodyLimit, AdminController.uploadTemplate(_:)),
        AdminRoute(.GET, "/admin/v1/templates/:templateName", role: .viewer, AdminController.showTemplate(_:)),
        AdminRoute(
            .PUT, "/admin/v1/templates/:templateName/mapping", role: .admin, maxBodySize: mappingBodyLimit, AdminController.updateTemplateMapping(_:)
        ),
        // The check-in handlers also take a scanner name (the dashboard's scanner passes its own);
        // here it comes from the token.
        AdminRoute(.POST, "/admin/v1/checkins", role: .scanner) { admin in { try admin.checkIn($0) } },
        AdminRoute(.POST, "/admin/v1/checkins:batch", role: .scanner) { admin in { try admin.checkInBatch($0) } },
        AdminRoute(.GET, "/admin/v1/events/:eventId/checkins", role: .scanner, AdminController.checkInCount(_:)),
        AdminRoute(.DELETE, "/admin/v1/tickets/:serialNumber/checkin", role: .admin, AdminController.undoCheckIn(_:)),
        AdminRoute(.GET, "/admin/v1/events/:eventId/announcements", role: .viewer, AdminController.listAnnouncements(_:)),
        AdminRoute(.POST, "/admin/v1/events/:eventId/announcements", role: .admin, AdminController.createAnnouncement(_:)),
        AdminRoute(.GET, "/admin/v1/events/:eventId/announcements/:announcementId", role: .viewer, AdminController.showAnnouncement(_:)),
        AdminRoute(.POST, "/admin/v1/events/:eventId/announcements/:announcementId/withdraw", role: .admin, AdminController.withdrawAnnouncement(_:)),
        AdminRoute(.GET, "/admin/v1/events/:eventId/scheduled-changes", role: .viewer, AdminController.listScheduledChanges(_:)),
        AdminRoute(.POST, "/admin/v1/events/:eventId/scheduled-changes", role: .admin, maxBodySize: designBodyLimit, AdminController.createScheduledChange(_:)),
        AdminRoute(.GET, "/admin/v1/events/:eventId/scheduled-changes/:changeId", role: .viewer, AdminController.showScheduledChange(_:)),
        AdminRoute(
            .PUT, "/admin/v1/events/:eventId/scheduled-changes/:changeId", role: .admin, maxBodySize: designBodyLimit,
            AdminController.replaceScheduledChange(_:)
        ),
        AdminRoute(.POST, "/admin/v1/events/:eventId/scheduled-changes/:changeId/cancel", role: .admin, AdminController.cancelScheduledChange(_:)),
        AdminRoute(.GET, "/admin/v1/events/:eventId/scanner-access", role: .viewer, AdminController.listScannerAccess(_:)),
        AdminRoute(.POST, "/admin/v1/events/:eventId/scanner-access", role: .admin, AdminController.createScannerAccess(_:)),
        AdminRoute(.DELETE, "/admin/v1/events/:eventId/scanner-access/:accessId", role: .admin, AdminController.revokeScannerAccess(_:)),
        AdminRoute(.GET, "/admin/v1/webhooks", role: .viewer, AdminController.listWebhooks(_:)),
        AdminRoute(.POST, "/admin/v1/webhooks", role: .admin, AdminController.createWebhook(_:)),
        AdminRoute(.GET, "/admin/v1/webhooks/:endpointId", role: .viewer, AdminController.showWebhook(_:)),
        AdminRoute(.PATCH, "/admin/v1/webhooks/:endpointId", role: .admin, AdminController.updateWebhook(_:)),
        AdminRoute(.DELETE, "/admin/v1/webhooks/:endpointId", role: .admin, AdminController.deleteWebhook(_:)),
        AdminRoute(.POST, "/admin/v1/webhooks/:endpointId/secret", role: .admin, AdminController.rotateWebhookSecret(_:)),
        AdminRoute(.GET, "/admin/v1/webhooks/:endpointId/deliveries", role: .viewer, query: ["cursor", "limit"], AdminController.listWebhookDeliveries(_:)),
        AdminRoute(
            .POST, "/admin/v1/webhooks/:endpointId/deliveries/:deliveryId/redeliver", role: .admin, AdminController.redeliverWebhook(_:)
        ),
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
