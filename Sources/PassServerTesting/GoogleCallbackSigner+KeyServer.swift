import HTTPServer
import Logging
import Synchronization

/// Google's keys URL on 127.0.0.1: serves a signer's key list at `/gp/m/issuer/keys` and counts
/// the fetches, so tests see that the server fetched, cached and refreshed the keys.
package final class GoogleKeyServer: Sendable {
    private let server: HTTPServer
    private let document: Mutex<[UInt8]>
    private let fetchCount = Atomic<Int>(0)

    package init(document: [UInt8]) throws {
        self.document = Mutex(document)
        var router = Router()
        let box = DocumentBox()
        router.get("/gp/m/issuer/keys") { _ in
            box.server?.answer() ?? Response(status: 503)
        }
        server = HTTPServer(
            configuration: ServerConfiguration(host: "127.0.0.1", port: 0, threads: 2, drainTimeout: .seconds(1)),
            router: router, logger: Logger(label: "google-keys", level: .error, sink: MemorySink())
        )
        box.server = self
        try server.start()
    }

    /// The keys URL (GOOGLE_WALLET_KEYS_URL).
    package var url: String { "http://127.0.0.1:\(server.port)/gp/m/issuer/keys" }
    /// How many times the key list was fetched.
    package var fetches: Int { fetchCount.load(ordering: .relaxed) }

    /// Serves another key list from now on (Google rotated its keys).
    package func replace(_ document: [UInt8]) { self.document.withLock { $0 = document } }

    package func shutdown() { server.shutdown() }

    private func answer() -> Response {
        fetchCount.add(1, ordering: .relaxed)
        return Response(status: 200, headers: ["Content-Type": "application/json"], body: document.withLock { $0 })
    }
}

/// The route is made before the server it answers for exists.
private final class DocumentBox: @unchecked Sendable {
    // Safe because `server` is set once, before the HTTP server starts, and only read afterwards.
    weak var server: GoogleKeyServer?
}
