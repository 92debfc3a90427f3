import Dispatch
import Foundation
import Logging
import PassServerTesting
import Synchronization
import Testing

@testable import HTTPServer

/// Request heads at, over and far beyond the documented limits (16 KiB, 100 header fields, 200
/// cookies, 100 query parameters): within them served, over them answered with JSON, and beyond
/// what libmicrohttpd's pool holds answered by libmicrohttpd or closed, never leaving a request
/// in flight that would hold up a graceful stop.
@Suite(.offCooperativePool, .timeLimit(.minutes(3))) struct HeadLimitTests {
    /// A request head of `target` with `Host`, the `fields` given, and `Connection: close`.
    static func head(_ target: String = "/healthz", fields: [(String, String)] = []) -> String {
        var text = "GET \(target) HTTP/1.1\r\nHost: x\r\n"
        for (name, value) in fields { text += "\(name): \(value)\r\n" }
        return text + "Connection: close\r\n\r\n"
    }

    /// The reproduction's Cookie header: 600 pairs, 4.7 KB.
    static let sixHundredCookies = (0..<600).map { "k\($0)=v" }.joined(separator: "; ")

    /// What a browser sends with 180 cookies (the most a browser keeps per domain) in 8 KB.
    static let browserCookies = (0..<180).map { "_c\($0)=\(String(repeating: "v", count: 38))" }.joined(separator: "; ")
    static let browserFields = [
        ("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36"),
        ("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"),
        ("Accept-Language", "en-GB,en;q=0.9,de;q=0.8"),
        ("Accept-Encoding", "gzip, deflate, br"),
        ("Cookie", browserCookies),
    ]

    /// A head at every limit at once: exactly `size` bytes (16,384 by default), 100 header fields
    /// (Host and Connection included), 200 cookies and 100 query parameters.
    static func headAtEveryLimit(size wanted: Int = 16_384) -> String {
        let target = "/healthz?" + (0..<100).map { "q\($0)=1" }.joined(separator: "&")
        let cookies = (0..<200).map { "c\($0)=1" }.joined(separator: "; ")
        var fields = [("Cookie", cookies)] + (0..<96).map { ("X-F\($0)", "1") }
        let size = head(target, fields: fields + [("X-Pad", "")]).utf8.count
        fields.append(("X-Pad", String(repeating: "p", count: wanted - size)))
        return head(target, fields: fields)
    }

    /// One request on a fresh connection: its response, or nil when the connection closed unanswered.
    static func send(_ head: String, port: Int) throws -> TestResponse? {
        let client = try TestClient(port: port, timeout: 15)
        client.send(head)
        return try client.readResponse()
    }

    @Test("heads within the limits are served", arguments: ["browser", "every limit at once"])
    func headsWithinTheLimitsAreServed(shape: String) throws {
        let text = shape == "browser" ? Self.head("/healthz", fields: Self.browserFields) : Self.headAtEveryLimit()
        if shape == "browser" {
            #expect(Self.browserCookies.utf8.count > 7_500 && Self.browserCookies.utf8.count < 8_192)
        } else {
            #expect(text.utf8.count == 16_384)
        }
        try TestServer.with(echoRouter()) { server in
            let response = try #require(try Self.send(text, port: server.port), "closed without an answer")
            #expect(response.status == 200, "\(response.status) \(response.text.prefix(200))")
            #expect(response.text == "ok")
        }
    }

    @Test(
        "heads over the limits get a JSON 431 (414 for the query), with the connection closed",
        arguments: [
            ("one byte over 16 KiB", 431), ("30 KB of headers", 431), ("101 header fields", 431), ("201 cookies", 431),
            ("the reproduction's 600 cookies", 431), ("101 query parameters", 414),
        ]
    )
    func headsOverTheLimitsGetJSON(shape: String, status: Int) throws {
        let text: String =
            switch shape {
            case "one byte over 16 KiB": Self.headAtEveryLimit(size: 16_385)
            case "30 KB of headers": Self.head(fields: (0..<3).map { ("X-Filler-\($0)", String(repeating: "v", count: 10_000)) })
            case "101 header fields": Self.head(fields: (0..<99).map { ("X-F\($0)", "1") })
            case "201 cookies": Self.head(fields: [("Cookie", (0..<201).map { "c\($0)=1" }.joined(separator: "; "))])
            case "the reproduction's 600 cookies": Self.head(fields: [("Cookie", Self.sixHundredCookies)])
            default: Self.head("/healthz?" + (0..<101).map { "q\($0)=1" }.joined(separator: "&"))
            }
        try TestServer.with(echoRouter()) { server in
            let client = try server.client()
            client.send(text)
            let response = try #require(try client.readResponse(), "closed without an answer")
            #expect(response.status == status, "\(response.status) \(response.text.prefix(200))")
            #expect(response.errorCode == (status == 431 ? "header_fields_too_large" : "uri_too_long"), "\(response.text.prefix(200))")
            #expect(response.header("Content-Type") == "application/json")
            #expect(response.header("X-Request-ID") != nil)
            #expect(response.header("Connection")?.lowercased() == "close")
            #expect(client.waitForClose(seconds: 10))
            #expect(server.isHealthy())
            #expect(server.sink.lines.contains { $0.contains("status=\(status)") && $0.contains("request") })
        }
    }

    /// Heads that a hostile client sends, most of them beyond what libmicrohttpd's pool holds, each
    /// on its own connection, and what each gets: the server's JSON (`431 header_fields_too_large`
    /// when its own check saw the head or when libmicrohttpd dropped it), or libmicrohttpd's own
    /// answer (`libmicrohttpd`: its HTML page). The last one is cut short: the client closes after
    /// the request line.
    static let hostileShapes: [(name: String, head: String, outcome: String)] = [
        ("600 cookies", head(fields: [("Cookie", sixHundredCookies)]), "431 header_fields_too_large"),
        ("3,000 cookies", head(fields: [("Cookie", (0..<3_000).map { "k\($0)=v" }.joined(separator: "; "))]), "431 header_fields_too_large"),
        ("2,000 empty cookies", head(fields: [("Cookie", String(repeating: "a;", count: 2_000))]), "431 header_fields_too_large"),
        ("2,000 query parameters", head("/healthz?" + (0..<2_000).map { "a\($0)=b" }.joined(separator: "&")), "414 uri_too_long"),
        ("200 KB of headers", head(fields: (0..<20).map { ("X-Filler-\($0)", String(repeating: "v", count: 10_000)) }), "431 libmicrohttpd"),
        ("no Host", "GET /healthz HTTP/1.1\r\nCookie: \(sixHundredCookies)\r\n\r\n", "400 libmicrohttpd"),
        ("request line only", "GET /healthz HTTP/1.1\r\n", "sent"),
    ]

    @Test("600-cookie requests and heads beyond libmicrohttpd's pool are all answered and leave nothing in flight: the stop after them takes < 1 s")
    func hostileHeadsLeaveNothingInFlight() throws {
        var configuration = ServerConfiguration(port: 0, threads: 4)
        configuration.drainTimeout = .seconds(5)
        let sink = MemorySink()
        let server = HTTPServer(configuration: configuration, router: echoRouter(), logger: Logger(label: "t", level: .info, sink: sink))
        try server.start()
        defer { server.shutdown() }
        let port = server.port
        let rounds = 300
        let outcomes = Mutex<[String: [String: Int]]>([:])
        let deadline = ContinuousClock.now + .seconds(90)
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for round in 0..<rounds where ContinuousClock.now < deadline {
                for (index, shape) in Self.hostileShapes.enumerated() where (round + index) % 4 == worker {
                    let outcome: String
                    do {
                        if shape.outcome == "sent" {
                            try TestClient(port: port).send(shape.head)
                            outcome = "sent"
                        } else if let response = try Self.send(shape.head, port: port) {
                            outcome = "\(response.status) \(response.errorCode ?? "libmicrohttpd")"
                        } else {
                            outcome = "closed"
                        }
                    } catch {
                        outcome = "\(error)"
                    }
                    outcomes.withLock { $0[shape.name, default: [:]][outcome, default: 0] += 1 }
                }
            }
        }
        let seen = outcomes.withLock { $0 }
        for shape in Self.hostileShapes {
            print("\(shape.name): \(seen[shape.name] ?? [:])")
            #expect(seen[shape.name] == [shape.outcome: rounds], "\(shape.name)")
        }

        // Connections close a moment after the client has its answer; then nothing is in flight.
        let settled = ContinuousClock.now + .seconds(5)
        while server.inFlightRequests > 0, ContinuousClock.now < settled { usleep(20_000) }
        #expect(server.inFlightRequests == 0)
        #expect((try? Self.send(Self.head(), port: port)?.status) == 200)
        let started = ContinuousClock.now
        server.shutdown()
        let stop = ContinuousClock.now - started
        print("stop after \(rounds * Self.hostileShapes.count) hostile heads: \(stop)")
        #expect(stop < .seconds(1))
        // Answered as their connections closed (logged by then, the workers having stopped): the
        // three shapes libmicrohttpd drops, and only those (not the request line whose client went
        // away, which libmicrohttpd completes).
        #expect(sink.lines.filter { $0.contains("request head abandoned by libmicrohttpd") }.count == 3 * rounds)
    }

    /// Whether a fresh connection sending `head` gets an answer, and which (`closed`: none).
    static func outcome(_ head: String, port: Int) -> String {
        do {
            guard let response = try send(head, port: port) else { return "closed" }
            return "\(response.status) \(response.errorCode ?? "libmicrohttpd")"
        } catch {
            return "\(error)"
        }
    }

    @Test("every head up to the edge of libmicrohttpd's pool and past it gets an answer, in steps of 100 bytes, 2 cookies, 2 query parameters")
    func everyHeadSizeIsAnswered() throws {
        try TestServer.with(echoRouter()) { server in
            var seen: [String: [String: Int]] = [:]
            let deadline = ContinuousClock.now + .seconds(120)
            // Plain header lines of 8,000 bytes each, 20 KB to 80 KB in all.
            for size in stride(from: 20_000, through: 80_000, by: 100) where ContinuousClock.now < deadline {
                let fields = stride(from: 0, to: size, by: 8_000).map { ("X-F\($0)", String(repeating: "v", count: min(8_000, size - $0))) }
                seen["header bytes", default: [:]][Self.outcome(Self.head(fields: fields), port: server.port), default: 0] += 1
            }
            for count in stride(from: 202, through: 1_500, by: 2) where ContinuousClock.now < deadline {
                let cookie = (0..<count).map { "k\($0)=v" }.joined(separator: "; ")
                seen["cookies", default: [:]][Self.outcome(Self.head(fields: [("Cookie", cookie)]), port: server.port), default: 0] += 1
            }
            for count in stride(from: 102, through: 1_500, by: 2) where ContinuousClock.now < deadline {
                let target = "/healthz?" + (0..<count).map { "a\($0)=b" }.joined(separator: "&")
                seen["query parameters", default: [:]][Self.outcome(Self.head(target), port: server.port), default: 0] += 1
            }
            print("every head size: \(seen)")
            let headerBytes = seen["header bytes"] ?? [:], cookies = seen["cookies"] ?? [:], query = seen["query parameters"] ?? [:]
            // The JSON answer, or libmicrohttpd's own 431 once its pool cannot hold the head at all.
            #expect(Set(headerBytes.keys) == ["431 header_fields_too_large", "431 libmicrohttpd"])
            #expect(headerBytes.values.reduce(0, +) == 601)
            #expect(Set(cookies.keys) == ["431 header_fields_too_large"])
            #expect(cookies.values.reduce(0, +) == 650)
            #expect(Set(query.keys).isSubset(of: ["414 uri_too_long", "431 libmicrohttpd"]))
            #expect(query.values.reduce(0, +) == 700)
            #expect(server.isHealthy())
        }
    }

    @Test("control: a stop waits for a request in flight, up to the drain timeout")
    func stopWaitsForARequestInFlight() throws {
        var configuration = ServerConfiguration(port: 0, threads: 2)
        configuration.drainTimeout = .seconds(2)
        let server = HTTPServer(configuration: configuration, router: echoRouter(), logger: Logger(label: "t", sink: MemorySink()))
        try server.start()
        defer { server.shutdown() }
        // Its headers are in, its body is not: in flight until it arrives or the drain gives up.
        let held = try TestClient(port: server.port, timeout: 15)
        held.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly ten b")
        let entered = ContinuousClock.now + .seconds(10)
        while server.inFlightRequests == 0, ContinuousClock.now < entered { usleep(10_000) }
        #expect(server.inFlightRequests == 1)
        let started = ContinuousClock.now
        server.shutdown()
        let stop = ContinuousClock.now - started
        #expect(stop >= .milliseconds(1_900), "\(stop)")
        #expect(stop < .seconds(15), "\(stop)")
        #expect(server.inFlightRequests == 0)
    }

    @Test func headLimitsAreCheckedInOrder() {
        let limits = HeadLimits(ServerConfiguration())
        func code(_ size: Int, _ fields: Int, _ cookies: Int, _ query: Int) -> String? {
            limits.error(for: HeadLimits.Counts(headSize: size, fields: fields, cookies: cookies, queryParameters: query))?.code
        }
        #expect(code(16_384, 100, 200, 100) == nil)
        #expect(code(16_385, 100, 200, 100) == "header_fields_too_large")
        #expect(code(100, 101, 0, 0) == "header_fields_too_large")
        #expect(code(100, 2, 201, 0) == "header_fields_too_large")
        #expect(code(100, 2, 0, 101) == "uri_too_long")
        #expect(code(20_000, 200, 300, 101) == "uri_too_long")
        // The pool holds a head at every limit, with room for the response: 65 KiB at the defaults.
        #expect(ServerConfiguration().connectionMemoryLimit == 66_560)
    }
}
