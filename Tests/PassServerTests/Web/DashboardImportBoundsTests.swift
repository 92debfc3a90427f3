import Foundation
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// An admin's CSV check in the dashboard costs memory and page size bounded by the import's own
/// limits, not by what was sent: an upload larger than an import takes is refused from its
/// headers, and the largest one it takes is checked without being echoed back.
@Suite("Dashboard: the CSV check is bounded", .offCooperativePool, .timeLimit(.minutes(8)), .tags(.endToEnd))
struct DashboardImportBoundsTests {
    /// A `multipart/form-data` body as a browser sends the import form with a file.
    static func multipart(csrf: String, step: String, csv: [UInt8]) -> [UInt8] {
        func field(_ name: String, _ value: String) -> String {
            "--b\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n"
        }
        return Array((field("csrf", csrf) + field("step", step)
            + "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"attendees.csv\"\r\nContent-Type: text/csv\r\n\r\n").utf8)
            + csv + Array("\r\n--b--\r\n".utf8)
    }

    /// A valid CSV of `rows` attendees padded with blank lines (which an import skips) to `size` bytes.
    static func csv(rows: Int, size: Int) -> [UInt8] {
        var text = Array("attendeeName,attendeeEmail,seat\n".utf8)
        for row in 1...rows { text += Array("Attendee \(row),attendee\(row)@example.org,S\(row)\n".utf8) }
        return text + [UInt8](repeating: 0x0A, count: max(0, size - text.count))
    }

    @Test("an admin's 48 MB check is a 413 page before its body; the largest check an import takes stays under 150 MiB of peak RSS and 1 MiB of page")
    func checkIsBounded() async throws {
        let fixture = try ProcessFixture(.sqlite)
        let (event, _) = try fixture.event(tickets: 0)
        let cookie = try DashboardEarlyRefusalTests.session(fixture, role: .admin)
        fixture.store.close()
        let server = try fixture.launch()
        defer { server.forceKill() }
        let port = try await server.port(timeout: 180)
        let pid = server.process.processIdentifier
        let page = try TestClient(port: port).request("GET", "/admin/", headers: [("Cookie", cookie)])
        let csrf = try #require(DashboardClient.csrf(in: page.text), "signed in: \(page.status)")
        func check(_ csv: [UInt8]) throws -> (first: TestResponse, final: TestResponse?) {
            let body = Self.multipart(csrf: csrf, step: "check", csv: csv)
            let client = try TestClient(port: port, timeout: 120)
            client.send(
                "POST /admin/events/\(event)/import HTTP/1.1\r\nHost: x\r\nCookie: \(cookie)\r\n"
                    + "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: \(body.count)\r\nExpect: 100-continue\r\n\r\n"
            )
            let first = try #require(try client.readResponse())
            guard first.status == 100 else { return (first, nil) }
            client.send(body)
            return (first, try client.readResponse())
        }

        // A small check first: the page lists the rows and carries the upload to the issue form.
        let small = try check(Self.csv(rows: 3, size: 0))
        #expect(small.final?.status == 200 && small.final?.text.contains("All 3 rows are valid") == true)
        #expect(small.final?.text.contains(#"name="csv" value="attendeeName,attendeeEmail,seat"#) == true, "a small upload is carried over")

        let before = try HeldUploads.residentKiB(pid)
        let oversized = try check(Self.csv(rows: 2_000, size: 48_000_000))
        #expect(oversized.first.status == 413, "refused instead of 100 Continue: \(oversized.first.status)")
        #expect(oversized.first.header("Content-Type")?.hasPrefix("text/html") == true && oversized.first.text.contains("split the file"))
        let afterOversized = try HeldUploads.residentKiB(pid, peak: true)

        // The largest upload an import takes: 10,000 rows padded to 16 MiB.
        let largest = try check(Self.csv(rows: TicketImport.maxRows, size: TicketImport.maxBodySize - 1_024))
        let peak = try HeldUploads.residentKiB(pid, peak: true)
        let final = try #require(largest.final)
        let peakGrowth = Double(peak - before) / 1024
        print("dashboard CSV check: 48 MB upload \(oversized.first.status), peak RSS \(String(format: "%+.1f", Double(afterOversized - before) / 1024)) MiB; 16 MiB upload \(final.status), page \(final.body.count) bytes, peak RSS \(String(format: "%+.1f", peakGrowth)) MiB")
        #expect(final.status == 200)
        #expect(final.text.contains("All \(TicketImport.maxRows) rows are valid"))
        #expect(final.text.contains("Showing \(ImportPage.shownRows) of \(TicketImport.maxRows) rows"))
        #expect(final.body.count < 1 << 20, "the page is \(final.body.count) bytes")
        #expect(!final.text.contains(#"name="csv" value="#), "a large upload is not echoed into the issue form")
        #expect(final.text.contains(#"id="f-issue-file""#), "the issue form asks for the file again")
        #expect(peakGrowth < 150, "peak RSS grew by \(peakGrowth) MiB")
        #expect(try TestClient(port: port).request("GET", "/healthz").status == 200)
    }
}
