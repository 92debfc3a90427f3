import Foundation
import HTTPServer
import PassImages
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// `POST /admin/scan/decode`: the scanner page's camera frames read on the server, on both stores.
/// Frames are rendered at test time from a ticket's real code (`QRFrame`: libqrencode, turned,
/// blurred, noisy) and then checked in with the page's own call.
@Suite("Scanner page: camera frames read on the server", .offCooperativePool, .timeLimit(.minutes(3)))
struct ScannerDecodeTests {
    @Test("a turned, blurred frame of a ticket's QR code reads as its code, which then checks the ticket in", arguments: Backend.allCases)
    func decodesAndChecksIn(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let serial = try app.issueTicket(event: event, attendee: "Grace Hopper")
        let code = try Scanner(app).code(serial)
        let (client, _) = try DashboardClient.signIn(app, token: AdminRoleTests.token(app, role: .scanner))
        let csrf = try client.csrf(on: "/admin/scan")

        let frame = try QRFrame(message: code, moduleSize: 5, angle: 23, blur: 1.1, noise: 6)
        let decoded = try client.frame(frame.png, csrf: csrf)
        #expect(decoded.status == 200, "\(decoded.text)")
        #expect(decoded.header("Content-Type") == "application/json")
        #expect(decoded.header("Cache-Control") == "private, no-store")
        #expect(decoded.jsonObject?["codes"] as? [String] == [code])
        let scan = try client.json("POST", "/admin/scan/checkins", #"{"code":\#(Scanner.quoted(code)),"eventId":"\#(event)"}"#, csrf: csrf)
        #expect(scan.status == 200)
        #expect(scan.jsonObject?["result"] as? String == "checked_in")
        #expect(scan.jsonObject?["ticket"] as? String == serial)
        #expect(try app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject?["checkedInAt"] is String)

        // Upside down and sharper, as another phone holds it; a frame without a code reads as none.
        #expect(try client.frame(try QRFrame(message: code, moduleSize: 4, angle: 180 + 8, blur: 0.6).png, csrf: csrf).jsonObject?["codes"] as? [String] == [code])
        let none = try client.frame(QRFrame.png(width: 64, height: 48, imageData: QRFrame.storedZlib(Array(repeating: 0, count: 65 * 48))), csrf: csrf)
        #expect(none.status == 200, "\(none.text)")
        #expect(none.jsonObject?["codes"] as? [String] == [])
    }

    @Test("garbage, damaged frames and frames too large are 400 or 413 with a JSON error, never a 500", arguments: Backend.allCases)
    func refusals(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let (client, _) = try DashboardClient.signIn(app, token: AdminRoleTests.token(app, role: .scanner))
        let csrf = try client.csrf(on: "/admin/scan")
        let png = try QRFrame(message: "x").png
        let cases: [(String, [UInt8], Int, String)] = [
            ("empty", [], 400, "invalid_frame"),
            ("text", Array("hello, this is no image".utf8), 400, "invalid_frame"),
            ("noise", (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 11) }, 400, "invalid_frame"),
            ("GIF", Array("GIF89a".utf8) + Array(repeating: 0, count: 100), 400, "invalid_frame"),
            ("truncated PNG", Array(png.prefix(png.count / 2)), 400, "invalid_frame"),
            ("PNG signature and noise", Array(png.prefix(8)) + (0..<500).map { UInt8(truncatingIfNeeded: $0 * 31) }, 400, "invalid_frame"),
            ("JPEG signature and noise", [0xFF, 0xD8, 0xFF, 0xE0] + (0..<500).map { UInt8(truncatingIfNeeded: $0 * 7) }, 400, "invalid_frame"),
            ("a 30000×30000 header", QRFrame.png(width: 30_000, height: 30_000, imageData: [0, 1, 2, 3]), 400, "frame_too_large"),
            ("a 2000×100 header", QRFrame.png(width: 2000, height: 100, imageData: [0, 1, 2, 3]), 400, "frame_too_large"),
            ("over 1 MiB", Array(png.prefix(8)) + Array(repeating: 0, count: FrameReader.maximumFileBytes), 413, "payload_too_large"),
        ]
        for (name, body, status, code) in cases {
            let answer = try client.frame(body, csrf: csrf)
            #expect(answer.status == status, "\(name): \(answer.status) \(answer.text.prefix(200))")
            #expect(answer.header("Content-Type") == "application/json", "\(name)")
            #expect(answer.errorCode == code, "\(name): \(answer.text.prefix(200))")
        }
        // The server still answers.
        #expect(try client.frame(png, csrf: csrf).status == 200)
    }

    @Test("only a scanner's or admin's session with the CSRF header may send frames", arguments: Backend.allCases)
    func access(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let png = try QRFrame(message: "x").png
        let scannerToken = try AdminRoleTests.token(app, role: .scanner)
        let (scanner, _) = try DashboardClient.signIn(app, token: scannerToken)
        let csrf = try scanner.csrf(on: "/admin/scan")

        let anonymous = try app.request("POST", "/admin/scan/decode", headers: [("Content-Type", "image/png"), ("X-CSRF-Token", csrf)], body: png)
        #expect(anonymous.status == 401)
        #expect(anonymous.errorCode == "signed_out")
        let bearer = try app.request(
            "POST", "/admin/scan/decode", headers: [("Authorization", "Bearer \(scannerToken)"), ("Content-Type", "image/png")], body: png
        )
        #expect(bearer.status == 401)
        #expect(try scanner.frame(png, csrf: nil).errorCode == "csrf")
        #expect(try scanner.frame(png, csrf: "x" + csrf).status == 403)
        let (viewer, _) = try DashboardClient.signIn(app, token: AdminRoleTests.token(app, role: .viewer))
        let viewerCSRF = try viewer.csrf(on: "/admin/")
        let refused = try viewer.frame(png, csrf: viewerCSRF)
        #expect(refused.status == 403)
        #expect(refused.errorCode == "forbidden")
        // An admin's session may (admins may use the scanner page).
        let (admin, _) = try DashboardClient.signIn(app, token: app.adminToken)
        #expect(try admin.frame(png, csrf: try admin.csrf(on: "/admin/scan")).status == 200)
        #expect(try scanner.frame(png, csrf: csrf).status == 200)
    }

    @Test("frames beyond the ones being read are answered 503 busy with Retry-After, and the slot comes back")
    func busy() throws {
        let png = try QRFrame(message: "busy").png
        let none = FrameDecoding(limit: 0)
        do {
            _ = try none.answer(png)
            Issue.record("a frame was read with no slot")
        } catch let error as HTTPError {
            #expect(error.status == 503)
            #expect(error.code == "busy")
            #expect(error.headers["Retry-After"] == "1")
        }
        let one = FrameDecoding(limit: 1)
        for _ in 0..<3 { #expect(try one.answer(png).status == 200) }
        #expect(throws: HTTPError.self) { try one.answer([1, 2, 3]) }
        #expect(try one.answer(png).status == 200, "a refused frame gave its slot back")
    }
}

extension DashboardClient {
    /// `POST /admin/scan/decode` of `bytes` as a PNG frame with the session cookie and, unless nil,
    /// the CSRF header.
    func frame(_ bytes: [UInt8], csrf: String?) throws -> TestResponse {
        var headers = [("Content-Type", "image/png")]
        if let cookie { headers.append(("Cookie", cookie)) }
        if let csrf { headers.append(("X-CSRF-Token", csrf)) }
        return try app.request("POST", "/admin/scan/decode", headers: headers, body: bytes)
    }
}
