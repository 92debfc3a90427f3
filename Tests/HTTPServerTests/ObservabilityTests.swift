import Foundation
import HTTPServer
import PassServerTesting
import Synchronization
import Testing

/// Request ids and the access log.
@Suite(.offCooperativePool, .timeLimit(.minutes(2))) struct ObservabilityTests {
    @Test func everyResponseHasAUniqueRequestID() throws {
        try TestServer.with(echoRouter()) { server in
            let client = try server.client()
            var ids: Set<String> = []
            for target in ["/healthz", "/healthz", "/missing", "/healthz"] {
                let response = try client.request("GET", target)
                let id = try #require(response.header("X-Request-ID"))
                #expect(id.count == 32)
                ids.insert(id)
            }
            #expect(ids.count == 4)
            let rejected = try server.client().request("POST", "/small", body: Array(repeating: 0, count: 100))
            #expect(rejected.status == 413)
            #expect(rejected.header("X-Request-ID")?.count == 32)
        }
    }

    @Test func wellFormedIncomingIDIsReusedOthersReplaced() throws {
        try TestServer.with(echoRouter()) { server in
            let client = try server.client()
            let reused = try client.request("GET", "/healthz", headers: [("x-request-id", "proxy-1234.abc_DEF")])
            #expect(reused.header("X-Request-ID") == "proxy-1234.abc_DEF")
            let tooLong = String(repeating: "a", count: 65)
            let replaced = try client.request("GET", "/healthz", headers: [("X-Request-ID", tooLong)])
            #expect(replaced.header("X-Request-ID")?.count == 32)
            let odd = try client.request("GET", "/healthz", headers: [("X-Request-ID", "a<b>")])
            #expect(odd.header("X-Request-ID")?.count == 32)
        }
    }

    @Test func oneAccessLogLinePerRequest() throws {
        var router = echoRouter()
        router.get("/download/:token") { _ in .text("file") }
        try TestServer.with(router) { server in
            let client = try server.client()
            let response = try client.request("GET", "/healthz", headers: [("X-Request-ID", "log-check-1")])
            #expect(response.status == 200)
            _ = try client.request("GET", "/download/SECRETTOKENVALUE")
            _ = try client.request("GET", "/missing")
            let lines = server.sink.lines.filter { $0.contains(" info http-test: request ") }
            #expect(lines.count == 3)
            let line = try #require(lines.first { $0.contains("request.id=log-check-1") })
            for part in ["method=GET", "path=/healthz", "status=200", "bytes=2", "duration_ms=", "peer=127.0.0.1"] {
                #expect(line.contains(part), "\(part) missing in \(line)")
            }
            #expect(lines.contains { $0.contains("status=404") && $0.contains("path=/missing") })
            #expect(!server.sink.lines.joined().contains("SECRETTOKENVALUE"))
            #expect(lines.contains { $0.contains("/download/SECR…") })
        }
    }

    @Test func theObserverHearsEveryAnsweredRequestByRoutePattern() throws {
        var router = echoRouter()
        router.get("/items/:id") { request in
            guard request.parameters["id"] != "missing" else { throw HTTPError.notFound("no such item") }
            return .text("item")
        }
        let observed = Mutex<[CompletedRequest]>([])
        try TestServer.with(router, observer: { request in observed.withLock { $0.append(request) } }) { server in
            let client = try server.client()
            #expect(try client.request("GET", "/items/1").status == 200)
            #expect(try client.request("GET", "/items/2").status == 200)
            #expect(try client.request("GET", "/items/missing").status == 404)
            #expect(try client.request("HEAD", "/items/3").status == 200)
            #expect(try client.request("GET", "/nowhere/at/all").status == 404)
            #expect(try client.request("DELETE", "/items/1").status == 405)
            #expect(try server.client().request("POST", "/small", body: Array(repeating: 0, count: 100)).status == 413)
        }
        let requests = observed.withLock { $0 }
        let summary = requests.map { "\($0.method) \($0.route ?? "nil") \($0.status)" }
        #expect(summary == [
            "GET /items/:id 200", "GET /items/:id 200", "GET /items/:id 404", "HEAD /items/:id 200",
            "GET nil 404", "DELETE nil 405", "POST /small 413",
        ])
        #expect(requests.allSatisfy { $0.duration > .zero && $0.duration < .seconds(30) })
    }
}
