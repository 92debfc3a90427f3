import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

/// An order's passes as `.pkpasses` files from the buyer's link (`/orders/{token}`): a zip of
/// `.pkpass` files that each verify with openssl, at most ten to a file (larger orders in
/// near-equal parts), cancelled tickets left out; a link that leads to no order answers like a
/// download link that leads to no ticket.
@Suite("Orders: .pkpasses downloads", .offCooperativePool, .timeLimit(.minutes(8)))
struct OrderBundleTests {
    static let browser = ("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")

    @Test("four tickets: one .pkpasses file, a zip of four .pkpass files that each verify with openssl", arguments: Backend.allCases)
    func fourTickets(_ backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let order = try OrderSupport.createOrder(app, event: event, count: 4)
        let bundles = OrderSupport.bundles(order)
        #expect(bundles.map(\.tickets) == [4])
        let response = try app.request("GET", try OrderSupport.target(bundles.first?.url))
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/vnd.apple.pkpasses")
        #expect(response.header("Content-Disposition") == "attachment; filename=tickets.pkpasses")
        let passes = try OrderSupport.passes(inBundle: response.body, root: app.certificates.rootCertificate)
        #expect(passes.count == 4)
        #expect(try OrderSupport.serials(inPasses: passes) == OrderSupport.serials(order).sorted())

        // The link itself gives Wallet, curl and `*/*` the file too; a browser gets the page.
        let page = try #require(order["orderURL"] as? String)
        let plain = try app.request("GET", try OrderSupport.target(page), headers: [("Accept", "*/*")])
        #expect(plain.status == 200 && plain.header("Content-Type") == "application/vnd.apple.pkpasses")
        #expect(try OrderSupport.passes(inBundle: plain.body, root: app.certificates.rootCertificate).count == 4)
        let html = try app.request("GET", try OrderSupport.target(page), headers: [Self.browser])
        #expect(html.status == 200 && html.header("Content-Type")?.hasPrefix("text/html") == true)
        #expect(try app.request("GET", try OrderSupport.target(page) + "?format=zip").status == 400)
        // The access log keeps the link's first characters only, as it does for download links.
        let token = String(try OrderSupport.target(page).dropFirst("/orders/".count))
        #expect(app.logs.lines.contains { $0.contains("path=/orders/\(token.prefix(4))…") }, "the order page's requests are logged")
        #expect(!app.logs.lines.contains { $0.contains(token) }, "the order's token is in the log")
    }

    @Test("twelve tickets come as two files of six, each a valid .pkpasses; ten tickets as one file", arguments: Backend.allCases)
    func parts(_ backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let twelve = try OrderSupport.createOrder(app, event: event, count: 12)
        let bundles = OrderSupport.bundles(twelve)
        #expect(bundles.map(\.tickets) == [6, 6])
        var served: [String] = []
        for (index, bundle) in bundles.enumerated() {
            #expect(bundle.url.hasSuffix("?format=pkpasses&part=\(index + 1)"))
            let response = try app.request("GET", try OrderSupport.target(bundle.url))
            try #require(response.status == 200, "\(response.text)")
            #expect(response.header("Content-Disposition") == "attachment; filename=tickets-\(index + 1)-of-2.pkpasses")
            let passes = try OrderSupport.passes(inBundle: response.body, root: app.certificates.rootCertificate)
            #expect(passes.count == 6)
            served += try OrderSupport.serials(inPasses: passes)
        }
        #expect(served.sorted() == OrderSupport.serials(twelve).sorted(), "every ticket in exactly one file")
        // The files are named: without a part, or with one that is not there, the answer says so.
        let page = try OrderSupport.target(twelve["orderURL"] as? String)
        let unnamed = try app.request("GET", page + "?format=pkpasses")
        #expect(unnamed.status == 400 && unnamed.text.contains("part_required"), "\(unnamed.text)")
        for part in ["0", "3", "x", "-1", "99999"] {
            let wrong = try app.request("GET", page + "?format=pkpasses&part=\(part)")
            #expect(wrong.status == 400 && wrong.text.contains("invalid_part"), "part=\(part): \(wrong.text)")
        }

        let ten = try OrderSupport.createOrder(app, event: event, count: 10, namePrefix: "Ten")
        #expect(OrderSupport.bundles(ten).map(\.tickets) == [10])
        let response = try app.request("GET", try OrderSupport.target(OrderSupport.bundles(ten).first?.url))
        #expect(try OrderSupport.passes(inBundle: response.body, root: app.certificates.rootCertificate).count == 10)
    }

