import Foundation
import HTTPClient
import HTTPServer
import Logging
import PassServerTesting
import Synchronization
import Testing

/// `HTTPClient` against a live `HTTPServer` on 127.0.0.1: what is sent arrives as sent, what is
/// answered comes back whole, and every way of getting no answer is a typed error.
@Suite("HTTP client against a local server", .offCooperativePool, .timeLimit(.minutes(2)))
struct HTTPClientTests {
    /// A server with an echo route (method, headers and body back as JSON and bytes), a slow
    /// route, a route that redirects, and one whose answer is large.
    static func withServer<T>(_ body: (Int) throws -> T) throws -> T {
        var router = Router()
        for method in [HTTPMethod.POST, .PUT, .PATCH, .DELETE, .GET] {
            router.add(method, "/echo/:name") { request in
                var headers: HTTPHeaders = ["Content-Type": "application/octet-stream", "X-Method": request.method.rawValue]
                headers.add(name: "X-Name", value: request.parameters["name"] ?? "")
                headers.add(name: "X-Seen-Token", value: request.headers["X-Token"] ?? "none")
                headers.add(name: "X-Repeated", value: "one")
                headers.add(name: "X-Repeated", value: "two")
                return Response(status: 201, headers: headers, body: request.body)
            }
        }
        router.get("/slow") { _ in
            Thread.sleep(forTimeInterval: 2)
            return .text("late")
        }
        router.get("/moved") { _ in Response(status: 302, headers: ["Location": "/echo/elsewhere"]) }
        router.get("/large") { _ in Response(status: 200, body: [UInt8](repeating: 65, count: 300_000)) }
        let server = HTTPServer(configuration: ServerConfiguration(port: 0, threads: 4), router: router, logger: Logger(label: "client-test", sink: MemorySink()))
        try server.start()
        defer { server.shutdown() }
        return try body(server.port)
    }

