import HTTPServer
import Logging
import Storage

/// `/healthz`: the process answers. `/readyz`: the database answers and no component reports a
/// problem (503 with the reasons otherwise), so a load balancer stops sending traffic. Warnings
/// (a certificate close to expiry) are listed in the 200 answer and never make it 503.
struct HealthController: Sendable {
    let store: any Store
    let readiness: Readiness
    let logger: Logger

    private struct Status: Encodable {
        var status: String
        /// Omitted when there is none.
        var warnings: [String]? = nil
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
            let warnings = readiness.currentWarnings
            return .json(Status(status: "ready", warnings: warnings.isEmpty ? nil : warnings), encoder: .api)
        }
    }
}
