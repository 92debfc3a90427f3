import HTTPServer
import Logging
import Storage

/// `/healthz`: the process answers. `/readyz`: the database answers and no component reports a
/// problem (503 with the reasons otherwise), so a load balancer stops sending traffic.
struct HealthController: Sendable {
    let store: any Store
    let readiness: Readiness
    let logger: Logger

    private struct Status: Encodable {
        var status: String
    }

    func register(in router: inout Router) {
        router.get("/healthz") { _ in .json(Status(status: "ok"), encoder: .api) }
        router.get("/readyz") { request in
            var reasons: [String] = []
            do {
                try store.ping()
            } catch {
                logger.warning("readiness check: database unavailable", ["error": "\(error)", "request.id": request.requestID])
                reasons.append("database: unavailable")
            }
            reasons += readiness.current.map { "\($0.component): \($0.problem)" }
            guard reasons.isEmpty else {
                return .error(status: 503, code: "not_ready", message: reasons.joined(separator: "; "))
            }
            return .json(Status(status: "ready"), encoder: .api)
        }
    }
}