    /// The error `request` fails with; nil (and an issue) when it got an answer.
    static func failure(
        _ client: HTTPClient, _ request: HTTPRequest, sourceLocation: SourceLocation = #_sourceLocation
    ) -> HTTPClientError? {
        do {
            let response = try client.send(request)
            Issue.record("expected a failure, got status \(response.status)", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    @Test("Method, headers and body arrive; status, lowercased headers and body come back; the connection is reused")
    func roundTrip() throws {
        try Self.withServer { port in
            let client = HTTPClient()
            let body = Array((0..<70_000).map { UInt8(truncatingIfNeeded: $0 * 7) })
            for (index, method) in ["POST", "PATCH", "PUT", "DELETE"].enumerated() {
                let response = try client.send(HTTPRequest(
                    method: method, url: "http://127.0.0.1:\(port)/echo/item\(index)", headers: [("X-Token", "secret-\(index)")], body: body
                ))
                #expect(response.status == 201)
                #expect(response.body == body)
                #expect(response[header: "X-Method"] == method)
                #expect(response[header: "x-name"] == "item\(index)")
                #expect(response[header: "x-seen-token"] == "secret-\(index)")
                #expect(response.headers.filter { $0.name == "x-repeated" }.map(\.value) == ["one", "two"])
                #expect(response.headers.allSatisfy { $0.name == $0.name.lowercased() })
                #expect(response.newConnections == (index == 0 ? 1 : 0), "request \(index) reuses the open connection")
            }
            let empty = try client.send(HTTPRequest(method: "POST", url: "http://127.0.0.1:\(port)/echo/empty"))
            #expect(empty.status == 201)
            #expect(empty.body.isEmpty)
            let get = try client.send(HTTPRequest(method: "GET", url: "http://127.0.0.1:\(port)/echo/get"))
            #expect(get[header: "x-method"] == "GET")
        }
    }

    @Test("Redirects come back as answers and are not followed")
    func redirectNotFollowed() throws {
        try Self.withServer { port in
            let response = try HTTPClient().send(HTTPRequest(method: "GET", url: "http://127.0.0.1:\(port)/moved"))
            #expect(response.status == 302)
            #expect(response[header: "location"] == "/echo/elsewhere")
            #expect(response[header: "x-method"] == nil)
        }
    }

    @Test("A request slower than its timeout fails as timedOut, and the client still works afterwards")
    func timeout() throws {
        try Self.withServer { port in
            let client = HTTPClient()
            let started = ContinuousClock.now
            let error = Self.failure(client, HTTPRequest(method: "GET", url: "http://127.0.0.1:\(port)/slow", timeout: .milliseconds(300)))
            #expect(error?.code == .timedOut)
            #expect(error?.message.contains("127.0.0.1:\(port)") == true)
            #expect(ContinuousClock.now - started < .milliseconds(1_500))
            let after = try client.send(HTTPRequest(method: "POST", url: "http://127.0.0.1:\(port)/echo/after", body: [1, 2, 3]))
            #expect(after.body == [1, 2, 3])
        }
    }

    @Test("A port nobody listens on fails as connectionRefused")
    func refused() throws {
        // The port of a server that has stopped: it answered a moment ago, so only the refusal differs.
        let port = try Self.withServer { port in
            let answer = try HTTPClient().send(HTTPRequest(method: "GET", url: "http://127.0.0.1:\(port)/echo/up"))
            #expect(answer.status == 201)
            return port
        }
        let error = Self.failure(HTTPClient(), HTTPRequest(method: "GET", url: "http://127.0.0.1:\(port)/echo/x", timeout: .seconds(5)))
        #expect(error?.code == .connectionRefused)
        #expect(error?.isTransient == true)
    }

    @Test("TLS to a plain HTTP server fails as tls")
    func tlsFailure() throws {
        try Self.withServer { port in
            let error = Self.failure(HTTPClient(), HTTPRequest(method: "GET", url: "https://127.0.0.1:\(port)/echo/x", timeout: .seconds(5)))
            #expect(error?.code == .tls)
        }
    }

    @Test("An answer beyond the body limit fails as responseTooLarge; one within it arrives whole")
    func bodyLimit() throws {
        try Self.withServer { port in
            let url = "http://127.0.0.1:\(port)/large"
            let within = try HTTPClient(configuration: .init(maxResponseBody: 300_000)).send(HTTPRequest(method: "GET", url: url))
            #expect(within.body.count == 300_000)
            let error = Self.failure(HTTPClient(configuration: .init(maxResponseBody: 100_000)), HTTPRequest(method: "GET", url: url))
            #expect(error?.code == .responseTooLarge)
            #expect(error?.isTransient == false)
        }
    }

    @Test("Header fields that would split the request, and bad methods, are refused before sending")
    func invalidRequests() throws {
        let client = HTTPClient()
        for request in [
            HTTPRequest(method: "GET", url: "http://127.0.0.1:9/", headers: [("X-Evil", "a\r\nInjected: yes")]),
            HTTPRequest(method: "GET", url: "http://127.0.0.1:9/", headers: [("Bad Name", "x")]),
            HTTPRequest(method: "GE T", url: "http://127.0.0.1:9/"),
            HTTPRequest(method: "GET", url: "ftp://127.0.0.1:9/"),
        ] {
            #expect(Self.failure(client, request)?.code == .invalidRequest, "\(request.method) \(request.url)")
        }
    }

    @Test("Concurrent callers each get their own answer")
    func concurrent() throws {
        try Self.withServer { port in
            let client = HTTPClient()
            let results = ResultBox()
            DispatchQueue.concurrentPerform(iterations: 16) { index in
                let body = Array("request \(index)".utf8)
                let response = try? client.send(HTTPRequest(method: "POST", url: "http://127.0.0.1:\(port)/echo/c\(index)", body: body))
                results.record(index, matches: response?.body == body && response?[header: "x-name"] == "c\(index)")
            }
            #expect(results.matched == 16)
        }
    }
}

/// Counts the concurrent requests whose answers matched.
private final class ResultBox: Sendable {
    private let count = Mutex(0)
    func record(_ index: Int, matches: Bool) {
        if matches { count.withLock { $0 += 1 } }
    }
    var matched: Int { count.withLock { $0 } }
}