    @Test("a cancelled ticket is listed as cancelled and left out of the file; every ticket cancelled: no file", arguments: Backend.allCases)
    func cancelledTickets(_ backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let order = try OrderSupport.createOrder(app, event: event, count: 4)
        let serials = OrderSupport.serials(order)
        #expect(try app.admin("POST", "/admin/v1/tickets/\(serials[1])/cancel", json: #"{"reason":"Refunded"}"#).status == 200)
        let id = try #require(order["orderId"] as? String)
        let shown = try #require(try app.admin("GET", "/admin/v1/orders/\(id)").jsonObject)
        #expect(shown["ticketCount"] as? Int == 4 && shown["activeTickets"] as? Int == 3)
        let bundles = OrderSupport.bundles(shown)
        #expect(bundles.map(\.tickets) == [3])
        let response = try app.request("GET", try OrderSupport.target(bundles.first?.url))
        let inside = try OrderSupport.serials(inPasses: try OrderSupport.passes(inBundle: response.body, root: app.certificates.rootCertificate))
        #expect(inside == [serials[0], serials[2], serials[3]].sorted())

        let page = try OrderSupport.target(order["orderURL"] as? String)
        let html = try app.request("GET", page, headers: [Self.browser]).text
        #expect(html.contains("Guest 2") && html.components(separatedBy: "order-ticket cancelled").count == 2, "one ticket shown as cancelled")
        #expect(html.components(separatedBy: "?format=pkpass\"").count == 4, "three tickets to add, not the cancelled one")

        for serial in [serials[0], serials[2], serials[3]] {
            #expect(try app.admin("POST", "/admin/v1/tickets/\(serial)/cancel").status == 200)
        }
        let none = try app.request("GET", page + "?format=pkpasses")
        #expect(none.status == 409 && none.text.contains("order_cancelled"), "\(none.text)")
        #expect(OrderSupport.bundles(try #require(try app.admin("GET", "/admin/v1/orders/\(id)").jsonObject)).isEmpty)
        #expect(try app.request("GET", page, headers: [Self.browser]).text.contains("Every ticket of this order has been cancelled."))
    }

    @Test("an unknown order link answers like an unknown download link: a 404 page for a browser, the JSON error otherwise", arguments: Backend.allCases)
    func unknownLink(_ backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let order = try OrderSupport.createOrder(app, event: event, count: 1)
        let real = try OrderSupport.target(order["orderURL"] as? String)
        #expect(try app.request("GET", real, headers: [Self.browser]).status == 200, "a real link answers (so the 404s below are about the token)")
        let token = String(repeating: "A", count: 43)
        for (path, download) in [("/orders/\(token)", "/download/\(token)"), ("/orders/short", "/download/short")] {
            let page = try app.request("GET", path, headers: [Self.browser])
            let ticketPage = try app.request("GET", download, headers: [Self.browser])
            #expect(page.status == 404 && ticketPage.status == 404)
            #expect(page.header("Content-Type") == ticketPage.header("Content-Type"))
            #expect(page.header("X-Robots-Tag") == "noindex, nofollow" && page.header("Cache-Control") == ticketPage.header("Cache-Control"))
            #expect(page.text.contains("Order not found"))
            for accept in ["*/*", "application/json"] {
                let json = try app.request("GET", path, headers: [("Accept", accept)])
                let ticketJSON = try app.request("GET", download, headers: [("Accept", accept)])
                #expect(json.status == 404 && ticketJSON.status == 404)
                #expect((json.jsonObject?["error"] as? [String: Any])?["code"] as? String == "not_found")
                #expect(json.header("Content-Type") == ticketJSON.header("Content-Type"))
            }
        }
    }
}
