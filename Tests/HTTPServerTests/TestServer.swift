import Foundation
import PassServerTesting
@testable import HTTPServer
import Logging
import Synchronization

/// A live server on 127.0.0.1 with a free port and an in-memory log, stopped after `body`.
struct TestServer {
    let server: HTTPServer
    let sink: MemorySink
    var port: Int { server.port }

    static func with<T>(
        _ router: Router,
        configure: (inout ServerConfiguration) -> Void = { _ in },
        observer: RequestObserver? = nil,
        _ body: (TestServer) throws -> T
    ) throws -> T {
        var configuration = ServerConfiguration(port: 0, threads: 4)
        configure(&configuration)
        let sink = MemorySink()
        let logger = Logger(label: "http-test", level: .debug, sink: sink)
        let server = HTTPServer(configuration: configuration, router: router, logger: logger, observer: observer)
        try server.start()
        defer { server.shutdown() }
        return try body(TestServer(server: server, sink: sink))
    }

    func client(timeout: Int = 15, source: String = "127.0.0.1") throws -> TestClient {
        try TestClient(port: port, timeout: timeout, source: source)
    }

    /// A fresh connection that gets a 200 from GET `path`: the server is still healthy.
    func isHealthy(path: String = "/healthz") -> Bool {
        (try? client().request("GET", path).status) == 200
    }
}

/// Routes shared by several suites.
func echoRouter() -> Router {
    var router = Router()
    router.get("/healthz") { _ in .text("ok") }
    router.post("/echo") { request in Response(status: 200, headers: ["Content-Type": "application/octet-stream"], body: request.body) }
    router.post("/small", maxBodySize: 16) { request in .text("got \(request.body.count)") }
    return router
}

/// A thread-safe counter for handlers.
final class Counter: Sendable {
    private let count = Mutex(0)
    func increment() { add(1) }
    func add(_ amount: Int) { count.withLock { $0 += amount } }
    var value: Int { count.withLock { $0 } }
}
